"""The package's games as OpenSpiel (pyspiel) games, for OpenSpiel's algorithms and tests.

Optional: needs the ``openspiel`` extra (``pip install 'magdomino[openspiel]'``), which this
module imports (:func:`magdomino.games.players.optional_player` says how to install it when
it is missing). The games are module-level classes, as OpenSpiel's own Python games are,
one module per family of games (:mod:`magdomino.games.family`):
:mod:`~magdomino.games.openspiel.tower` (traditional, defi, quinconce),
:mod:`~magdomino.games.openspiel.chain` (matador, echanges) and
:mod:`~magdomino.games.openspiel.vingt`; this module holds what they share
(:class:`MagdominoGame`, :class:`MagdominoState`, :class:`Observer`) and registers them all
as ``magdomino_<rule>`` (:func:`register_all`, :func:`load_game`).

Mapping (why: OpenSpiel wants explicit chance with probabilities and integer actions):

- **Chance.** A deal is dealt tile by tile: each chance outcome is the index of a tile of
  the set (uniform over the tiles not yet dealt); what is dealt, and which draws are
  chance nodes of their own, is the family module's.
- **Actions.** The compact ids every program face shares (:mod:`magdomino.games.codec`:
  18,846 for the tower rules, 11 T + 12 for the chain games;
  :mod:`magdomino.games.vingt_codec`: 4,470 for 20 sur 20, whose moves are chosen in
  one-tile sub-steps by the same player). An id means the same move in every state.
- **Information.** ``information_state_string(p)``: p's own hand, then the public history
  (every move; chance outcomes shown as ``?``). A state built from a package state
  (:func:`from_package_state`) starts its public history with a snapshot of the public
  part of that position. ``observation_tensor(p)`` and ``information_state_tensor(p)``:
  the observation of :mod:`magdomino.games.family` (p's hand, the construction or table,
  every seat's count of tiles, scores, the modes owed in En quinconce, a 20 sur 20 move
  chosen so far), the same vector as the PettingZoo face's ``observation``; so
  ``open_spiel.python.rl_environment.Environment`` plays the games.
- **Resampling** (for information-set MCTS): the tiles a seat cannot see (the other hands
  and the stock) are dealt again at random, hand sizes kept. It ignores what a draw or a
  pass revealed about a hand (a common determinisation shortcut).
"""

from __future__ import annotations

import importlib
import json

import numpy as np

from magdomino.optional import require

pyspiel = require("pyspiel", "OpenSpiel's games", key="openspiel")

from magdomino.errors import InputError  # noqa: E402 (after the check that says how to install it)
from magdomino.games.family import CHAIN, TOWER, Observation, family_of  # noqa: E402

CORE_RULES = TOWER.rules
CHAIN_RULES = CHAIN.rules
FAMILY_MODULES = {"tower": "magdomino.games.openspiel.tower", "chain": "magdomino.games.openspiel.chain",
                  "vingt": "magdomino.games.openspiel.vingt"}
"""The module of each family's pyspiel games (each has ``GAME_CLASSES``, ``from_package_state``)."""
HIDDEN_KEYS = ("hands", "stock", "rng", "log", "events", "format", "game", "racks")
"""A package state's JSON keys that a public snapshot leaves out."""


def _family_module(rule: str):
    return importlib.import_module(FAMILY_MODULES[family_of(rule).name])


def game_classes() -> dict:
    """``{rule: pyspiel game class}`` of every game."""
    out = {}
    for name in FAMILY_MODULES.values():
        out.update(importlib.import_module(name).GAME_CLASSES)
    return out


def parameters(rule: str) -> dict:
    """The pyspiel parameters of ``magdomino_<rule>`` and their defaults."""
    try:
        return dict(game_classes()[rule].PARAMETERS)
    except KeyError:
        raise InputError("openspiel", "rule", f"one of {', '.join(game_classes())}, got {rule!r}") from None


def game_type(rule: str, params: dict, long_name: str = ""):
    """The ``pyspiel.GameType`` of ``magdomino_<rule>`` with parameters ``params``."""
    lo, hi = {"matador": (2, 6), "echanges": (3, 6)}.get(rule, (2, 4))  # matador 7-9: up to 6
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


# -- the pyspiel game ---------------------------------------------------------------------------


