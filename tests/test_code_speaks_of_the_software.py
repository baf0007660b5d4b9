"""The code, tests and scripts speak of the software, never of how or when it was written.

A reader of ``magdomino/``, ``tests/``, ``scripts/`` or ``validation/`` cannot open the tracker or the work
log: a reference to a numbered issue, a numbered work session or a turn of one means nothing
to them, and a dated measurement belongs on the validation pages (``docs/validation/``),
cited from the docstring, where it is kept beside the commit it was made at. The documentation
may keep its dates; game language ("your turn", a turn of a tile) is not a tracker reference.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("magdomino", "tests", "scripts", "validation")
"""The folders whose every text file is read."""
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache", "node_modules"}

TRACKER = re.compile(r"\b(?:issue|session)s?\s*#?\s*\d+", re.I)
"""A numbered issue or work session (and so a turn of one): ``issue`` or ``session``, then a
number. A turn alone is the games' word (a seat's turn, a quarter turn), so it is not looked for."""
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
"""An ISO date: a measurement's date goes to the validation pages."""


def _text_files():
    """Every text file of :data:`SCANNED` but this one (whose examples are what the scans look for)."""
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or SKIPPED_PARTS & set(path.parts) or path == Path(__file__).resolve():
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # a binary file (an image, an archive): no prose in it
                continue


def _findings(pattern: re.Pattern) -> list[str]:
    found = []
    for path, text in _text_files():
        for number, line in enumerate(text.splitlines(), 1):
            if match := pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    return found


def test_no_code_test_or_script_names_an_issue_or_a_session_of_the_tracker():
    assert not _findings(TRACKER)


def test_no_code_test_or_script_carries_a_dated_measurement():
    assert not _findings(DATE)


def test_the_patterns_find_tracker_references_and_leave_game_language_alone():
    """The scans above cannot pass by matching nothing: these lines are what they look for."""
    for line in ("(issue 12: absurd masses)", "Issue 26, from a random game", "as in session 3", "see issue #7",
                 "session 11's screen", "Issues 12 and 26"):
        assert TRACKER.search(line), line
    for line in ("your turn 2 |game over", "return 0", "a quarter turn 90 degrees", "GameSession 2 seats",
                 "the issue is 3 mm wide", "turn 3 of the deal"):
        assert not TRACKER.search(line), line
    assert DATE.search("measured 2026-11-27 on toy") and not DATE.search("seed 2027, 20-11 tiles")
