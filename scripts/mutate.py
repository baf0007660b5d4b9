"""Sampled mutation testing of magdomino's cores, driven through cosmic-ray (see scripts/mutate).

Run by scripts/mutate under its own small venv (cosmic-ray is not a dependency of the project):

    python scripts/mutate.py run --project ROOT --python PY --sample N --seed S MODULE...

For each module (a path under magdomino/), in a scratch copy of the project:

1. ``cosmic-ray init`` lists every mutation of the module (one work item each);
2. a seeded sample of N is kept and the rest marked skipped: N *sites* (a source span and an
   operator family: a comparison, a number, ``and``/``or``, ...) drawn without replacement, one
   variant drawn at each (cosmic-ray's 132 binary-operator swaps would otherwise fill a uniform
   sample with ``a | b`` on floats, killed by any test that runs the line);
3. the fast tests (``-m 'not slow'``) of the mirrored test folder (``magdomino/physics/x.py`` ->
   ``tests/physics/``; the nearest existing folder up the path) run once unmutated, traced
   (this file is also a pytest plugin): which test runs which lines of the module;
4. ``cosmic-ray exec`` applies each mutant in turn and runs the tests that run its lines (all
   of them for a line run at import, such as a decorator or a constant; none, and the mutant
   survives, when no test runs it), the module's own test files first and ``-x``, so a killed
   mutant costs one failing test;
5. the score per module (killed, survived, timed out, the kill percentage counting every
   survivor, equivalent or not) and each survivor's diff are printed.

A mutant that times out (the traced unmutated run's time, about twice a plain run's; at least
60 s) counts as killed, as in cosmic-ray. Nothing here touches the project's own files: the
copy is made from ``git ls-files`` (committed or not, as they are on disk).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def mirrored_tests(root: Path, module: str) -> tuple[Path, list[str]]:
    """The test folder mirroring ``module`` and its test files, the module's own first."""
    rel = Path(module).relative_to("magdomino")
    folder = root / "tests" / rel.parent
    while not folder.is_dir() and folder != root / "tests":
        folder = folder.parent
    stem = rel.stem
    files = sorted(p.relative_to(root).as_posix() for p in folder.glob("test_*.py"))
    own = [f for f in files if stem in Path(f).stem]
    return folder, own + [f for f in files if f not in own]


def family(operator_name: str) -> str:
    """``core/ReplaceBinaryOperator_Add_Sub`` -> ``ReplaceBinaryOperator``."""
    return operator_name.split("/")[-1].split("_")[0]


def sample_work(db_path: Path, n: int, seed: int) -> tuple[int, int]:
    """Keep a seeded sample of ``n`` sites (one variant each); mark every other item skipped.
    Returns (mutants in the module, mutants kept)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    rng = random.Random(seed)
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        items = sorted(db.work_items, key=lambda w: w.job_id)
        sites = defaultdict(list)
        for w in items:
            m = w.mutations[0]
            sites[(tuple(m.start_pos), tuple(m.end_pos), family(m.operator_name))].append(w)
        keys = sorted(sites)
        chosen = rng.sample(keys, min(n, len(keys)))
        keep = {rng.choice(sorted(sites[k], key=lambda w: (w.mutations[0].operator_name, w.mutations[0].occurrence))).job_id
                for k in chosen}
        skip = [w.job_id for w in items if w.job_id not in keep]
        if skip:
            db.set_multiple_results(skip, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
        return len(items), len(keep)


def results(db_path: Path):
    """(killed, survived, timed out, incompetent, survivors' descriptions) of a finished session."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    killed = survived = timeouts = broken = 0
    survivors = []
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if result.test_outcome == TestOutcome.SURVIVED:
                survived += 1
                m = item.mutations[0]
                diff = "\n".join(line for line in (result.diff or "").splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))
                survivors.append(f"{m.module_path}:{m.start_pos[0]} {m.operator_name.split('/')[-1]} (in {m.definition_name})\n{diff}")
            elif result.test_outcome == TestOutcome.KILLED:
                if result.output == "timeout":
                    timeouts += 1
                killed += 1
            else:
                broken += 1  # incompetent: the mutant could not be run (counted apart)
    return killed, survived, timeouts, broken, survivors


# -- which tests run which lines ------------------------------------------------------------
# A pytest plugin (this file, loaded with ``-p mutate`` and scripts/ on the path) records, per
# test, the lines of one module that the test runs (``MUTATE_TRACE`` = the module's file,
# ``MUTATE_TRACE_OUT`` = the JSON written); lines run outside any test (at import, during
# collection) are recorded under "". A mutant then runs only the tests that run its lines: a
# mutant that no test reaches survives without a run, one on an import-time line runs them all.

