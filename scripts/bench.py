"""Benchmarks: ratios measured side by side in one run, because these machines are noisy.

Every ``scripts/bench_*.py`` module defines ``run(quick: bool) -> dict[str, float]``; this
script runs them all (or those named with ``--only``), prints each figure and writes them
all to ``--json OUT``. Absolute times are printed for context; the ratios are the figures
that count.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="OUT", help="write every figure to this JSON file")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these (e.g. magnets world)")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    args = parser.parse_args()
    results: dict[str, float] = {}
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if args.only and name not in args.only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        figures = module.run(quick=args.quick)
        for key, value in figures.items():
            print(f"  {key:<40} {value:.4g}", flush=True)
        print(f"  ({time.perf_counter() - start:.1f} s)", flush=True)
        results.update(figures)
    if args.json:
        meta = {"python": sys.version.split()[0], "machine": platform.machine(), "quick": args.quick}
        Path(args.json).write_text(json.dumps({"meta": meta, "figures": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
