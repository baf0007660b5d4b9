"""Learning agents' environments: steps per second beside PettingZoo's chess, and the agents'
judge against PyBullet.

**Step rates.** Random agents with masks (each step a uniformly random legal id of
``observation["action_mask"]``, one seeded generator, :data:`SEED`) play, in one process,
``md.env("defi")`` and ``md.env("quinconce")`` (2 players) judged by ``physics="statics"``
(the agents' judge, :class:`~magdomino.physics.training_adjudicator.TrainingAdjudicator`)
and by ``"dynamics"`` (PyBullet), and PettingZoo's ``chess_v6`` and ``connect_four_v3``.
The runs are interleaved: :data:`ROUNDS` rounds, each playing every environment for its
steps of :data:`STEPS` in turn, each environment going on with its games from round to
round (a game that ends is reset with the next seed), so that the machine's load hits
every one alike. ``agents_<env>_steps_per_s`` is its steps over its time summed over the
rounds; ``agents_<env>_over_chess`` its ratio to chess's (goal for Défi under the statics:
>= 1.0); ``agents_defi_statics_remembered`` the share of its placements the judge answered
from memory (a shape judged before: the judge starts the run knowing none, and knows more
round after round, as in a training run, which plays millions of steps; so Défi's first
round and its ratio to chess's over the second half of the rounds are printed too).
``agents_*_over_chess_cpu``: the same ratios of steps per second of processor time (this
process's), steadier than the wall time's on a shared machine. ``agents_load_1min_before``/
``_after``: the machine's load.

**Agreement.** ``agents_judge_agrees_with_pybullet``: on the held-out toy game positions of
the hybrid validation (``assets/validation/hybrid_toy_games_held_out.json``, rebuilt by
``validation/toy_positions.py``: 4 seeded games, 132 positions; the ids and what-if texts
are checked against the file), the share of positions where the agents' judge (the one
``md.env(rule, physics="statics")`` holds) says what PyBullet says without noise: the
scenario of the position (:func:`~validation.toy_positions.scenario_of`) simulated once by
the dynamics engine, the structure settled and the what-if dropped (or slid) on it (goal
>= 0.98). Positions whose structure does not stand by PyBullet have no reference and are
counted apart. PyBullet's verdicts are kept in :data:`VERDICTS` (next to the data) keyed by
the position (its id and texts) and the physics settings (the preset's every value and
PyBullet's version): a run reuses those whose key matches and simulates the others.

A full run takes about 25 s on 2 cores under load 1 (a few minutes more the first time, while
PyBullet's verdicts are made); ``--quick``: two rounds and every sixth position.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SEED = 0
"""Seed of the agents' generator and of the first game of every environment."""
ROUNDS = 10
STEPS = {"defi_statics": 600, "quinconce_statics": 600, "defi_dynamics": 5, "quinconce_dynamics": 5,
         "chess": 400, "connect_four": 1600}
"""Steps per round of each environment (a second or two each at its own rate: short, so
that a change of the machine's load falls on every environment alike)."""
HELD_OUT = ROOT / "assets" / "validation" / "hybrid_toy_games_held_out.json"
VERDICTS = ROOT / "assets" / "validation" / "hybrid_toy_games_held_out_pybullet.json"


def make_env(name: str):
    """The PettingZoo environment ``name`` of :data:`STEPS`."""
    if name in ("chess", "connect_four"):
        import pettingzoo

        return pettingzoo.make("aec", {"chess": "classic/chess-v6", "connect_four": "classic/connect_four-v3"}[name])
    import magdomino as md

    rule, physics = name.split("_")
    return md.env(rule, players=2, physics=physics, seed=SEED)


class RandomRun:
    """One environment played on by random agents with masks, from round to round."""

    def __init__(self, name: str, rng):
        self.env = make_env(name)
        self.rng = rng
        self.seed = SEED
        self.env.reset(seed=self.seed)
        self.steps = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.rounds: list[float] = []  # each round's steps per second

    def play(self, steps: int) -> None:
        """``steps`` more steps, timed (resets between games included)."""
        env, rng = self.env, self.rng
        start, cpu = time.perf_counter(), time.process_time()
        done = 0
        while done < steps:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    self.seed += 1
                    env.reset(seed=self.seed)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.integers(len(legal))]))
            done += 1
        seconds = time.perf_counter() - start
        self.seconds += seconds
        self.cpu_seconds += time.process_time() - cpu
        self.steps += done
        self.rounds.append(done / seconds)


def harmonic(rates: list[float]) -> float:
    """The steps per second of rounds of equal steps taken together."""
    return len(rates) / sum(1.0 / r for r in rates)


