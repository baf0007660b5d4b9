"""A position in a Magnetic Domino match: :class:`State`, shared by the three tower rules (the
rules' choices are listed in :mod:`magdomino.games.core`; each rule's legality is its
:class:`~magdomino.games.core.Rule` object in :mod:`magdomino.games.tower.rules`).

The state's fields are listed once (:data:`_FIELDS`): its slots, :meth:`State.clone` and its
JSON copy derive from that list.
"""

from __future__ import annotations

import json
from bisect import insort
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from magdomino.errors import InputError
from magdomino.games.actions import DEAL, DRAW, PASS, Action, Deal
from magdomino.games.core import (
    ABANDONED,
    CHANCE,
    STATE_FORMAT,
    TERMINAL,
    Game,
    IllegalActionError,
    TurnState,
)
from magdomino.games.tower.grid import Grid
from magdomino.maths import geometry as geo
from magdomino.maths.geometry import DIRS, SLIDE_START_MM
from magdomino.model.tiles import ALL_TILES, TILE_INDEX, Tile
from magdomino.physics.adjudicator import ConstructionInfo, PlacedTile, PlacementView
from magdomino.studies.placement_language import free_text
from magdomino.wording import tile_text

_START_RANK = {t: ((1, t[0], 0) if t[0] == t[1] else (0, t[0] + t[1], t[1])) for t in ALL_TILES}
"""Who starts a construction: the highest double, else the highest pip total (ties: the higher top half)."""


def _tile_list(tiles) -> list:
    return [[a, b] for a, b in tiles]


def _same(v):
    return v


def _tiles(v):
    return [(a, b) for a, b in v]


class _Field(NamedTuple):
    """One field of a State: its attribute, its JSON key, how it is copied and stored, and the
    JSON value a copy without the key holds (None: the key is required)."""

    attr: str
    key: str
    copy: Callable = _same
    to_json: Callable = _same
    from_json: Callable = _same
    missing: object = None


def _result(r: dict) -> dict:
    return {"deal": r["deal"], "winners": list(r["winners"]), "scores": list(r["scores"]), "reason": r["reason"]}


def _optional(fn: Callable) -> Callable:
    return lambda v: None if v is None else fn(v)


_FIELDS = (
    _Field("deal_no", "deal"),
    _Field("results", "results", lambda v: [_result(r) for r in v], lambda v: [dict(r) for r in v], lambda v: [_result(r) for r in v]),
    _Field("hands", "hands", lambda v: [list(h) for h in v], lambda v: [_tile_list(h) for h in v], lambda v: [_tiles(h) for h in v]),
    _Field("stock", "stock", list, _tile_list, _tiles),
    _Field("placed", "construction", list, lambda v: [a.to_json() for a in v], lambda v: [Action.from_json(a) for a in v]),
    _Field("ends", "ends", _optional(list), _optional(list), _optional(list)),
    _Field("current", "current"),
    _Field("passes", "passes"),
    _Field("owed", "owed", list, list, list),
    _Field("forced", "forced", _same, _optional(lambda a: a.to_json()), _optional(Action.from_json)),
    _Field("placements", "placements"),
    _Field("constructions", "constructions"),
    _Field("collapses", "collapses"),
    _Field("unplayable", "unplayable", list, lambda v: [a.to_json() for a in v], lambda v: [Action.from_json(a) for a in v], []),
)
"""The state's fields in one place: slots, :meth:`State.clone` and the JSON copy derive
from it (besides the game, the random stream, the grid rebuilt from the placements, the
cached legal actions and the optional event log)."""



