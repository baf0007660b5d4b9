"""What the PettingZoo face's families share (:mod:`magdomino.games.pettingzoo` says how the
environments behave): :class:`MagdominoEnv`, the AEC environment every family's ``raw_env``
is, reading the game's family (:mod:`magdomino.games.family`) for its actions, observations,
texts and pictures.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from magdomino.optional import require

gymnasium = require("gymnasium", "a PettingZoo environment", key="env")
pettingzoo = require("pettingzoo", "a PettingZoo environment", key="env")

from gymnasium import spaces  # noqa: E402 (after the check that says how to install it)
from gymnasium.utils import EzPickle  # noqa: E402

from magdomino.checks import check_choice, check_seed  # noqa: E402
from magdomino.errors import ARGUMENTS, InputError  # noqa: E402
from magdomino.games.core import CHANCE, TERMINAL, make_game  # noqa: E402
from magdomino.games.family import RULES, Observation, chain_set_size, family_of  # noqa: E402

PHYSICS = ("none", "statics", "dynamics")
RENDER_MODES = ("ansi", "human", "rgb_array")
OBSERVATION_BOUND = 1e6
"""Bound of the observation ``Box`` (grid squares, counts and scores lie well inside)."""


def _check(rule, physics) -> None:
    check_choice(rule, "rule", RULES)
    if physics != "pybullet":  # the dynamics' deprecated spelling, which get_engine maps
        check_choice(physics, "physics", PHYSICS)
    if physics != "none" and not family_of(rule).judged:
        raise InputError(ARGUMENTS, "physics", f"'none': {rule} is not judged by physics (the tower rules are)")


def _adjudicator(physics: str, preset, magnets: bool):
    """The judge of a tower game (None: rules only): ``"statics"`` the agents' judge
    (:class:`~magdomino.physics.training_adjudicator.TrainingAdjudicator`: the statics alone,
    never PyBullet), else the engine's adjudicator."""
    if physics == "none":
        return None
    # on use: the presets and the engines bring numba and physics (~1 s), which rules-only games do without
    from magdomino.model.presets import DEFAULT_PRESET, Preset, load_preset
    from magdomino.physics.training_adjudicator import TrainingAdjudicator
    from magdomino.studies.engines import get_engine

    chosen = preset if isinstance(preset, Preset) else load_preset(preset or DEFAULT_PRESET)
    if physics == "statics":
        return TrainingAdjudicator(chosen, magnets=magnets)
    return get_engine(physics, key="physics").adjudicator(chosen, magnets=magnets)


def _new_game(rule: str, players, seed: int, options: dict, adjudicator):
    opts = dict(options)
    if adjudicator is not None:
        opts["adjudicator"] = adjudicator
        opts.setdefault("max_placements", family_of(rule).guard)
    return make_game(rule, players, seed, opts)


def action_size(rule: str, **options) -> int:
    """Size of ``rule``'s ``Discrete`` action space (matador, echanges: with option ``set``, default 6)."""
    family = family_of(rule)
    if family.name == "chain":
        from magdomino.games.codec import chain_actions

        return chain_actions(chain_set_size(options))
    return family.action_size(None)


class MoveTexts(Mapping):
    """``info["moves"]``: ``{id: text}`` of the legal ids of the agent to move
    (:meth:`magdomino.games.family.Family.id_texts`), written when first read: a learning
    agent reads the mask, not the texts, and writing a turn's texts costs as much as the
    rest of a step. Read it before the next step (after it, the position it speaks of is
    gone: :class:`~magdomino.errors.InputError`)."""

    __slots__ = ("_env", "_turn", "_texts")

    def __init__(self, env, turn: int):
        self._env, self._turn, self._texts = env, turn, None

    def _all(self) -> dict:
        if self._texts is None:
            env = self._env
            if env._told != self._turn:
                raise InputError(ARGUMENTS, "info", "info['moves'] read before the next step (it names that turn's moves)")
            self._texts = env.family.id_texts(env.position, env.turn)
        return self._texts

    def __getitem__(self, action_id):
        return self._all()[action_id]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self):  # a copy (deepcopy, pickle) is the texts themselves
        return dict, (self._all(),)


