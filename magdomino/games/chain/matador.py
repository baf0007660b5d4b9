"""Le Matador (``matador``): a chain whose touching halves add up to the target.

The rules of ``docs/rules/index.md`` ("Le Matador"), point by point:

- **Set and players**: option ``set`` N (6, 7, 8, 9; default 6); the **target** is N + 1.
  Double-six: 2–4 players; larger sets: 2–6. Hands of 7 tiles up to 3 players, 6 from 4
  (variant ``strategic``: 3). The rest is the stock.
- **Matadors**: the tiles whose halves add up to the target, and 0-0.
- **Start**: the holder of the highest double plays it (with no double in any hand, the
  highest single: higher half first, then lower half); the start tile is forced
  (``("start", tile)``), lies in line, and both its halves are open ends. Play passes to
  the left (seat + 1).
- **Ends**: ``ends[k] = [value, kind]``. Kind ``"open"``: the end shows ``value``; a tile
  goes there in line when one of its halves ``h`` has ``h + value == target``, and its
  other half is the new value. Kind ``"cross"`` (base game: the end is closed by a crossed
  matador; value None): the next tile there must touch it with a blank; its other half is
  the new value (0-0 then leaves an end showing 0).
- **Actions** (tuples): ``("start", tile)``; ``("line", end, tile, touching_half)``;
  ``("cross", end, tile)`` (base game: a matador laid across an open end, whatever it
  shows); strategic ``("cross", end, tile, shown)`` (a defence aligned on the half it
  shows, or 0-0 showing 0); :data:`DRAW` (then a chance node draws the top tile);
  :data:`PASS`. End 0 is the left end, 1 the right end.
- **A turn** (base game): a player with an ordinary play (a tile in line) must place: any
  placement, a crossed matador included. With no ordinary play: a player holding a
  matador that can be crossed may cross it or draw; otherwise they draw. One tile per
  draw, never the last two of the stock; when the stock is down to two, the matador must
  be played, and a player with nothing to place passes. After a draw the player decides
  again (as soon as something fits in line, they must place).
- **End of a deal**: "Domino!" (hand empty): the player scores the pips left in the
  others' hands. Blocked (a full round of passes): the fewest pips in hand wins and
  scores the others' pips; tied lowest players each score the pips of the players not
  tied (all tied: nobody scores).
- **Match**: option ``target`` (points, e.g. 150): deals until someone's total reaches it
  after a deal; else option ``deals`` (default 1) deals. The highest total wins, ties
  shared; ``returns()`` gives each winner ``1/len(winners)``.
- **Variant "strategic"** (the package's reading of the reader's comment): 3 tiles each; the
  stock never goes below 3; a player may draw instead of placing (bluff) while the stock
  holds more than 3; an end showing a blank is an attack: only a defence answers it, a
  tile adding up to the target laid across and aligned on the half the player chooses
  (the end then shows that half), or 0-0, which answers any end and leaves it showing a
  blank; ends are always ``"open"``; with the stock down to 3, a player who cannot place
  passes.

Choices made where the leaflet is silent (what players at a table would expect):

- A crossed matador's end takes only a blank (base game), so no matador is crossed over
  a crossed matador: "obligatoirement suivis par un blanc" wins over "wild".
- In the strategic variant a defence is laid across only at a blank end (elsewhere it
  goes in line as an ordinary tile); 0-0 may be laid across any end.
- A crossed matador is not an "ordinary play": a player whose only placement is crossing
  a matador may draw instead (the text: "n'est pas forcé de le jouer").
- Every deal of a match starts by the same rule (highest double); a match to a target
  ends after the deal in which someone reaches it.

Players: :mod:`magdomino.games.chain.players` (``random``, ``greedy``: the heaviest tile
first, never a bluff; it draws only when it must).
"""

from __future__ import annotations

