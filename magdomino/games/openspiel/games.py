"""The package's games as OpenSpiel (pyspiel) games, for OpenSpiel's algorithms and tests.

Optional: needs the ``openspiel`` extra (``pip install 'magdomino[openspiel]'``); without
it every entry point raises an :class:`~magdomino.errors.InputError` saying so.
:func:`register_all` registers, once, ``magdomino_<rule>`` for ``traditional``, ``defi``,
``quinconce``, ``matador``, ``echanges`` and ``vingt`` (20 sur 20: its multi-tile moves
get their own enumeration, in :mod:`magdomino.games.openspiel.vingt`).

Mapping (why: OpenSpiel wants explicit chance with probabilities and integer actions):

- **Chance.** A deal is dealt tile by tile: each chance outcome is the index of a tile of
  the set (uniform over the tiles not yet dealt). Magnetic Domino rules deal all 28 (the
  hands in seat order, then the stock in drawing order, since their draws take the next
  stock tile), and a deal with a one-colour hand is dealt again, as the package's own
  deal does (rejection keeps the distribution uniform over the allowed deals). The chain
  games deal the hands only: each of their draws is a chance node of its own (uniform over
  the stock).
- **Actions.** A stable per-game integer enumeration (:func:`encode`): Magnetic Domino
  placements by (tile, x, direction) in traditional, by (tile, parent, level, x, y
  relative to the parent, direction, motion/slide) in the tower rules, chain moves by (kind, up to three
  fields). ``num_distinct_actions`` is the size of that space; an id is turned back into
  the game's action by looking it up among the state's legal actions.
- **Information.** ``information_state_string(p)``: p's own hand, then the public history
  (every move; chance outcomes shown as ``?``). A state built from a package state
  (:func:`from_package_state`) starts its public history with a snapshot of the public
  part of that position.
- **Physics.** Tower games take ``physics`` = ``"none"`` (rules only, nothing collapses) or
  ``"statics"`` (:class:`~magdomino.physics.statics_adjudicator.StaticsAdjudicator`, default
  preset, magnets on, a placement it is unsure of counted as a fall: a risk the searches
  learn to avoid; ``max_placements`` 0 means :data:`STATICS_GUARD`).
- **Resampling** (for information-set MCTS): the tiles a seat cannot see (the other hands
  and the stock) are dealt again at random, hand sizes kept. It ignores what a draw or a
  pass revealed about a hand (a common determinisation shortcut).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from magdomino.errors import InputError
from magdomino.games.actions import Deal
from magdomino.games.core import Game, make_game
from magdomino.games.openspiel import vingt as openspiel_vingt
from magdomino.games.tower.state import State
from magdomino.model.presets import DEFAULT_PRESET
from magdomino.model.tiles import ALL_TILES
from magdomino.optional import require

CORE_RULES = ("traditional", "defi", "quinconce")
CHAIN_RULES = ("matador", "echanges")
SPAN = 56
"""Largest ``|x|`` of a traditional placement's grid square (28 tiles of two squares in a line)."""
REACH = 4
"""Largest ``|dx|`` or ``|dy|`` between a tower-rule placement's half 0 and its parent's (they touch:
at most 3 squares apart, one more for safety)."""
STATICS_GUARD = 200
"""``max_placements`` of a tower game with ``physics="statics"`` when the parameter is 0."""
PARENTS = 29
"""Parent numbers 0..27 (a construction has at most 28 tiles) and one for a start."""
_CHAIN_KINDS = ("start", "line", "cross", "draw", "pass", "place", "exchange", "swap")
_CHAIN_WORDS = ("centre",)
_HIDDEN_KEYS = ("hands", "stock", "rng", "log", "events", "format", "game", "racks")


def _pyspiel(key: str):
    """pyspiel, or the one-line InputError naming ``key`` (what asked for it) and how to install it."""
    return require("pyspiel", "OpenSpiel's games", key=key)


# -- parameters ---------------------------------------------------------------------------------


def parameters(rule: str) -> dict:
    """The pyspiel parameters of ``magdomino_<rule>`` and their defaults."""
    if rule == "traditional":
        return {"players": 2, "kids": False, "deals": 1}
    if rule in ("defi", "quinconce"):
        extra = {"variant": ""} if rule == "defi" else {}
        return {"players": 2, **extra, "kids": False, "deals": 1, "physics": "none", "max_placements": 0}
    if rule == "matador":
        return {"players": 2, "set": 6, "variant": "", "deals": 1, "target": 0}
    if rule == "echanges":
        return {"players": 3, "set": 6, "variant": ""}
    raise InputError("openspiel", "rule", f"one of {', '.join(CORE_RULES + CHAIN_RULES)}, got {rule!r}")


