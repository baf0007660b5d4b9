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
(:func:`physical_pose`). In the tile frame (``docs/physics/assumptions.md``) half 0 is at −x and half 1 at +x, so
this yaw turns the tile frame onto the grid. :func:`relative_pose` gives a tile's pose in
its support's frame, and :func:`compose_pose` puts it back on wherever the support really
is after the physics settled it.

The rules' grid of placements (:class:`magdomino.games.tower.grid.Grid`, :func:`~magdomino.games.tower.grid.canonical`)
belongs to the rules layer; this module keeps the poses it is made of.

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
SLIDE_START_MM = 60.0
"""How far along the table a placement ``beneath`` a tile starts its slide when it does not say, mm."""


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
    """Do two tiles' footprints overlap? Rectangles by separating axes (one pair of
    :func:`footprints_overlap_many`).

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
    return bool(footprints_overlap_many(c1, yaw1, np.asarray(c2, dtype=float)[None, :2], np.array([yaw2], float), size, shrink)[0])


def footprints_overlap_many(c1, yaw1, centres, yaws, size, shrink: float = 0.0005) -> np.ndarray:
    """Does tile 1's footprint overlap each of k others? Rectangles by separating axes
    (the four edge normals of each pair), vectorised over the pairs.

    Parameters
    ----------
    c1 : array_like, shape (2,) or (3,), or (k, 2) or (k, 3): one tile 1 per pair, m
    yaw1 : float or array_like, shape (k,), rad
    centres : array_like, shape (k, 2) or (k, 3), m
    yaws : array_like, shape (k,), rad
    size, shrink : as :func:`footprints_overlap`

    Returns
    -------
    ndarray of bool, shape (k,)
    """
    half = np.array([size[0] / 2 - shrink, size[1] / 2 - shrink])
    yaws = np.asarray(yaws, dtype=float).reshape(-1)
    k = len(yaws)
    y1 = np.broadcast_to(np.asarray(yaw1, dtype=float), (k,))

    def axes_of(y):  # rows: a tile's axes, (k, 2, 2)
        c, s = np.cos(y), np.sin(y)
        return np.stack([np.stack([c, s], -1), np.stack([-s, c], -1)], 1)

    a1, a2 = axes_of(y1), axes_of(yaws)
    axes = np.concatenate([a1, a2], axis=1)  # (k, 4, 2)
    r1 = np.abs(axes @ np.swapaxes(a1, 1, 2)) @ half
    r2 = np.abs(axes @ np.swapaxes(a2, 1, 2)) @ half
    c1 = np.asarray(c1, dtype=float)
    d = np.asarray(centres, dtype=float).reshape(k, -1)[:, :2] - (c1[..., :2] if c1.ndim > 1 else c1[:2])
    return np.all(np.abs(np.einsum("kai,ki->ka", axes, d)) < r1 + r2, axis=1)


def cross3(a, b) -> np.ndarray:
    """``np.cross`` of broadcast arrays of 3-vectors (last axis), without its overhead (a tenth
    of its time on small arrays)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _box_axes(R1, R2) -> tuple[np.ndarray, np.ndarray]:
    """The separating axes of box 1 against each of k boxes (rotation matrices ``R1`` (3, 3)
    or one per pair (k, 3, 3), ``R2`` (k, 3, 3), columns: the boxes' axes): their 6 face
    normals and the 9 cross products of their edges, as unit rows (k, 15, 3), and which of
    them are axes (k, 15) (the cross product of parallel edges is none)."""
    k = len(R2)
    A = np.broadcast_to(np.swapaxes(R1, -1, -2), (k, 3, 3))
    B = np.swapaxes(R2, 1, 2)
    faces = np.concatenate([A, B], axis=1)
    cross = cross3(A[:, :, None, :], B[:, None, :, :]).reshape(k, 9, 3)
    norms = np.linalg.norm(cross, axis=2)
    keep = norms > 1e-9
    cross = np.where(keep[..., None], cross / np.where(keep, norms, 1.0)[..., None], 0.0)
    return np.concatenate([faces, cross], axis=1), np.concatenate([np.ones((k, 6), bool), keep], axis=1)


def _projections(p1, R1, P2, R2, half1, half2):
    """Axes (k, 15, 3), which are axes (k, 15), centre distances (k, 15) and summed projected
    radii (k, 15) of box 1 against each of k boxes."""
    axes, valid = _box_axes(R1, R2)
    r = np.abs(axes @ R1) @ half1 + np.einsum("kaj,kj->ka", np.abs(axes @ R2), np.broadcast_to(half2, (len(R2), 3)))
    d = np.einsum("kai,ki->ka", axes, np.asarray(P2, dtype=float) - np.asarray(p1, dtype=float))
    return axes, valid, d, r


