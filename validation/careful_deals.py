"""Do careful seats' games end? Careful deals of both tower rules at 2, 3 and 4 seats on the
default preset, the runaway guard at 300 placements: how many are abandoned, and the collapses
a deal. The bulk judged by the statics, a share by PyBullet.

    .venv/bin/python -m validation.careful_deals                       # 40 statics deals, 10 PyBullet, each rule and seat count
    .venv/bin/python -m validation.careful_deals --deals 5 --pybullet 0
    .venv/bin/python -m validation.careful_deals --part 2/2 &            # a second process beside the first (--part 1/2)
    .venv/bin/python -m validation.careful_deals --table

Each deal's result is appended to ``assets/validation/careful_deals.jsonl`` as it finishes (rule, seats,
physics, seed, abandoned, collapses, placements, seconds); a second run skips the deals
already there, so an interrupted run resumes. The table is printed at the end.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from magdomino.games import play_game
from magdomino.model.presets import DEFAULT_PRESET
from validation import ASSETS

OUT = ASSETS / "careful_deals.jsonl"


def adjudicator(physics: str):
    if physics == "statics":
        from magdomino.physics.statics_adjudicator import StaticsAdjudicator

        return StaticsAdjudicator(DEFAULT_PRESET)
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    return PybulletAdjudicator(DEFAULT_PRESET)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="statics-judged deals a rule and seat count")
    parser.add_argument("--pybullet", type=int, default=10, help="PyBullet-judged deals a rule and seat count")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--part", default="1/1", help="K/N: this process plays every N-th deal from the K-th (processes side by side)")
    parser.add_argument("--table", action="store_true", help="print the table of the deals played so far, play none")
    args = parser.parse_args()
    if args.table:
        table(args.out)
        return
    k, n = (int(v) for v in args.part.split("/"))
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["rule"], r["seats"], r["physics"], r["seed"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # seed by seed across every rule, seat count and physics: a run stopped early has played
    # some deals of each
    plan = [(physics, rule, seats, seed)
            for seed in range(max(args.deals, args.pybullet))
            for physics, count in (("statics", args.deals), ("pybullet", args.pybullet)) if seed < count
            for rule in ("defi", "quinconce") for seats in (2, 3, 4)]
    with args.out.open("a") as out:
        for index, (physics, rule, seats, seed) in enumerate(plan):
            if (rule, seats, physics, seed) in done or index % n != k - 1:
                continue
            adj = adjudicator(physics)
            start = time.perf_counter()
            try:
                record = play_game(rule, seats, seed=seed, physics=adj, player_kinds="careful", max_placements=300)
            finally:
                getattr(adj, "close", lambda: None)()
            row = {"rule": rule, "seats": seats, "physics": physics, "seed": seed, "abandoned": record["abandoned"],
                   "collapses": record["collapses"],
                   "placements": sum(1 for e in record["events"] if e["type"] == "place"),
                   "unplayable": sum(1 for e in record["events"] if e["type"] == "unplayable"),
                   "seconds": round(time.perf_counter() - start, 2)}
            out.write(json.dumps(row) + "\n")
            out.flush()
    table(args.out)


def table(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    print(f"{'physics':<9} {'rule':<10} {'seats':>5} {'deals':>5} {'abandoned':>9} {'collapses/deal':>14} {'max':>4} {'s/deal':>7}")
    keys = sorted({(r["physics"], r["rule"], r["seats"]) for r in rows}, key=lambda k: (k[0] != "statics", k[1], k[2]))
    for key in keys:
        group = [r for r in rows if (r["physics"], r["rule"], r["seats"]) == key]
        n = len(group)
        print(f"{key[0]:<9} {key[1]:<10} {key[2]:>5} {n:>5} {sum(r['abandoned'] for r in group):>9} "
              f"{sum(r['collapses'] for r in group) / n:>14.2f} {max(r['collapses'] for r in group):>4} "
              f"{sum(r['seconds'] for r in group) / n:>7.1f}")


if __name__ == "__main__":
    main()
