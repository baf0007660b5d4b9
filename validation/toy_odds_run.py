"""Odds of a set of positions, timed: the worker of ``scripts/bench_hybrid.py``.

Runs with whichever ``magdomino`` is first on ``PYTHONPATH`` (the bench runs it once on an
export of an older commit, once on this checkout), so it uses only calls that every version
since the hybrid engine has: :func:`~magdomino.studies.scenario.scenario_from_dict` and
:func:`~magdomino.studies.odds.estimate_odds` with ``out_dir`` (every trial's record in a
JSON-lines log).

Each position (``validation/toy_positions.py``: a structure and one what-if, placement texts)
is one odds run, in one process (``jobs=1``), timed whole (the structure's settle included).
Writes a JSON document: ``magdomino`` (where the package came from), ``engine``, per
position ``seconds``, ``collapses``, ``counted``, ``ci95``, ``judged_by`` and ``verdicts``
(per trial: collapsed, shifted, error).

    python validation/toy_odds_run.py POSITIONS.json OUT.json --engine dynamics --trials 100 --seed 7
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positions")
    parser.add_argument("out")
    parser.add_argument("--engine", default=None, help="an engine's name (default: the odds' default engine)")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    import magdomino
    from magdomino.errors import InputError
    from magdomino.studies.odds import estimate_odds
    from magdomino.studies.scenario import scenario_from_dict

    positions = json.loads(Path(args.positions).read_text())
    engine = {} if args.engine is None else {"engine": args.engine}
    rows = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for k, pos in enumerate(positions):
            data = {"name": f"position-{k}", "preset": pos.get("preset", "toy"), "structure": list(pos["structure"]),
                    "what_if": [pos["what_if"]]}
            scenario = scenario_from_dict(data, source=pos["id"])
            out_dir = Path(tmp) / str(k)
            t0 = time.perf_counter()
            try:
                result = estimate_odds(scenario, args.trials, seed=args.seed, jobs=1, out_dir=str(out_dir), **engine)
            except InputError as exc:  # the structure does not stand: no odds, on any engine
                rows.append({"id": pos["id"], "refused": str(exc), "seconds": time.perf_counter() - t0})
                continue
            seconds = time.perf_counter() - t0
            w = result.results[0]
            lines = (out_dir / "odds.jsonl").read_text().splitlines()
            trials = sorted((json.loads(x) for x in lines[1:] if x.strip()), key=lambda r: r["trial"])
            rows.append({"id": pos["id"], "seconds": seconds, "collapses": w.collapses, "counted": w.counted, "ci95": list(w.ci95),
                         "judged_by": dict(getattr(w, "judged_by", {}) or {}),
                         "verdicts": [[bool(r.get("collapsed")), bool(r.get("shifted")), r.get("error") is not None] for r in trials]})
            print(f"{k + 1}/{len(positions)} {pos['id']}: {seconds:.2f} s, {w.collapses}/{w.counted}", file=sys.stderr, flush=True)
    doc = {"magdomino": str(Path(magdomino.__file__).resolve().parent), "engine": result.engine if rows else args.engine,
           "trials": args.trials, "seed": args.seed, "wall_s": time.perf_counter() - start, "positions": rows}
    Path(args.out).write_text(json.dumps(doc) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
