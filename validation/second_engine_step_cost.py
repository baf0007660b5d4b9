"""What one time step costs in PyBullet's world and in MuJoCo's, on the same tower at rest.

A "log cabin" of the default toy's tiles (two tiles a level, each level turned a quarter turn
from the one below; it stands without magnets) is stepped at the preset's time step in
:class:`~magdomino.physics.world.World` (magnets off, the preset's solver settings) and in
MuJoCo (the same boxes, mass and friction; its default soft contacts), at 30 and 10 solver
iterations. Magnets are off in both: this measures the engines' own steps, the part of a
dynamic trial that a second engine would replace (``docs/validation/hybrid.md``, "Speed").

MuJoCo is not a dependency of magdomino; this script needs it installed beside it::

    .venv/bin/pip install mujoco
    .venv/bin/python -m validation.second_engine_step_cost --levels 2,4,6 --steps 3000
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

from magdomino.model.presets import load_preset
from magdomino.physics.world import World


def log_cabin(levels: int, size) -> list[tuple[np.ndarray, float]]:
    """(centre (3,) m, yaw rad) of the tiles of a log cabin ``levels`` high."""
    length, width, thick = size
    tiles = []
    for level in range(levels):
        z = thick / 2 + level * thick
        for side in (-0.5, 0.5):
            if level % 2 == 0:  # long axes along y, side by side in x
                tiles.append((np.array([side * width * 1.5, 0.0, z]), np.pi / 2))
            else:
                tiles.append((np.array([0.0, side * width * 1.5, z]), 0.0))
    return tiles


def pybullet_cost(preset, tiles, iterations: int, steps: int) -> tuple[float, float]:
    """(µs per step, largest displacement mm over the run) in the project's world."""
    with World(preset, magnets=False) as world:
        for centre, yaw in tiles:
            world.add_tile((0, 0), centre, yaw)
        world.client.setPhysicsEngineParameter(numSolverIterations=iterations)
        world.step(200)
        before, _ = world.poses()
        start = time.perf_counter()
        world.step(steps)
        cost = (time.perf_counter() - start) / steps
        after, _ = world.poses()
    return cost * 1e6, float(np.linalg.norm(after - before, axis=1).max()) * 1000


def mujoco_cost(preset, tiles, iterations: int, steps: int) -> tuple[float, float]:
    """(µs per step, largest displacement mm over the run) in MuJoCo."""
    import mujoco

    half = np.asarray(preset.tile.size, float) / 2
    mu = preset.tile.friction
    bodies = "".join(
        f'<body pos="{c[0]} {c[1]} {c[2]}" euler="0 0 {yaw}"><freejoint/>'
        f'<geom type="box" size="{half[0]} {half[1]} {half[2]}" mass="{preset.tile.mass}" friction="{mu} 0 0"/></body>'
        for c, yaw in tiles)
    xml = (f'<mujoco><compiler angle="radian"/><option timestep="{preset.solver.time_step}" iterations="{iterations}" '
           f'gravity="0 0 {-preset.solver.gravity}"/><worldbody><geom type="plane" size="1 1 0.1" friction="{mu} 0 0"/>'
           f"{bodies}</worldbody></mujoco>")
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    for _ in range(200):
        mujoco.mj_step(model, data)
    before = data.qpos.reshape(-1, 7)[:, :3].copy()
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    cost = (time.perf_counter() - start) / steps
    after = data.qpos.reshape(-1, 7)[:, :3]
    return cost * 1e6, float(np.linalg.norm(after - before, axis=1).max()) * 1000


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="2,4,6", help="tower heights (levels of two tiles), comma-separated")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--preset", default="toy")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("mujoco") is None:
        print(f"{Path(__file__).name}: needs MuJoCo beside magdomino: .venv/bin/pip install mujoco", file=sys.stderr)
        return 2
    preset = load_preset(args.preset)
    print("| tiles | solver iterations | PyBullet (µs a step) | MuJoCo (µs a step) | PyBullet over MuJoCo "
          "| moved (mm, PyBullet / MuJoCo) |")
    print("|---|---|---|---|---|---|")
    for levels in (int(v) for v in args.levels.split(",")):
        tiles = log_cabin(levels, preset.tile.size)
        for iterations in (30, 10):
            pb, pb_moved = pybullet_cost(preset, tiles, iterations, args.steps)
            mj, mj_moved = mujoco_cost(preset, tiles, iterations, args.steps)
            print(f"| {len(tiles)} | {iterations} | {pb:.0f} | {mj:.0f} | {pb / mj:.2f} | {pb_moved:.3f} / {mj_moved:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