def package_game(rule: str, params: dict):
    """The package's :class:`~magdomino.games.core.Game` for pyspiel parameters ``params``."""
    p = {**parameters(rule), **params}
    if rule in CORE_RULES:
        physics = p.pop("physics", "none")
        if physics not in ("none", "statics"):
            raise InputError("openspiel", "physics", f"'none' (rules only) or 'statics', got {physics!r}")
        opts = {"kids": p["kids"], "deals": p["deals"]}
        if p.get("variant"):
            opts["variant"] = p["variant"]
        if p.get("max_placements"):
            opts["max_placements"] = p["max_placements"]
        if physics == "statics":
            from magdomino.physics.statics_adjudicator import StaticsAdjudicator  # on use: scipy's solvers

            # a placement the statics is unsure of counts as a fall: a risk the search avoids
            opts["adjudicator"] = StaticsAdjudicator(DEFAULT_PRESET, on_unsure="collapse")
            # collapses can go on for ever: the runaway guard ends such a deal, not scored
            opts.setdefault("max_placements", STATICS_GUARD)
        return make_game(rule, p["players"], 0, opts)
    opts = {"set": p["set"]}
    if p.get("variant"):
        opts["variant"] = p["variant"]
    if rule == "matador":
        opts["deals"] = p["deals"]
        if p.get("target"):
            opts["target"] = p["target"]
    return make_game(rule, p["players"], 0, opts)


def _player_range(rule: str) -> tuple[int, int]:
    """Fewest and most players over the sets the game allows (matador 7-9: up to 6)."""
    return {"matador": (2, 6), "echanges": (3, 6)}.get(rule, (2, 4))


# -- actions ------------------------------------------------------------------------------------


def _tiles_of(game) -> tuple:
    return tuple(game.tiles) if hasattr(game, "tiles") else tuple(ALL_TILES)


def _core_shape(rule: str) -> tuple:
    """Radices of a placement id. Traditional (a flat line along x): (tile, x, d). Tower
    rules: (tile, parent, level - parent's level, x and y of half 0 relative to the
    parent's half 0, d, motion), parent ``PARENTS - 1`` for a start (then x, y, level are
    absolute). Relative to the parent, because a tile always touches its parent: the
    space stays small (OpenSpiel's tests cost grows with it) and bounded."""
    if rule == "traditional":
        return (28, 2 * SPAN + 1, 4)
    return (28, PARENTS, 3, 2 * REACH + 1, 2 * REACH + 1, 4, 5)


def num_actions(rule: str, ntiles: int = 28) -> int:
    """Size of the game's action space (``num_distinct_actions``)."""
    if rule in CORE_RULES:
        return int(np.prod(_core_shape(rule))) + 2  # + draw, pass
    base = len(_CHAIN_WORDS) + 17 + ntiles
    return len(_CHAIN_KINDS) * base**3


def encode(rule: str, tiles: tuple, action, state=None) -> int:
    """The integer id of one of the game's actions (stable: the same action in the same
    position, the same id). Tower rules need ``state`` (the parent's pose)."""
    if rule in CORE_RULES:
        shape = _core_shape(rule)
        size = int(np.prod(shape))
        if action.kind != "place":
            return size + (0 if action.kind == "draw" else 1)
        if (action.mode == "tower") != (action.level > 0):
            raise ValueError(f"{action}: the mode does not follow from the level")
        if rule == "traditional":
            if action.y or action.level or action.motion != "drop":
                raise ValueError(f"{action} is not a traditional placement")
            digits = [tiles.index(action.tile), action.x + SPAN, action.d]
        else:
            if action.parent is None:
                parent, base = PARENTS - 1, (0, 0, 0)
            else:
                q = state.placed[action.parent]
                parent, base = action.parent, (q.level, q.x, q.y)
            dl = action.level - base[0] + (1 if action.parent is not None else 0)
            motion = 0 if action.motion == "drop" else 1 + int(action.slide)
            digits = [tiles.index(action.tile), parent, dl, action.x - base[1] + REACH, action.y - base[2] + REACH,
                      action.d, motion]
        code = 0
        for v, r in zip(digits, shape):
            if not 0 <= v < r:
                raise ValueError(f"{action} is outside the game's action enumeration")
            code = code * r + v
        return code
    base = len(_CHAIN_WORDS) + 17 + len(tiles)
    if len(action) > 4:
        raise ValueError(f"{action!r} has more than three fields")
    code = _CHAIN_KINDS.index(action[0])
    fields = list(action[1:]) + [None] * (4 - len(action))
    for f in fields:
        if f is None:
            v = 0
        elif isinstance(f, str):
            v = 1 + _CHAIN_WORDS.index(f)
        elif isinstance(f, tuple):
            v = 1 + len(_CHAIN_WORDS) + 16 + tiles.index(f)
        elif 0 <= int(f) < 16:
            v = 1 + len(_CHAIN_WORDS) + int(f)
        else:
            raise ValueError(f"{action!r} is outside the game's action enumeration")
        code = code * base + v
    return code


