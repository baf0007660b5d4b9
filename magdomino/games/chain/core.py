"""The shared core of the flat chain games (Le Matador, Le jeu des échanges).

These games use ordinary ivory dominoes (:data:`magdomino.model.tiles.TILE_SETS`) laid flat
in one line with two open ends; no grid, no physics. Each game is a module of its own
(:mod:`~magdomino.games.chain.matador`, :mod:`~magdomino.games.chain.echanges`) holding its
legality and consequences as a :class:`ChainState` subclass and its options as a
:class:`ChainGame` subclass (their players: :mod:`magdomino.games.chain.players`); this
module holds what they share, with the same API as the Magnetic Domino rules
(:mod:`magdomino.games.core`):

- ``make_game(rule, players, seed, options)`` (the registry in :mod:`magdomino.games.core`)
  → ``new_initial_state()`` → a state at a chance node (the deal);
- ``current_player()`` is a seat, :data:`CHANCE` or :data:`TERMINAL`; ``legal_actions()``
  is a tuple in a stable order; ``apply_action``; ``is_terminal``; ``returns``; ``clone``;
  ``to_json`` / ``from_json`` (exact, the random stream included).

**Chance.** The deal shuffles the whole set with the state's own
``numpy.random.Generator`` (seeded from the game's seed; carried by the state, so clones
and JSON copies go on identically); the stock is that shuffled order, face down, and every
draw is a chance node of its own whose default action :data:`DRAW` takes the top tile
(``stock[0]``). Scripted chance actions, for tests and replays: ``("deal", tiles)`` (the
hands in seat order, then the stock from the top) and ``("draw", tile)`` (that tile out of
the stock).

**Fields.** A state's fields are listed once, in its class's ``FIELDS`` (name → how deep
tiles are nested in it: 0 a tile, 1 a list of tiles, 2 a list of lists of tiles, None no
tiles); ``__slots__``, :meth:`ChainState.clone` and the JSON copy derive from it.

**Table.** ``table`` lists the chain from its left end to its right end, one dict per tile:
``tile`` (low, high), ``halves`` (the pips shown left to right along the line), ``crossed``
(laid across the line), ``side`` ("start", "left" or "right": the end it was added at),
``order`` (placement number), ``seat``. ``ends`` is ``[left, right]``, each
``[value, kind]`` (what the end asks for; the game documents its kinds).
"""

from __future__ import annotations

import json

import numpy as np

from magdomino.checks import check_count, check_seed
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.actions import TUPLE_DEAL as DEAL
from magdomino.games.actions import TUPLE_DRAW as DRAW
from magdomino.games.actions import TUPLE_PASS as PASS
from magdomino.games.core import CHANCE, TERMINAL, IllegalActionError, TurnState, make_game
from magdomino.model.tiles import TILE_SETS
from magdomino.wording import tile_text

LEFT, RIGHT = 0, 1
SIDE_NAMES = ("left", "right")

__all__ = ["CHANCE", "DEAL", "DRAW", "PASS", "TERMINAL", "ChainGame", "ChainState", "IllegalActionError"]


def pips(tiles) -> int:
    """Pip total of some tiles."""
    return sum(a + b for a, b in tiles)


class ChainGame:
    """One match's settings; subclasses set ``rule``, ``SETS``, ``VARIANTS``, ``STATE``
    and parse their own options in :meth:`_options`.

    Parameters
    ----------
    players : int
    seed : int
        Seeds the deal stream (``numpy.random.default_rng(seed)``).
    options : dict, optional (or keyword arguments)
        ``set`` (the double-N set, N in the game's ``SETS``; default 6), ``variant`` (None or
        one of the game's ``VARIANTS``), and the game's own options.
    """

    rule = ""
    SETS: tuple = (6,)
    VARIANTS: tuple = ()
    STATE: type = None  # the ChainState subclass

    def __init__(self, players: int, seed: int = 0, options: dict | None = None, **kwargs):
        opts = dict(options or {})
        opts.update(kwargs)
        self.seed = check_seed(seed)
        top = opts.pop("set", 6)
        if isinstance(top, bool) or top not in self.SETS:
            allowed = ", ".join(str(s) for s in self.SETS)
            raise InputError(ARGUMENTS, "set", f"{self.rule} plays with a double-N set, N one of {allowed}; got {top!r}")
        self.top = int(top)
        self.tiles = TILE_SETS[self.top].tiles
        self.variant = opts.pop("variant", None)
        if self.variant is not None and self.variant not in self.VARIANTS:
            allowed = ", ".join(repr(v) for v in self.VARIANTS) or "none"
            raise InputError(ARGUMENTS, "variant", f"{self.rule} variants: {allowed}; got {self.variant!r}")
        low, high = self.player_range()
        self.players = check_count(players, "players", minimum=low, maximum=high)
        self._options(opts)
        if opts:
            raise InputError(ARGUMENTS, sorted(opts)[0], f"a known option of {self.rule}: {', '.join(self.option_names())}")

    def player_range(self) -> tuple[int, int]:
        """Fewest and most players with this set."""
        raise NotImplementedError

    def _options(self, opts: dict) -> None:
        """Pop and check the game's own options."""

    def option_names(self) -> list[str]:
        return ["set", "variant"]

    def options(self) -> dict:
        """The options that rebuild this game (JSON)."""
        return {"set": self.top, "variant": self.variant}

    def new_initial_state(self):
        return self.STATE(self)

    def to_json(self) -> dict:
        return {"rule": self.rule, "players": self.players, "seed": self.seed, **self.options()}

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.options().items() if v is not None)
        return f"Game({self.rule!r}, {self.players}, seed={self.seed}{extra})"


