"""One placement pipeline: how a tile is put into a world and judged.

Scenarios, odds trials and the rules' PyBullet adjudicator all place tiles the same way:

1. the poses of every tile before the placement (the reference the verdict measures from);
2. which tiles touch the table before the motion begins (a slide is stepped through before
   the settle starts, and "came down to the table" must compare with the time before it);
3. the motion: a :class:`Drop` (released with zero speed a little above the rest pose) or
   a :class:`Slide` (pushed along the table into place from a start beside it), started
   clear of every tile (:func:`clear_motion`: a drop into a slot under an overhang is
   released no higher than the room above its rest pose; a motion that cannot start clear
   is refused with :class:`NoClearMotion`);
4. the settle (:func:`magdomino.physics.settle.settle`): the tiles there before must not
   fall, the placed tile must not fall off.

Structures are spawned together with :func:`build` (no motion: every tile at its pose, at
rest) and settled once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from magdomino.maths.geometry import box_rises, box_separations
from magdomino.maths.poses import quaternion_matrices, yaw_quaternion
from magdomino.physics.settle import settle
from magdomino.physics.verdict import Verdict
from magdomino.physics.world import SlideShortcuts, World


@dataclass(frozen=True)
class Drop:
    """Release the tile with zero speed ``height`` (m) above its rest pose."""

    height: float


@dataclass(frozen=True)
class Slide:
    """Push the tile along the table into its rest pose from ``start_offset`` (x, y, m) away."""

    start_offset: tuple[float, float]


CLEAR_TOLERANCE_M = 5e-5
"""How far (m) a placed tile may start inside another and still count as clear: the contacts
of settled tiles sink by about 0.01 mm each (a tile resting on a settled one, or under a
settled overhang, starts that far inside it), never a visible overlap: the engine's push
apart of at most 0.05 mm is far below what a verdict measures (millimetres)."""


class NoClearMotion(ValueError):
    """A placement whose motion cannot start clear of the tiles (no room at its rest pose, or a
    slide that would start inside a tile). ``tile`` is the index (in the poses given) of the
    tile it would start deepest inside, ``depth`` how deep (m), ``motion`` the motion asked for.
    """

    def __init__(self, tile: int, depth: float, motion: Drop | Slide):
        self.tile = tile
        self.depth = depth
        self.motion = motion
        super().__init__(self.phrase(f"tile {tile}"))

    def phrase(self, tile_name: str) -> str:
        """What went wrong, in words, the tile named ``tile_name`` (the caller's name for it)."""
        if isinstance(self.motion, Slide):
            what = "the slide would start"
        else:
            what = f"released anywhere from its rest pose up to {self.motion.height * 1000:g} mm above it, it would start"
        return f"{what} {self.depth * 1000:.2f} mm inside {tile_name}"


def tile_boxes(poses):
    """Indices, positions (k, 3) and rotation matrices (k, 3, 3) of the tiles of ``poses`` (an
    iterable of (position (3,), quaternion (4,)), or a pair of arrays (positions (n, 3),
    quaternions (n, 4)) as :meth:`World.poses` gives, NaN for removed tiles: left out)."""
    if isinstance(poses, tuple) and len(poses) == 2 and np.ndim(poses[0]) == 2:
        positions, quats = (np.asarray(a, dtype=float) for a in poses)
    else:
        pairs = list(poses)
        positions = np.array([p for p, _ in pairs], dtype=float).reshape(-1, 3)
        quats = np.array([q for _, q in pairs], dtype=float).reshape(-1, 4)
    there = np.flatnonzero(np.isfinite(positions).all(axis=1) & np.isfinite(quats).all(axis=1))
    if len(there) == 0:
        return there, np.zeros((0, 3)), np.zeros((0, 3, 3))
    return there, positions[there], quaternion_matrices(quats[there])


def release_height(rest, yaw: float, height: float, poses, size) -> float:
    """How high (m) above its rest pose a drop can release the tile: ``height``, capped by the
    room above the rest pose (a slot under an overhang), never below the rest pose.

    The tile (flat, heading ``yaw``, centre ``rest``) rising straight up from its rest pose
    meets each tile of ``poses`` over an interval of heights (:func:`~magdomino.maths.geometry.box_rise`,
    exact for boxes in any orientation); the release is the highest height up to ``height``
    outside every interval. Tiles it only grazes (within :data:`CLEAR_TOLERANCE_M` sideways or
    below: a neighbour end to end, its support) do not count. It can still start inside a tile
    (no room at the rest pose): :func:`clear_motion` checks the start.

    Parameters
    ----------
    rest : array_like, shape (3,), m
    yaw : float, rad
    height : float, m
        The release height asked for (>= 0).
    poses : iterable of (position (3,), quaternion (4,)), or (positions (n, 3), quaternions (n, 4))
    size : array_like, shape (3,), m

    Returns
    -------
    float, m, in ``[0, height]``
    """
    rest = np.asarray(rest, dtype=float)
    half = np.asarray(size, dtype=float) / 2
    # Narrowed sideways by the tolerance: a neighbour it touches end to end is not "above".
    narrow = half - [CLEAR_TOLERANCE_M, CLEAR_TOLERANCE_M, 0.0]
    R = quaternion_matrices(yaw_quaternion(yaw))
    _, positions, rotations = tile_boxes(poses)
    t_in, t_out = box_rises(rest, R, positions, rotations, narrow, half)
    hit = ~np.isnan(t_in) & (np.nan_to_num(t_out, nan=-np.inf) > CLEAR_TOLERANCE_M)  # not only a support below
    blocks = list(zip(t_in[hit].tolist(), t_out[hit].tolist()))
    h = float(height)
    moved = True
    while moved and h > 0:
        moved = False
        for t_in, t_out in blocks:
            if t_in < h < t_out:
                h, moved = t_in, True
    return max(h, 0.0)


def clear_motion(rest, yaw: float, motion: Drop | Slide, poses, size) -> Drop | Slide:
    """The motion as a hand makes it: starting clear of every tile of ``poses``.

    A :class:`Drop` is released at :func:`release_height` (a slot under an overhang, one tile
    thick, is entered at its rest pose: the hand slides it in and lets go, it cannot come
    down through the tile above); a :class:`Slide` starts where it says, on the table.

    Raises
    ------
    NoClearMotion
        When the start is more than :data:`CLEAR_TOLERANCE_M` inside a tile (separating axes,
        :func:`~magdomino.maths.geometry.box_separation`): the rest pose has no room for the
        tile, or the slide starts inside a tile.
    """
    rest = np.asarray(rest, dtype=float)
    out = motion
    if isinstance(motion, Drop):
        out = replace(motion, height=release_height(rest, yaw, motion.height, poses, size))
    start = start_position(rest, out)
    half = np.asarray(size, dtype=float) / 2
    R = quaternion_matrices(yaw_quaternion(yaw))
    indices, positions, rotations = tile_boxes(poses)
    inside = -box_separations(start, R, positions, rotations, half)
    if len(inside) and inside.max() > CLEAR_TOLERANCE_M:
        k = int(np.argmax(inside))
        raise NoClearMotion(int(indices[k]), float(inside[k]), motion)
    return out


def start_position(rest, motion: Drop | Slide) -> np.ndarray:
    """Where the motion puts the tile first (m, shape (3,)): above the rest pose for a drop,
    beside it on the table for a slide."""
    rest = np.asarray(rest, dtype=float)
    if isinstance(motion, Drop):
        return rest + [0.0, 0.0, motion.height]
    return rest + [motion.start_offset[0], motion.start_offset[1], 0.0]


def build(world: World, tiles: Iterable[tuple]) -> list[int]:
    """Spawn tiles at rest at their poses; returns their indices in ``world``.

    Parameters
    ----------
    tiles : iterable of (pips, position (3,) m, quaternion (4,), fixed)
    """
    return [world.add_tile(pips, position, orientation=q, fixed=fixed) for pips, position, q, fixed in tiles]


def place(
    world: World,
    pips,
    rest,
    yaw: float,
    motion: Drop | Slide,
    *,
    watched: list[int] | None = None,
    trace: list | None = None,
    rest_check=None,
    slide_shortcuts: SlideShortcuts | None = None,
) -> tuple[int, Verdict]:
    """Place one tile by ``motion`` into its rest pose and judge the result.

    Parameters
    ----------
    world : World
    pips : (int, int)
        As shown: half 0 (−x), half 1 (+x).
    rest : array_like, shape (3,), m
        Where the tile should come to rest (its centre).
    yaw : float, rad
    motion : Drop or Slide
        As asked; it is made as :func:`clear_motion` makes it (a drop's release capped by
        the room above the rest pose).
    watched : list of int, optional
        The tiles that must not fall; default every tile in the world before the placement.
    trace : list, optional
        Receives the settle's ``(t, max shift mm, max tilt deg)`` series.
    rest_check : callable, optional
        Passed to :func:`~magdomino.physics.settle.settle`: poses certain to stand end the settle.
    slide_shortcuts : SlideShortcuts, optional
        Cheaper steps through a slide (:meth:`~magdomino.physics.world.World.slide`).

    Returns
    -------
    (int, Verdict)
        The placed tile's index in ``world`` and the verdict.

    Raises
    ------
    NoClearMotion
        When the motion cannot start clear of the tiles in ``world`` (nothing is added).
    """
    rest = np.asarray(rest, dtype=float)
    before = world.poses()
    motion = clear_motion(rest, yaw, motion, before, world.size)
    world.detect_contacts()
    contacts = world.touches_table()
    if watched is None:
        watched = list(range(len(before[0])))
    if isinstance(motion, Slide):
        index = world.slide(pips, rest, yaw, start_offset=np.asarray(motion.start_offset, dtype=float), shortcuts=slide_shortcuts)
    else:
        index = world.drop(pips, rest, yaw, drop_height=motion.height)
    added = len(world.tiles) - len(before[0])
    reference = (
        np.vstack([before[0], np.full((added, 3), np.nan)]),
        np.vstack([before[1], np.full((added, 4), np.nan)]),
    )
    verdict = settle(
        world,
        watched,
        reference,
        placed=index,
        placed_rest=(rest, yaw_quaternion(yaw)),
        trace=trace,
        table_contacts=np.append(contacts, np.zeros(added, dtype=bool)),
        rest_check=rest_check,
    )
    return index, verdict
