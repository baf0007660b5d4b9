"""Monte Carlo scaling: wall time of the same stability-odds trials with 2 workers over 1.

``odds_2_workers_over_1`` is the figure that counts (goal <= 0.56: the second core must buy
at least 1.8x, pool start-up included). Both runs do the same trials of
``scenarios/odds_statics.toml`` (no magnets, three what-ifs, about 25 ms a trial), each with
a fresh process pool, and must give the identical JSON document (asserted). The two are
timed alternately, ``repeats`` times, and the best of each kept, so that load from other
processes on a shared machine hits both. For context, ``odds_machine_2_workers_over_1`` is
the same ratio for a pure-CPU task measured alongside (what the machine gives a second
worker at that moment), and ``odds_load_average_1min`` the load when the bench ended.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _timed(scenario, trials: int, jobs: int) -> tuple[float, dict]:
    from magdomino.studies.odds import estimate_odds

    t0 = time.perf_counter()
    result = estimate_odds(scenario, trials, jobs=jobs)
    return time.perf_counter() - t0, result.to_dict()


def _machine(jobs: int, tasks: int) -> float:
    """Wall time of ``tasks`` pure-CPU tasks (C-level ``sum`` over a range) on ``jobs`` workers:
    what the machine itself gives for a second worker right now, with no simulation in it."""
    from concurrent.futures import ProcessPoolExecutor

    from magdomino.studies.runner import _mp_context

    with ProcessPoolExecutor(jobs, mp_context=_mp_context()) as pool:
        list(pool.map(sum, [range(10)] * jobs))  # workers up before the clock starts
        t0 = time.perf_counter()
        list(pool.map(sum, [range(30_000_000)] * tasks))
        return time.perf_counter() - t0


def _whole_process(trials: int, jobs: int) -> float:
    """Wall time of ``magdomino odds`` as a user runs it: a fresh process, its pool started
    inside, on a 2-tile what-if (scenarios/cantilever.toml, what-if 0)."""
    import subprocess

    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "magdomino", "odds", str(ROOT / "scenarios" / "cantilever.toml"), "--what-if", "0",
         "--trials", str(trials), "--jobs", str(jobs), "--seed", "1"],
        check=True, capture_output=True,
    )
    return time.perf_counter() - t0


def small_runs(quick: bool) -> dict[str, float]:
    out = {}
    for trials in (40,) if quick else (40, 160):
        best = {1: float("inf"), 2: float("inf")}
        for _ in range(1 if quick else 2):
            for jobs in (1, 2):
                best[jobs] = min(best[jobs], _whole_process(trials, jobs))
        suffix = "" if trials == 40 else f"_{trials}"
        out[f"odds_small{suffix}_2_workers_over_1"] = best[2] / best[1]
        out[f"odds_small{suffix}_1_worker_s"] = best[1]
    return out


def run(quick: bool) -> dict[str, float]:
    from magdomino.studies.scenario import load_scenario

    scenario = load_scenario(ROOT / "scenarios" / "odds_statics.toml")
    trials = 40 if quick else 150  # per what-if: 3 x 150 trials, about 12 s on one core
    repeats = 1 if quick else 2
    _timed(scenario, 1, 1)  # start the forkserver (once per process) outside the timings
    best = {1: float("inf"), 2: float("inf")}
    machine = {1: float("inf"), 2: float("inf")}
    docs = {}
    for _ in range(repeats):
        for jobs in (1, 2):
            seconds, docs[jobs] = _timed(scenario, trials, jobs)
            best[jobs] = min(best[jobs], seconds)
            machine[jobs] = min(machine[jobs], _machine(jobs, 4))
    assert docs[1] == docs[2], "2 workers gave another result than 1"
    return {
        **small_runs(quick),
        "odds_2_workers_over_1": best[2] / best[1],
        "odds_machine_2_workers_over_1": machine[2] / machine[1],  # the best this machine allows now
        "odds_load_average_1min": os.getloadavg()[0],  # other processes on the machine, for context
        "odds_1_worker_s": best[1],
        "odds_2_workers_s": best[2],
    }
