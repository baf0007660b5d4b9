"""The ``magdomino`` command line.

Every command shares one error path: bad input raises :class:`~magdomino.errors.InputError`,
printed as one line on stderr with exit status 2 (never a traceback).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import sys
import threading
from pathlib import Path

from magdomino.errors import InputError
from magdomino.faces.calibration import add_calibrate
from magdomino.faces.cli_games import add_play, add_tournament
from magdomino.faces.cli_lab import add_lab
from magdomino.faces.cli_replay import add_replay
from magdomino.faces.cli_report import add_report
from magdomino.faces.cli_study import add_study
from magdomino.faces.engine_options import add_engine, margin_note, run_simulate, screen_note, screened_row, verdict_line, verdict_what
from magdomino.faces.overrides import add_preset_overrides, overridden_scenario, preset_words, record_overrides
from magdomino.faces.running import Terminated, check_outputs, interruptible, json_alone_on_stdout, write_json
from magdomino.model.presets import DEFAULT_PRESET, load_preset, preset_names
from magdomino.model.tiles import parse_tile
from magdomino.studies.scenario import load_scenario
from magdomino.studies.server_exit import flush_streams
from magdomino.version import __version__
from magdomino.wording import counted

# Each command imports its own modules (studies.odds, sweeps and whatif, faces.render and plots) when it runs:
# magdomino --help loads none of them (plots brings matplotlib).

FLAG_OF = {
    "what_ifs": "--what-if",
    "what_if": "--what-if",
    "player_kinds": "--player",
    "noise": "the noise flags",
    "noise.drop_mm": "--drop-mm",
}
"""Library argument names whose flag is not ``--`` + the name with dashes (the one table
that maps what the library names to what the user typed)."""


def flag_of(name: str) -> str:
    """The flag that sets the library argument ``name`` (``noise.pos_sigma_mm`` → ``--pos-sigma-mm``)."""
    return FLAG_OF.get(name) or "--" + name.rsplit(".", 1)[-1].replace("_", "-")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through the same one-line, exit-2 path."""

    def error(self, message):  # noqa: D401 - argparse API
        raise InputError("command line", "", message)


# -- presets -----------------------------------------------------------------------------


def _cmd_presets(args) -> int:
    if args.name is None:
        for name in preset_names():
            preset = load_preset(name)
            magnets = preset.tile.magnets
            if magnets:
                m = magnets[0]
                size = "x".join(f"{v * 1000:g}" for v in m.dimensions)
                kind = "free " if m.free else ""
                what = f"{len(magnets)} {kind}{m.shape} {size} mm, J = {m.polarization:g} T"
            else:
                what = "no magnets"
            size_mm = "x".join(f"{v:g}" for v in preset.size_mm)
            print(f"{name:<10} {size_mm} mm, {preset.tile.mass * 1000:g} g, {what}" + ("  (the default)" if name == DEFAULT_PRESET else ""))
        return 0
    try:
        preset = load_preset(args.name)
    except InputError as exc:
        if exc.key != "preset":  # a bad preset file: its own name and key
            raise
        raise InputError("command line", "NAME", exc.expected) from None
    print(json.dumps(preset.to_dict(), indent=2))
    return 0


def _add_presets(sub) -> None:
    p = sub.add_parser("presets", help="list the physical presets, or print one as JSON")
    p.add_argument("name", nargs="?", help="a bundled preset name or a path to a preset .toml")
    p.set_defaults(func=_cmd_presets)


# -- simulate ----------------------------------------------------------------------------


