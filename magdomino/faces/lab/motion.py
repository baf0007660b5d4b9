"""A placement as the lab shows it: the PyBullet world's poses recorded as it runs (the
hand bringing the tile down, the placement, its verdict), and the same run continued until
every tile lies still, so that a collapse is seen falling to its end (:class:`Recorder`, a
``world_hook`` of :func:`magdomino.studies.simulation.try_placement`); the verdict in words."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from magdomino.maths.poses import tilt_angles
from magdomino.physics.settle import WATCH_FALL_S, run_until_still
from magdomino.wording import tile_text

FRAME_S = 1 / 30
"""Simulated time between two recorded poses of a motion (s): the browser shows them at
this pace for real speed (30 pictures a second: a fall looks continuous, and a tab's
messages stay few)."""

HAND_MM = 40.0
"""A placed tile is shown coming down from this high above its release (mm): the physics
releases it 1 mm above its rest, a drop too small to see."""

HAND_S = 0.4
"""How long the hand takes to bring it down (s)."""

@dataclass
class Motion:
    """A placement as the PyBullet world made it.

    Attributes
    ----------
    pips : list of (int, int)
        The tiles, in the world's order (the placed tile last).
    times_s : ndarray, shape (f,)
        When each frame is to be shown at real speed (s from the first): the hand's frames
        (:data:`HAND_S`), then the world's simulated time, ``FRAME_S`` apart (the verdict's
        frame may come between two).
    positions_mm : ndarray, shape (f, n, 3)
        NaN rows: a tile not yet in the world (the placed tile before its release) or removed.
    quaternions : ndarray, shape (f, n, 4), x, y, z, w
    verdict : Verdict
    verdict_frame : int
        The first frame at or after the verdict. The frames after it are the same run
        continued until every tile lies still (a collapse filmed to its end); they decide nothing.
    end : (positions (n, 3) m, quaternions (n, 4))
        The poses at the verdict: the structure the next placement starts from.
    wall_time_s : float
    hand_frames : int
        Frames before the placed tile's first physics frame that show the hand bringing it
        down (:data:`HAND_MM`); they are not physics.
    still : bool
        Whether every tile lay still at the last frame (False: the watching ran out of time).
    final_velocities : (ndarray, ndarray), shapes (n, 3), m/s and rad/s
        Every tile's speeds at the last frame.
    """

    pips: list
    times_s: np.ndarray
    positions_mm: np.ndarray
    quaternions: np.ndarray
    verdict: object
    verdict_frame: int
    end: tuple
    wall_time_s: float
    hand_frames: int = 0
    still: bool = False
    final_velocities: tuple | None = None

    @property
    def stands(self) -> bool:
        return bool(self.verdict.stands)

    def summary(self) -> str:
        """The verdict in words: stood, shifted N mm, or collapsed (why, which tile)."""
        return verdict_words(self.verdict, self.pips)


def verdict_words(v, pips) -> str:
    """A verdict in one line: "stood", "shifted 6.2 mm (#1 3-3)", "collapsed: tilt (#2 3-1)"."""
    def which(i):
        return f" (#{i} {tile_text(pips[i])})" if i is not None and 0 <= i < len(pips) else ""

    if v.error:
        return f"error: {v.error}"
    if v.collapsed:
        return f"collapsed: {v.reason}{which(v.culprit)}"
    if v.shifted:
        return f"shifted {v.max_shift_mm:.1f} mm{which(v.shifted_tile)}"
    if v.reason == "time limit":
        return "did not settle in the time limit"
    return "stood" if (v.max_shift_mm or 0) < 0.05 else f"stood (moved {v.max_shift_mm:.2f} mm)"


class Recorder:
    """The ``world_hook`` of a placement: the poses every ``FRAME_S`` (with the hand bringing
    the tile down before its release, :data:`HAND_S`), the verdict's poses when the world is
    about to close, then the same run continued until every tile lies still
    (:func:`~magdomino.physics.settle.run_until_still`, at most
    :data:`~magdomino.physics.settle.WATCH_S`): a collapse is filmed to its end."""

    def __init__(self, frames: list | None = None, *, watch: bool = True):
        self.watch = watch
        self.times: list[float] = []
        self.frames: list[tuple[np.ndarray, np.ndarray]] = [] if frames is None else frames
        self.end = None
        self.verdict_frame = 0
        self.hand_frames = 0
        self.hand_s = 0.0
        self.still = False
        self.final_velocities = None

    def __call__(self, world) -> None:
        self.start = world.time
        self.structure_tiles = len(world.tiles)
        world.on_step_every = max(1, int(round(FRAME_S / world.time_step)))
        world.on_step = self.snap
        world.on_close = self.tail
        self.snap(world)

    def snap(self, world) -> None:
        positions, quats = world.poses()
        if not self.hand_frames and len(positions) > self.structure_tiles and self.frames:
            self._hand(positions, quats)
        self._keep(world.time - self.start + self.hand_s, positions, quats)

    def _keep(self, t: float, positions, quats) -> None:
        self.times.append(t)
        self.frames.append((t, positions, quats))

    def _hand(self, positions, quats) -> None:
        """Frames of the hand lowering the new tile from :data:`HAND_MM` above where it is
        released (easing into the release), the rest as they were: a sketch of the hand, shown
        before the physics' first frame of the tile, which then comes :data:`HAND_S` later."""
        count = max(1, int(round(HAND_S / FRAME_S)))
        t0 = self.times[-1]
        for k in range(count):
            s = k / count
            p = positions.copy()
            p[-1, 2] += HAND_MM / 1000.0 * (1.0 - s * (2.0 - s))
            self._keep(t0 + (k + 1) * FRAME_S, p, quats.copy())
        self.hand_frames, self.hand_s = count, count * FRAME_S

    def tail(self, world) -> None:
        self.end = world.poses()
        if not self.times or world.time - self.start + self.hand_s > self.times[-1] + 1e-9:
            self.snap(world)
        else:
            self.frames[-1] = (self.times[-1], *self.end)
        self.verdict_frame = len(self.frames) - 1
        if not self.watch:
            return
        self.still = run_until_still(world, min_s=WATCH_FALL_S if self._fell(world.preset.collapse) else 0.0)
        if world.time - self.start + self.hand_s > self.times[-1] + 1e-9:  # the last poses, at rest
            self.snap(world)
        self.final_velocities = world.velocities()

    def _fell(self, limits) -> bool:
        """Has a tile tipped by more than ``max_tilt`` or come down more than ``max_drop``
        since the first frame (the placed tile: since its release)? A fall, filmed for at
        least :data:`~magdomino.physics.settle.WATCH_FALL_S`."""
        _, p_now, q_now = self.frames[-1]
        _, p0, q0 = self.frames[0]
        if len(p_now) > len(p0):  # the placed tile, at its first physics frame
            _, p1, q1 = self.frames[min(len(self.frames) - 1, 1 + self.hand_frames)]
            p0, q0 = np.vstack([p0, p1[len(p0):]]), np.vstack([q0, q1[len(q0):]])
        return bool(np.any(tilt_angles(q_now, q0) > limits.max_tilt) or np.any(p0[:, 2] - p_now[:, 2] > limits.max_drop))

    def arrays(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        p = np.full((len(self.frames), n, 3), np.nan)
        q = np.full((len(self.frames), n, 4), np.nan)
        for k, (_, fp, fq) in enumerate(self.frames):
            p[k, : len(fp)] = fp * 1000.0
            q[k, : len(fq)] = fq
        return p, q
