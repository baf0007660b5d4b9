"""The game commands: ``play`` (one game of any rule, its record as text and JSON)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from magdomino.checks import check_count, check_seed
from magdomino.errors import InputError
from magdomino.faces.cli_replay import check_film_outputs, film, game_summary_figure
from magdomino.faces.overrides import (
    PRESET_DEFAULT_HELP,
    add_preset_overrides,
    check_overrides,
    preset_overrides,
    record_overrides,
    refuse_without_physics,
)
from magdomino.faces.running import check_outputs, write_json
from magdomino.games import format_record, play_game
from magdomino.games.chain.record import check_chain_record, format_chain_record, play_chain
from magdomino.games.family import CHAIN, RULES, VINGT, family_of, judged_rules
from magdomino.games.players import players_of
from magdomino.games.session import GameSession, default_physics
from magdomino.games.tournament import physics_names, run_tournament
from magdomino.games.vingt import game as vingt
from magdomino.model.presets import DEFAULT_PRESET, load_preset
from magdomino.studies.engines import game_engine

# The boards, the terminal, the tournament view and md.resume are imported by the command that needs them:
# magdomino --help loads none of them.

PLAY_RULES = list(RULES)
"""What ``play --rule`` and ``tournament --rule`` take: every game of every family."""

_PLAY_FLAGS = {
    "rule": "--rule",
    "players": "--players",
    "seed": "--seed",
    "variant": "--variant",
    "deals": "--deals",
    "max_placements": "--max-placements",
    "parallel_only": "--parallel-only",
    "second_parallel": "--no-second-parallel",
    "player_kinds": "--player",
}
"""The game's option names (as :class:`magdomino.games.core.Game` reports them) and their flags."""

_OUTPUTS = {"json", "gif", "mp4", "seats"}
_FLAT_TOWER = _OUTPUTS | {"hints", "players", "seed", "player", "physics", "preset", "no_magnets", "variant", "kids", "deals",
                          "max_placements", "plot", "magnets_scale", "preset_set"}
_PLAY_OPTIONS = {
    "vingt": _OUTPUTS | {"players", "seed", "player", "target", "png"},
    "matador": _OUTPUTS | {"players", "seed", "player", "set", "variant", "deals", "target", "png"},
    "echanges": _OUTPUTS | {"players", "seed", "player", "set", "variant", "deals", "target", "png"},
    "traditional": _FLAT_TOWER - {"hints"},  # its tiles lie flat: no risk to show
    "defi": _FLAT_TOWER | {"parallel_only", "second_parallel", "perpendicular"},
    "quinconce": _FLAT_TOWER | {"parallel_only", "second_parallel", "perpendicular"},
}
"""The options each rule's game reads (``play``'s argument names); any other one given is
refused, never ignored. A game not listed reads :data:`_EVERY_GAME`'s. A saved record (``--record``) is only redrawn: :data:`_REDRAW`; a
saved game (``--resume``) takes only :data:`_RESUME`."""
_EVERY_GAME = _OUTPUTS | {"players", "seed", "player"}
"""The options every game reads (the seats, the seed, the JSON record and films)."""
_REDRAW = {"png", "gif", "mp4"}
_RESUME = {"json", "hints"}
_FLAG_OF_OPTION = {"second_parallel": "--no-second-parallel"}


def _flag(dest: str) -> str:
    return _FLAG_OF_OPTION.get(dest) or "--" + dest.replace("_", "-")


