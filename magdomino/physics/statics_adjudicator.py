"""The ``statics`` adjudicator: collapses decided by the statics at the nominal grid poses.

No simulation: each placement is judged by :class:`magdomino.physics.statics.Structure` on
the construction as the grid lays it out (:func:`magdomino.maths.geometry.physical_pose` of
every tile's grid pose, as :attr:`PlacementView.pose` gives it) plus the new tile at its
nominal rest pose. The construction falls when the statics finds no contact forces that hold
every tile ("collapsed"); a pose the statics cannot model (it raises "statics cannot judge
this: ...") is an :class:`Outcome` with ``error`` set, never a collapse.

Stateless: everything comes from the :class:`PlacementView` (its ``construction``), so
cloned game states can share one adjudicator. Deterministic and cheap (one prepared
structure and one linear programme per placement, a few ms).

:func:`statics_risk` is the risk scale of ``assess`` shared with the PyBullet adjudicator
(documented in :mod:`magdomino.physics.adjudicator`).
"""

from __future__ import annotations

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import physical_pose
from magdomino.maths.poses import yaw_quaternion
from magdomino.model.presets import DEFAULT_PRESET, Preset, load_preset
from magdomino.physics.adjudicator import ConstructionInfo, Outcome, PlacementView

UNKNOWN_RISK = 0.5
"""Risk of a candidate the statics cannot judge: unknown, never safe."""
STANDING_MAX = 0.45
"""Largest risk of a candidate the statics says stands (below :data:`UNKNOWN_RISK`)."""
SAFE_MARGIN_DEG = 20.0
"""A tilt margin at least this large (degrees) adds no risk."""
SAFE_LOAD = 3.0
"""A load factor at least this large (times the tile's weight) adds no risk."""


def statics_risk(verdict) -> float:
    """Risk in [0, 1] of one placement from its :class:`~magdomino.physics.statics.StaticVerdict`.

    1 when it falls; else ``STANDING_MAX * max(clip(1 - margin / SAFE_MARGIN_DEG, 0, 1),
    clip((SAFE_LOAD - load_factor) / (SAFE_LOAD - 1), 0, 1))`` (margin in degrees, load
    factor a ratio; a term the verdict lacks counts 0). ``None`` (the statics could not
    judge) gives :data:`UNKNOWN_RISK`.
    """
    if verdict is None:
        return UNKNOWN_RISK
    if not verdict.stands:
        return 1.0
    tilt = 0.0 if verdict.margin is None else min(max(1.0 - verdict.margin / SAFE_MARGIN_DEG, 0.0), 1.0)
    lf = verdict.load_factor
    load = 0.0 if lf is None else min(max((SAFE_LOAD - lf) / (SAFE_LOAD - 1.0), 0.0), 1.0)
    return STANDING_MAX * max(tilt, load)


def prepare(preset: Preset, positions, quaternions, magnets: bool):
    """A :class:`~magdomino.physics.statics.Structure`, or None when the statics cannot model it."""
    from magdomino.physics.statics import Structure

    try:
        return Structure(preset, positions, quaternions, magnets=magnets)
    except InputError:
        return None


def judge(structure, position, quaternion, margin: bool):
    """``structure.judge`` of one more tile; None when the statics cannot judge it."""
    if structure is None:
        return None
    try:
        return structure.judge(position, quaternion, margin=margin)
    except InputError:
        return None


MARGINS = 3
"""How many standing poses ``assess`` measures the tilt margin and load factor of (the first
in the order of the views: a player puts its preferred candidates first); the others that
stand get :data:`STANDING_MAX` ("stands, margin not measured"). Margins cost 5-50 ms each."""


def pose_risks(structure, poses, margins: int = MARGINS) -> dict:
    """Risk of each distinct pose: ``poses`` is an ordered dict ``key -> (position (3,) m,
    quaternion (4,))``; a yes/no statics check of every pose, then the margin and load
    factor of the first ``margins`` that stand (see :data:`MARGINS`)."""
    risks = {}
    measured = 0
    for key, (position, quat) in poses.items():
        verdict = judge(structure, position, quat, False)
        if verdict is None or not verdict.stands:
            risks[key] = statics_risk(verdict)
        elif measured < margins:
            measured += 1
            risks[key] = statics_risk(judge(structure, position, quat, True))
        else:
            risks[key] = STANDING_MAX
    return risks


