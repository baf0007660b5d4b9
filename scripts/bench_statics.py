"""Statics benchmarks: its speed against a dynamic verdict, and how often the two agree.

- ``statics_over_dynamic_verdict``: one static check (yes/no) of a placement on a settled
  28-tile tower ÷ one dynamic verdict of the same placement (drop 1 mm,
  :func:`magdomino.physics.motion.place`), one run each (the static time a median of
  repeats). Goal ≤ 0.01. Both sides start from a built structure: the dynamic verdict's world
  is built before its clock starts, the static check runs on a
  :class:`~magdomino.physics.statics.Structure` (the structure's own contacts and magnets,
  computed once per structure: ``statics_prepare_structure_ms``), as players, what-if and
  odds check many placements on one structure. ``statics_cold_over_dynamic_verdict``: the
  same with :func:`~magdomino.physics.statics.judge` from nothing (contacts and magnets of
  all 29 tiles). ``statics_with_margin_ms`` adds the tilt margin and the load factor.
- ``statics_trials_per_s``: static checks per second of a perturbed rest pose (the hand's
  noise: position σ 1 mm, yaw σ 2°) of a tile on a settled structure (scenarios/cantilever.toml's
  what-if 0 with magnets), as ``odds --engine statics`` would run them, one :func:`judge`
  each; ``statics_batch_trials_per_s`` the same trials through
  :func:`~magdomino.physics.statics.judge_many`, 50 to a batch (``statics_batch_same_answers``:
  the share of equal answers); ``statics_odds_trials_per_s`` the whole ``odds --engine statics``
  pipeline on that what-if (the noise model's draws, the hand's aim, each trial's friction,
  mass and magnets, one batch per chunk; in-process, after a warm-up run).
- The confusion matrix: random structures (2-7 tiles stacked with random offsets and turns,
  some beside on the table), settled by the dynamics; placements on them with random
  offsets, each judged by the statics at its rest pose and by the dynamics after a 1 mm
  drop; magnets on for half the structures, off for the others. ``cm_*`` are counts
  (statics / dynamics: ``stand_stand``, ``stand_fell``, ``fell_stand``, ``fell_fell``);
  ``agreement`` their share on the diagonal; ``robust_agreement`` the same on the
  placements whose dynamic verdict does not change when the tile is put 0.5 mm nearer or
  farther along its offset; ``dyn_reason_*`` the dynamic reasons of the disagreements,
  ``disagree_near_*`` / ``disagree_far_*`` those within / beyond 2° of the statics' own
  tipping point, ``disagree_gone_without_drop`` those where the dynamics agrees once the tile
  is released at rest in its rest pose (the impact of the drop made the difference);
  ``not_judged`` placements the statics refuses (a tile of the settled structure not lying
  flat) and ``undecided`` dynamic verdicts that neither settled nor collapsed or erred.
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import footprints_overlap
from magdomino.maths.poses import quaternion_yaw, yaw_quaternion
from magdomino.model.presets import load_preset
from magdomino.physics.motion import Drop, build, place
from magdomino.physics.settle import settle
from magdomino.physics.statics import Structure, judge, judge_many
from magdomino.physics.world import World

DROP_M = 0.001
BATCH = 50


def _settled(preset, magnets, tiles):
    """Spawn (position, yaw) tiles and settle them: (stood, positions, quaternions)."""
    world = World(preset, magnets=magnets)
    try:
        build(world, [((k % 7, (k + 3) % 7), p, yaw_quaternion(y), False) for k, (p, y) in enumerate(tiles)])
        verdict = settle(world, list(range(len(tiles))))
        P, Q = world.poses()
        return (not verdict.collapsed and verdict.settled and verdict.error is None), P, Q
    finally:
        world.close()


def _dynamic(preset, magnets, P, Q, rest, yaw, drop=DROP_M):
    """The dynamic verdict of a drop (1 mm) into ``rest`` on the settled poses; (verdict, seconds)."""
    world = World(preset, magnets=magnets)
    try:
        build(world, [((k % 7, (k + 3) % 7), P[k], Q[k], False) for k in range(len(P))])
        start = time.perf_counter()
        _, verdict = place(world, (6, 6), rest, yaw, Drop(drop))
        return verdict, time.perf_counter() - start
    finally:
        world.close()


def _static(preset, magnets, P, Q, rest, yaw, margin=False):
    return judge(preset, np.vstack([P, rest]), np.vstack([Q, yaw_quaternion(yaw)]), placed=len(P), magnets=magnets, margin=margin)


def speed(repeats: int) -> dict:
    preset = load_preset("standard")
    size = np.asarray(preset.tile.size)
    tiles = [(np.array([0.0, 0.0, size[2] * (k + 0.5)]), 0.0) for k in range(28)]
    ok, P, Q = _settled(preset, True, tiles)
    top = P[-1]
    rest = np.array([top[0] + 0.010, top[1], top[2] + size[2]])
    verdict, t_dyn = _dynamic(preset, True, P, Q, rest, 0.0)
    _static(preset, True, P, Q, rest, 0.0)  # warm: imports, magnet rules
    times, cold, with_margin, prepare = [], [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        structure = Structure(preset, P, Q, True)
        prepare.append(time.perf_counter() - start)
        start = time.perf_counter()
        v = structure.judge(rest, yaw_quaternion(0.0))
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        _static(preset, True, P, Q, rest, 0.0)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        _static(preset, True, P, Q, rest, 0.0, margin=True)
        with_margin.append(time.perf_counter() - start)
    t_static = statistics.median(times)
    return {
        "statics_over_dynamic_verdict": t_static / t_dyn,
        "statics_cold_over_dynamic_verdict": statistics.median(cold) / t_dyn,
        "statics_ms": t_static * 1e3,
        "statics_cold_ms": statistics.median(cold) * 1e3,
        "statics_prepare_structure_ms": statistics.median(prepare) * 1e3,
        "statics_with_margin_ms": statistics.median(with_margin) * 1e3,
        "dynamic_verdict_28_s": t_dyn,
        "statics_28_agrees": float(v.stands == (not verdict.collapsed)),
    }


def trials_per_s(trials: int) -> dict:
    preset = load_preset("standard")
    size = np.asarray(preset.tile.size)
    ok, P, Q = _settled(preset, True, [(np.array([0.0, 0.0, size[2] / 2]), 0.0), (np.array([0.0265, 0.0, 1.5 * size[2]]), 0.0)])
    aim = P[1] + [-0.024, 0.0, size[2]]  # cantilever what-if 0: a counterweight on the inner half
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    stood = []
    batch_p, batch_q = [], []
    for _ in range(trials):
        centre = aim[:2] + rng.normal(0.0, 0.001, 2)
        yaw = math.pi + math.radians(rng.normal(0.0, 2.0))
        rest = _rest(P, Q, centre, yaw, size)
        stood.append(_static(preset, True, P, Q, rest, yaw).stands)
        batch_p.append(np.vstack([P, rest]))
        batch_q.append(np.vstack([Q, yaw_quaternion(yaw)]))
    elapsed = time.perf_counter() - start
    # The same trials through judge_many, BATCH at a time.
    start = time.perf_counter()
    batched = np.concatenate([judge_many(preset, batch_p[k : k + BATCH], batch_q[k : k + BATCH]) for k in range(0, trials, BATCH)])
    elapsed_batch = time.perf_counter() - start
    from pathlib import Path

    from magdomino.studies.odds import estimate_odds
    from magdomino.studies.scenario import load_scenario

    scenario = load_scenario(Path(__file__).resolve().parent.parent / "scenarios" / "cantilever.toml")
    estimate_odds(scenario, 10, executor="serial", engine="statics", what_ifs=[0])  # imports, magnet rules
    start = time.perf_counter()
    estimate_odds(scenario, trials, executor="serial", engine="statics", what_ifs=[0])
    elapsed_odds = time.perf_counter() - start
    return {
        "statics_trials_per_s": trials / elapsed,
        "statics_batch_trials_per_s": trials / elapsed_batch,
        "statics_odds_trials_per_s": trials / elapsed_odds,
        "statics_batch_same_answers": float(np.mean(batched == np.array(stood))),
        "statics_trials_stood": float(np.mean(stood)),
    }


def _random_structure(rng, size):
    """2-7 tiles: each on an earlier tile (mostly the last) with a random offset and turn,
    or now and then on the table beside the others."""
    L, W = size[:2]
    poses, quats = [], []
    for k in range(int(rng.integers(2, 8))):
        if k == 0:
            centre, yaw = np.zeros(2), 0.0
        elif rng.random() < 0.15:
            centre, yaw = rng.uniform(-0.05, 0.05, 2), float(rng.choice([0.0, math.pi / 2]))
        else:
            s = k - 1 if rng.random() < 0.7 else int(rng.integers(0, k))
            p, y = poses[s]
            u = np.array([math.cos(y), math.sin(y)])
            v = np.array([-u[1], u[0]])
            centre = p[:2] + u * rng.uniform(-0.4, 0.4) * L + v * rng.uniform(-0.25, 0.25) * W
            yaw = y + float(rng.choice([0.0, 0.0, math.pi / 2])) + math.radians(rng.normal(0.0, 3.0))
        poses.append((_rest([p for p, _ in quats], [q for _, q in quats], centre, yaw, size), yaw))
        quats.append((poses[-1][0], yaw_quaternion(yaw)))
    return poses


def _candidate(rng, P, Q, size):
    """A tile laid on a random structure tile, off-centre by 0-0.75 of a length."""
    L = size[0]
    s = int(rng.integers(0, len(P)))
    x, y, w = Q[s][0], Q[s][1], Q[s][3]
    yaw_s = math.atan2(2 * (w * Q[s][2] + x * y), 1 - 2 * (y * y + Q[s][2] ** 2))
    phi = yaw_s + float(rng.choice([0.0, math.pi / 2, math.pi, -math.pi / 2])) if rng.random() < 0.7 else rng.uniform(-math.pi, math.pi)
    d = np.array([math.cos(phi), math.sin(phi)])
    offset = rng.uniform(0.0, 0.75) * L
    yaw = yaw_s + float(rng.choice([0.0, math.pi / 2])) + math.radians(rng.normal(0.0, 2.0))
    return P[s][:2], d, offset, yaw


def _rest(P, Q, centre, yaw, size):
    """Rest pose of a tile put down at ``centre``: on the highest tile its footprint overlaps
    at all (``scenario.rest_height`` forgives 0.5 mm, which would put tiles up to 1 mm inside
    each other; the statics refuses such poses)."""
    top = 0.0
    for p, q in zip(P, Q):
        if footprints_overlap(centre, yaw, p[:2], quaternion_yaw(q), size, shrink=1e-5):
            top = max(top, p[2] + size[2] / 2)
    return np.array([centre[0], centre[1], top + size[2] / 2])


def confusion(placements: int, per_structure: int, seed: int = 11) -> dict:
    preset = load_preset("standard")
    size = np.asarray(preset.tile.size)
    rng = np.random.default_rng(seed)
    cm = {"stand_stand": 0, "stand_fell": 0, "fell_stand": 0, "fell_fell": 0}
    robust = {"n": 0, "agree": 0}
    reasons: dict[str, int] = {}
    not_judged = undecided = structures = 0
    static_time = []
    done = 0
    while done < placements:
        magnets = structures % 2 == 0
        structures += 1
        ok, P, Q = _settled(preset, magnets, _random_structure(rng, size))
        if not ok:
            continue
        for _ in range(per_structure):
            base, d, offset, yaw = _candidate(rng, P, Q, size)
            rest = _rest(P, Q, base + d * offset, yaw, size)
            try:
                start = time.perf_counter()
                sv = _static(preset, magnets, P, Q, rest, yaw)
                static_time.append(time.perf_counter() - start)
            except InputError:
                not_judged += 1
                continue
            dv, _ = _dynamic(preset, magnets, P, Q, rest, yaw)
            if dv.error is not None or (not dv.collapsed and not dv.settled):
                undecided += 1
                continue
            done += 1
            key = ("stand" if sv.stands else "fell") + "_" + ("fell" if dv.collapsed else "stand")
            cm[key] += 1
            agree = sv.stands != dv.collapsed
            if not agree:
                tag = f"dyn_reason_{'collapsed_' + dv.reason.replace(' ', '_') if dv.collapsed else 'stood'}"
                reasons[tag] = reasons.get(tag, 0) + 1
                # Near the statics' own boundary (a tilt of the table under 2° changes its answer)?
                near = abs(_static(preset, magnets, P, Q, rest, yaw, margin=True).margin) < 2.0
                tag = f"disagree_{'near' if near else 'far'}_{'magnets' if magnets else 'plain'}"
                reasons[tag] = reasons.get(tag, 0) + 1
                # The impact of the drop: released at rest in its rest pose, does it agree?
                impact = _dynamic(preset, magnets, P, Q, rest, yaw, drop=0.0)[0].collapsed != sv.stands
                tag = "disagree_gone_without_drop" if impact else "disagree_also_without_drop"
                reasons[tag] = reasons.get(tag, 0) + 1
            # Robust: the dynamic verdict is the same 0.5 mm nearer and farther.
            same = True
            for delta in (-0.0005, 0.0005):
                other = _rest(P, Q, base + d * (offset + delta), yaw, size)
                if _dynamic(preset, magnets, P, Q, other, yaw)[0].collapsed != dv.collapsed:
                    same = False
                    break
            if same:
                robust["n"] += 1
                robust["agree"] += agree
            if done >= placements:
                break
    total = sum(cm.values())
    out = {f"cm_{k}": float(v) for k, v in cm.items()}
    out.update(
        {
            "placements": float(total),
            "structures": float(structures),
            "agreement": (cm["stand_stand"] + cm["fell_fell"]) / max(total, 1),
            "robust_placements": float(robust["n"]),
            "robust_agreement": robust["agree"] / max(robust["n"], 1),
            "not_judged": float(not_judged),
            "undecided": float(undecided),
            "statics_random_ms": 1e3 * statistics.median(static_time) if static_time else math.nan,
        }
    )
    out.update({k: float(v) for k, v in sorted(reasons.items())})
    return out


def run(quick: bool) -> dict[str, float]:
    figures = speed(5 if quick else 20)
    figures.update(trials_per_s(100 if quick else 1000))
    figures.update(confusion(30 if quick else 500, 4 if quick else 5))
    return figures


if __name__ == "__main__":
    import sys

    for key, value in run(quick="--quick" in sys.argv).items():
        print(f"{key:<40} {value:.4g}")
