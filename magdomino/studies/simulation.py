"""Running a scenario: settle its structure in a PyBullet world, try each what-if alone on it.

The file format and its checks are :mod:`magdomino.studies.scenario`; where a placement's
tile is aimed and how it comes down, :mod:`magdomino.studies.aiming`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from magdomino.model.presets import Preset
from magdomino.physics.motion import build, place
from magdomino.physics.settle import settle
from magdomino.physics.verdict import Verdict
from magdomino.physics.world import SlideShortcuts, World
from magdomino.studies.aiming import aim_placement, structure_poses
from magdomino.studies.scenario import Placement, Scenario, check_scenario
from magdomino.version import __version__


@dataclass
class SimulationResult:
    """Verdicts of a scenario: the structure's and one per what-if."""

    scenario: Scenario
    structure: Verdict
    what_if: list[Verdict | None]
    settled_poses: tuple[np.ndarray, np.ndarray]
    wall_time_s: float = 0.0
    traces: list = field(default_factory=list)
    engine: str = "dynamics"

    def to_dict(self) -> dict:
        """The JSON of ``simulate``: the same keys whatever the engine that judged."""
        sc = self.scenario
        what_ifs = []
        for placement, verdict in zip(sc.what_if, self.what_if):
            entry = {"placement": sc.describe(placement)}
            if verdict is None:
                why = "did not stand" if self.structure.collapsed or self.structure.error else "did not settle"
                entry.update(collapsed=None, reason=f"not tried: the structure {why}", settled=False)
            else:
                entry.update(verdict.to_dict())
            entry["engine"] = self.engine
            what_ifs.append(entry)
        return {
            "version": __version__,
            "name": sc.name,
            "seed": sc.seed,
            "preset": sc.preset.name,
            "magnets": sc.magnets,
            "tile_size_mm": sc.preset.size_mm,
            "engine": self.engine,
            "structure": {"tiles": len(sc.structure), **self.structure.to_dict()},
            "what_if": what_ifs,
        }


def build_structure(scenario: Scenario, world: World, poses=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Spawn the structure's tiles into ``world`` (at ``poses`` (positions (n, 3), quaternions
    (n, 4)) if given, else their file poses). Returns the poses used, as a list of
    (position (3,), quaternion (4,)).
    """
    if poses is None:
        used = structure_poses(scenario, world.size)
    else:
        used = [(np.asarray(p, dtype=float), np.asarray(q, dtype=float)) for p, q in zip(poses[0], poses[1])]
    build(world, [(pl.pips, p, q, pl.fixed) for pl, (p, q) in zip(scenario.structure, used)])
    return used


def try_placement(
    scenario: Scenario,
    settled: tuple[np.ndarray, np.ndarray],
    placement: Placement,
    *,
    preset: Preset | None = None,
    offset_mm=(0.0, 0.0),
    yaw_offset_deg: float = 0.0,
    drop_mm: float | None = None,
    gui: bool = False,
    world_hook=None,
    trace: list | None = None,
    rest_check=None,
    slide_shortcuts: SlideShortcuts | None = None,
) -> Verdict:
    """Try one placement alone on the settled structure in a fresh world; return its verdict.

    ``preset`` (a varied copy), ``offset_mm``, ``yaw_offset_deg`` and ``drop_mm`` let a
    study perturb the placement (see :mod:`magdomino.studies.odds`); ``world_hook(world)`` is called
    once the world is built (renders use it to record frames); ``trace`` (a list) receives
    the settle's ``(t, max shift mm, max tilt deg)`` series (see :func:`settle`);
    ``rest_check`` ends the settle on poses certain to stand (see :func:`settle`);
    ``slide_shortcuts`` makes a slide's steps cheaper (see :func:`place`).
    """
    world = World(preset or scenario.preset, magnets=scenario.magnets, gui=gui)
    try:
        build_structure(scenario, world, settled)
        rest, yaw, motion = aim_placement(scenario, settled, placement, world.size, offset_mm, yaw_offset_deg, drop_mm)
        if world_hook is not None:
            world_hook(world)
        return place(world, placement.pips, rest, yaw, motion, watched=list(range(len(scenario.structure))), trace=trace,
                     rest_check=rest_check, slide_shortcuts=slide_shortcuts)[1]
    finally:
        world.close()


def settle_structure(scenario: Scenario, *, gui: bool = False, preset: Preset | None = None, world_hook=None):
    """Spawn the structure, settle it once; return (verdict, settled poses)."""
    world = World(preset or scenario.preset, magnets=scenario.magnets, gui=gui)
    try:
        build_structure(scenario, world)
        if world_hook is not None:
            world_hook(world)
        verdict = settle(world, list(range(len(scenario.structure))))
        return verdict, world.poses()
    finally:
        world.close()


def simulate(scenario: Scenario, *, gui: bool = False, trace: bool = False) -> SimulationResult:
    """Settle the structure, then try every what-if alone from the settled structure.

    With ``trace``, ``result.traces`` holds each what-if's settle series (see :func:`settle`).
    """
    start = time.perf_counter()
    check_scenario(scenario)
    verdict, settled = settle_structure(scenario, gui=gui)
    outcomes: list[Verdict | None] = []
    traces: list[list | None] = []
    for placement in scenario.what_if:
        if verdict.collapsed or verdict.error or not verdict.settled:  # nothing to build on
            outcomes.append(None)
            traces.append(None)
        else:
            series = [] if trace else None
            outcomes.append(try_placement(scenario, settled, placement, gui=gui, trace=series))
            traces.append(series)
    return SimulationResult(scenario, verdict, outcomes, settled, time.perf_counter() - start, traces)
