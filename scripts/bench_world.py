"""World benchmarks: our step and verdict against bare PyBullet and a naive loop, side by side.

- ``step_with_magnets_over_bare``: one ``World.step`` of a resting 28-tile tower of the
  standard preset (magnet wrenches, recomputed when tiles move, applied before the step)
  ÷ one bare ``stepSimulation`` of the same 28 boxes with the same settings. Goal ≤ 1.15.
- ``verdict_over_naive_fixed``: our :func:`settle` on a placement atop a 10-tile tower ÷ a
  naive loop (magnets recomputed every step, a fixed 2 s, criteria checked at the end), same
  verdict required. Goal ≤ 0.25.
- ``slide_with_magnets_over_bare``: ``World.slide`` of a tile along the table (30 mm at
  50 mm/s, 1200 steps at 1/2000 s) beneath a magnet-held overhang (scenarios/slide_beneath.toml) ÷ the
  same slide with magnets off: the cost of magnets while a tile moves (its pairs are
  recomputed every few steps, the others stay cached).
- ``aligned28_drift_mm``: largest displacement of a tile of an aligned 28-tile stack over
  5 s simulated, magnets on and off (the worse of the two). Goal ≤ 0.5.
- ``validation_time_over_reference_settings``: wall time of the whole validation set
  (tests/data/validation_set.json: scenarios, statics families, game placements, random
  structures) at the shipped solver settings ÷ the same set, same code, at the settings of
  earlier versions (:data:`REFERENCE_SETTINGS`: 1/4000 s, 50 iterations, PyBullet's contact
  ERP, no friction anchors, magnets checked every step, no first-order band). Goal ≤ 0.33.
  ``validation_time_over_reference_step`` changes only the time step and iterations (the
  rest as shipped): what the engine settings alone save. ``validation_differences_vs_half_step`` counts the cases whose verdict (fall or
  not, error) changes with half the shipped time step (must be 0);
  ``validation_outcome_differences_vs_half_step`` also counts stood ↔ shifted.
- ``step_with_magnets_over_bare_median_of_5``: the step ratio measured five times, the median
  (each of the five in ``step_with_magnets_over_bare_runs``).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from magdomino.maths.poses import tilt_angles
from magdomino.model.presets import load_preset
from magdomino.physics.settle import settle
from magdomino.physics.world import World

H = 0.008

REFERENCE_SETTINGS = dict(
    time_step_s=1 / 4000, iterations=50, contact_erp=None, friction_anchor=False,
    magnet_idle_steps=1, magnet_linear_mm=0.01, magnet_linear_deg=0.05,
)
"""The solver settings of earlier versions, in today's keys (idle steps 1 and a first-order
band no wider than the zero-order thresholds: what those versions did)."""


def _tower(world: World, n: int) -> None:
    for level in range(n):
        world.add_tile((level % 7, (level + 3) % 7), (0.0, 0.0, H / 2 + level * H))


def _bare_client(preset, n):
    world = World(preset, magnets=False)  # same settings, shapes and dynamics; stepped bare
    _tower(world, n)
    return world


def step_ratio(repeats: int, steps: int) -> dict:
    preset = load_preset("standard")
    ours = World(preset, magnets=True)
    _tower(ours, 28)
    bare = _bare_client(preset, 28)
    ours.step(400)  # let both settle into their contacts first
    for _ in range(400):
        bare.client.stepSimulation()
    t_ours, t_bare = [], []
    for k in range(repeats):  # short slices, interleaved and alternating who goes first,
        for who in ((bare, ours) if k % 2 else (ours, bare)):  # so machine noise hits both alike
            start = time.perf_counter()
            if who is bare:
                for _ in range(steps):
                    bare.client.stepSimulation()
                t_bare.append((time.perf_counter() - start) / steps)
            else:
                ours.step(steps)
                t_ours.append((time.perf_counter() - start) / steps)
    ours_us, bare_us = statistics.median(t_ours) * 1e6, statistics.median(t_bare) * 1e6
    ratio = statistics.median(o / b for o, b in zip(t_ours, t_bare))  # each pair back to back
    updates = ours.magnet_updates
    pair_updates = ours._cache.pair_updates
    ours.close()
    bare.close()
    return {
        "step_with_magnets_us": ours_us,
        "bare_step_us": bare_us,
        "step_with_magnets_over_bare": ratio,
        "magnet_updates_per_1000_steps": 1000 * updates / (400 + repeats * steps),
        "magnet_pair_updates_per_1000_steps": 1000 * pair_updates / (400 + repeats * steps),
    }


def _slide_seconds(magnets: bool) -> float:
    world = World(load_preset("standard"), magnets=magnets)
    world.add_tile((1, 1), (0.0, 0.0, H / 2))
    world.add_tile((1, 4), (0.024, 0.0, 1.5 * H))  # overhangs 1-1 by half a tile
    world.step(400)
    start = time.perf_counter()
    world.slide((4, 4), (0.048, 0.0, H / 2), start_offset=(0.03, 0.0))
    seconds = time.perf_counter() - start
    world.close()
    return seconds


def slide_ratio(repeats: int) -> dict:
    t_ours, t_bare = [], []
    for _ in range(repeats):  # interleaved
        t_bare.append(_slide_seconds(False))
        t_ours.append(_slide_seconds(True))
    ours_s, bare_s = statistics.median(t_ours), statistics.median(t_bare)
    return {"slide_with_magnets_s": ours_s, "slide_bare_s": bare_s, "slide_with_magnets_over_bare": ours_s / bare_s}


def _placement_world(magnets_naive: bool):
    preset = load_preset("standard")
    if magnets_naive:  # recompute the magnets at every step: no movement threshold
        preset = preset.with_settings(magnet_update_mm=0.0, magnet_update_deg=0.0)
    world = World(preset, magnets=True)
    # A 10-tile zigzag: every tile half on the one below, as the rules build them.
    for level in range(10):
        x = 0.012 if level % 2 else -0.012
        world.add_tile((level % 7, (level + 1) % 7), (x, 0.0, H / 2 + level * H))
    world.step(int(0.3 / world.time_step))
    before = world.poses()
    rest = np.array([-0.012, 0.0, H / 2 + 10 * H])  # continue the zigzag: it stands
    index = world.drop((6, 6), rest, drop_height=0.001)
    return world, before, index, rest


def verdict_ratio(repeats: int) -> dict:
    t_ours, t_naive = [], []
    for _ in range(repeats):
        world, before, index, rest = _placement_world(False)
        ref = (np.vstack([before[0], [np.nan] * 3]), np.vstack([before[1], [np.nan] * 4]))
        start = time.perf_counter()
        ours = settle(world, list(range(10)), ref, placed=index, placed_rest=(rest, np.array([0, 0, 0, 1.0])))
        t_ours.append(time.perf_counter() - start)
        world.close()

        world, before, index, rest = _placement_world(True)
        start = time.perf_counter()
        world.step(int(round(2.0 / world.time_step)))
        positions, quats = world.poses()
        limits = world.preset.collapse
        shift = np.linalg.norm(positions[:10] - before[0][:10], axis=1).max() * 1000
        tilt = np.degrees(tilt_angles(quats[:10], before[1][:10]).max())
        naive_collapsed = bool(shift > limits.max_shift * 1000 or tilt > np.degrees(limits.max_tilt))
        t_naive.append(time.perf_counter() - start)
        world.close()
        if naive_collapsed != ours.collapsed:
            raise AssertionError(f"verdicts differ: ours {ours.collapsed} ({ours.reason}), naive {naive_collapsed}")
    ours_s, naive_s = statistics.median(t_ours), statistics.median(t_naive)
    return {
        "verdict_s": ours_s,
        "naive_fixed_2s_s": naive_s,
        "verdict_over_naive_fixed": ours_s / naive_s,
        "verdict_sim_time_s": ours.sim_time_s,
    }


def drift(seconds: float) -> dict:
    out = {}
    for magnets in (False, True):
        world = World(load_preset("standard"), magnets=magnets)
        _tower(world, 28)
        start, _ = world.poses()
        world.step(int(round(seconds / world.time_step)))
        end, _ = world.poses()
        out[f"aligned28_drift_mm_magnets_{'on' if magnets else 'off'}"] = float(
            np.max(np.linalg.norm(end - start, axis=1)) * 1000
        )
        world.close()
    out["aligned28_drift_mm"] = max(out.values())
    return out


def validation_ratio(quick: bool) -> dict:
    from pathlib import Path

    from magdomino.studies.validation import judge_all, load_cases

    cases = load_cases(Path(__file__).resolve().parents[1] / "tests" / "data" / "validation_set.json")
    if quick:
        cases = cases[::6]
    step = load_preset("standard").solver.time_step
    judge_all(cases[:4])  # imports, compiled kernels, connections: out of every timing
    shipped, t_shipped = judge_all(cases)
    reference, t_reference = judge_all(cases, **REFERENCE_SETTINGS)
    _, t_reference_step = judge_all(cases, time_step_s=1 / 4000, iterations=50)
    halved, _ = judge_all(cases, time_step_s=step / 2)
    fell = [(a == "fall", a == "error") for a in shipped]
    fell_half = [(a == "fall", a == "error") for a in halved]
    return {
        "validation_cases": len(cases),
        "validation_time_over_reference_settings": t_shipped / t_reference,
        "validation_shipped_s": t_shipped,
        "validation_reference_s": t_reference,
        "validation_time_over_reference_step": t_shipped / t_reference_step,
        "validation_differences_vs_half_step": sum(a != b for a, b in zip(fell, fell_half)),
        "validation_outcome_differences_vs_half_step": sum(a != b for a, b in zip(shipped, halved)),
        "validation_differences_vs_reference_settings": sum(
            (a == "fall") != (b == "fall") for a, b in zip(shipped, reference)
        ),
    }


def run(quick: bool = False) -> dict[str, float]:
    figures = {}
    five = [step_ratio(repeats=5 if quick else 31, steps=200 if quick else 250) for _ in range(5)]
    figures.update(five[2])
    ratios = [f["step_with_magnets_over_bare"] for f in five]
    figures["step_with_magnets_over_bare_median_of_5"] = statistics.median(ratios)
    figures.update({f"step_with_magnets_over_bare_run{k + 1}": r for k, r in enumerate(ratios)})
    figures.update(slide_ratio(repeats=1 if quick else 3))
    figures.update(verdict_ratio(repeats=1 if quick else 3))
    figures.update(drift(1.0 if quick else 5.0))
    figures.update(validation_ratio(quick))
    return figures
