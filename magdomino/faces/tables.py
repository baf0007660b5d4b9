"""Pictures of flat tables (games played on a grid without physics).

Functions take the ``final`` part of a game record (JSON), so any saved record can be drawn
again. matplotlib is imported inside the functions; figures use the object-oriented API.
"""

from __future__ import annotations

from pathlib import Path

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


def vingt_figure(final: dict, path: str | Path, title: str | None = None) -> Path:
    """Draw a 20 sur 20 table: tiles with their pips on the grid, the "20" markers (one
    colour per seat) and every run's total beside it (20 in bold).

    Parameters
    ----------
    final : dict
        A record's ``final``: ``table`` (``[{"cells": [[x, y], [x, y]], "pips": [p, q]}, ...]``)
        and ``markers`` (``{"placed": [[[x, y], ...] per seat], "left": [...]}``).
    path : str or Path
        Where to write the picture (format from the suffix, e.g. ``.png``).
    title : str, optional
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch

    from magdomino.errors import InputError

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
        for (x, y), v in zip(t["cells"], t["pips"]):
            for spot in _PIPS[v]:
                r, c = divmod(spot, 3)
                ax.add_patch(Circle((x + (c - 1) * 0.27, y + (1 - r) * 0.27), 0.075, color="black"))
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
    ax.set_title((title + "\n" if title else "") + (f"markers left per seat: {left}" if left is not None else ""), fontsize=8)
    path = Path(path)
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise InputError("command line", "--png", f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None
    return path
