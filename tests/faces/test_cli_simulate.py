"""`magdomino simulate` from the command line: the JSON document, and bad scenarios and presets
as one line naming the file and the key, exit status 2."""

import json

import pytest


def _strip_wall_times(doc):
    if isinstance(doc, dict):
        return {k: _strip_wall_times(v) for k, v in doc.items() if k != "wall_time_s"}
    if isinstance(doc, list):
        return [_strip_wall_times(v) for v in doc]
    return doc


def test_demo_gives_the_same_json_twice_and_the_expected_verdicts(tmp_path, cli):
    docs = []
    for k in range(2):
        out = tmp_path / f"run{k}.json"
        res = cli("simulate", "scenarios/demo.toml", "--json", out)
        assert res.returncode == 0, res.stderr
        docs.append(json.loads(out.read_text()))
    assert _strip_wall_times(docs[0]) == _strip_wall_times(docs[1])
    doc = docs[0]
    assert {"version", "seed", "preset", "tile_size_mm", "structure", "what_if"} <= set(doc)
    for v in [doc["structure"], *doc["what_if"]]:
        assert {"collapsed", "reason", "settled", "max_shift_mm", "moved_tiles", "sim_time_s", "wall_time_s"} <= set(v)
    assert doc["structure"]["collapsed"] is False
    assert [w["collapsed"] for w in doc["what_if"]] == [False, True]


@pytest.mark.parametrize(
    "text, key",
    [
        ('preset = "nosuch"\n[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n', "preset"),
        ('[[structure]]\npips = [1, 9]\npos_mm = [0, 0]\n', "structure[0].pips"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\ncolour = "red"\n', "structure[0].colour"),
        ('[[structure]]\npips = [1, 2]\n', "structure[0]"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n[[structure]]\npips = [5, 6]\non = { tile = 0, half = 1 }\n', "structure[1].on"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n[[structure]]\npips = [2, 1]\npos_mm = [0, 0]\n', "structure[1].pips"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n[[what_if]]\npips = [2, 3]\non = { tile = 4, half = 1 }\n', "what_if[0].on.tile"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n[[what_if]]\npips = [2, 3]\npos_mm = [0, 0]\n'
         'drop_mm = -1\n', "what_if[0].drop_mm"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n[noise]\npos_sigma = 1\n', "noise.pos_sigma"),
        ('seed = -4\n[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n', "seed"),
        ("name = 'x'\n", "structure"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n[[what_if]]\npips = [2, 1]\npos_mm = [48, 0]\n', "what_if[0].pips"),
        ('[[structure]]\npips = [1, 1]\npos_mm = [0, 0]\n[[structure]]\npips = [1, 2]\npos_mm = [0, 0, 4]\n', "structure[1].pos_mm"),
        ('[[structure]]\npips = [1, 2]\npos_mm = [1e9, 0]\n', "structure[0].pos_mm[0]"),
    ],
)
def test_bad_scenarios_give_one_line_naming_file_and_key(tmp_path, cli, text, key):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    res = cli("simulate", path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert lines[0].startswith(f"magdomino: {path}: {key}: "), lines[0]


def test_a_bad_preset_file_named_by_a_scenario_is_blamed_with_its_own_name_and_key(tmp_path, cli):
    preset = tmp_path / "mine.toml"
    preset.write_text('name = "mine"\n[tile]\nsize_mm = [48, 24, 8]\nmass_g = 10\n[solver]\niterations = 1.5\n')
    scenario = tmp_path / "s.toml"
    scenario.write_text('preset = "mine.toml"\n[[structure]]\npips = [1, 2]\npos_mm = [0, 0]\n')
    res = cli("simulate", scenario, cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip() == f"magdomino: {preset}: solver.iterations: expected a whole number, got 1.5"


def test_missing_scenario_file(cli, tmp_path):
    res = cli("simulate", tmp_path / "nope.toml")
    assert res.returncode == 2 and "no such scenario file" in res.stderr