def _refuse_unread_options(args) -> None:
    """Every option given (not at its default) must be one the game reads: a flag that does
    nothing would leave the user believing it did."""
    given = [d for d, default in args.play_defaults.items() if d not in ("rule", "record", "resume") and getattr(args, d) != default]
    if args.resume is not None:
        for dest in given:
            if dest not in _RESUME:
                raise InputError("command line", _flag(dest),
                                 "not with --resume (the saved game has its own; --json and --hints go with it)")
        return
    if args.record is not None:
        redrawn = [rule for rule in RULES if not family_of(rule).builds]
        if args.rule not in redrawn:
            raise InputError("command line", "--record", f"only with --rule {', '.join(redrawn[:-1])} or {redrawn[-1]}")
        for dest in given:
            if dest not in _REDRAW:
                raise InputError("command line", _flag(dest), "not with --record (a saved record is redrawn: --png, --gif, --mp4)")
        if not given:
            raise InputError("command line", "--record", "expected an output to draw it to: --png FILE, --gif FILE.gif or --mp4 FILE.mp4")
        return
    for dest in given:
        if dest not in _PLAY_OPTIONS.get(args.rule, _EVERY_GAME):
            rules = [r for r, options in _PLAY_OPTIONS.items() if dest in options]
            raise InputError("command line", _flag(dest),
                             f"only with --rule {', '.join(rules[:-1])}{' or ' if len(rules) > 1 else ''}{rules[-1]} "
                             f"(not read by {args.rule})")


def _cmd_play_vingt(args) -> int:
    """``play --rule vingt``: 20 sur 20 (no physics); ``--record`` redraws a saved record."""
    from magdomino.faces.tables import vingt_figure
    check_outputs(args, "--json", "--png")
    if args.record is not None:
        try:
            data = json.loads(Path(args.record).read_text())
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(args.record, "", f"a JSON game record ({type(exc).__name__})") from None
        record = vingt.check_record(data, args.record)
    else:
        if args.players is None:
            raise InputError("command line", "--players", "expected 2, 3 or 4 (or --record FILE)")
        if args.target is not None:
            check_count(args.target, "--target", minimum=1, source="command line")
        record = vingt.play_vingt(args.players, args.seed, args.target, args.player)
        print(vingt.format_record(record))
        if args.json:
            write_json(args, record)
    if args.png:
        vingt_figure(record["final"], args.png, f"20 sur 20, {record['players']} players, seed {record['seed']}")
        print(f"wrote {args.png}")
    return _film(args, record)


def _cmd_play_chain(args) -> int:
    """``play --rule matador|echanges``: a chain game (no physics); ``--record`` redraws a saved record."""
    from magdomino.faces.tables import chain_figure
    check_outputs(args, "--json", "--png")
    if args.record is not None:
        try:
            data = json.loads(Path(args.record).read_text())
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(args.record, "", f"a JSON game record ({type(exc).__name__})") from None
        record = check_chain_record(data, args.record)
    else:
        if args.players is None:
            raise InputError("command line", "--players", "expected a number of players (or --record FILE)")
        options = {"set": args.set, "variant": args.variant, "deals": None if args.deals == 1 else args.deals, "target": args.target}
        record = play_chain(args.rule, args.players, args.seed, {k: v for k, v in options.items() if v is not None}, args.player)
        print(format_chain_record(record))
        if args.json:
            write_json(args, record)
    if args.png:
        chain_figure(record["final"], args.png, f"{record['rule']}, {record['players']} players, seed {record['seed']}")
        print(f"wrote {args.png}")
    return _film(args, record)


