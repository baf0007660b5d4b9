"""``magdomino tournament``: the document and figure it writes, the same JSON for any
--jobs, resume, and every bad input in one line with exit status 2."""

import json
import sys

import pytest

from magdomino.faces.cli import main


def _doc(path):
    return json.loads(path.read_text())


def test_cli_tournament_writes_json_table_and_plot_and_any_jobs_gives_the_same_json(cli, tmp_path):
    base = ["tournament", "--rule", "traditional", "--seats", "greedy,random,random", "--deals", "12", "--seed", "9"]
    one = cli(*base, "--jobs", "1", "--json", tmp_path / "one.json", "--plot", tmp_path / "t.png")
    assert one.returncode == 0, one.stderr
    two = cli(*base, "--jobs", "2", "--json", tmp_path / "two.json")
    assert two.returncode == 0, two.stderr
    assert (tmp_path / "one.json").read_text() == (tmp_path / "two.json").read_text()
    doc = _doc(tmp_path / "one.json")
    assert doc["kind"] == "tournament" and doc["seats"] == ["greedy", "random", "random"] and doc["deals"] == 12
    assert [r["kind"] for r in doc["per_kind"]] == ["greedy", "random"] and len(doc["per_deal"]) == 12
    assert "greedy" in one.stdout and "deals ended naturally: 12" in one.stdout
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_tournament_resume_gives_the_uninterrupted_json(cli, tmp_path):
    base = ["tournament", "--rule", "matador", "--seats", "greedy,random", "--deals", "8", "--jobs", "1"]
    assert cli(*base, "--json", tmp_path / "whole.json").returncode == 0
    out = tmp_path / "run"
    assert cli(*base, "--out-dir", out, "--json", tmp_path / "first.json").returncode == 0
    log = out / "tournament.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:4]) + "\n")  # three deals kept, as if stopped there
    again = cli(*base, "--out-dir", out, "--json", tmp_path / "again.json")
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1 and "--resume" in again.stderr
    resumed = cli(*base, "--out-dir", out, "--resume", "--json", tmp_path / "resumed.json")
    assert resumed.returncode == 0, resumed.stderr
    assert (tmp_path / "resumed.json").read_text() == (tmp_path / "whole.json").read_text()


@pytest.mark.parametrize("args, says", [
    (["--rule", "traditional", "--seats", "greedy,wizard", "--deals", "4"], "--seats"),
    (["--rule", "traditional", "--seats", "greedy,random,random,random,greedy", "--deals", "4"], "--seats"),
    (["--rule", "echanges", "--seats", "planner,random", "--deals", "4"], "--seats"),
    (["--rule", "traditional", "--seats", "greedy,random", "--deals", "0"], "--deals"),
    (["--rule", "traditional", "--seats", "greedy,random", "--deals", "-3"], "--deals"),
    (["--rule", "vingt", "--seats", "greedy,random", "--deals", "2", "--physics", "pybullet"], "--physics"),
    (["--rule", "matador", "--seats", "greedy,random", "--deals", "2", "--physics", "statics"], "--physics"),
    (["--rule", "traditional", "--seats", "greedy,random", "--deals", "2", "--resume"], "--resume"),
    (["--rule", "traditional", "--seats", "greedy,random", "--deals", "2", "--plot", "x.svg"], "--plot"),
])
def test_cli_tournament_bad_input_is_one_line_exit_2(args, says, capsys):
    assert main(["tournament", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def test_cli_tournament_ismcts_without_openspiel_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    assert main(["tournament", "--rule", "traditional", "--seats", "ismcts,random", "--deals", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--seats" in err[0] and "pip install 'magdomino[openspiel]'" in err[0]