def placement_text(placed, grid: Grid | None, action: Action, number: int, tile_size) -> str:
    """``action`` in the placement language, as construction number ``number`` on ``placed``
    (the actions of the construction so far; ``grid``, their grid, for the tiles a tile on top
    also rests on): on, beneath or after its parent, or at its pose when it has none (mm,
    degrees).

    The parent's half is named as the parent's own text numbers it: a tile's half 0 is the half
    its text writes first, so for a double placed on a tile, the half that meets that tile (the
    grid may number it half 1, :func:`~magdomino.games.tower.grid.canonical`).
    """
    from magdomino.games.tower.candidates import matching_half, placement_words, relation_of  # noqa: PLC0415 - on use: the candidates bring the studies' aiming, physics and presets (~0.9 s); only a record's text needs them

    pose = geo.GridPose(action.x, action.y, action.level, action.d)
    if action.parent is None or action.parent >= number:
        centre, yaw = geo.physical_pose(pose, tile_size)
        where = [centre[0] * 1000, centre[1] * 1000] + ([centre[2] * 1000] if action.level else [])
        return free_text(action.tile, np.round(where, 3) + 0.0, round(float(np.degrees(yaw)), 3) + 0.0)
    below = placed[action.parent]
    ppose = geo.GridPose(below.x, below.y, below.level, below.d)
    kind = _kind(action.level, below.level)
    half, matched, direction = relation_of(pose, action.tile, ppose, below.tile, kind)
    if below.tile[0] == below.tile[1] and below.parent is not None and below.parent < action.parent:
        grand = placed[below.parent]
        gpose = geo.GridPose(grand.x, grand.y, grand.level, grand.d)
        if matching_half(ppose, below.tile, gpose, grand.tile, _kind(below.level, grand.level)) == 1:
            # the text's half 0 -> half 1 axis is the grid's reversed: left and right swap too
            half = 1 - half
            direction = {"across, left": "across, right", "across, right": "across, left"}.get(direction, direction)
    supports = grid.supports(pose) if kind == "on top" and grid is not None else ()
    slide_mm = None if action.slide is None else tuple(-v * SLIDE_START_MM for v in DIRS[action.slide])  # the grid's frame is the world's
    return placement_words(action.tile, pose, action.parent, below.tile, kind, supports, as_shown=True,
                           slide=action.slide, slide_mm=slide_mm, relation=(half, matched, direction))


def _kind(level: int, parent_level: int) -> str:
    """How a tile at ``level`` meets its parent at ``parent_level``."""
    return "on top" if level > parent_level else ("beneath" if level < parent_level else "end to end")


