"""The ``lab`` command: the tower lab in a browser (:mod:`magdomino.faces.lab`)."""

from __future__ import annotations

import errno
import socket
import sys
from pathlib import Path

from magdomino.checks import check_count
from magdomino.errors import InputError
from magdomino.model.presets import DEFAULT_PRESET, load_preset, preset_names
from magdomino.optional import require

# The lab's server (NiceGUI, the lab extra) is imported when the lab starts: magdomino --help loads none of it.

DEFAULT_PORT = 8765
DEFAULT_OUT = "magdomino-lab"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, a port that cannot be bound (busy, or not ours to take)."""
    check_count(port, "--port", minimum=1, maximum=65535, source="command line")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError("command line", "--host", f"expected a host name or address, got {host} ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as exc:
            why = "busy (another server listens there)" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            raise InputError("command line", "--port", f"port {port} on {host} is {why}; choose another with --port") from None


def _cmd_lab(args) -> int:
    require("nicegui", "the lab", key="lab", source="command line")
    preset = args.preset
    if preset not in preset_names():
        preset = load_preset(preset)  # a file: checked now (one line if wrong)
    out = Path(args.out_dir)
    if out.exists() and not out.is_dir():
        raise InputError("command line", "--out-dir", f"expected a folder, got the file {out}")
    check_port(args.host, args.port)
    if args.host not in LOCAL_HOSTS:
        print(f"magdomino lab: warning: listening on {args.host}: the lab has no login; anyone who can reach this address can use it",
              file=sys.stderr)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"magdomino lab: http://{shown}:{args.port}/ (files go to {out}/; Ctrl-C stops it)", flush=True)
    from magdomino.faces.lab.server import serve

    try:
        serve(host=args.host, port=args.port, preset=preset, out_dir=out, open_browser=args.open)
    except KeyboardInterrupt:
        pass
    print("magdomino lab: stopped", file=sys.stderr)
    return 0


def add_lab(sub) -> None:
    p = sub.add_parser("lab", help="build, watch, ask the odds and play in a browser (needs pip install 'magdomino[lab]')")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="P", help=f"the port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="the address to listen on (default 127.0.0.1, this machine only; the lab has no login)")
    p.add_argument("--preset", default=DEFAULT_PRESET, metavar="NAME|FILE", help=f"the starting preset (default {DEFAULT_PRESET})")
    p.add_argument("--out-dir", default=DEFAULT_OUT, metavar="D",
                   help=f"where saved constructions and game records go (default ./{DEFAULT_OUT})")
    p.add_argument("--open", action="store_true", help="open the lab in the default browser")
    p.set_defaults(func=_cmd_lab)