def _cmd_simulate(args) -> int:
    check_outputs(args, "--json", "--gif", "--plot")
    scenario = overridden_scenario(load_scenario(args.scenario), args)
    if args.gif and not scenario.what_if:
        raise InputError("command line", "--gif", f"expected a scenario with a what-if to animate; {scenario.source} has none")
    result, how = run_simulate(scenario, args)
    magnets = "magnets on" if scenario.magnets and scenario.preset.tile.magnets else "no magnets"
    print(f"{scenario.name}: {counted(len(scenario.structure), 'tile')}, {preset_words(scenario, args)}, {magnets}, {how}")
    labels = ["structure"] + [f"what-if {i}: {scenario.describe(p)}" for i, p in enumerate(scenario.what_if)]
    width = max(len(label) for label in labels)
    verdicts = [result.structure, *result.what_if]
    from magdomino.faces.plots import what_ifs_not_tried

    # every column lined up (the verdict column as wide as its longest entry); a skipped what-if says why
    what_width = max([28] + [len(verdict_what(v)) for v in verdicts if v is not None and not v.error and v.sim_time_s is not None])
    for label, verdict in zip(labels, verdicts):
        text = what_ifs_not_tried(result.structure) if verdict is None else verdict_line(verdict, what_width)
        print(f"  {label:<{width}}  {text}")
    print(f"  total {result.wall_time_s:.2f} s")
    if args.json:
        write_json(args, record_overrides(result.to_dict(), args, scenario.preset, scenario))
    if args.plot:
        _simulate_plot(scenario, result, args.plot)
    if args.gif and scenario.what_if:
        from magdomino.faces.render import render_gif
        from magdomino.studies.engines import check_structure_settled

        check_structure_settled(scenario, result.structure, before="a what-if is animated (--gif)")
        for i in range(len(scenario.what_if)):
            out = Path(args.gif)
            path = out.with_name(f"{out.stem}-{i}{out.suffix or '.gif'}")
            render_gif(scenario, path, what_if=i, settled=result.settled_poses)
            print(f"  wrote {path}")
    return 0


def _simulate_plot(scenario, result, path) -> None:
    from magdomino.faces.plots import simulation_figure, structure_outcome, what_ifs_not_tried

    traces = [
        (f"what-if {i}: {verdict.reason}", series)
        for i, (verdict, series) in enumerate(zip(result.what_if, result.traces))
        if verdict is not None
    ]
    positions, quats = result.settled_poses
    title = (f"{scenario.name}: {counted(len(scenario.structure), 'tile')}, preset {scenario.preset.name}, "
             f"structure {structure_outcome(result.structure)}")
    no_traces = f"what-ifs {what_ifs_not_tried(result.structure)}" if scenario.what_if else "no what-if in this scenario"
    wrote = simulation_figure(positions, quats, [pl.pips for pl in scenario.structure], scenario.preset, traces, path,
                              thresholds=result.structure.thresholds, title=title, structure=result.structure, no_traces=no_traces)
    print(f"  wrote {wrote}")


def _add_simulate(sub) -> None:
    p = sub.add_parser("simulate", help="settle a scenario's structure and try each what-if placement")
    p.add_argument("scenario", help="a scenario .toml file")
    p.add_argument("--json", metavar="OUT", help="write the verdicts as JSON ('-' for stdout)")
    p.add_argument("--gui", action="store_true", help="watch in PyBullet's window (needs a display)")
    p.add_argument("--gif", metavar="FILE.gif", help="animate every what-if (FILE-0.gif, FILE-1.gif, ...)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="side and top views of the settled structure, shift and tilt over time of each what-if")
    add_engine(p, "statics: judge the structure and each what-if at rest, with a margin (milliseconds)")
    add_preset_overrides(p, "the scenario's preset", scenario=True)
    p.set_defaults(func=_cmd_simulate)


# -- odds and sweep ----------------------------------------------------------------------

_NOISE_FLAGS = ["pos_sigma_mm", "yaw_sigma_deg", "polarization_rel_sigma", "friction_rel_sigma", "mass_rel_sigma"]


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text}")
    return value


def _odds_settings(args):
    """The :class:`~magdomino.studies.odds.OddsSettings` the odds flags ask for."""
    from magdomino.studies.odds import OddsSettings

    noise = {k: getattr(args, k) for k in _NOISE_FLAGS if getattr(args, k) is not None}
    if args.drop_mm is not None:
        noise["drop_mm"] = list(args.drop_mm)
    return OddsSettings(
        args.trials, seed=args.seed, jobs=args.jobs, scheduler=args.scheduler, precision=args.precision,
        batch=args.batch, out_dir=args.out_dir, resume=args.resume, noise=noise, progress=sys.stderr.isatty(),
        engine=args.engine,
    )


