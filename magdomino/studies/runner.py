"""Where odds trials run and where their records go.

- :class:`Runner`: a local process pool (forkserver; rebuilt when a worker dies), a dask
  cluster, this process, or any :class:`concurrent.futures.Executor`; :func:`execute` runs
  chunks of trials on it and hands the records over as they come.
- :class:`TrialLog`: the append-only JSON-lines log of a run (a header, then one line per
  trial), which ``--resume`` reads back.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from magdomino.checks import check_count
from magdomino.errors import ARGUMENTS, InputError
from magdomino.optional import require
from magdomino.physics.connections import quiet_c_output, signals_held
from magdomino.studies.trial_record import error_outcome, trial_record

if TYPE_CHECKING:
    from magdomino.studies.scenario import Scenario

MAX_ATTEMPTS = 3
"""A trial whose worker died this many times is recorded as an error."""


# -- executors ----------------------------------------------------------------------------


def _mp_context():
    """Forkserver where there is one: workers fork from a clean server that never held a
    PyBullet world (forking a process with live physics clients or threads is unsafe);
    spawn elsewhere."""
    import multiprocessing as mp  # noqa: PLC0415 - only runs with worker processes need it

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        # What every worker needs, imported once in the server (while the parent settles the
        # structure) rather than in each worker: the trial code; the magnets, which World
        # imports on first use (numba and its kernels, ~0.6 s); and what a worker unpickles
        # before it runs anything, its initializer (this module) and the pool's worker loop
        # (~80 ms each time when a worker imported them). First, the server's quick exit.
        ctx.set_forkserver_preload([
            "magdomino.studies.server_exit", "magdomino.studies.trials", "magdomino.maths.magnets",
            "magdomino.studies.runner", "concurrent.futures.process",
        ])
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


PR_SET_PDEATHSIG = 1


def _worker_init() -> None:
    """First thing in every pool worker.

    - Ignore SIGINT: Ctrl-C reaches the whole foreground process group, and the parent
      handles it (ends the workers, closes the log, prints one line); a worker that raised
      KeyboardInterrupt would print its own traceback.
    - Die with its parent (Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``): a worker's parent
      is the forkserver, which exits when the main process goes, however it goes (SIGKILL
      included), so no worker outlives the run.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not sys.platform.startswith("linux"):
        return

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl: the parent still ends its workers on close
        return
    if os.getppid() == 1:  # the parent went before prctl took effect
        os._exit(1)


def _start_server(context) -> None:
    """Start the forkserver (and the resource tracker) with SIGINT blocked, a signal mask they
    keep through ``exec`` and pass on to the workers they fork: Ctrl-C reaches the whole
    process group, and one that came while they import their modules would print their
    tracebacks. The parent's own Ctrl-C waits until the server is started, then arrives."""
    if context.get_start_method() != "forkserver" or threading.current_thread() is not threading.main_thread():
        return
    from multiprocessing import forkserver, resource_tracker  # noqa: PLC0415 - as multiprocessing above: only pools started by a forkserver need them

    # The tracker first: its own start blocks SIGINT and SIGTERM, then unblocks them, which
    # would undo the block below. Its output goes nowhere: all it ever says is, when a run was
    # interrupted while a pool's semaphores were alive, "leaked semaphore" warnings on the
    # command's stderr after its one line "magdomino: interrupted" (it unlinks them anyway).
    with quiet_c_output():
        resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def capped_jobs(jobs: int | None, work: int) -> int:
    """Worker processes for ``work`` trials: ``jobs`` (default all cores), never more than the
    trials (a worker with nothing to do still costs a process and its memory)."""
    if jobs is not None:
        check_count(jobs, "jobs", minimum=1)
    wanted = default_jobs() if jobs is None else int(jobs)
    return max(1, min(wanted, int(work)))


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
            raise InputError(ARGUMENTS, "executor", f"expected None, 'processes', 'serial', a dask Client or an Executor, got {executor!r}")

    def _new_pool(self):
        """Start what the workers come from now, while the caller goes on (settling the
        structure, say); the first submit checks that they started.

        With a forkserver, forking a worker waits until the server has imported the trial
        code (~0.35 s): the server is started here and imports meanwhile, and the workers are
        forked at the first submit (:meth:`_open_pool`), not here, where the caller would wait.
        """
        context = _mp_context()
        _start_server(context)
        self._context = context
        if context.get_start_method() == "forkserver":
            return None
        return self._open_pool()

    def _open_pool(self):
        with signals_held():
            pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=self._context, initializer=_worker_init)
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
        distributed = require("distributed", "a dask scheduler", key="scheduler")
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
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

    def submit(self, fn: Callable, /, *args) -> Future:
        """Run ``fn(*args)`` on a worker (``fn`` must be picklable: a module-level function)."""
        if self.kind == "processes" and self._pool is None:
            self._pool = self._open_pool()
        self._check_started()
        if self.kind != "processes":
            return self._pool.submit(fn, *args)
        with signals_held():  # a submit may start a worker process
            return self._pool.submit(fn, *args)

    def rebuild(self) -> bool:
        """Replace a broken process pool; False when this runner cannot."""
        if self.kind != "processes":
            return False
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()
        return True

    def close(self, abort: bool = False) -> None:
        """Shut the workers down: after their running trials, or at once with ``abort`` (an
        interruption: nothing they would still compute is wanted)."""
        if self.kind == "processes" and self._pool is not None:
            if abort:
                self._kill_workers()
            self._pool.shutdown(wait=not abort, cancel_futures=True)
        for thing in self._owned:
            with contextlib.suppress(Exception):
                thing.close()
        self._owned.clear()
        self._pool = None

    def _kill_workers(self) -> None:
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(5)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.close(abort=exc_type is not None)


