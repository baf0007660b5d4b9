"""Figures. matplotlib is imported only inside the functions that draw, so importing this
module (or :mod:`magdomino`) stays light; figures are made with the object-oriented API
(``matplotlib.figure.Figure``), never pyplot, so no global backend state is touched.

Every figure goes through :func:`new_figure` and :func:`save` so that they share one look;
add new figures below the shared helpers. Functions take the JSON documents the commands
write (``to_dict()``), so a figure can be drawn again from a saved file.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from scipy.spatial import ConvexHull

from magdomino.errors import ARGUMENTS, InputError
from magdomino.maths.geometry import footprints_overlap
from magdomino.maths.poses import box_corners, quaternion_matrices, quaternion_yaw, top_face_height
from magdomino.model.tiles import colour_of, colour_rgb, tile
from magdomino.wording import tile_text

STYLE = {
    "figsize": (6.4, 4.0),
    "dpi": 120,
    "font_size": 9,
    "colours": ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"],
    "band_alpha": 0.2,
}
"""The shared look: size, resolution, font size, colour cycle, alpha of interval bands."""


def new_figure(title: str | None = None, xlabel: str | None = None, ylabel: str | None = None, figsize=None):
    """A figure with one axes in the shared style; returns ``(figure, axes)``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize or STYLE["figsize"], dpi=STYLE["dpi"], layout="constrained")
    ax = fig.add_subplot()
    ax.set_prop_cycle(color=STYLE["colours"])
    ax.grid(True, alpha=0.3, linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=STYLE["font_size"])
    if title:
        ax.set_title(title, fontsize=STYLE["font_size"] + 1)
    if xlabel:
        ax.set_xlabel(xlabel, fontsize=STYLE["font_size"])
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=STYLE["font_size"])
    return fig, ax


