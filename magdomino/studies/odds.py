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
Set in the scenario's ``[noise]`` table (keys checked by :func:`magdomino.studies.scenario.check_noise`)
and overridable from Python or the command line; unset keys take :data:`NOISE_DEFAULTS`.

``pos_sigma_mm`` (1.0)
    Position error of the hand, a Gaussian σ along x and, independently, along y.
    For scale: Battaglia, Hamrick & Tenenbaum (2013, PNAS, "Simulation as an engine of
    physical scene understanding") perturbed block positions by about a fifth of a block's
    width and called a block fallen when it moved more than a quarter width. That models a
    person *judging a picture* of a tower. Here a hand *places* a small tile it holds, looking
    at it from close, on a target it can feel: deliberate, slow finger placement ends within
    about a millimetre. 1 mm is 1/24 of the tile's width; the collapse threshold
    (``max_shift_mm``, 5 mm, about a fifth of the width) keeps Battaglia's scale of "fallen".
``yaw_sigma_deg`` (2.0)
    Heading error, Gaussian σ. 2° moves the tile's ends (24 mm from the centre) by 0.84 mm,
    the same size as the position error.
``drop_mm`` ([0, 2])
    Release height above rest, uniform in [low, high]: a tile let go just above its rest,
    from touching (0) to a visible gap (2 mm). It replaces the what-if's own ``drop_mm``.
``polarization_rel_sigma`` (0.05)
    Relative σ of each magnet's polarisation J: a grade such as N35 spans 1.17-1.21 T
    (±1.7 %), and a magnet's pull also depends on its seating in the cavity and on ageing;
    5 % covers both.
``friction_rel_sigma`` (0.10)
    Relative σ of the friction coefficient: friction of nominally identical surfaces
    varies by 10-20 % with wear, dust and humidity.
``mass_rel_sigma`` (0.02)
    Relative σ of the tile mass: about 0.2 g on a 10 g moulded or wooden tile.

Relative factors are ``1 + σ z`` (z standard normal), clipped to at least
:data:`MIN_FACTOR` so that a mass, a friction or a polarisation never turns negative. The
preset describes one tile type, so a trial draws one factor per magnet of that tile (applied
to every tile), one friction factor and one mass factor. Position, yaw and drop noise apply
to the placed tile of a what-if. With no what-if, position and yaw noise apply to every
tile of the structure (each spawned where the hand put it, resting on the noisy tiles
below) and the structure is settled; **drop noise does not apply** there: the tiles are
spawned all at once, each at rest on those below (or at its file height), and none is
dropped. Every trial draws every number whatever the σ, in a fixed order, so trial ``i``
sees the same standard normals for any noise setting (a sweep over a σ uses common random
numbers and gives a smooth curve).

Determinism
-----------
Trial ``i`` uses ``numpy.random.SeedSequence(seed).spawn(n)[i]`` (built directly as
``SeedSequence(seed, spawn_key=(i,))``, the same stream), whatever the worker count, the
chunking or the executor. The nominal structure is settled once in the parent (or given by the caller,
``settled=``) and shipped to the workers; each trial builds its own world. Before what-ifs
are tried, the nominal structure must settle: one that collapses, fails or is still moving
at ``collapse.time_limit_s`` is refused (:func:`check_structure_settled`). With ``precision``, the interval is checked
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

import contextlib
import hashlib
import json
import math
import os
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from magdomino.errors import ARGUMENTS, InputError
from magdomino.model.presets import Preset
from magdomino.physics.verdict import Verdict, settle
from magdomino.physics.world import World
from magdomino.studies.scenario import (
    NOISE_KEYS,
    Scenario,
    build_structure,
    check_noise,
    settle_structure,
    structure_poses,
    try_placement,
    with_preset,
)

NOISE_DEFAULTS: dict[str, Any] = {
    "pos_sigma_mm": 1.0,
    "yaw_sigma_deg": 2.0,
    "drop_mm": [0.0, 2.0],
    "polarization_rel_sigma": 0.05,
    "friction_rel_sigma": 0.10,
    "mass_rel_sigma": 0.02,
}
"""Noise of a careful human hand and of a set of tiles (rationale in the module docstring)."""

MIN_FACTOR = 1e-3
"""Smallest relative factor of a mass, friction or polarisation (clipping keeps them positive)."""

MAX_ATTEMPTS = 3
"""A trial in flight in this many broken process pools is recorded as an error."""

DEFAULT_BATCH = 100
"""Trials per what-if between two precision checks."""

SWEEP_PARAMS = {
    **{k: v for k, v in NOISE_KEYS.items() if k != "drop_mm"},
    "polarization_scale": "factor on every magnet's polarisation J (structure and placement)",
    "offset_x_mm": "shift of every what-if placement along x, mm",
    "offset_y_mm": "shift of every what-if placement along y, mm",
}
"""Parameters :func:`sweep` can vary, with what they mean."""

LOG_FORMAT = 1

UNDECIDED_REASON = "time limit"
"""The verdict reason of a trial that neither settled nor collapsed in time (see the module docstring)."""


# -- statistics ---------------------------------------------------------------------------


def wilson_interval(collapses: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; ``(0, 1)`` when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(int(collapses), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


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

    @property
    def counted(self) -> int:
        """Trials that count: all but the errors and the undecided ones."""
        return self.trials - self.errors - self.undecided

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
        }
        if self.error_messages:
            d["error_messages"] = list(self.error_messages)
        return d


@dataclass
class OddsResult:
    """Odds of every what-if of a scenario (or of its structure when it has none)."""

    scenario: str
    seed: int
    preset: str
    magnets: bool
    tile_size_mm: list[float]
    noise: dict[str, Any]
    offset_mm: tuple[float, float]
    results: list[WhatIfOdds]
    wall_time_s: float = 0.0
    log_path: str | None = None

    def to_dict(self) -> dict:
        """JSON document; identical for any worker count or executor (no timings)."""
        from magdomino import __version__

        return {
            "version": __version__,
            "name": self.scenario,
            "seed": self.seed,
            "preset": self.preset,
            "magnets": self.magnets,
            "tile_size_mm": list(self.tile_size_mm),
            "noise": dict(self.noise),
            "offset_mm": list(self.offset_mm),
            "results": [r.to_dict() for r in self.results],
        }


@dataclass
class SweepResult:
    """Odds as a function of one parameter."""

    param: str
    values: list[float]
    runs: list[OddsResult]

    def to_dict(self) -> dict:
        first = self.runs[0].to_dict()
        doc = {k: first[k] for k in ("version", "name", "seed", "preset", "magnets", "tile_size_mm")}
        base_noise = dict(first["noise"])
        if self.param in base_noise:
            del base_noise[self.param]
        doc.update(
            noise=base_noise,
            param=self.param,
            values=list(self.values),
            results=[
                {"value": v, "noise": run.noise, "offset_mm": list(run.offset_mm), "results": [r.to_dict() for r in run.results]}
                for v, run in zip(self.values, self.runs)
            ],
        )
        return doc


def check_structure_settled(scenario: Scenario, verdict: Verdict, before: str = "the what-ifs") -> None:
    """Refuse (InputError on ``structure``) a nominal structure that did not settle.

    What-ifs on a structure that collapsed, blew up or was still moving at the preset's
    ``collapse.time_limit_s`` would measure that structure's own fall, not the placement's.
    """
    if verdict.error:
        why = f"its simulation failed ({verdict.error})"
    elif verdict.collapsed:
        culprit = "" if verdict.culprit is None else f", tile {verdict.culprit}"
        why = f"it collapsed without noise ({verdict.reason}{culprit})"
    elif not verdict.settled:
        limit = scenario.preset.collapse.time_limit
        why = "it did not within time_limit_s" + ("" if limit is None else f" ({limit:g} s)")
    else:
        return
    raise InputError(scenario.source, "structure", f"expected a structure that settles before {before}; {why}")


# -- noise --------------------------------------------------------------------------------


def resolve_noise(scenario: Scenario, overrides: dict | None = None) -> dict[str, Any]:
    """The noise of a run: defaults, then the scenario's ``[noise]``, then ``overrides``."""
    noise = {k: (list(v) if isinstance(v, list) else v) for k, v in NOISE_DEFAULTS.items()}
    noise.update(scenario.noise)
    if overrides:
        noise.update(check_noise(dict(overrides), ARGUMENTS, key="noise"))
    return noise


def varied_preset(preset: Preset, polarization: np.ndarray, friction: float, mass: float) -> Preset:
    """A copy of ``preset`` with each magnet's J, the friction and the mass multiplied."""
    tile = preset.tile
    magnets = tuple(replace(m, polarization=m.polarization * float(f)) for m, f in zip(tile.magnets, polarization))
    return preset.with_changes(tile=replace(tile, magnets=magnets, friction=tile.friction * friction, mass=tile.mass * mass))


def _factors(rng: np.random.Generator, n_magnets: int, noise: dict) -> tuple[np.ndarray, float, float]:
    z = rng.standard_normal(n_magnets + 2)
    pol = np.maximum(1 + noise["polarization_rel_sigma"] * z[:n_magnets], MIN_FACTOR)
    friction = max(1 + noise["friction_rel_sigma"] * float(z[n_magnets]), MIN_FACTOR)
    mass = max(1 + noise["mass_rel_sigma"] * float(z[n_magnets + 1]), MIN_FACTOR)
    return pol, friction, mass


def trial_stream(seed: int, trial: int) -> np.random.Generator:
    """The random stream of trial ``trial``: child ``trial`` of ``SeedSequence(seed).spawn``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(trial,)))


# -- one trial (runs in a worker) ---------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs, pickled with every chunk of trials."""

    scenario: Scenario
    settled: tuple[np.ndarray, np.ndarray] | None
    noise: dict
    seed: int
    offset_mm: tuple[float, float]
    hook: Callable | None = None


def _run_chunk(job: _Job, what_if: int | None, trials: list[int]) -> list[dict]:
    return [run_trial(job, what_if, i) for i in trials]


def run_trial(job: _Job, what_if: int | None, trial: int) -> dict:
    """Run one trial; returns its record (never raises for a failing simulation)."""
    sc, noise = job.scenario, job.noise
    rng = trial_stream(job.seed, trial)
    record: dict[str, Any] = {"what_if": what_if, "trial": trial}
    try:
        if what_if is None:
            z = rng.standard_normal((len(sc.structure), 3))
            pol, friction, mass = _factors(rng, len(sc.preset.tile.magnets), noise)
            preset = varied_preset(sc.preset, pol, friction, mass)
            if job.hook is not None:
                job.hook(what_if, trial)
            verdict = _structure_trial(sc, preset, z * [noise["pos_sigma_mm"], noise["pos_sigma_mm"], noise["yaw_sigma_deg"]])
        else:
            z = rng.standard_normal(3)
            u = rng.random()
            pol, friction, mass = _factors(rng, len(sc.preset.tile.magnets), noise)
            preset = varied_preset(sc.preset, pol, friction, mass)
            lo, hi = noise["drop_mm"]
            dx = job.offset_mm[0] + noise["pos_sigma_mm"] * float(z[0])
            dy = job.offset_mm[1] + noise["pos_sigma_mm"] * float(z[1])
            dyaw = noise["yaw_sigma_deg"] * float(z[2])
            drop = lo + (hi - lo) * u
            record.update(dx_mm=round(dx, 6), dy_mm=round(dy, 6), dyaw_deg=round(dyaw, 6), drop_mm=round(drop, 6))
            if job.hook is not None:
                job.hook(what_if, trial)
            verdict = try_placement(
                sc, job.settled, sc.what_if[what_if], preset=preset, offset_mm=(dx, dy), yaw_offset_deg=dyaw, drop_mm=drop
            )
        record.update(_outcome(verdict))
    except Exception as exc:  # a trial that raises is reported as an error, never counted
        record.update(collapsed=False, error=f"{type(exc).__name__}: {exc}", reason="error")
    return record


def _outcome(verdict: Verdict) -> dict:
    """The part of a verdict a trial keeps."""
    if verdict.error:
        return {"collapsed": False, "error": verdict.error, "reason": "error"}
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


def _structure_trial(scenario: Scenario, preset: Preset, deltas: np.ndarray) -> Verdict:
    """Spawn the structure where a noisy hand puts it (``deltas`` (n, 3): dx mm, dy mm, dyaw deg) and settle.

    No drop: every tile is spawned at rest on the (noisy) tiles below it, or at its file height.
    """
    world = World(preset, magnets=scenario.magnets)
    try:
        used = structure_poses(scenario, world.size, deltas)
        build_structure(scenario, world, (np.array([p for p, _ in used]), np.array([q for _, q in used])))
        return settle(world, list(range(len(scenario.structure))))
    finally:
        world.close()


# -- executors ----------------------------------------------------------------------------


def _mp_context():
    """Forkserver where there is one: workers fork from a clean server that never held a
    PyBullet world (forking a process with live physics clients or threads is unsafe);
    spawn elsewhere."""
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["magdomino.studies.odds"])
        return ctx
    return mp.get_context("spawn")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _ping() -> bool:
    return True


class _SerialExecutor(Executor):
    """Runs each call at once in this process (for debugging and tiny runs)."""

    def submit(self, fn, /, *args, **kwargs):
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed over to the caller
            future.set_exception(exc)
        return future


class Runner:
    """Where trials run: a process pool (rebuilt when a worker dies), a dask cluster, this
    process, or any :class:`concurrent.futures.Executor`. Use as a context manager.

    Parameters
    ----------
    executor : None, "processes", "serial", a ``distributed.Client`` or an Executor
    jobs : int or None
        Worker processes of the local pool (default: all cores).
    scheduler : str or None
        A dask.distributed scheduler address, or ``"local"`` to start a LocalCluster of
        ``jobs`` single-threaded worker processes.
    """

    def __init__(self, executor=None, jobs: int | None = None, scheduler: str | None = None):
        self.jobs = default_jobs() if jobs is None else int(jobs)
        self.kind = "processes"
        self._owned: list = []
        self._pool = None
        self._started = None
        self.workers = self.jobs
        if scheduler is not None:
            self._start_dask(scheduler)
        elif executor is None or executor == "processes":
            self._pool = self._new_pool()
        elif executor == "serial":
            self.kind, self._pool, self.workers = "serial", _SerialExecutor(), 1
        elif _is_dask_client(executor):
            self._use_client(executor)
        elif isinstance(executor, Executor):
            self.kind, self._pool = "executor", executor
            self.workers = getattr(executor, "_max_workers", None) or self.jobs
        else:
            raise InputError("odds", "executor", f"expected None, 'processes', 'serial', a dask Client or an Executor, got {executor!r}")

    def _new_pool(self):
        # The workers start now, while the caller goes on (settling the structure, say); the
        # first submit checks that they did.
        pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_mp_context())
        self._started = pool.submit(_ping)
        return pool

    def _check_started(self) -> None:
        """A pool whose workers cannot even start would turn every trial into an error."""
        started, self._started = self._started, None
        if started is None:
            return
        try:
            started.result()
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            raise RuntimeError(
                "odds: worker processes die on start-up; a script that runs trials in processes must "
                "guard its main code with `if __name__ == '__main__':`"
            ) from None

    def _start_dask(self, scheduler: str) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError(ARGUMENTS, "scheduler", "dask.distributed is not installed (pip install 'magdomino[cluster]')") from None
        if scheduler == "local":
            cluster = LocalCluster(
                n_workers=self.jobs, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
            )
            self._owned.append(cluster)
            client = Client(cluster)
        else:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise InputError(ARGUMENTS, "scheduler", f"cannot reach a dask scheduler at {scheduler} ({exc})") from None
        self._owned.insert(0, client)
        self._use_client(client)

    def _use_client(self, client) -> None:
        self.kind = "dask"
        self._pool = client.get_executor(pure=False)
        self.workers = max(1, sum(client.nthreads().values()))

    def submit(self, job: _Job, what_if: int | None, trials: list[int]) -> Future:
        self._check_started()
        return self._pool.submit(_run_chunk, job, what_if, trials)

    def rebuild(self) -> bool:
        """Replace a broken process pool; False when this runner cannot."""
        if self.kind != "processes":
            return False
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()
        return True

    def close(self) -> None:
        if self.kind == "processes" and self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        for thing in self._owned:
            with contextlib.suppress(Exception):
                thing.close()
        self._owned.clear()
        self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _is_dask_client(obj) -> bool:
    return type(obj).__name__ == "Client" and type(obj).__module__.startswith("distributed")


