"""The ``statics`` adjudicator: collapses decided by the statics at the nominal grid poses.

No simulation: each placement is judged by :class:`magdomino.physics.statics.Structure` on
the construction as the grid lays it out (:func:`magdomino.maths.geometry.physical_pose` of
every tile's grid pose, as :attr:`PlacementView.pose` gives it) plus the new tile at its
nominal rest pose. Everything comes from the :class:`PlacementView` (its ``construction``),
so cloned game states can share one adjudicator; the one thing kept, the screens of the
last assessment for the placement that follows it, is keyed by the construction and the pose.

The answer has three values (:func:`magdomino.physics.statics_screen.sure_verdict_of`): **stands**
(it stands at rest with a tilt margin and carries the tile's landing), **falls** (it cannot
stand at rest even with more friction, or it stands only in an unstable balance: no tilt
margin at all, a tie), or **unsure** (a small margin, a structure that carries the tile's weight
but maybe not its landing, a rest pose refused only for want of friction). On the default
toy preset the sure answers equal PyBullet's on every one of the validation's positions
(``docs/validation/statics_toy.md``). What an unsure placement does is the adjudicator's
``on_unsure``:

- ``"rigid"`` (default): the plain equilibrium check decides (stands when contact forces
  exist that hold every tile at rest), the outcome marked ``unsure``;
- ``"collapse"``: an unsure placement counts as a fall (a risk not taken: the OpenSpiel
  face's searches learn to avoid it);
- ``fallback``: an adjudicator with ``judge_view(view)``
  (:meth:`~magdomino.physics.pybullet_adjudicator.PybulletAdjudicator.judge_view`: the
  construction built at its grid poses, settled, and the tile placed on it) is asked, and
  its verdict is the outcome's (about half a second a question).

The outcome's ``verdict`` is the one :class:`~magdomino.physics.verdict.Verdict` JSON of
every engine (``engine`` "statics", what only a simulation knows null), its ``unsure`` field
set. A pose the statics cannot model (it raises "statics cannot judge this: ...") is an
:class:`Outcome` with ``error`` set, never a collapse.

:func:`statics_risk` is the risk scale of ``assess`` shared with the PyBullet adjudicator
(documented in :mod:`magdomino.physics.adjudicator`); an unsure pose is never safe
(:data:`UNKNOWN_RISK`).
"""

from __future__ import annotations

import time

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import physical_pose
from magdomino.maths.poses import yaw_quaternion
from magdomino.model.presets import DEFAULT_PRESET, Preset, load_preset
from magdomino.physics import statics
from magdomino.physics.adjudicator import ConstructionInfo, Outcome, PlacementView
from magdomino.physics.statics import Structure
from magdomino.physics.statics_screen import AT_REST, PLACEMENT_TESTS, TOWER_TESTS, Stressed, run_screen, sure_verdict
from magdomino.physics.verdict import Verdict

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


def pose_risks(structure, poses, margins: int = MARGINS, enough: int | None = None, screens: dict | None = None) -> dict:
    """Risk of each distinct pose: ``poses`` is an ordered dict ``key -> (position (3,) m,
    quaternion (4,))``; the statics' three answers (:func:`magdomino.physics.statics_screen.sure_verdict`;
    a pose that does not stand at rest is 1 without its rest-fall tests, one that falls in an
    unstable balance 1, an unsure pose :data:`UNKNOWN_RISK`), then the margin and load factor
    of the first ``margins`` that stand for sure.

    With ``enough``, the poses are judged in order only until ``max(enough, margins)`` of
    them stand for sure; the dict holds the poses judged (a prefix of ``poses``). Every pose
    left out would get at least :data:`STANDING_MAX`: the margins went to the ones before.

    ``screens``, when given, receives ``key -> (screen results, contacts)`` of every pose
    that stands at rest (its whole screen was run; the contacts counted with the tile)."""
    risks = {}
    measured = 0
    sure = 0
    stop = None if enough is None else max(int(enough), margins)
    for key, (position, quat) in poses.items():
        if stop is not None and sure >= stop:
            break
        stressed = _stressed(structure, position, quat)
        if stressed is None:
            risks[key] = UNKNOWN_RISK
            continue
        results = {AT_REST: stressed.stands(AT_REST)}
        answer = sure_verdict(run_screen(stressed, results)) if results[AT_REST] else "falls"
        if screens is not None and results[AT_REST]:
            screens[key] = (results, len(stressed.contacts))
        if answer != "stands":
            risks[key] = 1.0 if answer == "falls" else UNKNOWN_RISK
            continue
        sure += 1
        if measured < margins:
            measured += 1
            risks[key] = statics_risk(judge(structure, position, quat, True))
        else:
            risks[key] = STANDING_MAX
    return risks


