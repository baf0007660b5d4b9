"""A person at the terminal (magdomino play --seats human,...): every rule played from scripted
input, with a help, two answers that are not moves, a move typed as printed; quit saves."""

import io
import json
import re

import pytest

from magdomino.faces.cli import main
from magdomino.games.session import GameSession

RULES = {
    "traditional": (["human", "greedy", "random"], []),
    "defi": (["human", "greedy"], ["--physics", "none", "--hints"]),
    "quinconce": (["random", "human", "greedy"], ["--physics", "statics", "--hints"]),
    "matador": (["human", "greedy"], []),
    "echanges": (["human", "planner", "random"], []),
    "vingt": (["greedy", "human"], []),
}


def _play(monkeypatch, capsys, argv, answers):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(a + "\n" for a in answers)))
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("rule", list(RULES))
def test_a_whole_game_at_the_terminal(rule, monkeypatch, capsys, tmp_path):
    seats, flags = RULES[rule]
    first = GameSession(rule, ["me" if s == "human" else s for s in seats], seed=2).legal()[0]
    path = tmp_path / "game.json"
    answers = ["help", "0", "nonsense", first.upper()] + ["1"] * 3000
    code, out, err = _play(monkeypatch, capsys, ["play", "--rule", rule, "--seats", ",".join(seats), "--seed", "2",
                                                 "--json", str(path), *flags], answers)
    assert code == 0, err
    assert "answer with:" in out and "no move numbered 0" in out and "not a legal move: 'nonsense'" in out
    assert "legal moves" in out and "your hand:" in out and "game over: winners" in out
    if "--hints" in flags:
        assert "risk " in out
    if rule in ("defi", "quinconce", "traditional"):
        assert "top view (pips@level" in out
    record = json.loads(path.read_text())
    assert record["session"]["over"] is True and record["player_kinds"] == seats
    assert record["events"][-1]["type"] == "end"


def test_quit_saves_and_resume_goes_on_from_the_record_alone(monkeypatch, capsys, tmp_path):
    path = tmp_path / "saved.json"
    argv = ["play", "--rule", "defi", "--seats", "human,careful", "--physics", "statics", "--seed", "4", "--hints"]
    code, out, _ = _play(monkeypatch, capsys, [*argv, "--json", str(path)], ["1", "2", "quit"])
    assert code == 0 and f"saved the game so far to {path} (magdomino play --resume {path} goes on" in out
    saved = json.loads(path.read_text())
    assert saved["session"]["over"] is False and saved["physics"] == "statics" and saved["session"]["hints"] is True
    assert len([e for e in saved["events"] if e["type"] == "place" and e["player"] == 0]) == 2
    code, out, err = _play(monkeypatch, capsys, ["play", "--resume", str(path)], ["1"] * 500)  # as the quit printed it
    assert code == 0, err
    assert "game over: winners" in out and "risk " in out  # --hints from the record
    done = json.loads(path.read_text())
    assert done["session"]["over"] is True and done["rule"] == "defi" and done["player_kinds"] == ["human", "careful"]
    moves = [(e["type"], e.get("player"), e.get("placement")) for e in saved["events"]]
    assert [(e["type"], e.get("player"), e.get("placement")) for e in done["events"][: len(moves)]] == moves


def test_a_resumed_game_of_another_rule_and_a_play_of_no_rule_are_refused(monkeypatch, capsys, tmp_path):
    path = tmp_path / "saved.json"
    code, _, _ = _play(monkeypatch, capsys, ["play", "--rule", "matador", "--seats", "human,random", "--seed", "1",
                                             "--json", str(path)], [])
    assert code == 0 and "hints" not in json.loads(path.read_text())["session"]
    assert main(["play", "--rule", "defi", "--resume", str(path)]) == 2
    assert "rule: the game of --rule defi, got 'matador'" in capsys.readouterr().err
    assert main(["play", "--players", "2"]) == 2
    err = capsys.readouterr().err
    assert "--rule: one of traditional, defi" in err and "(or --resume FILE" in err and err.count("\n") == 1


