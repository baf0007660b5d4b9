"""A person at the terminal: the seats named ``human`` in ``magdomino play --seats``.

:func:`play_at_terminal` drives a :class:`~magdomino.games.session.GameSession`: before each
turn of a human seat it prints the table (the moves so far as the log prints them, less what
a person at the table does not see: the others' hands, the tiles they draw; for
the tower rules the current construction and a small top view with levels marked; for
the other games the chain, the ends and the boxes, or the board of 20 sur 20), the seat's
hand and the legal moves, numbered, grouped by tile when there are many (with the statics'
risk beside each with ``--hints``). The person answers with a number, a move as printed
(the placement language for the tower rules, the log's words for the others; the start
of a single move is enough), ``draw`` / ``pass`` where the rules allow, ``help``, or
``quit``. A move that is not legal, or an answer that is not understood, gets one line
saying why, and the question again. ``quit`` or the end of the input saves the record so
far (``--json``'s path, else a file named after the game) and ends with status 0;
``magdomino play --resume FILE`` goes on from there.

It reads ``stdin`` and writes ``stdout`` (both can be given, for tests and scripts).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from magdomino.errors import InputError
from magdomino.games.move_texts import fits_text, matching_moves
from magdomino.games.vingt.moves import cell
from magdomino.wording import probability, winners

GROUP_OVER = 12
"""More legal moves than this are listed grouped by tile."""
HELP = """answer with:
  a number          the move listed with that number
  a move as printed (the start of a single move is enough; the tile's pips in brackets may be left out)
  draw / pass       when the list offers it
  help              this text
  log               every move so far
  quit              save the game so far and stop (magdomino play --resume FILE goes on from there)"""
_TILE = re.compile(r"^(\d+-\d+)\b")


def _tile(t) -> str:
    return f"{t[0]}-{t[1]}"


def saved_name(session) -> str:
    """The file a quit game is saved to when ``--json`` names none."""
    return f"magdomino-{session.rule}-seed{session.seed}.json"


def play_at_terminal(session, *, assessor=None, save_to: str | None = None, stdin=None, stdout=None) -> dict:
    """Play ``session``'s human seats from ``stdin`` (default the process's) until the game
    is over or the person quits; returns the record (with ``"session"``; ``over`` false when
    they quit, and then it is saved to ``save_to`` or :func:`saved_name`).

    ``assessor``: an adjudicator with ``assess`` whose risks are shown beside each move (the
    tower rules; ``--hints``)."""
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if stdout is None else stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    echo = not getattr(stdin, "isatty", lambda: False)()  # answers read from a file or a pipe: shown, so the transcript reads
    mine = ", ".join(str(s) for s in session.mine)
    say(f"{session.rule}, {session.players} players, seed {session.seed}: seats {', '.join(session.seats)}; "
        f"you play seat{'s' if len(session.mine) > 1 else ''} {mine}. Type help for help.")
    for line in shown(session, session.events):
        say(line)
    while not session.over:
        seat = session.turn
        say()
        for line in table(session):
            say(line)
        say(f"seat {seat}, your hand: {' '.join(_tile(t) for t in session.hand) or '(empty)'}")
        texts = session.legal()
        risks = session.risks(assessor) if assessor is not None else None
        for line in numbered(texts, risks):
            say(line)
        while True:
            print(f"seat {seat}> ", end="", file=out, flush=True)
            answer = stdin.readline()
            if not answer:  # the end of the input: as quit
                say()
                return _quit(session, save_to, say, assessor is not None)
            answer = answer.strip()
            if echo:
                say(answer)
            word = answer.lower()
            if word in ("quit", "exit", "q"):
                return _quit(session, save_to, say, assessor is not None)
            if word in ("help", "?", "h"):
                say(HELP)
                continue
            if word == "log":
                for line in shown(session, session.events):
                    say(line)
                continue
            if not answer:
                continue
            move = int(answer) - 1 if answer.isdigit() else answer
            if isinstance(move, int) and not 0 <= move < len(texts):
                say(f"no move numbered {answer}: answer 1 to {len(texts)}, a move as printed, help or quit")
                continue
            try:
                happened = session.play(move)
            except InputError:
                why = _why(session, answer, texts)
                say(f"not a legal move: {answer!r}{why}; answer 1 to {len(texts)}, a move as printed, help or quit")
                continue
            break
        for line in shown(session, happened.events):
            say(line)
    say(result_line(session))
    return _record(session, assessor is not None)


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
            lines.extend(f"  your hand (seat {s}): {' '.join(_tile(t) for t in hands[s])}" for s in sorted(mine) if s < len(hands))
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
    :data:`GROUP_OVER` (with each one's risk when ``risks`` is given)."""
    def item(k: int) -> str:
        risk = "" if risks is None or risks[k] is None else f"   risk {probability(risks[k])}"
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


def table(session) -> list[str]:
    """What lies on the table, in text: the tower rules' construction and top view, the
    chain games' chain, ends and boxes, the 20 sur 20 board; the stock and the scores."""
    family = session.family
    if family == "tower":
        lines = tower_view(session)
    elif family == "chain":
        lines = chain_view(session)
    else:
        lines = vingt_view(session)
    others = ", ".join(f"seat {s}: {len(session.hand_of(s))}" for s in range(session.players))
    lines.append(f"stock {session.stock}; tiles in hand: {others}; scores {session.scores}")
    return lines


def tower_view(session) -> list[str]:
    """The current construction, one placement a line, and its top view: each column's top
    square as its pips and its level (``6@2``: pips 6 at level 2)."""
    built = session.placements()
    if not built:
        return ["construction: empty"]
    lines = ["construction:"] + [f"  #{i} {text}" for i, text in enumerate(built)]
    grid = session.state.construction_grid()
    xmin, xmax, ymin, ymax = grid.bounds()
    if xmax - xmin > 24 or ymax - ymin > 24:
        return lines + [f"(top view left out: {xmax - xmin + 1} x {ymax - ymin + 1} squares)"]
    lines.append("top view (pips@level; x to the right, y up):")
    for y in range(ymax, ymin - 1, -1):
        row = []
        for x in range(xmin, xmax + 1):
            level = grid.top.get((x, y))
            row.append("  . " if level is None else f"{grid.cells[(x, y, level)][1]:>2}@{level}")
        lines.append("  " + "".join(row))
    return lines


def chain_view(session) -> list[str]:
    """The chain left to right (``a|b``: a tile laid across), its ends, and the game's own:
    Le Matador's target; Le jeu des échanges' tiles face up and its SUN and RAIN boxes."""
    s = session.state
    chain = " ".join(f"{a}|{b}" if e["crossed"] else f"{a}-{b}" for e in s.table for a, b in [e["halves"]])
    lines = [f"table: {chain or '(empty)'}"]
    if s.ends:
        ends = ["crossed matador (a blank goes there)" if kind == "cross" else str(v) for v, kind in s.ends]
        lines.append(f"ends: left {ends[0]}, right {ends[1]}")
    if session.rule == "matador":
        lines.append(f"target: the touching halves add up to {s.game.sum}")
    else:
        lines.append("tiles face up: " + ", ".join(f"seat {k}: {' '.join(_tile(t) for t in h)}" for k, h in enumerate(s.hands)))
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
