"""Contacts and magnet wrenches of tiles at grid poses, made from tables of tile pairs.

At grid poses (:class:`~magdomino.maths.geometry.GridPose`) what two tiles do to each other
depends only on where one lies from the other: the contact polygons between them
(:func:`~magdomino.physics.contact_polygons.find_contacts`) and their magnets' wrenches
(:meth:`~magdomino.maths.magnets.batch.TileMagnets.pair_wrenches`) are functions of their
directions, their levels and the offset of their squares, and a tile's contact with the table
is a function of its direction. :class:`GridPairs` computes each of these once, with those same
functions, on the two tiles alone, and assembles a construction's contacts and magnet wrenches
from them: the contacts of :func:`~magdomino.physics.contact_polygons.find_contacts`, in its
order, moved to where the tiles are; the wrenches of
:func:`~magdomino.physics.statics.magnet_wrenches`, summed pair by pair (equal to rounding, but
for a magnet pair exactly at the distance where the magnet model changes its rule: there the
whole computation's answer depends on where on the table the construction stands, rounding
deciding, and the table takes the answer of the pair at the grid's origin, the same wherever
the shape stands).
A judge that weighs many constructions on one grid (:mod:`magdomino.physics.training_adjudicator`)
then finds no contact and computes no magnet twice.

Free magnets turn with the field of every pair at once, so their wrenches do not add up pair
by pair: :class:`GridPairs` refuses them (``ValueError``); their structures are made whole.
"""

from __future__ import annotations

import math

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import GridPose, physical_pose
from magdomino.maths.poses import yaw_quaternion
from magdomino.physics.contact_polygons import SIDE_GAP_M, Contact, find_contacts


def grid_poses(grids, size) -> tuple[np.ndarray, np.ndarray]:
    """Centres (n, 3) m and quaternions (n, 4) of grid poses ``(x, y, level, d)`` of tiles of
    ``size`` (3,) m (:func:`~magdomino.maths.geometry.physical_pose`)."""
    made = [physical_pose(GridPose(*g), size) for g in grids]
    return (np.array([c for c, _ in made], float).reshape(-1, 3),
            np.array([yaw_quaternion(y) for _, y in made], float).reshape(-1, 4))


