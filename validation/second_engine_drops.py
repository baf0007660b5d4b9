"""Drop trials of toy game positions in MuJoCo beside PyBullet's: the same verdicts, at what cost?

A measurement for the choice the validation page leaves open (``docs/validation/hybrid.md``,
"Speed"): would a second engine judge the dynamics' trials as PyBullet does? Each trial is
the dynamics' own (:func:`~magdomino.studies.trials.run_trial`: the trial's varied preset,
the hand's miss, the settled structure, the drop), once in PyBullet's world and once in
:class:`MujocoWorld`, a MuJoCo world with the interface that
:func:`~magdomino.physics.motion.place` and :func:`~magdomino.physics.settle.settle` use:
the same tiles (boxes, mass, friction), the same magnet wrenches
(:class:`~magdomino.maths.magnets.CachedWrenches`, applied before every step), the same
settle and fall criteria. MuJoCo's contacts are its own (soft, ``--solref``); nothing is
tuned to agree. Slides are left out: the hand (a constraint with a force limit) is
PyBullet's.

MuJoCo is not a dependency of magdomino; this script needs it installed beside it::

    .venv/bin/pip install mujoco
    .venv/bin/python -m validation.second_engine_drops --every 4 --trials 10
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.magnets import CachedWrenches, TileMagnets
from magdomino.physics.motion import build, clear_motion, place
from magdomino.studies.aiming import aim_placement
from magdomino.studies.engines import get_engine
from magdomino.studies.statics_engine import batch_magnets
from magdomino.studies.trials import Job, resolve_noise, run_trial, trial_draws
from validation import toy_positions
from validation.hybrid_time_split import Clocks  # PyBullet's step clock


@dataclass
class Tile:
    body: int
    pips: tuple[int, int]
    fixed: bool = False


class MujocoWorld:
    """Tiles with magnets on a table, stepped by MuJoCo at the preset's time step.

    Tiles are added before the first step (the model is compiled from them then); poses are
    ``(position (3,), quaternion (4,) x, y, z, w)`` as in :class:`~magdomino.physics.world.World`.
    """

    step_seconds = 0.0
    """Wall time spent in MuJoCo's own steps, by every world of this process."""

    def __init__(self, preset, *, magnets: bool = True, solref: tuple[float, float] = (0.002, 1.0)):
        self.preset = preset
        self.size = np.asarray(preset.tile.size, float)
        self.time_step = preset.solver.time_step
        self.time = 0.0
        self.steps = 0
        self.solref = solref
        self.tiles: list[Tile] = []
        self._start: list[tuple[np.ndarray, np.ndarray]] = []
        self._model = self._data = None
        self._cache = None
        if magnets and preset.tile.magnets:
            s = preset.solver
            magnet_set = TileMagnets.from_specs(preset.tile.magnets, model=s.magnet_model)
            self._cache = CachedWrenches(magnet_set, s.magnet_update, s.magnet_update_angle,
                                         linear=(s.magnet_linear, s.magnet_linear_angle))

    def add_tile(self, pips, position, yaw: float = 0.0, *, orientation=None, fixed: bool = False, velocity=None, rounded=False) -> int:
        if self.steps:
            raise RuntimeError("tiles are added before the first step")
        if fixed or velocity is not None:
            raise NotImplementedError("fixed tiles and tiles set moving are not needed for drops")
        q = np.asarray(orientation, float) if orientation is not None else np.array([0, 0, np.sin(yaw / 2), np.cos(yaw / 2)])
        self._start.append((np.asarray(position, float), q))
        self.tiles.append(Tile(len(self.tiles), (int(pips[0]), int(pips[1]))))
        self._model = None
        return len(self.tiles) - 1

    def drop(self, pips, rest_position, yaw: float = 0.0, drop_height: float = 0.002, orientation=None) -> int:
        return self.add_tile(pips, np.asarray(rest_position, float) + [0.0, 0.0, float(drop_height)], yaw, orientation=orientation)

    def _compiled(self):
        if self._model is None:
            import mujoco

            half = self.size / 2
            tile = self.preset.tile
            def numbers(values) -> str:
                return " ".join(repr(float(v)) for v in values)

            bodies = "".join(
                f'<body pos="{numbers(p)}" quat="{numbers(q[[3, 0, 1, 2]])}"><freejoint/>'
                f'<geom type="box" size="{numbers(half)}" mass="{float(tile.mass)!r}" friction="{float(tile.friction)!r} 0 0"/>'
                "</body>"
                for p, q in self._start)
            xml = (f'<mujoco><option timestep="{self.time_step!r}" iterations="{self.preset.solver.iterations}" '
                   f'gravity="0 0 {-self.preset.solver.gravity!r}" cone="elliptic"/>'
                   f'<default><geom solref="{self.solref[0]} {self.solref[1]}" condim="3"/></default>'
                   f'<worldbody><geom name="table" type="plane" size="1 1 0.1" friction="{float(tile.table_mu)!r} 0 0"/>'
                   f"{bodies}</worldbody></mujoco>")
            self._model = mujoco.MjModel.from_xml_string(xml)
            self._data = mujoco.MjData(self._model)
            mujoco.mj_forward(self._model, self._data)
            self._mujoco = mujoco
        return self._model, self._data

    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        if self._model is None:
            return (np.array([p for p, _ in self._start]).reshape(-1, 3), np.array([q for _, q in self._start]).reshape(-1, 4))
        qpos = self._data.qpos.reshape(-1, 7)
        return qpos[:, :3].copy(), qpos[:, [4, 5, 6, 3]].copy()

    def step(self, n: int = 1) -> None:
        model, data = self._compiled()
        for _ in range(n):
            if self._cache is not None:
                p, q = self.poses()
                forces, torques = self._cache.update_poses(np.concatenate([p, q], axis=1))
                data.xfrc_applied[1:, :3] = forces
                data.xfrc_applied[1:, 3:] = torques
            start = time.perf_counter()
            self._mujoco.mj_step(model, data)
            MujocoWorld.step_seconds += time.perf_counter() - start
        self.steps += n
        self.time += n * self.time_step

    def detect_contacts(self) -> None:
        model, data = self._compiled()
        self._mujoco.mj_forward(model, data)

    def touches_table(self) -> np.ndarray:
        model, data = self._compiled()
        out = np.zeros(len(self.tiles), bool)
        for c in data.contact[: data.ncon]:
            for table, other in ((c.geom1, c.geom2), (c.geom2, c.geom1)):
                if table == 0 and other > 0:
                    out[other - 1] = True
        return out

    def tile_touches_table(self, index: int) -> bool:
        return bool(self.touches_table()[index])


