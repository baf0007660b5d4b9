"""``magdomino report``: one self-contained HTML page from the JSON documents the tool writes.

Plain HTML and inline CSS, no JavaScript and nothing fetched: every picture is embedded as a
``data:`` URI, so the page opens offline and can be mailed as one file. With ``view3d`` (the
command's ``--view3d``), the simulate section also holds interactive 3D views
(:mod:`magdomino.faces.view3d`), and plotly.js (about 4.8 MB) is embedded once, in the page's
head: the page still opens offline, as one file. Each input file gets
its heading, its tables and its pictures, drawn by the figure functions the commands use
(:mod:`magdomino.faces.plots`, :mod:`magdomino.faces.tables`, :mod:`magdomino.faces.render`).

Renders of what-ifs need the scenario file: the one the run read (``scenario_file``) first,
then ``<name>.toml`` (the document's ``name``) in the given scenario folders, beside the JSON
file, in the working folder and in its ``scenarios/`` (:func:`find_scenario`). When none is
found, or none runs the document's preset, the page says which and why.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import tempfile
from pathlib import Path

import numpy as np

from magdomino.errors import InputError
from magdomino.faces.design_study_view import point_label, study_figure, study_table
from magdomino.faces.plots import construction_figure, odds_figure, sweep_figure, tile_as_ranked, whatif_figure
from magdomino.faces.render import render_gif, render_png
from magdomino.faces.replay import replay_gif
from magdomino.faces.tables import chain_figure, vingt_figure
from magdomino.faces.tournament_view import tournament_figure
from magdomino.faces.view3d import construction_figure3d, figure_html, outcome_figure3d, what_if_motion
from magdomino.games.family import VINGT, family_of
from magdomino.maths.geometry import GridPose, physical_pose
from magdomino.maths.poses import yaw_quaternion
from magdomino.model.presets import load_preset, with_overrides
from magdomino.studies.engines import check_structure_settled
from magdomino.studies.scenario import Placement, load_scenario, with_preset
from magdomino.studies.simulation import settle_structure
from magdomino.version import __version__
from magdomino.wording import as_words, counted, on_off, probability

_CSS = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; background: #fff; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
th, td { border: 1px solid #bbb; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eee; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.facts { color: #555; font-size: .9em; } .note { color: #8a5300; font-style: italic; }
figure { display: inline-block; margin: .5em 1em .5em 0; } figcaption { font-size: .85em; color: #555; }
img { max-width: 100%; border: 1px solid #ddd; }
pre { background: #f6f6f6; padding: .6em; font-size: .8em; max-height: 30em; overflow: auto; }
.view3d { width: 100%; margin: .5em 0 1em; border: 1px solid #ddd; } .view3d p { font-size: .85em; color: #555; margin: .2em .5em; }
"""


# -- small HTML pieces --------------------------------------------------------------------


def _e(value) -> str:
    return html.escape("" if value is None else str(value))


def _num(value, digits: int = 3) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _e("—" if value is None else value)
    return f"{value:.{digits}g}" if isinstance(value, float) else str(value)


def _p(value) -> str:
    """A probability (a share) with three decimals, as every face prints one; ``—`` when not known."""
    return ("—" if value is None
            else _e(probability(value)) if isinstance(value, (int, float)) and not isinstance(value, bool)
            else _num(value))