def box_separation(p1, R1, p2, R2, half1, half2=None) -> float:
    """Signed separation (m) of two boxes, by separating axes (one pair of :func:`box_separations`).

    Parameters
    ----------
    p1, p2 : array_like, shape (3,), m
        Centres.
    R1, R2 : ndarray, shape (3, 3)
        Rotation matrices (body to world: the columns are the boxes' axes).
    half1, half2 : array_like, shape (3,), m
        Half extents (``half2`` defaults to ``half1``).

    Returns
    -------
    float
        Positive: the boxes are apart, by at least this much (the widest gap along one of the
        15 axes). Zero: they touch. Negative: they overlap, and ``-separation`` is the
        penetration depth (the shortest move along one of those axes that parts them).
    """
    return float(box_separations(p1, R1, np.asarray(p2, dtype=float)[None], np.asarray(R2, dtype=float)[None], half1, half2)[0])


def box_separations(p1, R1, P2, R2, half1, half2=None) -> np.ndarray:
    """:func:`box_separation` of box 1 against each of k boxes (centres ``P2`` (k, 3) m,
    rotation matrices ``R2`` (k, 3, 3), the same half extents ``half2`` (3,)): shape (k,), m.
    Box 1 may differ from pair to pair: ``p1`` (k, 3), ``R1`` (k, 3, 3)."""
    half1 = np.asarray(half1, dtype=float)
    half2 = half1 if half2 is None else np.asarray(half2, dtype=float)
    P2, R2 = np.asarray(P2, dtype=float).reshape(-1, 3), np.asarray(R2, dtype=float).reshape(-1, 3, 3)
    if not len(P2):
        return np.zeros(0)
    _, valid, d, r = _projections(p1, np.asarray(R1, dtype=float), P2, R2, half1, half2)
    return np.where(valid, np.abs(d) - r, -np.inf).max(axis=1)


def box_rise(p1, R1, p2, R2, half1, half2=None) -> tuple[float, float] | None:
    """Box 1 moving straight up (+z) meets box 2 between which heights? By swept separating
    axes (one pair of :func:`box_rises`).

    Returns ``(t_in, t_out)`` (m): the boxes overlap while box 1 has risen by more than
    ``t_in`` and less than ``t_out`` (either may be negative: ``t_in < 0 < t_out`` means they
    overlap where box 1 is now; ``t_out <= 0``: box 2 is below box 1, which only moves away
    from it). None: box 1 never meets box 2 on the whole vertical line.
    """
    t_in, t_out = box_rises(p1, R1, np.asarray(p2, dtype=float)[None], np.asarray(R2, dtype=float)[None], half1, half2)
    return None if np.isnan(t_in[0]) else (float(t_in[0]), float(t_out[0]))


def box_rises(p1, R1, P2, R2, half1, half2=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`box_rise` of box 1 against each of k boxes (``P2`` (k, 3) m, ``R2`` (k, 3, 3)):
    ``t_in`` and ``t_out``, shape (k,) m each, both NaN where box 1 never meets that box.
    Box 1 may differ from pair to pair: ``p1`` (k, 3), ``R1`` (k, 3, 3)."""
    half1 = np.asarray(half1, dtype=float)
    half2 = half1 if half2 is None else np.asarray(half2, dtype=float)
    P2, R2 = np.asarray(P2, dtype=float).reshape(-1, 3), np.asarray(R2, dtype=float).reshape(-1, 3, 3)
    if not len(P2):
        return np.zeros(0), np.zeros(0)
    axes, valid, d, r = _projections(p1, np.asarray(R1, dtype=float), P2, R2, half1, half2)
    # Along an axis box 1's centre moves by t·s; the projections overlap while |d - t·s| < r.
    s = axes[:, :, 2]
    level = np.abs(s) < 1e-12
    never = np.any(valid & level & (np.abs(d) >= r), axis=1)  # apart along an axis the rise does not change
    moving = valid & ~level
    with np.errstate(divide="ignore", invalid="ignore"):
        a, b = (d - r) / s, (d + r) / s
    t_in = np.where(moving, np.minimum(a, b), -np.inf).max(axis=1)
    t_out = np.where(moving, np.maximum(a, b), np.inf).min(axis=1)
    gone = never | ~(t_in < t_out)
    return np.where(gone, np.nan, t_in), np.where(gone, np.nan, t_out)
