"""The hybrid engine (``--engine hybrid``, the default of the odds): the dynamics' verdicts,
most of them found by the statics.

A noisy placement trial (:mod:`magdomino.studies.trials`) is a drop of 0-2 mm onto a
structure that settled in PyBullet. Most such trials are nowhere near a fall: the tile
lands, the structure carries it with room to spare, nothing moves. The statics (a linear
program, a few milliseconds a trial in batches) can say so; PyBullet is needed where the
answer is close or where something moves that the statics cannot see. The hybrid asks the
statics first, in batches (:class:`~magdomino.studies.statics_engine.TrialBatch`), on
the same random numbers as the dynamics (:func:`~magdomino.studies.trials.trial_draws`) and
at the same aimed pose on the same settled structure
(:func:`~magdomino.studies.aiming.aim_placement`). A trial is **stood**, judged by the
statics, when all of these hold (each a test of :func:`screen_trials`):

1. **At rest** (:data:`~magdomino.physics.statics_screen.AT_REST`): the structure carries
   the placed tile at its rest pose, with this trial's friction, mass and magnets.
2. **Not near a tip** (:data:`TILTS`): it still stands with the table tilted by
   :data:`TILT_DEG` towards +x, +y, -x and -y (a sideways load of tan 10° on every tile):
   a landing rocks what stands with less.
3. **The impact screen**: a drop lands with an impulse, the structure below carries for a
   moment more than the tile's weight, and the magnets speed the tile up as it comes down
   and hold it only while their gap stays closed. Either :data:`ROBUST`: the structure
   carries the tile at four times its weight with the tile's own magnets off (it balances
   on its weight alone) and every other magnet at half strength (a magnet-held part keeps
   a reserve); or, the lower the release, the smaller the margin (:data:`IMPACT_TESTS`):
   below :data:`LOW_DROP_MM` (1.5 mm), :data:`LOW_DROP`: twice its weight, its magnets at a
   quarter, every magnet at half; below :data:`SHORT_DROP_MM` (1 mm), :data:`SHORT_DROP`:
   the same at 1.5 times its weight.

A trial **fell**, judged by the statics, when the structure cannot carry the tile at rest
even with three times the friction, with its own magnets or without them
(:data:`~magdomino.physics.statics_screen.TIPS`, :data:`~magdomino.physics.statics_screen.TIPS_BARE`):
it tips over on its weight. Where one magnet pair can hold a tile's
weight (:data:`HANG_WEIGHTS`), a tile may snap into line and hang: there the fall must also
hold with a margin (the table tilted 3° each way, :data:`HANG_TIPS`) and at every pose the
tile's magnets may snap it to (:func:`snap_poses`). A rest pose refused only for want of
friction, or only while the tile's own magnets pull, is left to PyBullet: the magnets' pull
slides or turns such a tile into line with the magnet below it, a pose that usually stands.

Every other trial goes to PyBullet (:func:`~magdomino.studies.trials.run_trial`, the
dynamics' own trial: the same world, the same record): a rest fall that more friction would
stop, a pose carried without the margins above, a trial the statics refuses (tiles inside
each other after the noise, a tile tilted), every slide (a push the statics cannot see) and
every structure trial (no what-if). Each record says ``judged_by`` (``"statics"`` or
``"dynamics"``); a trial the statics judged has no shift, tilt or culprit measured (null),
its ``reason`` is ``"stood"`` or ``"falls at rest"``, and it did not shift.

A what-if's PyBullet trial takes three shortcuts to the same verdict, where the dynamics'
own trial spends most of its simulated time:

- **rest certified by the statics** (:func:`rest_check_for`): the settle proves rest with
  two hold windows (0.2 s of simulated time, 400 steps); once the tiles have been still for
  10 ms and the statics says their poses stand with a :data:`REST_TILT_DEG` tilt margin,
  nothing is left to fall, and the settle ends (at about 0.055 s on a landing);
- **a slide's bare approach skipped** (:data:`SLIDE_APPROACH_GAP_M`): a slide pushes the
  tile 60 mm along the table at 50 mm/s (2,400 steps), about half of it on the bare table,
  far from every tile; the trial starts where the tile first comes within 1 mm of a tile,
  already moving with the hand;
- **a slide's push solved with fewer iterations** (:data:`SLIDE_PUSH_ITERATIONS`): while the
  hand pushes, PyBullet's solver runs 10 iterations instead of the preset's 30; once the
  hand lets go, the preset's again.

Its verdict is the dynamics' trial's (``tests/studies/test_hybrid_shortcuts.py`` checks it
trial by trial); ``sim_time_s`` is shorter, and a slide that pushes the construction pushes
it by another amount, as the details of a sliding contact decide: whether a pushed
construction ends beyond ``max_shift`` (shifted, counted apart, never a collapse) can differ
from the dynamics' trial where it ends near that threshold.

Every threshold here was chosen on the dynamics' own trials and checked on trials held out.
The measurements that chose each one, with their commits, the full comparisons against the
dynamics (``validation/hybrid_validation.py``: how many trials the statics decides, how many
verdicts differ, every what-if's p against the dynamics' interval) and the speed are on the
validation page, ``docs/validation/hybrid.md``; ``tests/studies/test_hybrid_engine.py``
re-checks the thresholds trial by trial on a sample, against the dynamics.
"""

