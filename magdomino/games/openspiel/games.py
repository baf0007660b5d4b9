"""The package's games as OpenSpiel (pyspiel) games, for OpenSpiel's algorithms and tests.

Optional: needs the ``openspiel`` extra (``pip install 'magdomino[openspiel]'``), which this
module imports (:func:`magdomino.games.players.optional_player` says how to install it when
it is missing). The games are module-level classes, as OpenSpiel's own Python games are:
:class:`MagdominoGame` and :class:`MagdominoState` (one game class per rule,
:data:`GAME_CLASSES`; 20 sur 20's in :mod:`magdomino.games.openspiel.vingt`).
:func:`register_all` registers, once, ``magdomino_<rule>`` for ``traditional``, ``defi``,
``quinconce``, ``matador``, ``echanges`` and ``vingt``.

Mapping (why: OpenSpiel wants explicit chance with probabilities and integer actions):

- **Chance.** A deal is dealt tile by tile: each chance outcome is the index of a tile of
  the set (uniform over the tiles not yet dealt). Magnetic Domino rules deal all 28 (the
  hands in seat order, then the stock in drawing order, since their draws take the next
  stock tile), and a deal with a one-colour hand is dealt again, as the package's own
  deal does (rejection keeps the distribution uniform over the allowed deals). The chain
  games deal the hands only: each of their draws is a chance node of its own (uniform over
  the stock).
- **Actions.** The compact ids every program face shares (:mod:`magdomino.games.codec`:
  18,846 for the tower rules, 11 T + 12 for the chain games;
  :mod:`magdomino.games.vingt_codec`: 4,372 for 20 sur 20, whose moves are chosen in
  one-tile sub-steps by the same player). An id means the same move in every state.
- **Information.** ``information_state_string(p)``: p's own hand, then the public history
  (every move; chance outcomes shown as ``?``). A state built from a package state
  (:func:`from_package_state`) starts its public history with a snapshot of the public
  part of that position. ``observation_tensor(p)`` and ``information_state_tensor(p)``:
  the observation of :mod:`magdomino.games.family` (p's hand, the construction or table,
  every seat's count of tiles, scores, the modes owed in En quinconce, a 20 sur 20 move
  chosen so far), the same vector as the PettingZoo face's ``observation``; so
  ``open_spiel.python.rl_environment.Environment`` plays the games.
- **Physics.** Tower games take ``physics`` = ``"none"`` (rules only, nothing collapses) or
  ``"statics"`` (:class:`~magdomino.physics.statics_adjudicator.StaticsAdjudicator`, default
  preset, magnets on, a placement it is unsure of counted as a fall: a risk the searches
  learn to avoid; ``max_placements`` 0 means the placement limit of every face,
  :data:`~magdomino.games.family.PLACEMENT_GUARD`).
- **Resampling** (for information-set MCTS): the tiles a seat cannot see (the other hands
  and the stock) are dealt again at random, hand sizes kept. It ignores what a draw or a
  pass revealed about a hand (a common determinisation shortcut).
"""

from __future__ import annotations

import json

import numpy as np

from magdomino.optional import require

pyspiel = require("pyspiel", "OpenSpiel's games", key="openspiel")

from magdomino.errors import InputError  # noqa: E402 (after the check that says how to install it)
from magdomino.games.actions import Deal  # noqa: E402
from magdomino.games.core import Game, make_game  # noqa: E402
from magdomino.games.family import PLACEMENT_GUARD, Observation, family_of  # noqa: E402
from magdomino.games.tower.state import State  # noqa: E402
from magdomino.model.presets import DEFAULT_PRESET  # noqa: E402

CORE_RULES = ("traditional", "defi", "quinconce")
CHAIN_RULES = ("matador", "echanges")
_HIDDEN_KEYS = ("hands", "stock", "rng", "log", "events", "format", "game", "racks")


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
            opts.setdefault("max_placements", PLACEMENT_GUARD)
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