class MagdominoGame(pyspiel.Game):
    """``magdomino_<rule>``: one of the package's games (module docstring). A subclass per rule
    (in its family's module) sets ``RULE``, ``PARAMETERS``, ``GAME_TYPE`` and ``STATE``."""

    RULE = ""
    PARAMETERS: dict = {}
    GAME_TYPE = None
    STATE: type = None
    UTILITY = (-1.0, 1.0)

    def __init__(self, params=None, _package=None):
        params = dict(params or {})
        self.rule = self.RULE
        self.family = family_of(self.rule)
        self.package = _package if _package is not None else self.package_game({**self.PARAMETERS, **params})
        self.tiles = self.family.tiles(self.package)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.family.action_size(self.package),
            max_chance_outcomes=len(self.tiles),
            num_players=self.package.players,
            min_utility=self.UTILITY[0],
            max_utility=self.UTILITY[1],
            utility_sum=None,
            max_game_length=self.max_length(),
        )
        super().__init__(self.GAME_TYPE, info, params)

    def package_game(self, params: dict):
        """The package's game for the pyspiel parameters ``params`` (defaults filled in)."""
        raise NotImplementedError

    def max_length(self) -> int:
        return 1000 * getattr(self.package, "deals", 1)

    def new_initial_state(self):
        return self.STATE(self, self.package.new_initial_state())

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(self)


class MagdominoState(pyspiel.State):
    """A pyspiel state shadowing a package state (``self.inner``); the seat to move chooses
    through ``turn`` (:meth:`magdomino.games.family.Family.turn`). A family's subclass says
    what chance deals (``_chance_kind``, ``_deal_size``, ``_finish_deal``) and resamples."""

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

    def _chance_kind(self):
        """What the package state waits for at a chance node: "deal", "draw" or None."""
        raise NotImplementedError

    def _deal_size(self) -> int:
        raise NotImplementedError

    def _finish_deal(self):
        raise NotImplementedError

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
                order = [self.tiles[i] for i in self.dealt]
                self.dealt = []
                self._finish_deal(order)
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
        hands = self.family.hands(self.inner) if self.family.has_deal(self.inner) else None
        return f"seat {player} hand {sorted(hands[player]) if hands else []} | " + " ".join(self.public)

    def clone(self):
        c = type(self)(self.get_game(), self.inner.clone(), self.public)
        c.dealt = list(self.dealt)
        c._turn = None if self._turn is None else self._turn.copy()
        # the pyspiel history is not carried by a Python clone: replay the ids
        return c

    def resample_from_infostate(self, player_id, probability_sampler):
        return self.resample(player_id, np.random.RandomState(int(probability_sampler() * 2**31)))

    def resample(self, player: int, rng: np.random.RandomState):
        """A copy with the tiles ``player`` cannot see dealt again (:func:`resample`)."""
        return deal_hidden_again(self, player, rng)

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


def resample(state, player: int, rng: np.random.RandomState):
    """A copy of ``state`` with the tiles ``player`` cannot see (the other hands and the stock)
    dealt again, sizes kept (module docstring; what stays put is the family's)."""
    return state.resample(player, rng)


def deal_hidden_again(state, player: int, rng: np.random.RandomState, keep=(), fixed_seats=()):
    """:func:`resample` keeping the tiles ``keep`` where they are and the hands of
    ``fixed_seats`` as they are."""
    c = state.clone()
    inner = c.inner
    if state.dealt or not c.family.has_deal(inner):
        return c
    hands = c.family.hands(inner)
    keep = set(keep)
    others = [s for s in range(len(hands)) if s != player and s not in fixed_seats]
    pool = [t for s in others for t in hands[s] if t not in keep] + [t for t in inner.stock if t not in keep]
    order = [pool[i] for i in rng.permutation(len(pool))]
    i = 0
    for s in others:
        held = [t for t in hands[s] if t in keep]
        n = len(hands[s]) - len(held)
        hands[s] = sorted(held + order[i : i + n])
        i += n
    inner.stock = [t for t in inner.stock if t in keep] + order[i:]
    inner._legal = None
    if inner.current_player() != player:
        c._turn = None  # another seat's choice depends on the hand dealt to it
    return c


def public_snapshot(state, sizes_name: str = "hands") -> str:
    """The first entry of the public history of a pyspiel state made from the package state
    ``state``: its public part as JSON, then the hand sizes and the stock's."""
    doc = state.to_json()
    snapshot = json.dumps({k: v for k, v in doc.items() if k not in HIDDEN_KEYS}, sort_keys=True, default=str)
    sizes = [len(h) for h in family_of(state.game.rule).hands(state)]
    return f"from {snapshot} {sizes_name} {sizes} stock {len(state.stock)}"


_registered = False
"""Set once by :func:`register_all`: pyspiel's registry of games is the process's and keeps
what it is given until the interpreter ends."""


def register_all(*, key: str = "register_all") -> None:
    """Register every ``magdomino_<rule>`` with pyspiel (once; later calls do nothing).
    ``key`` is kept for the callers that name what asked for OpenSpiel."""
    global _registered
    if _registered:
        return
    for cls in game_classes().values():
        pyspiel.register_game(cls.GAME_TYPE, cls)
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
    return _family_module(state.game.rule).from_package_state(state, physics)


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