class MagdominoEnv(pettingzoo.AECEnv, EzPickle):
    """One of the package's games as a PettingZoo AEC environment (:mod:`magdomino.games.pettingzoo`);
    the arguments are :func:`magdomino.games.pettingzoo.env`'s. A family's ``raw_env`` sets
    ``FAMILY``: its games only."""

    FAMILY = None

    metadata = {"name": "magdomino_v1", "render_modes": list(RENDER_MODES), "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, rule: str = "defi", players: int = 2, physics: str = "none", seed: int = 0,
                 render_mode: str | None = None, preset=None, magnets: bool = True, **options):
        EzPickle.__init__(self, rule, players, physics, seed, render_mode, preset, magnets, **options)
        super().__init__()
        _check(rule, physics)
        if self.FAMILY is not None and family_of(rule) is not self.FAMILY:
            raise InputError(ARGUMENTS, "rule", f"one of {', '.join(self.FAMILY.rules)}, got {rule!r}")
        if render_mode is not None:
            check_choice(render_mode, "render_mode", RENDER_MODES)
        self.rule = rule
        self.family = family_of(rule)
        self.physics = physics
        self.render_mode = render_mode
        self.options = dict(options)
        self.adjudicator = _adjudicator(physics, preset, bool(magnets))
        self.game = _new_game(rule, players, check_seed(seed), self.options, self.adjudicator)
        self.metadata = {**self.metadata, "name": f"magdomino_{rule}_v1"}
        self._next_seed = self.game.seed
        size = self.family.action_size(self.game)
        self._pieces = self.family.pieces(self.game)
        width = Observation(self._pieces).tensor.size
        self.possible_agents = [f"player_{s}" for s in range(self.game.players)]
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-OBSERVATION_BOUND, OBSERVATION_BOUND, (width,), np.float32),
                "action_mask": spaces.MultiBinary(size),
            })
            for a in self.possible_agents
        }
        self.position = None
        """The game's position (a package state: ``legal_actions()``, ``to_json()`` …)."""
        self.turn = None
        """The choice of the agent to move (:meth:`magdomino.games.family.Family.turn`)."""
        self._told = 0  # turns told so far: a MoveTexts of an earlier one is out of date

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observation_pieces(self, agent) -> dict:
        """The named views (:mod:`magdomino.games.family`) of ``agent``'s ``observation``."""
        obs = Observation(self._pieces)
        obs.tensor[:] = self.observe(agent)["observation"]
        return obs.dict

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
            self.turn = None
            returns = s.returns()
            truncated = self.family.truncated(s)
            for seat, a in enumerate(self.possible_agents):
                if a in self.agents:
                    self.rewards[a] = float(returns[seat])
                    self.terminations[a] = not truncated
                    self.truncations[a] = truncated
            return
        self.turn = self.family.turn(s)
        self.agent_selection = self.possible_agents[s.current_player()]
        self._tell_moves()

    def _tell_moves(self) -> None:
        self._told += 1
        self.infos[self.agent_selection] = {"moves": MoveTexts(self, self._told)}

    def observe(self, agent):
        if self.position is None:
            raise InputError(ARGUMENTS, "observe", "reset() before the first observation")
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.action_spaces[agent].n, np.int8)
        obs = Observation(self._pieces)
        mine = self.turn is not None and self.position.current_player() == seat
        if mine:
            mask[list(self.turn.ids)] = 1
        self.family.observe(self.position, seat, self.turn if mine else None, obs.dict)
        return {"observation": obs.tensor, "action_mask": mask}

    def step(self, action):
        if self.position is None:
            raise InputError(ARGUMENTS, "step", "reset() before the first step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            move = self.turn.choose(int(action))
        except (ValueError, TypeError):
            raise InputError(
                ARGUMENTS, "action", f"a legal action id of {agent} (observation['action_mask']), got {action!r}"
            ) from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if move is None:  # a sub-step of a 20 sur 20 move: the same agent chooses on
            self.infos = {a: {} for a in self.agents}
            self._tell_moves()
        else:
            self.position.apply_action(move)
            self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.position is None:
            return None
        if self.render_mode == "rgb_array":
            return self.family.picture(self.position)
        text = str(self.position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        adj = self.adjudicator
        if adj is not None and hasattr(adj, "close"):
            adj.close()
