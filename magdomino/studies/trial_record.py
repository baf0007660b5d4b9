"""A trial's record: what a run keeps of one odds trial (a line of its trial log), whoever
judged it, made here and nowhere else.

A record starts with :func:`trial_record` (the what-if, the trial, the hand's draws from
:func:`hand_draws`) and ends with one outcome: :func:`verdict_outcome` (a dynamic trial's
verdict), :func:`statics_outcome` (a hybrid trial the statics decided), :func:`rest_outcome`
(the statics engine's own trial) or :func:`error_outcome` (never a collapse).
"""

from __future__ import annotations

from typing import TypedDict

from magdomino.physics.verdict import Verdict


class TrialRecord(TypedDict, total=False):
    """One odds trial as a run keeps it (a line of its trial log), whatever judged it; made
    by :func:`trial_record` and one of :func:`verdict_outcome`, :func:`statics_outcome` or
    :func:`error_outcome` (lengths in mm, angles in degrees)."""

    what_if: int | None
    trial: int
    engine: str
    """The engine, for the statics' own trials."""
    dx_mm: float
    dy_mm: float
    dyaw_deg: float
    drop_mm: float
    """The hand's miss and release height (a what-if's trial)."""
    collapsed: bool
    shifted: bool
    error: str | None
    reason: str
    culprit: int | None
    max_shift_mm: float | None
    max_tilt_deg: float | None
    sim_time_s: float | None
    judged_by: str
    """Who judged a hybrid trial: ``"statics"`` or ``"dynamics"``."""


def trial_record(what_if: int | None, trial: int, *, engine: str | None = None) -> TrialRecord:
    """The start of a trial's record: which what-if, which trial (and the engine, if named)."""
    record: TrialRecord = {"what_if": what_if, "trial": trial}
    if engine is not None:
        record["engine"] = engine
    return record


def hand_draws(miss) -> dict:
    """A what-if trial's draws as its record keeps them: ``miss`` = (dx mm, dy mm, dyaw deg, drop mm)."""
    dx, dy, dyaw, drop = (float(v) for v in miss)
    return {"dx_mm": round(dx, 6), "dy_mm": round(dy, 6), "dyaw_deg": round(dyaw, 6), "drop_mm": round(drop, 6)}


def error_outcome(message: str, reason: str = "error") -> dict:
    """A trial that failed (a numerical blow-up, an exception, a pose the statics refuses):
    an error, never a collapse."""
    return {"collapsed": False, "error": message, "reason": reason}


def rest_outcome(stands: bool) -> dict:
    """A trial of the statics engine: the pose stands or falls at rest (no motion, no shift)."""
    return {"collapsed": not stands, "shifted": False, "error": None, "reason": "stood" if stands else "falls"}


def statics_outcome(collapsed: bool, reason: str) -> dict:
    """A hybrid trial the statics decided: as a dynamic trial's record, with nothing measured
    of a motion (null) and no shift."""
    return {"collapsed": collapsed, "shifted": False, "error": None, "reason": reason, "culprit": None, "max_shift_mm": None,
            "max_tilt_deg": None, "sim_time_s": None}


def verdict_outcome(verdict: Verdict) -> dict:
    """The part of a verdict a trial keeps."""
    if verdict.error:
        return error_outcome(verdict.error)
    d = verdict.to_dict()
    return {
        "collapsed": bool(verdict.collapsed),
        "shifted": bool(verdict.shifted),
        "error": None,
        "reason": verdict.reason,
        "culprit": verdict.culprit,
        "max_shift_mm": d["max_shift_mm"],
        "max_tilt_deg": d["max_tilt_deg"],
        "sim_time_s": d["sim_time_s"],
    }