from __future__ import annotations

import functools

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.poses import quaternion_matrices, yaw_quaternion
from magdomino.physics.statics import magnet_wrenches
from magdomino.physics.statics_screen import AT_REST, GRIP, TIPS, TIPS_BARE, StressTest
from magdomino.physics.world import SlideShortcuts
from magdomino.studies.aiming import aim_many
from magdomino.studies.engines import DynamicsEngine
from magdomino.studies.statics_engine import TrialBatch, batch_magnets, fixed_tiles
from magdomino.studies.trial_record import error_outcome, hand_draws, statics_outcome, trial_record
from magdomino.studies.trials import run_trial, trial_draws

ROBUST = StressTest(load=4.0, own=0.0, every=0.5)
"""Stood whatever the drop: the structure carries the placed tile at four times its weight
with the tile's own magnets off (it balances on its weight alone) and every other magnet at
half strength (a magnet-held part keeps a reserve when an impact opens its gap)."""
LOW_DROP_MM = 1.5
"""Releases below this height may pass :data:`LOW_DROP` instead."""
LOW_DROP = StressTest(load=2.0, own=0.5, every=0.5)
"""Stood for a low release: twice the tile's weight, its magnets at a quarter (half of
half), every magnet at half."""
SHORT_DROP_MM = 1.0
"""Releases below this height may pass :data:`SHORT_DROP` instead."""
SHORT_DROP = StressTest(load=1.5, own=0.5, every=0.5)
""":data:`LOW_DROP` at 1.5 times the tile's weight."""
IMPACT_TESTS = ((None, ROBUST), (LOW_DROP_MM, LOW_DROP), (SHORT_DROP_MM, SHORT_DROP))
"""The impact screen's rungs, (release below mm or None: any height, test): a trial at rest
passes the screen when it passes one rung its release allows."""
TILT_DEG = 10.0
"""Stood only if the structure with the tile at rest survives the table tilted this far in each
of four directions (a tilt margin of at least this much): a drop onto a structure with less
rocks it."""
TILT_DIRECTIONS_DEG = (0.0, 90.0, 180.0, 270.0)
"""The four directions a tilt test tilts the table towards (+x, +y, -x, -y)."""
TILTS = tuple(StressTest(tilt_deg=TILT_DEG, direction_deg=d) for d in TILT_DIRECTIONS_DEG)


