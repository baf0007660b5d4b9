"""The summary figure of a tournament: each player kind's win share with its 95 % interval.

A tournament document (``magdomino tournament --json``) has ``per_kind``: a list of rows
with ``kind``, or a mapping ``{kind: row}``. From each row: ``wins`` (may be fractional:
shared wins count a share) and the number of games it played (``games``, ``played``,
``seats`` or ``n``); an interval the document gives (``ci``, ``interval`` or
``ci_low``/``ci_high``, as fractions) is drawn as given, else the Wilson score interval
(95 %) is computed here. ``win_share`` (or ``share``), when given, must agree with
wins / games.
"""

from __future__ import annotations

import math
from pathlib import Path

from magdomino.errors import InputError

Z95 = 1.959963984540054
"""The standard normal's 97.5 % quantile (a two-sided 95 % interval)."""

_GAMES = ("games", "played", "seats", "n")


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (fractions in [0, 1])."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def tournament_rows(document: dict, source: str = "tournament") -> list[dict]:
    """``[{"kind", "share", "low", "high", "games"}]`` from a tournament document."""
    per_kind = document.get("per_kind") if isinstance(document, dict) else None
    if isinstance(per_kind, dict):
        per_kind = [{"kind": k, **v} for k, v in per_kind.items() if isinstance(v, dict)]
    if not isinstance(per_kind, list) or not per_kind:
        raise InputError(source, "per_kind", "a tournament's rows per player kind (a list or a mapping)")
    rows = []
    for k, row in enumerate(per_kind):
        if not isinstance(row, dict) or "kind" not in row:
            raise InputError(source, f"per_kind[{k}]", "a row with 'kind'")
        games = next((row[g] for g in _GAMES if isinstance(row.get(g), (int, float))), None)
        wins = row.get("wins")
        if not isinstance(wins, (int, float)) or games is None or games <= 0 or not 0 <= wins <= games:
            raise InputError(source, f"per_kind[{k}]", "'wins' and a number of games ('games', 'played', 'seats' or 'n') with 0 <= wins <= games")
        share = wins / games
        given = row.get("win_share", row.get("share"))
        if isinstance(given, (int, float)) and abs(given - share) > 1e-6 and abs(given / 100 - share) > 1e-6:
            raise InputError(source, f"per_kind[{k}].win_share", f"wins / games = {share:.6f}, got {given}")
        interval = row.get("ci", row.get("interval"))
        if interval is None and "ci_low" in row and "ci_high" in row:
            interval = [row["ci_low"], row["ci_high"]]
        if isinstance(interval, (list, tuple)) and len(interval) == 2:
            low, high = float(interval[0]), float(interval[1])
        else:
            low, high = wilson_interval(wins, games)
        rows.append({"kind": str(row["kind"]), "share": share, "low": low, "high": high, "games": games})
    return rows


def tournament_figure(document: dict, path, source: str = "tournament") -> Path:
    """Bars of each player kind's win share with its interval; returns the file written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = tournament_rows(document, source)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(rows) + 2), 3.8))
    try:
        x = range(len(rows))
        shares = [r["share"] for r in rows]
        errors = [[r["share"] - r["low"] for r in rows], [r["high"] - r["share"] for r in rows]]
        ax.bar(x, shares, color="#4c72b0", alpha=0.8)
        ax.errorbar(x, shares, yerr=errors, fmt="none", ecolor="black", capsize=5, linewidth=1.2)
        seats = document.get("seats")
        if isinstance(seats, list) and seats:
            ax.axhline(1 / len(seats), color="grey", linestyle=":", linewidth=1, label=f"1/{len(seats)} (no edge)")
            ax.legend(fontsize=8)
        ax.set_xticks(list(x), [f"{r['kind']}\n({r['games']:g} games)" for r in rows], fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel("win share (95 % interval)")
        title = document.get("rule")
        ax.set_title(f"tournament{', ' + str(title) if title else ''}: win share per player kind")
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path
