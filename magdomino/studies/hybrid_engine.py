"""The hybrid engine (``--engine hybrid``): the dynamics' verdicts at the statics' speed.

A noisy placement trial (:mod:`magdomino.studies.trials`) is a drop of 0-2 mm onto a
structure that settled in PyBullet. Most such trials are not close to anything: the tile
lands, the structure carries it with room to spare, nothing moves. The statics (a linear
program, about a millisecond a trial in batches) can say so; PyBullet (about 40 ms a trial)
is needed only where the answer is close or where something moves that the statics cannot
see. The hybrid judges every trial of a chunk in two batched LPs, on the same random numbers
as the dynamics (:func:`~magdomino.studies.trials.trial_draws`) and at the same aimed pose on
the same settled structure (:func:`~magdomino.studies.aiming.aim_placement`):

1. **At rest**: does the structure carry the placed tile at its rest pose, with this trial's
   friction, mass and magnets? (:func:`~magdomino.studies.statics_engine.batch_stands`.)
2. **The impact screen**: does it still stand when the placed tile weighs ``K`` times its
   weight? A drop lands with an impulse: the structure below must carry, for a moment, more
   than the tile's weight, and the magnets speed the tile up as it comes down. ``K`` grows
   with the energy the drop brings:
   ``K = IMPACT_BASE + IMPACT_PER_MM · h · (1 + f)``, with ``h`` the release height (mm)
   and ``f`` the magnets' downward pull on the placed tile at rest, in tile weights.

A trial that stands in both is **stood** (judged by the statics); every other trial goes
to PyBullet (:func:`~magdomino.studies.trials.run_trial`, the dynamics' own trial: the same
world, the same verdict): a rest pose that falls, one carried but not with the impact's
margin, a trial the statics refuses (tiles inside each other after the noise), every slide
(a push the statics cannot see), every structure trial (no what-if) and every placement on
a structure the statics cannot model.

Thresholds, chosen from measurements
------------------------------------
(filled in from ``scripts/hybrid_validation.py``; see below.)
"""

from __future__ import annotations

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.poses import yaw_quaternion
from magdomino.studies.engines import DynamicsEngine

AT_REST = (1.0, 1.0, 1.0)
"""A test is (load, own, every): the placed tile weighs ``load`` times its weight, the
magnet forces between it and the others are ``own`` times as strong, and every magnet
force is ``every`` times as strong (on top). This one: as it is."""
ROBUST = (4.0, 0.0, 0.5)
"""Stood whatever the drop: the structure carries the placed tile at four times its weight
with the tile's own magnets off (it balances on its weight alone) and every other magnet at
half strength (a magnet-held part keeps a reserve when an impact opens its gap)."""
LOW_DROP_MM = 1.5
"""Releases below this height may pass :data:`LOW_DROP` instead."""
LOW_DROP = (2.0, 0.5, 0.5)
"""Stood for a low release: twice the tile's weight, its magnets at a quarter (half of
half), every magnet at half."""


def screen(job, what_if: int, trials: list[int], tests=(ROBUST, LOW_DROP)) -> list[dict]:
    """What the statics says of each trial, for each test (see :data:`AT_REST`).

    Returns one dict per trial: ``trial``, ``refused`` (why the statics cannot judge it,
    else None), ``drop_mm`` (the release height after
    :func:`~magdomino.physics.placement.clear_motion`), ``draws`` (the record fields of the
    trial's hand: dx_mm, dy_mm, dyaw_deg, drop_mm, as the dynamics writes them) and, for
    :data:`AT_REST` and each test, whether the structure stands (keyed by the tuple).
    """
    from magdomino.studies.aiming import aim_placement
    from magdomino.studies.statics_engine import _fixed, batch_stands
    from magdomino.studies.trials import trial_draws

    sc = job.scenario
    size = np.asarray(sc.preset.tile.size, float)
    placement = sc.what_if[what_if]
    out, presets, poses = [], [], []
    for i in trials:
        preset, miss = trial_draws(job, what_if, i)
        dx, dy, dyaw, drop = (float(v) for v in miss)
        row: dict = {"trial": i, "refused": None,
                     "draws": {"dx_mm": round(dx, 6), "dy_mm": round(dy, 6), "dyaw_deg": round(dyaw, 6), "drop_mm": round(drop, 6)}}
        out.append(row)
        try:
            rest, yaw, motion = aim_placement(sc, job.settled, placement, size, (dx, dy), dyaw, drop)
        except InputError as exc:
            row["refused"] = exc.expected
            continue
        row["drop_mm"] = float(getattr(motion, "height", 0.0)) * 1000
        row["_k"] = len(poses)
        presets.append(preset)
        poses.append((np.vstack([job.settled[0], rest]), np.vstack([job.settled[1], yaw_quaternion(yaw)])))
    judged = [r for r in out if r["refused"] is None]
    if judged:
        _judge_tests(sc, judged, presets, np.array([p for p, _ in poses]), np.array([q for _, q in poses]), tests)
    for r in out:
        r.pop("_k", None)
    return out