_trace = {"files": {}, "test": ""}  # file -> {test: set of lines}


def _tracer(frame, event, arg):
    per_test = _trace["files"].get(frame.f_code.co_filename)
    if per_test is None:
        return None
    lines = per_test.setdefault(_trace["test"], set())
    lines.add(frame.f_lineno)

    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    return local


def pytest_configure(config):
    import threading

    if os.environ.get("MUTATE_TRACE"):
        _trace["files"] = {f: {} for f in os.environ["MUTATE_TRACE"].split(os.pathsep)}
        sys.settrace(_tracer)
        threading.settrace(_tracer)


def pytest_runtest_protocol(item, nextitem):
    _trace["test"] = item.nodeid
    return None


def pytest_runtest_logfinish(nodeid, location):
    _trace["test"] = ""


def pytest_unconfigure(config):
    if _trace["files"]:
        sys.settrace(None)
        out = {f: {test: sorted(lines) for test, lines in per_test.items()} for f, per_test in _trace["files"].items()}
        Path(os.environ["MUTATE_TRACE_OUT"]).write_text(json.dumps(out))


def changed_lines(original: Path, mutated: Path) -> set[int]:
    """Lines of ``original`` that the mutant changed (1-based)."""
    import difflib

    a = original.read_text().splitlines()
    b = mutated.read_text().splitlines()
    out = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.update(range(i1 + 1, max(i2, i1 + 1) + 1))
    return out


def select_tests(trace: dict, lines: set[int]) -> list[str] | None:
    """Node ids of the tests that run any of ``lines``; None: every test (an import-time line)."""
    if lines & set(trace.get("", ())):
        return None
    return [test for test, ran in trace.items() if test and lines & set(ran)]


