"""Le jeu des échanges (``echanges``): a cooperative chain game with SUN and RAIN boxes.

The rules of ``docs/rules/index.md`` ("Le jeu des échanges"), point by point:

- **Set and players**: the double-six set, 3–6 players. Every player's one tile lies face
  up (``hands[s]`` holds it); only the stock is hidden. ``sun`` and ``rain`` are the boxes.
- **Setup**: the deal gives each player one tile (seat order, from the top of the shuffled
  set). The highest pip total starts (ties: the higher half; two tiles never tie on both)
  and places it alone in the centre.
- **A turn** of player P, next player N (seat P + 1):

  1. P's tile fits an end of the chain (matching halves, as in the traditional rule; any
     tile fits the empty table): P places it, ``("place", end)`` (end 0 left, 1 right, or
     ``"centre"`` for the first tile). Otherwise ``("swap",)``: a chance node draws the
     top tile of the stock into P's hand and P's old tile goes to the bottom of the stock;
     if the new tile fits, P places it and goes on; if not, P's turn ends.
  2. After a placement, the compulsory **exchange** ``("exchange", X)``: X is neither P nor
     N; N's tile and X's tile change hands. It is judged on N's position on the chain as
     it now stands: N could place before the exchange → nothing; N could not before and
     can after → a tile from the stock onto SUN (a chance draw); N cannot place after →
     one tile from SUN to RAIN (SUN empty: one from the stock onto RAIN, a chance draw).
  3. P draws a tile from the stock (a chance draw) to show again; then N plays.

- **End**: as soon as the stock is empty. The team wins if SUN holds more tiles than RAIN;
  ``returns()`` is +1 for everyone, else −1 for everyone.

Choices made where the leaflet is silent (what players at a table would expect):

- "N could place before" takes precedence: an exchange that leaves N unable to place
  although N could before is "useless because N did not need it" (nothing), not RAIN; the
  text's RAIN case is a player who "stays blocked despite the exchange".
- A tile that fits both ends may go at either: two actions. The first tile lies with its
  low half on the left.
- **Blocked**: when no tile outside the chain (hands and stock) fits either end, nobody can
  ever place again and the stock would only turn round: the game ends there, judged the
  same way (SUN against RAIN).
- A stock tile moved to SUN or RAIN is drawn from the top, face down, like any draw.

Players (:mod:`magdomino.games.chain.players`): ``random``; ``greedy`` (the exchange with the best immediate
outcome: SUN, then nothing, then RAIN; the first placement); ``planner`` (each placement
and exchange is scored by its immediate outcome, then by whether the next player, in turn,
will have an exchange that lets their own next player place: one more turn ahead, so
SUN stays ahead of RAIN; the hidden stock and the tile P will draw are never looked at).
"""

from __future__ import annotations

from magdomino.games.actions import TUPLE_SWAP as SWAP
from magdomino.games.chain.core import TERMINAL, ChainGame, ChainState

CENTRE = "centre"


def fits(tile, ends) -> list[int]:
    """The ends (0 left, 1 right) where ``tile`` fits; ``[CENTRE]`` on the empty table."""
    if not ends:
        return [CENTRE]
    return [k for k, (v, _) in enumerate(ends) if v in tile]


class EchangesGame(ChainGame):
    """Le jeu des échanges' settings (module docstring): only ``set`` 6, no variant."""

    rule = "echanges"

    def player_range(self) -> tuple[int, int]:
        return 3, 6