def view_risks(views, risks_of) -> list:
    """Each view's risk: 0 for the first tile of a construction, else ``risks_of(todo)``'s
    risk of its grid pose (``todo``: the indices of the other views), None where that left
    the pose out (``assess_first``)."""
    views = list(views)
    risks: list = [0.0] * len(views)
    todo = [i for i, v in enumerate(views) if not (v.first or not v.construction)]
    if todo:
        seen = risks_of(todo)
        for i in todo:
            risks[i] = seen.get(views[i].grid)
    return risks


def _stressed(structure, position, quaternion):
    """:meth:`~magdomino.physics.statics_screen.Stressed.on` of one more tile, None when the
    statics cannot judge it."""
    if structure is None:
        return None
    try:
        return Stressed.on(structure, position, quaternion)
    except (InputError, ValueError):
        return None


def _every_test(preset, P, Q, tests, placed: bool, magnets: bool) -> dict:
    """Every one of ``tests`` on these poses (the raw data of a validation)."""
    stressed = Stressed(preset, P, Q, placed=placed, magnets=magnets)
    return {test: stressed.stands(test) for test in tests}


def _named(results: dict) -> dict:
    """Stress-test results keyed by their numbers as text (JSON keys)."""
    return {",".join(f"{v:g}" for v in test): bool(ok) for test, ok in results.items()}