def _odds_header(scenario, result, args, noise_line: bool = True) -> str:
    n = result.noise
    magnets = "magnets on" if scenario.magnets and scenario.preset.tile.magnets else "no magnets"
    text = f"{scenario.name}: {counted(len(scenario.structure), 'tile')}, {preset_words(scenario, args)}, {magnets}, seed {result.seed}"
    text += f", engine {result.engine}"
    if noise_line:
        text += (
            f"\n  hand: sigma {n['pos_sigma_mm']:g} mm, {n['yaw_sigma_deg']:g} deg, drop {n['drop_mm'][0]:g}-{n['drop_mm'][1]:g} mm;"
            f" spread: J {n['polarization_rel_sigma']:.0%}, friction {n['friction_rel_sigma']:.0%}, mass {n['mass_rel_sigma']:.0%}"
        )
    return text


def _odds_label(r) -> str:
    return "structure" if r.what_if is None else f"what-if {r.what_if}: {r.placement}"


def _odds_line(r, width: int = 34) -> str:
    label = _odds_label(r)
    lo, hi = r.ci95
    p = "  -  " if r.p_collapse is None else f"{r.p_collapse:.3f}"
    counts = ", ".join(counted(n, noun) for n, noun in ((r.trials, "trial"), (r.collapses, "collapse"), (r.errors, "error")))
    line = f"  {label:<{width}} p = {p}  [{lo:.3f}, {hi:.3f}]  {counts}, {r.undecided} undecided, {r.shifts} shifted"
    if r.median_shift_mm is not None:
        line += f", median shift {r.median_shift_mm:.2f} mm"
    if len(r.judged_by) > 1:
        line += " (judged by " + ", ".join(f"{k} {v}" for k, v in sorted(r.judged_by.items(), reverse=True)) + ")"
    if r.stopped_by == "precision":
        line += " (precision reached)"
    if r.error_messages:
        line += f"; first error: {r.error_messages[0]}"
    return line


def _cmd_odds(args) -> int:
    from magdomino.studies.odds import estimate_odds
    check_outputs(args, "--json", "--plot")
    scenario = overridden_scenario(load_scenario(args.scenario), args)
    result = estimate_odds(scenario, _odds_settings(args), what_ifs=args.what_if)
    out = sys.stderr if args.json == "-" else sys.stdout
    print(_odds_header(scenario, result, args), file=out)
    width = max([34] + [len(_odds_label(r)) for r in result.results])
    for r in result.results:
        print(_odds_line(r, width), file=out)
    print(f"  total {result.wall_time_s:.2f} s", file=out)
    document = record_overrides(result.to_dict(), args, scenario.preset, scenario)
    if args.json:
        write_json(args, document)
    if args.plot:
        from magdomino.faces.plots import odds_figure

        print(f"  wrote {odds_figure(document, args.plot)}", file=out)
    return 0


def _add_odds_options(p) -> None:
    p.add_argument("scenario", help="a scenario .toml file")
    p.add_argument("--trials", type=int, required=True, help="trials per what-if (at most, with --precision)")
    p.add_argument("--seed", type=int, help="default: the scenario's seed")
    p.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a dask.distributed scheduler, or 'local' for a LocalCluster")
    p.add_argument("--precision", type=float, metavar="H", help="stop once the 95 %% interval's half-width is below H")
    p.add_argument("--batch", type=int, default=100, help="trials between two precision checks (default 100)")
    p.add_argument("--out-dir", metavar="DIR", help="stream every trial to DIR as JSON lines")
    p.add_argument("--resume", action="store_true", help="continue the interrupted run stored in --out-dir")
    p.add_argument("--what-if", type=int, nargs="+", metavar="I", help="only these what-ifs (default all)")
    p.add_argument("--json", metavar="OUT", help="write the odds as JSON ('-' for stdout)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the odds with their intervals")
    noise = p.add_argument_group("noise (overrides the scenario's [noise]; defaults in magdomino.studies.odds)")
    for name in _NOISE_FLAGS:
        noise.add_argument("--" + name.replace("_", "-"), dest=name, type=_non_negative, metavar="X")
    noise.add_argument("--drop-mm", type=_non_negative, nargs=2, metavar=("LO", "HI"), help="release height range, mm")
    add_engine(p, "statics: each trial a static check of the perturbed rest pose (no drop; refused poses are errors)", study=True)
    add_preset_overrides(p, "the scenario's preset", scenario=True)


