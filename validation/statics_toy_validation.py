"""The statics adjudicator against PyBullet on positions of seeded games, default preset (toy).

Plays seeded 2-player games of both tower rules (Défi, En quinconce), random and careful
seats, judged by the statics and by PyBullet, and records what the adjudicator sees of every
placement (:class:`~magdomino.physics.adjudicator.PlacementView`: the construction before it
and the placement), straight from the game states. From each game's positions (duplicates
dropped) it keeps an evenly spread share, then judges every kept position twice, without
noise (:mod:`magdomino.studies.statics_validation`): the tower (the construction alone) and
the next placement, by the statics (stands / falls / unsure) and by PyBullet.

Writes the raw data to ``assets/validation/statics_toy_validation.json`` and prints the table of
``docs/validation/statics_toy.md``. One process, one worker; resumable: the judged positions
are appended to ``<out>.partial.jsonl`` as they come and skipped when the run starts again
(``--fresh`` starts over). About 6 minutes on one core.

    .venv/bin/python -m validation.statics_toy_validation                 # held-out games (340 positions)
    .venv/bin/python -m validation.statics_toy_validation --set chosen --out assets/validation/statics_toy_chosen.json
    .venv/bin/python -m validation.statics_toy_validation --quick         # a slice: one game per kind, 3 positions each
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import magdomino.games  # noqa: F401  (registers the rules' players)
from magdomino.games.actions import DEAL
from magdomino.games.core import CHANCE, TERMINAL, Game
from magdomino.games.players import players_of
from magdomino.model.presets import load_preset
from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator
from magdomino.physics.statics_adjudicator import StaticsAdjudicator
from magdomino.studies.statics_validation import (
    agreement,
    judge_pybullet,
    judge_statics,
    position_key,
    view_to_dict,
)
from validation import ASSETS

PRESET = "toy"
MAX_PLACEMENTS = 60
"""The runaway guard of every game (PyBullet-judged games cost about 0.3 s a placement)."""

# (rule, seats, physics, seeds, positions kept per game)
CHOSEN = [
    ("defi", "random", "statics", range(1000, 1006), 14),
    ("defi", "careful", "statics", range(2000, 2004), 14),
    ("quinconce", "random", "statics", range(3000, 3006), 14),
    ("quinconce", "careful", "statics", range(4000, 4004), 14),
    ("defi", "random", "pybullet", range(5000, 5002), 14),
    ("defi", "careful", "pybullet", range(6000, 6001), 14),
    ("quinconce", "random", "pybullet", range(7000, 7002), 14),
    ("quinconce", "careful", "pybullet", range(8000, 8001), 14),
]
"""The games the thresholds of :mod:`magdomino.physics.statics_screen` were chosen on."""
HELD_OUT = [(rule, seats, physics, range(s.start + 100, s.stop + 100), keep) for rule, seats, physics, s, keep in CHOSEN]
"""The same kinds of games on other seeds (the default run: the thresholds never saw them)."""
SETS = {"held-out": HELD_OUT, "chosen": CHOSEN}
QUICK = [(rule, seats, physics, seeds[:1], 3) for rule, seats, physics, seeds, _ in HELD_OUT]


class Recorder:
    """An adjudicator that hands every call to ``inner`` and keeps the view of every
    placement on a construction (not the first tile of one)."""

    def __init__(self, inner):
        self.inner = inner
        self.views = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def start(self, construction):
        return self.inner.start(construction)

    def place(self, view, action):
        if not view.first and view.construction:
            self.views.append(view)
        return self.inner.place(view, action)


def play(rule, seed, adjudicator, seats, players: int = 2) -> None:
    """One seeded game, every seat of kind ``seats`` (as ``magdomino play`` seeds its seats)."""
    game = Game(rule, players, seed, adjudicator=adjudicator, max_placements=MAX_PLACEMENTS)
    seeds = np.random.SeedSequence(seed).spawn(players)
    agents = [players_of(rule)(seats, seeds[i]) for i in range(players)]
    state = game.new_initial_state()
    while state.current != TERMINAL:
        state.apply_action(DEAL if state.current == CHANCE else agents[state.current].choose(state))


def game_positions(preset, rule, seats, physics, seed, keep):
    """Up to ``keep`` positions of one game, evenly spread over its distinct ones."""
    inner = StaticsAdjudicator(preset) if physics == "statics" else PybulletAdjudicator(preset)
    recorder = Recorder(inner)
    try:
        play(rule, seed, recorder, seats)
    finally:
        inner.close()
    distinct, seen = [], set()
    for v in recorder.views:
        k = position_key(v)
        if k not in seen:
            seen.add(k)
            distinct.append(v)
    if len(distinct) > keep:
        step = len(distinct) / keep
        distinct = [distinct[int(i * step)] for i in range(keep)]
    return distinct


def table(rows, wall_s) -> str:
    """The Markdown table of a run."""
    a = agreement(rows)
    n = len(rows)
    lines = ["| | judged | sure | agree (of sure) | unsure | sure stands, PyBullet fell | sure falls, PyBullet stood | "
             "rigid check agrees |",
             "|---|---|---|---|---|---|---|---|"]
    for part, name in (("tower", "towers"), ("placement", "placements")):
        c = a[part]
        def pct(k, d):
            return f"{100 * k / d:.1f} %" if d else "-"

        lines.append(f"| {name} | {c['judged']} | {c['sure']} | {c['agree']} ({pct(c['agree'], c['sure'])}) | "
                     f"{c['unsure']} ({pct(c['unsure'], c['judged'])}) | {c['sure_stands_fell']} | {c['sure_falls_stood']} | "
                     f"{c['rigid_agree']} ({pct(c['rigid_agree'], c['judged'])}) |")
    unsure_any = sum(1 for r in rows if "unsure" in (r["statics"]["tower"]["verdict"], r["statics"]["placement"]["verdict"]))
    statics_s = sum(r["statics"]["time_s"] for r in rows)
    pyb_s = sum(r["pybullet"]["time_s"] for r in rows)
    lines.append("")
    lines.append(f"{n} positions; unsure on the tower or the placement: {unsure_any} ({100 * unsure_any / max(n, 1):.1f} %). "
                 f"Time: statics {statics_s:.1f} s ({1000 * statics_s / max(n, 1):.0f} ms a position), "
                 f"PyBullet {pyb_s:.1f} s ({1000 * pyb_s / max(n, 1):.0f} ms a position), whole run {wall_s:.0f} s.")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ASSETS / "statics_toy_validation.json"))
    parser.add_argument("--set", choices=sorted(SETS), default="held-out",
                        help="the games: held-out (default) or chosen (those the thresholds were chosen on)")
    parser.add_argument("--quick", action="store_true", help="one game of each kind, 3 positions each")
    parser.add_argument("--fresh", action="store_true", help="forget the positions judged by an interrupted run")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial.jsonl")
    preset = load_preset(PRESET)
    done = {}
    if partial.exists() and not args.fresh:
        for line in partial.read_text().splitlines():
            row = json.loads(line)
            done[row["id"]] = row
    elif partial.exists():
        partial.unlink()
    statics = StaticsAdjudicator(preset)
    pybullet = PybulletAdjudicator(preset)
    rows = []
    games = QUICK if args.quick else SETS[args.set]
    with partial.open("a") as log:
        for rule, seats, physics, seeds, keep in games:
            for seed in seeds:
                t0 = time.perf_counter()
                views = game_positions(preset, rule, seats, physics, seed, keep)
                game_s = time.perf_counter() - t0
                for k, view in enumerate(views):
                    pid = f"{rule}/{seats}/{physics}/{seed}/{k}"
                    if pid in done:
                        rows.append(done[pid])
                        continue
                    row = {"id": pid, "rule": rule, "seats": seats, "physics": physics, "seed": seed,
                           "placement_number": view.number, "game_s": round(game_s, 3), "view": view_to_dict(view),
                           "statics": judge_statics(statics, view), "pybullet": judge_pybullet(pybullet, view)}
                    rows.append(row)
                    log.write(json.dumps(row) + "\n")
                    log.flush()
                print(f"{rule:9} {seats:7} {physics:8} seed {seed}: {len(views)} positions (game {game_s:.1f} s), "
                      f"{len(rows)} so far, {time.perf_counter() - start:.0f} s", flush=True)
    wall = time.perf_counter() - start
    text = table(rows, wall)
    command = "python -m validation.statics_toy_validation" + (" --quick" if args.quick else f" --set {args.set}")
    head = {"version": 1, "preset": PRESET, "tile_size_mm": [round(v * 1000, 6) for v in preset.tile.size], "command": command,
            "set": "quick" if args.quick else args.set, "max_placements": MAX_PLACEMENTS, "seed": None,
            "games": [[r, s, p, list(seeds), keep] for r, s, p, seeds, keep in games], "summary": agreement(rows),
            "wall_time_s": round(wall, 1), "table": text}
    body = ",\n".join(json.dumps(row, separators=(",", ":")) for row in rows)  # one position a line
    out.write_text(json.dumps(head, indent=1)[:-2] + ',\n "positions": [\n' + body + "\n]}\n")
    partial.unlink()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
