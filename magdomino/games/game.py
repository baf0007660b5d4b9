"""The three Magnetic Domino rules as complete games: :class:`Game` and :class:`State`.

In the spirit of OpenSpiel: ``Game(rule, players, seed, options)`` →
``game.new_initial_state()`` → a :class:`State` that starts at a chance node (the deal).
``current_player()`` is a seat (0, 1, …), :data:`CHANCE` or :data:`TERMINAL`;
``legal_actions()`` lists the actions in :attr:`Action.sort_key` order (a single
:data:`DRAW` or :data:`PASS` when nothing can be placed; the single forced double when a
construction starts); ``apply_action`` plays one. At a chance node the only action is
:data:`DEAL`, which shuffles with the state's own ``numpy.random.Generator`` (seeded from
the game's seed, carried by the state so clones and JSON copies continue identically), or
a scripted :class:`Deal`. Drawing takes the next tile of the shuffled, face-down stock, so
every chance event comes from that one seeded stream.

Choices made where RULES.md is silent (a family at the table would expect these):

- **Who starts** a deal or a new construction: the highest double in any hand; with no
  double in any hand, the highest tile by pip total (ties: higher top half). The starting
  tile is forced and lies flat at grid square (0, 0), half 0 towards −x.
- **Traditional** chain: a straight line along x on the grid; both ends of the first tile
  are open (so with a double start a matching tile has two placements, left and right).
- **Extremities** (Défi variant, quinconce): a placement attaches to one parent, the
  lowest-numbered eligible tile it rests on / touches end to end / slides under; only that
  parent must be an extremity. Placements with the same tile and pose are one action.
- **Quinconce**: the tower mode places on top of an extremity (``parallel_only`` applies
  as in Défi); the flat mode places end to end against a table-level extremity (in line)
  or slides under an extremity lying at level 1. A collapsing placement was a placement
  (every attempt is final), so it switches the mode like any other; the restarting double
  then counts as a flat placement (3–4 players: the next tile goes on top; 2 players: the
  restarter owes "tower", the other player keeps what they owed).
- **Collapse**: the first tile of a construction never collapses; an adjudicator error is
  recorded and never counted as a collapse; the traditional rule has no collapse.
- **Scores**: per deal, winners 0 and every other player their pips (kids: tiles) in hand;
  a blocked deal's winners are those with the fewest pips (kids: tiles), ties shared.
  ``scores()`` are the match totals; ``winners()`` are the deal's winners for a one-deal
  match, else the seats with the lowest total (ties shared); ``returns()`` gives each
  winner ``1/len(winners)`` and the others 0.
- The deal after a blocked or won deal starts by the same rule (highest double).
- **Deal**: a hand of a single colour makes the whole deal be shuffled again from the same
  stream; with a one-colour palette that rule cannot hold and is skipped. A scripted
  :class:`Deal` is taken as given.
"""

from __future__ import annotations

import json
from bisect import insort

import numpy as np

from magdomino.maths import geometry as geo
from magdomino.errors import InputError
from magdomino.maths.geometry import DIRS, Grid, GridPose
from magdomino.games.actions import DEAL, DRAW, PASS, Action, Deal
from magdomino.physics.adjudicator import ConstructionInfo, PlacedTile, PlacementView, make_adjudicator
from magdomino.model.tiles import ALL_TILES, Tile, colour_of

CHANCE = -1
TERMINAL = -4
RULES = ("traditional", "defi", "quinconce")
VARIANTS = (None, "extremities")
STATE_FORMAT = "magdomino.state/1"

_TILE_INDEX = {t: i for i, t in enumerate(ALL_TILES)}
_START_RANK = {t: ((1, t[0], 0) if t[0] == t[1] else (0, t[0] + t[1], t[1])) for t in ALL_TILES}
_FLIP = {"flat": "tower", "tower": "flat"}
_COLOUR_MAPS: dict = {}
_ACTION_CACHE: dict = {}
"""Actions are immutable values, shared by every game (bounded: cleared when it grows big)."""


class IllegalActionError(ValueError):
    """An action that is not in ``legal_actions()`` was applied."""


def _default_colours():
    from magdomino.model.presets import DEFAULT_COLOURS

    return list(DEFAULT_COLOURS)