def save(fig, path: str | Path, key: str = "plot", **savefig_kwargs) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix); InputError when it cannot.

    The figure is drawn in memory and then written: matplotlib's own file writing lets some
    failed writes pass unnoticed (a full disk), and a picture half written is no picture."""
    path = Path(path)
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format=path.suffix[1:].lower() or None, **savefig_kwargs)
        path.write_bytes(buffer.getvalue())
    except (OSError, ValueError) as exc:
        raise InputError(ARGUMENTS, key, f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
    return path


def _noise_text(noise: dict) -> str:
    drop = noise.get("drop_mm", [0, 0])
    return (
        f"hand: σ {noise.get('pos_sigma_mm', 0):g} mm, {noise.get('yaw_sigma_deg', 0):g}°, "
        f"drop {drop[0]:g}-{drop[1]:g} mm; spread: J {noise.get('polarization_rel_sigma', 0):.0%}, "
        f"friction {noise.get('friction_rel_sigma', 0):.0%}, mass {noise.get('mass_rel_sigma', 0):.0%}"
    )


def _label(result: dict) -> str:
    if result["what_if"] is None:
        return "structure"
    return f"what-if {result['what_if']}"


def odds_figure(document: dict, path: str | Path) -> Path:
    """p(collapse) with its 95 % interval for every what-if of an ``odds`` document."""
    results = document["results"]
    fig, ax = new_figure(
        title=f"{document.get('name', '')}: odds of collapse (preset {document['preset']})",
        ylabel="p(collapse), 95 % interval",
        figsize=(max(4.0, 1.2 * len(results) + 2.5), STYLE["figsize"][1]),
    )
    for x, r in enumerate(results):
        lo, hi = r["ci95"]
        p = r["p_collapse"]
        colour = STYLE["colours"][x % len(STYLE["colours"])]
        ax.vlines(x, lo, hi, colors=colour, linewidth=2)
        if p is not None:
            ax.plot([x], [p], "o", color=colour)
            ax.annotate(f"{p:.2f}\nn={r['trials'] - r['errors']}", (x, hi), textcoords="offset points",
                        xytext=(0, 4), ha="center", fontsize=STYLE["font_size"] - 1)
    ax.set_xticks(range(len(results)), [_label(r) for r in results], fontsize=STYLE["font_size"])
    ax.set_xlim(-0.6, len(results) - 0.4)
    ax.set_ylim(-0.02, 1.15)
    ax.set_xlabel(_noise_text(document["noise"]), fontsize=STYLE["font_size"] - 1)
    return save(fig, path)


def sweep_figure(document: dict, path: str | Path) -> Path:
    """p(collapse) against the swept parameter, one curve with its interval band per what-if."""
    values = document["values"]
    fig, ax = new_figure(
        title=f"{document.get('name', '')}: odds of collapse against {document['param']}",
        xlabel=document["param"],
        ylabel="p(collapse), 95 % interval",
    )
    first = document["results"][0]["results"]
    for k, r0 in enumerate(first):
        rows = [entry["results"][k] for entry in document["results"]]
        p = [float("nan") if r["p_collapse"] is None else r["p_collapse"] for r in rows]
        lo = [r["ci95"][0] for r in rows]
        hi = [r["ci95"][1] for r in rows]
        colour = STYLE["colours"][k % len(STYLE["colours"])]
        ax.fill_between(values, lo, hi, color=colour, alpha=STYLE["band_alpha"], linewidth=0)
        ax.plot(values, p, "o-", color=colour, label=_label(r0), markersize=3)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=STYLE["font_size"] - 1, frameon=False)
    return save(fig, path)


# -- constructions: side and top views with centres of mass and magnets ---------------------


def _style_axes(ax, title: str | None = None, xlabel: str | None = None, ylabel: str | None = None) -> None:
    """The shared look of :func:`new_figure`, for one axes of a figure with several."""
    ax.set_prop_cycle(color=STYLE["colours"])
    ax.grid(True, alpha=0.3, linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=STYLE["font_size"] - 1)
    if title:
        ax.set_title(title, fontsize=STYLE["font_size"])
    if xlabel:
        ax.set_xlabel(xlabel, fontsize=STYLE["font_size"] - 1)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=STYLE["font_size"] - 1)


def stack_centres(positions, quaternions, size, masses=None) -> dict:
    """Centres of mass of a construction: each tile's, and each load resting on a tile.

    Tile ``j`` rests on tile ``i`` when its lowest corner is within a third of a thickness
    of ``i``'s highest and their footprints overlap; the load on ``i`` is every tile resting
    on it, directly or through others. The tiles are uniform boxes (the magnets' own mass
    is part of the tile mass), so a tile's centre of mass is its centre.

    Parameters
    ----------
    positions : ndarray, shape (n, 3), m
    quaternions : ndarray, shape (n, 4)
    size : array-like, shape (3,), m
    masses : array-like, shape (n,), optional
        Default: all alike.

    Returns
    -------
    dict
        ``"tiles"``: (n, 3) centres, m; ``"rests_on"``: for each tile, the tiles right below
        it; ``"loads"``: ``{i: (centre (3,), [tiles])}`` for every tile that carries
        something; ``"all"``: the centre of the whole construction.
    """
    p = np.asarray(positions, dtype=float).reshape(-1, 3)
    q = np.asarray(quaternions, dtype=float).reshape(-1, 4)
    n = len(p)
    m = np.ones(n) if masses is None else np.asarray(masses, dtype=float)
    size = np.asarray(size, dtype=float)
    corners = box_corners(p, q, size)
    top = [c[:, 2].max() for c in corners]
    bottom = [c[:, 2].min() for c in corners]
    yaws = [quaternion_yaw(q[i]) for i in range(n)]
    rests_on: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        for i in range(n):
            if i != j and abs(bottom[j] - top[i]) < size[2] / 3 and footprints_overlap(p[j][:2], yaws[j], p[i][:2], yaws[i], size):
                rests_on[j].append(i)
    direct = [[j for j in range(n) if i in rests_on[j]] for i in range(n)]
    loads = {}
    for i in range(n):
        members, todo = set(), list(direct[i])
        while todo:  # what rests on i, and what rests on that, ...
            j = todo.pop()
            if j not in members and j != i:
                members.add(j)
                todo.extend(direct[j])
        if members:
            members = sorted(members)
            loads[i] = (np.average(p[members], axis=0, weights=m[members]), members)
    return {"tiles": p, "rests_on": rests_on, "loads": loads, "all": np.average(p, axis=0, weights=m) if n else np.zeros(3)}


def _tile_colour(pips, preset):
    rgb = colour_rgb(colour_of(tile(*pips), preset.tile.colours))
    return rgb or (0.8, 0.8, 0.8)


def draw_construction(side_ax, top_ax, positions, quaternions, pips, preset, *, magnets: bool = True, labels: bool = False) -> dict:
    """Draw a construction on two axes: side view (x, z) and top view (x, y), in mm.

    Each tile is its box's outline, in its colour, with its pips written on each half (top
    view); a black dot is each tile's centre of mass; a red cross, with a dashed line down
    to the tile that carries it, is the centre of mass of the load resting on a tile (the
    artists carry ``gid = "load-com-I"``); the black star is the whole construction's. With
    ``labels``, each tile's number (``#N``, as the placement language names it) is written in
    both views and each half's number (``h0``, ``h1``) at its outer end (top view).
    Magnets are small discs, red when their north pole points up, blue when down, grey
    otherwise (hollow: free-turning). Returns :func:`stack_centres`.
    """
    p = np.asarray(positions, dtype=float).reshape(-1, 3)
    q = np.asarray(quaternions, dtype=float).reshape(-1, 4)
    size = np.asarray(preset.tile.size, dtype=float)
    centres = stack_centres(p, q, size, masses=None)
    order = np.argsort(p[:, 2]) if len(p) else []
    for k in order:
        c = box_corners(p[k], q[k], size) * 1000
        colour = _tile_colour(pips[k], preset)
        for ax, (a, b) in ((side_ax, (0, 2)), (top_ax, (0, 1))):
            pts = c[:, [a, b]]
            hull = pts[ConvexHull(pts).vertices]
            ax.fill(hull[:, 0], hull[:, 1], facecolor=colour, edgecolor="0.15", linewidth=0.8, alpha=0.9, zorder=2 + 0.01 * k)
        R = quaternion_matrices(q[k])
        for h, sign in ((0, -1), (1, 1)):
            centre = (p[k] + R @ np.array([sign * size[0] / 4, size[1] / 4, size[2] / 2])) * 1000  # off the magnet
            top_ax.text(centre[0], centre[1], str(pips[k][h]), ha="center", va="center", fontsize=STYLE["font_size"] - 2,
                        color="white", fontweight="bold", zorder=3 + 0.01 * k)
        if labels:
            for h, sign in ((0, -1), (1, 1)):
                at = (p[k] + R @ np.array([sign * size[0] * 0.4, -size[1] / 4, size[2] / 2])) * 1000
                top_ax.text(at[0], at[1], f"h{h}", ha="center", va="center", fontsize=STYLE["font_size"] - 3, color="white",
                            zorder=3 + 0.01 * k, gid=f"half-{k}-{h}")
            for ax, (a, b) in ((side_ax, (0, 2)), (top_ax, (0, 1))):
                at = (p[k] + R @ np.array([0.0, -size[1] / 4 if ax is top_ax else 0.0, 0.0])) * 1000
                ax.text(at[a], at[b], f"#{k}", ha="center", va="center", fontsize=STYLE["font_size"] - 2, fontweight="bold",
                        color="black", zorder=7, gid=f"tile-{k}", bbox={"boxstyle": "round,pad=0.1", "fc": "white", "alpha": 0.7, "lw": 0})
        ends = np.array([p[k] + R @ np.array([0, sy * size[1] / 2, size[2] / 2]) for sy in (-1, 1)]) * 1000
        top_ax.plot(ends[:, 0], ends[:, 1], color="0.15", linewidth=0.6, zorder=2.5 + 0.01 * k)
        if magnets and preset.tile.magnets:
            for mag in preset.tile.magnets:
                at = (p[k] + R @ np.asarray(mag.position)) * 1000
                up = float((R @ np.asarray(mag.axis))[2])
                colour = "#d62728" if up > 0.5 else ("#1f77b4" if up < -0.5 else "0.5")
                face = "none" if mag.free else colour
                for ax, (a, b) in ((side_ax, (0, 2)), (top_ax, (0, 1))):
                    ax.plot([at[a]], [at[b]], "o", markersize=3, markerfacecolor=face, markeredgecolor=colour,
                            markeredgewidth=0.8, zorder=4)
    tiles_mm = p * 1000
    for ax, (a, b) in ((side_ax, (0, 2)), (top_ax, (0, 1))):
        ax.plot(tiles_mm[:, a], tiles_mm[:, b], "o", color="black", markersize=3, zorder=5, label="tile centre of mass")
    first = True
    for i, (com, _members) in centres["loads"].items():
        com = com * 1000
        top_i = top_face_height(p[i], q[i], size) * 1000
        for ax, (a, b) in ((side_ax, (0, 2)), (top_ax, (0, 1))):
            ax.plot([com[a]], [com[b]], "x", color="#d62728", markersize=7, markeredgewidth=1.6, zorder=6,
                    gid=f"load-com-{i}", label="load on a tile, centre of mass" if first and ax is side_ax else None)
        side_ax.plot([com[0], com[0]], [com[2], top_i], "--", color="#d62728", linewidth=0.8, zorder=6)
        side_ax.annotate(f"on #{i}", (com[0], com[2]), textcoords="offset points", xytext=(4, 3),
                         fontsize=STYLE["font_size"] - 2, color="#d62728", zorder=6)
        first = False
    if len(p):
        allc = centres["all"] * 1000
        for ax, (a, b) in ((side_ax, (0, 2)), (top_ax, (0, 1))):
            ax.plot([allc[a]], [allc[b]], "*", color="black", markersize=8, zorder=6, gid="all-com",
                    label="whole construction" if ax is side_ax else None)
    side_ax.axhline(0, color="0.3", linewidth=1.2, zorder=1)
    side_ax.set_aspect("equal", adjustable="box")
    top_ax.set_aspect("equal", adjustable="datalim")
    for ax in (side_ax, top_ax):
        ax.margins(0.08)
    return centres


def construction_figure(positions, quaternions, pips, preset, path, title: str | None = None, labels: bool = False):
    """Side and top views of a construction (see :func:`draw_construction`), one PNG
    (``path``: a file, or a binary buffer that receives the PNG)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(STYLE["figsize"][0] * 1.5, STYLE["figsize"][1]), dpi=STYLE["dpi"], layout="constrained")
    side, top = fig.subplots(1, 2)
    _style_axes(side, "side view", "x (mm)", "z (mm)")
    _style_axes(top, "top view", "x (mm)", "y (mm)")
    draw_construction(side, top, positions, quaternions, pips, preset, labels=labels)
    if title:
        fig.suptitle(title, fontsize=STYLE["font_size"] + 1)
    _legend_outside(fig, side)
    if hasattr(path, "write"):
        fig.savefig(path, format="png")
        return path
    return save(fig, path)


