"""One placement pipeline: how a tile is put into a world and judged.

Scenarios, odds trials and the rules' PyBullet adjudicator all place tiles the same way:

1. the poses of every tile before the placement (the reference the verdict measures from);
2. which tiles touch the table before the motion begins (a slide is stepped through before
   the settle starts, and "came down to the table" must compare with the time before it);
3. the motion: a :class:`Drop` (released with zero speed a little above the rest pose) or
   a :class:`Slide` (pushed along the table into place from a start beside it);
4. the settle (:func:`magdomino.physics.verdict.settle`): the tiles there before must not
   fall, the placed tile must not fall off.

Structures are spawned together with :func:`build` (no motion: every tile at its pose, at
rest) and settled once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from magdomino.maths.poses import yaw_quaternion
from magdomino.physics.verdict import Verdict, settle
from magdomino.physics.world import World


@dataclass(frozen=True)
class Drop:
    """Release the tile with zero speed ``height`` (m) above its rest pose."""

    height: float


@dataclass(frozen=True)
class Slide:
    """Push the tile along the table into its rest pose from ``start_offset`` (x, y, m) away."""

    start_offset: tuple[float, float]


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
    watched : list of int, optional
        The tiles that must not fall; default every tile in the world before the placement.
    trace : list, optional
        Receives the settle's ``(t, max shift mm, max tilt deg)`` series.

    Returns
    -------
    (int, Verdict)
        The placed tile's index in ``world`` and the verdict.
    """
    rest = np.asarray(rest, dtype=float)
    before = world.poses()
    world.detect_contacts()
    contacts = world.touches_table()
    if watched is None:
        watched = list(range(len(before[0])))
    if isinstance(motion, Slide):
        index = world.slide(pips, rest, yaw, start_offset=np.asarray(motion.start_offset, dtype=float))
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
    )
    return index, verdict
