"""Outputs that cannot be written, damaged run logs and options a game does not read: one
line naming the flag or the file and key, exit status 2, before the work where it can be
(a figure in a missing directory must not be found out after the games were played)."""

import json
from pathlib import Path

import pytest
from conftest import ROOT
from test_bad_input import _refused, _run

STATICS = ROOT / "scenarios" / "odds_statics.toml"


@pytest.mark.parametrize("args, flag", [
    (["play", "--rule", "traditional", "--players", "2"], "--plot"),
    (["tournament", "--rule", "vingt", "--seats", "random,greedy", "--deals", "2", "--jobs", "1"], "--plot"),
])
def test_a_figure_in_a_missing_directory_is_refused_before_any_game(tmp_path, args, flag):
    line = _refused(_run(*args, flag, tmp_path / "missing" / "x.png"), flag, "existing directory")
    assert "missing" in line


def test_a_summary_in_a_missing_directory_is_refused_naming_summary(tmp_path):
    record = tmp_path / "g.json"
    _run("play", "--rule", "traditional", "--players", "2", "--json", record).check_returncode()
    _refused(_run("replay", record, "--summary", tmp_path / "missing" / "s.png"), "--summary", "existing directory")
    _refused(_run("replay", record, "--summary", tmp_path / "s.txt"), "--summary", ".png")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_figure_that_cannot_be_written_is_an_error_not_a_wrote_line():
    # matplotlib's own file writing lets the full device's error pass; ours does not.
    # The write fails after the work, whose table stays on stdout; no "wrote" line.
    res = _run("odds", STATICS, "--trials", "2", "--jobs", "1", "--engine", "statics", "--plot", "/dev/full")
    assert res.returncode == 2 and "wrote" not in res.stdout, (res.returncode, res.stdout)
    assert res.stderr.strip().splitlines() == ["magdomino: command line: --plot: cannot write /dev/full: No space left on device"]


def _damage(path: Path, line: int, change) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    change(record)
    lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_a_resumed_odds_log_with_a_malformed_trial_is_refused_naming_the_line(tmp_path):
    run = ["odds", STATICS, "--trials", "2", "--jobs", "1", "--engine", "statics", "--out-dir", tmp_path]
    _run(*run).check_returncode()
    _damage(tmp_path / "odds.jsonl", 2, lambda r: r.update(collapsed="maybe"))
    _refused(_run(*run, "--resume"), "odds.jsonl: line 2", "collapsed and shifted true or false", "damaged")


def test_a_resumed_tournament_log_with_malformed_scores_is_refused_naming_the_line(tmp_path):
    run = ["tournament", "--rule", "vingt", "--seats", "random,greedy", "--deals", "2", "--jobs", "1", "--out-dir", tmp_path]
    _run(*run).check_returncode()
    _damage(tmp_path / "tournament.jsonl", 2, lambda r: r.update(scores="abc"))
    _refused(_run(*run, "--resume"), "tournament.jsonl: line 2", "scores: 2 numbers", "damaged")


@pytest.mark.parametrize("rule, extra, flag", [
    ("vingt", ["--physics", "pybullet"], "--physics"),
    ("vingt", ["--deals", "3"], "--deals"),
    ("vingt", ["--set", "9"], "--set"),
    ("vingt", ["--kids"], "--kids"),
    ("vingt", ["--max-placements", "5"], "--max-placements"),
    ("matador", ["--kids"], "--kids"),
    ("traditional", ["--parallel-only"], "--parallel-only"),
    ("traditional", ["--target", "100"], "--target"),
])
def test_an_option_the_game_does_not_read_is_refused_not_ignored(rule, extra, flag):
    _refused(_run("play", "--rule", rule, "--players", "2", *extra), flag, "only with --rule", f"not read by {rule}")


def test_a_saved_record_is_redrawn_only_to_an_output_and_with_nothing_else(tmp_path):
    record = tmp_path / "v.json"
    _run("play", "--rule", "vingt", "--players", "2", "--json", record).check_returncode()
    _refused(_run("play", "--rule", "vingt", "--record", record), "--record", "expected an output")
    _refused(_run("play", "--rule", "vingt", "--record", record, "--png", tmp_path / "v.png", "--players", "3"),
             "--players", "not with --record")
    _refused(_run("play", "--rule", "defi", "--record", record), "--record", "only with --rule vingt")


@pytest.mark.parametrize("extra, flag, says", [
    (["--jobs", "0"], "--jobs", "expected a whole number >= 1"),
    (["--jobs", "-1"], "--jobs", "expected a whole number >= 1"),
    (["--max-placements", "5"], "--max-placements", "only with traditional, defi or quinconce"),
])
def test_tournament_options_that_cannot_apply_are_refused(extra, flag, says):
    _refused(_run("tournament", "--rule", "vingt", "--seats", "random,greedy", "--deals", "2", *extra), flag, says)