class StaticsAdjudicator:
    """Decides collapses with the statics at the nominal grid poses.

    Parameters
    ----------
    preset : Preset or str
        Physical preset (name, path or loaded).
    magnets : bool
        False switches the magnets off.
    margins : int
        :data:`MARGINS`: standing poses ``assess`` measures the margin of.
    """

    name = "statics"
    trivial = False

    def __init__(self, preset: Preset | str = DEFAULT_PRESET, *, magnets: bool = True, margins: int = MARGINS):
        self.preset = load_preset(preset) if isinstance(preset, str) else preset
        self.magnets = magnets
        self.margins = int(margins)
        self.tile_size = tuple(float(v) for v in self.preset.tile.size)

    def start(self, construction: ConstructionInfo) -> None:
        """Nothing to do: the construction is read from each view."""
        return None

    def place(self, view: PlacementView, action) -> Outcome:
        if view.first or not view.construction:
            return Outcome(False, {"engine": "statics", "stands": True, "first": True}, None)
        from magdomino.physics.statics import Structure

        centre, yaw = view.pose
        try:
            structure = Structure(self.preset, *self._nominal(view.construction), magnets=self.magnets)
            verdict = structure.judge(np.asarray(centre, float), yaw_quaternion(yaw))
        except InputError as exc:
            return Outcome(False, {"engine": "statics", "stands": None, "error": str(exc)}, str(exc))
        record = {"engine": "statics", "stands": bool(verdict.stands), "collapsed": not verdict.stands,
                  "tiles": int(verdict.tiles), "contacts": int(verdict.contacts), "magnets": bool(verdict.magnets)}
        return Outcome(collapsed=not verdict.stands, verdict=record, error=None)

    def _nominal(self, construction) -> tuple[np.ndarray, np.ndarray]:
        """Nominal positions (n, 3) m and quaternions (n, 4) of ``construction`` (PlacedTile)."""
        poses = [physical_pose(t.grid, self.tile_size) for t in construction]
        positions = np.array([c for c, _ in poses], dtype=float).reshape(-1, 3)
        quats = np.array([yaw_quaternion(y) for _, y in poses], dtype=float).reshape(-1, 4)
        return positions, quats

    def structure(self, construction):
        """The prepared :class:`~magdomino.physics.statics.Structure` of ``construction``
        (PlacedTile, at their grid poses), or None when the statics cannot model it."""
        return prepare(self.preset, *self._nominal(construction), self.magnets)

    def stands(self, structure, grid) -> bool | None:
        """Does a tile at grid pose ``grid`` on ``structure`` stand (None: cannot judge)?"""
        centre, yaw = physical_pose(grid, self.tile_size)
        verdict = judge(structure, np.asarray(centre, float), yaw_quaternion(yaw), False)
        return None if verdict is None else bool(verdict.stands)

    def assess(self, views) -> list[float]:
        """Risk of each candidate (see :func:`statics_risk`): the statics at the nominal rest
        pose, once per distinct pose, with the tilt margin and load factor of the first
        ``margins`` standing poses in the order of ``views`` (:func:`pose_risks`). Every view
        is a candidate on the same construction (the current one)."""
        views = list(views)
        risks = [0.0] * len(views)
        todo = [i for i, v in enumerate(views) if not (v.first or not v.construction)]
        if not todo:
            return risks
        structure = self.structure(views[todo[0]].construction)
        poses: dict = {}  # the tile's pips do not matter to the statics: one check per grid pose
        for i in todo:
            if views[i].grid not in poses:
                centre, yaw = views[i].pose
                poses[views[i].grid] = (np.asarray(centre, float), yaw_quaternion(yaw))
        seen = pose_risks(structure, poses, self.margins)
        for i in todo:
            risks[i] = seen[views[i].grid]
        return risks

    def close(self) -> None:
        return None
