"""Stability odds: Monte Carlo over a real hand's unsteadiness, with 95 % intervals.

One **trial** places the tile again with a hand that is not perfect and with tiles that are
not all alike, in a fresh world, and records the verdict. The odds of a what-if are
``collapses / (trials - errors - undecided)`` with a Wilson 95 % interval on that number of
trials. Trials run in local processes or on a dask.distributed cluster; every count is the
same whatever runs them.

A trial is a **collapse**, **stood** (everything came to rest), **undecided** (the verdict's
reason is ``"time limit"``: within the preset's ``collapse.time_limit_s`` nothing fell and
not everything came to rest) or an **error** (below). Undecided and error trials say
nothing about the odds: they are counted apart (``undecided``, ``errors``) and left out of
the denominator, never counted as standing nor as collapsing.

Noise model
-----------
Set in the scenario's ``[noise]`` table and overridable from Python or the command line;
the model, its defaults and their rationale are in :mod:`magdomino.studies.trials`.
With no what-if, position and yaw noise apply to every tile of the structure, and
**drop noise does not apply** (the tiles are spawned at rest, none is dropped).

Determinism
-----------
Trial ``i`` uses ``numpy.random.SeedSequence(seed).spawn(n)[i]`` (built directly as
``SeedSequence(seed, spawn_key=(i,))``, the same stream), whatever the worker count, the
chunking or the executor. The nominal structure is settled once in the parent (or given by the caller,
``settled=``) and shipped to the workers; each trial builds its own world. Before what-ifs
are tried, the nominal structure must settle: one that collapses, fails or is still moving
at ``collapse.time_limit_s`` is refused (:func:`magdomino.studies.engines.check_structure_settled`). With ``precision``, the
interval is checked
after every ``batch`` trials (per what-if), so where a run stops depends only on the seed
and the batch size.

Nothing lost
------------
With ``out_dir``, every trial is appended to a JSON-lines file as soon as it finishes,
after a header line with the seed, the scenario's digest and every setting that changes the
result. ``resume=True`` reads it back, computes only the missing trials and ends with the
identical result; a header that does not match is refused. A worker that dies (a crash, a
kill) breaks the process pool: the pool is rebuilt and the unfinished trials are resubmitted
one by one; a trial that was running in :data:`MAX_ATTEMPTS` broken pools is recorded as an
error. A trial whose verdict is a numerical blow-up, or that raises, is counted in
``errors``, never as a collapse.
"""

from __future__ import annotations

import importlib
import math
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from magdomino.checks import check_count, check_seed
from magdomino.errors import ARGUMENTS, InputError
from magdomino.studies.engines import STUDY_ENGINE, Engine, get_engine
from magdomino.studies.progress import progress_bar
from magdomino.studies.runner import Runner, TrialLog, capped_jobs, execute, poses_digest, runner_for, scenario_digest
from magdomino.studies.scenario import Scenario, check_scenario
from magdomino.studies.trials import Job, resolve_noise, run_chunk
from magdomino.version import __version__

DEFAULT_BATCH = 100
"""Trials per what-if between two precision checks."""

LOG_FORMAT = 1

UNDECIDED_REASON = "time limit"
"""The verdict reason of a trial that neither settled nor collapsed in time (see the module docstring)."""


# -- statistics ---------------------------------------------------------------------------


