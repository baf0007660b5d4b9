"""One way to print each thing (magdomino.wording), and the faces that print with it."""

import re
from pathlib import Path
from types import SimpleNamespace

from magdomino import wording


def test_winners_counts_probabilities_and_booleans_have_one_form():
    assert wording.winners([0]) == "winners: 0"
    assert wording.winners([0, 2]) == "winners: 0, 2"
    assert wording.winners([]) == wording.winners(None) == "winners: none"
    assert [wording.counted(n, "collapse") for n in (0, 1, 2)] == ["0 collapses", "1 collapse", "2 collapses"]
    assert wording.counted(1, "deal", "deals") == "1 deal"
    assert wording.probability(0) == "0.000" and wording.probability(0.07) == "0.070" and wording.probability(None) == "-"
    assert (wording.on_off(True), wording.on_off(False), wording.yes_no(True), wording.as_words(False)) == ("on", "off", "yes", "no")


def test_a_tile_is_its_pips_joined_by_a_dash_and_a_crossed_double_by_a_bar():
    assert wording.tile_text((6, 3)) == "6-3" and wording.tile_text([3, 6]) == "3-6"
    assert wording.tile_text((5, 5), crossed=True) == "5|5" and wording.tile_text((5, 5), crossed=False) == "5-5"


TILE_BY_HAND = re.compile(r"(?<![-\w])(?:\{([\w.\[\]'\"]+)\[0\]\}[-|]\{\1\[1\]\}|\{[a-z]\}[-|]\{[a-z]\})")
"""A tile's pips formatted in place: ``{t[0]}-{t[1]}``, ``{a}-{b}``, ``{a}|{b}`` (not a name
such as ``tile-{a}-{b}``, a file or an element id)."""


