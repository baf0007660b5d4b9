"""Placement geometry on a square grid: poses, half-face anchors, superposition, extremities.

The grid
--------
A half-tile is one square of the grid. The grid unit is half the tile length (which is the
tile width for a standard domino: 24 mm for the 48 × 24 × 8 mm tile). A square is
``(x, y, level)`` with integer coordinates; level 0 is the table, level ``L`` lies
``L`` thicknesses above it. A placed tile covers two squares at the same level:

- half 0's square ``(x, y, level)``,
- half 1's square ``(x + dx, y + dy, level)`` where ``(dx, dy) = DIRS[d]``.

``DIRS`` are ``0: +x, 1: −x, 2: +y, 3: −y``. Which pips each half shows is the caller's
business; :mod:`magdomino.games` always puts the tile's first (low) pips on half 0, so
showing a tile "the other way round" is the same as reversing ``d`` from the other square.

Physical poses
--------------
Square ``(i, j, level)`` has its centre at ``(i·u, j·u, (level + 0.5)·t)`` where ``u`` is
half the tile length and ``t`` the thickness (metres). A placed tile's centre is the middle
of its two squares; its yaw is the angle of the vector from half 0 to half 1
(:func:`physical_pose`). In the tile frame (DESIGN.md) half 0 is at −x and half 1 at +x, so
this yaw turns the tile frame onto the grid. :func:`relative_pose` gives a tile's pose in
its support's frame, and :func:`compose_pose` puts it back on wherever the support really
is after the physics settled it.

The rules of superposition (:class:`Grid`)
------------------------------------------
- **Tower** (``tower_placements``), a new tile at level ``L + 1`` over a tile at level
  ``L``: one of its squares lies exactly over a square of that tile with the same pips;
  every square of the new tile that has a square right below it must match that square; the
  new squares are free and nothing lies higher over them (a covered square cannot be
  covered again, and the tile is dropped from above). Parallel to the support (both ways)
  or, when allowed, perpendicular.
- **End to end** (``end_placements``), at table level: the new tile's matching half is
  next to a table tile's half, in line with that tile's axis, extending outward; both its
  squares are free all the way up (it is put down from above).
- **Slide beneath** (``slide_placements``): the new tile lies at level 0 with its matching
  half under an overhanging level-1 square with the same pips (the level-0 square there is
  empty); its other half goes to any free level-0 square next to it; if that square too has
  a level-1 square over it, the pips must match. The tile arrives by sliding along the
  table; :meth:`Grid.slide_direction` picks a direction whose path is free.
- **Extremities**: every placement has a parent (the tile it rests on, touches end to end,
  or slides under); the parents form a tree; extremities are the tiles with at most one
  neighbour in that tree (:meth:`Grid.is_extremity`).

This module is the math layer: it imports numpy and nothing from magdomino but errors.
Pips are plain ints and a tile's pips a plain pair; tiles are named by their number in the
construction (0, 1, 2, … in placement order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.poses import wrap_angle

DIRS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""Grid directions by index: 0 = +x, 1 = −x, 2 = +y, 3 = −y."""
DIR_NAMES = ("+x", "-x", "+y", "-y")
OPPOSITE = (1, 0, 3, 2)
"""``OPPOSITE[d]`` is the direction index of ``-DIRS[d]``."""
PERPENDICULAR = ((2, 3), (2, 3), (0, 1), (0, 1))
DIR_INDEX = {v: i for i, v in enumerate(DIRS)}

STANDARD_TILE_SIZE = (0.048, 0.024, 0.008)
"""Length, width, thickness of the standard tile, m (``magdomino/model/preset_files/standard.toml``)."""


