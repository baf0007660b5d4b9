"""A validation set of placements, judged at given solver settings.

A case is data: a settled structure (every tile's pips, pose and whether it is fixed) and,
usually, one placement on it (pips, rest pose and motion), with the preset and whether the
magnets are on. Cases come from the bundled scenarios, the statics families of the tests,
real physics games and random structures (``validation/make_validation_set.py`` writes them;
``tests/data/validation_set.json`` keeps them). Judging a case builds a fresh world, spawns
the structure at rest and runs the one placement pipeline
(:func:`magdomino.physics.motion.place`: every motion starts clear of every tile), so a
case replays exactly.

It answers one question: do two solver settings give the same verdicts? The convergence
test compares the shipped settings with a time step half as large; ``scripts/bench``
compares their cost with the settings of earlier versions.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from magdomino.maths.poses import quaternion_yaw
from magdomino.model.presets import Preset, load_preset
from magdomino.physics.motion import Drop, NoClearMotion, Slide, build, place
from magdomino.physics.settle import settle
from magdomino.physics.verdict import Verdict
from magdomino.physics.world import World
from magdomino.studies.scenario import scenario_from_dict

FORMAT = "magdomino.validation/1"


@dataclass(frozen=True)
class Case:
    """One structure and (optionally) one placement on it.

    Attributes
    ----------
    name : str
    source : str
        Where it comes from (a scenario, a game and its placement number, ...).
    preset : str
        A bundled preset's name.
    magnets : bool
    tiles : tuple of (pips, position (3,) m, quaternion (4,), fixed)
    placement : (pips, rest (3,) m, yaw rad, Drop or Slide) or None
        None: the case is the structure settling by itself.
    """

    name: str
    source: str
    preset: str
    magnets: bool
    tiles: tuple
    placement: tuple | None

    def to_json(self) -> dict:
        doc = {
            "name": self.name,
            "source": self.source,
            "preset": self.preset,
            "magnets": self.magnets,
            "tiles": [
                {"pips": list(map(int, pips)), "pos": _floats(p), "quat": _floats(q), "fixed": bool(fixed)}
                for pips, p, q, fixed in self.tiles
            ],
            "placement": None,
        }
        if self.placement is not None:
            pips, rest, yaw, motion = self.placement
            doc["placement"] = {"pips": list(map(int, pips)), "rest": _floats(rest), "yaw": float(yaw)}
            if isinstance(motion, Slide):
                doc["placement"]["slide"] = _floats(motion.start_offset)
            else:
                doc["placement"]["drop"] = float(motion.height)
        return doc

    @staticmethod
    def from_json(doc: dict) -> Case:
        tiles = tuple(
            (tuple(t["pips"]), np.array(t["pos"]), np.array(t["quat"]), bool(t["fixed"])) for t in doc["tiles"]
        )
        placement = None
        if doc["placement"] is not None:
            pl = doc["placement"]
            motion = Slide(tuple(pl["slide"])) if "slide" in pl else Drop(float(pl["drop"]))
            placement = (tuple(pl["pips"]), np.array(pl["rest"]), float(pl["yaw"]), motion)
        return Case(doc["name"], doc["source"], doc["preset"], bool(doc["magnets"]), tiles, placement)


def _floats(values) -> list[float]:
    return [float(v) for v in values]


def save_cases(path: str | Path, cases: list[Case]) -> None:
    Path(path).write_text(json.dumps({"format": FORMAT, "cases": [c.to_json() for c in cases]}, indent=0) + "\n")


def load_cases(path: str | Path) -> list[Case]:
    doc = json.loads(Path(path).read_text())
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a validation set ({FORMAT})")
    return [Case.from_json(c) for c in doc["cases"]]


def outcome(verdict: Verdict) -> str:
    """The class a verdict falls in: ``error``, ``fall``, ``shift``, ``stood`` or ``undecided``."""
    if verdict.error:
        return "error"
    if verdict.collapsed:
        return "fall"
    if verdict.shifted:
        return "shift"
    return "stood" if verdict.settled else "undecided"


def judge(case: Case, preset: Preset) -> Verdict:
    """The verdict on ``case`` with ``preset`` (its solver and collapse settings)."""
    with World(preset, magnets=case.magnets) as world:
        build(world, case.tiles)
        if case.placement is None:
            return settle(world, list(range(len(case.tiles))))
        pips, rest, yaw, motion = case.placement
        return place(world, pips, rest, yaw, motion)[1]


ROBUST_MOVE_M = 0.0005
"""A case is robust when its verdict stays the same with the placement moved this far (m)."""


def moved(case: Case, dx: float, dy: float) -> Case:
    """The same case with the placement's rest pose moved by (dx, dy) m."""
    pips, rest, yaw, motion = case.placement
    return Case(case.name, case.source, case.preset, case.magnets, case.tiles, (pips, rest + [dx, dy, 0.0], yaw, motion))


