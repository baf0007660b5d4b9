"""Pictures of flat tables (games played without physics: 20 sur 20 on its grid, the chain
games Le Matador and Le jeu des échanges along their chain).

Functions take the ``final`` part of a game record (JSON), so any saved record can be drawn
again. matplotlib is imported inside the functions; figures use the object-oriented API.
"""

from __future__ import annotations

from pathlib import Path

from magdomino.faces.plots import save
from magdomino.wording import tile_text

_PIPS = {
    0: (),
    1: (4,),
    2: (0, 8),
    3: (0, 4, 8),
    4: (0, 2, 6, 8),
    5: (0, 2, 4, 6, 8),
    6: (0, 2, 3, 5, 6, 8),
    7: (0, 2, 3, 4, 5, 6, 8),
    8: (0, 1, 2, 3, 5, 6, 7, 8),
    9: tuple(range(9)),
}
"""Pip spots of a half on a 3 x 3 pattern (0 top left, 8 bottom right), as on real tiles."""
_SEAT_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e"]


def _runs(halves: dict) -> list[list[tuple[int, int]]]:
    """Every run (maximal line of two or more consecutive halves), rows then columns."""
    out = []
    for axis in (0, 1):
        lines: dict = {}
        for c in halves:
            lines.setdefault(c[1 - axis], []).append(c[axis])
        for fixed, coords in sorted(lines.items()):
            coords.sort()
            group = [coords[0]]
            for v in coords[1:] + [None]:
                if v is not None and v == group[-1] + 1:
                    group.append(v)
                    continue
                if len(group) >= 2:
                    out.append([(g, fixed) if axis == 0 else (fixed, g) for g in group])
                if v is not None:
                    group = [v]
    return out


def vingt_table_figure(final: dict, title: str | None = None):
    """Draw a 20 sur 20 table: tiles with their pips on the grid, the "20" markers (one
    colour per seat) and every run's total beside it (20 in bold).

    Parameters
    ----------
    final : dict
        A record's ``final``: ``table`` (``[{"cells": [[x, y], [x, y]], "pips": [p, q]}, ...]``)
        and ``markers`` (``{"placed": [[[x, y], ...] per seat], "left": [...]}``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Not drawn yet (no pyplot: nothing to close).
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch

    table = final.get("table", [])
    placed = final.get("markers", {}).get("placed", [])
    halves = {}
    for t in table:
        for (x, y), v in zip(t["cells"], t["pips"]):
            halves[(x, y)] = v
    cells = list(halves) + [tuple(c) for m in placed for c in m]
    xs = [c[0] for c in cells] or [0]
    ys = [c[1] for c in cells] or [0]
    w, h = max(xs) - min(xs) + 3, max(ys) - min(ys) + 3
    scale = min(0.45, 14.0 / max(w, h))
    fig = Figure(figsize=(max(4.0, w * scale), max(3.0, h * scale + 0.4)), dpi=120, layout="constrained")
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.set_xlim(min(xs) - 1.5, max(xs) + 1.5)
    ax.set_ylim(min(ys) - 1.5, max(ys) + 1.5)
    ax.set_xticks(range(min(xs) - 1, max(xs) + 2))
    ax.set_yticks(range(min(ys) - 1, max(ys) + 2))
    ax.tick_params(labelsize=6)
    ax.grid(True, color="#dddddd", linewidth=0.5)
    ax.set_axisbelow(True)
    pips = []  # (cell centre, value) of every half
    for t in table:
        (x0, y0), (x1, y1) = t["cells"]
        lx, ly = min(x0, x1) - 0.46, min(y0, y1) - 0.46
        ax.add_patch(
            FancyBboxPatch(
                (lx, ly), abs(x1 - x0) + 0.92, abs(y1 - y0) + 0.92,
                boxstyle="round,pad=0,rounding_size=0.12", facecolor="#fffff0", edgecolor="black", linewidth=0.8,
            )
        )
        ax.plot([(x0 + x1) / 2 + (0 if x0 != x1 else -0.4), (x0 + x1) / 2 + (0 if x0 != x1 else 0.4)],
                [(y0 + y1) / 2 + (0 if y0 != y1 else -0.4), (y0 + y1) / 2 + (0 if y0 != y1 else 0.4)],
                color="black", linewidth=0.6)
        pips.extend(zip(t["cells"], t["pips"]))
    _draw_pips(ax, pips)
    for seat, cells_m in enumerate(placed):
        colour = _SEAT_COLOURS[seat % len(_SEAT_COLOURS)]
        for x, y in cells_m:
            ax.add_patch(Circle((x, y), 0.4, facecolor=colour, edgecolor="black", linewidth=0.6))
            ax.text(x, y, "20", ha="center", va="center", fontsize=6, color="white", fontweight="bold")
    for run in _runs(halves):
        total = sum(halves[c] for c in run)
        (xa, ya), (xb, yb) = run[0], run[-1]
        if ya == yb:  # a row: the total just above its middle, on the grid line
            px, py = (xa + xb) / 2, ya + 0.5
        else:
            px, py = xa + 0.5, (ya + yb) / 2
        ax.text(
            px, py, str(total), ha="center", va="center", fontsize=6,
            fontweight="bold" if total == 20 else "normal", color="#006400" if total == 20 else "#555555",
            bbox={"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "#888888", "linewidth": 0.4},
        )
    left = final.get("markers", {}).get("left")
    ax.set_title((title + "\n" if title else "") + (f"markers left per seat: {', '.join(map(str, left))}" if left is not None else ""),
                 fontsize=8)
    _vingt_legend(fig, max(len(placed), len(left or [])))
    return fig


def vingt_figure(final: dict, path: str | Path, title: str | None = None) -> Path:
    """Write :func:`vingt_table_figure`'s picture to ``path`` (format from the suffix, e.g. ``.png``)."""
    return save(vingt_table_figure(final, title), path, "png")