@contextlib.contextmanager
def _runner(executor, jobs, scheduler):
    if isinstance(executor, Runner):
        yield executor
        return
    with Runner(executor, jobs, scheduler) as runner:
        yield runner


def _execute(runner: Runner, job: _Job, tasks: list[tuple[int | None, list[int]]], on_record) -> None:
    """Run chunks of trials; hand each record to ``on_record`` as its chunk finishes."""
    pending = {runner.submit(job, w, trials): (w, trials) for w, trials in tasks}
    attempts: Counter = Counter()
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        broken = []
        for future in done:
            _collect(future, pending.pop(future), on_record, broken)
        if not broken:
            continue
        # A worker died: the whole pool is gone. Take what finished, resubmit the rest.
        if pending:
            wait(pending)
            for future in list(pending):
                _collect(future, pending.pop(future), on_record, broken)
        if not runner.rebuild():
            raise RuntimeError("a worker died and this executor cannot be rebuilt")
        for w, trials in broken:
            for i in trials:
                attempts[w, i] += 1
                if attempts[w, i] >= MAX_ATTEMPTS:
                    on_record({"what_if": w, "trial": i, "collapsed": False, "reason": "error",
                               "error": f"worker died {MAX_ATTEMPTS} times while running this trial"})
                else:
                    pending[runner.submit(job, w, [i])] = (w, [i])


