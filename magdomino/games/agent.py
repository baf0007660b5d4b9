"""A trained agent: a Q-network's parameters, read and played by NumPy at any seat.

``scripts/train_agent.py`` trains OpenSpiel's DQN (``open_spiel.python.jax.dqn``) on a
tower game through OpenSpiel's ``rl_environment`` (the ``train`` extra) and saves the
network here as a policy file; playing it needs NumPy alone.

**Policy file** (``.npz``): ``format`` (:data:`POLICY_FORMAT`), ``rule``, ``players``,
``meta`` (a JSON text: how it was trained and what it scored), and per layer ``k``
``kernel_k`` ``(inputs, outputs)`` and ``bias_k`` ``(outputs,)`` stored as float16 (half
the size; played in float32). The inputs are the observation vector of
:mod:`magdomino.games.family` (the OpenSpiel face's ``information_state_tensor``), the
outputs one Q-value per compact action id (:mod:`magdomino.games.codec`); the hidden
layers are ReLU, the last is linear, as OpenSpiel's ``MLP``.

**Playing** (:class:`TrainedPlayer`): the legal id of highest Q-value at the seat's turn
(ties to the lowest id), mapped back to the package's move, so the same state always gets
the same move. :data:`DEFAULT_POLICY` is the Défi policy the package ships.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.family import Observation, family_of

POLICY_FORMAT = "magdomino q-network 1"
DEFAULT_POLICY = Path(__file__).resolve().parent / "policies" / "defi_dqn.npz"
"""The shipped policy: 2-player Défi magnétique judged by the statics (``scripts/train_agent.py``)."""


@dataclass(frozen=True)
class QPolicy:
    """A Q-network: ``layers`` ``((kernel (inputs, outputs), bias (outputs,)), ...)`` float32,
    for ``rule`` with ``players`` seats; ``meta`` what the policy file says of its training."""

    layers: tuple
    rule: str
    players: int
    meta: dict = field(default_factory=dict)

    @property
    def inputs(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def outputs(self) -> int:
        return int(self.layers[-1][0].shape[1])

    def q_values(self, observation: np.ndarray) -> np.ndarray:
        """Q-value of every action id, ``(outputs,)``, for an observation ``(inputs,)``."""
        x = np.asarray(observation, np.float32)
        for k, (kernel, bias) in enumerate(self.layers):
            x = x @ kernel + bias
            if k < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x

    def best(self, observation: np.ndarray, legal_ids) -> int:
        """The legal id of highest Q-value (ties to the lowest id)."""
        ids = np.sort(np.asarray(list(legal_ids), np.int64))
        return int(ids[int(np.argmax(self.q_values(observation)[ids]))])


def save_policy(path, layers, rule: str, players: int, meta: dict | None = None) -> Path:
    """Write a policy file (module docstring) and return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for k, (kernel, bias) in enumerate(layers):
        arrays[f"kernel_{k}"] = np.asarray(kernel, np.float16)
        arrays[f"bias_{k}"] = np.asarray(bias, np.float16)
    with path.open("wb") as f:
        np.savez_compressed(f, format=POLICY_FORMAT, rule=rule, players=int(players),
                            meta=json.dumps(meta or {}, sort_keys=True), **arrays)
    return path


def load_policy(path=None) -> QPolicy:
    """The policy of a policy file (default :data:`DEFAULT_POLICY`).

    Raises
    ------
    InputError
        The file is missing or is not a policy file (one line naming the file).
    """
    path = Path(DEFAULT_POLICY if path is None else path)
    try:
        with np.load(path, allow_pickle=False) as doc:
            if str(doc["format"]) != POLICY_FORMAT:
                raise InputError(str(path), "format", f"{POLICY_FORMAT!r}, got {str(doc['format'])!r}")
            count = sum(1 for name in doc.files if name.startswith("kernel_"))
            layers = tuple((doc[f"kernel_{k}"].astype(np.float32), doc[f"bias_{k}"].astype(np.float32))
                           for k in range(count))
            policy = QPolicy(layers, str(doc["rule"]), int(doc["players"]), json.loads(str(doc["meta"])))
    except InputError:
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(str(path), "", f"a policy file (.npz written by save_policy): {exc}") from None
    if not layers or any(k.shape[1] != b.shape[0] for k, b in layers):
        raise InputError(str(path), "kernel_0", "layers whose kernels (inputs, outputs) and biases (outputs,) agree")
    return policy


def observation_of(state, seat: int, turn=None) -> np.ndarray:
    """The observation vector of ``seat`` at the package state ``state`` (:mod:`magdomino.games.family`;
    ``turn``: the seat's choice when it is to move), ``(size,)`` float32."""
    family = family_of(state.game.rule)
    obs = Observation(family.pieces(state.game))
    family.observe(state, seat, turn, obs.dict)
    return obs.tensor


class TrainedPlayer:
    """A :class:`QPolicy` at a seat (module docstring): ``choose(state)`` returns the package
    move of the legal id of highest Q-value. ``seed`` is accepted as every player's and unused
    (the choice is deterministic)."""

    kind = "trained"

    def __init__(self, seed=None, policy: QPolicy | str | Path | None = None):
        self.policy = policy if isinstance(policy, QPolicy) else load_policy(policy)

    def check(self, game) -> None:
        """Refuse a game the policy was not trained for (its observation or actions differ)."""
        family = family_of(game.rule)
        size = Observation(family.pieces(game)).tensor.size
        if size != self.policy.inputs or family.action_size(game) != self.policy.outputs:
            raise InputError(ARGUMENTS, "seats", f"games of {self.policy.players}-player {self.policy.rule} for the "
                             f"trained player (its network reads {self.policy.inputs} numbers), got {game.players}-player "
                             f"{game.rule} ({size})")

    def choose(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.check(state.game)
        family = family_of(state.game.rule)
        turn = family.turn(state)
        seat = state.current_player()
        return turn.choose(self.policy.best(observation_of(state, seat, turn), turn.ids))
