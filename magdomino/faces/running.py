"""How a command runs: its outputs checked before any work, interruptions (SIGINT, SIGTERM)
and ``--json -`` (stdout for the JSON alone).

Used by :func:`magdomino.faces.cli.main` around every command.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
from pathlib import Path

from magdomino.errors import InputError


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it ends as on Ctrl-C (workers ended,
    logs closed) with its own exit status."""


def _on_signal(signum, frame):
    # One interruption is enough: a second Ctrl-C must not break the cleanup of the first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def interruptible():
    """SIGINT and SIGTERM end a command cleanly (see :func:`main`); the handlers are put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def json_alone_on_stdout(args):
    """With ``--json -``, stdout holds the JSON document alone: every other line (ours, the
    physics engine's own prints, the workers') goes to stderr, at the file-descriptor level;
    the real stdout is ``args.json_stdout`` while the command runs (:func:`write_json`)."""
    if getattr(args, "json", None) != "-":
        yield
        return
    sys.stdout.flush()
    try:
        fd, err = sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # captured in-process: Python's streams only
        fd = None
    if fd is None:
        args.json_stdout = sys.stdout
        try:
            with contextlib.redirect_stdout(sys.stderr):
                yield
        finally:
            del args.json_stdout
        return
    saved = os.dup(fd)
    json_out = os.fdopen(os.dup(saved), "w")
    os.dup2(err, fd)
    args.json_stdout = json_out
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        del args.json_stdout
        sys.stdout.flush()
        json_out.close()
        os.dup2(saved, fd)
        os.close(saved)


_SUFFIXES = {"--gif": (".gif",), "--out": (".png", ".gif")}
"""Outputs whose format is fixed; the figures (``--plot``, ``--png``) take any format
matplotlib writes."""


def check_output(path, flag: str) -> None:
    """Refuse, before any work, an output file that cannot be written: its directory must
    exist and be writable, its suffix a format we write (a long run must not find out at its end)."""
    if path is None or (flag == "--json" and path == "-"):
        return
    p = Path(path)
    parent = p.parent
    if p.is_dir():
        raise InputError("command line", flag, f"expected a file to write, got the directory {path}")
    if not parent.is_dir():
        raise InputError("command line", flag, f"expected a file in an existing directory, got {path} ({parent} does not exist)")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("command line", flag, f"expected a file that can be written, got {path} (permission denied)")
    suffix = p.suffix.lower()
    if flag in ("--plot", "--png") and suffix:
        from matplotlib.backend_bases import FigureCanvasBase

        formats = sorted(FigureCanvasBase.get_supported_filetypes())
        if suffix[1:] not in formats:
            raise InputError("command line", flag, f"expected a figure file ({', '.join('.' + f for f in formats)}), got {path}")
    if flag in _SUFFIXES and suffix and suffix not in _SUFFIXES[flag]:
        raise InputError("command line", flag, f"expected a {' or '.join(_SUFFIXES[flag])} file, got {path}")


def check_outputs(args, *flags: str) -> None:
    """:func:`check_output` for each ``--flag`` of ``args``."""
    for flag in flags:
        check_output(getattr(args, flag[2:].replace("-", "_")), flag)


def write_json(args, document: dict) -> None:
    """Write ``document`` as indented JSON to the file ``args.json`` names and say ``wrote
    PATH``; ``-``: the JSON alone on stdout (``args.json_stdout``, the real stdout kept by
    :func:`json_alone_on_stdout`, else ``sys.stdout``)."""
    path = args.json
    text = json.dumps(document, indent=2) + "\n"
    if path == "-":
        getattr(args, "json_stdout", sys.stdout).write(text)
        return
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise InputError("command line", "--json", f"cannot write {path}: {exc.strerror}") from None
    print(f"wrote {path}")  # noqa: T201 - the one 'wrote PATH' line every command prints