from magdomino.checks import check_count
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.chain.core import CHANCE, DRAW, PASS, TERMINAL, ChainGame, ChainState, pips

SETS = (6, 7, 8, 9)
VARIANTS = ("strategic",)


def start_rank(tile) -> tuple:
    """Highest double first, then the highest single (higher half, then lower half)."""
    a, b = tile
    return (a == b, b, a)


class MatadorGame(ChainGame):
    """Le Matador's settings (module docstring): ``set``, ``variant``, ``deals``, ``target``."""

    rule = "matador"
    SETS = SETS
    VARIANTS = VARIANTS

    def player_range(self) -> tuple[int, int]:
        return (2, 4) if self.top == 6 else (2, 6)

    def _options(self, opts: dict) -> None:
        self.deals = check_count(opts.pop("deals", 1), "deals", minimum=1)
        target = opts.pop("target", None)
        if target is not None:
            target = check_count(target, "target", minimum=1)
            if self.deals != 1:
                raise InputError(ARGUMENTS, "deals", "either a number of deals or a match target, not both")
        self.match_target = target
        self.sum = self.top + 1
        self.strategic = self.variant == "strategic"
        self.hand = 3 if self.strategic else (7 if self.players <= 3 else 6)
        self.reserve = 3 if self.strategic else 2

    def option_names(self) -> list[str]:
        return ["set", "variant", "deals", "target"]

    def options(self) -> dict:
        return {"set": self.top, "variant": self.variant, "deals": self.deals, "target": self.match_target}


