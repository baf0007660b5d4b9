"""Train an agent for 2-player Défi magnétique with OpenSpiel's DQN and save its policy.

    nice -n 10 .venv/bin/python scripts/train_agent.py [--steps N] [--seed S] [--out PATH] [--eval-deals D]

Nothing of the learning is written here: the agent is OpenSpiel's JAX DQN
(``open_spiel.python.jax.dqn.DQN``: Q-network, replay buffer, target network, epsilon-greedy
with the legal-action mask) playing the OpenSpiel face's ``magdomino_defi`` (judged by the
statics, :mod:`magdomino.games.openspiel.tower`) through ``rl_environment.Environment``,
whose ``info_state`` is the observation vector of :mod:`magdomino.games.family` and whose
``legal_actions`` are the compact ids of :mod:`magdomino.games.codec`. It needs the
``train`` extra (JAX, Flax, Optax, Chex, Orbax, etils: what that module imports; CPU only).

- **Opponent**: a uniformly random seat; the agent's seat alternates every episode.
- **Rewards**: the game's (1 to the winner, 0 otherwise; an abandoned deal 0), plus the
  change of the potential ``phi = -SHAPING x (own hand size) / 28`` between two of the
  agent's turns, ``phi(s') - phi(s)`` (the end of the deal included: a deal lost with a
  full hand costs more). A collapse puts the construction in the placer's hand, so the
  agent feels it at its next turn, not a hundred moves later at the end of the deal
  (untrained, its greedy moves topple the tower until the runaway guard abandons most
  deals). The potential is not discounted and not given back at the end (``phi`` = 0
  there): either would pay the agent for holding tiles.
- **Budget**: ``--steps`` of the agent's own decisions (the run is the same for a seed),
  stopped earlier at ``--max-minutes`` of wall time (the figures then say so).

Then the policy (:mod:`magdomino.games.agent`, NumPy) is saved, read back and evaluated as
saved: ``--eval-deals`` deals of a tournament against a random seat
(:func:`magdomino.games.tournament.run_tournament`, seats alternated, judged by the
statics engine), its win share with the exact 95 % interval over the natural deals (and
over every deal, an abandoned one counted as not won). ``--eval-deals 0`` skips it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from magdomino.errors import InputError  # noqa: E402 (after the path that finds the package)
from magdomino.games.agent import DEFAULT_POLICY, TrainedPlayer, load_policy, save_policy  # noqa: E402
from magdomino.games.family import TOWER  # noqa: E402

RULE = "defi"
PLAYERS = 2
HIDDEN = (64,)
"""Hidden layer sizes of the Q-network (the output layer, 64 x 18,846, is most of its weights)."""
SHAPING = 3.0
"""Weight of the hand-size potential (module docstring)."""
DISCOUNT = 0.9
DQN_OPTIONS = {
    "batch_size": 64, "replay_buffer_capacity": 5000, "learning_rate": 1e-3, "update_target_network_every": 1000,
    "weight_update_coeff": 1.0, "learn_every": 3, "min_buffer_size_to_learn": 500, "epsilon_start": 1.0,
    "epsilon_end": 0.05, "epsilon_decay_duration": 3000, "epsilon_decay_schedule_str": "exp", "optimizer_str": "adam",
    "loss_str": "huber", "allow_checkpointing": False,
}
"""OpenSpiel DQN's options (``learn_every`` 3: with 2 the library learns before its buffer
holds a transition; the exponential epsilon schedule: its linear one fails under ``jax.jit``)."""


def hand_offset() -> int:
    """Where the observing seat's own hand size sits in the observation vector."""
    start = 0
    for name, shape in TOWER.pieces(_package_game()):
        if name == "hand_sizes":
            return start
        start += int(np.prod(shape))
    raise AssertionError("the tower observation has no hand_sizes")


def _package_game():
    from magdomino.games.core import make_game

    return make_game(RULE, PLAYERS, 0)


class HandShaping:
    """The shaped rewards of one seat's time steps (module docstring)."""

    def __init__(self, seat: int, offset: int, weight: float = SHAPING):
        self.seat, self.offset, self.weight = seat, offset, weight
        self.last = None

    def __call__(self, ts):
        phi = -self.weight * ts.observations["info_state"][self.seat][self.offset] / 28
        last, self.last = self.last, phi
        if last is None:
            return ts
        rewards = list(ts.rewards) if ts.rewards is not None else [0.0] * PLAYERS
        rewards[self.seat] += phi - last
        return ts._replace(rewards=rewards)


def environment(seed: int, physics: str = "statics"):
    from open_spiel.python import rl_environment

    from magdomino.games.openspiel.games import load_game

    # the deals' sampler takes the seed: Environment(seed=...) would pass it on to nothing
    sampler = rl_environment.ChanceEventSampler(seed=seed)
    return rl_environment.Environment(load_game(RULE, {"players": PLAYERS, "physics": physics}), chance_event_sampler=sampler)


def make_agent(env, seed: int, hidden=HIDDEN, options: dict | None = None):
    """OpenSpiel's DQN for ``env`` with :data:`DQN_OPTIONS`, updated by ``options``."""
    from open_spiel.python.jax import dqn

    return dqn.DQN(0, env.observation_spec()["info_state"][0], env.action_spec()["num_actions"],
                   hidden_layers_sizes=list(hidden), discount_factor=DISCOUNT, seed=seed, **{**DQN_OPTIONS, **(options or {})})