def step_rates(quick: bool) -> dict[str, float]:
    """The step-rate figures (module docstring)."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    runs = {name: RandomRun(name, rng) for name in STEPS}
    rounds = 2 if quick else ROUNDS
    for _ in range(rounds):
        for name, run in runs.items():
            run.play(STEPS[name])
    out = {}
    for name, run in runs.items():
        out[f"agents_{name}_steps_per_s"] = run.steps / run.seconds
    chess = out["agents_chess_steps_per_s"]
    for name in STEPS:
        if name != "chess":
            out[f"agents_{name}_over_chess"] = out[f"agents_{name}_steps_per_s"] / chess
    cpu = {name: run.steps / run.cpu_seconds for name, run in runs.items()}
    out["agents_defi_statics_over_chess_cpu"] = cpu["defi_statics"] / cpu["chess"]
    out["agents_quinconce_statics_over_chess_cpu"] = cpu["quinconce_statics"] / cpu["chess"]
    judge = runs["defi_statics"].env.unwrapped.adjudicator
    out["agents_defi_statics_remembered"] = judge.remembered / max(judge.asked, 1)
    out["agents_defi_statics_first_round_steps_per_s"] = runs["defi_statics"].rounds[0]
    half = len(runs["chess"].rounds) // 2
    out["agents_defi_statics_second_half_over_chess"] = (
        harmonic(runs["defi_statics"].rounds[half:]) / harmonic(runs["chess"].rounds[half:]))
    for run in runs.values():
        run.env.close()
    return out


def physics_settings(preset) -> str:
    """The key of what PyBullet's verdicts depend on besides the position: the preset's every
    value and PyBullet's version."""
    from importlib.metadata import version

    text = json.dumps({"preset": preset.to_dict(), "pybullet": version("pybullet")}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def position_key(position: dict) -> str:
    """A position's key: its id and its texts."""
    text = json.dumps([position["id"], position["structure"], position["what_if"]])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pybullet_verdict(position: dict) -> str | None:
    """``"stands"`` or ``"falls"``: PyBullet's verdict of the position's what-if without noise;
    None when the structure does not stand (or settle) by itself."""
    from magdomino.studies.engines import get_engine
    from validation.toy_positions import scenario_of

    result = get_engine("dynamics").simulate(scenario_of(position))
    verdict = result.what_if[0]
    if verdict is None or verdict.error:
        return None
    return "falls" if verdict.collapsed else "stands"


def reference_verdicts(positions: list[dict], preset) -> dict:
    """PyBullet's verdict of each position by id, from :data:`VERDICTS` where its key and the
    physics settings match, else simulated (and written back)."""
    settings = physics_settings(preset)
    kept = json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
    known = kept.get("verdicts", {}) if kept.get("settings") == settings else {}
    out, fresh = {}, 0
    for position in positions:
        key = position_key(position)
        entry = known.get(position["id"])
        if entry is None or entry["key"] != key:
            entry = {"key": key, "verdict": pybullet_verdict(position)}
            known[position["id"]] = entry
            fresh += 1
        out[position["id"]] = entry["verdict"]
    if fresh:
        about = ("PyBullet's verdict (no noise: the structure settled, the what-if dropped or slid once) of the held-out toy "
                 "positions of hybrid_toy_games_held_out.json, written by scripts/bench --only agents; keyed by the physics "
                 "settings (the preset's values and PyBullet's version) and by each position's id and texts")
        rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(known.items()))
        VERDICTS.write_text(f'{{"about": {json.dumps(about)},\n "settings": "{settings}",\n "verdicts": {{\n{rows}\n}}}}\n')
    return out


def agreement(quick: bool) -> dict[str, float]:
    """The agreement figures (module docstring)."""
    import magdomino as md
    from validation import toy_positions

    pairs = toy_positions.position_views(toy_positions.HELD_OUT)
    named = {p["id"]: p["what_if"] for p in json.loads(HELD_OUT.read_text())["positions"]}
    mismatched = sum(named.get(p["id"]) != p["what_if"] for p, _ in pairs) + len(set(named) - {p["id"] for p, _ in pairs})
    if quick:
        pairs = pairs[::6]
    env = md.env("defi", players=2, physics="statics")
    judge = env.unwrapped.adjudicator
    reference = reference_verdicts([p for p, _ in pairs], judge.preset)
    equal = judged = unsure = 0
    for position, view in pairs:
        ref = reference[position["id"]]
        if ref is None:
            continue
        outcome = judge.place(view, None)
        said = None if outcome.error else ("falls" if outcome.collapsed else "stands")
        judged += 1
        unsure += bool(outcome.unsure)
        equal += said == ref
        if said != ref:
            print(f"  differs: {position['id']} {position['what_if']!r}: judge {said}"
                  f"{' (unsure)' if outcome.unsure else ''}, PyBullet {ref}", flush=True)
    env.close()
    return {"agents_judge_agrees_with_pybullet": equal / max(judged, 1), "agents_judge_positions": judged,
            "agents_judge_unsure": unsure, "agents_judge_no_reference": len(pairs) - judged,
            "agents_held_out_mismatched": mismatched}


def run(quick: bool = False) -> dict[str, float]:
    out = {"agents_load_1min_before": os.getloadavg()[0]}
    out.update(step_rates(quick))
    out["agents_load_1min_after"] = os.getloadavg()[0]
    out.update(agreement(quick))
    return out
