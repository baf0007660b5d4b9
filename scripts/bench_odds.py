"""Monte Carlo scaling: wall time of the same stability-odds trials with 2 workers over 1.

``odds_2_workers_over_1`` is the figure that counts (goal <= 0.56: the second core must buy
at least 1.8x, pool start-up included). Both runs do the same trials of
``scenarios/odds_statics.toml`` (no magnets, three what-ifs, about 25 ms a trial), each with
a fresh process pool, and must give the identical JSON document (asserted). The two are
timed alternately, ``repeats`` times, and the best of each kept, so that load from other
processes on a shared machine hits both. For context, ``odds_machine_2_workers_over_1`` is
the same ratio for a pure-CPU task measured alongside (what the machine gives a second
worker at that moment), and ``odds_load_average_1min`` the load when the bench ended.

``odds_trials_2_workers_over_1`` is the trial phase alone (goal <= 0.55): the same trials
run by :func:`~magdomino.studies.odds.estimate_odds` on pools whose workers were started and
ran trials before the clock starts (the structure settled beforehand), timed from the first
chunk of trials handed to the pool to the last result back, so that neither process
start-up, nor imports, nor the settle, nor the tally count; 1 and 2 workers alternately,
the best of each, the same JSON document asserted. On a machine that other processes load,
``odds_trials_cpu_2_workers_over_1`` says what two free cores would give: the busiest
worker's CPU seconds with 2 workers over the one worker's (the load balance and the cost of
shipping chunks, not the machine's load). ``odds_trials_small_...`` are the same for a small
run (40 trials of a 2-tile what-if with magnets, scenarios/cantilever.toml).

``import_trial_code_s`` is what every process that runs a trial pays first: a fresh
interpreter importing the trial code and the magnets (which a World imports on first use),
less a bare interpreter's start, the median of several (bytecode written and used, as an
installed package has it, whatever ``PYTHONDONTWRITEBYTECODE`` says);
``import_trial_code_no_magnets_s`` the same without the magnets (a trial without magnets).
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


def _timed_runner(jobs: int):
    """A local pool (the one :func:`estimate_odds` starts) that notes when the first chunk of
    trials was handed to it and when the last result came back."""
    from magdomino.studies.runner import Runner

    class TimedRunner(Runner):
        first = last = None

        def submit(self, fn, /, *args):
            if self.first is None:
                self.first = time.perf_counter()
            future = super().submit(fn, *args)
            future.add_done_callback(self._done)
            return future

        def _done(self, future) -> None:
            self.last = max(self.last or 0.0, time.perf_counter())

        def worker_cpu(self) -> dict[int, float]:
            """CPU seconds (user + system) each worker process has used so far ({} off Linux)."""
            out = {}
            for pid in list(getattr(self._pool, "_processes", None) or {}):
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            return out

    return TimedRunner(jobs=jobs)


def trial_phase(scenario, trials: int, repeats: int, what_ifs=None) -> tuple[float, float, float]:
    """Seconds of the trial phase alone with 1 and with 2 workers (best of ``repeats``), and
    the busiest worker's CPU seconds with 2 workers over the one worker's (the ratio the
    trial phase would have on two free cores: the load balance and the cost of shipping
    chunks, whatever else runs on the machine)."""
    from magdomino.studies.engines import check_structure_settled
    from magdomino.studies.odds import OddsSettings, estimate_odds
    from magdomino.studies.simulation import settle_structure

    verdict, settled = settle_structure(scenario)
    check_structure_settled(scenario, verdict)
    runners = {jobs: _timed_runner(jobs) for jobs in (1, 2)}
    best, docs, cpu = {1: float("inf"), 2: float("inf")}, {}, {1: float("inf"), 2: float("inf")}
    try:
        for jobs, runner in runners.items():  # every worker started, its imports done, its first trials run
            estimate_odds(scenario, OddsSettings(4 * jobs, executor=runner), what_ifs=what_ifs, settled=settled)
        for _ in range(repeats):
            for jobs, runner in runners.items():
                runner.first = runner.last = None
                before = runner.worker_cpu()
                result = estimate_odds(scenario, OddsSettings(trials, executor=runner), what_ifs=what_ifs, settled=settled)
                used = [c - before.get(pid, 0.0) for pid, c in runner.worker_cpu().items()]
                docs[jobs] = result.to_dict()
                best[jobs] = min(best[jobs], runner.last - runner.first)
                cpu[jobs] = min(cpu[jobs], max(used, default=float("nan")))
    finally:
        for runner in runners.values():
            runner.close()
    assert docs[1] == docs[2], "2 workers gave another result than 1"
    return best[1], best[2], cpu[2] / cpu[1]


def _median_wall(argv: list[str], env: dict, n: int) -> float:
    import statistics
    import subprocess

    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def import_times(quick: bool) -> dict[str, float]:
    """Wall time of a fresh interpreter importing the trial code, less a bare one's."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    codes = {
        "bare": "pass",
        "trial": "import magdomino.studies.trials, magdomino.maths.magnets",
        "no_magnets": "import magdomino.studies.trials",
    }
    for code in codes.values():  # bytecode written, disk caches warm
        _median_wall([sys.executable, "-c", code], env, 1)
    n = 3 if quick else 7
    walls = {name: _median_wall([sys.executable, "-c", code], env, n) for name, code in codes.items()}
    return {
        "import_trial_code_s": walls["trial"] - walls["bare"],
        "import_trial_code_no_magnets_s": walls["no_magnets"] - walls["bare"],
        "import_bare_interpreter_s": walls["bare"],
    }


def trial_phases(quick: bool) -> dict[str, float]:
    from magdomino.studies.scenario import load_scenario

    repeats = 1 if quick else 3
    one, two, cpu = trial_phase(load_scenario(ROOT / "scenarios" / "odds_statics.toml"), 40 if quick else 150, repeats)
    small_one, small_two, small_cpu = trial_phase(load_scenario(ROOT / "scenarios" / "cantilever.toml"), 40, repeats, what_ifs=[0])
    return {
        "odds_trials_2_workers_over_1": two / one,
        "odds_trials_cpu_2_workers_over_1": cpu,  # busiest worker's CPU: what two free cores would give
        "odds_trials_1_worker_s": one,
        "odds_trials_2_workers_s": two,
        "odds_trials_small_2_workers_over_1": small_two / small_one,
        "odds_trials_small_cpu_2_workers_over_1": small_cpu,
        "odds_trials_small_1_worker_s": small_one,
    }


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
        **trial_phases(quick),
        **import_times(quick),
        "odds_2_workers_over_1": best[2] / best[1],
        "odds_machine_2_workers_over_1": machine[2] / machine[1],  # the best this machine allows now
        "odds_load_average_1min": os.getloadavg()[0],  # other processes on the machine, for context
        "odds_1_worker_s": best[1],
        "odds_2_workers_s": best[2],
    }