HANG_TILT_DEG = 3.0
"""The tilt margin of :data:`HANG_TIPS`."""
HANG_TIPS = tuple(StressTest(tilt_deg=HANG_TILT_DEG, direction_deg=d, grip=GRIP) for d in TILT_DIRECTIONS_DEG)
"""Where one magnet pair holds a tile's weight (:func:`magnets_hold_a_tile`), a rest fall that
:data:`~magdomino.physics.statics_screen.TIPS` and
:data:`~magdomino.physics.statics_screen.TIPS_BARE` call is decided only if the structure cannot
carry the tile either with the table tilted by :data:`HANG_TILT_DEG` towards +x, +y, -x or -y
(with :data:`~magdomino.physics.statics_screen.GRIP` times the friction): a fall with a margin.
A tile whose magnets can snap it into line and hang it is near a balance, and one of the tilts
carries it. The margin was chosen on the drops of toy game positions and checked on held-out
games (``docs/validation/hybrid.md``, "What chose the tests": a hang fall with a margin;
``python -m validation.hybrid_shortcut_choices hang`` re-runs it)."""


SNAP_REACH_MM = 10.0
"""A magnet of the placed tile may snap into line with a magnet of a tile one level below
(centres one tile thickness apart, within :data:`LEVEL_TOLERANCE_MM`) whose axis passes this
close to it (:func:`snap_poses`)."""
LEVEL_TOLERANCE_MM = 2.0
"""How far from one tile thickness below the placed tile's magnet a magnet it may snap to can
be (a level's tiles rest within micrometres of their height; a tilted one by a millimetre)."""


def snap_poses(preset, P: np.ndarray, Q: np.ndarray, reach_mm: float = SNAP_REACH_MM) -> list[np.ndarray]:
    """Where the placed tile (the last of poses ``P`` (n, 3) m, ``Q`` (n, 4)) may snap to:
    its position moved so that one of its magnets is in line with a magnet of a tile one
    level below that is within ``reach_mm`` sideways, one tile thickness above it. Returns
    the poses' positions (n, 3) with the placed tile moved, one array per such pair of
    magnets (none, when no magnet is in reach). A tile the statics refuses at its aimed pose
    may stand snapped into line by its magnets (:data:`HANG_TIPS`)."""
    local = np.array([m.position for m in preset.tile.magnets], float).reshape(-1, 3)
    if not len(local) or len(P) < 2:
        return []
    world = P[:, None, :] + np.einsum("nij,kj->nki", quaternion_matrices(Q), local)  # (n, k, 3)
    d = world[-1][:, None, None, :] - world[None, :-1, :, :]  # (k placed, n-1 tiles, k, 3)
    thick = float(preset.tile.size[2])
    near = (np.abs(d[..., 2] - thick) <= LEVEL_TOLERANCE_MM / 1000) & (np.hypot(d[..., 0], d[..., 1]) <= reach_mm / 1000)
    out = []
    for shift in d[near]:
        moved = P.copy()
        moved[-1] -= shift - [0.0, 0.0, thick]  # its magnet one thickness above the other, on its axis
        out.append(moved)
    return out


