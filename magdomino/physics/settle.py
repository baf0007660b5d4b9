"""Settle a world and judge whether the construction fell ("écrouler": to fall): the
:class:`~magdomino.physics.verdict.Verdict` of PyBullet's world.

The fall criteria (``docs/physics/assumptions.md``, "Collapse means a fall"), thresholds from the preset's ``[collapse]``:

- ``tilt``: a tile of the construction (``watched``) turned its z axis more than
  ``max_tilt_deg`` from its reference;
- ``drop``: a watched tile came down more than ``max_drop_mm`` below its reference height
  (it dropped off its support);
- ``table contact``: a watched tile that did not touch the table now touches it;
- ``placed tile fell``: the placed tile touches the table when its rest pose is above it,
  or ends up more than ``max_drop_mm`` below its rest pose, or tilted more than
  ``max_tilt_deg``.

A **shift** is not a fall: the construction pushed along the table, or a tile pushed along
its support (or the placed tile stopping away from its rest pose) without tipping or
dropping. A watched tile that moved more than ``max_shift_mm``, or a placed tile more than
that sideways, makes the verdict ``shifted`` (with the distance and the tile); the settle
goes on, since a pushed construction may still fall. With the preset's
``collapse.count_shifts = true`` a shift is a collapse (reason ``"shift"``), the reading
before falls and pushes were told apart.

:func:`settle` steps until the first of: a fall (stop at once), settled (it stood), or
``time_limit_s`` (not settled; judged on the criteria at that moment). The criteria are
checked every ``check_interval_s`` of simulated time. A NaN pose, an absurd speed or a tile
sunk into the table is an error verdict, never a collapse.

Settled means, over the last window of ``settle_hold_s``: every tile's net motion stayed
below ``settle_speed_mm_s`` and ``settle_spin_deg_s`` times the window, and that motion is
not growing (at most :data:`GROWTH` times the previous window's, or below a noise floor).
Net motion over a window, not instantaneous velocity, because a tall stack's contacts
vibrate at tens of mm/s with micrometre amplitudes while the stack stands still. The
growth test catches the slow start of a fall from an unstable balance (a centre of mass
right over an edge tips over as exp(λt), λ ≈ 7/s for these tiles: about ×2 per 0.1 s),
which a plain speed threshold mistakes for rest.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from magdomino.maths.poses import rotation_angles, tilt_angles, tilts_from, z_axes
from magdomino.physics.verdict import FALL_REASONS, Verdict

if TYPE_CHECKING:  # annotations only: the world imports pybullet
    from magdomino.physics.world import World

ABSURD_SPEED_M_S = 20.0
"""Faster than anything a tile can reach falling off a table tower (4.4 m/s from 1 m)."""

ABSURD_DISTANCE_M = 50.0

GROWTH = 1.5
"""A window's net motion may be at most this times the previous window's to count as rest."""

NOISE_SHIFT_M = 1e-6
NOISE_TURN_RAD = 1e-5
"""Net motion per window below which growth is not judged (solver noise, creep)."""

SUNK_FRACTION = 0.25
"""A tile whose centre is lower than this fraction of its thickness has gone into the table:
no contact allows that (a tile lying flat has its centre at half its thickness)."""

QUIET_CHECKS = 2
"""Checks (of ``check_interval_s``) over which the motion must stay below the rest rates
before a ``rest_check`` of :func:`settle` is asked (10 ms at the defaults). Measured with
the hybrid engine's check on 1,400 toy drop trials asked at every such quiet check: none
certified fell later (``magdomino.studies.hybrid_engine.REST_TILT_DEG``). With at most
:data:`REST_CHECK_ASKS` asks, 2 checks certified 722 of the 724 trials that 4 checks
(20 ms) certified, 5 ms of simulated time sooner on average."""

REST_CHECK_ASKS = 3
"""How many times one settle asks its ``rest_check`` at most: poses that the statics did not
certify while quiet seldom come to be certified later, and each question costs a few
milliseconds."""

REPORT_SHIFT_FRACTION = 0.1
"""Tiles that moved more than this fraction of the thresholds are listed in ``moved_tiles``."""


def settle(  # noqa: PLR0915 - long: see the reason below
    world: World,
    watched: list[int],
    reference: tuple[np.ndarray, np.ndarray] | None = None,
    *,
    placed: int | None = None,
    placed_rest: tuple[np.ndarray, np.ndarray] | None = None,
    time_limit_s: float | None = None,
    check_interval_s: float = 0.005,
    min_time_s: float = 0.05,
    trace: list | None = None,
    table_contacts=None,
    rest_check=None,
) -> Verdict:
    # long: the step loop and its criteria share one state (the shifts, tilts, hold windows, rest asks); its parameters documented
    """Step ``world`` until the answer is known and return the verdict.

    Parameters
    ----------
    world : World
    watched : list of int
        The construction's tiles before the placement: these must not move.
    reference : (positions (n, 3), quaternions (n, 4)) or None
        Poses of all tiles to measure shifts and tilts from; default: the poses now.
    placed : int or None
        Index of the tile just placed (judged by "placed tile fell").
    placed_rest : (position (3,), quaternion (4,)) or None
        Where the placed tile should come to rest; default: its pose now.
    time_limit_s : float or None
        Simulated time limit; default the preset's ``collapse.time_limit_s``.
    check_interval_s : float
        Simulated time between checks (s). 5 ms: a falling tile is seen within a few
        millimetres of the criteria, a window of rest holds 20 checks; 2 ms gave the same
        verdicts on the validation set at 12 % more wall time.
    min_time_s : float
        Never call it settled before this much simulated time.
    table_contacts : ndarray of bool, shape (n,), or None
        Which tiles touched the table before the placement's motion began (a slide has
        already been stepped when the settle starts); default: the contacts now.
    trace : list or None
        If given, ``(t s, max shift mm, max tilt deg)`` of the watched tiles is appended
        at the start and at every check (``t`` from the start of the settle).
    rest_check : callable or None
        ``rest_check(positions (n, 3) m, quaternions (n, 4)) -> bool``, every tile of the
        world: whether these poses are certain to stand at rest (the hybrid engine asks the
        statics for a margin). When given, a settle that has seen no fall and whose tiles
        moved less than the rest rates (``settle_speed_mm_s``, ``settle_spin_deg_s``) over
        the last :data:`QUIET_CHECKS` checks, after ``min_time_s``, asks it (at most once
        every :data:`QUIET_CHECKS` checks, :data:`REST_CHECK_ASKS` times in all); yes ends
        the settle as settled, without the two hold windows. The growth test of those
        windows looks for the slow start of a fall from an unstable balance, which poses
        that stand with a margin cannot be in.
    """
    wall_start = time.perf_counter()
    limits = world.preset.collapse
    max_shift = limits.max_shift
    max_tilt = limits.max_tilt
    max_drop = limits.max_drop
    settle_speed = limits.settle_speed
    settle_spin = limits.settle_spin
    hold = limits.settle_hold
    limit = limits.time_limit if time_limit_s is None else time_limit_s
    in_file_units = limits.to_file()
    thresholds = {k: in_file_units[k] for k in ("max_shift_mm", "max_tilt_deg", "max_drop_mm")}
    sunk_below = SUNK_FRACTION * world.size[2]

    world.detect_contacts()
    ref_p, ref_q = world.poses() if reference is None else reference
    watched = [i for i in watched if world.tiles[i].body >= 0]
    touched_before = world.touches_table() if table_contacts is None else np.asarray(table_contacts, dtype=bool)
    lifted = [i for i in watched if not touched_before[i]]
    if placed is not None:
        if placed_rest is None:
            now_p, now_q = world.poses()
            placed_rest = (now_p[placed], now_q[placed])
        rest_p, rest_q = placed_rest
        rest_p = np.asarray(rest_p, dtype=float)
        rest_q = np.asarray(rest_q, dtype=float)
        placed_on_table = rest_p[2] < 0.75 * world.size[2]
    moving = [i for i, t in enumerate(world.tiles) if t.body >= 0 and not t.fixed]

    judged = watched + ([placed] if placed is not None else [])
    z_ref = z_axes(np.concatenate([ref_q[watched], rest_q[None]]) if placed is not None else ref_q[watched])
    steps_per_check = max(1, int(round(check_interval_s / world.time_step)))
    check_dt = steps_per_check * world.time_step
    window = max(1, int(round(hold / check_dt)))  # checks per settle window
    history: list[tuple[np.ndarray, np.ndarray]] = []  # poses of the moving tiles at each check
    start_time = world.time
    reason, culprit, error, settled = "time limit", None, None, False
    shifted = None  # the first tile seen beyond max_shift without falling
    checks_since_asked, asks = QUIET_CHECKS, 0  # checks since rest_check was last asked, and how often it was
    positions, quats = world.poses()
    history.append((positions[moving], quats[moving]))
    if trace is not None:
        _record(trace, 0.0, watched, positions, quats, ref_p, ref_q)
    while True:
        world.step(steps_per_check)
        elapsed = world.time - start_time
        positions, quats = world.poses()
        live_p = positions[moving]
        live_q = quats[moving]
        error = _blow_up(live_p, live_q, history[-1][0], moving, check_dt, sunk_below)
        if error is not None:
            reason = "error"
            break
        history.append((live_p, live_q))
        if len(history) > 2 * window + 1:
            del history[0]
        if trace is not None:
            _record(trace, elapsed, watched, positions, quats, ref_p, ref_q)
        # Tilts of the watched tiles (and the placed one) against their reference z axes.
        tilts_now = tilts_from(quats[judged], z_ref)
        hit = _fall(world, watched, lifted, positions, tilts_now, ref_p, max_drop, max_tilt)
        if hit is None and placed is not None:
            hit = _placed_fell(world, placed, positions[placed], tilts_now[-1], rest_p, placed_on_table, max_drop, max_tilt)
        if hit is None and shifted is None:
            shifted = _shift(watched, positions, ref_p, max_shift, placed, rest_p if placed is not None else None)
            if shifted is not None and limits.count_shifts:
                hit = "shift", shifted
        if hit is not None:
            reason, culprit = hit
            break
        rested = (len(history) == 2 * window + 1 and elapsed >= min_time_s
                  and _at_rest(history, window, settle_speed * hold, settle_spin * hold))
        if (not rested and rest_check is not None and asks < REST_CHECK_ASKS and elapsed >= min_time_s and len(history) > QUIET_CHECKS
                and checks_since_asked >= QUIET_CHECKS):
            span = QUIET_CHECKS * check_dt
            if _quiet(history[-1 - QUIET_CHECKS], history[-1], settle_speed * span, settle_spin * span):
                checks_since_asked, asks = 0, asks + 1
                rested = rest_check(positions, quats)
        if rested:
            reason, settled = ("shifted" if shifted is not None else "stood"), True
            break
        checks_since_asked += 1
        if elapsed >= limit - 1e-12:
            break

    positions, quats = world.poses()
    shifts = np.zeros(len(world.tiles))
    tilts = np.zeros(len(world.tiles))
    if watched and error is None:
        shifts[watched] = np.linalg.norm(positions[watched] - ref_p[watched], axis=1)
        tilts[watched] = tilt_angles(quats[watched], ref_q[watched])
    if placed is not None and error is None:
        shifts[placed] = float(np.linalg.norm(positions[placed] - rest_p))
        tilts[placed] = float(tilt_angles(quats[placed][None], rest_q[None])[0])
    moved = [] if error is not None else _moved_tiles(world, judged, shifts, tilts, max_shift, max_tilt)
    collapsed = error is None and (reason in FALL_REASONS or reason == "shift")
    if shifted is not None and error is None:
        # Report the tile that ended farthest away (the first one seen may have stopped short).
        far = int(np.argmax(shifts))
        shifted = far if shifts[far] > max_shift else shifted
    return Verdict(
        collapsed=collapsed,
        reason=reason,
        settled=settled,
        max_shift_mm=float(shifts[watched].max(initial=0.0)) * 1000 if error is None else float("nan"),
        max_tilt_deg=math.degrees(float(tilts[watched].max(initial=0.0))) if error is None else float("nan"),
        sim_time_s=world.time - start_time,
        wall_time_s=time.perf_counter() - wall_start,
        moved_tiles=moved,
        culprit=culprit,
        error=error,
        thresholds=thresholds,
        shifted=shifted is not None and error is None,
        shifted_tile=shifted if error is None else None,
    )


def _blow_up(live_p, live_q, previous_p, moving, check_dt, sunk_below) -> str | None:
    """What makes these poses (of the moving tiles) a numerical blow-up, or None."""
    if not np.all(np.isfinite(live_p)) or not np.all(np.isfinite(live_q)):
        return "numerical blow-up: a tile's pose is not finite"
    speeds = np.linalg.norm(live_p - previous_p, axis=1) / check_dt
    if np.any(speeds > ABSURD_SPEED_M_S):
        return f"numerical blow-up: tile {moving[int(np.argmax(speeds))]} reached {speeds.max():.3g} m/s"
    if np.any(np.abs(live_p) > ABSURD_DISTANCE_M):
        far = moving[int(np.argmax(np.abs(live_p).max(axis=1)))]
        return f"numerical blow-up: tile {far} is more than {ABSURD_DISTANCE_M:g} m away"
    if np.any(live_p[:, 2] < sunk_below):
        return f"numerical blow-up: tile {moving[int(np.argmin(live_p[:, 2]))]} went into the table"
    return None


def _moved_tiles(world, judged, shifts, tilts, max_shift, max_tilt) -> list[dict]:
    """The judged tiles that moved more than a tenth of a threshold, for the report."""
    return [
        {
            "tile": int(i),
            "pips": list(world.tiles[i].pips),
            "shift_mm": round(float(shifts[i]) * 1000, 3),
            "tilt_deg": round(math.degrees(float(tilts[i])), 3),
        }
        for i in judged
        if shifts[i] > REPORT_SHIFT_FRACTION * max_shift or tilts[i] > REPORT_SHIFT_FRACTION * max_tilt
    ]


def _record(trace, t, watched, positions, quats, ref_p, ref_q) -> None:
    if not watched:
        trace.append((float(t), 0.0, 0.0))
        return
    shift = float(np.linalg.norm(positions[watched] - ref_p[watched], axis=1).max())
    tilt = float(tilt_angles(quats[watched], ref_q[watched]).max())
    trace.append((float(t), shift * 1000, math.degrees(tilt)))


def _at_rest(history, window, max_shift, max_turn) -> bool:
    """Net motion over the last window small, and not growing from the window before."""
    if not len(history[0][0]):
        return True
    (p0, q0), (p1, q1), (p2, q2) = history[0], history[window], history[2 * window]
    shift_now = float(np.linalg.norm(p2 - p1, axis=1).max())
    turn_now = float(rotation_angles(q2, q1).max())
    if shift_now > max_shift or turn_now > max_turn:
        return False
    shift_before = float(np.linalg.norm(p1 - p0, axis=1).max())
    turn_before = float(rotation_angles(q1, q0).max())
    return shift_now <= max(NOISE_SHIFT_M, GROWTH * shift_before) and turn_now <= max(NOISE_TURN_RAD, GROWTH * turn_before)


def _quiet(before, now, max_shift, max_turn) -> bool:
    """Net motion of every moving tile between two checks ((positions, quaternions) each) below these (m, rad)."""
    if not len(now[0]):
        return True
    shift = float(np.linalg.norm(now[0] - before[0], axis=1).max())
    return shift <= max_shift and float(rotation_angles(now[1], before[1]).max()) <= max_turn


def _fall(world, watched, lifted, positions, tilts, ref_p, max_drop, max_tilt):
    """(reason, tile) of the first fall criterion met by a watched tile, or None. ``tilts``:
    of the watched tiles, in their order (any further entries ignored)."""
    if not watched:
        return None
    tilts = tilts[: len(watched)]
    worst = int(np.argmax(tilts))
    if tilts[worst] > max_tilt:
        return "tilt", watched[worst]
    drops = ref_p[watched, 2] - positions[watched, 2]
    worst = int(np.argmax(drops))
    if drops[worst] > max_drop:
        return "drop", watched[worst]
    for i in lifted:
        if world.tile_touches_table(i):
            return "table contact", i
    return None


def _placed_fell(world, placed, p, tilt, rest_p, on_table, max_drop, max_tilt):
    if not on_table and world.tile_touches_table(placed):
        return "placed tile fell", placed
    if rest_p[2] - p[2] > max_drop:
        return "placed tile fell", placed
    if float(tilt) > max_tilt:
        return "placed tile fell", placed
    return None


def _shift(watched, positions, ref_p, max_shift, placed, rest_p):
    """The first tile moved beyond ``max_shift`` (a watched tile from its reference, the placed
    tile sideways from its rest pose), or None."""
    if watched:
        shifts = np.linalg.norm(positions[watched] - ref_p[watched], axis=1)
        worst = int(np.argmax(shifts))
        if shifts[worst] > max_shift:
            return watched[worst]
    if placed is not None and math.hypot(positions[placed][0] - rest_p[0], positions[placed][1] - rest_p[1]) > max_shift:
        return placed
    return None


WATCH_S = 4.0
"""How long (s, simulated) a world may run on after its verdict so that a collapse can be
watched to its end (:func:`run_until_still`): a tower of the toy's height has hit the table
and stopped rolling well within it."""

WATCH_HOLD_S = 0.2
"""Still means every tile slower than the preset's settle thresholds for this long (s)."""

