"""Preset and scenario files generated from the schema, mutated, and run through the command
line in this process: shared by the property test (test_fuzz_input.py) and a longer run
(``python tests/faces/fuzz_files.py N``).

Every case ends in one of two ways: exit 2 with one line naming the file and a key, or exit 0
with a sane document (verdicts that are stood, shifted, fallen, undecided or an error, with
finite numbers). Anything else (an exception, a hang) is a failure. Only files whose settles
are short are simulated (:data:`STEP_BUDGET`); the others are only loaded, and the loader
must have kept every value within the bounds it states.
"""

from __future__ import annotations

import copy
import io
import json
import math
import re
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import strategies as st

BASE_PRESET = {
    "name": "fuzz",
    "description": "generated",
    "tile": {
        "size_mm": [48.0, 24.0, 8.0],
        "mass_g": 10.0,
        "friction": 0.5,
        "restitution": 0.0,
        "collision": "box",
        "colours": ["red", "#00ff00"],
        "magnets": [
            {"pos_mm": [-12.0, 0.0, 0.0], "shape": "cylinder", "size_mm": [6.0, 2.0], "polarization_T": 1.2,
             "axis": [0.0, 0.0, 1.0], "free": False},
        ],
    },
    "solver": {"time_step_s": 1 / 1000, "iterations": 10, "magnet_model": "dipole", "contact_erp": 0.4, "friction_anchor": True},
    "collapse": {"time_limit_s": 0.1, "settle_hold_s": 0.05, "max_shift_mm": 5.0, "max_tilt_deg": 10.0, "max_drop_mm": 5.0,
                 "count_shifts": False},
}

BASE_SCENARIO = {
    "name": "fuzz",
    "description": "generated",
    "preset": "p.toml",
    "magnets": True,
    "seed": 1,
    "structure": [{"pips": [6, 6], "pos_mm": [0.0, 0.0]}, {"pips": [6, 5], "on": {"tile": 0, "half": 1}}],
    "what_if": [{"pips": [5, 5], "on": {"tile": 1, "half": 1}, "drop_mm": 1.0},
                {"pips": [4, 4], "pos_mm": [80.0, 0.0], "slide_mm": [40.0, 0.0]}],
    "noise": {"pos_sigma_mm": 1.0, "drop_mm": [0.0, 2.0], "mass_rel_sigma": 0.02},
}

STEP_BUDGET = 3000
"""Most solver steps a simulated case may need (settles and slides together)."""

BAD_VALUES = [
    "text", True, False, [], [1.0], {"x": 1}, 0, -1, 0.0, -0.5, 0.5, 1.5, 3, 1e-9, 1e9, 1e300, -1e300,
    2**62, -(2**62), math.nan, math.inf, -math.inf, 1000.0, 60.0, 500.0, [1.0, 2.0], [1e9, 0.0], [0.0, 0.0, 4.0],
    [math.nan, 0.0], "#-1-1-1", "#ABCDEF", "standard", {"tile": 0, "half": 1.0}, {"tile": 9, "half": 0},
]


def leaf_paths(data, prefix=()) -> list[tuple]:
    """Every key path into ``data`` (tables and lists walked), the containers included."""
    out = []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for k, v in items:
        out.append(prefix + (k,))
        out.extend(leaf_paths(v, prefix + (k,)))
    return out


def _set(data, path, value=None, delete=False):
    node = data
    for k in path[:-1]:
        node = node[k]
    if delete:
        if isinstance(node, dict):
            node.pop(path[-1], None)
        else:
            del node[path[-1]]
    else:
        node[path[-1]] = value