def _vingt_legend(fig, seats: int) -> None:
    """The board's key: each seat's marker colour, and what the small numbers are (a line's
    total; bold green when it is exactly 20)."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", markersize=7, markerfacecolor=_SEAT_COLOURS[seat % len(_SEAT_COLOURS)],
                      markeredgecolor="black", label=f"seat {seat}'s \"20\" markers") for seat in range(seats)]
    handles += [Line2D([], [], marker="$12$", linestyle="", markersize=9, color="#555555", label="a line's total"),
                Line2D([], [], marker="$20$", linestyle="", markersize=9, color="#006400", label="a line worth exactly 20")]
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 3), fontsize=6, frameon=False)


# -- chain games (Le Matador, Le jeu des échanges) ------------------------------------------

ROW_UNITS = 24
"""Length of a row of the chain picture, in half-tiles (12 tiles in line), before it turns."""
ROW_GAP = 5
"""Distance between two rows, in half-tiles (room for crossed tiles on both)."""


def _segments():
    """The snake the chain follows: rows left to right, then right to left, joined by short
    columns going down at the ends (as players turn a chain at the table's edge); a column
    starts a unit below its row so that tiles crossed at a corner keep clear of each other.
    Yields (start (x, y), direction (dx, dy), length) in half-tile units."""
    row = 0
    while True:
        y = -row * ROW_GAP
        if row % 2 == 0:
            yield (0.0, y), (1, 0), ROW_UNITS
            yield (ROW_UNITS + 0.5, y - 1.0), (0, -1), ROW_GAP - 2
        else:
            yield (float(ROW_UNITS), y), (-1, 0), ROW_UNITS
            yield (-0.5, y - 1.0), (0, -1), ROW_GAP - 2
        row += 1


def chain_layout(table: list) -> list[dict]:
    """Where each tile of a chain goes in the picture (half-tile units, y up).

    A tile in line takes two units of the snake (:func:`_segments`), a crossed tile one
    (it lies across); a tile that would not fit in what is left of a row or a column goes
    to the next one, so the chain turns corners instead of leaving the picture.

    Returns
    -------
    list of dict, one per table entry in chain order: ``centre`` (x, y), ``along`` (the
    unit vector of the chain there), ``vertical`` (the tile's long side is vertical),
    ``halves`` (the pips, in chain order), ``half_centres`` ((x, y) of each half).
    """
    segs = _segments()
    (sx, sy), (dx, dy), length = next(segs)
    used = 0.0
    out = []
    for entry in table:
        size = 1 if entry["crossed"] else 2
        if used + size > length:
            (sx, sy), (dx, dy), length = next(segs)
            used = 0.0
        mid = used + size / 2
        cx, cy = sx + dx * mid, sy + dy * mid
        used += size
        if entry["crossed"]:  # across the line: halves on either side of it
            px, py = -dy, dx
            centres = [(cx - px * 0.5, cy - py * 0.5), (cx + px * 0.5, cy + py * 0.5)]
        else:
            centres = [(cx - dx * 0.5, cy - dy * 0.5), (cx + dx * 0.5, cy + dy * 0.5)]
        vertical = (dx == 0) != bool(entry["crossed"])
        out.append({"centre": (cx, cy), "along": (dx, dy), "vertical": vertical, "halves": list(entry["halves"]),
                    "half_centres": centres})
    return out


def _draw_tile(ax, centres, halves, vertical: bool, edge: str = "black") -> None:
    from matplotlib.patches import FancyBboxPatch

    (x0, y0), (x1, y1) = centres
    w, h = (0.92, 1.92) if vertical else (1.92, 0.92)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ax.add_patch(FancyBboxPatch((cx - w / 2, cy - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.12",
                                facecolor="#fffff0", edgecolor=edge, linewidth=1.6 if edge != "black" else 0.8))
    if vertical:
        ax.plot([cx - 0.4, cx + 0.4], [cy, cy], color="black", linewidth=0.6)
    else:
        ax.plot([cx, cx], [cy - 0.4, cy + 0.4], color="black", linewidth=0.6)
    _draw_pips(ax, zip(centres, halves))


def _draw_pips(ax, halves) -> None:
    """The pips of ``halves`` ((cell centre (x, y), value) pairs) as one collection: a table
    has hundreds of pips, and one artist each made a 20 sur 20 replay take a second a frame."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Circle

    dots = [Circle((x + (c - 1) * 0.27, y + (1 - r) * 0.27), 0.075)
            for (x, y), v in halves for r, c in (divmod(spot, 3) for spot in _PIPS[v])]
    if dots:
        ax.add_collection(PatchCollection(dots, facecolor="black", edgecolor="black"), autolim=False)


def _end_label(end, target, variant=None) -> str:
    """What an end asks for: a blank after a crossed matador; Le Matador's complement to the
    target (a blank end: a matador, strategic: a defence); else the value it shows."""
    value, kind = end
    if kind == "cross":
        return "needs a blank"
    if target is None:
        return f"shows {value}"
    if value == 0:
        return "attack: a defence" if variant == "strategic" else "blank: a matador"
    return f"shows {value}: needs {target - value}"


def _draw_ends(ax, table: list, layout: list, ends: list, target, variant=None) -> None:
    """A green dot just beyond each end of the chain, with what the end asks for."""
    for k, place in ((0, layout[0]), (1, layout[-1])):
        (cx, cy), (dx, dy) = place["centre"], place["along"]
        reach = 0.5 if table[0 if k == 0 else -1]["crossed"] else 1.0
        sign = -1 if k == 0 else 1
        ex, ey = cx + sign * dx * (reach + 0.45), cy + sign * dy * (reach + 0.45)
        ax.plot([ex], [ey], marker="o", markersize=7, color="#2ca02c")
        ax.text(ex + sign * dx * 0.5, ey + sign * dy * 0.5 + (0.9 if dx else 0), _end_label(ends[k], target, variant),
                fontsize=7, ha="center", va="center", color="#2ca02c",
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "#2ca02c", "linewidth": 0.5})


def _draw_box(ax, x0: float, y0: float, name: str, tiles: list, colour: str) -> None:
    from matplotlib.patches import Rectangle

    per_row = 4
    rows = max(1, -(-len(tiles) // per_row))
    width, height = per_row * 2.4 + 0.6, rows * 1.4 + 1.6
    ax.add_patch(Rectangle((x0, y0 - height), width, height, facecolor=colour, edgecolor="black", linewidth=0.8, alpha=0.5))
    ax.text(x0 + 0.3, y0 - 0.6, f"{name}: {len(tiles)}", fontsize=8, fontweight="bold", va="center")
    for i, t in enumerate(tiles):
        r, c = divmod(i, per_row)
        x, y = x0 + 0.3 + c * 2.4 + 1.0, y0 - 1.9 - r * 1.4
        _draw_tile(ax, [(x - 0.5, y), (x + 0.5, y)], t, False)


def chain_table_figure(final: dict, title: str | None = None):
    """Draw a chain game's table from above: every tile with its pips along the chain
    (crossed matadors across it; the start tile outlined in red), both open ends marked
    with what they ask for, and for Le jeu des échanges the SUN and RAIN boxes.

    Parameters
    ----------
    final : dict
        A record's ``final`` (:mod:`magdomino.games.chain.record`): ``table`` (chain
        order), ``ends``, ``hands``, ``stock``; optional ``target`` (Le Matador), ``sun``
        and ``rain`` (Le jeu des échanges).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Not drawn yet (no pyplot: nothing to close).
    """
    from matplotlib.figure import Figure

    table = final.get("table", [])
    layout = chain_layout(table)
    xs = [c for p in layout for c, _ in p["half_centres"]] + [-1.0, ROW_UNITS + 1.0]
    ys = [c for p in layout for _, c in p["half_centres"]] + [0.0]
    boxes = "sun" in final
    bottom = min(ys) - 2.5 - (8.0 if boxes else 0.0)
    fig = Figure(figsize=(10, max(3.0, (max(ys) + 2.5 - bottom) * 0.36 + 0.8)), dpi=120, layout="constrained")
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_xlim(min(xs) - 4.5, max(xs) + 4.5)
    ax.set_ylim(bottom, max(ys) + 2.5)
    for entry, place in zip(table, layout):
        _draw_tile(ax, place["half_centres"], place["halves"], place["vertical"], "#d62728" if entry["side"] == "start" else "black")
    ends = final.get("ends") or []
    if layout and len(ends) == 2:
        _draw_ends(ax, table, layout, ends, final.get("target"), final.get("variant"))
    if boxes:
        top = min(ys) - 2.0
        _draw_box(ax, 0.0, top, "SUN", final["sun"], "#ffd700")
        _draw_box(ax, ROW_UNITS / 2 + 1.0, top, "RAIN", final["rain"], "#87ceeb")
    hands = "; ".join(f"seat {s}: " + (" ".join(tile_text(t) for t in h) or "-") for s, h in enumerate(final.get("hands", [])))
    ax.set_title((title + "\n" if title else "") + f"hands: {hands}; stock {len(final.get('stock', []))}", fontsize=8)
    return fig


def chain_figure(final: dict, path: str | Path, title: str | None = None) -> Path:
    """Write :func:`chain_table_figure`'s picture to ``path`` (format from the suffix, e.g. ``.png``)."""
    return save(chain_table_figure(final, title), path, "png")
