"""Moves as the games' logs print them, and what a move did: :func:`move_texts`,
:func:`find_move` (with :func:`matching_moves`), :class:`Happened` (for :class:`~magdomino.games.session.GameSession`).

The texts: the placement language for the tower rules (as a record's ``placement``), the
log's words for the others (Le Matador ``"3-4 line right"``, ``"6-1 cross left"``; Le jeu
des échanges ``"2-5 left"``, ``"swap"``, ``"exchange with seat 2"``; 20 sur 20 ``"3-9 8-0
along x at (0, 0)"``), and ``"draw"``, ``"pass"``, ``"stop"``.
"""

from __future__ import annotations

import re

from magdomino.checks import is_whole
from magdomino.errors import ARGUMENTS, InputError
from magdomino.wording import tile_text

_SIDE = {0: "left", 1: "right", "centre": "centre"}
_PIPS = re.compile(r"\(\d+-\d+\)")


def _normal(text: str) -> str:
    text = " ".join(str(text).lower().replace(",", " , ").split()).replace(" , ", ", ")
    for prefix in ("places ", "place "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text.rstrip(". ")


def index_of(legal, action) -> int | None:
    """Where ``action`` is in ``legal``: the very object first, else an equal one (None: not
    there)."""
    for k, a in enumerate(legal):
        if a is action:
            return k
    for k, a in enumerate(legal):
        if a == action:
            return k
    return None


def matching_moves(texts: list, move: str) -> list[int]:
    """The indices in ``texts`` that the text ``move`` names (case and spacing free, the
    tile's pips in brackets optional): the one text it is, else the texts it starts at a
    word's end (``"4-6 on #2 half 1"`` starts ``"4-6 on #2 (2-6) half 1, across right"``),
    else the texts it starts inside a word (``"..., across r"``). One index: the move; several:
    the moves it fits; none: no move."""
    want = _normal(move)
    if not want:
        return []
    full = [_normal(t) for t in texts]
    bare = [_bare(t) for t in full]
    for candidates, wanted in ((full, want), (bare, _bare(want))):
        hits = [k for k, t in enumerate(candidates) if t == wanted]
        if len(hits) == 1:
            return hits
    for whole_word in (True, False):
        starts = [k for k in range(len(texts)) if any(
            t.startswith(w) and (not whole_word or len(t) == len(w) or t[len(w)] in " ,")
            for t, w in ((full[k], want), (bare[k], _bare(want))))]
        if starts:
            return starts
    return []


def _bare(text: str) -> str:
    """A normal text without the pips in brackets."""
    return " ".join(_PIPS.sub("", text).split()).replace(" ,", ",")


def fits_text(texts: list, fits: list, shown: int = 4) -> str:
    """The moves ``fits`` (indices in ``texts``) in one line: the first ``shown``, then how many more."""
    listed = "; ".join(texts[k] for k in fits[:shown])
    return listed + (f"; and {len(fits) - shown} more" if len(fits) > shown else "")


def find_move(legal, texts: list, move) -> int:
    """The index in ``legal`` (whose texts are ``texts``) of ``move``: an index, one of the
    actions, or a text naming one move (:func:`matching_moves`). InputError otherwise: a
    text that fits several moves names them."""
    n = len(legal)
    if is_whole(move):
        if not 0 <= move < n:
            raise InputError(ARGUMENTS, "move", f"a move number 0..{n - 1} (legal()), got {move}")
        return int(move)
    if not isinstance(move, str):
        k = index_of(legal, move)
        if k is not None:
            return k
        raise InputError(ARGUMENTS, "move", f"a legal move (text, index or action), got {move!r}"[:200])
    fits = matching_moves(texts, move)
    if len(fits) == 1:
        return fits[0]
    if fits:
        raise InputError(ARGUMENTS, "move", f"one legal move, got {move[:80]!r}, which starts {len(fits)} of them: "
                         f"{fits_text(texts, fits)} (say more of it)")
    raise InputError(ARGUMENTS, "move", f"one of the {n} legal moves (legal()), got {move!r}"[:200])


def move_texts(family, state, legal) -> list[str]:
    """The legal actions ``legal`` of ``state`` as text (:mod:`magdomino.games.session`):
    the log's words (``family.text``), made longer (then numbered) where two would read alike."""
    texts = [family.text(state, a) for a in legal]
    if len(set(texts)) < len(texts):
        seen: dict = {}
        for t in texts:
            seen[t] = seen.get(t, 0) + 1
        texts = [family.text(state, a, long=True) if seen[t] > 1 else t for t, a in zip(texts, legal)]
        count: dict = {}
        for k, t in enumerate(texts):  # still alike: numbered
            if texts.count(t) > 1:
                count[t] = count.get(t, 0) + 1
                texts[k] = f"{t} [{count[t]}]"
    return texts


def tower_move_text(state, action, long: bool = False) -> str:
    """A tower game's action as text: the placement language (``long``: with its grid pose), draw, pass."""
    if action.kind != "place":
        return action.kind
    text = state._words(action, len(state.placed))
    return f"{text} [{action}]" if long else text


def vingt_move_text(state, action, long: bool = False) -> str:
    """A 20 sur 20 action as text: its tiles, their axis and where (``long``: every tile's cell)."""
    kind = action[0]
    if kind != "place":
        return kind
    d, placed = action[1], action[2]
    if long:
        return " ".join(f"{tile_text((p, q))} at ({x}, {y})" for x, y, p, q in placed) + f" along {'xy'[d]}"
    return " ".join(tile_text((p, q)) for _, _, p, q in placed) + f" along {'xy'[d]} at {tuple(placed[0][:2])}"


def chain_move_text(state, action, long: bool = False) -> str:
    """A chain game's action as text: Le Matador's start, line and cross; the exchange game's place and exchange."""
    kind = action[0]
    if state.game.rule == "matador":
        if kind == "start":
            return f"{tile_text(action[1])} start"
        if kind in ("line", "cross"):
            text = f"{tile_text(action[2])} {kind} {_SIDE[action[1]]}"
            return text + (f" showing {action[3]}" if kind == "cross" and len(action) > 3 else "")
        return kind
    if kind == "place":
        return f"{tile_text(state.hands[state.current][0])} {_SIDE[action[1]]}"
    if kind == "exchange":
        return f"exchange with seat {action[1]}"
    return kind


class Happened:
    """What one :meth:`~magdomino.games.session.GameSession.play` did: the log's events in order, each with the line
    the log prints (``lines``), and the state after them.

    Attributes
    ----------
    events : list of dict
        The record's events (``place``, ``draw``, ``pass``, ``collapse``, ``restart``,
        ``deal``, ``end``, and the game's own: ``exchange``, ``stop``...).
    lines : list of str
        The events as the game's log prints them.
    over : bool
    scores : list
        The match totals after these events (the record's ``scores``).
    winners : list of int
        The winners once the game is over, else [].
    """

    __slots__ = ("events", "lines", "over", "scores", "winners")

    def __init__(self, events: list, lines: list, over: bool, scores: list, winners: list):
        self.events, self.lines, self.over, self.scores, self.winners = events, lines, over, scores, winners

    def _of(self, *kinds: str) -> list:
        return [e for e in self.events if e["type"] in kinds]

    @property
    def placements(self) -> list:
        """The ``place`` events (tower rules: with ``placement``, and ``verdict`` under physics)."""
        return self._of("place")

    @property
    def verdicts(self) -> list:
        """The physics' verdicts of the placements (tower rules judged by physics), in order."""
        return [e["verdict"] for e in self._of("place") if "verdict" in e]

    @property
    def collapses(self) -> list:
        """The ``collapse`` events (each with the ``tiles`` the placer takes back)."""
        return self._of("collapse")

    @property
    def unplayable(self) -> list:
        """Tower rules under physics: the placements the physics could not make (no clear
        motion); the seat chose again."""
        return self._of("unplayable")

    @property
    def draws(self) -> list:
        return self._of("draw")

    @property
    def passes(self) -> list:
        return self._of("pass")

    @property
    def ends(self) -> list:
        """The ``end`` events (of a deal or a round; the match's last one when ``over``)."""
        return self._of("end")

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def __str__(self) -> str:
        return "\n".join(self.lines)

    def __repr__(self) -> str:
        return f"<Happened: {len(self.events)} events{', over' if self.over else ''}>"