def test_the_end_of_the_input_saves_to_a_file_named_after_the_game(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, out, _ = _play(monkeypatch, capsys, ["play", "--rule", "matador", "--player", "human", "--players", "2", "--seed", "3"], ["1"])
    assert code == 0
    saved = json.loads((tmp_path / "magdomino-matador-seed3.json").read_text())
    assert saved["session"]["seats"] == ["human", "human"] and not saved["session"]["over"]


@pytest.mark.parametrize("argv, says", [
    (["play", "--rule", "defi", "--seats", "human,careful", "--player", "careful"], "--seats or --player, not both"),
    (["play", "--rule", "defi", "--players", "3", "--seats", "human,careful"], "--seats: one player kind per seat: 3"),
    (["play", "--rule", "defi", "--seats", "human,nobody"], "--seats: seat 1:"),
    (["play", "--rule", "defi", "--players", "2", "--hints", "--physics", "none"], "--hints: only with a human seat"),
    (["play", "--rule", "vingt", "--seats", "human,greedy", "--hints"], "--hints: only with --rule"),
    (["play", "--rule", "defi", "--seats", "human,careful", "--json", "-"], "--json: a file with a human seat"),
    (["play", "--rule", "defi", "--resume", "x.json", "--seed", "3"], "--seed: not with --resume"),
    (["tournament", "--rule", "defi", "--seats", "human,careful", "--deals", "2"], "'human' is a person's seat"),
    (["study", "--rule", "defi", "--seats", "human,careful", "--deals", "2", "--vary", "magnets_scale=1,1.1"],
     "'human' is a person's seat"),
])
def test_seats_are_refused_in_one_line(argv, says, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err


def test_seats_of_kinds_only_play_as_before(capsys):
    assert main(["play", "--rule", "matador", "--seats", "greedy,random", "--seed", "1"]) == 0
    by_seats = capsys.readouterr().out
    assert main(["play", "--rule", "matador", "--players", "2", "--player", "greedy", "--seed", "1"]) == 0
    assert "players greedy, random" in by_seats and capsys.readouterr().out != by_seats


def test_an_answer_that_is_not_a_move_says_why(monkeypatch, capsys, tmp_path):
    g = GameSession("defi", ["me", "greedy"], seed=1)
    missing = next(f"{a}-{b}" for a in range(7) for b in range(a, 7) if (a, b) not in g.hand)
    first = g.legal()[0]
    start = first.split(" half")[0]  # the start of two moves, halves 0 and 1
    code, out, _ = _play(monkeypatch, capsys, ["play", "--rule", "defi", "--seats", "human,greedy", "--physics", "none",
                                               "--seed", "1", "--json", str(tmp_path / "x.json")],
                         [f"{missing} on #0 half 0", start, "quit"])
    assert code == 0
    assert f"(you have no {missing})" in out
    assert "moves: " in out and "; say more of it)" in out


def test_the_terminal_keeps_the_other_hands_hidden(monkeypatch, capsys, tmp_path):
    code, out, _ = _play(monkeypatch, capsys, ["play", "--rule", "traditional", "--seats", "human,random,random",
                                               "--seed", "5", "--json", str(tmp_path / "t.json")], ["1"] * 400)
    assert code == 0
    record = json.loads((tmp_path / "t.json").read_text())
    others = [" ".join(f"{a}-{b}" for a, b in h) for h in record["events"][0]["hands"][1:]]
    shown = out.split("game over")[0]
    assert all(hand not in shown for hand in others)
    drawn = [e for e in record["events"] if e["type"] == "draw" and e["player"] != 0]
    assert all(f"P{e['player']} draws {e['tile'][0]}-{e['tile'][1]}" not in shown for e in drawn)


class _Interrupted:
    """A keyboard that answers ``answers`` and then gets Ctrl-C."""

    def __init__(self, answers):
        self.answers = list(answers)

    def readline(self):
        if not self.answers:
            raise KeyboardInterrupt
        return self.answers.pop(0) + "\n"


def test_ctrl_c_at_a_seat_saves_like_quit_and_says_where(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", _Interrupted(["1"]))
    assert main(["play", "--rule", "matador", "--seats", "human,random", "--seed", "1"]) == 130
    out = capsys.readouterr()
    assert "saved the game so far to magdomino-matador-seed1.json (magdomino play --resume" in out.out
    assert out.err == "magdomino: interrupted\n"
    saved = json.loads((tmp_path / "magdomino-matador-seed1.json").read_text())
    assert saved["session"]["over"] is False and len(saved["session"]["moves"]) >= 1


def test_board_help_placements_and_the_mode_owed(monkeypatch, capsys, tmp_path):
    code, out, _ = _play(monkeypatch, capsys, ["play", "--rule", "quinconce", "--seats", "human,greedy", "--physics", "none",
                                               "--seed", "1", "--json", str(tmp_path / "q.json")],
                         ["1", "board", "help placements", "quit"])
    assert code == 0
    assert "seat 0 owes a placement flat on the table" in out and "seat 0 owes a placement on top of a tile" in out
    after_board = out.split("seat 0> board")[1].split("seat 0> help placements")[0]
    assert "construction:" in after_board and "top view" in after_board and "your hand:" in after_board
    assert "across left, across right" in out and "beneath #1 half 1" in out


def test_a_wide_top_view_folds_to_the_width(capsys):
    from magdomino.faces.terminal import tower_view

    g = GameSession("traditional", ["me", "random"], seed=1)
    for _ in range(9):
        g.play(0)
    wide = tower_view(g, width=2000)
    folded = tower_view(g, width=40)
    squares = lambda lines: [sq for line in lines if "@" in line and ":" not in line for sq in line.split()]  # noqa: E731
    assert len([line for line in wide if line.startswith("top view")]) == 1
    assert sum(line.startswith("top view") for line in folded) > 1 and any("columns 1-9 of" in line for line in folded)
    assert squares(folded) == squares(wide)
    assert max(len(line) for line in folded if "@" in line and ":" not in line) <= 40  # the header lines wrap on screen


def test_hints_show_risks_only_where_physics_judges(monkeypatch, capsys, tmp_path):
    assert main(["play", "--rule", "traditional", "--seats", "human,random", "--hints"]) == 2
    assert "--hints: only with --rule defi or quinconce" in capsys.readouterr().err
    code, out, _ = _play(monkeypatch, capsys, ["play", "--rule", "quinconce", "--seats", "human,greedy", "--physics", "none",
                                               "--seed", "1", "--hints", "--json", str(tmp_path / "h.json")], ["1", "quit"])
    assert code == 0
    moves = [line for line in out.splitlines() if re.match(r"\s+\d+\. ", line)]
    assert all(("risk" in line) == (" on #" in line or " beneath #" in line) for line in moves)
    assert any(" on #" in line for line in moves) and any(" after #" in line for line in moves)
    assert any(re.search(r"risk \d\.\d{3} (safe|tight|unsure|falls)$", line) for line in moves)


def test_lines_wrap_at_word_boundaries_and_keep_a_long_path_whole():
    from magdomino.faces.terminal import Screen

    screen = Screen(io.StringIO(), width=30)
    line = "  P1 places 2-6 on #0 (6-6) half 1, across right, drop verdict: stands (stood)"
    parts = screen.wrapped(line)
    assert len(parts) > 1 and all(len(p) <= 30 for p in parts) and parts[1].startswith("      ")
    assert " ".join(p.strip() for p in parts) == line.strip()
    path = "/tmp/a/long/directory/of/saved/games/game.json"
    assert f"    {path}" in screen.wrapped(f"saved the game so far to {path} (resume it)")  # its own line, whole
