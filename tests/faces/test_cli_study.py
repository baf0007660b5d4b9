"""``magdomino study``: the same JSON whatever --jobs and after a resume, the figure, the report
section, the Python face's ``md.study``, and every bad input in one line with exit status 2."""

import json

import pytest

import magdomino as md
from magdomino.faces.cli import main

STUDY = ["study", "--rule", "defi", "--seats", "random,random", "--deals", "2", "--physics", "statics",
         "--max-placements", "30", "--seed", "3", "--preset", "standard", "--vary", "magnets_scale=1,3"]
"""Two values x two deals of two random seats under the statics (a few seconds), on the
weaker magnets of ``standard`` (the default toy's at three times would be 3.6 T, past a
preset's bounds)."""

PNG = b"\x89PNG\r\n\x1a\n"


def _cli(capsys, *args):
    """``main`` in this process (a subprocess's start-up costs more than these runs): status, stdout, stderr."""
    capsys.readouterr()
    status = main([str(a) for a in args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_study_gives_the_same_json_with_one_or_two_workers_and_draws_its_figure(capsys, tmp_path):
    status, stdout, err = _cli(capsys, *STUDY, "--jobs", "1", "--json", tmp_path / "one.json", "--plot", tmp_path / "s.png")
    assert status == 0, err
    status, _, err = _cli(capsys, *STUDY, "--jobs", "2", "--json", tmp_path / "two.json")
    assert status == 0, err
    assert (tmp_path / "one.json").read_text() == (tmp_path / "two.json").read_text()
    doc = json.loads((tmp_path / "one.json").read_text())
    assert doc["kind"] == "study" and doc["vary"] == {"magnets_scale": [1, 3]} and len(doc["points"]) == 2
    for point in doc["points"]:
        assert set(point["metrics"]) == set(doc["metrics"]) and len(point["per_deal"]) == 2
        assert {"rounds", "height", "collapses", "placements"} <= set(point["per_deal"][0])
    assert "magnets_scale" in stdout and "completion" in stdout and "Clopper-Pearson" in stdout
    assert (tmp_path / "s.png").read_bytes()[:8] == PNG


def test_study_resume_gives_the_uninterrupted_json(capsys, tmp_path):
    assert _cli(capsys, *STUDY, "--jobs", "1", "--json", tmp_path / "whole.json")[0] == 0
    out = tmp_path / "run"
    assert _cli(capsys, *STUDY, "--jobs", "1", "--out-dir", out, "--json", tmp_path / "first.json")[0] == 0
    log = out / "study.jsonl"
    lines = log.read_text().splitlines()
    assert len(lines) == 1 + 4  # the header, then every deal as it finished
    log.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])  # two deals kept, the third cut short
    status, _, err = _cli(capsys, *STUDY, "--jobs", "1", "--out-dir", out, "--json", tmp_path / "again.json")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--resume" in err
    status, _, err = _cli(capsys, *STUDY[:-1], "magnets_scale=1,2", "--jobs", "1", "--out-dir", out, "--resume")
    assert status == 2 and "vary" in err  # another study: refused, the log untouched
    status, _, err = _cli(capsys, *STUDY, "--jobs", "2", "--out-dir", out, "--resume", "--json", tmp_path / "resumed.json")
    assert status == 0, err
    assert (tmp_path / "resumed.json").read_text() == (tmp_path / "whole.json").read_text()


def test_the_report_shows_a_study_section_with_its_table_and_figure(capsys, tmp_path):
    assert main([*STUDY, "--jobs", "1", "--json", str(tmp_path / "s.json")]) == 0
    assert main(["report", str(tmp_path / "s.json"), "--out", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert 'class="kind-study"' in page and "Study: defi" in page and "<th>completion</th>" in page
    assert "<th>magnets_scale</th>" in page and 'src="data:image/png;base64,' in page and "Clopper-Pearson" in page
    assert "magnets_scale = 3: every deal (2)" in page


def test_a_damaged_study_document_is_refused_by_the_report_in_one_line(capsys, tmp_path):
    assert main([*STUDY, "--jobs", "1", "--json", str(tmp_path / "s.json")]) == 0
    doc = json.loads((tmp_path / "s.json").read_text())
    doc["points"][1]["metrics"]["completion"]["ci"] = [0.1]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["report", str(tmp_path / "bad.json"), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "points[1].metrics.completion" in err[0]


def test_md_study_is_a_result_with_rows_html_and_its_document(tmp_path):
    s = md.study("defi", "random,random", {"tile.friction": [0.3, 0.6]}, deals=2, physics="statics", max_placements=20,
                 progress=False)
    rows = s.to_rows()
    assert len(rows) == 2 * len(s.doc["metrics"])
    assert {"tile.friction", "metric", "value", "low", "high", "n"} == set(rows[0])
    assert rows[0]["metric"] == "completion" and s.to_dict()["kind"] == "study"
    html = s._repr_html_()
    assert html.startswith('<img src="data:image/png;base64,') and "<table>" in html and "tile.friction" in repr(s)


@pytest.mark.parametrize("args, says", [
    (["--vary", "tile.wobble=1,2"], "--vary tile.wobble: expected a preset key"),
    (["--vary", "tile.friction=0.3,-1"], "--vary tile.friction: expected a number in [0, 5], got -1 (at tile.friction = -1)"),
    (["--vary", "tile.friction=0.3,0.3"], "--vary tile.friction: expected each value once"),
    (["--vary", "tile.friction"], "--vary: expected KEY=V1,V2"),
    (["--vary", "tile.friction=0.3,soft"], "--vary tile.friction: expected a TOML value"),
    (["--vary", "magnets_scale=1,1.5", "--magnets-scale", "1.5"], "--vary magnets_scale: expected a key not also given"),
    ([], "--vary: expected at least one"),
    (["--vary", "magnets_scale=1", "--players", "3"], "--players"),
    (["--vary", "magnets_scale=1", "--resume"], "--resume"),
    (["--vary", "magnets_scale=1", "--physics", "none"], "--physics"),
    (["--vary", "magnets_scale=1", "--seats", "random,wizard"], "--seats"),
    (["--vary", "magnets_scale=1", "--deals", "0"], "--deals"),
    (["--vary", "magnets_scale=1", "--plot", "/nowhere/s.png"], "--plot"),
])
def test_a_bad_study_is_one_line_exit_2(args, says, capsys):
    base = ["study", "--rule", "defi", "--seats", "random,random", "--deals", "2", "--physics", "statics"]
    if "--seats" in args:
        base = base[:3] + base[5:]
    if "--deals" in args:
        base = base[:5] + base[7:]
    assert main([*base, *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def test_study_refuses_a_rule_without_physics(capsys):
    assert main(["study", "--rule", "vingt", "--seats", "random,random", "--deals", "2", "--vary", "magnets_scale=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--rule" in err[0]