def _judge_tests(sc, judged: list, presets: list, P: np.ndarray, Q: np.ndarray, tests) -> None:
    """Each test on the trials it can still decide, in batched LPs (row[test] = stands).

    The magnet wrenches are computed once: with the placed tile's forces scaled by ``own``
    and every force by ``every``, the wrench is ``every (W_s + own (W - W_s))``, with ``W``
    the wrench with the tile and ``W_s`` the structure's own (magnet forces are pairwise).
    """
    from magdomino.studies.statics_engine import _fixed, batch_magnets, batch_stands

    fixed = _fixed(sc, True)
    B, n = P.shape[:2]
    if sc.magnets and sc.preset.tile.magnets:
        full = batch_magnets(presets, P, Q, sc.preset)
        own = [np.zeros((B, n, 3)), np.zeros((B, n, 3))]
        if n > 2:
            f, t = batch_magnets(presets, P[:, :-1], Q[:, :-1], sc.preset)
            own[0][:, :-1], own[1][:, :-1] = f, t
    else:
        full = own = None

    def run(test, which):
        if not which:
            return
        load, mine, every = test
        idx = np.array([r["_k"] for r in which], int)
        wrench = None
        if full is not None:
            wrench = tuple(every * (o[idx] + mine * (w[idx] - o[idx])) for w, o in zip(full, own))
        stands, refused = batch_stands([presets[k] for k in idx], P[idx], Q[idx], sc.magnets, fixed, sc.preset,
                                       last_load=np.full(len(idx), float(load)), wrenches=wrench)
        for r, ok, why in zip(which, stands, refused):
            if why is not None:
                r["refused"] = why
            r[test] = bool(ok)

    run(AT_REST, judged)
    for test in tests:  # only where it can still change the decision
        if test[2] > 1.0:  # a falls-for-sure test: for the trials that fall at rest
            run(test, [r for r in judged if r["refused"] is None and not r[AT_REST]])
        elif test == LOW_DROP:
            run(test, [r for r in judged if r["refused"] is None and r[AT_REST] and not r.get(ROBUST) and r["drop_mm"] < LOW_DROP_MM])
        else:
            run(test, [r for r in judged if r["refused"] is None and r[AT_REST]])


def decide(row: dict) -> str | None:
    """The screen's verdict on one trial of :func:`screen`: ``"stood"``, ``"falls"`` or None
    (PyBullet decides)."""
    if row["refused"] is not None:
        return None
    if row[AT_REST]:
        if row.get(ROBUST) or (row["drop_mm"] < LOW_DROP_MM and row.get(LOW_DROP)):
            return "stood"
        return None
    return "falls"


def scaled_magnets(preset, factor: float):
    """``preset`` with every magnet's polarisation times sqrt(``factor``): every magnet force
    between two tiles ``factor`` times as strong."""
    from dataclasses import replace

    f = float(np.sqrt(factor))
    tile = preset.tile
    return preset.with_changes(tile=replace(tile, magnets=tuple(replace(m, polarization=m.polarization * f) for m in tile.magnets)))


def is_slide(placement) -> bool:
    return placement.slide_mm is not None or placement.relation == "beneath"


class HybridEngine(DynamicsEngine):
    """The statics where it is sure, PyBullet where it is not (see the module docstring)."""

    name = "hybrid"
    header = "engine hybrid (statics screen, PyBullet where it cannot decide)"
    trials_per_chunk = 50
    serial_below = 400  # most trials take ~2 ms

    def run_trials(self, job, what_if, trials):
        from magdomino.studies.trials import run_trial

        if what_if is None or is_slide(job.scenario.what_if[what_if]):
            return [{**run_trial(job, what_if, i), "judged_by": "dynamics"} for i in trials]
        records = []
        for row in screen(job, what_if, trials):
            verdict = decide(row)
            if verdict is None:
                records.append({**run_trial(job, what_if, row["trial"]), "judged_by": "dynamics"})
                continue
            if job.hook is not None:
                job.hook(what_if, row["trial"])
            records.append({"what_if": what_if, "trial": row["trial"], **row["draws"], "collapsed": verdict == "falls",
                            "shifted": False, "error": None, "reason": verdict, "culprit": None, "max_shift_mm": None,
                            "max_tilt_deg": None, "sim_time_s": None, "judged_by": "statics"})
        return records
