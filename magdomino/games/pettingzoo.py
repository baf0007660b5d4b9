"""The package's six games as PettingZoo AEC environments (``pettingzoo.AECEnv``).

Optional: needs the ``pettingzoo`` extra (``pip install 'magdomino[pettingzoo]'``); without
it :func:`env` raises an :class:`~magdomino.errors.InputError` saying so, and nothing else
here imports PettingZoo or Gymnasium (``import magdomino`` never does).

Example
-------
>>> from magdomino.games.pettingzoo import env
>>> e = env("defi", players=3, physics="statics", seed=1)
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = e.action_space(agent).sample(obs["action_mask"])
...     e.step(action)

**Agents.** ``player_0`` … ``player_{n-1}``, the game's seats; ``agent_selection`` is the
seat to move. Chance events (the deal, draws) are played by the environment between two
agents' steps, from the game's own seeded stream.

**Seeds.** ``reset(seed=s)`` plays the game with seed ``s`` (the same deal as
``magdomino play --seed s``); ``reset()`` without a seed plays the seed given at creation
the first time, then the previous game's seed + 1. Sampling from an action space is seeded
by the caller (``env.action_space(agent).seed(...)``), as in Gymnasium.

**Physics.** The tower rules (``traditional``, ``defi``, ``quinconce``) are judged by the
physics chosen at creation: ``"none"`` (rules only: nothing collapses), ``"statics"`` or
``"dynamics"`` (the engines of :mod:`magdomino.studies.engines`, with the preset
``preset``, magnets on unless ``magnets=False``). Judged games get the runaway guard
``max_placements`` = :data:`PHYSICS_GUARD` unless the option is given: a deal that reaches
it is abandoned (not scored). Traditional never collapses (its placements are still sent
to the engine). The other games take ``physics="none"`` only.

**Actions.** ``Discrete(n)``, numbered as the OpenSpiel face numbers them
(:mod:`magdomino.games.openspiel.games`, :mod:`magdomino.games.openspiel.vingt`), so a
policy's ids mean the same move in both faces. Sizes (:func:`action_size`):

========================  =================================================
traditional               12,658 (tile × x × direction, + draw, pass)
defi, quinconce           3,946,322 (tile × parent × level step × dx × dy ×
                          direction × motion, + draw, pass)
matador                   8 kinds × (18 + T)³ fields: 778,688 with the
                          double-six set (sets 7, 8, 9: 1,259,712,
                          2,000,376, 3,112,136)
echanges                  778,688 (as matador's double six)
vingt                     7,590,762 (anchor × direction × rack
                          arrangement, + pass, stop)
========================  =================================================

The legal ids are ``observation["action_mask"] == 1`` (an ``int8`` vector of length ``n``,
as PettingZoo's classic games give it; all zero for an agent whose turn it is not). A
step with an id that is not legal raises :class:`~magdomino.errors.InputError` and leaves
the game unchanged. ``info["moves"]`` maps each legal id to the move's text, as the
OpenSpiel face's history writes it (in the infos of the agent to move only).

**Observations.** A ``gymnasium.spaces.Dict`` of fixed-shape ``Box`` arrays, for the
observing agent. Fields indexed by seat list the observer first, then the seats after
it in play order. ``T`` is the number of tiles of the game's set (28; matador: its set's;
vingt: 54), ``N`` the number of players.

- every game: ``action_mask`` (``(n,)`` int8); ``hand`` (``(T,)`` int8: 1 for each tile
  of the set the observer holds, in the set's order, ``magdomino.model.tiles.ALL_TILES``
  for the tower rules); ``hand_sizes`` (``(N,)`` int16); ``stock`` (``(1,)`` int16: tiles
  in the stock); ``scores`` (``(N,)`` float32: the match totals so far, as the game counts
  them: tower rules, pips left, lower is better; matador and vingt, points, higher is
  better; echanges, SUN minus RAIN, the same for everyone);
- tower rules: ``construction`` (``(28, 7)`` int16, row ``i`` the construction's tile
  number ``i``: present (0/1), tile index, x, y, level, direction, parent's number (−1:
  none)); ``modes`` (``(N,)`` int8: 0 a seat places flat next, 1 on top; quinconce);
  ``progress`` (``(3,)`` int16: deal number, placements this deal, collapses);
- matador, echanges: ``table`` (``(T, 5)`` int16, the chain from left to right: present,
  tile index, left half shown, right half shown, laid across (0/1)); ``ends`` (``(2, 2)``
  int16: per end, the value it shows (−1: none) and its kind, 0 open, 1 closed by a
  crossed matador); echanges also ``hands`` (``(N, T)`` int8: every seat's tile, face up
  in this game), ``boxes`` (``(2,)`` int16: tiles on SUN, on RAIN) and ``phase`` (``(1,)``
  int8: 0 play, 1 exchange, 2 draw, 3 swapped);
- vingt: ``table`` (``(160, 4)`` int16, the occupied cells sorted by position: present,
  x, y, value (a half's pips; −1 − seat for a seat's marker)); ``markers_left`` (``(N,)``
  int16).

**Rewards** are 0 until the end, then the game's returns (``state.returns()``: each winner
``1/len(winners)``, the others 0; echanges: +1 or −1 for everyone). The match ends with
every agent terminated, or truncated when the runaway guard abandoned its last deal.
"""