def _add_odds(sub) -> None:
    p = sub.add_parser("odds", help="probability that each what-if collapses the tower, under a real hand's unsteadiness")
    _add_odds_options(p)
    p.set_defaults(func=_cmd_odds)


def _cmd_sweep(args) -> int:
    from magdomino.studies.sweeps import sweep

    check_outputs(args, "--json", "--plot")
    scenario = overridden_scenario(load_scenario(args.scenario), args)
    result = sweep(scenario, args.param, args.values, _odds_settings(args), what_ifs=args.what_if)
    out = sys.stderr if args.json == "-" else sys.stdout
    print(_odds_header(scenario, result.runs[0], args, noise_line=args.param not in result.runs[0].noise), file=out)
    width = max([34] + [len(_odds_label(r)) for run in result.runs for r in run.results])
    for value, run in zip(result.values, result.runs):
        print(f" {args.param} = {value:g}", file=out)
        for r in run.results:
            print(_odds_line(r, width), file=out)
    document = record_overrides(result.to_dict(), args, scenario.preset, scenario)
    if args.json:
        write_json(args, document)
    if args.plot:
        from magdomino.faces.plots import sweep_figure

        print(f"  wrote {sweep_figure(document, args.plot)}", file=out)
    return 0


def _add_sweep(sub) -> None:
    p = sub.add_parser("sweep", help="odds as a function of one parameter (a sigma, polarization_scale, an offset)")
    _add_odds_options(p)
    p.add_argument("--param", required=True, help="a noise sigma (e.g. pos_sigma_mm), polarization_scale, offset_x_mm or offset_y_mm")
    p.add_argument("--values", type=float, nargs="+", required=True, metavar="V", help="the values to try")
    p.set_defaults(func=_cmd_sweep)