def _ci(ci) -> str:
    return "—" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def table(header: list[str], rows: list[list], numeric: set[int] = frozenset(), css: str = "") -> str:
    """An HTML table; cells are escaped; columns in ``numeric`` are right-aligned."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{_e(c)}</td>' if j in numeric else f"<td>{_e(c)}</td>" for j, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


_MIME = {".png": "image/png", ".gif": "image/gif"}


def figure(draw, caption: str, suffix: str = ".png") -> str:
    """Run ``draw(path)`` into a temporary file and embed what it wrote; a drawing refused
    for bad input (InputError) becomes a note on the page instead."""
    with tempfile.TemporaryDirectory(prefix="magdomino-report-") as tmp:
        path = Path(tmp) / f"picture{suffix}"
        try:
            draw(path)
        except InputError as exc:
            return f'<p class="note">{_e(caption)}: not drawn ({_e(exc)})</p>'
        data = path.read_bytes()
    return (f'<figure><img src="{data_uri(data, _MIME[suffix])}" alt="{_e(caption)}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _facts(doc: dict, keys=("name", "rule", "version", "seed", "preset", "preset_overrides", "magnets", "engine", "tile_size_mm")) -> str:
    shown = {**doc, "magnets": on_off(doc["magnets"])} if isinstance(doc.get("magnets"), bool) else doc
    items = [f"{k} <b>{_e(as_words(shown[k]))}</b>" for k in keys if shown.get(k) not in (None, {})]
    return f'<p class="facts">{", ".join(items)}</p>'


# -- scenarios and renders ----------------------------------------------------------------


def find_scenario(doc: dict, source: Path, scenario_dirs) -> tuple[object | None, str]:
    """The scenario a document was run on, and a sentence for the page about where it was
    found (or why no file found fits).

    The file the run read (``scenario_file``, its absolute path) is tried first, then the
    same file name beside the JSON, then ``NAME.toml`` (the document's ``name``) in
    ``scenario_dirs``, beside the JSON, in the working folder and its ``scenarios/``. A file
    fits when its preset, with the run's ``--preset`` (``preset_file``) and overrides
    (``preset_overrides``) applied, is the document's; the first that fits is used.
    """
    name = doc.get("name")
    recorded = doc.get("scenario_file")
    candidates = []
    if isinstance(recorded, str) and recorded:
        candidates += [Path(recorded), source.parent / Path(recorded).name]
    if name:
        candidates += [Path(folder) / f"{name}.toml" for folder in [*scenario_dirs, source.parent, Path.cwd(), Path.cwd() / "scenarios"]]
    if not candidates:
        return None, "the document names no scenario: no renders"
    looked, misfits = [], []
    for path in candidates:
        if str(path) in looked:
            continue
        looked.append(str(path))
        if not path.is_file():
            continue
        scenario, why = _scenario_as_run(path, doc, source, by_path=str(path) == recorded)
        if scenario is not None:
            return scenario, why
        misfits.append(why)
    if misfits:
        return None, "no scenario file fits the run: " + "; ".join(misfits) + " (give --scenarios DIR): no renders"
    return None, (f"scenario file {Path(recorded).name if recorded else f'{name}.toml'} not found "
                  f"(looked in {', '.join(looked)}; give --scenarios DIR): no renders")


def _scenario_as_run(path: Path, doc: dict, source: Path, by_path: bool) -> tuple[object | None, str]:
    """The scenario file ``path`` with the run's preset (``preset_file``, then
    ``preset_overrides``) and a sentence saying so; ``(None, why it does not fit)``."""
    try:
        scenario = load_scenario(path)
    except InputError as exc:
        return None, f"{path} cannot be read ({exc})"
    if not by_path and doc.get("name") and scenario.name != doc["name"]:
        return None, f"{path} is the scenario {scenario.name!r}, the run's is {doc['name']!r}"
    how = []
    chosen = doc.get("preset_file")
    if chosen:
        try:
            scenario = with_preset(scenario, load_preset(chosen, relative_to=source.parent))
        except InputError as exc:
            return None, f"the run's preset {chosen} cannot be read ({exc})"
        how.append(f"the run's preset {chosen}")
    overrides = doc.get("preset_overrides")
    if overrides:  # the run's preset (--magnets-scale, --preset-set): the renders use it too
        try:
            scenario = with_preset(scenario, with_overrides(scenario.preset, dict(overrides), str(source)))
        except (InputError, TypeError, ValueError) as exc:
            return None, f"the document's preset_overrides do not apply to {path} ({exc})"
        how.append("preset with " + ", ".join(f"{k} = {v}" for k, v in overrides.items()))
    if doc.get("preset") and scenario.preset.name != doc["preset"]:
        return None, f"{path} runs preset {scenario.preset.name!r}, the run's was {doc['preset']!r}"
    return scenario, f"renders from the scenario file {path}" + "".join(f", {h}" for h in how)


def view3d_figure(make, caption: str) -> str:
    """An interactive 3D view: ``make()`` returns a plotly figure, embedded without plotly.js
    (:func:`build_report` puts it once in the page's head); a figure refused (InputError,
    e.g. plotly missing) becomes a note on the page instead."""
    try:
        fragment = figure_html(make(), include_plotlyjs=False)
    except InputError as exc:
        return f'<p class="note">{_e(caption)}: not drawn ({_e(exc)})</p>'
    return f'<div class="view3d">{fragment}<p>{_e(caption)} (drag to turn, scroll to zoom, hover a tile for its pips)</p></div>'


def _renders(scenario, placements, labels, animate: bool, limit: int, view3d: bool = False) -> str:
    """The settled structure, then each placement's end (or its animation), rendered; with
    ``view3d``, each followed by its interactive 3D view (each what-if is run once more)."""
    try:
        verdict, settled = settle_structure(scenario)
        check_structure_settled(scenario, verdict, before="a what-if is shown")
    except InputError as exc:
        return f'<p class="note">no renders: {_e(exc)}</p>'
    parts = [figure(lambda p: render_png(scenario, p, 480, 360, settled=settled), "the settled structure")]
    before = ([pl.pips for pl in scenario.structure], *settled)
    if view3d:
        parts.append(view3d_figure(lambda: construction_figure3d(*before[1:], before[0], scenario.preset,
                                                                 title=f"{scenario.name}: the settled structure"),
                                   "the settled structure, in 3D"))
    if not placements:
        return "".join(parts)
    sc = dataclasses.replace(scenario, what_if=tuple(placements[:limit]))
    for i, label in enumerate(labels[:limit]):
        if animate:
            parts.append(figure(lambda p, i=i: render_gif(sc, p, i, settled, width=360, height=270, tail_s=0.5),
                                f"{label}: the drop", ".gif"))
        else:
            parts.append(figure(lambda p, i=i: render_png(sc, p, 360, 270, settled=settled, what_if=i), f"{label}: where it came to rest"))
        if view3d:
            parts.append(view3d_figure(lambda i=i, label=label: outcome_figure3d(before, what_if_motion(sc, i, settled)[0], scenario.preset,
                                                                                 title=label),
                                       f"{label}: where it came to rest, in 3D (faint: where the tiles that moved were)"))
    if len(placements) > limit:
        parts.append(f'<p class="note">{len(placements) - limit} more not rendered (--max-renders {limit})</p>')
    return "".join(parts)


def _scenario_renders(doc, source, options, placements=None, labels=None, indices=None, view3d: bool = False) -> str:
    """Renders of a document's scenario: the given ``placements`` (labelled), or the
    scenario's own what-ifs numbered ``indices`` (labelled ``labels``); with ``view3d``, and
    their 3D views."""
    if not options.get("renders", True):
        return '<p class="facts">renders left out (--no-renders)</p>'
    scenario, where = find_scenario(doc, source, options.get("scenario_dirs", ()))
    if scenario is None:
        return f'<p class="note">{_e(where)}</p>'
    out = f'<p class="facts">{_e(where)}</p>'
    if placements is None:
        indices = list(range(len(scenario.what_if))) if indices is None else indices
        if any(not isinstance(i, int) or not 0 <= i < len(scenario.what_if) for i in indices):
            return out + (f'<p class="note">the scenario file has {counted(len(scenario.what_if), "what-if")}, '
                          f"the document names {_e(indices)}: no renders</p>")
        placements = [scenario.what_if[i] for i in indices]
        labels = [f"what-if {i}: {label}" for i, label in zip(indices, labels or [""] * len(indices))]
    return out + _renders(scenario, placements, labels, options.get("animate", False), options.get("max_renders", 12), view3d)


# -- one section per kind -----------------------------------------------------------------


def _verdict_word(v: dict) -> str:
    if v.get("error"):
        return "error"
    if v.get("collapsed") is None:
        return v.get("reason") or "not tried"
    return "collapsed" if v["collapsed"] else "stands"


def section_simulate(doc: dict, source: Path, options: dict) -> str:
    rows = [["structure", f"{doc['structure'].get('tiles', '?')} tiles"] + _verdict_cells(doc["structure"])]
    rows += [[f"what-if {i}", w.get("placement")] + _verdict_cells(w) for i, w in enumerate(doc["what_if"])]
    out = "<h3>Verdicts</h3>" + table(["", "placement", "verdict", "reason", "margin", "wall time (s)"], rows, {4, 5})
    labels = [w.get("placement") or "" for w in doc["what_if"]]
    return out + "<h3>Renders</h3>" + _scenario_renders(doc, source, options, labels=labels, view3d=options.get("view3d", False))


def _verdict_cells(v: dict) -> list:
    margin = v.get("margin_deg", v.get("margin"))  # "margin" (+ "margin_unit"): documents of 0.1 before the common verdict
    return [_verdict_word(v), v.get("reason") or v.get("error") or "", "" if margin is None else f"{_num(margin)} deg",
            _num(v.get("wall_time_s"))]


def _odds_rows(results: list, prefix: list | None = None) -> list[list]:
    rows = []
    for r in results:
        label = "structure" if r.get("what_if") is None else f"what-if {r['what_if']}"
        rows.append((prefix or []) + [label, r.get("placement", ""), r["trials"], r.get("collapses", ""), r.get("errors", 0),
                                      _p(r.get("p_collapse")), _ci(r["ci95"])])
    return rows


_ODDS_HEADER = ["", "placement", "trials", "collapses", "errors", "p(collapse)", "95 % interval"]


def section_odds(doc: dict, source: Path, options: dict) -> str:
    out = "<h3>Odds of collapse</h3>" + table(_ODDS_HEADER, _odds_rows(doc["results"]), {2, 3, 4, 5})
    out += _noise_line(doc["noise"]) + figure(lambda p: odds_figure(doc, p), "p(collapse) with its 95 % interval")
    tried = [r for r in doc["results"] if r.get("what_if") is not None]
    return out + "<h3>Renders</h3>" + _scenario_renders(doc, source, options, labels=[r.get("placement", "") for r in tried],
                                                        indices=[r["what_if"] for r in tried])


def _noise_line(noise: dict) -> str:
    return '<p class="facts">noise: ' + ", ".join(f"{_e(k)} {_e(v)}" for k, v in noise.items()) + "</p>"


def section_sweep(doc: dict, source: Path, options: dict) -> str:
    rows = []
    for entry in doc["results"]:
        rows += _odds_rows(entry["results"], [entry.get("value")])
    out = f"<h3>Sweep of {_e(doc['param'])}</h3>" + table([doc["param"]] + _ODDS_HEADER, rows, {0, 3, 4, 5, 6})
    out += _noise_line(doc["noise"]) + figure(lambda p: sweep_figure(doc, p), f"p(collapse) against {doc['param']}")
    tried = [r for r in doc["results"][0]["results"] if r.get("what_if") is not None]
    return out + "<h3>Renders</h3>" + _scenario_renders(doc, source, options, labels=[r.get("placement", "") for r in tried],
                                                        indices=[r["what_if"] for r in tried])


def section_whatif(doc: dict, source: Path, options: dict) -> str:
    rows, placements, labels = [], [], []
    for k, c in enumerate(doc["candidates"]):
        s = c.get("statics") or {}
        margin = "" if s.get("margin") is None else f"{s['margin']:+.1f}°"
        median = c.get("median_shift_mm")
        rows.append([k + 1, c["placement"]["description"], c.get("trials", ""), c.get("collapses", ""),
                     _p(c.get("p_collapse")), _ci(c.get("ci95")), _p(c.get("shift_share")), _ci(c.get("shift_ci95")),
                     "—" if median is None else f"{_num(median)} mm", margin])
        pl = c["placement"]
        pos, slide = pl["pos_mm"], pl.get("slide_from_mm")  # checked by report_input
        placements.append(Placement(tuple(doc["tile"]), pos_mm=(float(pos[0]), float(pos[1])), yaw_deg=float(pl["yaw_deg"]),
                                    slide_mm=None if slide is None else (float(slide[0]), float(slide[1]))))
        labels.append(f"{k + 1}. {pl['description']}")
    out = f"<h3>Where to put {tile_as_ranked(doc)}: the ranking, safest first</h3>"
    out += table(["rank", "placement", "trials", "collapses", "p(collapse)", "95 % interval", "shift share", "shift 95 % interval",
                  "median shift", "statics margin"], rows, {0, 2, 3, 4, 6, 8})
    out += ('<p class="facts">shift share: the trials in which a tile was pushed more than max_shift_mm without '
            "falling (not a collapse); median shift: the median of each trial's largest shift; "
            "among equal p(collapse), fewer shifts rank first</p>")
    out += _noise_line(doc["noise"]) + figure(lambda p: whatif_figure(doc, p), "the ranking with its 95 % intervals")
    return out + "<h3>Renders</h3>" + _scenario_renders(doc, source, options, placements, labels)


def section_play(doc: dict, source: Path, options: dict) -> str:
    kinds = doc.get("player_kinds") or []
    rows = [[s, kinds[s] if s < len(kinds) else "", doc["scores"][s], "yes" if s in doc["winners"] else ""]
            for s in range(len(doc["scores"]))]
    out = "<h3>Game summary</h3>" + table(["seat", "player", "score", "winner"], rows, {0, 2})
    deals = doc.get("deals") or doc.get("rounds") or []
    if deals and all(isinstance(d, dict) for d in deals):
        keys = [k for k in deals[0] if k not in ("deal", "round")]
        out += table(["deal"] + keys, [[i + 1] + [d.get(k) for k in keys] for i, d in enumerate(deals)], {0})
    out += _replay(doc, source, options)
    return out + f"<details><summary>every move ({len(doc['events'])} events)</summary><pre>{_e(_account(doc))}</pre></details>"


def _account(doc: dict) -> str:
    """The game told move by move, as ``play`` prints it."""
    try:
        return family_of(doc["rule"]).format_record(doc)
    except (KeyError, TypeError, IndexError, ValueError) as exc:  # an event we cannot tell: say so, keep the page
        return f"(the moves cannot be told: {type(exc).__name__} {exc})"


def _replay(doc: dict, source: Path, options: dict) -> str:
    """The game's replay (faces.replay, when present), else its final table drawn."""
    title = f"{doc['rule']}, {doc.get('players', len(doc['scores']))} players, seed {doc.get('seed')}"
    if options.get("replays", True):
        made = []
        try:
            html_ = figure(lambda p: made.append(replay_gif(doc, p, width=400, height=300, source=str(source))),
                           f"{title}: the game replayed", ".gif")
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            # A record that passed the checks but that the replay cannot follow: the page
            # still shows the game's end, and says why there is no replay.
            return (f'<h3>The end of the game</h3><p class="note">no replay: {_e(type(exc).__name__)} {_e(exc)}</p>'
                    + _final_picture(doc, title))
        for m in (made[0].mismatches if made else [])[:10]:
            html_ += f'<p class="note">replayed verdict differs from the record: {_e(m.get("message", m))}</p>'
        return "<h3>Replay</h3>" + html_
    return "<h3>The end of the game</h3>" + _final_picture(doc, title)