from __future__ import annotations

import numpy as np

from magdomino.checks import check_choice, check_seed
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.core import ABANDONED, CHANCE, TERMINAL, make_game
from magdomino.games.openspiel.vingt import NUM_ACTIONS
from magdomino.games.openspiel.vingt import encode as encode_vingt
from magdomino.games.vingt.game import TILES
from magdomino.games.vingt.moves import cell
from magdomino.model.tiles import ALL_TILES, TILE_SETS
from magdomino.optional import require

TOWER_RULES = ("traditional", "defi", "quinconce")
CHAIN_RULES = ("matador", "echanges")
RULES = TOWER_RULES + CHAIN_RULES + ("vingt",)
PHYSICS = ("none", "statics", "dynamics")
PHYSICS_GUARD = 200
"""``max_placements`` of a tower game judged by physics unless the option is given."""
VINGT_CELLS = 160
"""Rows of vingt's ``table``: 54 tiles of two halves and at most 45 markers fit."""
_PHASES = ("play", "exchange", "draw", "swapped")


def _modules():
    """(gymnasium.spaces, pettingzoo.AECEnv), or the one-line InputError telling how to install them."""
    spaces = require("gymnasium.spaces", "a PettingZoo environment", key="env")
    return spaces, require("pettingzoo", "a PettingZoo environment", key="env").AECEnv


# -- the games' parts -----------------------------------------------------------------------------


def _check(rule, physics) -> None:
    check_choice(rule, "rule", RULES)
    if physics != "pybullet":  # the dynamics' deprecated spelling, which get_engine maps
        check_choice(physics, "physics", PHYSICS)
    if physics != "none" and rule not in TOWER_RULES:
        raise InputError(ARGUMENTS, "physics", f"'none': {rule} is not judged by physics (the tower rules are)")


def _adjudicator(physics: str, preset, magnets: bool):
    """The engine's adjudicator for a tower game (None: rules only)."""
    if physics == "none":
        return None
    # on use: the presets and the engines bring numba and physics (~1 s), which rules-only games do without
    from magdomino.model.presets import DEFAULT_PRESET, Preset, load_preset
    from magdomino.studies.engines import get_engine

    chosen = preset if isinstance(preset, Preset) else load_preset(preset or DEFAULT_PRESET)
    return get_engine(physics, key="physics").adjudicator(chosen, magnets=magnets)


def _new_game(rule: str, players, seed: int, options: dict, adjudicator):
    opts = dict(options)
    if rule in TOWER_RULES and adjudicator is not None:
        opts["adjudicator"] = adjudicator
        opts.setdefault("max_placements", PHYSICS_GUARD)
    return make_game(rule, players, seed, opts)


def set_tiles(game) -> tuple:
    """The tiles of ``game``'s set, in the order of the observations' ``hand``."""
    if game.rule == "vingt":
        return tuple(TILES)
    if game.rule in CHAIN_RULES:
        return tuple(game.tiles)
    return tuple(ALL_TILES)