def run(args) -> int:
    root = Path(args.project).resolve()
    cosmic = Path(sys.executable).with_name("cosmic-ray")
    out = root / "build" / "mutate"
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="magdomino-mutate-"))
    try:
        files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.decode().split("\0")
        for f in filter(None, files):
            src = root / f
            if src.is_file():
                (scratch / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, scratch / f)
        originals = scratch / ".originals"  # what each mutant is compared with (the copy's own sources change)
        shutil.copytree(scratch / "magdomino", originals / "magdomino")
        rows = []
        all_survivors = []
        baseline = {}  # test folder -> seconds of its unmutated run
        modules = [Path(m).as_posix() for m in args.modules]
        for module in modules:
            if not (scratch / module).is_file():
                print(f"mutate: no such module {module}", file=sys.stderr)
                return 2
            folder, tests = mirrored_tests(scratch, module)
            pytest = [args.python, "-m", "pytest", "-x", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", "-m", "not slow", *tests]
            # The unmutated run, once per test folder for all its modules, traced: it must
            # pass, it sets the timeout, and it says which tests run which lines.
            if folder not in baseline:
                same = [m for m in modules if mirrored_tests(scratch, m)[0] == folder]
                trace_all = out / f"lines-{folder.relative_to(scratch).as_posix().replace('/', '.')}.json"
                env = _env(scratch)
                env.update(MUTATE_TRACE=os.pathsep.join(str(scratch / m) for m in same), MUTATE_TRACE_OUT=str(trace_all),
                           PYTHONPATH=f"{scratch}{os.pathsep}{Path(__file__).resolve().parent}")
                t0 = time.perf_counter()
                base = subprocess.run([*pytest[:3], "-p", "mutate", *pytest[3:]], cwd=scratch, env=env, capture_output=True, text=True)
                took = time.perf_counter() - t0
                if base.returncode != 0 or not trace_all.exists():
                    print(f"mutate: the fast tests of {folder.relative_to(scratch)} fail unmutated:\n"
                          f"{base.stdout[-3000:]}{base.stderr[-2000:]}", file=sys.stderr)
                    return 1
                traces = json.loads(trace_all.read_text())
                for m in same:
                    (out / f"{_name(m)}.lines.json").write_text(json.dumps(traces[str(scratch / m)]))
                baseline[folder] = took
            took = baseline[folder]
            trace_out = out / f"{_name(module)}.lines.json"
            timeout = max(60.0, took)  # the traced run takes about twice the plain one: a mutant may take that
            name = _name(module)
            config = scratch / f"mutate-{name}.toml"
            session = out / f"{name}.sqlite"
            # cosmic-ray runs the command without a shell: a small wrapper sets PYTHONPATH to the copy.
            command = shlex.join([sys.executable, str(Path(__file__).resolve()), "pytest", "--scratch", str(scratch),
                                  "--module", module, "--original", str(originals / module), "--trace", str(trace_out), "--", *pytest])
            config.write_text(
                "[cosmic-ray]\n"
                f'module-path = "{module}"\n'
                f"timeout = {timeout:.0f}\n"
                "excluded-modules = []\n"
                f"test-command = {_toml_string(command)}\n"
                '[cosmic-ray.distributor]\nname = "local"\n'
            )
            subprocess.run([str(cosmic), "init", str(config), str(session)], cwd=scratch, check=True)
            total, kept = sample_work(session, args.sample, args.seed)
            print(f"mutate: {module}: {kept} of {total} mutants, against {len(tests)} test files of "
                  f"{folder.relative_to(scratch)} ({took:.0f} s unmutated)", flush=True)
            subprocess.run([str(cosmic), "exec", str(config), str(session)], cwd=scratch, check=True)
            killed, survived, timeouts, broken, survivors = results(session)
            rows.append((module, killed, survived, timeouts, broken))
            all_survivors += survivors
        _print_table(rows, all_survivors)
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _name(module: str) -> str:
    """``magdomino/physics/verdict.py`` -> ``physics.verdict`` (the session's name)."""
    return module.removeprefix("magdomino/").removesuffix(".py").replace("/", ".")


def _env(scratch: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(scratch)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _toml_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _print_table(rows, survivors=()) -> None:
    """The score table of ``rows`` (module, killed, survived, timeouts, broken), then the survivors."""
    print(f"\n{'module':44} {'killed':>6} {'survived':>8} {'timeout':>7} {'broken':>6} {'score':>6}")
    tk = ts = tt = tb = 0
    for module, k, s, t, b in rows:
        tk, ts, tt, tb = tk + k, ts + s, tt + t, tb + b
        print(f"{module:44} {k:6d} {s:8d} {t:7d} {b:6d} {100 * k / max(1, k + s):5.0f}%")
    print(f"{'all':44} {tk:6d} {ts:8d} {tt:7d} {tb:6d} {100 * tk / max(1, tk + ts):5.0f}%")
    print("(score: killed / (killed + survived); timeouts count as killed and are included in 'killed')")
    if survivors:
        print("\nsurvivors:")
        for line in survivors:
            print(line)


def report(args) -> int:
    """The table and the survivors of the sessions kept in build/mutate (a run's, or a part of one)."""
    rows, all_survivors = [], []
    for session in sorted((Path(args.project).resolve() / "build" / "mutate").glob("*.sqlite")):
        killed, survived, timeouts, broken, survivors = results(session)
        if killed + survived + broken:
            rows.append(("magdomino/" + session.stem.replace(".", "/") + ".py", killed, survived, timeouts, broken))
            all_survivors += survivors
    _print_table(rows, all_survivors)
    return 0


def tests_of_mutant(args) -> int:
    """Run the tests that run the mutated lines, the scratch copy first on the path (cosmic-ray
    gives no shell); 0 (survived) without a run when no test runs them."""
    command = args.command
    if args.trace:
        lines = changed_lines(Path(args.original), Path(args.scratch) / args.module)
        tests = select_tests(json.loads(Path(args.trace).read_text()), lines)
        if tests is not None:
            if not tests:
                print(f"no test runs lines {sorted(lines)}")
                return 0
            command = [c for c in command if not c.startswith("tests/")] + tests
    return subprocess.run(command, cwd=args.scratch, env=_env(Path(args.scratch))).returncode


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--project", required=True)
    r.add_argument("--python", required=True, help="the project's Python (where pytest and magdomino's dependencies are)")
    r.add_argument("--sample", type=int, default=20, help="mutants per module")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("modules", nargs="+")
    t = sub.add_parser("report", help="the table and survivors of the sessions in build/mutate")
    t.add_argument("--project", required=True)
    w = sub.add_parser("pytest")
    w.add_argument("--scratch", required=True)
    w.add_argument("--module")
    w.add_argument("--original")
    w.add_argument("--trace")
    w.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.what == "report":
        return report(args)
    if args.what == "pytest":
        args.command = args.command[1:] if args.command[:1] == ["--"] else args.command
        return tests_of_mutant(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