def test_every_face_writes_a_tile_with_the_one_tile_text():
    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted((root / "magdomino").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name == "magdomino/wording.py":
            continue
        found += [f"{name}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1) if TILE_BY_HAND.search(line)]
    assert not found
    assert TILE_BY_HAND.search('f"{t[0]}-{t[1]}"') and TILE_BY_HAND.search('f"{shown[j][0]}-{shown[j][1]}"')
    assert TILE_BY_HAND.search('f"{a}|{b}"') and not TILE_BY_HAND.search('f"tile-{a}-{b}.png"')


def test_the_command_lines_odds_line_says_one_collapse_in_the_singular():
    from magdomino.faces.cli import _odds_line

    r = SimpleNamespace(what_if=0, placement="6-3 on #0 (6-6) half 1", ci95=(0.0, 0.9), p_collapse=1.0, trials=1, collapses=1,
                        errors=1, undecided=0, shifts=0, median_shift_mm=None, judged_by={"statics": 1}, stopped_by=None,
                        error_messages=[])
    assert "p = 1.000  [0.000, 0.900]  1 trial, 1 collapse, 1 error, 0 undecided, 0 shifted" in _odds_line(r)


def test_python_tables_show_probabilities_with_three_decimals_and_games_their_winners_in_words():
    import magdomino as md
    from magdomino.faces.api import GameRecord

    odds = md.Construction(["6-6 at (0, 0) mm", "6-3 on #0 half 1"], preset="standard").odds("3-1 on #1 half 1", trials=5,
                                                                                              engine="statics", progress=False)
    assert odds.to_rows()[0]["p(collapse)"] in (0.0, 1.0)  # rows keep numbers
    shown = repr(odds).splitlines()[-1]
    assert " 0.000 " in shown or " 1.000 " in shown, shown
    assert "<td>0.000</td>" in odds._repr_html_() or "<td>1.000</td>" in odds._repr_html_()
    record = {"rule": "vingt", "players": 3, "seed": 1, "winners": [0, 2], "scores": [], "events": [], "target": None,
              "player_kinds": ["random"] * 3}
    assert GameRecord(record)._title == "vingt, 3 players, seed 1: winners: 0, 2"


def test_the_report_says_magnets_on_not_true():
    from magdomino.faces.report import _facts

    assert "magnets <b>on</b>" in _facts({"magnets": True}) and "magnets <b>off</b>" in _facts({"magnets": False})


def test_every_game_log_prints_winners_targets_and_payoffs_in_words(capsys):
    import re

    from magdomino.faces.cli import main

    logs = {}
    for rule, extra in (("defi", ["--physics", "none"]), ("vingt", []), ("vingt", ["--target", "30"]), ("matador", []),
                        ("echanges", [])):
        assert main(["play", "--rule", rule, "--players", "3", "--seed", "1", *extra]) == 0
        logs[(rule, bool(extra) and rule == "vingt")] = capsys.readouterr().out
    for log in logs.values():
        assert "winner(s)" not in log and "target None" not in log and "marker(s)" not in log and "returns:" not in log
        assert re.search(r"^winners: (none|\d+(, \d+)*);", log, re.M), log[-300:]
        assert not re.search(r"winners: \[", log)
    assert ", one round (players" in logs[("vingt", False)] and ", rounds to 30 points (players" in logs[("vingt", True)]
    assert "payoff per seat (a win shared between the winners): 0.5, 0, 0.5" in logs[("matador", False)]
    assert "payoff per seat (1: the team won, -1: it lost): -1, -1, -1" in logs[("echanges", False)]
    assert re.search(r"end of deal 1: placed all tiles; winners: \d", logs[("defi", False)])
    assert re.search(r"\b1 marker;", logs[("vingt", False)])


def test_replay_captions_of_flat_games_say_winners_and_markers_in_words():
    from magdomino.faces.replay_flat import _caption

    assert _caption({"rule": "vingt", "winners": [0, 2], "scores": [1, 2]}, {"type": "end"}) == "end: winners: 0, 2; scores [1, 2]"
    placed = {"type": "place", "tiles": [[0, 0, 1, 2]], "dir": "x", "total": 20, "markers": [[0, 1]], "player": 0}
    assert _caption({"rule": "vingt"}, placed).endswith(": 20, 1 marker")
    assert _caption({"rule": "matador", "winners": []},
                    {"type": "end", "reason": "blocked", "deal": 0, "winners": [], "scores": [0], "totals": [0]}) \
        == "end of deal 1 (blocked): winners: none; scores [0], totals [0]"


def test_a_tile_already_placed_is_named_as_the_placement_language_names_it():
    import pytest

    import magdomino as md

    with pytest.raises(md.InputError, match=r"tile: 3-6 is already in the structure \(#1\); each tile exists once"):
        md.Construction(["6-6 at (0, 0) mm", "6-3 on #0 half 1"]).rank("3-6", trials=2, engine="statics", progress=False)


def test_a_one_tile_construction_is_one_tile():
    import magdomino as md

    one = md.Construction(["6-6 at (0, 0) mm"], preset="standard")
    assert repr(one).splitlines()[0] == "Construction 'construction': 1 tile, preset standard, magnets on"
    result = one.simulate(engine="statics")
    assert result._title == "construction: 1 tile, engine statics" and result.to_rows()[0]["placement"] == "1 tile"


def test_the_report_counts_its_documents_in_words(tmp_path, capsys):
    from conftest import ROOT

    from magdomino.faces.cli import main

    doc = tmp_path / "odds.json"
    assert main(["odds", str(ROOT / "scenarios" / "cantilever.toml"), "--trials", "2", "--engine", "statics", "--json", str(doc)]) == 0
    assert main(["report", str(doc), "--out", str(tmp_path / "r.html"), "--no-renders"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / 'r.html'} (1 document, " in out
    page = (tmp_path / "r.html").read_text()
    assert '<p class="facts">1 document, drawn by' in page
    import json
    import re

    for r in json.loads(doc.read_text())["results"]:  # p(collapse) to three decimals, as the command line prints it
        assert re.search(rf'<td class="num">{r["p_collapse"]:.3f}</td><td>\[', page)