def screen_trials(job, what_if: int, trials: list[int],
                  tests=(ROBUST, LOW_DROP, SHORT_DROP, *TILTS, TIPS, TIPS_BARE, *HANG_TIPS)) -> list[dict]:
    """What the statics says of each trial, for each test (a
    :class:`~magdomino.physics.statics_screen.StressTest`).

    Returns one dict per trial: ``trial``, ``refused`` (why the statics cannot judge it,
    else None), ``drop_mm`` (the release height after
    :func:`~magdomino.physics.motion.clear_motion`), ``draws`` (the record fields of the
    trial's hand: dx_mm, dy_mm, dyaw_deg, drop_mm, as the dynamics writes them) and, for
    :data:`~magdomino.physics.statics_screen.AT_REST` and each test, whether the structure stands (keyed by the test).
    """
    sc = job.scenario
    size = np.asarray(sc.preset.tile.size, float)
    hangs = bool(sc.magnets) and magnets_hold_a_tile(sc.preset)
    drawn = [trial_draws(job, what_if, i) for i in trials]
    misses = np.array([[float(v) for v in miss] for _, miss in drawn]).reshape(-1, 4)
    out, presets, poses = [], [], []
    for i, (preset, _), miss, aimed in zip(trials, drawn, misses, aim_many(sc, job.settled, sc.what_if[what_if], size, misses)):
        row: dict = {"trial": i, "refused": None, "hangs": hangs, "draws": hand_draws(miss)}
        out.append(row)
        if isinstance(aimed, InputError):
            row["refused"] = aimed.expected
            continue
        rest, yaw, motion = aimed
        row["drop_mm"] = float(getattr(motion, "height", 0.0)) * 1000
        row["_k"] = len(poses)
        presets.append(preset)
        poses.append((np.vstack([job.settled[0], rest]), np.vstack([job.settled[1], yaw_quaternion(yaw)])))
    judged = [r for r in out if r["refused"] is None]
    if judged:
        P, Q = np.array([p for p, _ in poses]), np.array([q for _, q in poses])
        _judge_tests(sc, judged, presets, P, Q, tests)
        if any(t in tests for t in HANG_TIPS):
            falls = [r for r in judged if _hang_fall(r)]
            k = [r["_k"] for r in falls]
            for r, carried in zip(falls, snaps_carry(sc, [presets[i] for i in k], P[k], Q[k])):
                r["snaps"] = carried
    for r in out:
        r.pop("_k", None)
    return out


def _judge_tests(sc, judged: list, presets: list, P: np.ndarray, Q: np.ndarray, tests) -> None:
    """Each test on the trials it can still decide (row[test] = stands), every test on one
    :class:`~magdomino.studies.statics_engine.TrialBatch` (the contacts found once).

    The magnet wrenches are computed once: with the placed tile's forces scaled by ``own``
    and every force by ``every``, the wrench is ``every (W_s + own (W - W_s))``, with ``W``
    the wrench with the tile and ``W_s`` the structure's own (magnet forces are pairwise).
    """
    B, n = P.shape[:2]
    batch = TrialBatch(presets, P, Q, fixed_tiles(sc, True), sc.preset)
    for r, why in zip(judged, batch.refused):
        r["refused"] = why
    if sc.magnets and sc.preset.tile.magnets:
        own = [np.zeros((B, n, 3)), np.zeros((B, n, 3))]
        if n > 2:
            f, t = batch_magnets(presets, P[:, :-1], Q[:, :-1], sc.preset)
            own[0][:, :-1], own[1][:, :-1] = f, t
        if any(m.free for m in sc.preset.tile.magnets):  # they turn with the whole field
            full = batch_magnets(presets, P, Q, sc.preset)
        else:  # the structure's own pairs, plus the placed tile's
            full = tuple(o + c for o, c in zip(own, batch_magnets(presets, P, Q, sc.preset, last_only=True)))
    else:
        full = own = None

    def run(test: StressTest, which):
        if not which:
            return
        idx = np.array([r["_k"] for r in which], int)
        wrench = None
        if full is not None:
            wrench = tuple(test.every * (o + test.own * (w - o)) for w, o in zip(full, own))
        stands = batch.stands(idx, magnets=sc.magnets, last_load=np.full(B, float(test.load)), wrenches=wrench,
                              lateral=sideways_load((test.tilt_deg, test.direction_deg)), grip=test.grip)
        for r, k in zip(which, idx):
            r[test] = bool(stands[k])

    run(AT_REST, judged)
    rungs = {test: below for below, test in IMPACT_TESTS}
    for test in tests:  # only where it can still change the decision
        if test in rungs:  # a rung: where no rung passed yet, and the release is low enough for this one
            below = rungs[test]
            run(test, [r for r in judged if r["refused"] is None and r[AT_REST] and not _impact_passed(r)
                       and (below is None or r["drop_mm"] < below)])
        elif test == TIPS:  # only the rest falls
            run(test, [r for r in judged if r["refused"] is None and not r[AT_REST]])
        elif test == TIPS_BARE:  # only where TIPS says it tips
            run(test, [r for r in judged if r["refused"] is None and not r[AT_REST] and r.get(TIPS) is False])
        elif test in HANG_TIPS:  # only where a tile may hang, it tips, and no tilt carried it yet
            run(test, [r for r in judged if r["hangs"] and tips_over(r) and not any(r.get(t) for t in HANG_TIPS)])
        elif test in TILTS:  # only where the rest would screen it as stood
            run(test, [r for r in judged if r["refused"] is None and r[AT_REST] and all(r.get(t, True) for t in TILTS)
                       and _impact_passed(r)])
        else:
            run(test, [r for r in judged if r["refused"] is None and r[AT_REST]])