ON_UNSURE = ("rigid", "collapse")
"""What a :class:`StaticsAdjudicator` without a fallback does with an unsure placement (the
module docstring)."""


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
    on_unsure : {"rigid", "collapse"}
        An unsure placement without a fallback: the plain equilibrium check decides, or it
        counts as a fall (the module docstring).
    fallback : object with ``judge_view(view)``, optional
        Asked for every unsure placement (a
        :class:`~magdomino.physics.pybullet_adjudicator.PybulletAdjudicator`); its verdict is
        the outcome. Closed by :meth:`close`.
    """

    name = "statics"
    trivial = False

    def __init__(self, preset: Preset | str = DEFAULT_PRESET, *, magnets: bool = True, margins: int = MARGINS,
                 on_unsure: str = "rigid", fallback=None):
        if on_unsure not in ON_UNSURE:
            raise InputError("options", "on_unsure", f"one of {', '.join(ON_UNSURE)}, got {on_unsure!r}")
        if fallback is not None and not callable(getattr(fallback, "judge_view", None)):
            raise InputError("options", "fallback", "an adjudicator with judge_view(view) (the pybullet adjudicator)")
        self.preset = load_preset(preset) if isinstance(preset, str) else preset
        self.magnets = magnets
        self.margins = int(margins)
        self.on_unsure = on_unsure
        self.fallback = fallback
        self.tile_size = tuple(float(v) for v in self.preset.tile.size)
        self._screened: dict = {}  # (construction key, grid pose) -> (view pose, screen results, contacts) of the last assessment

    def start(self, construction: ConstructionInfo) -> None:
        """Nothing to do: the construction is read from each view."""
        return None

    def place(self, view: PlacementView, action) -> Outcome:
        """The statics' outcome of ``view`` (the module docstring): ``collapsed`` when it falls
        for sure (or, unsure, as ``on_unsure`` or the fallback says), ``unsure`` set when the
        statics could not be sure."""
        if view.first or not view.construction:
            return Outcome(False, Verdict(collapsed=False, reason="stood", settled=None, max_shift_mm=None, max_tilt_deg=None,
                                          sim_time_s=None, wall_time_s=0.0, moved_tiles=None, thresholds=None, shifted=None,
                                          engine="statics", unsure=False).to_dict(), None)


        start = time.perf_counter()
        try:
            results, contacts = self._screen(view)
        except InputError as exc:
            record = Verdict(collapsed=False, reason="error", settled=None, max_shift_mm=None, max_tilt_deg=None, sim_time_s=None,
                             wall_time_s=time.perf_counter() - start, moved_tiles=None, thresholds=None, shifted=None,
                             error=str(exc), engine="statics", unsure=None).to_dict()
            return Outcome(False, record, str(exc))
        answer = sure_verdict(results)
        if answer == "unsure" and self.fallback is not None:
            return self._ask_fallback(view)
        unsure = answer == "unsure"
        if unsure:
            collapsed = (not results[AT_REST]) if self.on_unsure == "rigid" else True
        else:
            collapsed = answer == "falls"
        verdict = Verdict(collapsed=collapsed, reason="falls" if collapsed else "stood", settled=None, max_shift_mm=None,
                          max_tilt_deg=None, sim_time_s=None, wall_time_s=time.perf_counter() - start, moved_tiles=None,
                          thresholds=None, shifted=None, contacts=contacts, engine="statics", unsure=unsure)
        return Outcome(collapsed=collapsed, verdict=verdict.to_dict(), error=None, unsure=unsure)

    def _screen(self, view: PlacementView) -> tuple[dict, int]:
        """The screen's results of ``view``'s placement (:func:`~magdomino.physics.statics_screen.run_screen`)
        and its contacts: those the last assessment ran when it was of this pose on this
        construction (a seat places what it has just weighed), else run now."""
        ran = self._screened.get((self._key(view.construction), view.grid))
        if ran is not None and ran[0] == view.pose:
            return dict(ran[1]), ran[2]
        centre, yaw = view.pose
        structure = Structure(self.preset, *self._nominal(view.construction), magnets=self.magnets)
        stressed = Stressed.on(structure, np.asarray(centre, float), yaw_quaternion(yaw))
        return run_screen(stressed), len(stressed.contacts)

    @staticmethod
    def _key(construction) -> tuple:
        """What the statics sees of ``construction``: its tiles' grid poses (the pips do not matter)."""
        return tuple(t.grid for t in construction)

    def _ask_fallback(self, view: PlacementView) -> Outcome:
        """The fallback's outcome of an unsure placement: its verdict of the placement, or of
        the construction when that did not stand by itself; ``unsure`` set (the statics was)."""
        tower, outcome = self.fallback.judge_view(view)
        if outcome is None:
            record = tower.to_dict()
            record["unsure"] = True
            return Outcome(collapsed=bool(tower.collapsed) and not tower.error, verdict=record, error=tower.error, unsure=True)
        record = dict(outcome.verdict or {})
        record["unsure"] = True
        return Outcome(collapsed=outcome.collapsed, verdict=record, error=outcome.error, unsure=True)

    def _nominal(self, construction) -> tuple[np.ndarray, np.ndarray]:
        """Nominal positions (n, 3) m and quaternions (n, 4) of ``construction`` (PlacedTile)."""
        poses = [physical_pose(t.grid, self.tile_size) for t in construction]
        positions = np.array([c for c, _ in poses], dtype=float).reshape(-1, 3)
        quats = np.array([yaw_quaternion(y) for _, y in poses], dtype=float).reshape(-1, 4)
        return positions, quats

    def tower_answer(self, construction, *, margin: bool = True) -> dict:
        """The statics' answer on ``construction`` (PlacedTile, at their grid poses) alone:
        ``verdict`` ("stands", "falls", "unsure": :func:`~magdomino.physics.statics_screen.sure_verdict`,
        or "refused": a pose the statics cannot model, with ``error``), ``rigid`` (the plain
        equilibrium check at rest), ``margin_deg`` (with ``margin``)."""
        P, Q = self._nominal(construction)
        try:
            results = _every_test(self.preset, P, Q, TOWER_TESTS, False, self.magnets)
            m = statics.judge(self.preset, P, Q, magnets=self.magnets, margin=True).margin if margin else None
        except InputError as exc:
            return {"verdict": "refused", "rigid": None, "margin_deg": None, "error": exc.expected}
        return {"verdict": sure_verdict(results, placed=False), "rigid": results[AT_REST],
                "margin_deg": None if m is None else round(float(m), 4), "tests": _named(results)}

    def answer(self, view: PlacementView, *, margin: bool = True) -> dict:
        """The statics' answer on ``view``'s placement at its nominal rest pose on the
        construction at its grid poses: ``verdict`` ("stands", "falls", "unsure":
        :func:`~magdomino.physics.statics_screen.sure_verdict`, or "refused" with ``error``),
        ``rigid`` (the plain equilibrium check at rest), ``margin_deg`` and ``load_factor``
        (with ``margin``). The first tile of a construction stands."""
        if view.first or not view.construction:
            return {"verdict": "stands", "rigid": True, "margin_deg": None, "load_factor": None}
        P, Q = self._nominal(view.construction)
        centre, yaw = view.pose
        P = np.vstack([P, np.asarray(centre, float)])
        Q = np.vstack([Q, yaw_quaternion(yaw)])
        try:
            results = _every_test(self.preset, P, Q, PLACEMENT_TESTS, True, self.magnets)
            v = Structure(self.preset, P[:-1], Q[:-1], magnets=self.magnets).judge(P[-1], Q[-1], margin=True) if margin else None
        except InputError as exc:
            return {"verdict": "refused", "rigid": None, "margin_deg": None, "load_factor": None, "error": exc.expected}
        return {"verdict": sure_verdict(results, placed=True), "rigid": results[AT_REST],
                "margin_deg": None if v is None else round(float(v.margin), 4),
                "load_factor": None if v is None or v.load_factor is None else round(float(v.load_factor), 4),
                "tests": _named(results)}

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
        return view_risks(views, lambda todo: self._pose_risks(views, todo, None))

    def assess_first(self, views, enough: int) -> list:
        """:meth:`assess` of the views in order until ``enough`` distinct poses (and at least
        ``margins``) stand for sure; None for the views after (each would get at least
        :data:`STANDING_MAX`: the protocol in :mod:`magdomino.physics.adjudicator`)."""
        views = list(views)
        return view_risks(views, lambda todo: self._pose_risks(views, todo, enough))

    def _pose_risks(self, views, todo: list, enough: int | None) -> dict:
        """:func:`pose_risks` of the grid poses of ``views[todo]`` on their construction."""
        construction = views[todo[0]].construction
        structure = self.structure(construction)
        poses: dict = {}  # the tile's pips do not matter to the statics: one check per grid pose
        shown: dict = {}  # grid pose -> the view pose judged there
        for i in todo:
            if views[i].grid not in poses:
                centre, yaw = views[i].pose
                poses[views[i].grid] = (np.asarray(centre, float), yaw_quaternion(yaw))
                shown[views[i].grid] = views[i].pose
        screens: dict = {}
        risks = pose_risks(structure, poses, self.margins, enough, screens)
        key = self._key(construction)  # kept for the placement that follows (place), this construction's only
        self._screened = {(key, grid): (shown[grid], *ran) for grid, ran in screens.items()}
        return risks

    def close(self) -> None:
        if self.fallback is not None:
            self.fallback.close()