def _final_picture(doc: dict, title: str) -> str:
    kind = family_of(doc["rule"])
    if kind.builds:
        return _construction(doc, title)
    drawn = vingt_figure if kind is VINGT else chain_figure
    return figure(lambda p: drawn(doc["final"], p, title), f"{title}: the final table")


def _construction(doc: dict, title: str) -> str:
    """The final construction of a tower or traditional game, from its grid poses."""
    placed = doc["final"]["construction"]
    if not placed:
        return '<p class="note">the construction is empty at the end</p>'
    preset = load_preset(doc.get("preset") or "standard")
    size = np.asarray(doc.get("tile_size_mm") or np.asarray(preset.tile.size) * 1000, dtype=float) / 1000
    positions, quats = [], []
    for pl in placed:
        centre, yaw = physical_pose(GridPose(*pl["pose"]), size)
        positions.append(centre)
        quats.append(yaw_quaternion(yaw))
    pips = [tuple(pl["tile"]) for pl in placed]
    return figure(lambda p: construction_figure(np.array(positions), np.array(quats), pips, preset, p, title),
                  f"{title}: the construction at the end ({len(placed)} tiles, on the rules' grid)")


def section_tournament(doc: dict, source: Path, options: dict) -> str:
    rows = [[r["kind"], r["seats"], r["games"], _num(r["wins"]), _p(r["win_share"]), _ci_or_dash(r["ci"]),
             _num(r["mean_score"]), _ci_or_dash(r["score_ci"], "{:.2f}")] for r in doc["per_kind"]]
    sense = {"lower": " (lower is better)", "higher": " (higher is better)"}.get(doc.get("score_sense"), "")
    out = f"<h3>Tournament: {_e(doc['rule'])}, seats {_e(', '.join(doc['seats']))}, {doc['deals']} deals</h3>"
    out += table(["player kind", "seats", "games", "wins", "win share", "95 % interval", "mean score" + sense, "95 % interval"],
                 rows, {1, 2, 3, 4, 6})
    ended = doc["ended"]
    out += f'<p class="facts">deals ended naturally: {ended["natural"]}; abandoned (runaway guard, not scored): {ended["abandoned"]}</p>'
    out += figure(lambda p: tournament_figure(doc, p), "win share per player kind; placements and collapses per deal")
    deals = [[r["deal"], ", ".join(map(str, r["seating"])), ", ".join(map(str, r["winners"])) or "none",
              " ".join(_num(v) for v in r["scores"]), r.get("reason", ""), r["ended"], r["collapses"], r["placements"]]
             for r in doc["per_deal"]]
    return out + (f"<details><summary>every deal ({len(deals)})</summary>"
                  + table(["deal", "seating", "winners", "scores", "reason", "ended", "collapses", "placements"], deals, {0, 6, 7})
                  + "</details>")