def wilson_interval(collapses: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; ``(0, 1)`` when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    from scipy.stats import binomtest  # noqa: PLC0415 - scipy.stats: ~0.3 s to import, kept off the command line's start

    ci = binomtest(int(collapses), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def _prefetch(module: str) -> None:
    """Import ``module`` in a background thread (a parent that waits on its workers has the
    time; scipy.stats takes ~0.35 s, the whole of a small run's tally)."""
    if module not in sys.modules:
        threading.Thread(target=importlib.import_module, args=(module,), daemon=True, name="prefetch").start()


@dataclass
class WhatIfOdds:
    """The odds of one what-if (``what_if`` None: the structure alone)."""

    what_if: int | None
    placement: str
    trials: int
    collapses: int
    errors: int
    undecided: int = 0
    shifts: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    error_messages: list[str] = field(default_factory=list)
    stopped_by: str = "trials"
    counted_shifts: int | None = None
    median_shift_mm: float | None = None
    judged_by: dict[str, int] = field(default_factory=dict)

    @property
    def counted(self) -> int:
        """Trials that count: all but the errors and the undecided ones."""
        return self.trials - self.errors - self.undecided

    @property
    def shift_share(self) -> float | None:
        """Shifted trials among the counted ones (``counted_shifts / counted``); None when the
        engine does not know shifts (the statics) or no trial counts. A shift is not a
        collapse (:mod:`magdomino.physics.verdict`); a trial that shifted and then fell is in
        both shares."""
        return self.counted_shifts / self.counted if self.counted_shifts is not None and self.counted else None

    @property
    def shift_ci95(self) -> tuple[float, float] | None:
        """Wilson 95 % interval of :attr:`shift_share` (None when the engine does not know shifts)."""
        return None if self.counted_shifts is None else wilson_interval(self.counted_shifts, self.counted)

    @property
    def p_collapse(self) -> float | None:
        return self.collapses / self.counted if self.counted else None

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.collapses, self.counted)

    @property
    def half_width(self) -> float:
        lo, hi = self.ci95
        return (hi - lo) / 2 if self.counted else math.inf

    def to_dict(self) -> dict:
        shift_ci = self.shift_ci95
        d = {
            "what_if": self.what_if,
            "placement": self.placement,
            "trials": self.trials,
            "collapses": self.collapses,
            "errors": self.errors,
            "undecided": self.undecided,
            "shifts": self.shifts,
            "p_collapse": self.p_collapse,
            "ci95": list(self.ci95),
            "reasons": dict(sorted(self.reasons.items())),
            "stopped_by": self.stopped_by,
            "shift_share": self.shift_share,
            "shift_ci95": None if shift_ci is None else list(shift_ci),
            "median_shift_mm": self.median_shift_mm,
            "judged_by": dict(sorted(self.judged_by.items())),
        }
        if self.error_messages:
            d["error_messages"] = list(self.error_messages)
        return d


@dataclass
class OddsResult:
    """Odds of every what-if of a scenario (or of its structure when it has none); ``name``
    is the scenario's."""

    name: str
    seed: int
    preset: str
    magnets: bool
    tile_size_mm: list[float]
    noise: dict[str, Any]
    offset_mm: tuple[float, float]
    results: list[WhatIfOdds]
    wall_time_s: float = 0.0
    log_path: str | None = None
    engine: str = "dynamics"

    def to_dict(self) -> dict:
        """JSON document; identical for any worker count or executor (no timings)."""
        return {
            "version": __version__,
            "engine": self.engine,
            "name": self.name,
            "seed": self.seed,
            "preset": self.preset,
            "magnets": self.magnets,
            "tile_size_mm": list(self.tile_size_mm),
            "noise": dict(self.noise),
            "offset_mm": list(self.offset_mm),
            "results": [r.to_dict() for r in self.results],
        }


# -- the estimate -------------------------------------------------------------------------


@dataclass(frozen=True)
class OddsSettings:
    """How an odds run goes, shared by :func:`estimate_odds`, :func:`sweep` and the what-if
    ranking (:func:`magdomino.studies.whatif.rank_placements`).

    Attributes
    ----------
    trials : int
        Trials per what-if (an upper bound with ``precision``).
    seed : int, optional
        Default: the scenario's ``seed``.
    noise : dict, optional
        Overrides of the scenario's ``[noise]`` (keys of :data:`magdomino.studies.trials.NOISE_DEFAULTS`).
    precision : float, optional
        Stop a what-if once its interval's half-width is below this, checked every ``batch``.
    batch : int
        Trials per what-if between two precision checks.
    executor : None, "processes", "serial", a ``distributed.Client``, an Executor or a Runner
        Where trials run; default a local process pool of ``jobs`` workers.
    jobs : int, optional
        Worker processes (default all cores).
    scheduler : str, optional
        A dask scheduler address, or ``"local"`` for a LocalCluster of ``jobs`` processes.
    out_dir : path, optional
        Stream every trial to a JSON-lines log there.
    resume : bool
        Continue the run stored in ``out_dir`` (same settings) instead of refusing to overwrite it.
    progress : bool
        A tqdm bar on stderr with the running estimate.
    engine : Engine or str
        Who judges a trial (:mod:`magdomino.studies.engines`): ``"hybrid"`` (the default:
        the statics where it is sure, else the dynamics), ``"dynamics"`` (a verdict in a
        fresh world), ``"statics"`` (a static check of the perturbed rest pose on the
        nominal structure), or an engine object.
    """

    trials: int
    seed: int | None = None
    noise: dict | None = None
    precision: float | None = None
    batch: int = DEFAULT_BATCH
    executor: Any = None
    jobs: int | None = None
    scheduler: str | None = None
    out_dir: str | Path | None = None
    resume: bool = False
    progress: bool = False
    engine: Engine | str = STUDY_ENGINE

    def checked(self, scenario: Scenario) -> OddsSettings:
        """These settings with the seed filled in; InputError (naming the argument) if one is bad."""
        check_count(self.trials, "trials", minimum=1)
        check_count(self.batch, "batch", minimum=1)
        if self.jobs is not None:
            check_count(self.jobs, "jobs", minimum=1)
        precision = self.precision
        if precision is not None and not (isinstance(precision, (int, float)) and 0 < precision <= 0.5):
            raise InputError(ARGUMENTS, "precision", f"expected a half-width in (0, 0.5], got {precision!r}")
        if self.resume and self.out_dir is None:
            raise InputError(ARGUMENTS, "resume", "expected {out_dir} with it (the directory of the run to resume)")
        seed = scenario.seed if self.seed is None else self.seed
        check_seed(seed)
        resolve_noise(scenario, self.noise)
        engine = get_engine(self.engine)
        return replace(self, seed=int(seed), trials=int(self.trials), batch=int(self.batch), engine=engine)


def odds_settings(settings: OddsSettings | int, **changes) -> OddsSettings:
    """``settings`` with ``changes``; a plain number is the number of trials."""
    known = {f.name for f in fields(OddsSettings)}
    for key in changes:
        if key not in known:
            raise InputError(ARGUMENTS, key, f"unknown setting; expected one of {', '.join(sorted(known))}")
    if isinstance(settings, OddsSettings):
        return replace(settings, **changes) if changes else settings
    return OddsSettings(settings, **changes)


def jobs_for(run: OddsSettings, work: int) -> int | None:
    """The local pool's size: ``run.jobs`` capped at the ``work`` (trials), said on stderr when
    the caller asked for more (other executors size themselves)."""
    if run.executor not in (None, "processes") or run.scheduler is not None:
        return run.jobs
    jobs = capped_jobs(run.jobs, work)
    if run.jobs is not None and run.jobs > jobs:
        print(f"magdomino: {run.jobs} workers asked for {work} trials; starting {jobs}", file=sys.stderr)  # noqa: T201 - the odds command's notice, on stderr
    return jobs


def executor_for(run: OddsSettings, work: int, jobs: int | None):
    """Where the trials run: ``run.executor``, but this process (``"serial"``) when one
    worker is asked for, or when none is said and the run is too small to gain from
    workers (fewer trials than the engine's ``serial_below``: starting workers and importing
    the trial code in them costs more than the trials). No worker process then, so a plain
    script needs no ``__main__`` guard; the results are the same anywhere."""
    if run.executor is not None or run.scheduler is not None:
        return run.executor
    if jobs == 1 or (run.jobs is None and work < run.engine.serial_below):
        return "serial"
    return None


def estimate_odds(
    scenario: Scenario,
    settings: OddsSettings | int,
    /,
    *,
    offset_mm: tuple[float, float] = (0.0, 0.0),
    what_ifs: list[int] | None = None,
    settled: tuple[np.ndarray, np.ndarray] | None = None,
    **changes,
) -> OddsResult:
    """Probability that each what-if collapses the construction, with 95 % intervals.

    Parameters
    ----------
    scenario : Scenario
    settings : OddsSettings or int
        How the run goes (a number: that many trials, the rest default); keyword
        arguments named as its attributes (``seed=``, ``jobs=``, ...) change them.
    offset_mm : (float, float)
        Nominal shift of every what-if placement (mm), before noise.
    what_ifs : list of int, optional
        Only these what-ifs (default all; the structure when the scenario has none).
    settled : (positions (n, 3), quaternions (n, 4)), optional
        The structure as it settled, if the caller already settled it (and checked it with
        :func:`magdomino.studies.engines.check_structure_settled`); else it is settled here. Unused without what-ifs.

    Returns
    -------
    OddsResult
        Per what-if: ``collapses``, ``shifts``, ``errors`` and ``undecided`` (time-limit
        verdicts) of ``trials``; ``p_collapse = collapses / (trials - errors - undecided)``;
        ``shift_share`` (shifted among those counted, with ``shift_ci95``) and
        ``median_shift_mm`` (median of the counted trials' largest shifts), None where the
        engine does not know shifts.
    """
    return run_odds(scenario, odds_settings(settings, **changes), offset_mm=offset_mm, what_ifs=what_ifs, settled=settled)


@dataclass(frozen=True)
class RunLog:
    """Where a run streams its trials in its ``out_dir``.

    Attributes
    ----------
    name : str
        The file's name (JSON lines).
    extra : dict or None
        Keys added to the file's header (a sweep's parameter and value).
    required : bool
        ``resume`` refuses to start when the file is missing (a sweep's later points may
        not have begun).
    """

    name: str = "odds.jsonl"
    extra: dict | None = None
    required: bool = True


def run_odds(
    scenario: Scenario,
    settings: OddsSettings,
    *,
    offset_mm: tuple[float, float] = (0.0, 0.0),
    what_ifs: list[int] | None = None,
    settled: tuple[np.ndarray, np.ndarray] | None = None,
    log: RunLog | None = None,
    trial_hook: Callable | None = None,
) -> OddsResult:
    """:func:`estimate_odds` with its settings made, for the studies that run odds as a part
    (sweeps) and for tests: ``log`` names the run's file in ``out_dir`` (default
    ``odds.jsonl``), ``trial_hook(what_if, trial)`` is called in the worker before each trial."""
    log = RunLog() if log is None else log
    run = settings.checked(scenario)
    check_scenario(scenario)  # what simulate refuses, odds refuses, before any work
    trials, seed, precision, batch = run.trials, run.seed, run.precision, run.batch
    noise_used = resolve_noise(scenario, run.noise)
    offset_mm = (float(offset_mm[0]), float(offset_mm[1]))
    if what_ifs is None:
        labels: list[int | None] = list(range(len(scenario.what_if))) or [None]
    else:
        labels = list(what_ifs)
        for w in labels:
            if not isinstance(w, int) or not 0 <= w < len(scenario.what_if):
                raise InputError(ARGUMENTS, "what_ifs", f"expected what-if indices in 0..{len(scenario.what_if) - 1}, got {w!r}")
    log_path = Path(run.out_dir) / log.name if run.out_dir is not None else None
    if run.resume and log.required and not log_path.is_file():  # before any work
        raise InputError(str(log_path.parent), "", f"nothing to resume: no run stored here ({log.name}); leave out {{resume}} to start one")
    jobs = jobs_for(run, trials * len(labels))
    start = time.perf_counter()
    # The runner's workers start while the structure settles.
    with runner_for(executor_for(run, trials * len(labels), jobs), jobs, run.scheduler) as runner:
        if labels == [None]:
            settled = None
        elif settled is None:  # settled (dynamics) or nominal and standing (statics), as the engine judges
            settled = run.engine.starting_structure(scenario)
        else:
            settled = (np.asarray(settled[0], dtype=float), np.asarray(settled[1], dtype=float))
        job = Job(scenario, settled, noise_used, seed, offset_mm, trial_hook, run.engine)
        header = {
            "kind": "header",
            "format": LOG_FORMAT,
            "engine": run.engine.name,
            "seed": seed,
            "scenario_sha256": scenario_digest(scenario),
            "settled_sha256": poses_digest(settled),
            "noise": noise_used,
            "offset_mm": list(offset_mm),
            "what_ifs": labels,
            "trials": trials,
            "precision": precision,
            "batch": batch if precision is not None else None,
            **(log.extra or {}),
        }
        trial_log = TrialLog(log_path, header, run.resume, log.required, check_trial_record) if log_path is not None else None
        final = _run_trials(runner, job, labels, trials, precision, batch, trial_log, run.progress)
    return OddsResult(
        name=scenario.name,
        seed=seed,
        preset=scenario.preset.name,
        magnets=scenario.magnets,
        tile_size_mm=scenario.preset.size_mm,
        noise=noise_used,
        offset_mm=offset_mm,
        results=[final[w] for w in labels],
        wall_time_s=time.perf_counter() - start,
        log_path=str(trial_log.path) if trial_log else None,
        engine=run.engine.name,
    )


def _run_trials(runner: Runner, job: Job, labels: list, trials: int, precision, batch: int, log, progress: bool) -> dict:
    """Run the missing trials of every what-if in ``labels`` (in batches when ``precision``
    may stop one early); records go to ``log`` as they come. Returns the odds per label."""
    scenario = job.scenario
    records: dict[tuple, dict] = dict(log.records) if log else {}
    bar = None
    if progress:
        bar = progress_bar(trials * len(labels), "trial")
        bar.update(sum(1 for (w, i) in records if w in labels and i < trials))
    running: dict = {w: Counter() for w in labels}
    for (w, i), r in records.items():
        if w in running and i < trials:
            running[w][_kind(r)] += 1

    def on_record(record: dict) -> None:
        k = (record["what_if"], record["trial"])
        if k in records:
            return
        records[k] = record
        if log:
            log.write(record)
        if bar is not None:
            c = running[record["what_if"]]
            c[_kind(record)] += 1
            bar.update(1)
            bar.set_postfix_str(_running_text(running), refresh=False)

    final: dict = {}
    if runner.kind != "serial":
        _prefetch("scipy.stats")  # for the intervals at the end: the parent waits meanwhile
    try:
        end = 0
        active = list(labels)
        while active:
            new_end = trials if precision is None else min(trials, end + batch)
            missing = [(w, [i for i in range(end, new_end) if (w, i) not in records]) for w in active]
            execute(runner, run_chunk, job, _chunks(missing, runner.workers, job.engine.trials_per_chunk), on_record)
            end = new_end
            for w in active:
                odds = _tally(scenario, w, records, end, job.engine.name)
                if precision is not None and odds.half_width < precision:
                    odds.stopped_by = "precision"
                    final[w] = odds
                elif end >= trials:
                    final[w] = odds
            active = [w for w in active if w not in final]
    finally:
        if bar is not None:
            bar.close()
        if log:
            log.close()
    return final


def _chunks(missing: list[tuple[int | None, list[int]]], workers: int, most: int = 16) -> list[tuple[int | None, list[int]]]:
    """Split the missing trials into chunks: about eight per worker (so that the last ones,
    whatever their length, leave no worker idle for long), at most ``most`` trials each
    (16 dynamic trials; 100 statics trials, judged in one batch).

    The chunking only changes how work is shipped, never a result.
    """
    total = sum(len(t) for _, t in missing)
    size = max(1, min(most, math.ceil(total / (8 * max(1, workers)))))
    return [(w, trials[k : k + size]) for w, trials in missing for k in range(0, len(trials), size)]


def check_trial_record(record: dict) -> str | None:
    """What a stored trial record lacks to be counted (None: nothing)."""
    if not isinstance(record.get("collapsed"), bool) or not isinstance(record.get("shifted", False), bool):
        return "collapsed and shifted true or false"
    if not isinstance(record.get("reason"), str) or not isinstance(record.get("error"), (str, type(None))):
        return "a reason and an error (text or null)"
    return None


def _kind(record: dict) -> str:
    """What a trial record counts as: ``errors``, ``collapses``, ``undecided`` or ``stood``."""
    if record.get("error"):
        return "errors"
    if record["collapsed"]:
        return "collapses"
    return "undecided" if record.get("reason") == UNDECIDED_REASON else "stood"


def _tally(scenario: Scenario, what_if: int | None, records: dict, n: int, engine: str = "dynamics") -> WhatIfOdds:
    """The odds of ``what_if`` from its trials ``0 .. n-1``.

    Shifts: ``counted_shifts`` are the counted trials (neither errors nor undecided) whose
    record says ``shifted``; ``median_shift_mm`` is the median over the counted trials of
    each one's largest shift (its record's ``max_shift_mm``), rounded to 1e-6 mm as the
    records are. Both are None when no counted trial measured its shifts (a statics trial
    has no ``max_shift_mm``: that engine does not know); the median is None too when only
    some counted trials measured it (the hybrid's statics part does not, but says they did
    not shift: counted). ``judged_by``: how
    many trials each engine judged (a record's ``judged_by``, else ``engine``)."""
    rows = [records[what_if, i] for i in range(n)]
    kinds = Counter(_kind(r) for r in rows)
    counted = [r for r in rows if _kind(r) in ("collapses", "stood")]
    measured = [float(r["max_shift_mm"]) for r in counted if _is_number(r.get("max_shift_mm"))]
    # The hybrid's screen says "nothing moved" of the trials it judges (checked against the
    # dynamics); the statics engine knows no shifts at all.
    knows_shifts = bool(measured) or any(r.get("judged_by") == "statics" for r in counted)
    errors = [r for r in rows if r.get("error")]
    reasons = Counter(r["reason"] for r in rows)
    messages = sorted({r["error"] for r in errors})[:5]
    placement = "structure" if what_if is None else scenario.describe(scenario.what_if[what_if])
    return WhatIfOdds(
        what_if=what_if,
        placement=placement,
        trials=n,
        collapses=kinds["collapses"],
        errors=kinds["errors"],
        undecided=kinds["undecided"],
        shifts=sum(1 for r in rows if r.get("shifted") and not r.get("error")),
        reasons=dict(reasons),
        error_messages=messages,
        counted_shifts=sum(1 for r in counted if r.get("shifted")) if knows_shifts else None,
        median_shift_mm=round(float(np.median(measured)), 6) if measured and len(measured) == len(counted) else None,
        judged_by=dict(Counter(r.get("judged_by") or r.get("engine") or engine for r in rows)),
    )


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _running_text(running: dict) -> str:
    parts = []
    for w, c in list(running.items())[:3]:
        n = c["collapses"] + c["stood"]
        if n:
            lo, hi = wilson_interval(c["collapses"], n)
            label = "s" if w is None else w
            parts.append(f"{label}: {c['collapses'] / n:.2f} [{lo:.2f},{hi:.2f}]")
    return "  ".join(parts)
