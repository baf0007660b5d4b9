"""Design studies: how a toy plays as its preset changes (``magdomino study``).

:func:`run_study` plays, for each value of one or more preset parameters (a grid over
several: ``{"magnets_scale": [0.9, 1.0, 1.1], "tile.friction": [0.3, 0.5]}`` gives six
points), the same tournament (:mod:`magdomino.games.tournament`: seats rotated, deal ``d``
seeded from ``SeedSequence(seed)``'s child ``d``), and sums each point up with the metrics
game designers use (as in Ludii's game evaluation metrics), each with a 95 % interval.

Common random numbers: deal ``d`` has the same seed at every point (the same hands, the
same players' streams), so two points differ by the parameter, not by the luck of the deal.

Metrics of a point (:func:`study_metrics`), over its ``n`` deals:

- ``completion``: the share of deals that ended naturally (not abandoned by the runaway
  guard ``max_placements``);
- ``placements`` and ``rounds`` per deal (a round: each seat's turn once; a turn is a run of
  one seat's place, draw and pass events; rounds = turns / players, rounded up); an
  abandoned deal counts with its length at the guard;
- ``collapses`` per deal, and ``collapses_per_placement`` (all collapses over all placements);
- ``skill_gap``: the win share of the ``skilled`` kind (default careful) in the natural
  deals, when it and ``random`` both sit (``fair_share``: its seats over the players, what
  it would win were it no better than random); None otherwise;
- ``seat_advantage``: the first seat's win share in the natural deals (``fair_share`` 1/n);
- ``height``: the final construction's height in levels (tiles stacked: the highest
  level + 1; 0 for an empty table), per deal.

Intervals (:data:`INTERVALS`): a share's is the exact (Clopper-Pearson) binomial interval,
``scipy.stats.binomtest(k, n).proportion_ci(0.95)`` (win shares rounded to whole wins, as
the tournament does; collapses per placement treats placements as independent trials); a
mean's is the Student t interval, ``scipy.stats.t.interval(0.95, n - 1, mean, sem)``, its
low bound raised to 0 where it falls below (every mean here is of counts); ``[mean, mean]``
when every deal gave the same; null below two deals. Every metric has
``value`` and ``ci``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from magdomino.checks import check_choice, check_count, check_seed, is_whole
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.family import PLACEMENT_GUARD
from magdomino.games.tournament import (
    TournamentJob,
    check_deal_record,
    check_overrides_physics,
    check_tournament,
    deal_row,
    job_preset,
    per_kind_table,
    play_deal_record,
    play_missing,
    seat_counts,
)
from magdomino.model.presets import DEFAULT_PRESET
from magdomino.studies.runner import TrialLog, capped_jobs
from magdomino.version import __version__

STUDY_VERSION = 1
STUDY_RULES = ("traditional", "defi", "quinconce")
"""The rules a physics judges (the others' deals do not depend on the preset)."""

INTERVALS = {
    "share": "Clopper-Pearson exact binomial interval, scipy.stats.binomtest(k, n).proportion_ci(0.95)",
    "mean": "Student t interval, scipy.stats.t.interval(0.95, n - 1, loc=mean, scale=sem), its low bound at least 0 (counts); "
            "[mean, mean] when all equal",
}
METRICS = ("completion", "placements", "rounds", "collapses", "collapses_per_placement", "skill_gap", "seat_advantage",
           "height")
"""The metrics of a point, in the order tables and figures show them."""


def count_rounds(events: list[dict], players: int) -> int:
    """Rounds of a deal: turns (runs of one seat's place, draw and pass events) over the players, rounded up."""
    turns, last = 0, None
    for e in events:
        if e["type"] in ("place", "draw", "pass"):
            if e["player"] != last:
                turns += 1
            last = e["player"]
        elif e["type"] == "deal":
            last = None
    return math.ceil(turns / players)


def tower_height(record: dict) -> int:
    """The final construction's height in levels: its highest tile's level + 1 (0: nothing placed)."""
    construction = record.get("final", {}).get("construction") or []
    return max((int(t["pose"][2]) for t in construction), default=-1) + 1


@dataclass(frozen=True)
class StudyJob:
    """What a worker needs to play any deal of any point (picklable): one tournament per point."""

    points: tuple


def run_study_deals(job: StudyJob, point: int, deals: list[int]) -> list[dict]:
    """A chunk of one point's deals on a worker (the :func:`magdomino.studies.runner.execute` protocol)."""
    tournament = job.points[point]
    rows = []
    for d in deals:
        kinds, game_seed, record, results = play_deal_record(tournament, d)
        row = deal_row(tournament, d, kinds, game_seed, record, results)
        row["rounds"] = count_rounds(record["events"], len(kinds))
        row["height"] = tower_height(record)
        rows.append({"what_if": point, "trial": d, **row})
    return rows


def check_study_record(record: dict, seats, points: int) -> str | None:
    """What a stored deal record of a study lacks to be counted (None: nothing)."""
    point = record.get("what_if")
    if not is_whole(point) or not 0 <= point < points:
        return f"what_if: a point 0..{points - 1}"
    for key in ("rounds", "height"):
        if not is_whole(record.get(key)) or record[key] < 0:
            return f"{key}: a whole number >= 0"
    return check_deal_record(record, seats)


def share_interval(k: float, n: int) -> list:
    """The exact binomial 95 % interval of ``k`` successes in ``n`` (``k`` rounded to a whole number)."""
    if n == 0:
        return [None, None]
    from scipy import stats  # noqa: PLC0415 - imported on use: ~1 s, for the intervals only

    low, high = stats.binomtest(min(n, max(0, int(round(k)))), n).proportion_ci(0.95)
    return [float(low), float(high)]


def mean_interval(values) -> dict:
    """``{"value": mean, "ci": [low, high], "n"}``: the Student t 95 % interval of the mean of
    counts (never negative: a bound below 0 is raised to 0)."""
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return {"value": None, "ci": [None, None], "n": 0}
    mean = float(x.mean())
    if x.size < 2:
        return {"value": mean, "ci": [None, None], "n": 1}
    from scipy import stats  # noqa: PLC0415 - imported on use: ~1 s, for the intervals only

    sem = float(stats.sem(x))
    if sem == 0:
        return {"value": mean, "ci": [mean, mean], "n": int(x.size)}
    low, high = stats.t.interval(0.95, x.size - 1, loc=mean, scale=sem)
    return {"value": mean, "ci": [max(0.0, float(low)), float(high)], "n": int(x.size)}


def _share(k: float, n: int, **more) -> dict:
    return {"value": k / n if n else None, "ci": share_interval(k, n), "k": round(float(k), 12), "n": n, **more}


def study_metrics(rows: list[dict], seats, skilled: str = "careful") -> dict:
    """The metrics of one point (module docstring) from its deal rows.

    Parameters
    ----------
    rows : list of dict
        Deal rows (:func:`run_study_deals`): ``seating``, ``winners``, ``ended``,
        ``placements``, ``rounds``, ``collapses``, ``height``, ``win_shares``.
    seats : sequence of str
        The player kinds, one per seat.
    skilled : str
        The kind whose win share against ``random`` is the skill gap.
    """
    n = len(rows)
    players = len(seats)
    natural = [r for r in rows if r["ended"] == "natural"]
    games = len(natural)
    placed = sum(r["placements"] for r in rows)
    collapsed = sum(r["collapses"] for r in rows)
    first = sum(1.0 / len(r["winners"]) for r in natural if 0 in r["winners"])
    skill = None
    if skilled in seats and "random" in seats and skilled != "random":
        wins = sum(r["win_shares"][skilled] for r in natural)
        skill = _share(wins, games, kind=skilled, against="random", fair_share=sum(s == skilled for s in seats) / players)
    return {
        "completion": _share(len(natural), n),
        "placements": mean_interval(r["placements"] for r in rows),
        "rounds": mean_interval(r["rounds"] for r in rows),
        "collapses": mean_interval(r["collapses"] for r in rows),
        "collapses_per_placement": _share(collapsed, placed),
        "skill_gap": skill,
        "seat_advantage": _share(first, games, fair_share=1 / players),
        "height": mean_interval(r["height"] for r in rows),
    }


def study_points(vary: dict) -> list[dict]:
    """The grid of ``vary`` (``{key: [values]}``): one ``{key: value}`` per point, the last key fastest."""
    keys = list(vary)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(vary[k] for k in keys))]


