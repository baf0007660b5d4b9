"""The seat in a real pseudo-terminal of 80 x 24 (pexpect): no line wider than the terminal,
a long move list shown a page at a time, ``board`` printing the table again, Ctrl-C saving
the game where it says; the terminal how-to's screens at 80 x 24 and 160 x 50 are what such
terminals show."""

import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

COLUMNS, LINES = 80, 24


def _spawn(args: list, cwd) -> object:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # the terminal's own size
    return pexpect.spawn(sys.executable, ["-m", "magdomino", *args], cwd=str(cwd), env=env, encoding="utf-8",
                         dimensions=(LINES, COLUMNS), timeout=60)


def test_the_seat_at_80_by_24_pages_reprints_the_board_and_saves_on_ctrl_c(tmp_path):
    path = tmp_path / "game.json"
    # Défi, seed 2 against greedy, no physics: the second turn lists 18 moves by tile, 23 lines
    child = _spawn(["play", "--rule", "defi", "--seats", "human,greedy", "--physics", "none", "--seed", "2",
                    "--json", "game.json"], tmp_path)
    try:
        child.expect_exact("seat 0> ")
        child.sendline("1")
        child.expect_exact("more lines of moves: Enter shows them")
        first_page = child.before
        child.expect_exact("seat 0> ")
        child.sendline("")
        child.expect_exact("seat 0> ")
        rest = child.before
        child.sendline("board")
        child.expect_exact("seat 0> ")
        board = child.before
        child.sendintr()
        child.expect(pexpect.EOF)
        end = child.before
    finally:
        child.close(force=True)
    numbers = [int(n) for n in re.findall(r"^\s*(\d+)\. ", first_page + rest, flags=re.M)]
    shown_first = [int(n) for n in re.findall(r"^\s*(\d+)\. ", first_page, flags=re.M)]
    assert numbers == list(range(1, 19)) and 0 < len(shown_first) < 18  # every move, the first page only some
    assert len(first_page.split("legal moves")[1].splitlines()) <= LINES
    assert "construction:" in board and "top view" in board and "your hand:" in board
    assert "saved the game so far to game.json (magdomino play --resume game.json goes on" in end.replace("\r\n    ", " ")
    transcript = first_page + rest + board + end
    assert max(len(line) for line in transcript.splitlines()) <= COLUMNS
    assert child.exitstatus == 130
    saved = json.loads(path.read_text())
    assert saved["session"]["over"] is False and len([e for e in saved["events"] if e.get("player") == 0
                                                      and e["type"] == "place"]) == 1


PAGE = Path(__file__).resolve().parents[2] / "docs" / "howto" / "terminal.md"
COMMAND = re.search(r"\(`magdomino (play [^`]*)`\)", " ".join(PAGE.read_text(encoding="utf-8").split())).group(1)
SCREENS = re.findall(r"<!-- screen (\d+)x(\d+), answers: (.*?) -->\n```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def screen_at(columns: int, lines: int, answers: list, cwd) -> str:
    """What a terminal of ``columns`` x ``lines`` shows at the prompt after ``answers``
    (Enter: an empty one): the last ``lines`` lines the seat wrote, as it writes whole lines
    no wider than the terminal."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    log = io.StringIO()
    child = pexpect.spawn(sys.executable, ["-m", "magdomino", *COMMAND.split()], cwd=str(cwd), env=env, encoding="utf-8",
                          dimensions=(lines, columns), timeout=60)
    child.logfile_read = log
    try:
        child.expect_exact("seat 0> ")
        for answer in answers:
            child.sendline("" if answer == "Enter" else answer)
            child.expect_exact("seat 0> ")
        shown = log.getvalue().replace("\r\n", "\n").split("\n")[-lines:]
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return "\n".join(line.rstrip() for line in shown)


def test_the_terminal_pages_screens_are_what_a_terminal_of_their_size_shows(tmp_path):
    assert [(c, n) for c, n, _, _ in SCREENS] == [("80", "24"), ("160", "50")]
    for columns, lines, answers, page in SCREENS:
        shown = screen_at(int(columns), int(lines), [a.strip() for a in answers.split(",")], tmp_path)
        assert shown == page.rstrip("\n"), f"the {columns}x{lines} screen of docs/howto/terminal.md is now:\n{shown}"
