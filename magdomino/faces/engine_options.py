"""The command line's side of the engines (``--engine``, ``whatif --screen``): the flag, which
engine runs ``simulate``, and the table line of any engine's verdict."""

from __future__ import annotations

from magdomino.errors import InputError
from magdomino.studies.risk_scale import risk_class


def add_engine(p, statics: str, study: bool = False) -> None:
    """Add ``--engine`` to the parser ``p``; ``statics`` says what the statics does there;
    ``study``: odds trials (default the hybrid), else one nominal run (default the dynamics)."""
    from magdomino.studies.engines import STUDY_ENGINE, engine_names

    default = STUDY_ENGINE if study else "dynamics"
    why = {"dynamics": "PyBullet", "hybrid": "the statics where it is sure, PyBullet elsewhere; dynamics: PyBullet for every trial"}
    p.add_argument("--engine", choices=engine_names(), default=default, help=f"who judges (default {default}: {why[default]}); {statics}")


def run_simulate(scenario, args):
    """``simulate`` by the engine asked for: (result, the words for the header)."""
    from magdomino.studies.engines import get_engine

    engine = get_engine(args.engine)
    if not engine.moves and (args.gui or args.gif or args.plot):
        raise InputError("command line", f"--engine {engine.name}", f"nothing moves in the {engine.name}: drop --gui, --gif and --plot")
    return engine.simulate(scenario, gui=args.gui, trace=bool(args.plot)), engine.header


def verdict_what(v) -> str:
    """The verdict column of a simulated row ("stood", "COLLAPSED (tilt, tile 3)" ...)."""
    if v.collapsed:
        return f"COLLAPSED ({v.reason}, tile {v.culprit})"
    if v.settled:
        return f"stood, SHIFTED (tile {v.shifted_tile})" if v.shifted else "stood"
    return f"undecided ({v.reason})"


def verdict_line(v, what_width: int = 28) -> str:
    """One table line of a verdict, whatever the engine: what it knows (None: not tried)."""
    if v is None:
        return "not tried (the structure did not stand or settle)"
    if v.error:
        return f"ERROR     {v.error}"
    if v.sim_time_s is None:  # judged at rest: a margin, no motion; its class on the one risk scale
        answer = "unsure" if v.unsure else "stands" if v.stands else "falls"
        what = answer.upper() if answer == "falls" else answer
        load = "" if v.load_factor is None else f"  load factor {v.load_factor:6.2f}"
        margin = "" if v.margin_deg is None else f" tilt margin {round(v.margin_deg, 1) + 0.0:+6.1f} deg"
        cls = risk_class(answer, v.margin_deg)
        return f"{what:<8}{margin}{load}  risk {cls:<6}  {v.contacts} contacts, {v.wall_time_s * 1000:5.1f} ms"
    return (
        f"{verdict_what(v):<{what_width}} max shift {v.max_shift_mm:6.2f} mm  tilt {v.max_tilt_deg:5.1f} deg  "
        f"{v.sim_time_s:5.2f} s simulated, {v.wall_time_s:5.2f} s wall"
    )


def screen_note(ranked, screen: int, band_deg: float) -> str:
    confirmed = sum(r.odds is not None for r in ranked)
    engine = next((r.engine for r in ranked if r.odds is not None), "dynamics")
    return (f"  screened by the statics: {confirmed} confirmed by the {engine} (the best {screen} by tilt margin and those "
            f"within {band_deg:g} deg of it), the rest ranked by margin")


def screened_row(k: int, description: str, where: str, verdict) -> str:
    """The row of a candidate the statics alone answered."""
    return f"  {k:2d}. {description}  statics: {'stands' if verdict.stands else 'FALLS'}, tilt margin {verdict.margin:+.1f} deg  {where}"


def margin_note(r) -> str:
    """The statics' margin after a confirmed candidate's odds ("" when not screened)."""
    if r.statics is None:
        return ""
    return "  statics: refused" if isinstance(r.statics, dict) else f"  margin {r.statics.margin:+.1f} deg"
