"""Magnet forces: the cost of ``TileMagnets.wrenches`` for a 28-tile tower against one bare
PyBullet step of the same 28 boxes, and against a naive per-pair Python loop; the per-step
cost of the cache (``CachedWrenches``: checks of a resting tower, no recomputation) and the
cost of recomputing one stacking pair (what a moving tile costs per recomputation).

Discovered and called by ``scripts/bench.py`` (``run(quick) -> dict[str, float]``). Every
figure is the median of several repeats, all measured side by side in one run.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from magdomino.maths.magnets import CachedWrenches, Magnet, TileMagnets, force_between  # noqa: E402

N_TILES = 28
SIZE = (0.048, 0.024, 0.008)
MASS = 0.010


def _standard_specs():
    """The standard preset's magnets, or the same built by hand if presets break."""
    try:
        from magdomino.model.presets import load_preset

        preset = load_preset("standard")
        return preset.tile.magnets, tuple(float(v) for v in preset.tile.size), float(preset.tile.mass)
    except Exception:  # pragma: no cover - fallback only
        from types import SimpleNamespace

        specs = [
            SimpleNamespace(position=np.array([x, 0.0, 0.0]), shape="cylinder", dimensions=(0.006, 0.002),
                            polarization=0.6, axis=np.array([0.0, 0.0, 1.0]), free=False)
            for x in (-0.012, 0.012)
        ]
        return specs, SIZE, MASS


def _tower(size):
    pos = np.zeros((N_TILES, 3))
    pos[:, 2] = size[2] / 2 + size[2] * np.arange(N_TILES)
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (N_TILES, 1))
    return pos, quat


def _median_us(fn, calls: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls * 1e6)
    return statistics.median(times)


def _bare_step_fn(size, mass):
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

    client = BulletClient(connection_mode=pybullet.DIRECT)
    client.setGravity(0, 0, -9.81)
    client.setPhysicsEngineParameter(fixedTimeStep=1 / 2000, numSolverIterations=100)
    plane = client.createCollisionShape(pybullet.GEOM_PLANE)
    client.createMultiBody(0, plane)
    box = client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[s / 2 for s in size])
    pos, _ = _tower(size)
    for p in pos:
        client.createMultiBody(mass, box, basePosition=p.tolist())
    for _ in range(20):  # let contacts form
        client.stepSimulation()
    return client, client.stepSimulation


def run(quick: bool) -> dict[str, float]:
    specs, size, mass = _standard_specs()
    tm = TileMagnets.from_specs(specs, model="finite")
    pos, quat = _tower(size)
    tm.wrenches(pos, quat)  # warm the rule cache
    repeats = 5 if quick else 15
    client, step = _bare_step_fn(size, mass)
    cache = CachedWrenches(tm, 1e-5, np.radians(0.05))
    poses = np.concatenate([pos, quat], axis=1)
    cache.update_poses(poses)
    pair = (np.array([10]), np.array([11]))
    # Interleave the measurements so that machine noise hits them alike.
    w_times, s_times, c_times, p_times = [], [], [], []
    for _ in range(repeats):
        w_times.append(_median_us(lambda: tm.wrenches(pos, quat), 10 if quick else 40, 1))
        s_times.append(_median_us(step, 10 if quick else 40, 1))
        c_times.append(_median_us(lambda: cache.update_poses(poses), 100 if quick else 400, 1))
        p_times.append(_median_us(lambda: tm.pair_wrenches(*pair, pos, quat), 10 if quick else 40, 1))
    assert cache.last == 0
    client.disconnect()
    wrenches_us = statistics.median(w_times)
    step_us = statistics.median(s_times)
    check_us = statistics.median(c_times)
    pair_us = statistics.median(p_times)

    # Naive reference: the same finite model (same rules, same cutoff, all pairs finite),
    # one force_between call per magnet pair in a Python double loop.
    magnets = [(i, Magnet(s.shape, s.dimensions, s.polarization, position=pos[i] + np.asarray(s.position)))
               for i in range(N_TILES) for s in specs]

    def naive():
        forces = np.zeros((N_TILES, 3))
        for i, a in magnets:
            for j, b in magnets:
                if j <= i or np.linalg.norm(b.position - a.position) >= tm.cutoff:
                    continue
                f, _ = force_between(a, b)
                forces[j] += f
                forces[i] -= f
        return forces

    naive_us = _median_us(naive, 1, 3 if quick else 5)
    return {
        "magnets_wrenches_us": wrenches_us,
        "bare_step_us": step_us,
        "magnets_wrenches_over_bare_step": wrenches_us / step_us,
        "magnets_cache_check_us": check_us,
        "magnets_cache_check_over_bare_step": check_us / step_us,
        "magnets_pair_update_us": pair_us,
        "magnets_naive_us": naive_us,
        "magnets_vectorised_speedup_over_naive": naive_us / wrenches_us,
    }


if __name__ == "__main__":
    for key, value in run(quick="--quick" in sys.argv).items():
        print(f"{key:<40} {value:.4g}")