class MatadorState(ChainState):
    """A position in a match of Le Matador (module docstring)."""

    FIELDS = {**ChainState.BASE_FIELDS, "passes": None, "starter": None}
    __slots__ = ("passes", "starter")
    FORMAT = "magdomino.matador/1"

    def _init_fields(self) -> None:
        self.passes = 0

    def _hand_size(self) -> int:
        return self.game.hand

    def _start_deal(self) -> None:
        held = [t for h in self.hands for t in h]
        best = max(held, key=start_rank)
        self.starter = next(s for s, h in enumerate(self.hands) if best in h)
        self.current, self.due, self.passes = self.starter, None, 0
        self.event({"type": "deal", "player": self.starter, "deal": self.deal_no, "hands": [[list(t) for t in h] for h in self.hands]})

    # -- legality ------------------------------------------------------------------------

    def _player_actions(self) -> list:
        p = self.current
        if not self.table:
            return [("start", max(self.hands[p], key=start_rank))] if p == self.starter else []
        line = self.line_plays(p)
        cross = self.cross_plays(p)
        can_draw = len(self.stock) > self.game.reserve
        if self.game.strategic:
            acts = line + cross + ([DRAW] if can_draw else [])
        elif line:
            acts = line + cross
        else:
            acts = cross + ([DRAW] if can_draw else [])
        return acts or [PASS]

    def line_plays(self, p: int) -> list:
        """Tiles in line: the sum rule at an open end, a blank against a crossed matador."""
        target = self.game.sum
        hand = self.hands[p]
        (v0, k0), (v1, k1) = self.ends
        need0 = 0 if k0 == "cross" else target - v0
        need1 = 0 if k1 == "cross" else target - v1
        # a double touches the same way with either half: one action
        out = [("line", 0, t, need0) for t in hand if t[0] == need0 or t[1] == need0]
        out.extend([("line", 1, t, need1) for t in hand if t[0] == need1 or t[1] == need1])
        return out

    def cross_plays(self, p: int) -> list:
        """Matadors laid across (base game), defences and 0-0 (strategic). A matador: halves
        adding up to the target, or 0-0."""
        target = self.game.sum
        matadors = [t for t in self.hands[p] if t[0] + t[1] == target or t == (0, 0)]
        if not matadors:
            return []
        out = []
        for end, (value, kind) in enumerate(self.ends):
            for t in matadors:
                if not self.game.strategic:
                    if kind == "open":
                        out.append(("cross", end, t))
                elif t == (0, 0):
                    out.append(("cross", end, t, 0))
                elif value == 0:
                    out.extend(("cross", end, t, h) for h in sorted(set(t)))
        return out

    # -- consequences ----------------------------------------------------------------------

    def _apply(self, p: int, action) -> None:
        kind = action[0]
        if kind == "start":
            t = action[1]
            self.lay(p, t, "start", t)
            self.ends = [[t[0], "open"], [t[1], "open"]]
            self.event({"type": "place", "player": p, "tile": list(t), "how": "start", "end": None})
        elif kind == "line":
            self._line(p, *action[1:])
        elif kind == "cross":
            self._cross(p, *action[1:])
        elif kind == "draw":
            self.draw_for(p)  # the drawn tile goes to seat p
            return
        else:
            self.passes += 1
            if self.log is not None:
                self.event({"type": "pass", "player": p})
            if self.passes == self.game.players:
                self._end_deal("blocked")
            else:
                self.current = self.next_seat(p)
            return
        self.passes = 0
        if not self.hands[p]:
            self._end_deal("domino", p)
        else:
            self.current = self.next_seat(p)

    # events are built only when a log is kept: playing without one is the hot path (bench)

    def _line(self, p: int, end: int, t, touch: int) -> None:
        other = t[1] if t[0] == touch else t[0]
        halves = (other, touch) if end == 0 else (touch, other)
        self.lay(p, t, ("left", "right")[end], halves)
        self.ends[end] = [other, "open"]
        if self.log is not None:
            self.event({"type": "place", "player": p, "tile": list(t), "how": "line", "end": end, "touch": touch})

    def _cross(self, p: int, end: int, t, shown: int | None = None) -> None:
        self.lay(p, t, ("left", "right")[end], t, crossed=True, shows=shown)
        self.ends[end] = [None, "cross"] if shown is None else [shown, "open"]
        if self.log is not None:
            self.event({"type": "place", "player": p, "tile": list(t), "how": "cross", "end": end, "shows": shown})

    def _drawn(self, p: int, tile) -> None:
        self.hands[p].append(tile)
        self.hands[p].sort()
        self.current, self.due = p, None
        if self.log is not None:
            self.event({"type": "draw", "player": p, "tile": list(tile)})

    def _end_deal(self, reason: str, out: int | None = None) -> None:
        left = [pips(h) for h in self.hands]
        n = self.game.players
        if out is not None:
            winners = [out]
        else:
            low = min(left)
            winners = [s for s in range(n) if left[s] == low]
        losers_pips = sum(left[s] for s in range(n) if s not in winners)
        scores = [losers_pips if s in winners else 0 for s in range(n)]
        self.totals = [a + b for a, b in zip(self.totals, scores)]
        self.results.append({"deal": self.deal_no, "winners": winners, "scores": scores, "reason": reason})
        self.event({"type": "end", "player": None, "deal": self.deal_no, "reason": reason, "winners": winners,
                    "scores": scores, "totals": list(self.totals)})
        target = self.game.match_target
        done = max(self.totals) >= target if target is not None else len(self.results) >= self.game.deals
        if done:
            self.current, self.due = TERMINAL, None
        else:
            self.current, self.due = CHANCE, "deal"

    def winners(self) -> list[int]:
        if self.current != TERMINAL:
            return []
        best = max(self.totals)
        return [s for s, v in enumerate(self.totals) if v == best]

    def final(self) -> dict:
        """The record's ``final``: ``hands``, ``stock``, ``table``, ``ends``, ``target``, ``variant``."""
        return {"hands": [[list(t) for t in h] for h in self.hands], "stock": [list(t) for t in self.stock],
                "table": [dict(e) for e in self.table], "ends": [list(e) for e in self.ends], "target": self.game.sum,
                "variant": self.game.variant}


MatadorGame.STATE = MatadorState