# -- main --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="magdomino", description="Simulate Magnetic Domino towers.")
    parser.add_argument("--version", action="version", version=f"magdomino {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in _COMMANDS:
        add(sub)
    parser.set_defaults(commands=list(sub.choices))
    return parser


# -- render ------------------------------------------------------------------------------


def _cmd_render(args) -> int:
    from magdomino.faces.render import parse_size, render_gif, render_png
    suffix = Path(args.out).suffix.lower()
    if suffix not in (".png", ".gif"):
        raise InputError("command line", "--out", f"expected a .png or .gif file, got {args.out!r}")
    check_outputs(args, "--out")
    width, height = parse_size(args.size)
    scenario = overridden_scenario(load_scenario(args.scenario), args)
    if suffix == ".gif":
        verdict = render_gif(scenario, args.out, what_if=args.what_if or 0, width=width, height=height)
        what = f"what-if {args.what_if or 0}"
    else:
        verdict = render_png(scenario, args.out, width=width, height=height, what_if=args.what_if)
        what = "structure" if args.what_if is None else f"what-if {args.what_if}"
    chosen = f" ({preset_words(scenario, args)})" if args.preset else ""
    print(f"{scenario.name}{chosen}: {what} {verdict_line(verdict)}")
    print(f"  wrote {args.out}")
    return 0


def _add_render(sub) -> None:
    p = sub.add_parser("render", help="draw a scenario's settled structure (PNG) or animate a what-if (GIF)")
    p.add_argument("scenario", help="a scenario .toml file")
    p.add_argument("--out", required=True, metavar="FILE.png|FILE.gif",
                   help="PNG: the settled structure; GIF: a what-if from release to verdict")
    p.add_argument("--what-if", type=int, metavar="I", help="GIF: which what-if (default 0); PNG: draw the end of this what-if instead")
    p.add_argument("--size", default="800x600", metavar="WxH", help="image size in pixels (default 800x600)")
    add_preset_overrides(p, "the scenario's preset", scenario=True)
    p.set_defaults(func=_cmd_render)


# -- whatif ------------------------------------------------------------------------------


def _cmd_whatif(args) -> int:
    from magdomino.faces.plots import tile_as_ranked
    from magdomino.games.tower.candidates import enumerate_placements
    from magdomino.studies.odds import OddsSettings, resolve_noise
    from magdomino.studies.whatif import rank_placements, whatif_document

    check_outputs(args, "--json", "--plot")
    tile = parse_tile(args.tile, "command line", "--tile")
    scenario = overridden_scenario(load_scenario(args.scenario), args)
    settings = OddsSettings(args.trials, seed=args.seed, jobs=args.jobs, progress=sys.stderr.isatty(), engine=args.engine)
    if args.parallel_only and not args.second_parallel:
        raise InputError("command line", "--parallel-only", "not with --no-second-parallel/--perpendicular (every tile parallel, or not)")
    orientation = {"parallel_only": args.parallel_only, "second_parallel": args.second_parallel}
    ranked = rank_placements(scenario, tile, settings, candidates=enumerate_placements, rule=args.rule, screen=args.screen, **orientation)
    document = record_overrides(whatif_document(scenario, tile, ranked, seed=args.seed, rule=args.rule, screen=args.screen,
                                                engine=args.engine, **orientation), args, scenario.preset, scenario)
    out = sys.stderr if args.json == "-" else sys.stdout
    n = resolve_noise(scenario)
    magnets = "magnets on" if scenario.magnets and scenario.preset.tile.magnets else "no magnets"
    how = ("parallel only" if args.parallel_only
           else "parallel and perpendicular"
           + (", the second tile parallel" if args.second_parallel and len(scenario.structure) == 1 else ""))
    print(f"{scenario.name}: {counted(len(scenario.structure), 'tile')}, {preset_words(scenario, args)}, {magnets}, "
          f"seed {document['seed']}", file=out)
    print(f"  tile {tile_as_ranked(document)}, rule {args.rule} ({how}): {len(ranked)} legal placements, safest first", file=out)
    if args.screen is not None:
        print(screen_note(ranked, args.screen, document["screen"]["band_deg"]), file=out)
    print(
        f"  hand: sigma {n['pos_sigma_mm']:g} mm, {n['yaw_sigma_deg']:g} deg, drop {n['drop_mm'][0]:g}-{n['drop_mm'][1]:g} mm;"
        f" spread: J {n['polarization_rel_sigma']:.0%}, friction {n['friction_rel_sigma']:.0%}, mass {n['mass_rel_sigma']:.0%}",
        file=out,
    )
    width = max(len(r.candidate.describe()) for r in ranked)
    for k, r in enumerate(ranked, start=1):
        c = r.candidate
        x, y, z = c.pos_mm
        where = f"({x:.1f}, {y:.1f}, {z:.1f}) mm, yaw {c.placement.yaw_deg:.0f}"
        if r.odds is None:  # screened out: the statics' answer
            print(screened_row(k, f"{c.describe():<{width}}", where, r.statics), file=out)
            continue
        lo, hi = r.ci95
        p = "  -  " if r.p_collapse is None else f"{r.p_collapse:.3f}"
        line = f"  {k:2d}. {c.describe():<{width}}  p = {p}  [{lo:.3f}, {hi:.3f}]  {_shifted_cell(r)}  {where}"
        line += margin_note(r)
        if r.odds.errors or r.odds.undecided:
            line += f"  ({counted(r.odds.errors, 'error')}, {r.odds.undecided} undecided)"
        print(line, file=out)
    if args.json:
        write_json(args, document)
    if args.plot:
        from magdomino.faces.plots import whatif_figure

        print(f"  wrote {whatif_figure(document, args.plot)}", file=out)
    return 0


def _shifted_cell(r) -> str:
    """A whatif row's "shifted" column: the share of counted trials that shifted and the
    median of their largest shifts ("-" where the engine does not know)."""
    share = "  -  " if r.shift_share is None else f"{r.shift_share:.3f}"
    median = "  -  " if r.median_shift_mm is None else f"{r.median_shift_mm:5.1f}"
    return f"shifted {share}, median {median} mm"


def _add_whatif(sub) -> None:
    p = sub.add_parser("whatif", help="rank every legal placement of one tile on a scenario's structure by its odds of collapse")
    p.add_argument("scenario", help="a scenario .toml file (its what-ifs are ignored, its [noise] applies)")
    p.add_argument("--tile", required=True, metavar="A,B", help="the tile to place, e.g. 6,2 (not already in the structure)")
    p.add_argument("--trials", type=int, default=100, help="trials per placement (default 100)")
    p.add_argument("--seed", type=int, help="default: the scenario's seed; the same for every placement")
    p.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    p.add_argument("--rule", choices=["any", "defi", "quinconce"], default="any",
                   help="which placements: any (on top, end to end, beneath; default), defi (on top), quinconce (extremities only)")
    p.add_argument("--parallel-only", action="store_true",
                   help="every tower placement parallel to the tile below (default: parallel or perpendicular)")
    p.add_argument("--no-second-parallel", "--perpendicular", dest="second_parallel", action="store_false",
                   help="on a one-tile structure, also perpendicular (default: the second tile parallel, the leaflet's tip)")
    p.add_argument("--screen", type=int, metavar="K",
                   help="rank every placement by the statics' tilt margin, run the odds on the best K (and those within a band of them)")
    p.add_argument("--json", metavar="OUT", help="write the ranking as JSON ('-' for stdout)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the ranking with its intervals")
    add_engine(p, "statics: each trial a static check of the perturbed rest pose", study=True)
    add_preset_overrides(p, "the scenario's preset", scenario=True)
    p.set_defaults(func=_cmd_whatif)


_COMMANDS = [_add_simulate, add_play, _add_presets, _add_odds, _add_sweep, _add_render, _add_whatif, add_report, add_replay, add_tournament,
             add_study, add_calibrate, add_lab]


def main(argv: list[str] | None = None) -> int:
    """Run one command. Exit status: 0 done, 2 bad input (one line), 130 interrupted by
    SIGINT (Ctrl-C), 143 by SIGTERM; an interruption prints one line, ends the workers and
    leaves the trial log ready for ``--resume``."""
    parser = build_parser()
    with interruptible():
        try:
            args = parser.parse_args(argv)
            if not getattr(args, "func", None):
                raise InputError("command line", "",
                                 f"expected a command: {', '.join(args.commands)} (magdomino --help says what each does)")
            with json_alone_on_stdout(args):
                return int(args.func(args) or 0)
        except InputError as exc:
            print(f"magdomino: {exc.for_command_line(flag_of)}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # e.g. piped into head: not an error of ours
            sys.stderr.close()
            return 0
        except KeyboardInterrupt as exc:
            print("magdomino: interrupted", file=sys.stderr)
            return 143 if isinstance(exc, Terminated) else 130


def run() -> None:
    """The ``magdomino`` command: :func:`main`, then a quick exit.

    Once a command is done, tearing the interpreter down (numba's compiled code, scipy's
    and PyBullet's modules, every object freed one by one) takes another 0.2-0.4 s, a third
    of a short command. Nothing is left to do by then, so the command flushes its streams,
    runs the exit handlers (``atexit``: multiprocessing's, the physics connections', logging's)
    and leaves at once, unless a thread that is not a daemon still runs (then as usual).
    """
    status = main()
    if any(t is not threading.main_thread() and not t.daemon and t.is_alive() for t in threading.enumerate()):
        raise SystemExit(status)
    flush_streams()
    atexit._run_exitfuncs()  # noqa: SLF001 - what the interpreter's own exit runs first
    flush_streams()  # what the exit handlers wrote
    os._exit(status)
