"""The ``study`` command: how a toy plays as a preset parameter changes (games/design_study.py)."""

from __future__ import annotations

import re
import sys

from magdomino.errors import InputError
from magdomino.faces.cli_games import add_deal_run_flags
from magdomino.faces.overrides import PRESET_DEFAULT_HELP, SOURCE, add_preset_overrides, check_overrides, parse_toml_value, preset_overrides
from magdomino.faces.running import check_outputs, write_json
from magdomino.games.tournament import physics_names
from magdomino.model.presets import DEFAULT_PRESET, load_preset

# The design study and its view are imported when a study runs: magdomino --help loads neither.


def _split_values(text: str) -> list[str]:
    """``"0.8,0.9,[1, 2]"`` → ``["0.8", "0.9", "[1, 2]"]``: commas outside brackets and quotes."""
    parts, depth, quote, current = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += c
    return [p.strip() for p in [*parts, current]]


def parse_vary(items: list[str]) -> dict:
    """``["magnets_scale=0.9,1.0", "tile.friction=0.3,0.5"]`` → ``{key: [values]}`` (TOML values)."""
    vary: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", key) or not text.strip():
            raise InputError(SOURCE, "--vary", f"expected KEY=V1,V2,... such as magnets_scale=0.9,1.0,1.1, got {item!r}")
        flag = f"--vary {key}"
        if key in vary:
            raise InputError(SOURCE, flag, "expected each key once (given twice)")
        values = [parse_toml_value(v, flag) for v in _split_values(text)]
        if len({repr(v) for v in values}) != len(values):
            raise InputError(SOURCE, flag, f"expected each value once, got {text!r}")
        vary[key] = values
    return vary


def _check_points(args, vary: dict, base: dict) -> None:
    """Every point's preset checked before any deal, the error naming ``--vary KEY`` and the value."""
    from magdomino.games.design_study import study_points
    try:
        preset = load_preset(args.preset or DEFAULT_PRESET)
    except InputError as exc:
        if exc.key != "preset":
            raise
        raise InputError(SOURCE, "--preset", exc.expected) from None
    check_overrides(preset, base)
    for key in vary:
        if key in base:
            raise InputError(SOURCE, f"--vary {key}", "expected a key not also given to --preset-set or --magnets-scale")
    for values in study_points(vary):
        try:
            check_overrides(preset, {**base, **values})
        except InputError as exc:
            blame = next((k for k in values if exc.key.endswith(k) or (k == "magnets_scale" and exc.key == "--magnets-scale")), None)
            if blame is None:
                raise
            raise InputError(SOURCE, f"--vary {blame}", f"{exc.expected} (at {blame} = {values[blame]})") from None


def _cmd_study(args) -> int:
    from magdomino.faces.design_study_view import format_study, study_figure
    from magdomino.games.design_study import run_study

    check_outputs(args, "--json", "--plot")
    if args.resume and args.out_dir is None:
        raise InputError(SOURCE, "--resume", "expected --out-dir with it (the directory of the run to resume)")
    if not args.vary:
        raise InputError(SOURCE, "--vary", "expected at least one KEY=V1,V2,... (e.g. --vary magnets_scale=0.9,1.0,1.1)")
    seats = args.seats.split(",")
    if args.players is not None and args.players != len(seats):
        raise InputError(SOURCE, "--players", f"expected as many players as --seats names ({len(seats)}), got {args.players}")
    base = preset_overrides(args)
    vary = parse_vary(args.vary)
    _check_points(args, vary, base)
    doc = run_study(
        args.rule, seats, args.deals, vary, seed=args.seed, physics=args.physics, preset=args.preset,
        preset_overrides=base or None, magnets=not args.no_magnets, max_placements=args.max_placements, skilled=args.skilled,
        jobs=args.jobs, scheduler=args.scheduler, out_dir=args.out_dir, resume=args.resume, progress=sys.stderr.isatty(),
    )
    out = sys.stderr if args.json == "-" else sys.stdout
    print(format_study(doc), file=out)
    if args.json:
        write_json(args, doc)
    if args.plot:
        print(f"wrote {study_figure(doc, args.plot)}", file=out)
    return 0


def add_study(sub) -> None:
    p = sub.add_parser("study", help="a toy's design: per value of preset parameters, many deals between player kinds and "
                                     "the game-design metrics (completion, length, collapses, skill gap, seat advantage, "
                                     "height) with 95 %% intervals")
    p.add_argument("--rule", required=True, choices=["defi", "quinconce", "traditional"])
    p.add_argument("--seats", required=True, metavar="K1,K2,...",
                   help="one player kind per seat (e.g. careful,random,random); seats rotate over the deals")
    p.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="a preset key and its values (magnets_scale=0.8,0.9,1.0 or tile.friction=0.3,0.5 or "
                        "tile.magnets.polarization_T=0.9,1.0); repeat it for a grid")
    p.add_argument("--deals", type=int, required=True, help="deals per value (a multiple of the seat count balances the seats)")
    p.add_argument("--players", type=int, help="the number of players (optional: the seats say it; checked against them)")
    p.add_argument("--seed", type=int, default=0, help="deal d has the same seed at every value (default 0)")
    p.add_argument("--physics", choices=[n for n in physics_names() if n != "none"], default="dynamics",
                   metavar="{" + ",".join(n for n in physics_names(deprecated=False) if n != "none") + "}",
                   help="the engine that judges collapses (default dynamics, PyBullet's world; pybullet: its old name)")
    p.add_argument("--preset", help=f"the preset the values change ({PRESET_DEFAULT_HELP})")
    p.add_argument("--no-magnets", action="store_true", help="switch the magnets off")
    p.add_argument("--max-placements", type=int, default=None, metavar="N",
                   help="runaway guard: a deal with N placements ends abandoned (default 300)")
    p.add_argument("--skilled", default="careful", metavar="KIND",
                   help="the kind whose win share against random seats is the skill gap (default careful)")
    add_deal_run_flags(p, "study.jsonl")
    p.add_argument("--json", metavar="OUT", help="write the study document as JSON ('-' for stdout)")
    p.add_argument("--plot", metavar="FILE.png", help="each metric against the parameter, with 95 %% interval bands")
    add_preset_overrides(p, "the preset at every value")
    p.set_defaults(func=_cmd_study)