def trial_world(job: Job, what_if: int, trial: int, *, magnets: bool, solref) -> tuple:
    """The dynamics' drop trial ``trial`` set up in a :class:`MujocoWorld`: the settled
    structure built, the placement aimed with the trial's hand. Returns (world, the trial's
    preset, rest (3,) m, yaw rad, motion)."""
    sc = job.scenario
    preset, miss = trial_draws(job, what_if, trial)
    dx, dy, dyaw, drop = (float(v) for v in miss)
    world = MujocoWorld(preset, magnets=magnets, solref=solref)
    build(world, [(pl.pips, p, q, pl.fixed) for pl, p, q in zip(sc.structure, *job.settled)])
    rest, yaw, motion = aim_placement(sc, job.settled, sc.what_if[what_if], world.size, (dx, dy), dyaw, drop)
    return world, preset, rest, yaw, motion


def mujoco_trial(job: Job, what_if: int, trial: int, solref) -> dict:
    """The dynamics' trial of a drop, in :class:`MujocoWorld`: its record's verdict fields."""
    sc = job.scenario
    world, _, rest, yaw, motion = trial_world(job, what_if, trial, magnets=sc.magnets, solref=solref)
    verdict = place(world, sc.what_if[what_if].pips, rest, yaw, motion, watched=list(range(len(sc.structure))))[1]
    return {"collapsed": verdict.collapsed, "reason": verdict.reason, "error": verdict.error, "sim_time_s": verdict.sim_time_s}


