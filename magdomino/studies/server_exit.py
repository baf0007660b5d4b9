"""Imported by the odds forkserver (:func:`magdomino.studies.runner._mp_context` preloads
it, first): the server leaves at once when the main process has gone.

The server exits when the main process does. Tearing down an interpreter that has imported
numba, scipy and PyBullet then takes ~0.3 s, during which the server still holds the main
process's stdout and stderr (its workers print there): whoever reads them through a pipe
(a shell's ``| tee``, a subprocess capture, the bench) waits that long after the command
is done. The server has nothing left to do by then: its handler runs last (the first
registered among the preloads'), flushes the streams and leaves with ``os._exit(0)``,
skipping the interpreter's teardown and the handlers registered before it (the server's
own ``multiprocessing.util._exit_function``, which has nothing to finalise in a server: its
children are the pool's, joined by the main process). Nobody reads the server's exit
status. Imported anywhere else (the command line uses :func:`flush_streams` for its own
quick exit), it registers nothing.
"""

import atexit
import os
import sys

_SERVER = os.getpid()


def _in_forkserver() -> bool:
    """multiprocessing starts its server as ``python -c 'from multiprocessing.forkserver
    import main; main(...)'``."""
    return any("multiprocessing.forkserver import main" in arg for arg in getattr(sys, "orig_argv", ()))


def flush_streams() -> None:
    """Flush stdout and stderr before an ``os._exit`` (which does not), whatever became of
    them: closed, or a pipe whose reader has gone (what was read is all that was wanted)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except (OSError, ValueError):
            pass


def _leave() -> None:
    if os.getpid() != _SERVER:  # a worker forked from the server (they leave by os._exit anyway)
        return
    flush_streams()
    os._exit(0)


if _in_forkserver():
    atexit.register(_leave)