class GridPairs:
    """Contacts and magnet wrenches of tiles at grid poses (the module docstring).

    Parameters
    ----------
    preset : Preset
    magnets : bool
        False: every magnet wrench is zero.

    Attributes
    ----------
    reach : int
        Two tiles whose half-0 squares are further apart than this many grid squares (along x
        or y) neither touch nor hold a magnet pair within the cutoff: their centres are at
        least ``reach`` squares apart, beyond a tile's diagonal and the magnets' reach.

    Raises
    ------
    ValueError
        The tiles have free magnets.
    """

    def __init__(self, preset, magnets: bool = True):
        self.preset = preset
        self.size = np.asarray(preset.tile.size, float)
        self.unit = float(self.size[0]) / 2
        self.use_magnets = bool(magnets) and len(preset.tile.magnets) > 0
        self._tm = preset.tile_magnets() if self.use_magnets else None
        if self._tm is not None:
            if bool(np.any(self._tm.free)):
                raise ValueError("free magnets turn with every pair's field at once: their wrenches do not add up by pairs")
        furthest = float(np.hypot(self.size[0], self.size[1])) + SIDE_GAP_M
        if self._tm is not None:
            furthest = max(furthest, self._tm.cutoff + 2 * self._tm.reach)
        self.reach = math.floor(furthest / self.unit) + 1
        self._contacts: dict = {}  # pair key -> contacts between the two (a, b local), or an InputError
        self._tables: dict = {}  # direction -> the corners of a tile on the table at (0, 0)
        self._wrenches: dict = {}  # pair key -> (force on j, torque on j, torque on i), or None beyond reach

    def poses(self, grids) -> tuple[np.ndarray, np.ndarray]:
        """:func:`grid_poses` of this preset's tiles."""
        return grid_poses(grids, self.size)

    def contacts(self, grids, tile: int | None = None) -> list[Contact]:
        """:func:`~magdomino.physics.contact_polygons.find_contacts` of tiles at grid poses
        ``(x, y, level, d)`` (no fixed tile), ``tile`` as there: only that tile's contacts.

        Raises
        ------
        InputError
            As :func:`~magdomino.physics.contact_polygons.find_contacts` (tiles inside each other).
        """
        n = len(grids)
        mine = range(n) if tile is None else (tile,)
        if any(grids[i][2] < 0 for i in mine):  # inside the table: find_contacts says so
            return find_contacts(*self.poses(grids), self.size, tile=tile)
        out = [Contact(-1, i, self._table(grids[i]), _UP, "table") for i in mine if grids[i][2] == 0]
        sides = []
        for i in range(n):
            for j in ((tile,) if tile is not None and i != tile else range(n)):
                if i == j:
                    continue
                gi, gj = grids[i], grids[j]
                if abs(gi[0] - gj[0]) > self.reach or abs(gi[1] - gj[1]) > self.reach or abs(gi[2] - gj[2]) > 1:
                    continue
                first, second = (i, j) if i < j else (j, i)
                pair = self._pair_contacts(grids[first], grids[second])
                if isinstance(pair, InputError):  # find it again among all the tiles: its message names them
                    P, Q = self.poses(grids)
                    return find_contacts(P, Q, self.size, tile=tile)
                shift = (self.unit * grids[first][0], self.unit * grids[first][1], 0.0)
                local = (0, 1) if i < j else (1, 0)
                for a, b, points, normal, kind in pair:
                    if kind == "stack" and (a, b) == local:
                        out.append(Contact(i, j, points + shift, normal, kind))
                    elif kind == "side" and i < j:
                        sides.append(Contact(i, j, points + shift, normal, kind))
        return out + sides

    def wrenches(self, grids, tile: int | None = None) -> np.ndarray:
        """Magnet force (N) and torque about each centre (N·m) on each tile, shape (n, 6), from
        every pair of tiles at grid poses ``(x, y, level, d)`` (``tile``: only its pairs)."""
        n = len(grids)
        out = np.zeros((n, 6))
        if self._tm is None or n < 2:
            return out
        for j in range(n):
            for i in (range(j) if tile is None or j == tile else ((tile,) if tile < j else ())):
                gi, gj = grids[i], grids[j]
                if abs(gi[0] - gj[0]) > self.reach or abs(gi[1] - gj[1]) > self.reach:
                    continue
                pair = self._pair_wrenches(gi, gj)
                if pair is not None:
                    Fj, Tj, Ti = pair
                    out[j, :3] += Fj
                    out[j, 3:] += Tj
                    out[i, :3] -= Fj
                    out[i, 3:] += Ti
        return out

    def _table(self, grid) -> np.ndarray:
        """The table contact's vertices (4, 3) m of a tile at ``grid`` on the table."""
        corners = self._tables.get(grid[3])
        if corners is None:
            P, Q = self.poses([(0, 0, 0, grid[3])])
            (table,) = [c for c in find_contacts(P, Q, self.size) if c.kind == "table"]
            corners = self._tables[grid[3]] = table.points
        return corners + (self.unit * grid[0], self.unit * grid[1], 0.0)

    def _pair_contacts(self, gi, gj):
        """The contacts between tiles ``gi`` and ``gj`` (local bodies 0 and 1) with ``gi`` at
        the grid's origin: ``[(a, b, points, normal, kind)]``, or the InputError they raise."""
        key = (gi[3], gj[3], gj[0] - gi[0], gj[1] - gi[1], gi[2], gj[2])
        found = self._contacts.get(key)
        if found is None:
            P, Q = self.poses([(0, 0, gi[2], gi[3]), (gj[0] - gi[0], gj[1] - gi[1], gj[2], gj[3])])
            try:
                found = [(c.a, c.b, c.points, _read_only(c.normal), c.kind) for c in find_contacts(P, Q, self.size) if c.kind != "table"]
            except InputError as exc:
                found = exc
            self._contacts[key] = found
        return found

    def _pair_wrenches(self, gi, gj):
        """(force on j, torque on j, torque on i) of tile ``gi``'s magnets and ``gj``'s with
        ``gi`` at the grid's origin, or None when the pair is beyond the magnets' reach."""
        key = (gi[3], gj[3], gj[0] - gi[0], gj[1] - gi[1], gj[2] - gi[2])
        if key not in self._wrenches:
            P, Q = self.poses([(0, 0, 0, gi[3]), (gj[0] - gi[0], gj[1] - gi[1], gj[2] - gi[2], gj[3])])
            ti, tj = self._tm.tile_pairs(P)
            found = None
            if len(ti):
                Fj, Tj, Ti, _ = self._tm.pair_wrenches(ti, tj, P, Q)
                found = (Fj[0], Tj[0], Ti[0])
            self._wrenches[key] = found
        return self._wrenches[key]


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only: a normal the tables hand to every contact of its kind."""
    a.flags.writeable = False
    return a


_UP = _read_only(np.array([0.0, 0.0, 1.0]))