# -- the pyspiel game ---------------------------------------------------------------------------


def _game_type(pyspiel, rule: str):
    lo, hi = _player_range(rule)
    return pyspiel.GameType(
        short_name=f"magdomino_{rule}",
        long_name=f"Magdomino {rule}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification=parameters(rule),
    )


def _make_classes(pyspiel):
    """The Game, State and observer classes (built once pyspiel is importable)."""

    class MagdominoGame(pyspiel.Game):
        """``magdomino_<rule>``: one of the package's games (module docstring)."""

        RULE = ""

        def __init__(self, params=None, _rule=None, _package=None):
            params = dict(params or {})
            rule = _rule or self.RULE
            self.rule = rule
            self.package = _package if _package is not None else package_game(rule, params)
            self.tiles = _tiles_of(self.package)
            deals = getattr(self.package, "deals", 1)
            info = pyspiel.GameInfo(
                num_distinct_actions=num_actions(rule, len(self.tiles)),
                max_chance_outcomes=len(self.tiles),
                num_players=self.package.players,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=None,
                max_game_length=1000 * deals,
            )
            super().__init__(_registration.types[rule], info, params)

        def new_initial_state(self):
            return MagdominoState(self, self.package.new_initial_state())

        def make_py_observer(self, iig_obs_type=None, params=None):
            return Observer()

    class MagdominoState(pyspiel.State):
        """A pyspiel state shadowing a package state (``self.inner``)."""

        def __init__(self, game, inner, public=None):
            super().__init__(game)
            self.inner = inner
            self.rule = game.rule
            self.tiles = game.tiles
            self.dealt: list = []  # tile indices dealt so far in a deal under way
            self.public: list = list(public or [])

        # what the package state is waiting for
        def _chance_kind(self):
            s = self.inner
            if s.current_player() != -1:
                return None
            if self.rule in CORE_RULES or s.due == "deal":
                return "deal"
            return "draw"

        def _deal_size(self) -> int:
            if self.rule in CORE_RULES:
                return len(self.tiles)
            return self.inner.game.players * self.inner._hand_size()

        def current_player(self):
            if self.inner.is_terminal():
                return pyspiel.PlayerId.TERMINAL
            if self._chance_kind() is not None:
                return pyspiel.PlayerId.CHANCE
            return self.inner.current_player()

        def is_terminal(self):
            return self.inner.is_terminal()

        def chance_outcomes(self):
            if self._chance_kind() == "deal":
                left = [i for i in range(len(self.tiles)) if i not in self.dealt]
            else:
                left = sorted(self.tiles.index(t) for t in self.inner.stock)
            p = 1.0 / len(left)
            return [(i, p) for i in left]

        def _legal_actions(self, player):
            if player != self.inner.current_player():
                return []
            return sorted(encode(self.rule, self.tiles, a, self.inner) for a in self.inner.legal_actions())

        def decode(self, action: int):
            """The package action with id ``action`` among the legal ones."""
            for a in self.inner.legal_actions():
                if encode(self.rule, self.tiles, a, self.inner) == action:
                    return a
            raise ValueError(f"action id {action} is not legal here")

        def _apply_action(self, action):
            kind = self._chance_kind()
            if kind == "deal":
                self.dealt.append(int(action))
                self.public.append("?")
                if len(self.dealt) == self._deal_size():
                    self._finish_deal()
                return
            if kind == "draw":
                self.public.append("?")
                self.inner.apply_action(("draw", self.tiles[int(action)]))
                return
            a = self.decode(int(action))
            self.public.append(f"{self.inner.current_player()}:{self.action_text(a)}")
            self.inner.apply_action(a)

        def _finish_deal(self):
            order = [self.tiles[i] for i in self.dealt]
            self.dealt = []
            if self.rule in CORE_RULES:
                g = self.inner.game
                k = g.hand_size
                hands = [order[i * k : (i + 1) * k] for i in range(g.players)]
                if len(set(g.colours)) > 1 and any(len({g.colour[t] for t in h}) == 1 for h in hands):
                    self.public.append("redeal")  # the package deals again: so does this
                    return
                self.inner.apply_action(Deal(tuple(order)))
                return
            rest = sorted(set(self.tiles) - set(order))
            self.inner.apply_action(("deal", tuple(order) + tuple(rest)))

        def _action_to_string(self, player, action):
            if player == pyspiel.PlayerId.CHANCE:
                return f"tile {self.tiles[action]}"
            return self.action_text(self.decode(action))

        @staticmethod
        def action_text(a) -> str:
            """A package action as the public history shows it."""
            return _action_text(a)

        def returns(self):
            if not self.inner.is_terminal():
                return [0.0] * self.inner.game.players
            return [float(r) for r in self.inner.returns()]

        def rewards(self):
            return self.returns()

        def info_string(self, player: int) -> str:
            hand = self.inner.hands[player] if self.inner.hands else []
            return f"seat {player} hand {sorted(hand)} | " + " ".join(self.public)

        def clone(self):
            c = type(self)(self.get_game(), self.inner.clone(), self.public)
            c.dealt = list(self.dealt)
            # the pyspiel history is not carried by a Python clone: replay the ids
            return c

        def resample_from_infostate(self, player_id, probability_sampler):
            return self.resample(player_id, np.random.RandomState(int(probability_sampler() * 2**31)))

        def resample(self, player: int, rng: np.random.RandomState):
            """A copy with the hidden tiles dealt again (:func:`resample`)."""
            return resample(self, player, rng)

        def __str__(self):
            if self._chance_kind() == "deal":  # a chain state cannot print itself before its deal
                return f"dealing: {[self.tiles[i] for i in self.dealt]}"
            return str(self.inner)

    return MagdominoGame, MagdominoState