def _check_vary(vary, base: dict) -> dict:
    if not isinstance(vary, dict) or not vary:
        raise InputError(ARGUMENTS, "vary",
                         f"a dict of preset keys and their values, e.g. {{'magnets_scale': [0.9, 1.0, 1.1]}}, got {vary!r}"[:200])
    checked = {}
    for key, values in vary.items():
        if not isinstance(key, str) or not key:
            raise InputError(ARGUMENTS, "vary", f"preset keys as text, got {key!r}"[:200])
        if key in base:
            raise InputError(ARGUMENTS, "vary", f"{key}: varied and overridden at once (give it in one place)")
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        if not values:
            raise InputError(ARGUMENTS, "vary", f"{key}: at least one value")
        if len({repr(v) for v in values}) != len(values):
            raise InputError(ARGUMENTS, "vary", f"{key}: each value once, got {values!r}"[:200])
        checked[key] = values
    return checked


def run_study(rule: str, seats, deals: int, vary: dict, seed: int = 0, physics: str = "dynamics", preset: str | None = None,
              preset_overrides: dict | None = None, magnets: bool = True, max_placements: int | None = None,
              skilled: str = "careful", jobs: int | None = None, scheduler: str | None = None, executor=None, out_dir=None,
              resume: bool = False, progress: bool = False) -> dict:
    # long: its NumPy parameter list (15 options), then the checks, the play and the JSON document, key by key, in order
    """Play the study and return its JSON document.

    Parameters
    ----------
    rule : ``"defi"``, ``"quinconce"`` or ``"traditional"``
    seats : sequence of player kinds, one per seat
    deals : int > 0
        Deals per point (a multiple of the seat count balances the seats).
    vary : dict
        ``{preset key: [values]}`` in the preset file's keys and units, or ``magnets_scale``
        (:func:`magdomino.model.presets.with_overrides`); several keys make a grid.
    physics : an engine's name (:func:`magdomino.games.tournament.physics_names`, not none)
    preset, preset_overrides, magnets, max_placements : as :func:`~magdomino.games.tournament.run_tournament`
        (``preset_overrides`` apply at every point, ``vary`` on top; the guard defaults to
        :data:`~magdomino.games.family.PLACEMENT_GUARD`, 300)
    skilled : str
        The kind whose win share against random seats is the skill gap.
    jobs, scheduler, executor, out_dir, resume, progress : as a tournament (the log is ``study.jsonl``)

    Returns
    -------
    dict
        ``kind: "study"``, ``version``, ``study_version``, ``seed``, ``rule``, ``seats``,
        ``players``, ``deals`` (per point), ``physics``, ``engine``, ``preset``,
        ``preset_overrides`` (every point's), ``magnets``, ``max_placements``, ``skilled``,
        ``params`` (the varied keys), ``vary`` ``{key: [values]}``, ``seating``, ``period``,
        ``balanced``, ``common_deals``, ``intervals`` (:data:`INTERVALS`), ``metrics``
        (:data:`METRICS`) and ``points``: one per grid point, ``values`` ``{key: value}``,
        ``overrides`` (all applied), ``preset_description``, ``ended`` ``{natural,
        abandoned}``, ``metrics`` (:func:`study_metrics`), ``seat_counts``, ``per_kind``
        (:func:`~magdomino.games.tournament.per_kind_table`) and ``per_deal`` (the
        tournament's rows plus ``rounds`` and ``height``).
    """
    check_choice(rule, "rule", STUDY_RULES)
    if physics == "none":
        raise InputError(ARGUMENTS, "physics", "an engine (without physics the preset changes nothing)")
    seats = check_tournament(rule, seats, deals, physics)
    check_seed(seed)
    if max_placements is not None:
        check_count(max_placements, "max_placements", minimum=1)
    if not isinstance(skilled, str) or not skilled:
        raise InputError(ARGUMENTS, "skilled", f"a player kind, got {skilled!r}")
    if jobs is not None:
        capped_jobs(jobs, 1)
    base = check_overrides_physics(preset_overrides, physics)
    vary = _check_vary(vary, base)
    max_placements = PLACEMENT_GUARD if max_placements is None else int(max_placements)
    grid = study_points(vary)
    jobs_of = tuple(TournamentJob(rule, seats, int(seed), int(deals), physics, preset, bool(magnets), max_placements,
                                  tuple({**base, **values}.items())) for values in grid)
    described = []
    for values, job in zip(grid, jobs_of):  # every point's preset checked before any deal
        try:
            described.append(job_preset(job).description)
        except InputError as exc:
            if exc.key == "preset":
                raise
            point = ", ".join(f"{k} = {v}" for k, v in values.items())
            raise InputError(ARGUMENTS, "vary", f"a preset that checks at {point}: {exc.key}: {exc.expected}") from None
    study = StudyJob(jobs_of)
    header = {"kind": "header", "format": "magdomino study log 1", "rule": rule, "seats": list(seats), "seed": int(seed),
              "deals": int(deals), "physics": physics, "preset": preset, "preset_overrides": base, "magnets": bool(magnets),
              "max_placements": max_placements, "vary": vary}
    log = None
    if out_dir is not None:
        log = TrialLog(Path(out_dir) / "study.jsonl", header, resume, True, lambda r: check_study_record(r, seats, len(grid)))
    wanted = [(p, d) for p in range(len(grid)) for d in range(deals)]
    rows = play_missing(run_study_deals, study, wanted, log, jobs=jobs, scheduler=scheduler, executor=executor,
                        progress=progress)
    points = []
    for p, values in enumerate(grid):
        per_deal = [{k: v for k, v in rows[p, d].items() if k not in ("what_if", "trial")} for d in range(deals)]
        natural = sum(r["ended"] == "natural" for r in per_deal)
        points.append({
            "values": values,
            "overrides": {**base, **values},
            "preset_description": described[p],
            "ended": {"natural": natural, "abandoned": deals - natural},
            "metrics": study_metrics(per_deal, seats, skilled),
            "seat_counts": seat_counts(seats, per_deal),
            "per_kind": per_kind_table(seats, per_deal),
            "per_deal": per_deal,
        })
    return {
        "kind": "study",
        "version": __version__,
        "study_version": STUDY_VERSION,
        "seed": int(seed),
        "rule": rule,
        "seats": list(seats),
        "players": len(seats),
        "deals": int(deals),
        "physics": physics,
        "engine": physics,
        "preset": preset or DEFAULT_PRESET,
        "preset_overrides": base,
        "magnets": bool(magnets),
        "max_placements": max_placements,
        "skilled": skilled,
        "params": list(vary),
        "vary": vary,
        "seating": "block d//n takes the next circular order (first entry fixed), rotated by d%n",
        "period": len(seats),
        "balanced": int(deals) % len(seats) == 0,
        "common_deals": "deal d has the same seed at every point (common random numbers)",
        "intervals": dict(INTERVALS),
        "metrics": list(METRICS),
        "points": points,
    }
