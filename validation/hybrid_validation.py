"""The hybrid engine against the full dynamics, trial by trial (the validation that chose its screen).

Cases: every placement of the validation set (``tests/data/validation_set.json``), more
random placements (``tests/data/hybrid_cases.json``, written on first use from
``make_validation_set.random_cases(60, seed 2027)``), and the bundled scenarios' what-ifs.
Each gets ``--trials`` noisy trials (seed ``--seed``), drawn exactly as ``magdomino odds``
draws them, by both engines; the dynamics' trials are kept in ``--cache`` (JSON lines, resumed).

Run: ``.venv/bin/python -m validation.hybrid_validation [--trials 200]`` (the dynamics' trials,
about an hour on two cores), then ``... --compare [--json OUT]``: for each trial the hybrid's
screen (:func:`magdomino.studies.hybrid_engine.screen_trials`, :func:`~magdomino.studies.hybrid_engine.decide`);
a trial it decides is compared with the dynamics' record of the same trial; a trial it sends
to PyBullet gets the dynamics' own trial (:func:`magdomino.studies.trials.run_trial`, the same
call the dynamics makes: ``tests/studies/test_hybrid_engine.py`` checks the records are
identical), so its cached record is the hybrid's. Prints the agreement and each what-if's p
by both engines, with the dynamics' 95 % interval. ``--preset toy`` rebuilds every item on that
preset (give it its own ``--cache``): the hybrid on the default toy's magnets.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import get_context
from pathlib import Path

from validation import ROOT, make_validation_set

EXTRA = ROOT / "tests" / "data" / "hybrid_cases.json"


def extra_cases():
    from magdomino.studies.validation import load_cases, save_cases

    if not EXTRA.is_file():
        cases = [c for c in make_validation_set.random_cases(150, 2027) if make_validation_set.starts_clear(c)]
        save_cases(EXTRA, cases)
    return load_cases(EXTRA)


def all_items():
    """(name, scenario loader argument) of every what-if to compare."""
    from magdomino.physics.motion import Drop
    from magdomino.studies.validation import load_cases

    items = []
    # Slides are left out: the hybrid sends every slide to PyBullet, the dynamics' own trial.
    for i, c in enumerate(load_cases(ROOT / "tests" / "data" / "validation_set.json")):
        if c.placement is not None and isinstance(c.placement[3], Drop):
            items.append((f"v{i:03d}", ("validation", i)))
    for i, _c in enumerate(extra_cases()):
        items.append((f"x{i:03d}", ("extra", i)))
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        items.append((f"s-{path.stem}", ("scenario", str(path))))
    return items


def scenario_of(ref, preset=None):
    """The scenario of an item, rebuilt on the preset named ``preset`` when given."""
    from dataclasses import replace

    from magdomino.model.presets import load_preset
    from magdomino.studies.scenario import load_scenario
    from magdomino.studies.validation import case_scenario, load_cases

    kind, arg = ref
    if kind == "scenario":
        sc = load_scenario(arg)
    else:
        path = ROOT / "tests" / "data" / ("validation_set.json" if kind == "validation" else "hybrid_cases.json")
        sc = case_scenario(load_cases(path)[arg])
    return sc if preset is None else replace(sc, preset=load_preset(preset))


def run_one(args):
    name, ref, engine, trials, seed, cache, preset = args
    from magdomino.errors import InputError
    from magdomino.studies.odds import estimate_odds

    out = Path(cache) / engine / name
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    try:
        sc = scenario_of(ref, preset)
        resume = (out / "odds.jsonl").is_file()
        res = estimate_odds(sc, trials, seed=seed, engine=engine, jobs=1, out_dir=str(out), resume=resume, progress=False)
    except InputError as exc:
        (out / "refused.txt").write_text(str(exc) + "\n")
        return name, None, time.perf_counter() - start
    return name, [r.to_dict() for r in res.results], time.perf_counter() - start


def records(cache: Path, engine: str, name: str) -> dict:
    path = cache / engine / name / "odds.jsonl"
    out = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r.get("kind") == "header":
            continue
        out[(r["what_if"], r["trial"])] = r
    return out


def compare_one(args):
    """The hybrid's screen on every trial of one item, against the dynamics' records."""
    name, ref, trials, seed, cache, preset = args
    from magdomino.studies.engines import get_engine
    from magdomino.studies.hybrid_engine import decide, is_slide, screen_trials
    from magdomino.studies.odds import wilson_interval
    from magdomino.studies.trials import Job, resolve_noise

    truth = records(Path(cache), "dynamics", name)
    sc = scenario_of(ref, preset)
    if not truth or len(truth) < trials * max(1, len(sc.what_if)):
        return name, None
    stored = Path(cache) / "hybrid-screen" / f"{name}.json"
    if stored.is_file():
        return name, json.loads(stored.read_text())
    settled = get_engine("dynamics").starting_structure(sc)
    job = Job(sc, settled, resolve_noise(sc), seed, (0.0, 0.0), None, get_engine("hybrid"))
    rows = []
    for w in range(len(sc.what_if)):
        dyn = [truth[(w, i)] for i in range(trials)]
        if is_slide(sc.what_if[w]):
            decisions = [None] * trials
        else:
            decisions = [decide(r) for r in screen_trials(job, w, list(range(trials)))]

        def counted(recs):
            return [r for r in recs if not r.get("error") and r.get("reason") != "time limit"]

        hyb = [r if d is None else {"collapsed": d == "falls", "shifted": False, "error": None, "reason": d}
               for r, d in zip(dyn, decisions)]
        wrong = [i for i, (r, d) in enumerate(zip(dyn, decisions))
                 if d is not None and (r["collapsed"] != (d == "falls") or r.get("error") or r.get("reason") == "time limit"
                                       or (d == "stood" and r.get("shifted")))]
        cd, ch = counted(dyn), counted(hyb)
        pd = sum(r["collapsed"] for r in cd) / len(cd) if cd else None
        ph = sum(r["collapsed"] for r in ch) / len(ch) if ch else None
        lo, hi = wilson_interval(sum(r["collapsed"] for r in cd), len(cd))
        rows.append({"name": name, "what_if": w, "placement": sc.describe(sc.what_if[w]), "trials": trials,
                     "statics": sum(d is not None for d in decisions), "dynamics": sum(d is None for d in decisions),
                     "disagree": len(wrong), "disagree_trials": wrong, "p_dynamics": pd, "ci95_dynamics": [lo, hi], "p_hybrid": ph,
                     "inside": ph is not None and lo - 1e-12 <= ph <= hi + 1e-12})
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps(rows))
    return name, rows


def compare(items, args) -> int:
    work = [(n, ref, args.trials, args.seed, args.cache, args.preset) for n, ref in items]
    table = []
    with get_context("spawn").Pool(args.processes) as pool:
        for name, rows in pool.imap(compare_one, work):
            if rows is None:
                print(f"{name}: no dynamics trials (refused, or not run yet)")
                continue
            table.extend(rows)
    n = sum(r["trials"] for r in table)
    bad = sum(r["disagree"] for r in table)
    screened = sum(r["statics"] for r in table)
    outside = [r for r in table if not r["inside"]]
    scen = [r for r in table if r["name"].startswith("s-")]
    print(f"{len(table)} what-ifs ({len(scen)} of the bundled scenarios), {n} trials: the statics decided {screened} "
          f"({screened / n:.1%}), PyBullet {n - screened}; verdicts agree on {n - bad} ({(n - bad) / n:.2%}); "
          f"hybrid p outside the dynamics' 95 % interval: {len(outside)}")
    for r in scen + outside:
        print(f"  {r['name']:28s} what-if {r['what_if']}: p dynamics {r['p_dynamics']:.3f} [{r['ci95_dynamics'][0]:.3f}, "
              f"{r['ci95_dynamics'][1]:.3f}], hybrid {r['p_hybrid']:.3f}; statics {r['statics']}, PyBullet {r['dynamics']}, "
              f"disagree {r['disagree']}{'' if r['inside'] else '  OUTSIDE'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"trials": n, "what_ifs": len(table), "statics": screened, "disagree": bad,
                                               "outside": len(outside), "rows": table}, indent=1) + "\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engines", default="dynamics")
    parser.add_argument("--cache", default=str(ROOT / ".hybrid-validation"))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--only", default=None, help="names starting with this")
    parser.add_argument("--extra", type=int, default=150, help="how many of the extra random cases")
    parser.add_argument("--compare", action="store_true", help="the hybrid's screen against the stored dynamics trials")
    parser.add_argument("--json", default=None, help="with --compare: write the table here")
    parser.add_argument("--preset", default=None, help="rebuild every item on this preset (e.g. toy; keep its own cache)")
    args = parser.parse_args()
    items = all_items()
    items = [it for it in items if it[0].startswith("s-")] + [it for it in items if not it[0].startswith(("s-", "x"))] \
        + [it for it in items if it[0].startswith("x")][: args.extra]
    if args.only:
        items = [it for it in items if it[0].startswith(args.only)]
    if args.compare:
        return compare(items, args)
    work = [(n, ref, e, args.trials, args.seed, args.cache, args.preset) for e in args.engines.split(",") for n, ref in items]
    start = time.perf_counter()
    with get_context("spawn").Pool(args.processes) as pool:
        for k, (name, res, wall) in enumerate(pool.imap_unordered(run_one, work), 1):
            print(f"[{k}/{len(work)} {time.perf_counter() - start:7.1f}s] {name} {wall:6.1f}s "
                  + ("refused" if res is None else " ".join(f"p={r['p_collapse']}" for r in res)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
