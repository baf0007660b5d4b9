"""Where the default engine's time goes on toy game positions: inside PyBullet's steps, in the
rest of its PyBullet trials, or outside them (the statics screen, the structure's settle).

The positions are the bench's (``validation/toy_positions.py``); every slide and every
``--every``-th drop is run once by the default engine, in one process (``jobs=1``), with
three clocks: the whole odds run, the PyBullet trials
(:func:`~magdomino.studies.trials.run_trial` as the hybrid calls it) and the
``stepSimulation`` calls inside them. With ``--bench`` (the raw file ``scripts/bench --only
hybrid`` writes: every position's seconds on both engines), the shares are applied to the
bench's seconds, slides position by position and drops by their sampled share, and set
against the dynamics' time: what is left of the default engine's time if everything but
PyBullet's own steps cost nothing.

    .venv/bin/python -m validation.hybrid_time_split --every 3 --trials 20 --slide-trials 10 \\
        --bench /tmp/bench_hybrid_toy_games.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from validation import toy_positions


class Clocks:
    """The three clocks, wound around the calls they time (this process only)."""

    def __init__(self):
        import pybullet
        import pybullet_utils.bullet_client as bullet_client

        from magdomino.studies import hybrid_engine

        self.step = self.trial = 0.0
        plain_getattr = bullet_client.BulletClient.__getattr__

        def timed_getattr(client, name):
            if name != "stepSimulation":
                return plain_getattr(client, name)
            cid = client._client

            def step():
                t = time.perf_counter()
                pybullet.stepSimulation(physicsClientId=cid)
                self.step += time.perf_counter() - t
            return step

        bullet_client.BulletClient.__getattr__ = timed_getattr
        run_trial = hybrid_engine.run_trial

        def timed_trial(*args, **kwargs):
            t = time.perf_counter()
            try:
                return run_trial(*args, **kwargs)
            finally:
                self.trial += time.perf_counter() - t
        hybrid_engine.run_trial = timed_trial

    def reset(self):
        self.step = self.trial = 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=3, help="run every N-th drop position (all the slides)")
    parser.add_argument("--trials", type=int, default=20, help="trials a drop position")
    parser.add_argument("--slide-trials", type=int, default=10, help="trials a slide position")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--bench", type=Path, help="the bench's raw file (bench_hybrid_toy_games.json)")
    args = parser.parse_args(argv)


    from magdomino.errors import InputError
    from magdomino.studies.odds import estimate_odds

    clocks = Clocks()
    positions = toy_positions.position_set()
    slides = [p for p in positions if toy_positions.is_slide(p)]
    drops = [p for p in positions if not toy_positions.is_slide(p)][:: args.every]
    rows = []
    warm = True
    for pos in slides + drops:
        scenario = toy_positions.scenario_of(pos)
        slide = pos in slides
        if warm:  # imports, compiled kernels, connections: out of every clock
            estimate_odds(scenario, 2, seed=args.seed, jobs=1)
            warm = False
        clocks.reset()
        t0 = time.perf_counter()
        try:
            estimate_odds(scenario, args.slide_trials if slide else args.trials, seed=args.seed, jobs=1)
        except InputError:  # the structure does not stand: no odds
            continue
        rows.append({"id": pos["id"], "slide": slide, "wall": time.perf_counter() - t0, "trials": clocks.trial, "steps": clocks.step})

    def shares(kind):
        sel = [r for r in rows if r["slide"] == kind]
        wall = sum(r["wall"] for r in sel)
        return len(sel), sum(r["steps"] for r in sel) / wall, sum(r["trials"] for r in sel) / wall

    for kind, name in ((True, "slides"), (False, "drops")):
        n, steps, trials = shares(kind)
        print(f"{name}: {n} positions; of the default engine's time, {steps:.3f} in PyBullet's steps, "
              f"{trials - steps:.3f} in the rest of its PyBullet trials, {1 - trials:.3f} outside them")
    if args.bench:
        runs = json.loads(args.bench.read_text())["runs"]
        dynamics = {r["id"]: r["seconds"] for r in runs["dynamics"]["positions"]}
        default = {r["id"]: r["seconds"] for r in runs["default"]["positions"] if r["id"] in dynamics}
        slide_ids = {p["id"] for p in slides}
        step_share = {r["id"]: r["steps"] / r["wall"] for r in rows if r["slide"]}
        _, drop_steps, drop_trials = shares(False)
        in_steps = sum(s * step_share[i] for i, s in default.items() if i in step_share)
        in_steps += sum(s for i, s in default.items() if i not in slide_ids) * drop_steps
        outside = sum(s for i, s in default.items() if i not in slide_ids) * (1 - drop_trials)
        total = sum(dynamics[i] for i in default)
        print(f"bench: default {sum(default.values()):.0f} s, dynamics {total:.0f} s ({sum(default.values()) / total:.3f}); "
              f"PyBullet's steps alone {in_steps:.0f} s ({in_steps / total:.3f}), with the drops' time outside "
              f"their PyBullet trials {in_steps + outside:.0f} s ({(in_steps + outside) / total:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
