"""The measurements that chose two of the hybrid engine's shortcuts, on toy game positions.

``rest``: the rest certificate's tilt margin (``REST_TILT_DEG``). Every drop what-if of
``validation/toy_positions.py``'s positions, ``--trials`` PyBullet trials each, settled to the
end (the certificate never ends one) while the statics is asked at every quiet check
(``QUIET_CHECKS``) for the largest of :data:`MARGINS` the poses stand with. Prints, per
margin, how many trials it would have certified and how many of those fell all the same.

``slides``: the solver iterations of a slide's push (``SLIDE_PUSH_ITERATIONS``) and the gap
that ends its skipped approach (``SLIDE_APPROACH_GAP_M``). Every slid what-if, ``--trials``
trials by the dynamics and by the hybrid's PyBullet trial with each of ``--iterations`` and
``--gaps``; prints the verdicts and "shifted" that differ from the dynamics', and the time
of each.

``hang``: the margin of a rest fall where a tile may hang on its magnets (``HANG_TIPS``,
``snap_poses``). Every drop what-if, ``--trials`` trials; for each that ``TIPS`` and
``TIPS_BARE`` call a fall, the dynamics' own trial, and whether the structure carries the
tile with the table tilted by each of :data:`HANG_MARGINS` in some direction, and snapped.
Prints, per margin, the falls it decides and how many of those stood in the dynamics.

    .venv/bin/python -m validation.hybrid_shortcut_choices rest --trials 20      # about 5 min
    .venv/bin/python -m validation.hybrid_shortcut_choices slides --trials 30    # about 12 min
    .venv/bin/python -m validation.hybrid_shortcut_choices hang --trials 100     # about 5 min
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial

import magdomino.physics.settle as settle_module
from magdomino.errors import InputError
from magdomino.physics.statics_screen import GRIP
from magdomino.physics.world import SlideShortcuts
from magdomino.studies.engines import get_engine
from magdomino.studies.hybrid_engine import (
    REST_TILT_DEG,
    SLIDE_APPROACH_GAP_M,
    TILT_DIRECTIONS_DEG,
    rest_batch,
    rest_check_for,
    screen_trials,
    sideways_load,
    snaps_carry,
    tips_over,
)
from magdomino.studies.scenario import scenario_from_dict
from magdomino.studies.statics_engine import TrialBatch, fixed_tiles, with_placement
from magdomino.studies.trials import Job, resolve_noise, run_trial, trial_draws
from validation import toy_positions

MARGINS = (10.0, 5.0, 3.0, 2.0, 1.0, 0.0)
"""Tilt margins (degrees) tried by ``rest``, largest first."""
HANG_MARGINS = (1.0, 2.0, 3.0, 5.0)
"""Tilt margins (degrees) tried by ``hang``."""


def _job(position: dict) -> Job:
    sc = scenario_from_dict({"name": "position", "preset": "toy", "structure": list(position["structure"]),
                             "what_if": [position["what_if"]]}, source=position["id"])
    dynamics = get_engine("dynamics")
    return Job(sc, dynamics.starting_structure(sc), resolve_noise(sc), 7, (0.0, 0.0), None, dynamics)


def _margin_recorder(asks: list):
    """A ``rest_check_for`` whose check records the largest margin of :data:`MARGINS` the poses
    stand with (None: not at rest, or refused) and never certifies."""

    def for_preset(scenario, preset):
        fixed = fixed_tiles(scenario, placed=True)

        def check(positions, quaternions) -> bool:
            batch = rest_batch(scenario, preset, fixed, positions, quaternions)
            best = None
            if batch is not None and batch.stands(magnets=scenario.magnets)[0]:
                best = next((deg for deg in MARGINS if deg == 0.0 or all(
                    batch.stands(magnets=scenario.magnets, lateral=sideways_load((deg, d)))[0] for d in TILT_DIRECTIONS_DEG)), None)
            asks.append(best)
            return False

        return check

    return for_preset


def _drop_jobs(positions: list):
    """(position, job) of every drop what-if of ``positions`` whose structure stands."""
    for position in positions:
        if toy_positions.is_slide(position):
            continue
        try:
            yield position, _job(position)
        except InputError as exc:  # a structure that does not stand: no odds on any engine
            print(f"{position['id']}: {exc}", file=sys.stderr)


def rest(positions: list, trials: int) -> None:
    settle_module.REST_CHECK_ASKS = 10**6  # asked at every quiet check: the settle runs to its end
    rows = []  # (fell, margins asked)
    for position, job in _drop_jobs(positions):
        for i in range(trials):
            asks: list = []
            record = run_trial(job, 0, i, partial(_margin_recorder(asks), job.scenario))
            rows.append((bool(record.get("collapsed")) or record.get("error") is not None, asks))
        print(f"{position['id']}: {len(rows)} trials so far", file=sys.stderr, flush=True)
    fell = sum(f for f, _ in rows)
    print(f"{len(rows)} PyBullet trials of drops, {fell} fell or failed; the margin used is {REST_TILT_DEG:g}°")
    print("| margin | certified at some quiet check | of those, fell |\n|---|---|---|")
    for deg in MARGINS:
        certified = [f for f, asks in rows if any(m is not None and m >= deg for m in asks)]
        print(f"| {deg:g}° | {len(certified)} | {sum(certified)} |")


def slides(positions: list, trials: int, iterations: list[int], gaps: list[float]) -> None:
    variants = [(gap, k) for gap in gaps for k in iterations]
    runs = {"dynamics": None, **{v: SlideShortcuts(*v) for v in variants}}
    seconds = dict.fromkeys(runs, 0.0)
    differ = {v: [0, 0] for v in variants}  # verdicts, shifted
    total = 0
    for position in positions:
        if not toy_positions.is_slide(position):
            continue
        job = _job(position)
        reference, counts = None, {}
        for name, shortcuts in runs.items():
            t0 = time.perf_counter()
            if shortcuts is None:
                records = [run_trial(job, 0, i) for i in range(trials)]
            else:
                records = [run_trial(job, 0, i, partial(rest_check_for, job.scenario), shortcuts) for i in range(trials)]
            seconds[name] += time.perf_counter() - t0
            verdicts = [(bool(r.get("collapsed")), r.get("error") is not None, bool(r.get("shifted"))) for r in records]
            counts[name] = (sum(v[2] for v in verdicts), round(time.perf_counter() - t0, 1))
            if reference is None:
                reference, total = verdicts, total + trials
                continue
            differ[name][0] += sum(a[:2] != b[:2] for a, b in zip(reference, verdicts))
            differ[name][1] += sum(a[2] != b[2] for a, b in zip(reference, verdicts))
        print(f"{position['id']}: shifted {counts}", file=sys.stderr, flush=True)
    print(f"{total} slide trials; the dynamics took {seconds['dynamics']:.0f} s")
    print("| approach gap (mm) | push iterations | verdicts that differ | shifted that differ | seconds |\n|---|---|---|---|---|")
    for v in variants:
        print(f"| {v[0] * 1000:g} | {v[1]} | {differ[v][0]} | {differ[v][1]} | {seconds[v]:.0f} |")


def hang(positions: list, trials: int) -> None:
    rows = []  # (fell in the dynamics, {margin: a tilt carries it}, a snap carries it: snaps_carry's answer)
    for position, job in _drop_jobs(positions):
        sc = job.scenario
        for r in screen_trials(job, 0, list(range(trials))):
            if not (r["hangs"] and tips_over(r)):
                continue
            preset, _ = trial_draws(job, 0, r["trial"])
            d = r["draws"]
            P, Q = with_placement(sc, job.settled, 0, (d["dx_mm"], d["dy_mm"], d["dyaw_deg"]))
            batch = TrialBatch([preset], P[None], Q[None], fixed_tiles(sc, True), sc.preset)
            carried = {deg: any(batch.stands(magnets=sc.magnets, lateral=sideways_load((deg, way)), grip=GRIP)[0]
                                for way in TILT_DIRECTIONS_DEG) for deg in HANG_MARGINS}
            snaps = snaps_carry(sc, [preset], P[None], Q[None])[0]
            rows.append((bool(run_trial(job, 0, r["trial"])["collapsed"]), carried, snaps))
        print(f"{position['id']}: {len(rows)} trials so far", file=sys.stderr, flush=True)
    stood = sum(not f for f, _, _ in rows)
    print(f"{len(rows)} trials that TIPS and TIPS_BARE call falls, of a tile that may hang; {stood} stood in the dynamics")
    print("| margin | falls decided | of those, stood | with the snaps too | of those, stood |\n|---|---|---|---|---|")
    for deg in HANG_MARGINS:
        decided = [f for f, carried, _ in rows if not carried[deg]]
        snapped = [f for f, carried, snaps in rows if not carried[deg] and snaps is False]
        print(f"| {deg:g}° | {len(decided)} | {decided.count(False)} | {len(snapped)} | {snapped.count(False)} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("rest", "slides", "hang"))
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--iterations", default="30,15,10,5", help="slides: push iterations to try, comma-separated")
    parser.add_argument("--gaps", default=f"{SLIDE_APPROACH_GAP_M * 1000:g}", help="slides: approach gaps to try (mm), comma-separated")
    parser.add_argument("--set", choices=("bench", "held-out", "quick"), default="bench", help="toy_positions' games")
    args = parser.parse_args(argv)
    games = {"bench": toy_positions.GAMES, "held-out": toy_positions.HELD_OUT, "quick": toy_positions.QUICK}[args.set]
    positions = toy_positions.position_set(games)
    if args.what == "rest":
        rest(positions, args.trials)
    elif args.what == "hang":
        hang(positions, args.trials)
    else:
        slides(positions, args.trials, [int(k) for k in args.iterations.split(",")],
               [float(v) / 1000 for v in args.gaps.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