def section_study(doc: dict, source, options: dict) -> str:
    """The report page's section of a study: the settings, the table, the figure, every point's deals."""
    header, rows = study_table(doc)
    over = doc.get("preset_overrides") or {}
    out = (f"<h3>Study: {_e(doc['rule'])}, seats {_e(', '.join(doc['seats']))}, {doc['deals']} deals per point, "
           f"varying {_e(', '.join(doc['params']))}</h3>")
    if over:
        out += f'<p class="facts">every point also with {_e(point_label(over))}</p>'
    out += table(header, rows, set(range(len(doc["params"]), len(header))))
    intervals = doc.get("intervals", {})
    out += (f'<p class="facts">95 % intervals: shares: {_e(intervals.get("share"))}; means: {_e(intervals.get("mean"))}. '
            f'{_e(doc.get("common_deals", ""))}. Win shares over the naturally ended deals.</p>')
    out += figure(lambda p: study_figure(doc, p), "each metric against the parameter, 95 % intervals as bands")
    for point in doc["points"]:
        deals = [[r["deal"], ", ".join(map(str, r["seating"])), ", ".join(map(str, r["winners"])) or "none", r["ended"],
                  r["placements"], r["rounds"], r["collapses"], r["height"]] for r in point["per_deal"]]
        out += (f"<details><summary>{_e(point_label(point['values']))}: every deal ({len(deals)})</summary>"
                + table(["deal", "seating", "winners", "ended", "placements", "rounds", "collapses", "height"], deals, {0, 4, 5, 6, 7})
                + "</details>")
    return out


