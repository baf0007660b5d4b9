"""``--engine statics`` and ``whatif --screen`` from the command line: verdicts, engines in
every JSON, determinism and bad input (one line, exit 2)."""

import json

import pytest

from tests.conftest import ROOT

SC = ROOT / "scenarios"


def _one_line_exit_2(r, *needles):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


def test_simulate_statics_says_so_and_gives_the_margins(cli, tmp_path):
    r = cli("simulate", SC / "staircase_edge.toml", "--engine", "statics", "--json", tmp_path / "s.json")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "s.json").read_text())
    assert "engine statics" in r.stdout.splitlines()[0]
    assert doc["engine"] == "statics" and doc["structure"]["engine"] == "statics"
    # the scenario's comment: the structure stands, a third step outward falls, the step back stands
    assert [doc["structure"]["collapsed"]] + [w["collapsed"] for w in doc["what_if"]] == [False, True, False]
    assert doc["structure"]["margin_deg"] > 0 > doc["what_if"][0]["margin_deg"]
    assert all(w["engine"] == "statics" for w in doc["what_if"])


def test_simulate_json_has_the_same_keys_whatever_the_engine(cli, tmp_path):
    docs = {}
    for engine in ("statics", "dynamics"):
        r = cli("simulate", SC / "staircase_edge.toml", "--engine", engine, "--json", tmp_path / f"{engine}.json")
        assert r.returncode == 0, r.stderr
        docs[engine] = json.loads((tmp_path / f"{engine}.json").read_text())
    s, d = docs["statics"], docs["dynamics"]
    assert list(s) == list(d) and list(s["structure"]) == list(d["structure"])
    assert [list(w) for w in s["what_if"]] == [list(w) for w in d["what_if"]]
    assert s["structure"]["sim_time_s"] is None and d["structure"]["margin_deg"] is None


def test_simulate_dynamics_json_says_dynamics(cli, tmp_path):
    out = tmp_path / "d.json"
    r = cli("simulate", SC / "odds_statics.toml", "--json", out)
    assert r.returncode == 0, r.stderr
    assert "engine dynamics" in r.stdout.splitlines()[0]
    doc = json.loads(out.read_text())
    assert doc["engine"] == "dynamics" and doc["structure"]["engine"] == "dynamics"
    assert {w["engine"] for w in doc["what_if"]} == {"dynamics"}


def test_odds_statics_same_seed_same_json_and_the_robust_answers(cli, tmp_path):
    args = ("odds", SC / "odds_statics.toml", "--engine", "statics", "--trials", "300", "--jobs", "1", "--json")
    a, b = cli(*args, tmp_path / "a.json"), cli(*args, tmp_path / "b.json")
    assert a.returncode == 0 and b.returncode == 0, a.stderr
    assert "engine statics" in a.stdout.splitlines()[0]
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc == json.loads((tmp_path / "b.json").read_text())
    assert doc["engine"] == "statics"
    safe, beyond, edge = doc["results"]
    assert (safe["collapses"], beyond["collapses"], safe["errors"] + beyond["errors"]) == (0, 300, 0)
    assert 0.35 < edge["p_collapse"] < 0.65  # centred on the edge: a coin toss (closed form in the library tests)


def test_odds_json_says_its_engine_hybrid_by_default(cli, tmp_path):
    r = cli("odds", SC / "odds_statics.toml", "--trials", "2", "--what-if", "0", "--jobs", "1", "--json", tmp_path / "o.json")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "o.json").read_text())["engine"] == "hybrid"
    r = cli("odds", SC / "odds_statics.toml", "--trials", "2", "--what-if", "0", "--jobs", "1", "--json", tmp_path / "d.json",
            "--engine", "dynamics")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "d.json").read_text())
    assert doc["engine"] == "dynamics" and doc["results"][0]["judged_by"] == {"dynamics": 2}


def test_whatif_screen_confirms_the_best_with_the_dynamics(cli, tmp_path):
    out = tmp_path / "w.json"
    r = cli("whatif", SC / "whatif_step.toml", "--tile", "2,4", "--rule", "defi", "--parallel-only", "--screen", "1", "--trials", "4",
            "--jobs", "1", "--json", out, "--plot", tmp_path / "w.png", "--engine", "dynamics")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "w.png").stat().st_size > 1000
    doc = json.loads(out.read_text())
    assert doc["engine"] == "statics, then dynamics" and doc["screen"]["best"] == 1
    first, second = doc["candidates"]
    assert first["engine"] == "dynamics" and "bridging" in first["placement"]["description"]
    assert first["p_collapse"] == 0.0 and first["trials"] == 4 and first["statics"]["stands"]
    assert second["engine"] == "statics" and second["p_collapse"] is None and not second["statics"]["stands"]
    assert "statics: FALLS" in r.stdout


@pytest.mark.parametrize("cmd", [
    ("simulate", SC / "odds_statics.toml", "--engine", "fast"),
    ("odds", SC / "odds_statics.toml", "--trials", "2", "--engine", "quick"),
])
def test_an_unknown_engine_is_one_line(cli, cmd):
    _one_line_exit_2(cli(*cmd), "--engine", "statics", "dynamics")


@pytest.mark.parametrize("k", ["0", "-2"])
def test_screen_must_be_positive(cli, k):
    _one_line_exit_2(cli("whatif", SC / "whatif_step.toml", "--tile", "2,4", "--screen", k), "--screen", ">= 1")


def test_a_tile_inside_the_table_is_refused_by_both_engines_not_judged(cli, tmp_path):
    sunk = tmp_path / "sunk.toml"
    sunk.write_text('preset = "plain"\nmagnets = false\n[[structure]]\npips = [1, 1]\npos_mm = [0, 0, 2]\n')
    for engine in ("statics", "dynamics"):
        r = cli("simulate", sunk, "--engine", engine)
        _one_line_exit_2(r, "structure[0].pos_mm: expected a height >= 4 mm", "2.00 mm inside the table")
        assert "stands" not in r.stdout and "FALLS" not in r.stdout


def test_statics_has_nothing_to_animate(cli, tmp_path):
    _one_line_exit_2(cli("simulate", SC / "odds_statics.toml", "--engine", "statics", "--gif", tmp_path / "a.gif"), "--gif")