def action_size(rule: str, **options) -> int:
    """Size of ``rule``'s ``Discrete`` action space (matador: with option ``set``, default 6)."""
    from magdomino.games.openspiel import games as spiel  # on use: it imports the presets (~0.8 s)

    _check(rule, "none")
    if rule == "vingt":
        return NUM_ACTIONS
    if rule in CHAIN_RULES:
        top = options.get("set", 6)
        if top not in TILE_SETS:
            raise InputError(ARGUMENTS, "set", f"one of {', '.join(map(str, sorted(TILE_SETS)))}, got {top!r}")
        return spiel.num_actions(rule, len(TILE_SETS[top].tiles))
    return spiel.num_actions(rule)


def legal_ids(state, tiles: tuple) -> dict:
    """``{id: action}`` of the legal actions of the seat to move in ``state``."""
    rule = state.game.rule
    legal = state.legal_actions()
    if rule == "vingt":
        return {encode_vingt(state, a): a for a in legal}
    from magdomino.games.openspiel.games import encode  # on use: it imports the presets (~0.8 s)

    if rule in CHAIN_RULES:
        return {encode(rule, tiles, a): a for a in legal}
    return {encode(rule, tiles, a, state): a for a in legal}


def move_text(action) -> str:
    """An action as the game's log writes it."""
    return str(action) if not isinstance(action, tuple) else " ".join(str(x) for x in action)


def _box(spaces, low, high, shape, dtype):
    return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)


def observation_space(spaces, game, n_actions: int):
    """The ``Dict`` space of one agent's observations (module docstring)."""
    rule, n = game.rule, game.players
    tiles = set_tiles(game)
    t = len(tiles)
    fields = {
        "action_mask": _box(spaces, 0, 1, (n_actions,), np.int8),
        "hand": _box(spaces, 0, 1, (t,), np.int8),
        "hand_sizes": _box(spaces, 0, t, (n,), np.int16),
        "stock": _box(spaces, 0, t, (1,), np.int16),
        "scores": _box(spaces, -1e6, 1e6, (n,), np.float32),
    }
    if rule in TOWER_RULES:
        fields["construction"] = _box(spaces, -128, 128, (28, 7), np.int16)
        fields["modes"] = _box(spaces, 0, 1, (n,), np.int8)
        fields["progress"] = _box(spaces, 0, 10000, (3,), np.int16)
    elif rule in CHAIN_RULES:
        fields["table"] = _box(spaces, -1, 64, (t, 5), np.int16)
        fields["ends"] = _box(spaces, -1, 64, (2, 2), np.int16)
        if rule == "echanges":
            fields["hands"] = _box(spaces, 0, 1, (n, t), np.int8)
            fields["boxes"] = _box(spaces, 0, t, (2,), np.int16)
            fields["phase"] = _box(spaces, 0, len(_PHASES) - 1, (1,), np.int8)
    else:
        fields["table"] = _box(spaces, -512, 512, (VINGT_CELLS, 4), np.int16)
        fields["markers_left"] = _box(spaces, 0, 64, (n,), np.int16)
    return spaces.Dict(fields)