def robust(case: Case, preset: Preset) -> bool:
    """Does the case's verdict (fall or not) stay the same with the placement moved by
    :data:`ROBUST_MOVE_M` along x and y, both ways? A placement on a knife edge (a tile
    balanced right over an edge, a drop onto a corner) has no answer that a step size, or a
    hand, could keep; the convergence check is about the others. Structures alone are robust.
    A move that leaves the tile no clear start (into a neighbour it touches end to end) is
    not a placement a hand could make: it is not tried."""
    if case.placement is None:
        return True
    fell = outcome(judge(case, preset)) == "fall"
    d = ROBUST_MOVE_M
    for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d)):
        try:
            if (outcome(judge(moved(case, dx, dy), preset)) == "fall") != fell:
                return False
        except NoClearMotion:
            continue
    return True


def judge_all(cases: list[Case], **settings) -> tuple[list[str], float]:
    """Outcomes of every case with the bundled presets changed by ``settings`` (file keys,
    see :meth:`Preset.with_settings`), and the wall time it took (s)."""
    presets: dict[str, Preset] = {}
    outcomes = []
    start = time.perf_counter()
    for case in cases:
        if case.preset not in presets:
            presets[case.preset] = load_preset(case.preset).with_settings(**settings)
        outcomes.append(outcome(judge(case, presets[case.preset])))
    return outcomes, time.perf_counter() - start


def case_scenario(case: Case, source: str | None = None):
    """The case as a :class:`~magdomino.studies.scenario.Scenario`: its structure at the
    recorded poses (centre and heading; a settled tile's tilt of a few millidegrees is
    dropped: the structure is settled again), its placement as the one what-if, aimed at
    the recorded rest pose (centre x, y, z) with the recorded drop or slide. Odds on it draw
    their trials exactly as ``magdomino odds`` does on a file.
    """
    def mm(values):
        return [round(float(v) * 1000, 6) for v in values]

    # A tile's pips change nothing physical; random cases may repeat a tile, a scenario may not.
    spare = iter([(a, b) for a in range(7) for b in range(a, 7)])
    seen: set = set()

    def unique(pips):
        pips = tuple(map(int, pips))
        while frozenset(pips) in seen:  # a domino is its unordered pair ({a} for a double)
            pips = next(spare)
        seen.add(frozenset(pips))
        return list(pips)

    data: dict = {"name": case.name.replace("/", " ").replace("#", "n"), "preset": case.preset, "magnets": case.magnets, "structure": []}
    for pips, p, q, fixed in case.tiles:
        data["structure"].append({"pips": unique(pips), "pos_mm": mm(p), "yaw_deg": round(math.degrees(quaternion_yaw(q)), 6),
                                  "fixed": bool(fixed)})
    if case.placement is not None:
        pips, rest, yaw, motion = case.placement
        what_if = {"pips": unique(pips), "pos_mm": mm(rest), "yaw_deg": round(math.degrees(yaw), 6)}
        if isinstance(motion, Slide):
            what_if["slide_mm"] = mm(motion.start_offset[:2])
        else:
            what_if["drop_mm"] = round(float(motion.height) * 1000, 6)
        data["what_if"] = [what_if]
    return scenario_from_dict(data, source or f"<case {case.name}>")
