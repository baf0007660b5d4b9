"""The ``report`` command: one self-contained HTML page from the JSON documents of the other
commands (:mod:`magdomino.faces.report`)."""

from __future__ import annotations

import os
from pathlib import Path

from magdomino.checks import check_count
from magdomino.errors import InputError
from magdomino.optional import require
from magdomino.wording import counted

# The report and its reader are imported when a report is built: magdomino --help loads neither.


def _check_out(path: str) -> None:
    """The page's file: an .html in an existing, writable folder (checked before any work)."""
    p = Path(path)
    if p.suffix.lower() not in (".html", ".htm"):
        raise InputError("command line", "--out", f"expected an .html file, got {path}")
    if p.is_dir():
        raise InputError("command line", "--out", f"expected a file to write, got the directory {path}")
    if not p.parent.is_dir():
        raise InputError("command line", "--out", f"expected a file in an existing directory, got {path} ({p.parent} does not exist)")
    if not os.access(p.parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("command line", "--out", f"expected a file that can be written, got {path} (permission denied)")


def _cmd_report(args) -> int:
    from magdomino.faces.report import build_report
    from magdomino.faces.report_input import read_result

    _check_out(args.out)
    if args.animate and args.no_renders:
        raise InputError("command line", "--animate", "not with --no-renders (the animations are renders)")
    if args.view3d:
        if args.no_renders:
            raise InputError("command line", "--view3d", "not with --no-renders (the 3D views are of the renders)")
        require("plotly.graph_objects", "the 3D view", key="--view3d", source="command line")
    check_count(args.max_renders, "--max-renders", minimum=0, source="command line")
    for folder in args.scenarios:
        if not Path(folder).is_dir():
            raise InputError("command line", "--scenarios", f"expected a folder of scenario files, got {folder}")
    # Every input is read and checked before anything is drawn: a bad file costs nothing.
    results = [(path, *read_result(path)) for path in args.results]
    out = build_report(results, args.out, scenario_dirs=args.scenarios, animate=args.animate,
                       max_renders=args.max_renders, renders=not args.no_renders, replays=not args.no_replays, view3d=args.view3d)
    print(f"wrote {out} ({counted(len(results), 'document')}, {out.stat().st_size / 1e6:.2f} MB)")
    return 0


def add_report(sub) -> None:
    p = sub.add_parser("report", help="one self-contained HTML page (pictures embedded) from JSON results")
    p.add_argument("results", nargs="+", metavar="RESULTS", help="JSON files of simulate, odds, sweep, whatif, play or tournament")
    p.add_argument("--out", required=True, metavar="FILE.html", help="the page to write")
    p.add_argument("--scenarios", action="append", default=[], metavar="DIR",
                   help="where to look for the scenario files (NAME.toml) of what-if renders; also beside each JSON, "
                        "in the working folder and its scenarios/")
    p.add_argument("--animate", action="store_true", help="each what-if as an animated GIF of its drop (slower, bigger)")
    p.add_argument("--max-renders", type=int, default=12, metavar="N", help="at most N what-if renders per document (default 12)")
    p.add_argument("--view3d", action="store_true",
                   help="in the simulate section, an interactive 3-D view (turn, zoom, hover) after the settled structure's "
                        "and each what-if's picture; runs each what-if once more. Off by default: it embeds plotly.js "
                        "(about 4.8 MB) in the page, which still opens offline as one file. Needs plotly: "
                        "pip install 'magdomino[view]'")
    p.add_argument("--no-renders", action="store_true", help="no 3-D renders (tables and plots only; no physics run)")
    p.add_argument("--no-replays", action="store_true",
                   help="each game's final position instead of its replay GIF (a game with physics is replayed in the physics: slow)")
    p.set_defaults(func=_cmd_report)
