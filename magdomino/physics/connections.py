"""PyBullet connections: opened quietly, kept in a small pool, and the signals held meanwhile.

Used by :mod:`magdomino.physics.world` (every world takes its ``BulletClient`` here and gives it
back when it closes), the statics (HiGHS's banner) and the renderer. Only the physics layer
and the faces' renderer talk to PyBullet.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import sys
import threading


@contextlib.contextmanager
def quiet_c_output():
    """Silence C-level writes to stdout and stderr (PyBullet starting up, HiGHS's banner).

    pybullet prints its build time (stderr) and ``argv[0]=`` (stdout) from C; our stdout is
    for results and JSON, our stderr for one-line errors and progress.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):  # closed or odd: nothing to flush
            pass
    fds = [1, 2]  # the process's own descriptors, where C writes, even when Python's are replaced
    saved = [os.dup(fd) for fd in fds]
    try:
        with open(os.devnull, "w") as devnull:
            for fd in fds:
                os.dup2(devnull.fileno(), fd)
            yield
    finally:
        try:  # flush C stdio while it still points at /dev/null
            ctypes.CDLL(None).fflush(None)
        except (OSError, AttributeError):
            pass
        for fd, old in zip(fds, saved):
            os.dup2(old, fd)
            os.close(old)


@contextlib.contextmanager
def signals_held():
    """Hold SIGINT and SIGTERM back for the duration, then deliver the first that came (main
    thread only). Used where an interruption half-way leaves a mess: a worker process started
    that its pool does not know of yet (it would outlive the shutdown and print a traceback),
    a ``BulletClient`` half constructed (its ``__del__`` then prints a traceback at exit)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        if caught:
            signal.raise_signal(caught[0])


def connect(gui: bool = False):
    """A new ``BulletClient`` (DIRECT, or GUI on request) and the ``pybullet`` module.

    PyBullet's start-up chatter (written from C) is silenced. The render-only scene of
    :mod:`magdomino.faces.render` opens its client here too.
    """
    with quiet_c_output():
        import pybullet  # noqa: PLC0415 - imported inside quiet_c_output: PyBullet's start-up chatter, written from C, silenced
        from pybullet_utils.bullet_client import BulletClient  # noqa: PLC0415 - with pybullet above

        with signals_held():  # a Ctrl-C arrives after the client exists, never inside it
            client = BulletClient(connection_mode=pybullet.GUI if gui else pybullet.DIRECT)
        return client, pybullet


POOL_SIZE = 2
"""Idle DIRECT connections kept per process (in all) for the next worlds of the same solver settings.
Connecting costs ~15-20 ms, resetting a used one (``resetSimulation``) ~5 ms and making its
table again ~2.5 ms: a verdict on a small construction takes ~40 ms, and studies and games
judge thousands of them, one world each. A world that only added tiles removes them (newest
first) and leaves its table to the next world: the engine is then where a new world's table
puts it (tested: verdicts equal to a new connection's, to the last digit, on validation
cases). Any other world is reset, and so is a connection every :data:`RESET_EVERY` worlds:
each world makes its own collision shapes, which PyBullet cannot remove while the engine
holds them (and passing them on changed 11 slides of 265: a shape that has collided is not
a new shape)."""

RESET_EVERY = 64
"""Worlds a pooled connection serves between two resets (frees their collision shapes)."""

_pool: dict = {}  # (pid, engine settings) -> idle (BulletClient, (table body, worlds since reset) or None)
_pool_lock = threading.Lock()
_pool_closed = False  # set at exit: worlds closed after that disconnect


def engine_key(solver) -> tuple:
    """What a connection keeps through ``resetSimulation`` and this module sets: only
    connections set up alike are shared (PyBullet keeps engine parameters, such as
    ``contactERP``, that it cannot report)."""
    return (os.getpid(), solver.time_step, solver.iterations, solver.contact_erp, solver.gravity)


@atexit.register
def _drain_pool() -> None:
    """Disconnect the idle connections while pybullet is still whole (BulletClient's own
    ``__del__`` fails with a printed traceback once the interpreter has torn it down)."""
    global _pool_closed
    with _pool_lock:
        _pool_closed = True
        clients = [client for idle in _pool.values() for client, _ in idle]
        _pool.clear()
    for client in clients:
        try:
            client.disconnect()
        except Exception:  # already gone
            pass


def take_client(key):
    """An idle connection set up as ``key`` says (see :func:`engine_key`), or None."""
    with _pool_lock:
        idle = _pool.get(key)
        return idle.pop() if idle else None


def give_back(key, client, table: tuple[int, int] | None) -> bool:
    """Keep ``client`` for the next world with these settings: as it is when the world left
    only its table in it (``table``: its body, worlds served since the last reset), else
    reset (every body, shape and constraint gone). False when the pool is full (the caller
    disconnects it)."""
    if key[0] != os.getpid():  # a connection of the parent, inherited by a fork
        return False
    if table is None or table[1] >= RESET_EVERY:
        client.resetSimulation()
        table = None
    with _pool_lock:
        if _pool_closed or sum(len(v) for v in _pool.values()) >= POOL_SIZE:
            return False
        _pool.setdefault(key, []).append((client, table))
    return True