def _collect(future, task, on_record, broken) -> None:
    try:
        records = future.result()
    except BrokenProcessPool:
        broken.append(task)
        return
    except Exception as exc:
        if type(exc).__name__ != "KilledWorker":  # dask gave up on a worker that keeps dying
            raise
        w, trials = task
        records = [
            {"what_if": w, "trial": i, "collapsed": False, "reason": "error", "error": f"worker died: {exc}"}
            for i in trials
        ]
    for record in records:
        on_record(record)


# -- the trial log (JSON lines) -----------------------------------------------------------


def scenario_digest(scenario: Scenario) -> str:
    """SHA-256 of what makes a scenario's physics: preset, magnets, structure, what-ifs."""
    doc = {
        "preset": scenario.preset.to_dict(),
        "magnets": scenario.magnets,
        "structure": [asdict(p) for p in scenario.structure],
        "what_if": [asdict(p) for p in scenario.what_if],
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _poses_digest(settled) -> str | None:
    if settled is None:
        return None
    h = hashlib.sha256()
    for a in settled:
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()


class _Log:
    """Append-only JSON-lines file: a header line, then one line per finished trial."""

    def __init__(self, path: Path, header: dict, resume: bool):
        self.path = path
        self.records: dict[tuple, dict] = {}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            exists = path.exists() and path.stat().st_size > 0
        except OSError as exc:
            raise InputError(str(path.parent), "", f"cannot use as {{out_dir}} ({exc.strerror})") from None
        if exists and not resume:
            raise InputError(
                str(path), "", "already holds a run; pass {resume} to continue it, or choose another {out_dir}"
            )
        if exists:
            self._read(header)
        try:
            self.file = open(path, "a", encoding="utf-8")
            if not exists:
                self.write(header)
        except OSError as exc:
            raise InputError(str(path), "", f"cannot write ({exc.strerror})") from None

    def _read(self, header: dict) -> None:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise InputError(str(self.path), "", f"cannot read ({exc.strerror})") from None
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a line cut short by the interruption: drop it
            with open(self.path, "r+b") as f:
                f.truncate(end)
        lines = data[:end].decode("utf-8", "replace").splitlines()
        try:
            stored = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            stored = None
        if not isinstance(stored, dict) or stored.get("kind") != "header":
            raise InputError(str(self.path), "", "not a magdomino odds log (no header line)")
        want = json.loads(json.dumps(header))
        for k in sorted(set(want) | set(stored)):
            if stored.get(k) != want.get(k):
                raise InputError(
                    str(self.path),
                    k,
                    f"this run differs from the stored one ({json.dumps(want.get(k))} now, {json.dumps(stored.get(k))} stored); "
                    "resume only with the same settings, or choose another {out_dir}",
                )
        for n, line in enumerate(lines[1:], start=2):
            try:
                record = json.loads(line)
                self.records[record["what_if"], int(record["trial"])] = record
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise InputError(str(self.path), f"line {n}", "expected a trial record (the log is damaged)") from None

    def write(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


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
        Overrides of the scenario's ``[noise]`` (keys of :data:`NOISE_DEFAULTS`).
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

    def checked(self, scenario: Scenario) -> "OddsSettings":
        """These settings with the seed filled in; InputError (naming the argument) if one is bad."""
        _check_positive_int(self.trials, "trials")
        _check_positive_int(self.batch, "batch")
        if self.jobs is not None:
            _check_positive_int(self.jobs, "jobs")
        precision = self.precision
        if precision is not None and not (isinstance(precision, (int, float)) and 0 < precision <= 0.5):
            raise InputError(ARGUMENTS, "precision", f"expected a half-width in (0, 0.5], got {precision!r}")
        if self.resume and self.out_dir is None:
            raise InputError(ARGUMENTS, "resume", "expected {out_dir} with it (the directory of the run to resume)")
        seed = scenario.seed if self.seed is None else self.seed
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InputError(ARGUMENTS, "seed", f"expected a whole number >= 0, got {seed!r}")
        resolve_noise(scenario, self.noise)
        return replace(self, seed=int(seed), trials=int(self.trials), batch=int(self.batch))


def odds_settings(settings: "OddsSettings | int", **changes) -> OddsSettings:
    """``settings`` with ``changes``; a plain number is the number of trials."""
    if isinstance(settings, OddsSettings):
        return replace(settings, **changes) if changes else settings
    return OddsSettings(settings, **changes)


def _check_positive_int(value, name) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise InputError(ARGUMENTS, name, f"expected a whole number > 0, got {value!r}")
    return int(value)


def estimate_odds(
    scenario: Scenario,
    settings: OddsSettings | int,
    /,
    *,
    offset_mm: tuple[float, float] = (0.0, 0.0),
    what_ifs: list[int] | None = None,
    settled: tuple[np.ndarray, np.ndarray] | None = None,
    _log_name: str = "odds.jsonl",
    _log_extra: dict | None = None,
    _trial_hook: Callable | None = None,
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
        :func:`check_structure_settled`); else it is settled here. Unused without what-ifs.

    Returns
    -------
    OddsResult
        Per what-if: ``collapses``, ``shifts``, ``errors`` and ``undecided`` (time-limit
        verdicts) of ``trials``; ``p_collapse = collapses / (trials - errors - undecided)``.
    """
    run = odds_settings(settings, **changes).checked(scenario)
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
    start = time.perf_counter()
    with _runner(run.executor, run.jobs, run.scheduler) as runner:  # its workers start while the structure settles
        if labels == [None]:
            settled = None
        elif settled is None:
            verdict, settled = settle_structure(scenario)
            check_structure_settled(scenario, verdict)
        else:
            settled = (np.asarray(settled[0], dtype=float), np.asarray(settled[1], dtype=float))
        job = _Job(scenario, settled, noise_used, seed, offset_mm, _trial_hook)
        header = {
            "kind": "header",
            "format": LOG_FORMAT,
            "seed": seed,
            "scenario_sha256": scenario_digest(scenario),
            "settled_sha256": _poses_digest(settled),
            "noise": noise_used,
            "offset_mm": list(offset_mm),
            "what_ifs": labels,
            "trials": trials,
            "precision": precision,
            "batch": batch if precision is not None else None,
            **(_log_extra or {}),
        }
        log = _Log(Path(run.out_dir) / _log_name, header, run.resume) if run.out_dir is not None else None
        final = _run_trials(runner, job, labels, trials, precision, batch, log, run.progress)
    return OddsResult(
        scenario=scenario.name,
        seed=seed,
        preset=scenario.preset.name,
        magnets=scenario.magnets,
        tile_size_mm=scenario.preset.size_mm,
        noise=noise_used,
        offset_mm=offset_mm,
        results=[final[w] for w in labels],
        wall_time_s=time.perf_counter() - start,
        log_path=str(log.path) if log else None,
    )


def _run_trials(runner: Runner, job: _Job, labels: list, trials: int, precision, batch: int, log, progress: bool) -> dict:
    """Run the missing trials of every what-if in ``labels`` (in batches when ``precision``
    may stop one early); records go to ``log`` as they come. Returns the odds per label."""
    scenario = job.scenario
    records: dict[tuple, dict] = dict(log.records) if log else {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=trials * len(labels), file=sys.stderr, unit="trial", dynamic_ncols=True, leave=False)
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
    try:
        end = 0
        active = list(labels)
        while active:
            new_end = trials if precision is None else min(trials, end + batch)
            missing = [(w, [i for i in range(end, new_end) if (w, i) not in records]) for w in active]
            _execute(runner, job, _chunks(missing, runner.workers), on_record)
            end = new_end
            for w in active:
                odds = _tally(scenario, w, records, end)
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


def _chunks(missing: list[tuple[int | None, list[int]]], workers: int) -> list[tuple[int | None, list[int]]]:
    """Split the missing trials into chunks: about four per worker, at most 16 trials each.

    The chunking only changes how work is shipped, never a result.
    """
    total = sum(len(t) for _, t in missing)
    size = max(1, min(16, math.ceil(total / (4 * max(1, workers)))))
    return [(w, trials[k : k + size]) for w, trials in missing for k in range(0, len(trials), size)]


def _kind(record: dict) -> str:
    """What a trial record counts as: ``errors``, ``collapses``, ``undecided`` or ``stood``."""
    if record.get("error"):
        return "errors"
    if record["collapsed"]:
        return "collapses"
    return "undecided" if record.get("reason") == UNDECIDED_REASON else "stood"


def _tally(scenario: Scenario, what_if: int | None, records: dict, n: int) -> WhatIfOdds:
    """The odds of ``what_if`` from its trials ``0 .. n-1``."""
    rows = [records[what_if, i] for i in range(n)]
    kinds = Counter(_kind(r) for r in rows)
    errors = [r for r in rows if r.get("error")]
    reasons = Counter(r["reason"] for r in rows)
    messages = sorted({r["error"] for r in errors})[:5]
    placement = "structure" if what_if is None else scenario.what_if[what_if].describe()
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
    )


def _running_text(running: dict) -> str:
    parts = []
    for w, c in list(running.items())[:3]:
        n = c["collapses"] + c["stood"]
        if n:
            lo, hi = wilson_interval(c["collapses"], n)
            label = "s" if w is None else w
            parts.append(f"{label}: {c['collapses'] / n:.2f} [{lo:.2f},{hi:.2f}]")
    return "  ".join(parts)


# -- sweeps -------------------------------------------------------------------------------


def scaled_polarization(preset: Preset, scale: float) -> Preset:
    """A copy of ``preset`` with every magnet's polarisation J multiplied by ``scale``."""
    return varied_preset(preset, np.full(len(preset.tile.magnets), float(scale)), 1.0, 1.0)


def sweep(
    scenario: Scenario,
    param: str,
    values,
    settings: OddsSettings | int,
    /,
    *,
    what_ifs: list[int] | None = None,
    **changes,
) -> SweepResult:
    """Odds as a function of one parameter (see :data:`SWEEP_PARAMS`).

    Every value uses the same seed, so trial ``i`` sees the same random numbers at every
    value (common random numbers: the curve's steps are the parameter's, not the dice's).
    ``polarization_scale`` also settles the structure again with the scaled magnets. With
    ``out_dir``, value ``k`` streams to ``sweep-PARAM-k.jsonl``. ``settings`` and keyword
    changes as :func:`estimate_odds`; one executor serves every value.
    """
    if param not in SWEEP_PARAMS:
        raise InputError(ARGUMENTS, "param", f"expected one of {', '.join(SWEEP_PARAMS)}, got {param!r}")
    try:
        values = [float(v) for v in values]
    except (TypeError, ValueError):
        raise InputError(ARGUMENTS, "values", "expected numbers") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(ARGUMENTS, "values", "expected one or more finite numbers")
    if not param.startswith("offset_") and any(v < 0 for v in values):
        raise InputError(ARGUMENTS, "values", f"expected values >= 0 for {param}, got {min(values):g}")
    if param.startswith("offset_") and not scenario.what_if:
        raise InputError(scenario.source, "what_if", f"expected at least one [[what_if]] to sweep {param}")
    run = odds_settings(settings, **changes).checked(scenario)  # checked once, before the first value
    runs = []
    with _runner(run.executor, run.jobs, run.scheduler) as runner:
        for k, value in enumerate(values):
            sc, run_noise, offset = scenario, dict(run.noise or {}), (0.0, 0.0)
            if param == "polarization_scale":
                sc = with_preset(scenario, scaled_polarization(scenario.preset, value))
            elif param == "offset_x_mm":
                offset = (value, 0.0)
            elif param == "offset_y_mm":
                offset = (0.0, value)
            else:
                run_noise[param] = value
            runs.append(
                estimate_odds(
                    sc, replace(run, executor=runner, noise=run_noise), offset_mm=offset, what_ifs=what_ifs,
                    _log_name=f"sweep-{param}-{k:03d}.jsonl", _log_extra={"param": param, "value": value},
                )
            )
    return SweepResult(param, values, runs)