class Game:
    """One match's settings.

    Parameters
    ----------
    rule : "traditional" | "defi" | "quinconce"
    players : 2, 3 or 4
    seed : int
        Seeds the deal stream (``numpy.random.default_rng(seed)``).
    options : dict, optional (or keyword arguments)
        ``parallel_only`` (True), ``variant`` (None or ``"extremities"``, Défi only;
        quinconce always plays on extremities), ``kids`` (False: count tiles instead of
        pips), ``deals`` (1), ``adjudicator`` (None / ``"none"`` / an object with
        ``start``/``place``), ``colours`` (a preset's colour list, default
        :data:`magdomino.model.presets.DEFAULT_COLOURS`), ``tile_size`` (m; default the
        adjudicator's ``tile_size`` or the standard 48 × 24 × 8 mm), ``max_placements``
        (None: no limit; an int: a deal with that many placements, collapses included, ends
        and is scored like a blocked one, reason ``"placement limit"``; physics games need
        it, since with magnets too weak for the players' staircases a deal can collapse for
        ever).
    """

    def __init__(self, rule: str, players: int, seed: int = 0, options: dict | None = None, **kwargs):
        opts = dict(options or {})
        opts.update(kwargs)
        if rule not in RULES:
            raise InputError("command line", "rule", f"one of {', '.join(RULES)}, got {rule!r}")
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 2 <= players <= 4:
            raise InputError("command line", "players", f"2, 3 or 4 players, got {players!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InputError("command line", "seed", f"a non-negative integer, got {seed!r}")
        self.rule = rule
        self.players = int(players)
        self.seed = int(seed)
        self.parallel_only = bool(opts.pop("parallel_only", True))
        self.variant = opts.pop("variant", None)
        if self.variant not in VARIANTS:
            raise InputError("command line", "variant", f"'extremities' or nothing, got {self.variant!r}")
        if self.variant == "extremities" and rule != "defi":
            raise InputError(
                "command line",
                "variant",
                "'extremities' is a variant of the defi rule (quinconce always plays on extremities)",
            )
        self.kids = bool(opts.pop("kids", False))
        deals = opts.pop("deals", 1)
        if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
            raise InputError("command line", "deals", f"a positive number of deals, got {deals!r}")
        self.deals = int(deals)
        adj = opts.pop("adjudicator", opts.pop("physics", None))
        self.adjudicator = make_adjudicator(adj)
        colours = opts.pop("colours", None)
        self.colours = _default_colours() if colours is None else list(colours)
        if not self.colours or not all(isinstance(c, str) for c in self.colours):
            raise InputError("options", "colours", f"a non-empty list of colour names, got {colours!r}")
        size = opts.pop("tile_size", None)
        if size is None:
            size = getattr(self.adjudicator, "tile_size", None)
        if size is None:
            size = geo.STANDARD_TILE_SIZE
        self.tile_size = geo.check_tile_size(size)
        limit = opts.pop("max_placements", None)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1):
            raise InputError("command line", "max_placements", f"a positive number of placements, got {limit!r}")
        self.max_placements = None if limit is None else int(limit)
        if opts:
            raise InputError(
                "options",
                sorted(opts)[0],
                "a known option: parallel_only, variant, kids, deals, adjudicator, colours, tile_size, max_placements",
            )
        self.hand_size = 7 if self.players == 2 else 6
        self.extremities_only = rule == "quinconce" or self.variant == "extremities"
        self.per_player_modes = rule == "quinconce" and self.players == 2
        self.trivial = bool(getattr(self.adjudicator, "trivial", False))
        key = tuple(self.colours)
        colour = _COLOUR_MAPS.get(key)
        if colour is None:
            colour = _COLOUR_MAPS[key] = {t: colour_of(t, self.colours) for t in ALL_TILES}
        self.colour = colour
        self._cache = _ACTION_CACHE

    def new_initial_state(self) -> "State":
        return State(self)

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "players": self.players,
            "seed": self.seed,
            "parallel_only": self.parallel_only,
            "variant": self.variant,
            "kids": self.kids,
            "deals": self.deals,
            "colours": list(self.colours),
            "tile_size": list(self.tile_size),
            "max_placements": self.max_placements,
            "adjudicator": getattr(self.adjudicator, "name", type(self.adjudicator).__name__),
        }

    @staticmethod
    def from_json(data: dict, adjudicator=None) -> "Game":
        return Game(
            data["rule"],
            data["players"],
            data["seed"],
            parallel_only=data["parallel_only"],
            variant=data["variant"],
            kids=data["kids"],
            deals=data["deals"],
            colours=data["colours"],
            tile_size=data["tile_size"],
            max_placements=data.get("max_placements"),
            adjudicator=adjudicator,
        )

    def __repr__(self) -> str:
        extra = "".join(
            [
                f", variant={self.variant!r}" if self.variant else "",
                ", kids=True" if self.kids else "",
                f", deals={self.deals}" if self.deals > 1 else "",
                ", parallel_only=False" if not self.parallel_only else "",
            ]
        )
        return f"Game({self.rule!r}, {self.players}, seed={self.seed}{extra})"


