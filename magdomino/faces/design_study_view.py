"""A study document (:func:`magdomino.games.design_study.run_study`) as a table, a figure and a report section."""

from __future__ import annotations

from magdomino.faces.plots import save

LABELS = {
    "completion": "completion (share ended naturally)",
    "placements": "placements per deal",
    "rounds": "rounds per deal",
    "collapses": "collapses per deal",
    "collapses_per_placement": "collapses per placement",
    "skill_gap": "skill gap: {kind}'s win share",
    "seat_advantage": "seat advantage: first seat's win share",
    "height": "final tower height (levels)",
}
"""What each metric is called on a table's head and a figure's panel."""

SHORT = {"completion": "completion", "placements": "placements", "rounds": "rounds", "collapses": "collapses",
         "collapses_per_placement": "collapses/placement", "skill_gap": "skill gap", "seat_advantage": "first seat",
         "height": "height"}


def _value(x, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def metric_cell(m: dict | None, digits: int = 3) -> str:
    """``"0.833 [0.516, 0.979]"``; ``"-"`` for a metric not measured."""
    if m is None:
        return "-"
    lo, hi = m["ci"]
    interval = "" if lo is None else f" [{_value(lo, digits)}, {_value(hi, digits)}]"
    return f"{_value(m['value'], digits)}{interval}"


def _digits(name: str) -> int:
    return 1 if name in ("placements", "rounds", "collapses", "height") else 3


def point_label(values: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items())


def study_table(doc: dict) -> tuple[list[str], list[list]]:
    """The study as (header, rows): one row per point, its values then each metric with its interval."""
    params = doc["params"]
    metrics = doc.get("metrics") or list(LABELS)
    header = [*params, "deals", *[SHORT.get(m, m) for m in metrics]]
    rows = []
    for point in doc["points"]:
        rows.append([*[point["values"][p] for p in params], len(point["per_deal"]),
                     *[metric_cell(point["metrics"].get(m), _digits(m)) for m in metrics]])
    return header, rows


def format_study(doc: dict) -> str:
    """A readable summary: the settings, one line per point, what the intervals are."""
    over = doc.get("preset_overrides") or {}
    head = (f"study: {doc['rule']}, seats {', '.join(doc['seats'])}, {doc['deals']} deals per point, seed {doc['seed']}, "
            f"physics {doc['physics']}, preset {doc['preset']}" + (f" with {point_label(over)}" if over else ""))
    header, rows = study_table(doc)
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    lines = [head, "  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    skilled = doc.get("skilled", "careful")
    if all(p["metrics"].get("skill_gap") is None for p in doc["points"]):
        lines.append(f"skill gap: not measured ({skilled} and random do not both sit)")
    else:
        fair = next(p["metrics"]["skill_gap"]["fair_share"] for p in doc["points"] if p["metrics"].get("skill_gap"))
        lines.append(f"skill gap: {skilled}'s win share against random seats (no better than random: {fair:.3f})")
    lines.append(f"first seat: its win share (no advantage: {1 / doc['players']:.3f}); win shares over natural deals")
    lines.append(f"95 % intervals: shares {doc['intervals']['share'].split(',')[0]}; means {doc['intervals']['mean'].split(',')[0]}")
    if not doc.get("balanced", True):
        lines.append(f"note: {doc['deals']} deals is not a multiple of {doc['period']}: seats not exactly balanced")
    return "\n".join(lines)


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def study_figure(doc: dict, path, key: str = "plot") -> str:
    """Each metric against the first varied parameter, a line per value of the others, with
    its 95 % interval as a band (a dashed line: what no skill or no seat advantage would give).
    Returns the path written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first, others = doc["params"][0], doc["params"][1:]
    xs_all = doc["vary"][first]
    numeric = _numeric(xs_all)
    position = {repr(v): (v if numeric else i) for i, v in enumerate(xs_all)}
    lines: dict[str, list] = {}
    for point in doc["points"]:
        label = point_label({k: point["values"][k] for k in others})
        lines.setdefault(label, []).append(point)
    metrics = doc.get("metrics") or list(LABELS)
    cols = 4
    fig, axes = plt.subplots((len(metrics) + cols - 1) // cols, cols, figsize=(4 * cols, 3.2 * ((len(metrics) + cols - 1) // cols)),
                             squeeze=False)
    skilled = doc.get("skilled", "careful")
    for ax, name in zip(axes.flat, metrics):
        ax.set_title(LABELS.get(name, name).format(kind=skilled), fontsize=9)
        drawn = False
        for n, (label, points) in enumerate(lines.items()):
            got = [(position[repr(p["values"][first])], p["metrics"].get(name)) for p in points]
            got = [(x, m) for x, m in got if m is not None and m["value"] is not None]
            if not got:
                continue
            drawn = True
            colour = f"C{n % 10}"
            x = [g[0] for g in got]
            ax.plot(x, [m["value"] for _, m in got], "o-", color=colour, label=label or None)
            band = [(xx, m["ci"]) for xx, m in got if m["ci"][0] is not None]
            if band:
                ax.fill_between([b[0] for b in band], [b[1][0] for b in band], [b[1][1] for b in band], color=colour, alpha=0.2,
                                linewidth=0)
            fair = got[0][1].get("fair_share")
            if fair is not None and n == 0:
                ax.axhline(fair, color="k", linestyle="--", linewidth=0.8)
        if not drawn:
            measured = any(p["metrics"].get(name) is not None for p in doc["points"])
            why = "no deal ended naturally" if measured else f"not measured\n(needs {skilled} and random seats)"
            ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes, color="gray")
        if name in ("completion", "collapses_per_placement", "skill_gap", "seat_advantage"):
            ax.set_ylim(-0.02, 1.02)
        if not numeric:
            ax.set_xticks(range(len(xs_all)), [str(v) for v in xs_all])
        xs = list(position.values())
        pad = 0.05 * (max(xs) - min(xs)) or 0.5
        ax.set_xlim(min(xs) - pad, max(xs) + pad)  # every panel the same range, measured or not
        ax.set_xlabel(first, fontsize=8)
        if others and drawn and name == metrics[0]:
            ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    fig.suptitle(f"study: {doc['rule']}, seats {', '.join(doc['seats'])}, {doc['deals']} deals per point, physics {doc['physics']}, "
                 f"seed {doc['seed']} (bands: 95 % intervals)", fontsize=10)
    fig.tight_layout()
    try:
        return str(save(fig, path, key, dpi=100))
    finally:
        plt.close(fig)