WATCH_FALL_S = 1.0
"""After a fall, the world runs on at least this long (s): where the tiles went is seen,
even when they came to rest leaning on the others at once."""


def run_until_still(world, max_s: float = WATCH_S, *, min_s: float = 0.0, hold_s: float = WATCH_HOLD_S,
                    check_s: float = 0.02) -> bool:
    """Step ``world`` until every tile rests on the table or on another tile (each slower than
    the preset's ``settle_speed``/``settle_spin`` at every check for ``hold_s``), at least
    ``min_s`` and at most ``max_s`` of simulated time; the world's step hook sees every step
    as usual (what records frames). This films what happens after a verdict; it decides
    nothing. Returns whether the tiles came to rest (False: ``max_s`` ran out, or the poses
    stopped being finite)."""
    limits = world.preset.collapse
    chunk = max(1, int(round(check_s / world.time_step)))
    hold = max(1, int(math.ceil(hold_s / (chunk * world.time_step) - 1e-9)))
    end, least = world.time + max_s - 1e-9, world.time + min_s - 1e-9
    quiet = 0
    while True:
        lin, ang = world.velocities()
        if not (np.all(np.isfinite(lin)) and np.all(np.isfinite(ang))):
            return False
        slow = bool(np.all(np.linalg.norm(lin, axis=1) <= limits.settle_speed)
                    and np.all(np.linalg.norm(ang, axis=1) <= limits.settle_spin))
        quiet = quiet + 1 if slow else 0
        if quiet > hold and world.time >= least:
            return True
        if world.time >= end:
            return False
        world.step(min(chunk, max(1, int(round((end - world.time) / world.time_step)))))
