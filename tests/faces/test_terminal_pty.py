"""The seat in a real pseudo-terminal of 80 x 24 (pexpect): no line wider than the terminal,
a long move list shown a page at a time, ``board`` printing the table again, Ctrl-C saving
the game where it says."""

import json
import os
import re
import sys

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
                    "--json", str(path)], tmp_path)
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
    assert f"saved the game so far to {path}" in end.replace("\r\n    ", " ")
    transcript = first_page + rest + board + end
    assert max(len(line) for line in transcript.splitlines()) <= COLUMNS
    assert child.exitstatus == 130
    saved = json.loads(path.read_text())
    assert saved["session"]["over"] is False and len([e for e in saved["events"] if e.get("player") == 0
                                                      and e["type"] == "place"]) == 1