class EchangesState(ChainState):
    """A position in Le jeu des échanges (module docstring)."""

    FIELDS = {**ChainState.BASE_FIELDS, "sun": 1, "rain": 1, "turn": None, "phase": None, "outcome": None}
    __slots__ = ("sun", "rain", "turn", "phase", "outcome")
    FORMAT = "magdomino.echanges/1"

    def _init_fields(self) -> None:
        self.sun, self.rain, self.turn, self.phase, self.outcome = [], [], None, "play", None

    def _hand_size(self) -> int:
        return 1

    def all_tiles(self) -> list:
        return super().all_tiles() + list(self.sun) + list(self.rain)

    def _start_deal(self) -> None:
        first = max(range(self.game.players), key=lambda s: (sum(self.hands[s][0]), max(self.hands[s][0]), -s))
        self.current, self.due, self.turn, self.phase = first, None, first, "play"
        self.event({"type": "deal", "player": first, "deal": 0, "hands": [[list(t) for t in h] for h in self.hands]})

    # -- legality ------------------------------------------------------------------------

    def _player_actions(self) -> list:
        p = self.current
        if self.phase == "exchange":
            nxt = self.next_seat(p)
            return [("exchange", x) for x in range(self.game.players) if x not in (p, nxt)]
        where = fits(self.hands[p][0], self.ends)
        if where:
            return [("place", k) for k in where]
        return [SWAP] if self.phase == "play" else []

    def can_place(self, seat: int) -> bool:
        return bool(self.hands[seat]) and bool(fits(self.hands[seat][0], self.ends))

    # -- consequences ----------------------------------------------------------------------

    def _apply(self, p: int, action) -> None:
        if action[0] == "place":
            self._place(p, action[1])
        elif action[0] == "swap":
            self.draw_for("swap")
        else:
            self._exchange(p, action[1])

    def _place(self, p: int, end) -> None:
        t = self.hands[p][0]
        if end == CENTRE:
            self.lay(p, t, "start", t)
            self.ends = [[t[0], "open"], [t[1], "open"]]
        else:
            v = self.ends[end][0]
            other = t[1] if t[0] == v else t[0]
            self.lay(p, t, ("left", "right")[end], (other, v) if end == 0 else (v, other))
            self.ends[end] = [other, "open"]
        self.phase = "exchange"
        self.event({"type": "place", "player": p, "tile": list(t), "end": end})

    def _exchange(self, p: int, x: int) -> None:
        n = self.next_seat(p)
        before = self.can_place(n)
        self.hands[n], self.hands[x] = self.hands[x], self.hands[n]
        after = self.can_place(n)
        outcome = "nothing" if before else ("sun" if after else "rain")
        self.event({"type": "exchange", "player": p, "with": x, "next": n, "outcome": outcome})
        self.phase = "draw"
        if outcome == "sun":
            self.draw_for("sun")
        elif outcome == "rain" and self.sun:
            self.rain.append(self.sun.pop())
            self.draw_for("hand")
        elif outcome == "rain":
            self.draw_for("rain")
        else:
            self.draw_for("hand")

    def _drawn(self, due: str, tile) -> None:
        p = self.turn
        self.event({"type": "draw", "player": p, "tile": list(tile), "to": due})
        if due == "swap":
            old = self.hands[p][0]
            self.hands[p] = [tile]
            self.stock.append(old)
            self.current, self.due = p, None
            self.phase = "swapped"
            if not self.can_place(p):
                self._next_turn(p)
            return
        if due == "sun":
            self.sun.append(tile)
        elif due == "rain":
            self.rain.append(tile)
        else:
            self.hands[p] = [tile]
        if not self.stock:
            self._end("stock empty")
        elif due == "hand":
            self._next_turn(p)
        else:
            self.draw_for("hand")

    def _next_turn(self, p: int) -> None:
        self.current, self.due, self.phase = self.next_seat(p), None, "play"
        self.turn = self.current
        if self.blocked():
            self._end("blocked")

    def blocked(self) -> bool:
        """No tile outside the chain fits either end: nobody can ever place again."""
        if not self.ends:
            return False
        values = {v for v, _ in self.ends}
        return not any(values & set(t) for t in [*(t for h in self.hands for t in h), *self.stock])

    def _end(self, reason: str) -> None:
        self.outcome = reason
        self.current, self.due = TERMINAL, None
        won = len(self.sun) > len(self.rain)
        self.results.append({"deal": 0, "reason": reason, "sun": len(self.sun), "rain": len(self.rain), "won": won})
        self.event({"type": "end", "player": None, "reason": reason, "sun": len(self.sun), "rain": len(self.rain), "won": won})

    def won(self) -> bool:
        return len(self.sun) > len(self.rain)

    def winners(self) -> list[int]:
        return list(range(self.game.players)) if self.current == TERMINAL and self.won() else []

    def returns(self) -> list[float]:
        if self.current != TERMINAL:
            return [0.0] * self.game.players
        return [1.0 if self.won() else -1.0] * self.game.players

    def final(self) -> dict:
        """The record's ``final``: ``hands``, ``stock``, ``table``, ``ends``, ``sun``, ``rain``."""
        return {"hands": [[list(t) for t in h] for h in self.hands], "stock": [list(t) for t in self.stock],
                "table": [dict(e) for e in self.table], "ends": [list(e) for e in self.ends],
                "sun": [list(t) for t in self.sun], "rain": [list(t) for t in self.rain]}


EchangesGame.STATE = EchangesState


def ends_after(ends, tile, end) -> list:
    """The chain's ends once ``tile`` is placed at ``end`` (as :meth:`EchangesState._place`)."""
    if end == CENTRE:
        return [[tile[0], "open"], [tile[1], "open"]]
    out = [list(e) for e in ends]
    v = out[end][0]
    out[end][0] = tile[1] if tile[0] == v else tile[0]
    return out


def judge(ends, before_tile, after_tile) -> int:
    """An exchange's outcome for the team: +1 SUN, 0 nothing, -1 RAIN (module docstring)."""
    if fits(before_tile, ends):
        return 0
    return 1 if fits(after_tile, ends) else -1