def _ci_or_dash(ci, fmt: str = "{:.3f}") -> str:
    if ci is None or any(v is None for v in ci):
        return "—"
    return f"[{fmt.format(ci[0])}, {fmt.format(ci[1])}]"


SECTIONS = {
    "simulate": section_simulate,
    "odds": section_odds,
    "sweep": section_sweep,
    "whatif": section_whatif,
    "play": section_play,
    "tournament": section_tournament,
    "study": section_study,
}


def build_report(results: list[tuple[str, str, dict]], out, **options) -> Path:
    """Write the page for checked documents (see :func:`~magdomino.faces.report_input.read_result`).

    Parameters
    ----------
    results : list of (path, kind, document)
    out : str or Path
        The HTML file to write.
    options : scenario_dirs (list of folders), animate (GIFs of the what-ifs instead of
        their end), max_renders (per document), renders (False: none), replays (False: the
        end of each game instead of its replay GIF), view3d (the simulate section's
        renders each followed by an interactive 3D view; plotly.js, about 4.8 MB, embedded
        once in the page's head).
    """
    toc = "".join(f'<li><a href="#doc{i}">{_e(Path(p).name)}</a> ({_e(kind)})</li>' for i, (p, kind, _) in enumerate(results))
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>magdomino report</title>"
             f"<style>{_CSS}</style></head><body><h1>magdomino report</h1>"
             f'<p class="facts">{counted(len(results), "document")}, drawn by magdomino {_e(__version__)}</p><ul>{toc}</ul>']
    for i, (path, kind, doc) in enumerate(results):
        parts.append(f'<section id="doc{i}" class="kind-{kind}"><h2>{_e(Path(path).name)}: {_e(kind)}</h2>'
                     f'<p class="facts">{_e(path)}</p>{_facts(doc)}')
        parts.append(SECTIONS[kind](doc, Path(path), options))
        parts.append("</section>")
    parts.append("</body></html>\n")
    if any('class="plotly-graph-div"' in part for part in parts):
        from magdomino.faces.view3d import plotlyjs_script

        parts[0] = parts[0].replace("</head>", plotlyjs_script() + "</head>", 1)
    out = Path(out)
    try:
        out.write_text("".join(parts))
    except OSError as exc:
        raise InputError("command line", "--out", f"cannot write {out}: {exc.strerror}") from None
    return out
