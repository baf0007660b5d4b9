"""Property test: preset and scenario files generated from the schema and mutated
(types, ranges, missing and unknown keys, NaN and infinities, huge values) end in exit 2 with
one line naming the file and a key, or in a sane simulation; never a traceback, never a hang
(the files simulated take at most a few thousand solver steps; see fuzz_files.py)."""

import copy

import pytest
from fuzz_files import BASE_PRESET, BASE_SCENARIO, mutated, run_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_the_base_files_run(tmp_path):
    assert run_case(tmp_path, copy.deepcopy(BASE_PRESET), copy.deepcopy(BASE_SCENARIO)) == "ran"


@FAST
@given(preset=mutated(BASE_PRESET))
def test_mutated_presets_are_refused_in_one_line_or_run_sanely(tmp_path_factory, preset):
    run_case(tmp_path_factory.mktemp("p"), preset, copy.deepcopy(BASE_SCENARIO))


@FAST
@given(scenario=mutated(BASE_SCENARIO))
def test_mutated_scenarios_are_refused_in_one_line_or_run_sanely(tmp_path_factory, scenario):
    run_case(tmp_path_factory.mktemp("s"), copy.deepcopy(BASE_PRESET), scenario)


@pytest.mark.parametrize("text", ["\ufeff", "[", "name = 1\n[[structure]]\n", "structure = 5\n", "[[structure]]\npips = []\n"])
def test_malformed_scenario_files_are_one_line(tmp_path, text):
    from fuzz_files import to_toml  # noqa: F401 - the same writer as above, for the preset

    (tmp_path / "p.toml").write_text(to_toml(BASE_PRESET))
    (tmp_path / "s.toml").write_text(text)
    import io
    from contextlib import redirect_stderr

    from magdomino.faces.cli import main

    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["simulate", str(tmp_path / "s.toml")]) == 2
    assert len(err.getvalue().strip().splitlines()) == 1 and "s.toml" in err.getvalue()


@settings(max_examples=15, deadline=None, database=None)
@given(st.floats(min_value=1e-3, max_value=1e3), st.floats(min_value=0.0, max_value=5.0))
def test_valid_masses_and_frictions_never_collapse_a_lone_tile(tmp_path_factory, mass, friction):
    """A lone tile resting on the table, of any allowed mass and friction, stands (a sink
    through the table would be an error, never a collapse)."""
    preset = copy.deepcopy(BASE_PRESET)
    preset["tile"].update(mass_g=mass, friction=friction, magnets=[])
    scenario = {"preset": "p.toml", "structure": [{"pips": [1, 1], "pos_mm": [0.0, 0.0]}]}
    directory = tmp_path_factory.mktemp("m")
    assert run_case(directory, preset, scenario) == "ran"
    import json

    verdict = json.loads((directory / "out.json").read_text())["structure"]
    assert verdict["collapsed"] is False and verdict["error"] is None, verdict