def observe_state(state, seat: int, tiles: tuple, mask: np.ndarray) -> dict:
    """One seat's observation of ``state`` (module docstring); ``mask`` is its action mask."""
    game = state.game
    rule, n = game.rule, game.players
    order = [(seat + i) % n for i in range(n)]
    index = {tile: i for i, tile in enumerate(tiles)}
    hands = (state.racks if rule == "vingt" else state.hands) if _has_deal(state) else None
    hand = np.zeros(len(tiles), np.int8)
    sizes = np.zeros(n, np.int16)
    if hands:
        for tile in hands[seat]:
            hand[index[tuple(tile)]] = 1
        sizes[:] = [len(hands[s]) for s in order]
    stock = np.array([len(state.stock) if hands else 0], np.int16)
    if rule in TOWER_RULES:
        totals = state.scores()
    elif rule == "echanges":
        totals = [len(state.sun) - len(state.rain)] * n
    else:
        totals = state.totals
    obs = {
        "action_mask": mask,
        "hand": hand,
        "hand_sizes": sizes,
        "stock": stock,
        "scores": np.array([totals[s] for s in order], np.float32),
    }
    if rule in TOWER_RULES:
        rows = np.zeros((28, 7), np.int16)
        rows[:, 6] = -1
        for i, a in enumerate(state.placed if hands else ()):
            rows[i] = (1, index[a.tile], a.x, a.y, a.level, a.d, -1 if a.parent is None else a.parent)
        obs["construction"] = rows
        owed = getattr(state, "owed", None) or ["flat"] * n
        obs["modes"] = np.array([int(owed[s] == "tower") for s in order], np.int8)
        obs["progress"] = np.array([max(state.deal_no, 0), state.placements, state.collapses], np.int16)
    elif rule in CHAIN_RULES:
        rows = np.zeros((len(tiles), 5), np.int16)
        for i, lay in enumerate(state.table if hands else ()):
            left, right = lay["halves"]
            rows[i] = (1, index[tuple(lay["tile"])], left, right, int(bool(lay.get("crossed"))))
        obs["table"] = rows
        ends = np.full((2, 2), -1, np.int16)
        for k, (value, kind) in enumerate((state.ends or [])[:2] if hands else []):
            ends[k] = (-1 if value is None else value, 0 if kind == "open" else 1)
        obs["ends"] = ends
        if rule == "echanges":
            every = np.zeros((n, len(tiles)), np.int8)
            for row, s in enumerate(order):
                for tile in hands[s] if hands else ():
                    every[row, index[tuple(tile)]] = 1
            obs["hands"] = every
            obs["boxes"] = np.array([len(state.sun), len(state.rain)], np.int16)
            obs["phase"] = np.array([_PHASES.index(state.phase) if state.phase in _PHASES else 0], np.int8)
    else:
        rows = np.zeros((VINGT_CELLS, 4), np.int16)
        for i, k in enumerate(sorted(state.occ) if hands else ()):
            x, y = cell(k)
            rows[i] = (1, x, y, state.occ[k])
        obs["table"] = rows
        obs["markers_left"] = np.array([state.markers_left[s] for s in order], np.int16)
    return obs


def _has_deal(state) -> bool:
    """Whether a deal has been made (a state before its first deal holds no hands yet)."""
    if state.game.rule == "vingt":
        return state.round_no >= 0
    if state.game.rule in CHAIN_RULES:
        return state.deal_no >= 0 and bool(state.hands)
    return state.deal_no >= 0


# -- the environment ------------------------------------------------------------------------------


