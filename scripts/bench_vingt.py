"""20 sur 20: the legal-move generator's speed and the players' strength.

- ``vingt_moves_per_s``: moves generated per second of CPU over the positions met in
  random games (every decision point, replays included).
- ``vingt_crowded_ms_per_position`` (mean) and ``vingt_crowded_ms_p95``: the generator's
  time on crowded tables (>= 30 tiles placed, a full rack of 5); the goal is < 20 ms.
- ``vingt_winrate_<kind>`` with ``_lo``/``_hi``: each player's share of the rounds won in
  3-player games of random vs greedy vs lookahead (every seat order in turn, ties
  shared), with the 95 % Clopper-Pearson interval (scipy's ``binomtest(...).proportion_ci``,
  on the rounds won outright plus half of each shared one, rounded).
- ``vingt_lookahead_vs_greedy`` with ``_lo``/``_hi``: lookahead's share against greedy
  in as many 2-player rounds, seats alternating.
"""

from __future__ import annotations

import random
import time
from itertools import permutations


def _positions(games: int, seed: int):
    from magdomino.games.vingt.game import CHANCE, VingtGame

    out, crowded = [], []
    rng = random.Random(seed)
    for i in range(games):
        state = VingtGame(2 + i % 3, seed + i).new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.current != CHANCE:
                pos = (dict(state.occ), list(state.racks[state.current]), not state.occ, 1 if state.replay else 5)
                out.append(pos)
                if len(state.tiles) >= 30 and not state.replay and len(pos[1]) == 5:
                    crowded.append(pos)
            state.apply_action(legal[0] if state.current == CHANCE else rng.choice(legal))
    return out, crowded


def _time_generator(positions, repeats: int):
    from magdomino.games.vingt import moves as vingt_moves

    best, moves = float("inf"), 0
    for _ in range(repeats):
        vingt_moves._SUBSETS.clear()  # no help from racks met in an earlier pass
        t = time.process_time()
        moves = sum(len(vingt_moves.legal_moves(*p)) for p in positions)
        best = min(best, time.process_time() - t)
    return best, moves


def _crowded_times(positions):
    from magdomino.games.vingt import moves as vingt_moves

    times = []
    for p in positions:
        vingt_moves._SUBSETS.clear()
        t = time.perf_counter()
        vingt_moves.legal_moves(*p)
        times.append(time.perf_counter() - t)
    times.sort()
    return sum(times) / len(times), times[int(0.95 * (len(times) - 1))]


def _win_rates(rounds: int, seed: int) -> dict:
    from scipy.stats import binomtest

    from magdomino.games.vingt.game import CHANCE, VingtGame
    from magdomino.games.vingt.players import make_player

    kinds = ("random", "greedy", "lookahead")
    orders = list(permutations(range(3)))
    wins = dict.fromkeys(kinds, 0.0)
    for r in range(rounds):
        order = orders[r % len(orders)]  # seat s plays kinds[order[s]]
        seats = [kinds[i] for i in order]
        agents = [make_player(k, seed + 7 * r + s) for s, k in enumerate(seats)]
        state = VingtGame(3, seed + r).new_initial_state()
        while not state.is_terminal():
            cur = state.current
            state.apply_action(state.legal_actions()[0] if cur == CHANCE else agents[cur].choose(state))
        for s, share in enumerate(state.returns()):
            wins[seats[s]] += share
    out = {}
    for k in kinds:
        ci = binomtest(int(round(wins[k])), rounds).proportion_ci(0.95)
        out[f"vingt_winrate_{k}"] = wins[k] / rounds
        out[f"vingt_winrate_{k}_lo"] = ci.low
        out[f"vingt_winrate_{k}_hi"] = ci.high
    out["vingt_rounds"] = float(rounds)
    # head to head: lookahead against greedy, two players, seats alternating
    won = 0.0
    for r in range(rounds):
        seats = ("lookahead", "greedy") if r % 2 == 0 else ("greedy", "lookahead")
        agents = [make_player(k, seed + r) for k in seats]
        state = VingtGame(2, seed + 100_000 + r).new_initial_state()
        while not state.is_terminal():
            cur = state.current
            state.apply_action(state.legal_actions()[0] if cur == CHANCE else agents[cur].choose(state))
        won += state.returns()[seats.index("lookahead")]
    ci = binomtest(int(round(won)), rounds).proportion_ci(0.95)
    out["vingt_lookahead_vs_greedy"] = won / rounds
    out["vingt_lookahead_vs_greedy_lo"] = ci.low
    out["vingt_lookahead_vs_greedy_hi"] = ci.high
    return out


def run(quick: bool) -> dict[str, float]:
    positions, crowded = _positions(40 if quick else 150, 1000)
    extra = 0
    while len(crowded) < (20 if quick else 100) and extra < 40:
        more = _positions(50, 5000 + 50 * extra)[1]
        crowded += more
        extra += 1
    seconds, moves = _time_generator(positions, 1 if quick else 3)
    mean, p95 = _crowded_times(crowded)
    out = {
        "vingt_moves_per_s": moves / seconds,
        "vingt_positions_per_s": len(positions) / seconds,
        "vingt_crowded_ms_per_position": 1000 * mean,
        "vingt_crowded_ms_p95": 1000 * p95,
        "vingt_crowded_positions": float(len(crowded)),
    }
    out.update(_win_rates(60 if quick else 1002, 77))
    return out


if __name__ == "__main__":
    for key, value in run(quick=False).items():
        print(f"{key:<36} {value:.4g}")