def tips_over(row: dict) -> bool:
    """Whether a trial of :func:`screen_trials` is refused at rest by :data:`~magdomino.physics.statics_screen.TIPS` and
    :data:`~magdomino.physics.statics_screen.TIPS_BARE`: it tips on its weight, with its own magnets or without them."""
    return row["refused"] is None and not row[AT_REST] and row.get(TIPS) is False and row.get(TIPS_BARE) is False


def _hang_fall(row: dict) -> bool:
    """Whether a trial where a tile may hang tips over (:func:`tips_over`) with every tilt of
    :data:`HANG_TIPS` too (a fall, unless it snaps)."""
    return row["hangs"] and tips_over(row) and all(row.get(t) is False for t in HANG_TIPS)


def snaps_carry(sc, presets: list, P: np.ndarray, Q: np.ndarray) -> list[bool | None]:
    """For each trial ``b`` (poses ``P[b]`` (n, 3) m and ``Q[b]`` (n, 4), its preset
    ``presets[b]``, the placed tile last): True where the structure carries the placed tile
    (with :data:`~magdomino.physics.statics_screen.GRIP` times the friction) at one of the poses it may snap to
    (:func:`snap_poses`); else None where the statics refuses one of those poses (a tile
    beside it in the way: PyBullet decides); else False (no pose to snap to, or none
    carried)."""
    out: list[bool | None] = [False] * len(P)
    candidates = [(b, moved) for b in range(len(P)) for moved in snap_poses(sc.preset, P[b], Q[b])]
    if not candidates:
        return out
    batch = TrialBatch([presets[b] for b, _ in candidates], np.array([m for _, m in candidates]),
                       np.array([Q[b] for b, _ in candidates]), fixed_tiles(sc, True), sc.preset)
    for (b, _), refused, stands in zip(candidates, batch.refused, batch.stands(magnets=sc.magnets, grip=GRIP)):
        if refused is None and stands:
            out[b] = True
        elif refused is not None and out[b] is False:
            out[b] = None
    return out


def _impact_passed(row: dict) -> bool:
    """Whether a trial passed a rung of :data:`IMPACT_TESTS` (so far)."""
    return any((below is None or row["drop_mm"] < below) and row.get(test) for below, test in IMPACT_TESTS)


HANG_WEIGHTS = 1.0
"""A tile hangs on its magnets when one magnet pair (a tile half on half on another, the halves'
magnets in line, the gap one tile thick) pulls it down with at least this many times its weight
(:func:`magnets_hold_a_tile`). Then a tile refused at its aimed pose may snap into line and hang
there, and a rest fall is decided only with the margin of :data:`HANG_TIPS` and where no snap
carries the tile (:func:`snap_poses`). The toy's pair (1.2 T) pulls with 2.6 weights,
``standard``'s (0.6 T) with 0.65: on the toy, rest falls decided without this rule were wrong
often enough to move a placement's p outside the dynamics' interval, on ``standard`` never
(``docs/validation/hybrid.md``, "On the default toy")."""