def _is_dask_client(obj) -> bool:
    return type(obj).__name__ == "Client" and type(obj).__module__.startswith("distributed")


@contextlib.contextmanager
def runner_for(executor, jobs, scheduler):
    if isinstance(executor, Runner):
        yield executor
        return
    with Runner(executor, jobs, scheduler) as runner:
        yield runner


def execute(runner: Runner, run_chunk: Callable, job, tasks: list[tuple[int | None, list[int]]], on_record) -> None:
    """Run chunks of trials, ``run_chunk(job, what_if, trials) -> records`` on the workers;
    hand each record to ``on_record`` as its chunk finishes. A chunk whose worker died is
    run again, trial by trial, at most :data:`MAX_ATTEMPTS` times."""
    if runner.kind == "serial":  # each chunk runs as it is submitted: its records go out at once (nothing lost if killed)
        for w, trials in tasks:
            _collect(runner.submit(run_chunk, job, w, trials), (w, trials), on_record, [])
        return
    pending = {runner.submit(run_chunk, job, w, trials): (w, trials) for w, trials in tasks}
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
                    on_record({**trial_record(w, i), **error_outcome(f"worker died {MAX_ATTEMPTS} times while running this trial")})
                else:
                    pending[runner.submit(run_chunk, job, w, [i])] = (w, [i])


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
            {**trial_record(w, i), **error_outcome(f"worker died: {exc}")}
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


def poses_digest(settled) -> str | None:
    if settled is None:
        return None
    h = hashlib.sha256()
    for a in settled:
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()


class TrialLog:
    """Append-only JSON-lines file: a header line, then one line per finished trial.

    ``resume``: read the trials of the run stored there (same header) and append to it; with
    ``require`` a missing log is refused (nothing to resume). The file is changed only once
    every check has passed: an incomplete last line (cut short, or garbage after the last
    trial, as an interruption leaves it) is dropped; damage before it is refused, and so is
    any complete record that ``check`` refuses (it returns what was expected, or None).
    """

    def __init__(self, path: Path, header: dict, resume: bool, require: bool = True,
                 check: Callable[[dict], str | None] | None = None):
        self.path = path
        self._check = check
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
        if resume and require and not exists:
            raise InputError(str(path.parent), "",
                             f"nothing to resume: no run stored here ({path.name}); leave out {{resume}} to start one")
        keep = self._read(header) if exists else None
        try:
            if keep is not None and keep < path.stat().st_size:
                with open(path, "r+b") as f:
                    f.truncate(keep)
            self.file = open(path, "a", encoding="utf-8")
            if not exists:
                self.write(header)
        except OSError as exc:
            raise InputError(str(path), "", f"cannot write ({exc.strerror})") from None

    def _read(self, header: dict) -> int:
        """Check the stored run and read its trials; returns how many bytes of the file to keep."""
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise InputError(str(self.path), "", f"cannot read ({exc.strerror})") from None
        keep = data.rfind(b"\n") + 1  # after it: a line cut short by the interruption
        lines = data[:keep].split(b"\n")[:-1]
        try:
            stored = json.loads(lines[0]) if lines else None
        except (json.JSONDecodeError, UnicodeDecodeError):
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
                key = record["what_if"], int(record["trial"])
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
                if n == len(lines):  # the last line: a record the interruption left incomplete
                    return keep - len(line) - 1
                raise InputError(str(self.path), f"line {n}", "expected a trial record (the log is damaged)") from None
            wrong = self._check(record) if self._check is not None else None
            if wrong:
                raise InputError(str(self.path), f"line {n}", f"expected a record with {wrong} (the log is damaged)")
            self.records[key] = record
        return keep

    def write(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()