@st.composite
def mutated(draw, base):
    """``base`` with one to three mutations: a value replaced, a key deleted or an unknown one added."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = leaf_paths(data)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["replace", "replace", "replace", "number", "delete", "unknown"]))
        if kind == "replace":
            _set(data, path, copy.deepcopy(draw(st.sampled_from(BAD_VALUES))))
        elif kind == "number":
            value = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**63), 2**63 - 1),
                                   st.floats(min_value=0.0, max_value=100.0), st.integers(0, 10)))
            _set(data, path, value)
        elif kind == "delete":
            _set(data, path, delete=True)
        else:
            node = data
            for k in path[:-1]:
                node = node[k]
            if isinstance(node, dict):
                node["no_such_key"] = 1
    return data


# -- a TOML writer for these shapes ---------------------------------------------------------


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def to_toml(data: dict) -> str:
    """TOML text of ``data``: top-level tables as [t], lists of tables as [[t]], the rest inline."""
    lines, tables = [], []
    for k, v in data.items():
        if isinstance(v, dict) or (isinstance(v, list) and v and all(isinstance(x, dict) for x in v)):
            tables.append((k, v))
        else:
            lines.append(f"{json.dumps(str(k))} = {_value(v)}")
    for k, v in tables:
        if isinstance(v, dict):
            lines.append(f"[{json.dumps(str(k))}]")
            lines.extend(f"{json.dumps(str(kk))} = {_value(vv)}" for kk, vv in v.items())
        else:
            for entry in v:
                lines.append(f"[[{json.dumps(str(k))}]]")
                lines.extend(f"{json.dumps(str(kk))} = {_value(vv)}" for kk, vv in entry.items())
    return "\n".join(lines) + "\n"


# -- one case -------------------------------------------------------------------------------

_ONE_LINE = re.compile(r"^magdomino: (?P<source>[^:]+): (?P<key>[^:]*): (?P<rest>.+)$")


def steps_needed(directory: Path) -> float:
    """Solver steps a simulate of the files in ``directory`` may take (loads them; inf if they do not load)."""
    from magdomino.errors import InputError
    from magdomino.studies.scenario import load_scenario

    try:
        sc = load_scenario(directory / "s.toml")
    except InputError:
        return math.inf
    c, step = sc.preset.collapse, sc.preset.solver.time_step
    slides = sum(math.hypot(*w.slide_mm) / 1000 / 0.05 for w in sc.what_if if w.slide_mm)
    return (c.time_limit * (1 + len(sc.what_if)) + slides) / step


def run_case(directory: Path, preset: dict, scenario: dict) -> str:
    """Write the files, run ``simulate`` in this process; returns ``"refused"``, ``"ran"`` or
    ``"loaded"`` (too long to simulate, loaded and checked); raises AssertionError otherwise."""
    (directory / "p.toml").write_text(to_toml(preset))
    (directory / "s.toml").write_text(to_toml(scenario))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an overflow warning would be a second line on stderr
        return _run_case(directory)


def _run_case(directory: Path) -> str:
    from magdomino.faces.cli import main
    from magdomino.model.presets import LIMITS

    steps = steps_needed(directory)
    if math.isfinite(steps) and steps > STEP_BUDGET:
        from magdomino.studies.scenario import load_scenario

        p = load_scenario(directory / "s.toml").preset.to_dict()
        for key, (low, high) in LIMITS.items():
            table, name = key.split(".") if "." in key else ("tile", key)
            values = p[table][name] if name in p[table] else None
            for v in values if isinstance(values, list) else [values]:
                assert v is None or low <= v <= high, (key, v)
        return "loaded"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["simulate", str(directory / "s.toml"), "--json", str(directory / "out.json")])
    if status == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1, err.getvalue()
        match = _ONE_LINE.match(lines[0])
        assert match and match["source"].endswith((".toml", "p.toml")) and match["key"], lines[0]
        return "refused"
    assert status == 0, (status, err.getvalue())
    doc = json.loads((directory / "out.json").read_text())
    for verdict in [doc["structure"], *doc["what_if"]]:
        assert verdict["reason"] in {"stood", "shifted", "tilt", "drop", "table contact", "placed tile fell", "shift",
                                     "time limit", "error"} or verdict["reason"].startswith("not tried"), verdict
        if verdict.get("error") is None and verdict.get("collapsed") is not None:
            assert math.isfinite(verdict["max_shift_mm"]) and verdict["max_shift_mm"] < 50_000, verdict
    return "ran"


if __name__ == "__main__":  # a longer run than the test suite's: python tests/faces/fuzz_files.py 2000
    import sys
    import tempfile
    from collections import Counter

    from hypothesis import HealthCheck, given, settings

    counts: Counter = Counter()
    failures: list = []

    @settings(max_examples=int(sys.argv[1]) if len(sys.argv) > 1 else 500, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.booleans(), mutated(BASE_PRESET), mutated(BASE_SCENARIO))
    def _case(which, preset, scenario):
        preset, scenario = (preset, copy.deepcopy(BASE_SCENARIO)) if which else (copy.deepcopy(BASE_PRESET), scenario)
        with tempfile.TemporaryDirectory() as d:
            try:
                counts[run_case(Path(d), preset, scenario)] += 1
            except BaseException as exc:  # noqa: BLE001 - counted and shown, the run goes on
                counts["failed"] += 1
                failures.append((preset, scenario, repr(exc)[:300]))

    _case()
    print(dict(counts), "cases:", sum(counts.values()), "failures:", counts["failed"])
    for f in failures[:10]:
        print(f)