def _tile_list(tiles) -> list:
    return [[a, b] for a, b in tiles]


class State:
    """A position in a match. See the module docstring for the API and the rules' choices.

    Useful attributes (read-only for callers): ``hands`` (sorted lists of tiles per seat),
    ``stock`` (face down; the last is drawn next), ``placed`` (the current construction's
    placement actions, by construction number), ``deal_no`` (0-based), ``results`` (one
    dict per finished deal: winners, scores, reason), ``owed`` (quinconce modes per seat),
    ``log`` (set it to a list to receive the game-record events).
    """

    __slots__ = (
        "game",
        "rng",
        "deal_no",
        "results",
        "hands",
        "stock",
        "placed",
        "grid",
        "ends",
        "current",
        "passes",
        "owed",
        "forced",
        "placements",
        "constructions",
        "collapses",
        "_legal",
        "log",
    )

    def __init__(self, game: Game, _blank: bool = False):
        self.game = game
        if _blank:
            return
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
        self._legal = None
        self.log: list | None = None

    # -- OpenSpiel-like queries ---------------------------------------------------------------

    def current_player(self) -> int:
        return self.current

    def is_chance_node(self) -> bool:
        return self.current == CHANCE

    def is_terminal(self) -> bool:
        return self.current == TERMINAL

    def num_players(self) -> int:
        return self.game.players

    def mode(self, player: int | None = None) -> str:
        """The mode the player must place in: always "flat" (traditional), "tower" (Défi)."""
        g = self.game
        if g.rule == "traditional":
            return "flat"
        if g.rule == "defi":
            return "tower"
        p = self.current if player is None else player
        return self.owed[p if p >= 0 else 0]

    def legal_actions(self, player: int | None = None) -> tuple:
        """Legal actions in a stable order (see :mod:`magdomino.games.actions`). A tuple."""
        if player is not None and player != self.current:
            return ()
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple:
        cur = self.current
        if cur == TERMINAL:
            return ()
        if cur == CHANCE:
            return (DEAL,)
        if self.forced is not None:
            return (self.forced,)
        if self.game.rule == "traditional":
            out = self._legal_traditional(self.hands[cur])
        else:
            out = self._legal_grid(self.hands[cur], self.mode(cur))
        if out:
            return tuple(out)
        return (DRAW,) if self.stock else (PASS,)

    def _legal_traditional(self, hand) -> list:
        lo_x, lo_p, lo_n, hi_x, hi_p, hi_n = self.ends
        cache = self.game._cache
        out = []
        for t in hand:
            a, b = t
            if a == lo_p or b == lo_p:
                key = (t, 0, lo_x, lo_p, lo_n)
                act = cache.get(key)
                if act is None:
                    x, d = (lo_x - 1, 1) if (a == lo_p and a != b) else (lo_x - 2, 0)
                    act = cache[key] = Action("place", t, x, 0, 0, d, "flat", "drop", None, lo_n)
                out.append(act)
            if a == hi_p or b == hi_p:
                key = (t, 1, hi_x, hi_p, hi_n)
                act = cache.get(key)
                if act is None:
                    x, d = (hi_x + 1, 0) if a == hi_p else (hi_x + 2, 1)
                    act = cache[key] = Action("place", t, x, 0, 0, d, "flat", "drop", None, hi_n)
                out.append(act)
        return out

    def _legal_grid(self, hand, mode: str) -> list:
        g = self.game
        grid = self.grid
        if g.extremities_only:
            parents = [n for n, k in enumerate(grid.degree) if k <= 1]
        else:
            parents = range(len(grid.poses))
        cache = g._cache
        seen: dict = {}
        gpips = grid.pips
        gposes = grid.poses
        for t in hand:
            a, b = t
            for p in parents:
                q0, q1 = gpips[p]
                if a != q0 and a != q1 and b != q0 and b != q1:
                    continue
                if mode == "tower":
                    cands = grid.tower_placements(a, b, p, g.parallel_only)
                else:
                    level = gposes[p].level
                    if level == 0:
                        cands = grid.end_placements(a, b, p)
                    elif level == 1:
                        cands = grid.slide_placements(a, b, p)
                    else:
                        continue
                for x, y, lev, d, parent, motion, slide in cands:
                    key = (t, x, y, lev, d)
                    if key in seen:
                        continue
                    ckey = (t, x, y, lev, d, mode, motion, slide, parent)
                    act = cache.get(ckey)
                    if act is None:
                        act = cache[ckey] = Action("place", t, x, y, lev, d, mode, motion, slide, parent)
                    seen[key] = act
        if len(cache) > 200_000:
            cache.clear()
        return sorted(seen.values(), key=_sort_key)

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
        if kind == "place":
            self._place(self.current, action)
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
        self.grid = None if g.rule == "traditional" else Grid()
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

    def _place(self, cur: int, action: Action) -> None:
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
            collapsed = bool(outcome.collapsed) and outcome.error is None and number > 0 and g.rule != "traditional"
        self.placed.append(action)
        if g.rule == "traditional":
            ends = self.ends
            a, b = action.tile
            if ends is None:
                self.ends = [0, a, 0, 1, b, 0]
            elif action.x < ends[0]:  # left end
                ends[0] = action.x if action.d == 0 else action.x - 1
                ends[1] = a if action.d == 0 else b
                ends[2] = number
            else:
                ends[3] = action.x if action.d == 1 else action.x + 1
                ends[4] = a if action.d == 1 else b
                ends[5] = number
            if self.grid is not None:
                self.grid.add(action.grid, action.tile, action.parent)
        else:
            self.grid.add(GridPose(action.x, action.y, action.level, action.d), action.tile, action.parent)
        self.passes = 0
        self.forced = None
        if g.rule == "quinconce":
            nxt = _FLIP[action.mode]
            if g.per_player_modes:
                self.owed[cur] = nxt
            else:
                self.owed = [nxt] * g.players
        if self.log is not None:
            ev = {"type": "place", "player": cur, "tile": list(action.tile), "mode": action.mode}
            ev["motion"] = action.motion
            if action.slide is not None:
                ev["slide"] = geo.DIR_NAMES[action.slide]
            ev["pose"] = [action.x, action.y, action.level, action.d]
            ev["parent"] = action.parent
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
                self._end_blocked("placement limit")
                return
            self._start_construction("collapse")
            return
        if not hand:
            self._end_deal([cur], "domino")
        elif g.max_placements is not None and self.placements >= g.max_placements:
            self._end_blocked("placement limit")
        else:
            self.current = (cur + 1) % g.players

    def _value(self, hand) -> int:
        return len(hand) if self.game.kids else sum(a + b for a, b in hand)

    def _end_blocked(self, reason: str = "blocked") -> None:
        values = [self._value(h) for h in self.hands]
        low = min(values)
        self._end_deal([s for s, v in enumerate(values) if v == low], reason)

    def _end_deal(self, winners: list[int], reason: str) -> None:
        g = self.game
        scores = [0 if s in winners else self._value(h) for s, h in enumerate(self.hands)]
        self.results.append({"deal": self.deal_no, "winners": winners, "scores": scores, "reason": reason})
        self.forced = None
        self.current = CHANCE if self.deal_no + 1 < g.deals else TERMINAL
        if self.log is not None:
            ev = {"type": "end", "player": winners[0], "deal": self.deal_no, "reason": reason}
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
            if self.game.rule != "traditional":
                self.grid = grid
            return grid
        return self.grid

    def placed_tiles(self) -> tuple[PlacedTile, ...]:
        return tuple(
            PlacedTile(i, a.tile, _TILE_INDEX[a.tile], a.grid, a.parent, a.mode, a.motion) for i, a in enumerate(self.placed)
        )

    def _view(self, cur: int, action: Action, number: int) -> PlacementView:
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
            number=self.placements,
            deal=self.deal_no,
            player=cur,
            tile=action.tile,
            tile_index=_TILE_INDEX[action.tile],
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

    def deal_scores(self) -> list[list[int]]:
        return [list(r["scores"]) for r in self.results]

    def scores(self) -> list[int]:
        """Match totals so far (finished deals), per seat; lower is better."""
        tot = [0] * self.game.players
        for r in self.results:
            for s, v in enumerate(r["scores"]):
                tot[s] += v
        return tot

    def winners(self) -> list[int]:
        """Winning seats once the match is over (else [])."""
        if self.current != TERMINAL:
            return []
        if self.game.deals == 1:
            return list(self.results[0]["winners"])
        tot = self.scores()
        low = min(tot)
        return [s for s, v in enumerate(tot) if v == low]

    def returns(self) -> list[float]:
        w = self.winners()
        return [1.0 / len(w) if s in w else 0.0 for s in range(self.game.players)]

    # -- copies -------------------------------------------------------------------------------

    def clone(self) -> "State":
        s = State(self.game, _blank=True)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        s.rng = rng
        s.deal_no = self.deal_no
        s.results = [dict(r, winners=list(r["winners"]), scores=list(r["scores"])) for r in self.results]
        s.hands = [list(h) for h in self.hands]
        s.stock = list(self.stock)
        s.placed = list(self.placed)
        s.grid = None if self.grid is None else self.grid.copy()
        s.ends = None if self.ends is None else list(self.ends)
        s.current = self.current
        s.passes = self.passes
        s.owed = list(self.owed)
        s.forced = self.forced
        s.placements = self.placements
        s.constructions = self.constructions
        s.collapses = self.collapses
        s._legal = self._legal
        s.log = None
        return s

    def to_json(self) -> dict:
        """A JSON-ready dict; :meth:`from_json` restores the exact state (RNG included)."""
        return {
            "format": STATE_FORMAT,
            "game": self.game.to_json(),
            "deal": self.deal_no,
            "results": [dict(r) for r in self.results],
            "hands": [_tile_list(h) for h in self.hands],
            "stock": _tile_list(self.stock),
            "construction": [a.to_json() for a in self.placed],
            "ends": None if self.ends is None else list(self.ends),
            "current": self.current,
            "passes": self.passes,
            "owed": list(self.owed),
            "forced": None if self.forced is None else self.forced.to_json(),
            "placements": self.placements,
            "constructions": self.constructions,
            "collapses": self.collapses,
            "rng": self.rng.bit_generator.state,
        }

    def to_json_str(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)

    @staticmethod
    def from_json(data, game: Game | None = None) -> "State":
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
        s = State(game, _blank=True)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = data["rng"]
        s.rng = rng
        s.deal_no = data["deal"]
        s.results = [
            {"deal": r["deal"], "winners": list(r["winners"]), "scores": list(r["scores"]), "reason": r["reason"]}
            for r in data["results"]
        ]
        s.hands = [[(a, b) for a, b in h] for h in data["hands"]]
        s.stock = [(a, b) for a, b in data["stock"]]
        s.placed = [Action.from_json(a) for a in data["construction"]]
        s.ends = None if data["ends"] is None else list(data["ends"])
        s.grid = None
        if game.rule != "traditional" and s.deal_no >= 0:
            s.grid = Grid()
            for a in s.placed:
                s.grid.add(a.grid, a.tile, a.parent)
        s.current = data["current"]
        s.passes = data["passes"]
        s.owed = list(data["owed"])
        s.forced = None if data["forced"] is None else Action.from_json(data["forced"])
        s.placements = data["placements"]
        s.constructions = data["constructions"]
        s.collapses = data["collapses"]
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
            tiles = " ".join(f"{a}-{b}" for a, b in h)
            lines.append(f"{mark}seat {s}: [{tiles}] ({self._value(h)} {'tiles' if g.kids else 'pips'})")
        if self.current == CHANCE:
            lines.append("to play: chance (deal)")
        elif self.current == TERMINAL:
            lines.append(f"over: winners {self.winners()}, scores {self.scores()}")
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


def _sort_key(a: Action):
    return a.sort_key