def _cmd_play(args) -> int:
    if args.resume is not None:
        _refuse_unread_options(args)
        return _cmd_play_resume(args)
    if args.rule is None:
        raise InputError("command line", "--rule", f"one of {', '.join(PLAY_RULES)} (or --resume FILE, a saved game)")
    _refuse_unread_options(args)
    seats = _seats(args)
    if args.hints and "human" not in (seats or ()):
        raise InputError("command line", "--hints", "only with a human seat (--seats human,... or --player human)")
    if seats is not None:
        args.player = seats
    check_film_outputs(gif=args.gif, mp4=args.mp4, summary=args.plot)  # before playing
    if seats is not None and "human" in seats:
        return _cmd_play_human(args, seats)
    kind = family_of(args.rule)
    if args.player is None and not kind.judged:
        args.player = "random"  # a judged game's default depends on the physics: play_game's
    if kind is VINGT:
        return _cmd_play_vingt(args)
    if kind is CHAIN:
        return _cmd_play_chain(args)
    if args.players is None:
        raise InputError("command line", "--players", "expected 2, 3 or 4")
    check_outputs(args, "--json")
    check_count(args.deals, "--deals", minimum=1, source="command line")
    if args.max_placements is not None:
        check_count(args.max_placements, "--max-placements", minimum=1, source="command line")
    check_seed(args.seed, "--seed", source="command line")
    if args.parallel_only and (args.perpendicular or not args.second_parallel):
        raise InputError("command line", "--parallel-only", "not with --no-second-parallel/--perpendicular (every tile parallel, or not)")
    physics, preset, max_placements = _tower_physics(args)
    try:
        record = play_game(
            args.rule,
            args.players,
            seed=args.seed,
            physics=physics,
            variant=args.variant,
            kids=args.kids,
            deals=args.deals,
            player_kinds=args.player,
            parallel_only=args.parallel_only,
            second_parallel=args.second_parallel and not args.perpendicular,
            max_placements=max_placements,
        )
    except InputError as exc:  # the game names its options; the user typed flags
        if exc.source == "command line" and exc.key in _PLAY_FLAGS:
            raise InputError("command line", _PLAY_FLAGS[exc.key], exc.expected) from None
        raise
    finally:
        if physics is not None:
            physics.close()
    print(format_record(record))
    if args.json:
        write_json(args, record_overrides(record, args, preset))
    return _film(args, record)


def _tower_physics(args) -> tuple:
    """``(adjudicator or None, preset or None, max_placements)`` of a tower game from the
    flags (the physics by default: :func:`magdomino.games.session.default_physics`)."""
    physics = None
    if args.physics is None:  # tower rules need the physics to judge collapses; flat games none
        args.physics = default_physics(args.rule)
    if args.physics == "none" and (args.preset is not None or args.no_magnets):
        raise InputError("command line", "--preset/--no-magnets",
                         "only with --physics dynamics or statics (without physics nothing is simulated)")
    refuse_without_physics(args, args.physics)
    preset = None
    if args.physics != "none":
        try:
            preset = load_preset(args.preset or DEFAULT_PRESET)
        except InputError as exc:  # not found: in the command line's words, never as a file
            if exc.key != "preset":
                raise
            raise InputError("command line", "--preset", exc.expected) from None
        preset = check_overrides(preset, preset_overrides(args))
        physics = game_engine(args.physics, source="command line", key="--physics").adjudicator(preset, magnets=not args.no_magnets)
    max_placements = args.max_placements
    if max_placements is None and physics is not None:
        max_placements = family_of(args.rule).guard
    return physics, preset, max_placements


def _seats(args) -> list | None:
    """Each seat's player from ``--seats`` or ``--player`` (None: the default); ``--players``
    from their count when not given."""
    if args.seats is not None and args.player is not None:
        raise InputError("command line", "--seats", "--seats or --player, not both (--player K: every seat K)")
    if args.seats is None:
        if args.player == "human":
            if args.players is None:
                raise InputError("command line", "--players", "expected the number of seats with --player human")
            return ["human"] * args.players
        return None
    seats = [s.strip() for s in args.seats.split(",")]
    if not all(seats):
        raise InputError("command line", "--seats", f"player kinds separated by commas, such as human,careful,careful; got {args.seats!r}")
    if args.players is not None and args.players != len(seats):
        raise InputError("command line", "--seats", f"one player kind per seat: {args.players} (--players), got {len(seats)}")
    make = players_of(args.rule)
    for i, kind in enumerate(seats):
        if kind == "human":
            continue
        try:
            make(kind, 0)
        except InputError as exc:
            raise InputError("command line", "--seats", f"seat {i}: {exc.expected}, or human") from None
    args.players = len(seats)
    return seats


def _game_options(args) -> dict:
    """The options of ``args.rule``'s game from the flags (for a game played seat by seat)."""
    kind = family_of(args.rule)
    if kind is VINGT:
        return {"target": args.target}
    if kind is CHAIN:
        options = {"set": args.set, "variant": args.variant, "deals": None if args.deals == 1 else args.deals, "target": args.target}
        return {k: v for k, v in options.items() if v is not None}
    return dict(variant=args.variant, kids=args.kids, deals=args.deals, parallel_only=args.parallel_only,
                second_parallel=args.second_parallel and not args.perpendicular)


