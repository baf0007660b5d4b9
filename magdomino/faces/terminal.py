"""A person at the terminal: the seats named ``human`` in ``magdomino play --seats``.

:func:`play_at_terminal` drives a :class:`~magdomino.games.session.GameSession`: before each
turn of a human seat it prints the table (the moves so far as the log prints them, less what
a person at the table does not see: the others' hands, the tiles they draw; for the tower
rules the current construction and its top view with levels marked, folded to the
terminal's width; En quinconce: the mode the seat owes; for the other games the chain, the
ends and the boxes, or the board of 20 sur 20), the seat's hand and the legal moves,
numbered, grouped by tile when there are many, a page at a time when they do not fit the
terminal (with ``--hints`` the statics' risk and its class on the project's one risk scale,
:mod:`magdomino.studies.risk_scale`, beside each move the physics can judge: on top of a
tile or slid beneath one). The person answers with a number, a move as printed (the
placement language for the tower rules, the log's words for the others; the start of a
single move is enough), ``draw`` / ``pass`` where the rules allow, ``board``, ``moves``,
``log``, ``help`` (``help placements``: the placement language), or ``quit``. A move that is
not legal, or an answer that is not understood, gets one line saying why, and the question
again. ``quit``, the end of the input or Ctrl-C saves the record so far (``--json``'s path,
else a file named after the game; with ``session.hints`` when the risks were shown) and says
where; ``magdomino play --resume FILE`` goes on from there with the game's own options.

It reads ``stdin`` and writes ``stdout`` (both can be given, for tests and scripts); on a
terminal its lines wrap at word boundaries to the terminal's width.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import textwrap
from pathlib import Path

from magdomino.errors import InputError
from magdomino.games.move_texts import fits_text, matching_moves
from magdomino.games.vingt.moves import cell
from magdomino.studies.risk_scale import seat_risk_class
from magdomino.wording import probability, tile_text, winners

GROUP_OVER = 12
"""More legal moves than this are listed grouped by tile."""
FOLD_WIDTH = 80
"""The width a top view folds to when the output is not a terminal (a file, a pipe)."""
HELP = """answer with:
  a number          the move listed with that number
  a move as printed (the start of one move is enough, even cut inside a word; the tile's pips in brackets may be left out)
  draw / pass       when the list offers it
  board             the table again: the construction and its top view, the stock, the scores
  moves             the legal moves again, from the top (Enter: the next page of a long list)
  log               every move so far
  help placements   what "on #2 half 1", "across left", "beneath", "after" mean
  help              this text
  quit              save the game so far and stop (Ctrl-C too; magdomino play --resume FILE goes on from there)"""
PLACEMENTS_HELP = """the placement language (the tower rules' moves; the docs' rules pages show it step by step):
  #0, #1, #2 ...
      the construction's tiles, numbered in the order they were placed (the board lists them)
  3-1 on #2 half 1
      3-1 on top of tile #2, its first half (the 3, which must match) over #2's half 1, parallel to #2, pointing outward
  (2-6)
      the lower tile's pips, as printed: may be left out when you type a move
  half 0, half 1
      a tile's two halves: half 0 is the one its text writes first (#2 (2-6): the 2)
  across left, across right
      turned a quarter turn: lying across the lower tile, to the left or right of its half 0 -> half 1 axis
  back
      pointing back, over the lower tile's other half
  3-1 beneath #1 half 1
      slid along the table under tile #1's half 1, which lies on a tile at level 1 (En quinconce, flat)
  3-1 after #4 half 0
      end to end on the table, touching tile #4's half 0 (the traditional game; En quinconce, flat)
  6-6 at (12, 0) mm
      the construction's first tile: its centre on the table, x and y in millimetres
  top view 6@2
      a square's top pips and its level: pips 6 on a tile at level 2 (level 0: on the table)"""
OWED = {"tower": "on top of a tile (en hauteur)", "flat": "flat on the table: end to end, or slid beneath a level-1 tile (à plat)"}
"""En quinconce's two modes, as the seat that owes one reads it."""
_TILE = re.compile(r"^(\d+-\d+)\b")


def saved_name(session) -> str:
    """The file a quit game is saved to when ``--json`` names none."""
    return f"magdomino-{session.rule}-seed{session.seed}.json"


class Screen:
    """Where the seat writes: each line wrapped at word boundaries to ``width`` columns
    (None: as it is), and a long list shown a page of ``height - 3`` lines at a time (None:
    all at once)."""

    def __init__(self, out, width: int | None = None, height: int | None = None):
        self.out, self.width, self.height = out, width, height

    @classmethod
    def of(cls, out, size: tuple | None = None) -> Screen:
        """The screen of ``out``: ``size`` (columns, lines) when given, else the terminal's
        when ``out`` is one, else no wrapping and no pages."""
        if size is None and getattr(out, "isatty", lambda: False)():
            size = tuple(shutil.get_terminal_size())
        return cls(out, *(size or (None, None)))

    def wrapped(self, line: str) -> list[str]:
        """``line`` wrapped to the width, continuation lines indented under its text; a word
        wider than the screen (a long path) is kept whole, for the terminal to fold, so that it
        can be copied."""
        if self.width is None or len(line) <= self.width:
            return [line]
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        return textwrap.wrap(line, self.width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False) or [""]

    def say(self, text: str = "") -> None:
        for line in str(text).split("\n"):
            for part in self.wrapped(line):
                print(part, file=self.out, flush=True)

    def ask(self, prompt: str) -> None:
        print(prompt, end="", file=self.out, flush=True)

    def pages(self, lines: list[str]) -> list[list[str]]:
        """``lines`` (wrapped) in pages that leave room for the prompt and the more line."""
        lines = [part for line in lines for part in self.wrapped(line)]
        if self.height is None or len(lines) <= self.height - 2:
            return [lines]
        size = max(self.height - 3, 4)
        return [lines[k:k + size] for k in range(0, len(lines), size)]


def play_at_terminal(session, *, assessor=None, save_to: str | None = None, stdin=None, stdout=None,
                     size: tuple | None = None) -> dict:
    """Play ``session``'s human seats from ``stdin`` (default the process's) until the game
    is over or the person quits; returns the record (with ``"session"``; ``over`` false when
    they quit, and then it is saved to ``save_to`` or :func:`saved_name`). Ctrl-C saves the
    same way, says where, and goes on as an interruption (the command's status 130).

    ``assessor``: an adjudicator with ``assess`` whose risks are shown beside each move the
    physics can judge (the tower rules; ``--hints``). ``size``: (columns, lines) of the
    screen (default the terminal's when ``stdout`` is one)."""
    seat = Seat(session, assessor, save_to, sys.stdin if stdin is None else stdin,
                Screen.of(sys.stdout if stdout is None else stdout, size))
    try:
        return seat.play()
    except KeyboardInterrupt:
        seat.screen.say()
        seat.screen.say("interrupted:")
        seat.save()
        raise


class Seat:
    """The human seats of one game at one screen (:func:`play_at_terminal`)."""

    def __init__(self, session, assessor, save_to, stdin, screen: Screen):
        self.session, self.assessor, self.save_to, self.stdin, self.screen = session, assessor, save_to, stdin, screen
        self.echo = not getattr(stdin, "isatty", lambda: False)()  # answers read from a file or a pipe: shown, so the transcript reads

    def play(self) -> dict:
        session, say = self.session, self.screen.say
        mine = ", ".join(str(s) for s in session.mine)
        say(f"{session.rule}, {session.players} players, seed {session.seed}: seats {', '.join(session.seats)}; "
            f"you play seat{'s' if len(session.mine) > 1 else ''} {mine}. Type help for help.")
        for line in shown(session, session.events):
            say(line)
        while not session.over:
            happened = self.turn()
            if happened is None:
                return self.save()
            for line in shown(session, happened.events):
                say(line)
        say(result_line(session))
        return _record(session, self.assessor is not None)

    def board(self) -> None:
        """The table, the seat's hand and, En quinconce, the mode it owes."""
        session, say = self.session, self.screen.say
        for line in table(session, self.screen.width or FOLD_WIDTH):
            say(line)
        seat = session.turn
        if session.rule == "quinconce":
            say(f"seat {seat} owes a placement {OWED[session.state.mode(seat)]}")
        say(f"seat {seat}, your hand: {' '.join(tile_text(t) for t in session.hand) or '(empty)'}")

    def turn(self):
        """One answered turn of a human seat: what the move did (None: the person quits)."""
        session, screen = self.session, self.screen
        screen.say()
        self.board()
        texts = session.legal()
        pages = screen.pages(numbered(texts, self.risks()))
        page = self.show(pages, 0)
        while True:
            screen.ask(f"seat {session.turn}> ")
            answer = self.stdin.readline()
            if not answer:  # the end of the input: as quit
                screen.say()
                return None
            answer = answer.strip()
            if self.echo:
                screen.say(answer)
            word = " ".join(answer.lower().split())
            if word in ("quit", "exit", "q"):
                return None
            if word in ("", "more", "moves", "board", "log", "help", "?", "h", "help placements"):
                page = self.command(word, pages, page)
                continue
            move = int(answer) - 1 if answer.isdigit() else answer
            if isinstance(move, int) and not 0 <= move < len(texts):
                screen.say(f"no move numbered {answer}: answer 1 to {len(texts)}, a move as printed, help or quit")
                continue
            try:
                return session.play(move)
            except InputError:
                why = _why(session, answer, texts)
                screen.say(f"not a legal move: {answer!r}{why}; answer 1 to {len(texts)}, a move as printed, help or quit")

    def command(self, word: str, pages: list, page: int) -> int:
        """Answer a command that is not a move; returns the page of moves shown last."""
        say = self.screen.say
        if word in ("", "more"):
            return self.show(pages, page + 1) if page + 1 < len(pages) else page
        if word == "moves":
            return self.show(pages, 0)
        if word == "board":
            self.board()
        elif word == "log":
            for line in shown(self.session, self.session.events):
                say(line)
        elif word == "help placements":
            say(PLACEMENTS_HELP)
        else:
            say(HELP)
        return page

    def show(self, pages: list, page: int) -> int:
        for line in pages[page]:
            print(line, file=self.screen.out, flush=True)  # wrapped already
        left = sum(len(p) for p in pages[page + 1:])
        if left:
            self.screen.say(f"-- {left} more lines of moves: Enter shows them; moves lists them again --")
        return page

    def risks(self) -> list | None:
        """``--hints``: each legal move's risk where the physics can judge one (a placement on
        top of a tile, or slid beneath one), else None."""
        if self.assessor is None:
            return None
        risks = self.session.risks(self.assessor)
        if risks is None:
            return None
        return [r if judged(a) else None for r, a in zip(risks, self.session.actions())]

    def save(self) -> dict:
        return _quit(self.session, self.save_to, self.screen.say, self.assessor is not None)


def judged(action) -> bool:
    """Whether the physics can judge a tower rule's move: a placement on top of a tile, or
    slid beneath one (a tile laid flat on the table, end to end, cannot fall)."""
    return getattr(action, "kind", None) == "place" and (action.mode == "tower" or action.motion == "slide")


def shown(session, events) -> list[str]:
    """``events`` as the log prints them, but what a person at the table does not see kept
    hidden: the other seats' hands at a deal, the tile another seat draws (Le jeu des
    échanges shows every tile: all of it is shown)."""
    if session.rule == "echanges":
        return [line for ev in events for line in session.event_lines(ev)]
    mine = set(session.mine)
    lines = []
    for ev in events:
        kind, seat = ev["type"], ev.get("player")
        if kind == "deal":
            deal = ev.get("deal", ev.get("round", 0)) + 1
            lines.append(f"deal {deal}: seat {seat} starts")
            hands = ev.get("hands") or ev.get("racks") or []
            lines.extend(f"  your hand (seat {s}): {' '.join(tile_text(t) for t in hands[s])}" for s in sorted(mine) if s < len(hands))
        elif kind == "draw" and seat not in mine and "tile" in ev:
            lines.append(f"  P{seat} draws a tile")
        else:
            lines.extend(session.event_lines(ev))
    return lines


def _why(session, answer: str, texts: list) -> str:
    """Why an answer is not a move, when more can be said than that: the moves it starts
    (each named), or the tile it names not in the hand or not placeable so."""
    fits = matching_moves(texts, answer)
    if len(fits) > 1:
        return f" (it starts {len(fits)} moves: {fits_text(texts, fits)}; say more of it)"
    m = _TILE.match(answer)
    if m:
        a, b = (int(v) for v in m.group(1).split("-"))
        if (min(a, b), max(a, b)) not in session.hand:
            return f" (you have no {m.group(1)})"
        return f" ({m.group(1)} cannot go there)"
    return ""


def saved_hints(record: dict) -> bool:
    """Whether a game saved at the terminal showed the risks beside the moves (``--hints``):
    a resumed game shows them again."""
    saved = record.get("session")
    return isinstance(saved, dict) and saved.get("hints") is True


def _record(session, hints: bool) -> dict:
    """The session's record, with ``session.hints`` when the risks were shown."""
    record = session.record
    if hints and isinstance(record.get("session"), dict):
        record["session"]["hints"] = True
    return record


def _quit(session, save_to, say, hints: bool) -> dict:
    path = Path(save_to if save_to not in (None, "-") else saved_name(session))
    record = _record(session, hints)
    try:
        path.write_text(json.dumps(record, indent=1) + "\n")
    except OSError as exc:
        raise InputError("command line", "--json", f"cannot write {path}: {exc.strerror}") from None
    say(f"saved the game so far to {path} (magdomino play --resume {path} goes on from there)")
    return record


def result_line(session) -> str:
    """The game's result in one line."""
    return f"game over: {winners(session.winners)}; scores: {session.scores}"


def numbered(texts: list, risks=None) -> list[str]:
    """The legal moves numbered from 1, grouped by tile when there are more than
    :data:`GROUP_OVER` (with each one's risk and its class on the risk scale where ``risks``
    gives one)."""
    def item(k: int) -> str:
        risk = "" if risks is None or risks[k] is None else f"   risk {probability(risks[k])} {seat_risk_class(risks[k])}"
        return f"{k + 1:>4}. {texts[k]}{risk}"

    if len(texts) <= GROUP_OVER:
        return ["legal moves:"] + [item(k) for k in range(len(texts))]
    groups: dict = {}
    for k, t in enumerate(texts):
        m = _TILE.match(t)
        groups.setdefault(m.group(1) if m else "", []).append(k)
    lines = [f"legal moves ({len(texts)}, by tile):"]
    for tile, ks in groups.items():
        lines.append(f"  {tile or 'other'}:")
        lines.extend("  " + item(k) for k in ks)
    return lines


def table(session, width: int = FOLD_WIDTH) -> list[str]:
    """What lies on the table, in text: the tower rules' construction and top view (folded
    to ``width`` columns), the chain games' chain, ends and boxes, the 20 sur 20 board; the
    stock and the scores."""
    lines = VIEWS[session.family.name](session, width)
    others = ", ".join(f"seat {s}: {len(session.hand_of(s))}" for s in range(session.players))
    lines.append(f"stock {session.stock}; tiles in hand: {others}; scores {session.scores}")
    return lines


def tower_view(session, width: int = FOLD_WIDTH) -> list[str]:
    """The current construction, one placement a line, and its top view: each column's top
    square as its pips and its level (``6@2``: pips 6 at level 2), folded into bands of
    columns when wider than ``width``."""
    built = session.placements()
    if not built:
        return ["construction: empty"]
    lines = ["construction:"] + [f"  #{i} {text}" for i, text in enumerate(built)]
    grid = session.state.construction_grid()
    xmin, xmax, ymin, ymax = grid.bounds()
    columns = xmax - xmin + 1
    band = max(1, (width - 2) // 4)  # a square is 4 columns wide, after 2 of indent
    for first in range(xmin, xmax + 1, band):
        last = min(first + band - 1, xmax)
        part = "" if columns <= band else f", columns {first - xmin + 1}-{last - xmin + 1} of {columns}"
        lines.append(f"top view (pips@level; x to the right, y up{part}):")
        for y in range(ymax, ymin - 1, -1):
            row = []
            for x in range(first, last + 1):
                level = grid.top.get((x, y))
                row.append("  . " if level is None else f"{grid.cells[(x, y, level)][1]:>2}@{level}")
            lines.append(("  " + "".join(row)).rstrip())
    return lines


def chain_view(session) -> list[str]:
    """The chain left to right (``a|b``: a tile laid across), its ends, and the game's own:
    Le Matador's target; Le jeu des échanges' tiles face up and its SUN and RAIN boxes."""
    s = session.state
    chain = " ".join(tile_text(e["halves"], e["crossed"]) for e in s.table)
    lines = [f"table: {chain or '(empty)'}"]
    if s.ends:
        ends = ["crossed matador (a blank goes there)" if kind == "cross" else str(v) for v, kind in s.ends]
        lines.append(f"ends: left {ends[0]}, right {ends[1]}")
    if session.rule == "matador":
        lines.append(f"target: the touching halves add up to {s.game.sum}")
    else:
        lines.append("tiles face up: " + ", ".join(f"seat {k}: {' '.join(tile_text(t) for t in h)}" for k, h in enumerate(s.hands)))
        lines.append(f"SUN {len(s.sun)}, RAIN {len(s.rain)}")
    return lines


def vingt_view(session) -> list[str]:
    """The 20 sur 20 board: each cell's pips, markers as the seat's letter (A = seat 0)."""
    s = session.state
    if not s.occ:
        return ["board: empty", f"markers left: {s.markers_left}"]
    cells = {cell(k): v for k, v in s.occ.items()}
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    lines = ["board (pips; markers: A = seat 0, B = seat 1, ...):"]
    if max(xs) - min(xs) > 30 or max(ys) - min(ys) > 30:
        lines.append(f"  (left out: {max(xs) - min(xs) + 1} x {max(ys) - min(ys) + 1} cells)")
    else:
        lines.append("     " + "".join(f"{x:>3}" for x in range(min(xs), max(xs) + 1)))
        for y in range(max(ys), min(ys) - 1, -1):
            row = []
            for x in range(min(xs), max(xs) + 1):
                v = cells.get((x, y))
                row.append("  ." if v is None else f"{v:>3}" if v >= 0 else f"  {chr(ord('A') - 1 - v)}")
            lines.append(f"{y:>4} " + "".join(row))
    lines.append(f"markers left: {s.markers_left}")
    return lines


VIEWS = {
    "tower": tower_view,
    "chain": lambda session, width: chain_view(session),
    "vingt": lambda session, width: vingt_view(session),
}
"""The table's text view by game family (:mod:`magdomino.games.family`): ``view(session, width)``."""
