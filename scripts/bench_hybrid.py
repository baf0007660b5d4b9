"""The default engine (hybrid) against the dynamics: wall time of the same odds, same trials.

Three sets of figures, each timed side by side in one run (the machine's load hits both):

``hybrid_odds_over_dynamic_odds``: ``odds`` of ``scenarios/demo.toml`` (both what-ifs, seed
1, one process) with ``engine="hybrid"`` over the same with ``engine="dynamics"``, timed
alternately and the best of each kept. ``hybrid_share_pybullet`` is the share of the
hybrid's trials that reached PyBullet; ``hybrid_p_equal`` is 1 when both engines gave the
same collapse counts.

``toy_games_*``: what users ask. Positions of seeded games of both tower rules on the
default preset (``validation/toy_positions.py``: every distinct position of the first games of
its seeds, random seats, nothing filtered), each what-if's odds (100 trials, seed 7, one
process each, the structure's settle included) by the **dynamics at**
:data:`BASE_COMMIT` (an export of that commit, run in a subprocess) and by the **default
engine of this checkout**. ``toy_games_default_over_dynamics`` is the ratio of their total
times (goal <= 0.2); ``toy_games_verdicts_equal`` the share of trials whose verdict
(collapsed or not, error or not) is the dynamics'; ``toy_games_p_in_ci`` the share of
what-ifs whose p lies inside the dynamics' 95 % interval.

``scenarios_default_over_dynamics``: ``magdomino odds SCENARIO --trials 300 --jobs 2`` of
``demo``, ``staircase_edge`` and ``cantilever``, whole processes (start-up included), the
dynamics at :data:`BASE_COMMIT` against the default engine here (goal <= 0.25).

Every trial's verdict of both runs is written to ``bench_hybrid_toy_games.json`` in the
temporary directory (``validation/hybrid_toy_games_table.py`` makes the validation table of
it). ``*_load_average_1min``: the machine's load before and after, for context. A full run takes
about 30 minutes (2 cores under load 1.0-1.5: the dynamics' 133 odds 21 min,
the default engine's 7.5 min); ``--quick`` (about 75 s): one game of each rule, every sixth
position, 30 trials; the scenarios at 100 trials.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BASE_COMMIT = "0dedcd9"
"""The commit the toy figures compare with: the code before the default engine paid off on
the default toy (its dynamics is the reference)."""
SCENARIOS = ("demo", "staircase_edge", "cantilever")


def base_tree(commit: str = BASE_COMMIT) -> Path:
    """An export of ``commit`` (``git archive``, read-only for the repository), kept in the
    temporary directory for later runs."""
    out = Path(tempfile.gettempdir()) / f"magdomino-{commit}"
    if not (out / "magdomino" / "__init__.py").exists():
        out.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def _python(tree: Path, args: list, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, *args], env=env, check=True, **kw)


def toy_games(quick: bool, tmp: Path) -> dict[str, float]:
    """The ``toy_games_*`` figures (see the module docstring)."""
    from validation import toy_positions  # the positions are the validation study's (imports the games)

    positions = toy_positions.position_set(toy_positions.QUICK if quick else toy_positions.GAMES)
    if quick:
        positions = positions[::6]
    trials = 30 if quick else 100
    path = tmp / "positions.json"
    path.write_text(json.dumps(positions))
    worker = str(ROOT / "validation" / "toy_odds_run.py")  # run by path: the older commit's tree has no validation package
    runs = {}
    for name, tree, engine in (("dynamics", base_tree(), ["--engine", "dynamics"]), ("default", ROOT, [])):
        out = tmp / f"{name}.json"
        _python(tree, [worker, str(path), str(out), "--trials", str(trials), "--seed", "7", *engine], cwd=str(tmp))
        runs[name] = json.loads(out.read_text())
    raw = Path(tempfile.gettempdir()) / "bench_hybrid_toy_games.json"  # every trial's verdict, for the validation table
    raw.write_text(json.dumps({"base_commit": BASE_COMMIT, "positions": positions, "runs": runs}) + "\n")
    print(f"  (every trial's verdict: {raw})", flush=True)
    old, new = ({r["id"]: r for r in runs[k]["positions"]} for k in ("dynamics", "default"))
    both = [i for i in old if "verdicts" in old[i] and "verdicts" in new.get(i, {})]
    same = total = inside = statics = judged = 0
    for i in both:
        a, b = old[i], new[i]
        same += sum(x[0] == y[0] and x[2] == y[2] for x, y in zip(a["verdicts"], b["verdicts"]))
        total += len(a["verdicts"])
        p = b["collapses"] / b["counted"] if b["counted"] else 0.0
        inside += a["ci95"][0] - 1e-12 <= p <= a["ci95"][1] + 1e-12
        statics += b["judged_by"].get("statics", 0)
        judged += sum(b["judged_by"].values())
    t_old = sum(old[i]["seconds"] for i in both)
    t_new = sum(new[i]["seconds"] for i in both)
    return {
        "toy_games_default_over_dynamics": t_new / t_old,
        "toy_games_positions": len(both),
        "toy_games_refused": len(old) - len(both),
        "toy_games_trials_per_what_if": trials,
        "toy_games_dynamics_s": t_old,
        "toy_games_default_s": t_new,
        "toy_games_verdicts_equal": same / max(total, 1),
        "toy_games_verdicts_differ": total - same,
        "toy_games_p_in_ci": inside / max(len(both), 1),
        "toy_games_share_statics": statics / max(judged, 1),
    }


def scenarios(quick: bool) -> dict[str, float]:
    """The ``scenarios_*`` figures: whole ``magdomino odds`` processes."""
    trials = "100" if quick else "300"
    times = {"dynamics": 0.0, "default": 0.0}
    for name in SCENARIOS:
        for who, tree, engine in (("dynamics", base_tree(), ["--engine", "dynamics"]), ("default", ROOT, [])):
            t0 = time.perf_counter()
            _python(tree, ["-m", "magdomino", "odds", str(ROOT / "scenarios" / f"{name}.toml"), "--trials", trials, "--jobs", "2", *engine],
                    cwd=str(tree), capture_output=True)
            times[who] += time.perf_counter() - t0
    return {"scenarios_default_over_dynamics": times["default"] / times["dynamics"], "scenarios_dynamics_s": times["dynamics"],
            "scenarios_default_s": times["default"]}


def demo(quick: bool) -> dict[str, float]:
    """The demo's figures, in this process."""
    from magdomino.studies.engines import get_engine
    from magdomino.studies.odds import estimate_odds
    from magdomino.studies.scenario import load_scenario

    scenario = load_scenario(ROOT / "scenarios" / "demo.toml")
    settled = get_engine("dynamics").starting_structure(scenario)
    trials = 40 if quick else 200
    best = {"hybrid": float("inf"), "dynamics": float("inf")}
    docs = {}
    estimate_odds(scenario, 2, engine="hybrid", jobs=1, settled=settled)  # imports and magnet models outside the clock
    for _ in range(1 if quick else 2):
        for engine in best:
            t0 = time.perf_counter()
            docs[engine] = estimate_odds(scenario, trials, engine=engine, jobs=1, seed=1, settled=settled).to_dict()
            best[engine] = min(best[engine], time.perf_counter() - t0)
    judged = [r["judged_by"] for r in docs["hybrid"]["results"]]
    total = sum(sum(j.values()) for j in judged)
    return {
        "hybrid_odds_over_dynamic_odds": best["hybrid"] / best["dynamics"],
        "hybrid_share_pybullet": sum(j.get("dynamics", 0) for j in judged) / total,
        "hybrid_p_equal": float([r["collapses"] for r in docs["hybrid"]["results"]]
                                == [r["collapses"] for r in docs["dynamics"]["results"]]),
        "hybrid_odds_s": best["hybrid"],
        "dynamic_odds_s": best["dynamics"],
    }


def run(quick: bool) -> dict[str, float]:
    out = {"hybrid_load_average_1min_start": os.getloadavg()[0]}
    out.update(demo(quick))
    with tempfile.TemporaryDirectory() as tmp:
        out.update(toy_games(quick, Path(tmp)))
    out["toy_games_load_average_1min"] = os.getloadavg()[0]
    out.update(scenarios(quick))
    out["hybrid_load_average_1min"] = os.getloadavg()[0]
    return out
