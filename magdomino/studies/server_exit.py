"""Imported only by the odds forkserver (:func:`magdomino.studies.runner._mp_context` preloads
it): the server leaves at once when the main process has gone.

The server exits when the main process does. Tearing down an interpreter that has imported
numba, scipy and PyBullet then takes ~0.3 s, during which the server still holds the main
process's stdout and stderr (its workers print there): whoever reads them through a pipe
(a shell's ``| tee``, a subprocess capture, the bench) waits that long after the command
is done. The server has nothing left to do by then; it runs the exit handlers registered
after this one and leaves with ``os._exit``.
"""

import atexit
import os

_SERVER = os.getpid()


def _leave() -> None:
    if os.getpid() == _SERVER:  # not in a worker forked from it (they leave by os._exit anyway)
        os._exit(0)


atexit.register(_leave)