def lockstep_cost(job: Job, what_if: int, trials: int, steps: int, solref) -> tuple[float, float, float]:
    """(µs per world-step in all, in the magnets, in MuJoCo's steps) of the drop trials
    ``0..trials-1`` of a what-if stepped together for ``steps`` steps from their release, their
    magnet wrenches computed together each step, exactly (the statics' batch, no cache)."""
    import mujoco

    sc = job.scenario
    worlds, presets = [], []
    for i in range(trials):
        world, preset, rest, yaw, motion = trial_world(job, what_if, i, magnets=False, solref=solref)  # magnets: below, together
        world.drop(sc.what_if[what_if].pips, rest, yaw, drop_height=clear_motion(rest, yaw, motion, world.poses(), world.size).height)
        worlds.append(world._compiled())
        presets.append(preset)
    magnets = stepping = 0.0
    for _ in range(steps):
        start = time.perf_counter()
        poses = np.array([data.qpos.reshape(-1, 7) for _, data in worlds])
        forces, torques = batch_magnets(presets, poses[:, :, :3], poses[:, :, [4, 5, 6, 3]], sc.preset)
        for (_, data), f, t in zip(worlds, forces, torques):
            data.xfrc_applied[1:, :3] = f
            data.xfrc_applied[1:, 3:] = t
        middle = time.perf_counter()
        for model, data in worlds:
            mujoco.mj_step(model, data)
        magnets += middle - start
        stepping += time.perf_counter() - middle
    per = 1e6 / (trials * steps)
    return (magnets + stepping) * per, magnets * per, stepping * per


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=4, help="every k-th drop position of the bench's set")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--solref", default="0.002,1", help="MuJoCo's contact time constant (s) and damping ratio")
    parser.add_argument("--lockstep", type=int, metavar="STEPS",
                        help="instead: each position's trials stepped together for STEPS steps, their magnets computed together "
                             "each step; the cost per world-step, beside PyBullet's whole trials")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("mujoco") is None:
        print(f"{Path(__file__).name}: needs MuJoCo beside magdomino: .venv/bin/pip install mujoco", file=sys.stderr)
        return 2
    solref = tuple(float(v) for v in args.solref.split(","))
    positions = [p for p in toy_positions.position_set() if not toy_positions.is_slide(p)][:: args.every]
    dynamics = get_engine("dynamics")
    clocks = Clocks()
    if args.lockstep:
        print("| position | tiles | MuJoCo in lockstep (µs a world-step) | of it the magnets | MuJoCo's steps "
              "| PyBullet's dynamics trials (µs a step) |\n|---|---|---|---|---|---|")
    rows, seconds = [], {"pybullet": 0.0, "mujoco": 0.0}
    for position in positions:
        sc = toy_positions.scenario_of(position)
        try:
            job = Job(sc, dynamics.starting_structure(sc), resolve_noise(sc), 7, (0.0, 0.0), None, dynamics)
        except InputError as exc:  # a structure that does not stand: no trial on any engine
            print(f"{position['id']}: {exc}", file=sys.stderr)
            continue
        if args.lockstep:
            all_in, magnets, stepping = lockstep_cost(job, 0, args.trials, args.lockstep, solref)
            start = time.perf_counter()
            simulated = sum(run_trial(job, 0, i)["sim_time_s"] for i in range(args.trials))
            pybullet = 1e6 * (time.perf_counter() - start) / (simulated / sc.preset.solver.time_step)
            print(f"| {position['id']} | {len(sc.structure) + 1} | {all_in:.0f} | {magnets:.0f} | {stepping:.0f} | {pybullet:.0f} |")
            continue
        for i in range(args.trials):
            start = time.perf_counter()
            reference = run_trial(job, 0, i)
            seconds["pybullet"] += time.perf_counter() - start
            start = time.perf_counter()
            try:
                other = mujoco_trial(job, 0, i, solref)
            except Exception as exc:  # noqa: BLE001  (a failing trial is counted apart, as the dynamics does)
                other = {"collapsed": None, "reason": "error", "error": f"{type(exc).__name__}: {exc}", "sim_time_s": 0.0}
            seconds["mujoco"] += time.perf_counter() - start
            rows.append((position["id"], i, reference, other))
        print(f"{position['id']}: {len(rows)} trials so far", file=sys.stderr, flush=True)
    if args.lockstep:
        return 0
    judged = [(r, o) for _, _, r, o in rows if r.get("error") is None and o.get("error") is None]
    same = sum(bool(r["collapsed"]) == bool(o["collapsed"]) for r, o in judged)
    fell = sum(bool(r["collapsed"]) for r, _ in judged)
    errors = [sum(record.get("error") is not None for record in side) for side in zip(*[(r, o) for _, _, r, o in rows])] or [0, 0]
    print(f"{len(positions)} drop positions, {len(rows)} trials; errors: PyBullet {errors[0]}, MuJoCo {errors[1]}")
    print(f"verdicts equal: {same} of {len(judged)} ({same / max(len(judged), 1):.3f}); PyBullet fell {fell}, "
          f"MuJoCo fell {sum(bool(o['collapsed']) for _, o in judged)}")
    print(f"seconds: PyBullet {seconds['pybullet']:.1f}, MuJoCo {seconds['mujoco']:.1f} (one process, the dynamics' whole trials; "
          f"in their steps: PyBullet {clocks.step:.1f}, MuJoCo {MujocoWorld.step_seconds:.1f})")
    for pid, i, r, o in rows:
        if r.get("error") is None and o.get("error") is None and bool(r["collapsed"]) != bool(o["collapsed"]):
            print(f"  differs: {pid} trial {i}: PyBullet {r['reason']}, MuJoCo {o['reason']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