class Observer:
    """Strings only (no tensors): the information state of a seat (every game here)."""

    def __init__(self):
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        return state.info_string(player)


class Registration(NamedTuple):
    """What :func:`register_all` gave pyspiel: each rule's ``pyspiel.GameType``, the game and
    state classes of the tower and chain rules, and 20 sur 20's classes
    (:func:`magdomino.games.openspiel.vingt.make_classes`)."""

    types: Mapping[str, object]
    game_class: type
    state_class: type
    vingt_classes: tuple


_registration: Registration | None = None
"""Set once by :func:`register_all`: pyspiel's registry of games is the process's and keeps
what it is given until the interpreter ends, so the record of it lives as long."""


def _action_text(a) -> str:
    return str(a) if not isinstance(a, tuple) else " ".join(str(x) for x in a)


def resample(state, player: int, rng: np.random.RandomState):
    """A copy of ``state`` with the tiles ``player`` cannot see dealt again (module docstring).

    The hands of the other seats and the stock keep their sizes; a forced start (the
    holder of the highest double) keeps its tile where it is.
    """
    if state.rule == "vingt":
        return openspiel_vingt.resample(state, player, rng)
    c = state.clone()
    inner = c.inner
    if not inner.hands or state.dealt:
        return c
    others = [s for s in range(len(inner.hands)) if s != player]
    keep = set()
    forced = getattr(inner, "forced", None)
    if forced is not None and getattr(forced, "tile", None) is not None:
        keep.add(tuple(forced.tile))
    if state.rule == "matador" and not inner.table and inner.current_player() >= 0:
        keep.update(inner.hands[inner.starter])  # the starter is known to hold the best tile
        others = [s for s in others if s != inner.starter]
    pool = [t for s in others for t in inner.hands[s] if t not in keep] + [t for t in inner.stock if t not in keep]
    order = [pool[i] for i in rng.permutation(len(pool))]
    i = 0
    for s in others:
        held = [t for t in inner.hands[s] if t in keep]
        n = len(inner.hands[s]) - len(held)
        inner.hands[s] = sorted(held + order[i : i + n])
        i += n
    stock_keep = [t for t in inner.stock if t in keep]
    inner.stock = stock_keep + order[i:]
    inner._legal = None
    return c