# -- what happened: shift and tilt over time -------------------------------------------------


def draw_traces(shift_ax, tilt_ax, traces, thresholds: dict | None = None) -> None:
    """Largest shift (mm) and tilt (deg) of the construction's tiles against time.

    ``traces`` is a list of ``(label, [(t s, shift mm, tilt deg), ...])`` as recorded by
    ``magdomino.physics.settle.settle(..., trace=list)``; the thresholds are dashed lines.
    """
    for k, (label, trace) in enumerate(traces):
        colour = STYLE["colours"][k % len(STYLE["colours"])]
        if not trace:
            continue
        t, shift, tilt = zip(*trace)
        shift_ax.plot(t, shift, color=colour, label=label, linewidth=1.2)
        tilt_ax.plot(t, tilt, color=colour, label=label, linewidth=1.2)
    if thresholds:
        shift_ax.axhline(thresholds["max_shift_mm"], color="0.3", linestyle="--", linewidth=0.8, label="collapse threshold")
        tilt_ax.axhline(thresholds["max_tilt_deg"], color="0.3", linestyle="--", linewidth=0.8, label="collapse threshold")
    for ax in (shift_ax, tilt_ax):
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)


def trace_figure(traces, path: str | Path, thresholds: dict | None = None, title: str | None = None) -> Path:
    """Shift and tilt over time of one or more verdicts (see :func:`draw_traces`), one PNG."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(STYLE["figsize"][0] * 1.5, STYLE["figsize"][1]), dpi=STYLE["dpi"], layout="constrained")
    shift, tilt = fig.subplots(1, 2)
    _style_axes(shift, "largest shift", "simulated time (s)", "shift (mm)")
    _style_axes(tilt, "largest tilt", "simulated time (s)", "tilt (deg)")
    draw_traces(shift, tilt, traces, thresholds)
    shift.legend(fontsize=STYLE["font_size"] - 2, frameon=False)
    if title:
        fig.suptitle(title, fontsize=STYLE["font_size"] + 1)
    return save(fig, path)


def _field(verdict, name, default=None):
    """``verdict.name`` or ``verdict[name]``: a Verdict, or its JSON (``to_dict()``)."""
    if isinstance(verdict, dict):
        return verdict.get(name, default)
    return getattr(verdict, name, default)


def structure_state(verdict) -> str:
    """What the drawn poses of a structure are, by its verdict (a Verdict or its JSON; None:
    settled): "settled structure", "structure as it fell" (the poses when the collapse was
    seen), "structure at the time limit" (still moving), "structure when the simulation failed"."""
    if verdict is None:
        return "settled structure"
    if _field(verdict, "error"):
        return "structure when the simulation failed"
    if _field(verdict, "collapsed"):
        return "structure as it fell"
    if _field(verdict, "settled", True):
        return "settled structure"
    return "structure at the time limit"


def structure_outcome(verdict) -> str:
    """The structure's verdict in words: "collapsed (tilt, tile 1)", "stood", "did not settle (time limit)" ..."""
    reason = _field(verdict, "reason", "")
    if _field(verdict, "error"):
        return f"failed to simulate ({_field(verdict, 'error')})"
    if _field(verdict, "collapsed"):
        culprit = _field(verdict, "culprit")
        return f"collapsed ({reason}" + ("" if culprit is None else f", tile {culprit}") + ")"
    if _field(verdict, "settled", True) is not False:  # None: an engine that does not settle (the statics) said it stands
        return "stood, shifted" if _field(verdict, "shifted") else "stood"
    return f"did not settle ({reason})"


