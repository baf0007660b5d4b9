"""Figures. matplotlib is imported only inside the functions that draw, so importing this
module (or :mod:`magdomino`) stays light; figures are made with the object-oriented API
(``matplotlib.figure.Figure``), never pyplot, so no global backend state is touched.

Every figure goes through :func:`new_figure` and :func:`save` so that they share one look;
add new figures below the shared helpers. Functions take the JSON documents the commands
write (``to_dict()``), so a figure can be drawn again from a saved file.
"""

from __future__ import annotations

from pathlib import Path

from magdomino.errors import InputError

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


def save(fig, path: str | Path, key: str = "--plot") -> Path:
    """Write ``fig`` to ``path`` (format from the suffix); InputError when it cannot."""
    path = Path(path)
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise InputError("command line", key, f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
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