def _cmd_play_human(args, seats: list) -> int:
    """``play`` with human seats: the game at the terminal (faces/terminal.py)."""
    from magdomino.faces.terminal import play_at_terminal
    if args.json == "-":
        raise InputError("command line", "--json", "a file with a human seat (the terminal shows the game)")
    check_outputs(args, "--json")
    check_seed(args.seed, "--seed", source="command line")
    options = _game_options(args)
    physics = preset = assessor = None
    if family_of(args.rule).judged:
        physics, preset, options["max_placements"] = _tower_physics(args)
        if args.hints:
            from magdomino.physics.statics_adjudicator import StaticsAdjudicator  # on use: the statics (~0.1 s)

            assessor = StaticsAdjudicator(preset or load_preset(DEFAULT_PRESET), magnets=not args.no_magnets)
    try:
        session = GameSession(args.rule, seats, seed=args.seed, physics=physics, **options)
        record = play_at_terminal(session, assessor=assessor, save_to=args.json)
    except InputError as exc:
        if exc.source == "arguments" and exc.key in ("seats", "player_kinds"):
            raise InputError("command line", "--seats", exc.expected) from None
        raise
    finally:
        if physics is not None:
            physics.close()
    return _finish_human(args, session, record, preset)


def _cmd_play_resume(args) -> int:
    """``play --resume FILE``: a game saved at the terminal, played on from where it stopped."""
    from magdomino.faces.api_game import resume
    from magdomino.faces.terminal import play_at_terminal, saved_hints

    if args.json == "-":
        raise InputError("command line", "--json", "a file with a human seat (the terminal shows the game)")
    session = resume(args.resume)
    args.json = args.json or args.resume  # the game goes on in its file
    if args.rule is not None and session.rule != args.rule:
        session.close()
        raise InputError(args.resume, "rule", f"the game of --rule {args.rule}, got {session.rule!r}")
    hints = args.hints or saved_hints(json.loads(Path(args.resume).read_text()))  # read by resume already: it is a record
    assessor = None
    if hints and session.rule in session.family.judged_by_default:
        from magdomino.physics.statics_adjudicator import StaticsAdjudicator  # on use: the statics (~0.1 s)

        assessor = StaticsAdjudicator(session.preset, magnets=session.magnets)
    try:
        record = play_at_terminal(session, assessor=assessor, save_to=args.json)
    finally:
        session.close()
    return _finish_human(args, session, record, None)


def _finish_human(args, session, record: dict, preset) -> int:
    """A human game's end: its JSON and films when it is over (a quit game is saved already)."""
    if not session.over:
        return 0
    if args.json:
        write_json(args, record_overrides(record, args, preset) if preset is not None else record)
    if getattr(args, "gif", None) or getattr(args, "mp4", None) or getattr(args, "plot", None) or getattr(args, "png", None):
        return _film_human(args, record)
    return 0


def _film_human(args, record) -> int:
    if getattr(args, "png", None):
        from magdomino.faces.tables import chain_figure, vingt_figure

        title = f"{record['rule']}, {record['players']} players, seed {record['seed']}"
        (vingt_figure if family_of(record["rule"]) is VINGT else chain_figure)(record["final"], args.png, title)
        print(f"wrote {args.png}")
    return _film(args, record)


def _physics_choices() -> list:
    """Every name ``--physics`` takes (``pybullet``, the dynamics' deprecated spelling, included)."""
    return list(physics_names())


def _physics_metavar() -> str:
    """``--physics``'s choices as the help shows them: one name per engine."""
    return "{" + ",".join(physics_names(deprecated=False)) + "}"


def _film(args, record) -> int:
    """``--gif``/``--mp4``/``--plot``: the game just played (or redrawn), replayed (faces/cli_replay.py)."""
    if args.plot:
        print(f"wrote {game_summary_figure(record, args.plot)}")
    return film(record, [args.gif, args.mp4])