def magnets_hold_a_tile(preset) -> bool:
    """Whether one magnet pair of ``preset`` holds a tile's weight (see :data:`HANG_WEIGHTS`):
    tile B half on half on tile A, B's half 0 over A's half 1, the pull on B from the magnet
    model, against ``tile.mass × solver.gravity``."""
    if not preset.tile.magnets:
        return False
    L, _, T = preset.tile.size  # computed at every call (0.7 ms, once per batch of trials): no cache to keep
    P = np.array([[0.0, 0.0, T / 2], [L / 2, 0.0, 1.5 * T]])
    Q = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]])
    force, _ = magnet_wrenches(preset, P, Q)
    return bool(-force[1, 2] >= HANG_WEIGHTS * preset.tile.mass * preset.solver.gravity)


SLIDE_APPROACH_GAP_M = 0.001
"""A slide's PyBullet trial starts where the slid tile first comes this close to a tile
(:class:`~magdomino.physics.world.SlideShortcuts`, ``approach_gap``): the approach before
it, on the bare table, is not stepped. At 1 mm a tile beside the path is 25 mm or more
from the slid tile's magnets (a few hundredths of a tile's weight), and the hand (0.5 N,
ten times the table's friction) keeps the tile on its path. Chosen against the dynamics'
own trials on the slides of toy game positions (``docs/validation/hybrid.md``, "Speed": a
slide's bare approach skipped; ``python -m validation.hybrid_shortcut_choices slides --gaps 3,1``)."""

SLIDE_PUSH_ITERATIONS = 10
"""PyBullet's solver iterations while a slide's hand pushes
(:class:`~magdomino.physics.world.SlideShortcuts`, ``push_iterations``). The hand moves at
50 mm/s and holds the slid tile with at most 0.5 N: a slow, forced motion, which the solver
follows with fewer iterations than a free landing needs: no verdict changes, and fewer
still would move whole positions' shift counts (``docs/validation/hybrid.md``, "Speed": a
slide's push solved with 10 solver iterations; ``python -m validation.hybrid_shortcut_choices slides``)."""
SLIDE_SHORTCUTS = SlideShortcuts(approach_gap=SLIDE_APPROACH_GAP_M, push_iterations=SLIDE_PUSH_ITERATIONS)
"""Both slide shortcuts, as a slide's PyBullet trial takes them."""

REST_TILT_DEG = 3.0
"""The tilt margin of :data:`REST_TESTS`. No trial whose settled poses the statics carried
at rest, with any margin, fell afterwards in PyBullet; 3° certifies every trial a smaller
margin did and still keeps one (``docs/validation/hybrid.md``, "Speed": the rest certified
by the statics; ``python -m validation.hybrid_shortcut_choices rest``)."""
REST_TESTS = tuple(StressTest(tilt_deg=REST_TILT_DEG, direction_deg=d) for d in TILT_DIRECTIONS_DEG)
"""What the statics must say of a settle's poses to end it early (:func:`rest_check_for`):
the tiles stand with the table tilted by :data:`REST_TILT_DEG` in each of four directions.
Then they stand as they are: the loads a structure carries (contact forces in their
friction cones balancing the weights and the magnets) make a convex set, and the weights
alone are the mean of the loads tilted towards +x and -x, so
:data:`~magdomino.physics.statics_screen.AT_REST` is not asked again (one statics check of five)."""


def sideways_load(tilt) -> np.ndarray | None:
    """The sideways load (2,), in weights, on every tile of a table tilted by ``tilt`` =
    (tilt deg, direction deg) of a test; None for a test without a tilt."""
    if not tilt or not tilt[0]:
        return None
    angle, direction = np.radians(tilt[0]), np.radians(tilt[1])
    return np.tan(angle) * np.array([np.cos(direction), np.sin(direction)])