def register_all(*, key: str = "register_all") -> None:
    """Register every ``magdomino_<rule>`` with pyspiel (once; later calls do nothing).
    ``key``: the argument or function that asked for OpenSpiel, named by the error when it is
    not installed."""
    global _registration
    pyspiel = _pyspiel(key)
    if _registration is not None:
        return
    game_class, state_class = _make_classes(pyspiel)
    types = {rule: _game_type(pyspiel, rule) for rule in CORE_RULES + CHAIN_RULES}
    types["vingt"], *vingt_classes = openspiel_vingt.make_classes(pyspiel, state_class, Observer)
    _registration = Registration(MappingProxyType(types), game_class, state_class, tuple(vingt_classes))
    for rule in CORE_RULES + CHAIN_RULES:  # a class per rule
        pyspiel.register_game(types[rule], type(f"Magdomino_{rule}", (game_class,), {"RULE": rule}))
    pyspiel.register_game(types["vingt"], vingt_classes[0])


def load_game(rule: str, params: dict | None = None):
    """``pyspiel.load_game("magdomino_<rule>", params)`` after :func:`register_all`."""
    pyspiel = _pyspiel("load_game")
    register_all()
    return pyspiel.load_game(f"magdomino_{rule}", dict(params or {}))


def from_package_state(state, physics: bool = False):
    """A pyspiel state for a package state at a seat's turn (its public part as history).

    A tower game's physics is dropped (rules only) unless ``physics`` is True and it is
    the statics adjudicator (stateless: clones may share it; pybullet is never searched).
    """
    register_all(key="from_package_state")
    game_class, state_class = _registration.game_class, _registration.state_class
    g = state.game
    if g.rule == "vingt":
        return openspiel_vingt.from_package_state(state, *_registration.vingt_classes)
    doc = state.to_json()
    inner = state.clone()
    keep = physics and getattr(g.adjudicator, "name", "") == "statics"
    if g.rule in CORE_RULES and not g.trivial and not keep:  # search rules-only
        g = Game.from_json(g.to_json())
        inner = State.from_json(doc, g)
    pgame = game_class(_params_of(g), _rule=g.rule, _package=g)
    snapshot = json.dumps({k: v for k, v in doc.items() if k not in _HIDDEN_KEYS}, sort_keys=True, default=str)
    sizes = [len(h) for h in state.hands]
    return state_class(pgame, inner, [f"from {snapshot} hands {sizes} stock {len(state.stock)}"])


def _params_of(g) -> dict:
    if g.rule in CORE_RULES:
        out = {"players": g.players, "kids": g.kids, "deals": g.deals}
        if g.rule != "traditional":
            physics = "statics" if getattr(g.adjudicator, "name", "") == "statics" else "none"
            out.update(physics=physics, max_placements=g.max_placements or 0)
        if g.rule == "defi":
            out["variant"] = g.variant or ""
        return out
    o = g.options()
    out = {"players": g.players, "set": o["set"], "variant": o["variant"] or ""}
    if g.rule == "matador":
        out.update(deals=o["deals"], target=o["target"] or 0)
    return out


# -- a player -----------------------------------------------------------------------------------

MAX_SIMULATIONS = 100
"""Default searches per move of :class:`ISMCTSPlayer` (small: a move costs ~0.1-1 s)."""


class ISMCTSPlayer:
    """OpenSpiel's information-set MCTS (``ISMCTSBot``, UCT, random rollouts) at a seat.

    Each ``choose(state)`` builds a pyspiel state from the package state
    (:func:`from_package_state`), searches ``max_simulations`` worlds resampled with
    :func:`resample`, and maps the chosen id back to the package's action. Deterministic
    for a ``seed`` (one ``numpy.random.RandomState`` drives the bot, the rollouts and the
    resampling). Tower games played with physics are searched rules-only by default (the
    search does not ask the adjudicator: nothing collapses in its plans);
    ``search_physics=True`` searches a statics game with the statics (every simulated
    placement judged: ~5 ms each, so a move costs seconds).
    """

    kind = "ismcts"

    def __init__(self, seed=0, max_simulations: int = MAX_SIMULATIONS, uct_c: float = 2.0, search_physics: bool = False):
        _pyspiel("ISMCTSPlayer")
        self.search_physics = bool(search_physics)
        if isinstance(seed, np.random.SeedSequence):
            seed = int(seed.generate_state(1)[0])
        self.rng = np.random.RandomState(0 if seed is None else int(seed) % 2**32)
        self.max_simulations = int(max_simulations)
        self.uct_c = float(uct_c)

    def choose(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        from open_spiel.python.algorithms import ismcts, mcts  # the openspiel extra, imported on use

        root = from_package_state(state, self.search_physics)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self.rng)
        bot = ismcts.ISMCTSBot(root.get_game(), evaluator, self.uct_c, self.max_simulations, random_state=self.rng)
        bot.set_resampler(lambda s, player: resample(s, player, self.rng))
        return root.decode(int(bot.step(root)))