def test_an_unknown_preset_is_named_as_the_flag_or_argument_that_gave_it():
    _refused(_run("tournament", "--rule", "defi", "--seats", "random,greedy", "--deals", "2", "--physics", "statics",
                  "--preset", "nosuch"), "command line: --preset: unknown preset 'nosuch'")
    _refused(_run("presets", "nosuch"), "command line: NAME: unknown preset 'nosuch'")
    _refused(_run("presets", ""), "command line: NAME: unknown preset ''")


@pytest.fixture(scope="module")
def statics_docs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    _run("simulate", STATICS, "--engine", "statics", "--json", folder / "sim.json").check_returncode()
    _run("odds", STATICS, "--engine", "statics", "--trials", "2", "--jobs", "1", "--json", folder / "odds.json").check_returncode()
    return {k: json.loads((folder / f"{k}.json").read_text()) for k in ("sim", "odds")}


@pytest.mark.parametrize("doc, change, says", [
    ("sim", lambda d: d["structure"].update(collapsed="yes"), "structure.collapsed: true, false or null"),
    ("sim", lambda d: d["what_if"][0].update(max_shift_mm=float("nan")), "what_if[0].max_shift_mm: a number >= 0 or null"),
    ("sim", lambda d: d.update(tile_size_mm=[0, 0, 0]), "tile_size_mm: [length, width, thickness] > 0"),
    ("odds", lambda d: d["results"][0].update(p_collapse=7), "results[0].p_collapse: a probability in [0, 1]"),
    ("odds", lambda d: d["results"][0].update(ci95=[0.9, 0.1]), "results[0].ci95: a 95 % interval"),
    ("odds", lambda d: d["results"][0].update(trials=-5), "results[0].trials: trials >= 0"),
])
def test_report_refuses_values_no_run_writes(statics_docs, tmp_path, doc, change, says):
    data = json.loads(json.dumps(statics_docs[doc]))
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    _refused(_run("report", path, "--out", tmp_path / "r.html", "--no-renders"), "bad.json: " + says)


def test_replay_refuses_a_construction_tile_not_in_the_set(tmp_path):
    record = tmp_path / "g.json"
    _run("play", "--rule", "defi", "--players", "2", "--physics", "none", "--json", record).check_returncode()
    data = json.loads(record.read_text())
    data["final"]["construction"][0]["tile"] = [7, 3]
    record.write_text(json.dumps(data))
    _refused(_run("replay", record, "--summary", tmp_path / "s.png"), "final.construction[0]", "pips 0..6")


def test_flags_that_would_do_nothing_are_refused(tmp_path):
    _refused(_run("simulate", ROOT / "scenarios" / "whatif_step.toml", "--gif", tmp_path / "a.gif"), "--gif", "has none")
    _refused(_run("sweep", STATICS, "--param", "polarization_scale", "--values", "0.5", "2", "--trials", "2"),
             "odds_statics.toml: magnets", "expected magnets")
    _refused(_run("report", tmp_path / "any.json", "--out", tmp_path / "r.html", "--no-renders", "--animate"),
             "--animate", "not with --no-renders")


def test_no_command_is_one_line_listing_the_commands():
    _refused(_run(), "command line: expected a command: simulate, play")


@pytest.mark.parametrize("name", ["", "../../etc/x"])
def test_a_scenario_name_that_is_no_file_name_is_refused(tmp_path, name):
    path = tmp_path / "n.toml"
    path.write_text(f'name = "{name}"\n[[structure]]\npips = [6, 6]\npos_mm = [0, 0]\n')
    _refused(_run("simulate", path), "n.toml: name", "file name")


@pytest.fixture(scope="module")
def statics_defi_record(tmp_path_factory) -> dict:
    """A 3-player Défi game judged by the statics (collapses included), which report takes as it is."""
    out = tmp_path_factory.mktemp("statics-defi")
    record = out / "g.json"
    _run("play", "--rule", "defi", "--players", "3", "--physics", "statics", "--seed", "4", "--json", record).check_returncode()
    _run("report", record, "--out", out / "ok.html", "--no-renders", "--no-replays").check_returncode()
    return json.loads(record.read_text())