class State(TurnState):
    """A position in a match. See the module docstring for the API and the rules' choices.

    Useful attributes (read-only for callers): ``hands`` (sorted lists of tiles per seat),
    ``stock`` (face down; the last is drawn next), ``placed`` (the current construction's
    placement actions, by construction number), ``deal_no`` (0-based), ``results`` (one
    dict per finished deal: winners, scores, reason: ``"domino"``, ``"blocked"`` or
    ``"abandoned"``, the runaway guard's end, with no winners and every score 0: not
    scored), ``owed`` (quinconce modes per seat),
    ``unplayable`` (the placements the current seat tried this turn that the physics found
    impossible to make: not offered again until the next move),
    ``log`` (set it to a list to receive the game-record events).
    """

    __slots__ = ("game", "rng", "grid", "_legal", "log", *(f.attr for f in _FIELDS))

    def __init__(self, game: Game):
        self.game = game
        n = game.players
        self.rng = np.random.default_rng(game.seed)
        self.deal_no = -1
        self.results: list[dict] = []
        self.hands: list[list[Tile]] = [[] for _ in range(n)]
        self.stock: list[Tile] = []
        self.placed: list[Action] = []
        self.grid: Grid | None = None
        self.ends: list | None = None
        self.current = CHANCE
        self.passes = 0
        self.owed = ["flat"] * n
        self.forced: Action | None = None
        self.placements = 0
        self.constructions = 0
        self.collapses = 0
        self.unplayable: list[Action] = []
        self._legal = None
        self.log: list | None = None

    @classmethod
    def _blank(cls, game):
        """A position with only its game set, for a copy to fill in (``clone``, ``from_json``)."""
        s = cls.__new__(cls)
        s.game = game
        return s

    # -- OpenSpiel-like queries ---------------------------------------------------------------

    def mode(self, player: int | None = None) -> str:
        """The mode the player must place in: always "flat" (traditional), "tower" (Défi)."""
        return self.game.rulebook.mode(self, self.current if player is None else player)

    def _compute_legal(self) -> tuple:
        cur = self.current
        if cur == TERMINAL:
            return ()
        if cur == CHANCE:
            return (DEAL,)
        if self.forced is not None:
            return (self.forced,)
        out = self.game.rulebook.legal(self, self.hands[cur], self.mode(cur))
        if self.unplayable:  # tried this turn and found impossible by the physics: not moves
            out = [a for a in out if a not in self.unplayable]
        if out:
            return tuple(out)
        return (DRAW,) if self.stock else (PASS,)

    # -- applying actions -------------------------------------------------------------------

    def apply_action(self, action) -> None:
        """Apply a legal action (IllegalActionError otherwise)."""
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
        for a in legal:
            if a is action:
                break
        else:
            if self.current == CHANCE and isinstance(action, Deal):
                pass  # a scripted deal
            elif action not in legal:
                raise IllegalActionError(f"{action} is not legal here; legal: {[str(a) for a in legal]}")
            else:
                action = legal[legal.index(action)]
        self._legal = None
        kind = action.kind
        tried, self.unplayable = self.unplayable, []
        if kind == "place":
            self._place(self.current, action, tried)
        elif kind == "draw":
            cur = self.current
            t = self.stock.pop()
            insort(self.hands[cur], t)
            self.passes = 0
            if self.log is not None:
                self._event({"type": "draw", "player": cur, "tile": list(t)})
            self.current = (cur + 1) % self.game.players
        elif kind == "pass":
            cur = self.current
            self.passes += 1
            if self.log is not None:
                self._event({"type": "pass", "player": cur})
            if self.passes >= self.game.players:
                self._end_blocked()
            else:
                self.current = (cur + 1) % self.game.players
        elif kind == "deal":
            self._deal(action)
        else:  # pragma: no cover - guarded by the legality check
            raise IllegalActionError(str(action))

    def _deal(self, action: Deal) -> None:
        g = self.game
        n, k = g.players, g.hand_size
        if action.tiles is None:
            colour = g.colour
            several = len(set(g.colours)) > 1  # a one-colour palette cannot satisfy the rule
            while True:
                order = self.rng.permutation(28)
                tiles = [ALL_TILES[i] for i in order]
                hands = [tiles[i * k : (i + 1) * k] for i in range(n)]
                if not several or all(len({colour[t] for t in h}) > 1 for h in hands):
                    break
        else:
            tiles = list(action.tiles)
            if sorted(tiles) != list(ALL_TILES):
                raise InputError("deal", "tiles", "each of the 28 tiles exactly once (hands, then stock)")
            hands = [tiles[i * k : (i + 1) * k] for i in range(n)]
        self.deal_no += 1
        self.hands = [sorted(h) for h in hands]
        self.stock = tiles[n * k :][::-1]
        self.placed = []
        self.grid = Grid() if g.rulebook.uses_grid else None
        self.ends = None
        self.passes = 0
        self.placements = 0
        self.constructions = 0
        self.owed = ["flat"] * n
        self._start_construction("deal")

    def _start_construction(self, cause: str) -> None:
        g = self.game
        best = None
        for seat, hand in enumerate(self.hands):
            for t in hand:
                r = _START_RANK[t]
                if best is None or r > best[0]:
                    best = (r, seat, t)
        _, seat, t = best
        self.forced = Action("place", t, 0, 0, 0, 0, "flat", "drop", None, None, True)
        self.current = seat
        self.constructions += 1
        if not g.trivial:
            g.adjudicator.start(ConstructionInfo(self.deal_no, cause, g.tile_size))
        if self.log is not None:
            if cause == "deal":
                self._event(
                    {"type": "deal", "player": seat, "deal": self.deal_no, "hands": [_tile_list(h) for h in self.hands]}
                )
            else:
                self._event({"type": "restart", "player": seat, "tile": list(t)})

    def _place(self, cur: int, action: Action, tried: list) -> None:
        g = self.game
        hand = self.hands[cur]
        hand.remove(action.tile)
        self.placements += 1
        number = len(self.placed)
        outcome = None
        collapsed = False
        if not g.trivial:
            view = self._view(cur, action, number)
            outcome = g.adjudicator.place(view, action)
            if outcome.unplayable:
                self._refuse(cur, action, number, outcome, tried)
                return
            collapsed = bool(outcome.collapsed) and outcome.error is None and number > 0 and g.rulebook.can_collapse
        self.placed.append(action)
        g.rulebook.placed(self, cur, action, number)
        self.passes = 0
        self.forced = None
        if self.log is not None:
            ev = {"type": "place", "player": cur, "tile": list(action.tile), "mode": action.mode}
            ev["motion"] = action.motion
            if action.slide is not None:
                ev["slide"] = geo.DIR_NAMES[action.slide]
            ev["pose"] = [action.x, action.y, action.level, action.d]
            ev["parent"] = action.parent
            ev["placement"] = self._words(action, number)
            if action.start:
                ev["start" if self.constructions == 1 else "restart"] = True
            if outcome is not None:
                if outcome.verdict is not None:
                    ev["verdict"] = outcome.verdict
                if outcome.error is not None:
                    ev["error"] = outcome.error
                if outcome.collapsed and not collapsed:
                    ev["collapse_ignored"] = True
            self._event(ev)
        if collapsed:
            taken = [p.tile for p in self.placed]
            hand.extend(taken)
            hand.sort()
            self.placed = []
            self.grid = Grid()
            self.collapses += 1
            if self.log is not None:
                self._event({"type": "collapse", "player": cur, "tiles": _tile_list(taken)})
            if g.max_placements is not None and self.placements >= g.max_placements:
                self._end_deal([], ABANDONED, cur)
                return
            g.rulebook.restart(self)
            self._start_construction("collapse")
            return
        if not hand:
            self._end_deal([cur], "domino")
        elif g.max_placements is not None and self.placements >= g.max_placements:
            self._end_deal([], ABANDONED, cur)
        else:
            self.current = (cur + 1) % g.players

    def _refuse(self, cur: int, action: Action, number: int, outcome, tried: list) -> None:
        """A placement the physics cannot make: not a move. The tile goes back to the hand, the
        placement is not counted, the seat chooses again without it (:attr:`unplayable`)."""
        insort(self.hands[cur], action.tile)
        self.placements -= 1
        self.unplayable = [*tried, action]
        if self.log is not None:
            self._event({"type": "unplayable", "player": cur, "tile": list(action.tile),
                         "placement": self._words(action, number), "error": outcome.error})

    def _words(self, action: Action, number: int) -> str:
        """The placement in the placement language (before it joins the construction)."""
        return placement_text(self.placed, self.grid, action, number, self.game.tile_size)

    def _value(self, hand) -> int:
        return len(hand) if self.game.kids else sum(a + b for a, b in hand)

    def _end_blocked(self, reason: str = "blocked") -> None:
        values = [self._value(h) for h in self.hands]
        low = min(values)
        self._end_deal([s for s, v in enumerate(values) if v == low], reason)

    def _end_deal(self, winners: list[int], reason: str, player: int | None = None) -> None:
        """End the deal. An abandoned deal (the runaway guard) has no winners and scores 0
        for every seat: it is not scored; ``player`` (who placed last) names its end event."""
        g = self.game
        if reason == ABANDONED:
            scores = [0] * g.players
        else:
            scores = [0 if s in winners else self._value(h) for s, h in enumerate(self.hands)]
        self.results.append({"deal": self.deal_no, "winners": winners, "scores": scores, "reason": reason})
        self.forced = None
        self.current = CHANCE if self.deal_no + 1 < g.deals else TERMINAL
        if self.log is not None:
            ev = {"type": "end", "player": winners[0] if winners else player, "deal": self.deal_no, "reason": reason}
            if reason == ABANDONED:
                ev["abandoned"] = True
                ev["max_placements"] = g.max_placements
            ev["winners"] = list(winners)
            ev["scores"] = scores
            ev["totals"] = self.scores()
            self._event(ev)

    def _event(self, ev: dict) -> None:
        ev["deal"] = self.deal_no
        ev["hand_sizes"] = [len(h) for h in self.hands]
        ev["stock_size"] = len(self.stock)
        ev["construction_size"] = len(self.placed)
        self.log.append(ev)

    # -- the adjudicator's view ---------------------------------------------------------------

    def construction_grid(self) -> Grid:
        """The grid of the current construction (built on demand for the traditional rule)."""
        if self.grid is None:
            grid = Grid()
            for a in self.placed:
                grid.add(a.grid, a.tile, a.parent)
            if self.game.rulebook.uses_grid:
                self.grid = grid
            return grid
        return self.grid

    def placed_tiles(self) -> tuple[PlacedTile, ...]:
        return tuple(
            PlacedTile(i, a.tile, TILE_INDEX[a.tile], a.grid, a.parent, a.mode, a.motion) for i, a in enumerate(self.placed)
        )

    def placement_view(self, action: Action) -> PlacementView:
        """The adjudicator's view of place ``action`` by the current player, as
        :meth:`apply_action` would build it, without applying it (for players that ask the
        adjudicator to assess candidates)."""
        return self._view(self.current, action, len(self.placed), self.placements + 1)

    def _view(self, cur: int, action: Action, number: int, placements: int | None = None) -> PlacementView:
        g = self.game
        grid = self.construction_grid()
        pose = action.grid
        centre, yaw = geo.physical_pose(pose, g.tile_size)
        construction = self.placed_tiles()
        parent = None if action.parent is None else construction[action.parent]
        rel = None
        if parent is not None:
            off, ryaw = geo.relative_pose(pose, parent.grid, g.tile_size)
            rel = (tuple(float(v) for v in off), ryaw)
        return PlacementView(
            number=self.placements if placements is None else placements,
            deal=self.deal_no,
            player=cur,
            tile=action.tile,
            tile_index=TILE_INDEX[action.tile],
            grid=pose,
            pose=(tuple(float(v) for v in centre), yaw),
            mode=action.mode,
            motion=action.motion,
            slide=action.slide,
            slide_vector=None if action.slide is None else DIRS[action.slide],
            parent=parent,
            relative_pose=rel,
            supports=tuple(grid.supports(pose)),
            construction=construction,
            first=number == 0,
            tile_size=g.tile_size,
            rule=g.rule,
        )

    # -- outcome ----------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Match totals so far (finished deals), per seat; lower is better."""
        tot = [0] * self.game.players
        for r in self.results:
            for s, v in enumerate(r["scores"]):
                tot[s] += v
        return tot

    def abandoned(self) -> int:
        """How many finished deals were abandoned (the runaway guard; not scored)."""
        return sum(1 for r in self.results if r["reason"] == ABANDONED)

    def winners(self) -> list[int]:
        """Winning seats once the match is over (else []); none when every deal was
        abandoned (a one-deal match: the deal's winners, none if it was abandoned)."""
        if self.current != TERMINAL:
            return []
        if self.game.deals == 1:
            return list(self.results[0]["winners"])
        if self.abandoned() == len(self.results):
            return []
        tot = self.scores()
        low = min(tot)
        return [s for s, v in enumerate(tot) if v == low]

    def returns(self) -> list[float]:
        """Each winner ``1/len(winners)``, the others 0 (all 0 with no winners: abandoned)."""
        w = self.winners()
        return [1.0 / len(w) if s in w else 0.0 for s in range(self.game.players)]

    # -- copies -------------------------------------------------------------------------------

    def clone(self) -> State:
        s = State._blank(self.game)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        s.rng = rng
        for f in _FIELDS:
            setattr(s, f.attr, f.copy(getattr(self, f.attr)))
        s.grid = None if self.grid is None else self.grid.copy()
        s._legal = self._legal
        s.log = None
        return s

    def to_json(self) -> dict:
        """A JSON-ready dict; :meth:`from_json` restores the exact state (RNG included)."""
        doc = {"format": STATE_FORMAT, "game": self.game.to_json()}
        doc.update((f.key, f.to_json(getattr(self, f.attr))) for f in _FIELDS)
        doc["rng"] = self.rng.bit_generator.state
        return doc

    @staticmethod
    def from_json(data, game: Game | None = None) -> State:
        """Restore a state from :meth:`to_json` output (a dict or a JSON string).

        ``game`` supplies the adjudicator object (a JSON copy only knows its name; without a
        game the state gets the ``none`` adjudicator).
        """
        if isinstance(data, str):
            data = json.loads(data)
        if data.get("format") != STATE_FORMAT:
            raise InputError("state", "format", f"{STATE_FORMAT!r}, got {data.get('format')!r}")
        if game is None:
            game = Game.from_json(data["game"])
        s = State._blank(game)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = data["rng"]
        s.rng = rng
        for f in _FIELDS:
            setattr(s, f.attr, f.from_json(data[f.key] if f.missing is None or f.key in data else f.missing))
        s.grid = None
        if game.rulebook.uses_grid and s.deal_no >= 0:
            s.grid = Grid()
            for a in s.placed:
                s.grid.add(a.grid, a.tile, a.parent)
        s._legal = None
        s.log = None
        return s

    # -- display ------------------------------------------------------------------------------

    def __str__(self) -> str:
        g = self.game
        lines = [
            f"{g!r}: deal {self.deal_no + 1}/{g.deals}, placements {self.placements}, "
            f"collapses {self.collapses}, stock {len(self.stock)}"
        ]
        if self.placed:
            lines.append("construction (#number tile mode (x,y,Llevel)direction [on #parent]):")
            for i, a in enumerate(self.placed):
                lines.append(f"  #{i} {a}")
            lines.extend("  " + row for row in self._top_view())
        for s, h in enumerate(self.hands):
            mark = "*" if s == self.current else " "
            tiles = " ".join(tile_text(t) for t in h)
            lines.append(f"{mark}seat {s}: [{tiles}] ({self._value(h)} {'tiles' if g.kids else 'pips'})")
        if self.current == CHANCE:
            lines.append("to play: chance (deal)")
        elif self.current == TERMINAL:
            ab = self.abandoned()
            lines.append(
                f"over: winners {self.winners()}, scores {self.scores()}"
                + (f" ({ab} deal(s) abandoned by the runaway guard, not scored)" if ab else "")
            )
        else:
            lines.append(f"to play: seat {self.current} ({self.mode()})")
        return "\n".join(lines)

    def _top_view(self, limit: int = 40) -> list[str]:
        """Top view: the pips of each column's top square, with its level as a superscript-ish
        suffix-free letter row below (levels 0-9)."""
        grid = self.construction_grid()
        if not grid.top:
            return []
        xmin, xmax, ymin, ymax = grid.bounds()
        if xmax - xmin > limit or ymax - ymin > limit:
            return [f"(top view omitted: {xmax - xmin + 1} x {ymax - ymin + 1} squares)"]
        rows = ["top view (pips@level):"]
        for y in range(ymax, ymin - 1, -1):
            cells = []
            for x in range(xmin, xmax + 1):
                lev = grid.top.get((x, y))
                cells.append("  . " if lev is None else f" {grid.cells[(x, y, lev)][1]}@{lev}")
            rows.append("".join(cells))
        return rows

    def __repr__(self) -> str:
        return f"<State {self.game!r} deal={self.deal_no} current={self.current} placements={self.placements}>"
