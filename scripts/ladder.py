"""A ladder of seats for 2-player Défi magnétique judged by the statics: every pair plays a tournament.

    nice -n 10 .venv/bin/python scripts/ladder.py [--deals N] [--search-deals M] [--simulations S] [--seed S] [--jobs J] [--out PATH]

The seats: ``random``, ``bold``, ``careful`` (:mod:`magdomino.games.tower.players`),
``trained`` (the shipped DQN policy, :class:`magdomino.games.agent.TrainedPlayer`) and
``ismcts`` (OpenSpiel's information-set MCTS, :class:`magdomino.games.openspiel.games.ISMCTSPlayer`,
``search_physics=True``: every placement of its rollouts judged by the statics, so ``S``
simulations a move). Each pair plays :func:`magdomino.games.tournament.run_tournament`
(seats alternated deal by deal, the statics engine judging, one seed): ``N`` deals, ``M``
for the pairs with the search seat (a move of it costs seconds). The pairs run in ``J``
processes.

Printed and written (``--out``, JSON): per pair the deals, the natural ones and the first
seat's win share with its exact 95 % interval; per seat its win share over all its natural
deals with the interval; and Elo ratings, the maximum-likelihood fit of ``P(a beats b) =
1 / (1 + 10 ** ((R_b - R_a) / 400))`` to every pair's win shares, with one drawn game added
per pair (so a pair won every time has a finite gap), ``random`` at 0.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SEATS = ("random", "bold", "careful", "trained", "ismcts")
RULE = "defi"


def seat(name: str, simulations: int):
    """The player (or kind) that sits as ``name``."""
    if name == "trained":
        from magdomino.games.agent import TrainedPlayer

        return TrainedPlayer()
    if name == "ismcts":
        from magdomino.games.openspiel.games import ISMCTSPlayer

        return ISMCTSPlayer(0, max_simulations=simulations, search_physics=True)
    return name


def play_pair(pair: tuple, deals: int, seed: int, simulations: int) -> dict:
    """One pair's tournament: the pair's row (module docstring)."""
    from magdomino.games.tournament import run_tournament

    doc = run_tournament(RULE, [seat(n, simulations) for n in pair], deals, seed=seed, physics="statics")
    rows = {r["kind"]: r for r in doc["per_kind"]}
    first = rows[pair[0]]
    return {"pair": list(pair), "deals": deals, "natural": doc["ended"]["natural"], "wins": [rows[n]["wins"] for n in pair],
            "win_share": first["win_share"], "ci": first["ci"], "placements_mean": doc["placements"]["mean"]}


def elo(names: tuple, pairs: list[dict]) -> dict:
    """Maximum-likelihood Elo ratings of ``names`` from the pairs' wins (module docstring)."""
    from scipy.optimize import minimize

    index = {n: i for i, n in enumerate(names)}
    games = [(index[p["pair"][0]], index[p["pair"][1]], p["wins"][0] + 0.5, p["wins"][1] + 0.5) for p in pairs]

    def loss(free):
        r = np.concatenate([[0.0], free])
        total = 0.0
        for a, b, wa, wb in games:
            pa = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / 400.0))
            total -= wa * np.log(pa) + wb * np.log(1.0 - pa)
        return total

    fit = minimize(loss, np.zeros(len(names) - 1), method="Nelder-Mead", options={"xatol": 0.01, "fatol": 1e-9, "maxiter": 20000})
    ratings = np.concatenate([[0.0], fit.x])
    return {n: round(float(ratings[i]), 0) for n, i in index.items()}


def seat_table(names: tuple, pairs: list[dict]) -> list[dict]:
    """Per seat: its wins over its natural deals, the share and its exact 95 % interval."""
    from scipy import stats

    out = []
    for name in names:
        wins = sum(p["wins"][p["pair"].index(name)] for p in pairs if name in p["pair"])
        natural = sum(p["natural"] for p in pairs if name in p["pair"])
        low, high = stats.binomtest(min(natural, round(wins)), natural).proportion_ci(0.95) if natural else (None, None)
        out.append({"seat": name, "natural_deals": natural, "wins": wins, "win_share": wins / natural if natural else None,
                    "ci": [low, high]})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="deals a pair plays")
    parser.add_argument("--search-deals", type=int, default=6, help="deals a pair with the ismcts seat plays")
    parser.add_argument("--simulations", type=int, default=4, help="ismcts simulations a move")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if min(args.deals, args.search_deals, args.simulations, args.jobs) < 1 or args.seed < 0:
        print("command line: --deals, --search-deals, --simulations, --jobs: whole numbers >= 1; --seed >= 0", file=sys.stderr)
        return 2
    pairs = list(itertools.combinations(SEATS, 2))
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(play_pair, p, args.search_deals if "ismcts" in p else args.deals, args.seed, args.simulations)
                   for p in sorted(pairs, key=lambda p: "ismcts" not in p)]  # the long ones first
        rows = [f.result() for f in futures]
    rows.sort(key=lambda r: pairs.index(tuple(r["pair"])))
    doc = {"rule": RULE, "players": 2, "physics": "statics", "seed": args.seed, "simulations": args.simulations,
           "pairs": rows, "seats": seat_table(SEATS, rows), "elo": elo(SEATS, rows)}
    for r in rows:
        print(f"{r['pair'][0]:>8} v {r['pair'][1]:<8} {r['natural']:>3}/{r['deals']:<3} deals  "
              f"{r['win_share']:.2f} [{r['ci'][0]:.2f}, {r['ci'][1]:.2f}]")
    for s in sorted(doc["seats"], key=lambda s: -doc["elo"][s["seat"]]):
        print(f"{s['seat']:>8}  Elo {doc['elo'][s['seat']]:>6.0f}  won {s['win_share']:.2f} [{s['ci'][0]:.2f}, {s['ci'][1]:.2f}] "
              f"of {s['natural_deals']} deals")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