def rest_check_for(scenario, preset):
    """The ``rest_check`` of a dynamic trial's settle (:func:`~magdomino.physics.settle.settle`):
    whether the world's poses (the structure's tiles and the placed one, in that order)
    stand by the statics with ``preset`` (the trial's friction, mass and magnets) in every
    test of :data:`REST_TESTS`.

    The settle asks only once the tiles have moved less than its rest rates for a while
    (:data:`~magdomino.physics.settle.QUIET_CHECKS`): their kinetic energy is then about
    0.02 µJ a tile (10 g at 2 mm/s), below what lifts its centre of mass by a micrometre
    (0.1 µJ), and poses carried with a tilt margin do not start to tip (measured:
    :data:`REST_TILT_DEG`). Without this check the settle proves rest with two hold windows
    of simulated time (0.2 s at the defaults).
    """
    fixed = fixed_tiles(scenario, placed=True)

    def check(positions, quaternions) -> bool:
        batch = rest_batch(scenario, preset, fixed, positions, quaternions)
        if batch is None:
            return False
        return all(batch.stands(magnets=scenario.magnets, lateral=sideways_load((test.tilt_deg, test.direction_deg)))[0]
                   for test in REST_TESTS)

    return check


def rest_batch(scenario, preset, fixed, positions, quaternions) -> TrialBatch | None:
    """The statics' batch of one settle's poses (every tile of the world, ``fixed`` from
    :func:`~magdomino.studies.statics_engine.fixed_tiles`), or None where the statics cannot
    judge them (another number of tiles, a tile gone, poses it refuses)."""
    P, Q = np.asarray(positions, float)[None], np.asarray(quaternions, float)[None]
    if P.shape[1] != len(fixed) or not np.isfinite(P).all():
        return None
    batch = TrialBatch([preset], P, Q, fixed, scenario.preset)
    return batch if batch.refused[0] is None else None


STATICS_REASONS = {"stood": "stood", "falls": "falls at rest"}
"""A decided trial's ``reason`` in its record."""


def decide(row: dict) -> str | None:
    """The screen's verdict on one trial of :func:`screen_trials`: ``"stood"``, ``"falls"``, or None
    (PyBullet decides)."""
    if row["refused"] is not None:
        return None
    if not row[AT_REST]:
        if not row.get("hangs"):
            return "falls" if tips_over(row) else None
        return "falls" if _hang_fall(row) and row.get("snaps") is False else None
    if row[AT_REST] and all(row.get(t) for t in TILTS) and _impact_passed(row):
        return "stood"
    return None


def is_slide(placement) -> bool:
    """Whether the placement is pushed along the table (a slide, or slid beneath)."""
    return placement.slide_mm is not None or placement.relation == "beneath"


class HybridEngine(DynamicsEngine):
    """The statics where it is sure, PyBullet where it is not (see the module docstring)."""

    name = "hybrid"
    header = "engine hybrid (statics screen, PyBullet where it cannot decide)"
    trials_per_chunk = 50
    serial_below = 160
    # Fewer trials run in one process: a second worker's start costs more than it saves, as
    # the screen decides most trials in milliseconds (docs/validation/hybrid.md, "Speed":
    # one worker or two).

    def run_trials(self, job, what_if, trials):
        if what_if is None:
            return [{**run_trial(job, what_if, i), "judged_by": "dynamics"} for i in trials]
        rest_check = functools.partial(rest_check_for, job.scenario)
        if is_slide(job.scenario.what_if[what_if]):
            return [{**run_trial(job, what_if, i, rest_check, SLIDE_SHORTCUTS), "judged_by": "dynamics"} for i in trials]
        records = []
        for row in screen_trials(job, what_if, trials):
            verdict = decide(row)
            if verdict is None:
                records.append({**run_trial(job, what_if, row["trial"], rest_check), "judged_by": "dynamics"})
                continue
            if job.hook is not None:
                try:
                    job.hook(what_if, row["trial"])
                except Exception as exc:  # as the dynamics' trial: an error, never counted
                    records.append({**trial_record(what_if, row["trial"]), **row["draws"], **error_outcome(f"{type(exc).__name__}: {exc}"),
                                    "judged_by": "statics"})
                    continue
            records.append({**trial_record(what_if, row["trial"]), **row["draws"],
                            **statics_outcome(verdict == "falls", STATICS_REASONS[verdict]), "judged_by": "statics"})
        return records
