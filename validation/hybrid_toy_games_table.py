"""The validation table of the default engine on game positions of the default toy.

Reads what ``scripts/bench --only hybrid`` keeps of its toy game positions (every trial's
verdict by the dynamics at the bench's base commit and by the default engine here, same
seeds) and prints the Markdown table of ``docs/validation/hybrid.md`` ("On game positions of
the default toy"): per rule and kind of placement, what-ifs, trials, the share decided by
the statics, trials whose verdict differs, what-ifs whose p lies outside the dynamics' 95 %
interval, and the time of each engine. ``--json OUT`` writes the table's rows and every
position's figures.

    .venv/bin/python -m validation.hybrid_toy_games_table /tmp/bench_hybrid_toy_games.json --json assets/validation/hybrid_toy_games.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from validation import toy_positions


def rows_of(doc: dict) -> list[dict]:
    """One row per position both runs judged: ``id``, ``rule``, ``kind`` (drop or slide),
    ``trials``, ``statics``, ``differ``, ``p_dynamics``, ``p_default``, ``inside``, and the
    seconds of each run."""
    what = {p["id"]: p for p in doc["positions"]}
    old = {r["id"]: r for r in doc["runs"]["dynamics"]["positions"]}
    new = {r["id"]: r for r in doc["runs"]["default"]["positions"]}
    out = []
    for pid, a in old.items():
        b = new.get(pid, {})
        if "verdicts" not in a or "verdicts" not in b:
            continue
        p_a = a["collapses"] / a["counted"] if a["counted"] else 0.0
        p_b = b["collapses"] / b["counted"] if b["counted"] else 0.0
        out.append({
            "id": pid, "rule": what[pid]["rule"], "kind": "slide" if toy_positions.is_slide(what[pid]) else "drop",
            "tiles": len(what[pid]["structure"]), "what_if": what[pid]["what_if"], "trials": len(a["verdicts"]),
            "statics": b["judged_by"].get("statics", 0),
            "differ": sum(not (x[0] == y[0] and x[2] == y[2]) for x, y in zip(a["verdicts"], b["verdicts"])),
            "p_dynamics": p_a, "ci95_dynamics": a["ci95"], "p_default": p_b,
            "inside": a["ci95"][0] - 1e-12 <= p_b <= a["ci95"][1] + 1e-12,
            "seconds_dynamics": a["seconds"], "seconds_default": b["seconds"],
        })
    return out


def table(rows: list[dict]) -> str:
    """The Markdown table: one line per rule and kind of placement, then all."""
    groups = {}
    for r in rows:
        groups.setdefault((r["rule"], r["kind"]), []).append(r)
    lines = ["| positions | what-ifs | trials | decided by the statics | trials that differ | p outside | dynamics (s) | default (s) "
             "| ratio |", "|---|---|---|---|---|---|---|---|---|"]

    def line(name, rs, bold=False):
        t = sum(r["trials"] for r in rs)
        a, b = sum(r["seconds_dynamics"] for r in rs), sum(r["seconds_default"] for r in rs)
        statics_share = 100 * sum(r["statics"] for r in rs) / max(t, 1)
        cells = [name, f"{len(rs)}", f"{t:,}", f"{statics_share:.1f} %", f"{sum(r['differ'] for r in rs)}",
                 f"{sum(not r['inside'] for r in rs)}", f"{a:.0f}", f"{b:.0f}", f"{b / a:.2f}" if a else "-"]
        lines.append("| " + " | ".join(f"**{c}**" if bold else c for c in cells) + " |")

    names = {"defi": "Défi", "quinconce": "En quinconce"}
    for (rule, kind), rs in sorted(groups.items()):
        line(f"{names.get(rule, rule)}, {kind}s", rs)
    line("all", rows, bold=True)
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", help="the bench's bench_hybrid_toy_games.json")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    doc = json.loads(Path(args.raw).read_text())
    rows = rows_of(doc)
    text = table(rows)
    print(text)
    if args.json:
        head = {"version": 1, "preset": "toy", "base_commit": doc["base_commit"], "trials": doc["runs"]["default"]["trials"],
                "seed": doc["runs"]["default"]["seed"], "table": text}
        body = ",\n".join(json.dumps(r, separators=(",", ":")) for r in rows)
        Path(args.json).write_text(json.dumps(head, indent=1)[:-2] + ',\n "positions": [\n' + body + "\n]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