def add_play(sub) -> None:
    p = sub.add_parser("play", help="play a whole game of one rule, adjudicated by physics or not")
    p.add_argument("--rule", choices=PLAY_RULES, help="the game (required unless --resume: a saved game has its rule)")
    p.add_argument("--players", type=int, help="2 to 4 (matador with --set 7-9: 2 to 6; echanges: 3 to 6; required unless --record)")
    p.add_argument("--target", type=int, metavar="T", help="vingt, matador: play deals until someone scores T points (e.g. 150)")
    p.add_argument("--set", type=int, metavar="N", help="matador: the double-N set, N = 6, 7, 8 or 9 (default 6)")
    p.add_argument("--png", metavar="FILE", help="vingt, matador, echanges: draw the final table")
    p.add_argument("--record", metavar="FILE", help="vingt, matador, echanges: draw a saved record (--png) instead of playing")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--physics", choices=_physics_choices(), default=None, metavar=_physics_metavar(),
                   help="who decides collapses (default: dynamics, PyBullet's world, for defi and quinconce, none for traditional; "
                        "statics: the statics at the nominal grid poses, no simulation; pybullet: dynamics's old name)")
    p.add_argument("--preset", help=f"physical preset for --physics dynamics or statics ({PRESET_DEFAULT_HELP})")
    p.add_argument("--no-magnets", action="store_true", help="switch the magnets off")
    p.add_argument("--variant", choices=["extremities", "strategic"],
                   help="extremities: Défi magnétique on extremities only; strategic: Le Matador's strategic variant")
    p.add_argument("--parallel-only", action="store_true",
                   help="defi, quinconce: every tower placement parallel to the tile below (default: only the second tile)")
    p.add_argument("--no-second-parallel", dest="second_parallel", action="store_false",
                   help="defi, quinconce: the second tile too may lie perpendicular (the leaflet's tip off)")
    p.add_argument("--perpendicular", action="store_true",
                   help="the same as --no-second-parallel (perpendicular tower placements everywhere; kept for old scripts)")
    p.add_argument("--kids", action="store_true", help="count tiles instead of pips")
    p.add_argument("--deals", type=int, default=1, help="a match of N deals")
    p.add_argument(
        "--max-placements",
        type=int,
        default=None,
        metavar="N",
        help="runaway guard: a deal with N placements ends abandoned, not scored (default: 300 with physics, no limit without)",
    )
    p.add_argument("--player", default=None, choices=["random", "greedy", "careful", "bold", "lookahead", "planner", "ismcts", "human"],
                   help="every seat's player (default: careful for defi and quinconce with physics, random otherwise; "
                        "human: you, at the terminal; "
                        "careful: the safest placement by the physics' risk; bold: the heaviest under a risk of 0.3; "
                        "lookahead: vingt; planner: echanges)")
    p.add_argument("--seats", metavar="K1,K2,...",
                   help="one player per seat, comma-separated, e.g. human,careful,careful (human: you, at the terminal; "
                        "the count is the number of players)")
    p.add_argument("--hints", action="store_true",
                   help="defi, quinconce: show the statics' risk and its class (safe, tight, unsure, falls) beside each "
                        "of a human seat's moves the physics can judge (on top of a tile, or slid beneath one)")
    p.add_argument("--resume", metavar="FILE", help="go on with a game saved at the terminal (quit, or the end of the input, saves it)")
    p.add_argument("--json", metavar="OUT", help="write the game record as JSON ('-' for stdout); a human seat's quit saves it there")
    p.add_argument("--gif", metavar="FILE.gif", help="the whole game replayed into a GIF (as magdomino replay)")
    p.add_argument("--mp4", metavar="FILE.mp4", help="the whole game replayed into an MP4 (needs magdomino[video])")
    p.add_argument("--plot", metavar="FILE.png", help="traditional, defi, quinconce: tower height and hands per placement")
    add_preset_overrides(p, "the --preset")
    options = set().union(*_PLAY_OPTIONS.values(), _REDRAW, {"rule", "record", "resume"})
    p.set_defaults(func=_cmd_play, play_defaults={d: p.get_default(d) for d in sorted(options)})