def game_type(rule: str, params: dict, long_name: str = ""):
    """The ``pyspiel.GameType`` of ``magdomino_<rule>``."""
    lo, hi = _player_range(rule)
    return pyspiel.GameType(
        short_name=f"magdomino_{rule}",
        long_name=long_name or f"Magdomino {rule}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=False,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


GAME_TYPES = {rule: game_type(rule, parameters(rule)) for rule in CORE_RULES + CHAIN_RULES}
"""Each tower and chain rule's ``pyspiel.GameType``."""


# -- the pyspiel game ---------------------------------------------------------------------------


class MagdominoGame(pyspiel.Game):
    """``magdomino_<rule>``: one of the package's games (module docstring); a subclass per
    rule names it (:data:`GAME_CLASSES`)."""

    RULE = ""

    def __init__(self, params=None, _rule=None, _package=None):
        params = dict(params or {})
        rule = _rule or self.RULE
        self.rule = rule
        self.family = family_of(rule)
        self.package = _package if _package is not None else self._package_game(rule, params)
        self.tiles = self.family.tiles(self.package)
        deals = getattr(self.package, "deals", 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.family.action_size(self.package),
            max_chance_outcomes=len(self.tiles),
            num_players=self.package.players,
            min_utility=self._utility_range()[0],
            max_utility=self._utility_range()[1],
            utility_sum=None,
            max_game_length=self._max_length(deals),
        )
        super().__init__(self._game_type(), info, params)

    def _package_game(self, rule, params):
        return package_game(rule, params)

    def _game_type(self):
        return GAME_TYPES[self.rule]

    def _utility_range(self) -> tuple[float, float]:
        return -1.0, 1.0

    def _max_length(self, deals: int) -> int:
        return 1000 * deals

    def new_initial_state(self):
        return self.state_class(self, self.package.new_initial_state())

    @property
    def state_class(self):
        return MagdominoState

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(self)


class MagdominoState(pyspiel.State):
    """A pyspiel state shadowing a package state (``self.inner``); the seat to move chooses
    through ``turn`` (:meth:`magdomino.games.family.Family.turn`)."""

    def __init__(self, game, inner, public=None):
        super().__init__(game)
        self.inner = inner
        self.rule = game.rule
        self.family = game.family
        self.tiles = game.tiles
        self.dealt: list = []  # tile indices dealt so far in a deal under way
        self.public: list = list(public or [])
        self._turn = None

    @property
    def turn(self):
        """The choice of the seat to move (None at a chance node or the end)."""
        if self._turn is None and self.inner.current_player() >= 0 and self._chance_kind() is None:
            self._turn = self.family.turn(self.inner)
        return self._turn

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
        if player != self.inner.current_player() or self.turn is None:
            return []
        return sorted(self.turn.ids)

    def decode(self, action: int):
        """The package move that id ``action`` chooses here: a whole move, or None for a
        sub-step of a 20 sur 20 move (ValueError: not legal)."""
        if self.turn is None:
            raise ValueError(f"action id {action} is not legal here")
        return self.turn.copy().choose(int(action))

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
        seat = self.inner.current_player()
        move = self.turn.choose(int(action))
        if move is None:  # a sub-step: the same seat chooses on
            self.public.append(f"{seat}:#{int(action)}")
            return
        self.public.append(f"{seat}:{self.action_text(move)}")
        self.inner.apply_action(move)
        self._turn = None

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
        move = self.decode(action)
        return f"#{action}" if move is None else self.action_text(move)

    @staticmethod
    def action_text(a) -> str:
        """A package action as the public history shows it."""
        return str(a) if not isinstance(a, tuple) else " ".join(str(x) for x in a)

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
        c._turn = None if self._turn is None else self._turn.copy()
        # the pyspiel history is not carried by a Python clone: replay the ids
        return c

    def resample_from_infostate(self, player_id, probability_sampler):
        return self.resample(player_id, np.random.RandomState(int(probability_sampler() * 2**31)))

    def resample(self, player: int, rng: np.random.RandomState):
        """A copy with the hidden tiles dealt again (:func:`resample`)."""
        return _resample_hands(self, player, rng)

    def __str__(self):
        if self._chance_kind() == "deal":  # a chain state cannot print itself before its deal
            return f"dealing: {[self.tiles[i] for i in self.dealt]}"
        return str(self.inner)


class Observer:
    """The observation and information-state tensors (:mod:`magdomino.games.family`'s
    observation of the seat) and the information state string, for every game here."""

    def __init__(self, game):
        self.family = game.family
        obs = Observation(self.family.pieces(game.package))
        self.tensor, self.dict = obs.tensor, obs.dict

    def set_from(self, state, player):
        self.tensor.fill(0)
        mine = state.inner.current_player() == player and state._chance_kind() is None
        self.family.observe(state.inner, player, state.turn if mine else None, self.dict)

    def string_from(self, state, player):
        return state.info_string(player)


class TraditionalGame(MagdominoGame):
    RULE = "traditional"


class DefiGame(MagdominoGame):
    RULE = "defi"


class QuinconceGame(MagdominoGame):
    RULE = "quinconce"


class MatadorGame(MagdominoGame):
    RULE = "matador"


class EchangesGame(MagdominoGame):
    RULE = "echanges"


GAME_CLASSES = {c.RULE: c for c in (TraditionalGame, DefiGame, QuinconceGame, MatadorGame, EchangesGame)}
"""The pyspiel game class of each tower and chain rule (20 sur 20's: :mod:`magdomino.games.openspiel.vingt`)."""
_registered = False
"""Set once by :func:`register_all`: pyspiel's registry of games is the process's and keeps
what it is given until the interpreter ends."""


def resample(state, player: int, rng: np.random.RandomState):
    """A copy of ``state`` with the tiles ``player`` cannot see dealt again (module docstring).

    The hands of the other seats and the stock keep their sizes; a forced start (the
    holder of the highest double) keeps its tile where it is. 20 sur 20:
    :func:`magdomino.games.openspiel.vingt.resample`.
    """
    return state.resample(player, rng)


def _resample_hands(state, player: int, rng: np.random.RandomState):
    """:func:`resample` of a tower or chain game."""
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
    if inner.current_player() != player:
        c._turn = None  # another seat's choice depends on the hand dealt to it
    return c


def register_all(*, key: str = "register_all") -> None:
    """Register every ``magdomino_<rule>`` with pyspiel (once; later calls do nothing).
    ``key`` is kept for the callers that name what asked for OpenSpiel."""
    global _registered
    if _registered:
        return
    from magdomino.games.openspiel import vingt  # the same face's 20 sur 20

    for rule, cls in GAME_CLASSES.items():
        pyspiel.register_game(GAME_TYPES[rule], cls)
    pyspiel.register_game(vingt.GAME_TYPE, vingt.VingtSpielGame)
    _registered = True


def load_game(rule: str, params: dict | None = None):
    """``pyspiel.load_game("magdomino_<rule>", params)`` after :func:`register_all`."""
    register_all()
    return pyspiel.load_game(f"magdomino_{rule}", dict(params or {}))


def from_package_state(state, physics: bool = False):
    """A pyspiel state for a package state at a seat's turn (its public part as history).

    A tower game's physics is dropped (rules only) unless ``physics`` is True and it is
    the statics adjudicator (stateless: clones may share it; pybullet is never searched).
    """
    register_all(key="from_package_state")
    g = state.game
    if g.rule == "vingt":
        from magdomino.games.openspiel import vingt

        return vingt.from_package_state(state)
    doc = state.to_json()
    inner = state.clone()
    keep = physics and getattr(g.adjudicator, "name", "") == "statics"
    if g.rule in CORE_RULES and not g.trivial and not keep:  # search rules-only
        g = Game.from_json(g.to_json())
        inner = State.from_json(doc, g)
    pgame = GAME_CLASSES[g.rule](_params_of(g), _package=g)
    snapshot = json.dumps({k: v for k, v in doc.items() if k not in _HIDDEN_KEYS}, sort_keys=True, default=str)
    sizes = [len(h) for h in state.hands]
    return MagdominoState(pgame, inner, [f"from {snapshot} hands {sizes} stock {len(state.stock)}"])


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
    :func:`resample`, and maps the chosen id back to the package's action (a 20 sur 20
    move: one search per sub-step, each from the sub-steps chosen so far). Deterministic
    for a ``seed`` (one ``numpy.random.RandomState`` drives the bot, the rollouts and the
    resampling). Tower games played with physics are searched rules-only by default (the
    search does not ask the adjudicator: nothing collapses in its plans);
    ``search_physics=True`` searches a statics game with the statics (every simulated
    placement judged: ~5 ms each, so a move costs seconds).
    """

    kind = "ismcts"

    def __init__(self, seed=0, max_simulations: int = MAX_SIMULATIONS, uct_c: float = 2.0, search_physics: bool = False):
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
        while True:
            ids = root.legal_actions()
            if len(ids) == 1:
                action = ids[0]
            else:
                bot = ismcts.ISMCTSBot(root.get_game(), evaluator, self.uct_c, self.max_simulations,
                                       random_state=self.rng)
                bot.set_resampler(lambda s, player: resample(s, player, self.rng))
                action = int(bot.step(root))
            move = root.decode(action)
            if move is not None:
                return move
            root.apply_action(action)