def what_ifs_not_tried(verdict) -> str:
    """Why the what-ifs of a structure with this verdict were not tried: "not tried: the
    structure collapsed (tilt, tile 1)"."""
    return f"not tried: the structure {structure_outcome(verdict)}"


def _legend_outside(fig, ax, ncols: int = 3) -> None:
    """``ax``'s legend under it, below its axis label, where it covers nothing: inside the
    axes it hid the tiles of a tall or wide structure. (A figure legend "outside upper
    center" would run into the figure's title.)"""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), borderaxespad=4.0, ncols=ncols,
                  fontsize=STYLE["font_size"] - 2, frameon=False, handletextpad=0.3, columnspacing=1.0)


def simulation_figure(positions, quaternions, pips, preset, traces, path: str | Path, thresholds: dict | None = None,
                      title: str | None = None, structure=None, no_traces: str = "no what-if") -> Path:
    """What ``magdomino simulate --plot`` draws: side and top views of the structure above
    (settled, or as it fell: ``structure`` is its verdict, see :func:`structure_state`), the
    shift and tilt over time of each what-if below (``no_traces``: what the empty panels say
    when there is none: why none was tried)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(STYLE["figsize"][0] * 1.5, STYLE["figsize"][1] * 2), dpi=STYLE["dpi"], layout="constrained")
    (side, top), (shift, tilt) = fig.subplots(2, 2)
    _style_axes(side, f"{structure_state(structure)}, side view", "x (mm)", "z (mm)")
    _style_axes(top, "top view", "x (mm)", "y (mm)")
    _style_axes(shift, "what-ifs: largest shift of the structure", "simulated time (s)", "shift (mm)")
    _style_axes(tilt, "largest tilt", "simulated time (s)", "tilt (deg)")
    draw_construction(side, top, positions, quaternions, pips, preset)
    if title:
        fig.suptitle(title, fontsize=STYLE["font_size"] + 1)
    _legend_outside(fig, side)
    if traces:
        draw_traces(shift, tilt, traces, thresholds)
        shift.legend(fontsize=STYLE["font_size"] - 2, frameon=False)
    else:
        for ax in (shift, tilt):
            ax.text(0.5, 0.5, no_traces, transform=ax.transAxes, ha="center", va="center", color="0.4", wrap=True)
    return save(fig, path)


# -- what-if rankings ---------------------------------------------------------------------


def tile_as_ranked(document: dict) -> str:
    """The tile of a ``whatif`` document written as its rows write it: each row puts the half
    it matches first ("3-1 on #0 (3-3) half 1"), so the title and the header do too (the
    order of most rows, the first row's on a tie; the document's when no row says)."""
    a, b = document["tile"]
    orders: dict = {}
    for c in document.get("candidates") or []:
        matched = (c.get("placement") or {}).get("pips_matched")
        if matched in (a, b):
            first = (matched, b if matched == a else a)
            orders[first] = orders.get(first, 0) + 1
    if orders:
        a, b = max(orders, key=orders.get)  # the first of the most common (dicts keep their order)
    return tile_text((a, b))


def whatif_figure(document: dict, path: str | Path) -> Path:
    """p(collapse) with its 95 % interval for every candidate of a ``whatif`` document,
    safest at the top (the document's order), the share of trials that shifted (and their
    median largest shift) beside it."""
    cands = document["candidates"]
    n = len(cands)
    fig, ax = new_figure(
        title=(f"{document.get('name', '')}: where to put {tile_as_ranked(document)}? "
               f"(preset {document['preset']}, rule {document.get('rule', 'any')})"),
        xlabel="p(collapse), 95 % interval\n" + _noise_text(document["noise"]),
        figsize=(STYLE["figsize"][0] * 1.25, max(2.2, 0.42 * n + 1.4)),
    )
    for k, c in enumerate(cands):
        y = n - 1 - k
        colour = STYLE["colours"][k % len(STYLE["colours"])]
        if c.get("ci95") is None:  # screened out by the statics (whatif --screen): no odds, its answer
            s = c.get("statics") or {}
            said = "refused" if s.get("stands") is None else f"{'stands' if s['stands'] else 'falls'}, margin {s['margin']:+.1f}°"
            ax.annotate(f"statics: {said}", (0.0, y), xytext=(0, -3), textcoords="offset points", color=colour,
                        fontsize=STYLE["font_size"] - 1)
            continue
        lo, hi = c["ci95"]
        p = c["p_collapse"]
        ax.hlines(y, lo, hi, colors=colour, linewidth=2)
        if p is not None:
            ax.plot([p], [y], "o", color=colour)
            ax.annotate(f"{p:.2f} (n={c['trials'] - c.get('errors', 0)})", (hi, y), textcoords="offset points",
                        xytext=(5, -3), fontsize=STYLE["font_size"] - 1)
        if c.get("shift_share") is not None:  # beside p: how often it pushed the structure (not a collapse)
            ax.annotate(_shifted_text(c), (1.02, y), xycoords=("axes fraction", "data"), xytext=(0, -3), textcoords="offset points",
                        color=colour, fontsize=STYLE["font_size"] - 1)
    shifts = any(c.get("shift_share") is not None for c in cands)
    if shifts:  # the column's head, in a row of its own above the first candidate
        ax.annotate("shifted (median)", (1.02, n - 0.1), xycoords=("axes fraction", "data"), va="center",
                    fontsize=STYLE["font_size"] - 1, fontweight="bold")
    labels = [f"{k + 1}. {c['placement']['description']}" for k, c in enumerate(cands)]
    ax.set_yticks(range(n), labels[::-1], fontsize=STYLE["font_size"] - 1)
    ax.set_ylim(-0.6, n + 0.2 if shifts else n - 0.4)
    ax.set_xlim(-0.02, 1.25)
    return save(fig, path)


def _shifted_text(candidate: dict) -> str:
    """"40 % (6.1 mm)": the share of a whatif candidate's trials that shifted, and the median largest shift."""
    median = candidate.get("median_shift_mm")
    return f"{candidate['shift_share']:.0%}" + ("" if median is None else f" ({median:.1f} mm)")