def _cmd_tournament(args) -> int:
    """``tournament``: many deals of one rule between player kinds, seats rotated (games/tournament.py)."""
    from magdomino.faces.tournament_view import format_tournament, tournament_figure
    check_outputs(args, "--json", "--plot")
    if args.plot is not None and not args.plot.lower().endswith(".png"):
        raise InputError("command line", "--plot", f"a .png file name, got {args.plot!r}")
    if args.resume and args.out_dir is None:
        raise InputError("command line", "--resume", "expected --out-dir with it (the directory of the run to resume)")
    if args.physics is None:  # as play: the tower rules need the physics to judge collapses
        args.physics = default_physics(args.rule)
    if not family_of(args.rule).judged and args.physics != "none":
        raise InputError("command line", "--physics", f"only with {judged_rules()}")
    if args.physics == "none" and (args.preset is not None or args.no_magnets):
        raise InputError("command line", "--preset/--no-magnets", "only with --physics dynamics or statics")
    refuse_without_physics(args, args.physics)
    overrides = preset_overrides(args)
    if overrides:  # checked before any deal, in the flags' words
        check_overrides(load_preset(args.preset or DEFAULT_PRESET), overrides)
    doc = run_tournament(
        args.rule, [s for s in args.seats.split(",")], args.deals, seed=args.seed, physics=args.physics,
        preset=args.preset, magnets=not args.no_magnets, max_placements=args.max_placements, jobs=args.jobs,
        scheduler=args.scheduler, out_dir=args.out_dir, resume=args.resume, progress=sys.stderr.isatty(),
        preset_overrides=overrides or None,
    )
    print(format_tournament(doc))
    if args.json:
        write_json(args, doc)
    if args.plot:
        print(f"wrote {tournament_figure(doc, args.plot)}")
    return 0


def add_deal_run_flags(p, log: str) -> None:
    """Where many deals run and how they resume (``tournament``, ``study``): ``--jobs`` or
    ``--scheduler``, ``--out-dir`` (the deal log ``log``), ``--resume``."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="a dask.distributed scheduler (or 'local')")
    p.add_argument("--out-dir", metavar="DIR", help=f"keep a deal log there ({log}), written as deals finish, for --resume")
    p.add_argument("--resume", action="store_true", help="continue the interrupted run stored in --out-dir")


def add_tournament(sub) -> None:
    p = sub.add_parser("tournament", help="many deals of one rule between player kinds, seats rotated; win shares with 95 %% intervals")
    p.add_argument("--rule", required=True, choices=PLAY_RULES)
    p.add_argument("--seats", required=True, metavar="K1,K2,...",
                   help="one player kind per seat, comma-separated (e.g. careful,bold,random,greedy); the count is the number of players")
    p.add_argument("--deals", type=int, required=True, help="deals to play (a multiple of the seat count balances the seats)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--physics", choices=_physics_choices(), default=None, metavar=_physics_metavar(),
                   help="who decides collapses (default: dynamics, PyBullet's world, for defi and quinconce, none otherwise; "
                        "pybullet: dynamics's old name)")
    p.add_argument("--preset", help=f"physical preset with --physics ({PRESET_DEFAULT_HELP})")
    p.add_argument("--no-magnets", action="store_true", help="switch the magnets off")
    p.add_argument("--max-placements", type=int, default=None, metavar="N",
                   help="runaway guard: a deal with N placements ends abandoned, not scored (default: 300 with physics)")
    add_deal_run_flags(p, "tournament.jsonl")
    p.add_argument("--json", metavar="OUT", help="write the tournament document as JSON ('-' for stdout)")
    p.add_argument("--plot", metavar="FILE.png", help="win share per kind with 95 %% intervals; collapses and placements per deal")
    add_preset_overrides(p, "the --preset")
    p.set_defaults(func=_cmd_tournament)
