"""The ``replay`` command (a whole game from its record as a GIF, an MP4 or PNG frames, and
its summary figure) and ``play --gif/--mp4/--plot`` (the game just played)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from magdomino.errors import InputError
from magdomino.faces.running import check_output as check_file
from magdomino.games.family import family_of, judged_rules
from magdomino.games.record import JUDGED_IN_PYBULLET
from magdomino.wording import counted

# The replay, the renderer and the report's reader are imported when a replay runs: magdomino --help loads none of them.


def check_film_outputs(gif=None, mp4=None, out=None, summary=None, summary_flag: str = "--plot") -> None:
    """Every output checked before any work (one line, exit 2); ``summary_flag`` is the flag
    that named ``summary`` (``--plot`` in play, ``--summary`` in replay)."""
    from magdomino.faces.replay import check_output
    for flag, path, kinds in (("--gif", gif, ("gif",)), ("--mp4", mp4, ("mp4",)), ("--out", out, ("gif", "mp4", "dir"))):
        if path is None:
            continue
        try:
            kind = check_output(path)
        except InputError:
            kind = None
        if kind not in kinds:
            want = "a .gif or .mp4 file or a directory" if flag == "--out" else f"a {kinds[0]} file"
            raise InputError("command line", flag, f"{want}, got {path!r}")
        parent = Path(path).parent if kind != "dir" else Path(path).resolve().parent
        if not parent.is_dir():
            raise InputError("command line", flag, f"a path in an existing directory, got {path!r}")
    if summary is not None and Path(summary).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise InputError("command line", summary_flag, f"a .png, .svg or .pdf file, got {summary!r}")
    check_file(summary, summary_flag)


def film(record: dict, outputs: list, source: str = "record") -> int:
    """Replay ``record`` once and write it to every path of ``outputs``; prints one line
    per file, a line per verdict that differs from the record (stderr). Returns 0, or 1
    when a replayed verdict differs from the recorded one."""
    from magdomino.faces.replay import replay, write_frames

    outputs = [o for o in outputs if o is not None]
    if not outputs:
        return 0
    rep = replay(record, source=source)
    for out in outputs:
        path = write_frames(rep, out)
        size = sum(f.stat().st_size for f in path.iterdir()) if path.is_dir() else path.stat().st_size
        print(f"wrote {path}: {len(rep.frames)} frames, {sum(rep.durations_ms) / 1000:.1f} s, {size / 1e6:.2f} MB")
    if rep.mismatches:
        print(f"replay: {counted(len(rep.mismatches), 'verdict')} {'differs' if len(rep.mismatches) == 1 else 'differ'} "
              "from the record (not deterministic here)", file=sys.stderr)
        return 1
    if record.get("physics") in JUDGED_IN_PYBULLET:
        print(f"replay: all {len(rep.placements)} placements judged as recorded")
    return 0


def game_series(record: dict) -> dict:
    """Per placement of a tower rule's record: ``levels`` (height of the construction in
    levels after it), ``size`` (tiles in it), ``hands`` (list per seat), ``collapse`` (bool)."""
    series = {"levels": [], "size": [], "hands": [], "collapse": []}
    built: list[int] = []
    for ev in record["events"]:
        kind = ev.get("type")
        if kind in ("deal", "collapse", "restart"):
            built = []
        if kind in ("collapse", "draw") and series["hands"]:  # the hands once the tiles are taken back (or drawn)
            series["hands"][-1] = list(ev.get("hand_sizes", series["hands"][-1]))
        if kind != "place":
            continue
        pose = ev.get("pose")
        built.append(pose[2] if isinstance(pose, list) and len(pose) == 4 else 0)
        series["levels"].append(1 + max(built))
        series["size"].append(ev.get("construction_size", len(built)))
        series["hands"].append(list(ev.get("hand_sizes", [])))
        series["collapse"].append(bool((ev.get("verdict") or {}).get("collapsed")) and not ev.get("collapse_ignored")
                                  and not ev.get("start") and not ev.get("restart"))
    return series


def game_summary_figure(record: dict, path, key: str = "plot") -> Path:
    """Tower height (levels and tiles) and hand sizes over the placements, collapses marked
    (``key``: the argument that named ``path``, for an error)."""
    import matplotlib

    from magdomino.faces.plots import save

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = game_series(record)
    if not s["levels"]:
        raise InputError(str(path), "events", "a record with at least one placement to plot")
    x = list(range(1, len(s["levels"]) + 1))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    try:
        top.step(x, s["levels"], where="post", label="levels", color="#1f77b4")
        top.step(x, s["size"], where="post", label="tiles in the construction", color="#9467bd", alpha=0.7)
        seats = max(len(h) for h in s["hands"])
        for seat in range(seats):
            bottom.step(x, [h[seat] if seat < len(h) else None for h in s["hands"]], where="post", label=f"seat {seat}")
        for ax in (top, bottom):
            for k, c in zip(x, s["collapse"]):
                if c:
                    ax.axvline(k, color="#d62728", alpha=0.35, linewidth=1.2)
        hits = [k for k, c in zip(x, s["collapse"]) if c]
        top.plot(hits, [s["levels"][k - 1] for k in hits], "v", color="#d62728", label=f"collapse ({len(hits)})")
        top.set_ylabel("construction")
        bottom.set_ylabel("tiles in hand")
        bottom.set_xlabel("placement")
        top.legend(fontsize=8, loc="upper left")
        bottom.legend(fontsize=8, loc="upper right")
        top.set_title(f"{record['rule']}, {record['players']} players, seed {record.get('seed')}, physics {record.get('physics', 'none')}")
        fig.tight_layout()
        return save(fig, path, key)
    finally:
        plt.close(fig)


def _cmd_replay(args) -> int:
    from magdomino.faces.render import parse_size
    from magdomino.faces.replay import load_record, replay, write_frames

    if args.out is None and args.summary is None:
        raise InputError("command line", "--out", "an output: --out FILE.gif|FILE.mp4|DIR/ and/or --summary FILE.png")
    check_film_outputs(out=args.out, summary=args.summary, summary_flag="--summary")
    width, height = parse_size(args.size)
    tournament = _tournament(args.record)
    if tournament is not None:
        from magdomino.faces.report_input import check_document, check_version
        from magdomino.faces.tournament_view import tournament_figure

        if args.out is not None or args.summary is None:
            raise InputError("command line", "--out", "a game record to replay (a tournament has only --summary FILE.png)")
        check_version(tournament, args.record)  # checked before anything is drawn
        check_document("tournament", tournament, args.record)
        print(f"wrote {tournament_figure(tournament, args.summary, 'summary')}")
        return 0
    record = load_record(args.record)  # checked before anything is drawn
    status = 0
    if args.out is not None:
        rep = replay(record, width=width, height=height, source=args.record)
        path = write_frames(rep, args.out)
        size = sum(f.stat().st_size for f in path.iterdir()) if path.is_dir() else path.stat().st_size
        print(f"wrote {path}: {len(rep.frames)} frames, {sum(rep.durations_ms) / 1000:.1f} s, {size / 1e6:.2f} MB")
        if rep.mismatches:
            print(f"replay: {counted(len(rep.mismatches), 'verdict')} {'differs' if len(rep.mismatches) == 1 else 'differ'} "
                  "from the record (not deterministic here)", file=sys.stderr)
            status = 1
        elif record.get("physics") in JUDGED_IN_PYBULLET:
            print(f"replay: all {len(rep.placements)} placements judged as recorded")
    if args.summary is not None:
        if not family_of(record["rule"]).builds:
            raise InputError("command line", "--summary", f"a record of {judged_rules()} (tower height over the placements)")
        print(f"wrote {game_summary_figure(record, args.summary, 'summary')}")
    return status


def _tournament(path: str):
    """The document if ``path`` holds a tournament's JSON (``per_kind``), else None."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # load_record says why, in one line
    if isinstance(doc, dict) and (doc.get("kind") == "tournament" or "per_kind" in doc):
        return doc
    return None


def add_replay(sub) -> None:
    p = sub.add_parser("replay", help="a whole game from its record: GIF, MP4 or PNG frames; its summary figure")
    p.add_argument("record", metavar="RECORD.json", help="a game record (play --json), or a tournament's JSON with --summary")
    p.add_argument("--out", metavar="FILE", help="game.gif, game.mp4 or a directory DIR/ of PNG frames")
    p.add_argument("--size", default="480x360", metavar="WxH", help="frame size in pixels (default 480x360)")
    p.add_argument("--summary", metavar="FILE.png",
                   help="tower rules: tower height and hand sizes over the placements, collapses marked; "
                        "a tournament: win share per player kind with 95 %% intervals")
    p.set_defaults(func=_cmd_replay)