@pytest.mark.parametrize("change, says", [
    (lambda moves: moves[1].update(tile=[7, 3]), "events (move 2): a legal move of seat"),
    (lambda moves: moves[1].update(pose=[50, 50, 0, 0]), "events (move 2): a legal move of seat"),
    (lambda moves: moves[1].update(player=5), "events (move 2): a legal move of seat"),
    (None, "the record ends before the game does"),
])
def test_a_tower_record_whose_moves_are_not_the_game_is_refused_by_report_and_replay(statics_defi_record, tmp_path, change, says):
    # The moves are replayed in the rules, each placement judged as recorded (here by the
    # statics: collapses included), before anything is drawn.
    data = json.loads(json.dumps(statics_defi_record))
    moves = [i for i, e in enumerate(data["events"]) if e["type"] in ("place", "draw", "pass")]
    if change is None:  # the last move cut off
        del data["events"][moves[-1]]
    else:
        change([data["events"][i] for i in moves])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    _refused(_run("report", bad, "--out", tmp_path / "r.html", "--no-renders", "--no-replays"), "bad.json: ", says)
    _refused(_run("replay", bad, "--summary", tmp_path / "s.png"), "bad.json: ", says)


@pytest.mark.parametrize("change, key", [
    (lambda d: d.update(tile_size_mm=["a", "b", "c"]), "tile_size_mm: [length, width, thickness] > 0"),
    (lambda d: d.update(deals=5), "deals: one object per deal"),
    (lambda d: d["events"].append({**[e for e in d["events"] if e["type"] == "place"][-1], "player": 1, "tile": [6, 6]}),
     "no move after the end of the game"),
])
def test_a_tower_record_read_for_its_replay_is_checked_first(tmp_path, change, key):
    record = tmp_path / "g.json"
    _run("play", "--rule", "defi", "--players", "2", "--physics", "none", "--json", record).check_returncode()
    data = json.loads(record.read_text())
    change(data)
    record.write_text(json.dumps(data))
    _refused(_run("report", record, "--out", tmp_path / "r.html", "--no-renders", "--no-replays"), "g.json: ", key)
    _refused(_run("replay", record, "--summary", tmp_path / "s.png"), "g.json: ", key)


def test_a_statics_game_with_collapses_is_filmed_as_it_was_judged(tmp_path):
    # The film follows the recorded verdicts (the statics' collapses send tiles back to a
    # hand); without them the replayed game went another way and was refused as illegal.
    record, gif = tmp_path / "q.json", tmp_path / "q.gif"
    res = _run("play", "--rule", "quinconce", "--players", "2", "--physics", "statics", "--seed", "3",
               "--no-second-parallel", "--player", "random", "--preset", "standard", "--json", record, "--gif", gif, timeout=300)
    assert res.returncode == 0, res.stderr
    assert any(e["type"] == "collapse" for e in json.loads(record.read_text())["events"])
    assert gif.stat().st_size > 10_000


def test_report_names_an_unknown_preset_as_the_documents_key(tmp_path):
    record = tmp_path / "g.json"
    _run("play", "--rule", "defi", "--players", "2", "--physics", "statics", "--json", record).check_returncode()
    data = json.loads(record.read_text())
    data["preset"] = "nosuch"
    record.write_text(json.dumps(data))
    _refused(_run("report", record, "--out", tmp_path / "r.html", "--no-renders", "--no-replays"),
             "g.json: preset: unknown preset 'nosuch'")


def test_every_file_a_command_writes_is_said_with_wrote(tmp_path, capsys, monkeypatch):
    """``wrote PATH`` after each file: a JSON, a board picture, a plot (``--json -`` stays the
    JSON alone on stdout)."""
    from magdomino.faces.cli import main

    board, record = tmp_path / "board.png", tmp_path / "game.json"
    assert main(["play", "--rule", "vingt", "--players", "3", "--seed", "1", "--png", str(board), "--json", str(record)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"wrote {board}" in out and f"wrote {record}" in out and board.is_file()
    assert main(["play", "--rule", "vingt", "--record", str(record), "--png", str(tmp_path / "again.png")]) == 0
    assert f"wrote {tmp_path / 'again.png'}" in capsys.readouterr().out.splitlines()
    odds = tmp_path / "odds.json"
    assert main(["odds", str(ROOT / "scenarios" / "cantilever.toml"), "--trials", "3", "--engine", "statics", "--json", str(odds)]) == 0
    assert f"wrote {odds}" in capsys.readouterr().out.splitlines()
    assert main(["odds", str(ROOT / "scenarios" / "cantilever.toml"), "--trials", "3", "--engine", "statics", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]


def test_the_twenty_board_has_a_legend_for_the_seats_colours_and_the_small_numbers(monkeypatch, tmp_path):
    from magdomino.faces import tables
    from magdomino.games.vingt import game as vingt

    drawn = []
    monkeypatch.setattr(tables, "save", lambda fig, path, fmt: drawn.append(fig) or Path(path))  # plots.save, as tables has it
    tables.vingt_figure(vingt.play_vingt(3, 1, None, "random")["final"], tmp_path / "b.png")
    labels = [t.get_text() for legend in drawn[0].legends for t in legend.get_texts()]
    assert labels == ['seat 0\'s "20" markers', 'seat 1\'s "20" markers', 'seat 2\'s "20" markers',
                      "a line's total", "a line worth exactly 20"]