def _to_json(value):
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


def _copy(value):
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def _from_json(value, depth):
    if depth is None or value is None:
        return _copy(value)
    if depth == 0:
        return tuple(value)
    return [_from_json(v, depth - 1) for v in value]


class ChainState(TurnState):
    """A position in a match of a chain game (see the module docstring).

    Subclasses set ``FIELDS`` (their fields added to :data:`BASE_FIELDS`) and
    ``__slots__`` (their added field names), and implement ``_start_deal`` (after the
    deal), ``_player_actions`` (the current player's legal actions), ``_apply`` (a
    player's action), ``_drawn`` (a drawn tile's destination and what follows) and
    ``winners``. ``log``: set it to a list to receive the game-record events.
    """

    BASE_FIELDS = {
        "current": None,   # a seat, CHANCE or TERMINAL
        "due": None,       # at a chance node: "deal" or what the drawn tile is for (a name or a seat)
        "hands": 2,        # sorted list of tiles per seat
        "stock": 1,        # face down, drawn from the top (index 0)
        "table": None,     # the chain, left to right (module docstring)
        "ends": None,      # [left, right], each [value, kind]
        "placements": None,
        "deal_no": None,
        "totals": None,    # match points per seat
        "results": None,   # one dict per finished deal
    }
    FIELDS = BASE_FIELDS
    __slots__ = ("game", "rng", "log", "_legal", *BASE_FIELDS)
    FORMAT = "magdomino.chain/1"

    @classmethod
    def _blank(cls, game):
        """A position with only its game set, for a copy to fill in (``clone``, ``from_json``)."""
        s = cls.__new__(cls)
        s.game = game
        s.log = None
        s._legal = None
        return s

    def __init__(self, game: ChainGame):
        self.game = game
        self.log = None
        self._legal = None  # the current player's legal actions, until the next action
        self.rng = np.random.default_rng(game.seed)
        for name, depth in self.FIELDS.items():
            setattr(self, name, [] if depth else None)
        self.current, self.due = CHANCE, "deal"
        self.placements, self.deal_no = 0, -1
        self.totals = [0] * game.players
        self.results = []
        self.ends = []
        self._init_fields()

    def _init_fields(self) -> None:
        """Set the subclass's own fields at the start of a match."""

    # -- queries (current_player, is_chance_node, is_terminal, num_players, legal_actions:
    # from TurnState) -----------------------------------------------------------------------

    def _compute_legal(self) -> tuple:
        """The legal actions (cached by :class:`~magdomino.games.core.TurnState` until the
        next action)."""
        if self.current == TERMINAL:
            return ()
        if self.current == CHANCE:
            return (DEAL,) if self.due == "deal" else (DRAW,)
        return tuple(self._player_actions())

    def returns(self) -> list[float]:
        w = self.winners()
        return [1.0 / len(w) if s in w else 0.0 for s in range(self.game.players)]

    def all_tiles(self) -> list:
        """Every tile of the set, wherever it is (hands, stock, table, and the game's boxes)."""
        return [t for h in self.hands for t in h] + list(self.stock) + [tuple(e["tile"]) for e in self.table]

    # -- actions -------------------------------------------------------------------------

    def apply_action(self, action) -> None:
        if isinstance(action, list):  # from JSON
            action = tuple(action)
        if self.current == TERMINAL:
            raise IllegalActionError("the game is over")
        if self.current == CHANCE:
            self._legal = None
            self._apply_chance(action)
            return
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action!r} is not legal for seat {self.current}")
        self._legal = None
        self._apply(self.current, action)

    def _apply_chance(self, action) -> None:
        if action == DRAW and self.due != "deal":
            self._drawn(self.due, self.stock.pop(0))
            return
        kind = action[0] if isinstance(action, tuple) and action else None
        if self.due == "deal" and kind == "deal":
            self._deal(self._deal_order(action))
            return
        if self.due != "deal" and kind == "draw" and len(action) == 2:  # a scripted draw
            tile = tuple(sorted(action[1]))
            if tile not in self.stock:
                raise IllegalActionError(f"{tile} is not in the stock")
            self.stock.remove(tile)
            self._drawn(self.due, tile)
            return
        raise IllegalActionError(f"{action!r} at a chance node for {self.due!r}")

    def _deal_order(self, action) -> list:
        tiles = self.game.tiles
        if len(action) == 1:
            return [tiles[i] for i in self.rng.permutation(len(tiles)).tolist()]
        order = [tuple(sorted(t)) for t in action[1]]
        if sorted(order) != sorted(tiles):
            raise IllegalActionError("a scripted deal lists every tile of the set once")
        return order

    def _deal(self, order: list) -> None:
        """Hands from the top of the shuffled set (seat order), the rest is the stock."""
        self.deal_no += 1
        size = self._hand_size()
        n = self.game.players
        self.hands = [sorted(order[s * size:(s + 1) * size]) for s in range(n)]
        self.stock = list(order[n * size:])
        self.table, self.ends, self.placements = [], [], 0
        self._start_deal()

    def _hand_size(self) -> int:
        raise NotImplementedError

    def draw_for(self, due) -> None:
        """Make the next action a chance draw whose tile goes to ``due`` (a name or a seat;
        see ``_drawn``)."""
        self.current, self.due = CHANCE, due

    # -- the chain -----------------------------------------------------------------------

    def lay(self, seat: int, tile, side: str, halves, crossed: bool = False, **extra) -> dict:
        """Put ``tile`` at the chain's ``side`` ("start", "left", "right") showing ``halves``
        left to right; returns the table entry."""
        entry = {"tile": list(tile), "halves": list(halves), "crossed": crossed, "side": side,
                 "order": self.placements, "seat": seat, **extra}
        if side == "left":
            self.table.insert(0, entry)
        else:
            self.table.append(entry)
        self.hands[seat].remove(tuple(tile))
        self.placements += 1
        return entry

    def event(self, ev: dict) -> None:
        if self.log is not None:
            ev["hand_sizes"] = [len(h) for h in self.hands]
            ev["stock_size"] = len(self.stock)
            self.log.append(ev)

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.game.players

    # -- copies --------------------------------------------------------------------------

    def clone(self):
        s = type(self)._blank(self.game)
        s.rng = np.random.Generator(np.random.PCG64())
        s.rng.bit_generator.state = self.rng.bit_generator.state
        for name in self.FIELDS:
            setattr(s, name, _copy(getattr(self, name)))
        return s

    def to_json(self) -> dict:
        """A JSON-ready dict; :meth:`from_json` restores the exact state (RNG included)."""
        doc = {"format": self.FORMAT, "game": self.game.to_json(), "rng": self.rng.bit_generator.state}
        doc.update((name, _to_json(getattr(self, name))) for name in self.FIELDS)
        return doc

    @classmethod
    def from_json(cls, data, game: ChainGame | None = None):
        """Restore a state from :meth:`to_json` output (a dict or a JSON string)."""
        if isinstance(data, str):
            data = json.loads(data)
        if not isinstance(data, dict) or data.get("format") != cls.FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise InputError("state", "format", f"{cls.FORMAT!r}, got {got!r}")
        if game is None:
            g = data["game"]
            game = make_game(g["rule"], g["players"], g["seed"], {k: v for k, v in g.items() if k not in ("rule", "players", "seed")})
        s = cls._blank(game)
        s.rng = np.random.Generator(np.random.PCG64())
        s.rng.bit_generator.state = data["rng"]
        for name, depth in cls.FIELDS.items():
            setattr(s, name, _from_json(data[name], depth))
        return s

    def __repr__(self) -> str:
        who = {CHANCE: "chance", TERMINAL: "terminal"}.get(self.current, f"seat {self.current}")
        line = " ".join(tile_text(e["halves"], e["crossed"]) for e in self.table)
        return f"<{self.game.rule} deal {self.deal_no}, {who}: {line or 'empty table'}>"