def network_layers(agent) -> list:
    """The Q-network's ``[(kernel, bias), ...]`` as NumPy arrays (OpenSpiel's MLP: a
    Sequential of (Linear, activation) blocks)."""
    return [(np.asarray(block.layers[0].kernel[...]), np.asarray(block.layers[0].bias[...]))
            for block in agent._q_network.model.layers]


def train(steps: int, seed: int = 0, hidden=HIDDEN, max_wall_s: float | None = None, physics: str = "statics",
          report=None, options: dict | None = None) -> tuple[list, dict]:
    """Train for ``steps`` agent decisions (or ``max_wall_s``): ``(layers, figures)``;
    ``options`` change :data:`DQN_OPTIONS` (a short run explores for fewer steps)."""
    env = environment(seed, physics)
    agent = make_agent(env, seed, hidden, options)
    opponent = np.random.default_rng(seed)
    offset = hand_offset()
    wall0, cpu0 = time.time(), time.process_time()
    episodes, env_steps, results = 0, 0, []
    while agent.step_counter < steps and (max_wall_s is None or time.time() - wall0 < max_wall_s):
        seat = episodes % PLAYERS
        agent.player_id = seat  # the agent's seat alternates; DQN reads its seat's observations
        shaped = HandShaping(seat, offset)
        ts = env.reset()
        while not ts.last():
            player = ts.observations["current_player"]
            if player == seat:
                action = agent.step(shaped(ts)).action
            else:
                action = opponent.choice(ts.observations["legal_actions"][player])
            ts = env.step([int(action)])
            env_steps += 1
        agent.step(shaped(ts))
        episodes += 1
        results.append(ts.rewards[seat])
        if report and episodes % 25 == 0:
            report(f"episode {episodes}: {agent.step_counter} decisions, {env_steps} steps, "
                   f"{time.time() - wall0:.0f} s, won {np.mean(results[-25:]):.2f} of the last 25")
    wall, cpu = time.time() - wall0, time.process_time() - cpu0
    figures = {"decisions": int(agent.step_counter), "env_steps": env_steps, "episodes": episodes, "wall_s": round(wall, 1),
               "cpu_s": round(cpu, 1), "steps_per_s_wall": round(env_steps / wall, 1), "seed": seed, "hidden": list(hidden),
               "physics": physics, "stopped_by_wall_time": agent.step_counter < steps,
               "won_last_100_training": float(np.mean(results[-100:])) if results else None}
    return network_layers(agent), figures


def evaluate(policy, deals: int, seed: int = 1, opponent: str = "random") -> dict:
    """``deals`` deals of the policy against ``opponent`` (module docstring): the trained
    seat's tournament row, and its win share over every deal."""
    from scipy import stats

    from magdomino.games.tournament import run_tournament

    doc = run_tournament(RULE, [TrainedPlayer(policy=policy), opponent], deals, seed=seed, physics="statics")
    row = next(r for r in doc["per_kind"] if r["kind"] == "trained")
    wins = round(row["wins"])
    low, high = stats.binomtest(wins, deals).proportion_ci(0.95)
    return {"deals": deals, "opponent": opponent, "ended": doc["ended"], "win_share": row["win_share"], "ci": row["ci"],
            "win_share_all_deals": wins / deals, "ci_all_deals": [float(low), float(high)]}


def arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60000, help="the agent's decisions to train for")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-minutes", type=float, default=15.0, help="stop training at this wall time")
    parser.add_argument("--out", type=Path, default=DEFAULT_POLICY, help="the policy file to write")
    parser.add_argument("--eval-deals", type=int, default=200, help="deals against a random seat (0: none)")
    args = parser.parse_args(argv)
    for name in ("steps", "seed", "eval_deals"):
        if getattr(args, name) < (1 if name == "steps" else 0):
            raise InputError("command line", f"--{name.replace('_', '-')}", f"a whole number >= {1 if name == 'steps' else 0}")
    if args.max_minutes <= 0:
        raise InputError("command line", "--max-minutes", "a number of minutes > 0")
    return args


def main(argv=None) -> int:
    try:
        args = arguments(argv)
        from magdomino.optional import require

        require("open_spiel.python.jax.dqn", "training an agent", key="train")
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 2
    layers, figures = train(args.steps, args.seed, max_wall_s=60 * args.max_minutes, report=lambda line: print(line, flush=True))
    print(json.dumps(figures))
    save_policy(args.out, layers, RULE, PLAYERS, {"trained": figures, "algorithm": "open_spiel.python.jax.dqn.DQN",
                                                 "dqn": {**DQN_OPTIONS, "discount_factor": DISCOUNT},
                                                 "shaping": SHAPING})
    print(f"policy: {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    if args.eval_deals:
        result = evaluate(load_policy(args.out), args.eval_deals, seed=args.seed + 1)
        print(json.dumps(result))
        meta = dict(load_policy(args.out).meta, evaluation=result)
        save_policy(args.out, layers, RULE, PLAYERS, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
