"""The command line's side of the two engines (``--engine statics|dynamics``, ``whatif --screen``):
the flag, which engine runs ``simulate``, and the table lines of the statics' answers."""

from __future__ import annotations

from magdomino.errors import InputError


def add_engine(p, statics: str) -> None:
    """Add ``--engine`` to the parser ``p``; ``statics`` says what the statics does there."""
    p.add_argument("--engine", choices=["statics", "dynamics"], default="dynamics",
                   help=f"who judges (default dynamics: PyBullet); {statics}")


def run_simulate(scenario, args):
    """``simulate`` by the engine asked for: (result, its line formatter or None for the
    dynamic verdict's, the words for the header)."""
    if args.engine == "statics":
        if args.gui or args.gif or args.plot:
            raise InputError("command line", "--engine statics", "nothing moves in the statics: drop --gui, --gif and --plot")
        from magdomino.studies.statics_engine import simulate_statics

        return simulate_statics(scenario), statics_line, "engine statics (nominal poses, what-ifs at rest)"
    from magdomino.studies.scenario import simulate

    return simulate(scenario, gui=args.gui, trace=bool(args.plot)), None, "engine dynamics"


def statics_line(v) -> str:
    """One table line of a :class:`~magdomino.physics.statics.StaticVerdict` (None: not tried)."""
    if v is None:
        return "not tried (the structure does not stand)"
    what = "stands" if v.stands else "FALLS"
    load = "" if v.load_factor is None else f"  load factor {v.load_factor:6.2f}"
    return f"{what:<8} tilt margin {round(v.margin, 1) + 0.0:+6.1f} deg{load}  {v.contacts} contacts, {v.wall_time_s * 1000:5.1f} ms"


def with_engine(document: dict, engine: str) -> dict:
    """``simulate``'s JSON with ``engine`` on the document, the structure and every what-if."""
    for part in [document, document["structure"], *document["what_if"]]:
        part.setdefault("engine", engine)
    return document


def screen_note(ranked, screen: int, band_deg: float) -> str:
    confirmed = sum(r.engine == "dynamics" for r in ranked)
    return (f"  screened by the statics: {confirmed} confirmed by the dynamics (the best {screen} by tilt margin and those "
            f"within {band_deg:g} deg of it), the rest ranked by margin")


def screened_row(k: int, description: str, where: str, verdict) -> str:
    """The row of a candidate the statics alone answered."""
    return f"  {k:2d}. {description}  statics: {'stands' if verdict.stands else 'FALLS'}, tilt margin {verdict.margin:+.1f} deg  {where}"


def margin_note(r) -> str:
    """The statics' margin after a confirmed candidate's odds ("" when not screened)."""
    if r.statics is None:
        return ""
    return "  statics: refused" if isinstance(r.statics, dict) else f"  margin {r.statics.margin:+.1f} deg"