@dataclass(frozen=True, slots=True)
class GridPose:
    """A tile on the grid: half 0's square ``(x, y, level)`` and direction ``d`` to half 1."""

    x: int
    y: int
    level: int
    d: int

    def squares(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """The squares of half 0 and half 1, ``(x, y, level)`` each."""
        dx, dy = DIRS[self.d]
        return (self.x, self.y, self.level), (self.x + dx, self.y + dy, self.level)

    def axis(self) -> int:
        """0 when the tile lies along x, 1 along y."""
        return self.d >> 1

    def to_list(self) -> list[int]:
        return [self.x, self.y, self.level, self.d]


def dir_index(name_or_index) -> int:
    """A direction index from ``0..3`` or a name ``"+x"``, ``"-x"``, ``"+y"``, ``"-y"``."""
    if isinstance(name_or_index, str):
        if name_or_index in DIR_NAMES:
            return DIR_NAMES.index(name_or_index)
    elif isinstance(name_or_index, int) and 0 <= name_or_index < 4:
        return name_or_index
    raise InputError("geometry", "direction", f"one of 0..3 or {', '.join(DIR_NAMES)}, got {name_or_index!r}")


def check_tile_size(size) -> tuple[float, float, float]:
    """The tile size ``(length, width, thickness)`` in metres as floats, checked."""
    try:
        vals = tuple(float(v) for v in size)
    except (TypeError, ValueError):
        vals = ()
    if len(vals) != 3 or not all(math.isfinite(v) and v > 0 for v in vals):
        raise InputError("geometry", "tile_size", f"three positive lengths in metres, got {size!r}")
    return vals


def physical_pose(pose: GridPose, size=STANDARD_TILE_SIZE) -> tuple[np.ndarray, float]:
    """World pose of a tile placed on the grid.

    Parameters
    ----------
    pose : GridPose
    size : array-like, shape (3,), m
        Tile length, width, thickness. The grid unit is ``length / 2``.

    Returns
    -------
    centre : ndarray, shape (3,), m
        ``((x + dx/2)·u, (y + dy/2)·u, (level + 0.5)·thickness)``.
    yaw : float, rad
        Angle from half 0 to half 1, in ``(-pi, pi]``.
    """
    length, _width, thick = size
    unit = length / 2
    dx, dy = DIRS[pose.d]
    centre = np.array([(pose.x + dx / 2) * unit, (pose.y + dy / 2) * unit, (pose.level + 0.5) * thick])
    return centre, math.atan2(dy, dx)


def square_centre(square, size=STANDARD_TILE_SIZE) -> np.ndarray:
    """Centre of a grid square ``(x, y, level)`` in metres (the anchor of a half face)."""
    length, _width, thick = size
    unit = length / 2
    x, y, level = square
    return np.array([x * unit, y * unit, (level + 0.5) * thick])


def half_anchor(pose: GridPose, half: int, size=STANDARD_TILE_SIZE, face: str = "top") -> np.ndarray:
    """The centre of a half's top (or bottom) face in metres: where a superposed half sits."""
    sq = pose.squares()[half]
    c = square_centre(sq, size)
    c[2] += (0.5 if face == "top" else -0.5) * size[2]
    return c


def relative_pose(pose: GridPose, support: GridPose, size=STANDARD_TILE_SIZE) -> tuple[np.ndarray, float]:
    """Pose of a tile in the frame of another one (its support).

    Returns ``(offset, yaw)``: the tile's centre in the support's frame (m, shape (3,)) and
    its yaw relative to the support's yaw (rad, in ``(-pi, pi]``). Apply it with
    :func:`compose_pose` to the support's actual pose.
    """
    c, yaw = physical_pose(pose, size)
    cs, yaw_s = physical_pose(support, size)
    cos, sin = math.cos(yaw_s), math.sin(yaw_s)
    d = c - cs
    offset = np.array([cos * d[0] + sin * d[1], -sin * d[0] + cos * d[1], d[2]])
    return offset, wrap_angle(yaw - yaw_s)


def compose_pose(support_centre, support_yaw: float, offset, yaw: float) -> tuple[np.ndarray, float]:
    """World pose from a support's world pose and a relative pose (inverse of :func:`relative_pose`).

    ``support_yaw`` is the support's rotation about z (a settled support that tilted a little
    is the physics' business: pass its yaw and, if needed, handle roll/pitch there).
    """
    cos, sin = math.cos(support_yaw), math.sin(support_yaw)
    ox, oy, oz = offset
    sc = np.asarray(support_centre, dtype=float)
    centre = np.array([sc[0] + cos * ox - sin * oy, sc[1] + sin * ox + cos * oy, sc[2] + oz])
    return centre, wrap_angle(support_yaw + yaw)


def footprints_overlap(c1, yaw1: float, c2, yaw2: float, size, shrink: float = 0.0005) -> bool:
    """Do two tiles' footprints overlap? Rectangles by separating axes.

    Parameters
    ----------
    c1, c2 : array_like, shape (2,), m
        Centres (x, y).
    yaw1, yaw2 : float, rad
        Headings of the tiles' long axes.
    size : array_like, shape (3,) or (2,), m
        Tile length and width (thickness ignored).
    shrink : float, m
        Each footprint is shrunk by this much on every side first, so that tiles that only
        touch (end to end, side by side) do not count as overlapping.
    """
    half = np.array([size[0] / 2 - shrink, size[1] / 2 - shrink])

    def axes(yaw):
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([[c, s], [-s, c]])

    a1, a2 = axes(yaw1), axes(yaw2)
    d = np.asarray(c2, dtype=float)[:2] - np.asarray(c1, dtype=float)[:2]
    for axis in np.vstack([a1, a2]):
        r1 = np.sum(np.abs(a1 @ axis) * half)
        r2 = np.sum(np.abs(a2 @ axis) * half)
        if abs(d @ axis) >= r1 + r2:
            return False
    return True


def canonical(x: int, y: int, level: int, d: int, double: bool) -> tuple[int, int, int, int]:
    """The one grid pose naming a placement: a double's two halves are alike, so it always
    points to +x or +y (starting from the other square when needed)."""
    if double and d & 1:
        dx, dy = DIRS[d]
        return x + dx, y + dy, level, d - 1
    return x, y, level, d


# A candidate placement found by the Grid: a plain tuple, wrapped into an action by the rules.
#   (x, y, level, d, parent, motion, slide_dir)
# where (x, y, level, d) is the canonical pose of the tile with pips (a, b) on halves 0, 1,
# parent the construction number it attaches to, motion "drop" or "slide", slide_dir the
# direction index of the slide motion (None for a drop).


class Grid:
    """The occupied squares of a construction, its placement tree, and placement search.

    Attributes
    ----------
    cells : dict[(x, y, level), (number, pips)]
        Which tile (construction number) covers a square and the pips shown there.
    top : dict[(x, y), level]
        Highest occupied level of each column.
    poses : list[GridPose]
    pips : list[(int, int)]
        Pips on half 0 and half 1 of each placed tile.
    parent : list[int | None]
    degree : list[int]
        Neighbours of each tile in the placement tree (parent + children).
    """

    __slots__ = ("cells", "top", "poses", "pips", "parent", "degree")

    def __init__(self):
        self.cells: dict[tuple[int, int, int], tuple[int, int]] = {}
        self.top: dict[tuple[int, int], int] = {}
        self.poses: list[GridPose] = []
        self.pips: list[tuple[int, int]] = []
        self.parent: list[int | None] = []
        self.degree: list[int] = []

    def __len__(self) -> int:
        return len(self.poses)

    def copy(self) -> "Grid":
        g = Grid.__new__(Grid)
        g.cells = dict(self.cells)
        g.top = dict(self.top)
        g.poses = list(self.poses)
        g.pips = list(self.pips)
        g.parent = list(self.parent)
        g.degree = list(self.degree)
        return g

    # -- building -------------------------------------------------------------------------

    def add(self, pose: GridPose, pips: tuple[int, int], parent: int | None = None) -> int:
        """Place a tile (no legality check, but squares must be free). Returns its number."""
        n = len(self.poses)
        s0, s1 = pose.squares()
        if s0 in self.cells or s1 in self.cells:
            raise ValueError(f"square already occupied by tile {self.cells.get(s0, self.cells.get(s1))}")
        self.cells[s0] = (n, pips[0])
        self.cells[s1] = (n, pips[1])
        for x, y, lev in (s0, s1):
            if self.top.get((x, y), -1) < lev:
                self.top[(x, y)] = lev
        self.poses.append(pose)
        self.pips.append(pips)
        self.parent.append(parent)
        self.degree.append(0 if parent is None else 1)
        if parent is not None:
            self.degree[parent] += 1
        return n

    # -- queries ------------------------------------------------------------------------

    def is_extremity(self, n: int) -> bool:
        """At most one neighbour in the placement tree (the first tile starts as one)."""
        return self.degree[n] <= 1

    def extremities(self) -> list[int]:
        return [n for n, k in enumerate(self.degree) if k <= 1]

    def supports(self, pose: GridPose) -> list[int]:
        """Numbers of the tiles right below a pose's squares (level − 1), without repeats."""
        out: list[int] = []
        if pose.level == 0:
            return out
        for x, y, lev in pose.squares():
            c = self.cells.get((x, y, lev - 1))
            if c is not None and c[0] not in out:
                out.append(c[0])
        return out

    def covered(self, square) -> bool:
        """Whether a square has a square right above it."""
        x, y, lev = square
        return (x, y, lev + 1) in self.cells

    def bounds(self) -> tuple[int, int, int, int]:
        """``(xmin, xmax, ymin, ymax)`` over occupied columns (0s when empty)."""
        if not self.top:
            return 0, 0, 0, 0
        xs = [c[0] for c in self.top]
        ys = [c[1] for c in self.top]
        return min(xs), max(xs), min(ys), max(ys)

    # -- placement search ------------------------------------------------------------------

    def _tower_fits(self, sq, level: int, p: int) -> bool:
        """A new square at ``level`` over column ``sq`` showing pips ``p`` is allowed."""
        t = self.top.get(sq, -1)
        if t >= level:
            return False  # occupied at that level, or something higher over it
        if t == level - 1:
            return self.cells[(sq[0], sq[1], t)][1] == p
        return True  # nothing right below: overhang

    def tower_placements(self, a: int, b: int, support: int, parallel_only: bool = True) -> list[tuple]:
        """Placements of the tile with pips ``(a, b)`` on top of tile number ``support``.

        The new tile's half showing the pips of one of the support's squares is put exactly
        over that square; its other half goes along the support's axis (either way) or, if
        ``parallel_only`` is False, across. Every square with a square right below must match,
        and new squares must be free with nothing higher over them.

        Returns a list of ``(x, y, level, d, parent, "drop", None)`` (canonical poses).
        """
        out = []
        spose = self.poses[support]
        spips = self.pips[support]
        level = spose.level + 1
        sq = spose.squares()
        dirs = (spose.d, OPPOSITE[spose.d])
        if not parallel_only:
            dirs = dirs + PERPENDICULAR[spose.d]
        double = a == b
        for k in (0, 1):
            q = spips[k]
            sx, sy, _ = sq[k]
            for h, p, other in ((0, a, b), (1, b, a)):
                if p != q or (double and h == 1):
                    continue
                if not self._tower_fits((sx, sy), level, p):
                    continue
                for dd in dirs:
                    dx, dy = DIRS[dd]
                    ox, oy = sx + dx, sy + dy
                    if not self._tower_fits((ox, oy), level, other):
                        continue
                    if h == 0:
                        pose = canonical(sx, sy, level, dd, double)
                    else:
                        pose = (ox, oy, level, OPPOSITE[dd])
                    out.append(pose + (support, "drop", None))
        return out

    def end_placements(self, a: int, b: int, base: int, halves=(0, 1)) -> list[tuple]:
        """End-to-end placements of ``(a, b)`` at table level against table tile ``base``.

        For each half ``k`` in ``halves`` of the base tile, the new tile's half with the same
        pips goes right next to it, in line with the base's axis, outward; both new squares
        must be empty columns (the tile is put down from above).
        """
        out = []
        bpose = self.poses[base]
        if bpose.level != 0:
            return out
        bpips = self.pips[base]
        sq = bpose.squares()
        double = a == b
        for k in halves:
            q = bpips[k]
            if q != a and q != b:
                continue
            e = bpose.d if k == 1 else OPPOSITE[bpose.d]  # outward from half k
            dx, dy = DIRS[e]
            mx, my = sq[k][0] + dx, sq[k][1] + dy
            fx, fy = mx + dx, my + dy
            if (mx, my) in self.top or (fx, fy) in self.top:
                continue
            for h, p in ((0, a), (1, b)):
                if p != q or (double and h == 1):
                    continue
                if h == 0:
                    pose = canonical(mx, my, 0, e, double)
                else:
                    pose = (fx, fy, 0, OPPOSITE[e])
                out.append(pose + (base, "drop", None))
        return out

    def slide_placements(self, a: int, b: int, above: int) -> list[tuple]:
        """Slide-beneath placements of ``(a, b)`` under tile ``above`` (which lies at level 1).

        The new tile's matching half goes under a square of ``above`` with the same pips
        (the level-0 square there must be empty); the other half goes to any empty level-0
        square beside it (if a level-1 square lies over that one, its pips must match).
        Returns ``(x, y, 0, d, above, "slide", slide_dir)``.
        """
        out = []
        apose = self.poses[above]
        if apose.level != 1:
            return out
        apips = self.pips[above]
        double = a == b
        cells = self.cells
        for k, (sx, sy, _) in enumerate(apose.squares()):
            q = apips[k]
            if (sx, sy, 0) in cells:
                continue
            for h, p, other in ((0, a, b), (1, b, a)):
                if p != q or (double and h == 1):
                    continue
                for dd in range(4):
                    dx, dy = DIRS[dd]
                    ox, oy = sx + dx, sy + dy
                    if (ox, oy, 0) in cells:
                        continue
                    over = cells.get((ox, oy, 1))
                    if over is not None and over[1] != other:
                        continue
                    if h == 0:
                        pose = canonical(sx, sy, 0, dd, double)
                    else:
                        pose = (ox, oy, 0, OPPOSITE[dd])
                    slide = self.slide_direction((sx, sy), (ox, oy))
                    out.append(pose + (above, "slide", slide))
        return out

    def slide_direction(self, matching, other) -> int:
        """Direction (index) in which a tile slides along the table to reach its place.

        Tried in this order: along the tile's axis with the matching half first (arriving
        from its far end), sideways (either way), along the axis with the other half first.
        The first whose path, from outside the construction's bounds, meets no level-0
        square is chosen; when none is clear, the first (from the far end).
        """
        mx, my = matching
        ox, oy = other
        ax = DIR_INDEX[(mx - ox, my - oy)]
        order = (ax,) + PERPENDICULAR[ax] + (OPPOSITE[ax],)
        xmin, xmax, ymin, ymax = self.bounds()
        cells = self.cells
        for m in order:
            dx, dy = DIRS[m]
            clear = True
            k = 1
            while clear:
                a = (mx - k * dx, my - k * dy)
                b = (ox - k * dx, oy - k * dy)
                if not (xmin <= a[0] <= xmax and ymin <= a[1] <= ymax) and not (
                    xmin <= b[0] <= xmax and ymin <= b[1] <= ymax
                ):
                    break
                if (a[0], a[1], 0) in cells or (b[0], b[1], 0) in cells:
                    clear = False
                k += 1
            if clear:
                return m
        return ax