def _env_class():
    """The AECEnv subclass (built by each :func:`env`, once PettingZoo is importable: a class
    costs microseconds, an environment's every step more)."""
    spaces, AECEnv = _modules()

    class MagdominoEnv(AECEnv):
        """One of the package's games as a PettingZoo AEC environment (module docstring)."""

        metadata = {"name": "magdomino_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

        def __init__(self, rule, players, physics, seed, render_mode, preset, magnets, options):
            super().__init__()
            self.rule = rule
            self.physics = physics
            self.render_mode = render_mode
            self.options = dict(options)
            self.adjudicator = _adjudicator(physics, preset, magnets)
            self.game = _new_game(rule, players, seed, self.options, self.adjudicator)
            self.metadata = {**self.metadata, "name": f"magdomino_{rule}_v0"}
            self._next_seed = self.game.seed
            self.tiles = set_tiles(self.game)
            size = action_size(rule, **({"set": self.game.top} if rule in CHAIN_RULES else {}))
            self.possible_agents = [f"player_{s}" for s in range(self.game.players)]
            self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
            self.observation_spaces = {
                a: observation_space(spaces, self.game, size) for a in self.possible_agents
            }
            self.position = None
            """The game's position (a package state: ``legal_actions()``, ``to_json()`` …)."""
            self._legal: dict = {}

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def reset(self, seed=None, options=None):
            if seed is not None:
                self._next_seed = check_seed(seed)
            self.game = _new_game(self.rule, self.game.players, self._next_seed, self.options, self.adjudicator)
            self._next_seed = self.game.seed + 1
            self.position = self.game.new_initial_state()
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self._skip_agent_selection = None
            self._advance()

        def _advance(self) -> None:
            """Play the chance events up to the next seat's turn or the end, and say who moves."""
            s = self.position
            while s.current_player() == CHANCE:
                s.apply_action(s.legal_actions()[0])
            self.infos = {a: {} for a in self.agents}
            if s.current_player() == TERMINAL:
                self._legal = {}
                returns = s.returns()
                truncated = self._abandoned()
                for seat, a in enumerate(self.possible_agents):
                    if a in self.agents:
                        self.rewards[a] = float(returns[seat])
                        self.terminations[a] = not truncated
                        self.truncations[a] = truncated
                return
            seat = s.current_player()
            self._legal = legal_ids(s, self.tiles)
            self.agent_selection = self.possible_agents[seat]
            self.infos[self.agent_selection] = {"moves": {i: move_text(a) for i, a in sorted(self._legal.items())}}

        def _abandoned(self) -> bool:
            results = getattr(self.position, "results", None)
            if self.rule not in TOWER_RULES or not results:
                return False
            return results[-1]["reason"] == ABANDONED

        def observe(self, agent):
            if self.position is None:
                raise InputError(ARGUMENTS, "observe", "reset() before the first observation")
            seat = self.possible_agents.index(agent)
            n = self.action_spaces[agent].n
            mask = np.zeros(n, np.int8)
            if self.position is not None and self.position.current_player() == seat:
                mask[list(self._legal)] = 1
            return observe_state(self.position, seat, self.tiles, mask)

        def step(self, action):
            if self.position is None:
                raise InputError(ARGUMENTS, "step", "reset() before the first step")
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            try:
                move = self._legal[int(action)]
            except (KeyError, TypeError, ValueError):
                raise InputError(
                    ARGUMENTS, "action", f"a legal action id of {agent} (observation['action_mask']), got {action!r}"
                ) from None
            self._cumulative_rewards[agent] = 0.0
            self.rewards = {a: 0.0 for a in self.agents}
            self.position.apply_action(move)
            self._advance()
            self._accumulate_rewards()
            if self.render_mode == "human":
                self.render()

        def render(self):
            if self.render_mode is None or self.position is None:
                return None
            text = str(self.position)
            if self.render_mode == "human":
                print(text)
                return None
            return text

        def close(self):
            adj = self.adjudicator
            if adj is not None and hasattr(adj, "close"):
                adj.close()

    return MagdominoEnv


def env(rule: str, players: int = 2, physics: str = "none", seed: int = 0, *, render_mode: str | None = None,
        preset=None, magnets: bool = True, **options):
    """One of the games as a PettingZoo AEC environment (module docstring).

    Parameters
    ----------
    rule : "traditional" | "defi" | "quinconce" | "matador" | "echanges" | "vingt"
    players : int
        The seats (``player_0`` …): 2-4 (matador with a larger set: 2-6; echanges: 3-6).
    physics : "none" | "statics" | "dynamics" (``"pybullet"``: its deprecated spelling)
        Who judges the tower rules' placements; the other games take ``"none"`` only.
    seed : int
        The seed of the first ``reset()`` without one.
    render_mode : None | "ansi" | "human"
        ``render()`` returns the position as text (``"ansi"``) or prints it after every
        step (``"human"``).
    preset : str or Preset, optional
        The preset physics judges with (default :data:`magdomino.model.presets.DEFAULT_PRESET`).
    magnets : bool
        Magnets on in physics.
    **options
        The game's options (:class:`magdomino.games.core.Game`: ``variant``, ``kids``,
        ``deals``, ``max_placements`` …; matador: ``set``, ``variant``, ``deals``,
        ``target``; vingt: ``target``).

    Returns
    -------
    pettingzoo.AECEnv
        Call ``reset()`` before the first step.
    """
    cls = _env_class()
    _check(rule, physics)
    if render_mode is not None:
        check_choice(render_mode, "render_mode", ("ansi", "human"))
    return cls(rule, players, physics, check_seed(seed), render_mode, preset, bool(magnets), options)
