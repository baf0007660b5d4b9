"""Pure-rules speed: random traditional 2-player games per second, against the ``dominoes``
package (PyPI, 6.1.0) playing random games, measured side by side in one run.

``rules_games_per_s_over_dominoes`` is the figure that counts (goal >= 1.0); with
``matador_games_per_s_over_dominoes`` the same for random 2-player games of Le Matador
(goal >= 1.0). ``echanges_planner_win_rate`` is the share of Le jeu des échanges games the
team wins when every seat is the planner (:class:`magdomino.games.chain.players.PlannerPlayer`),
with its 95 % interval (``scipy.stats.binomtest(...).proportion_ci()``), beside the rate of
a team choosing its placements and exchanges at random, on the same deals. Each side plays
whole games from a fresh deal with random players: ours through the public State API
(``Game(...).new_initial_state()``, ``DEAL``, ``RandomPlayer.choose``, ``apply_action``),
theirs with ``dominoes.Game.new()`` and ``dominoes.players.random`` (its 4-player game
without a stock). The two are timed in alternating slices so that machine noise hits both.
``dominoes`` is installed here if missing, never as a project dependency.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _dominoes():
    try:
        return importlib.import_module("dominoes")
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "dominoes==6.1.0"], check=True)
        importlib.invalidate_caches()
        return importlib.import_module("dominoes")


def _ours(seconds: float, start_seed: int, rule: str = "traditional") -> tuple[int, float]:
    from magdomino.games import CHANCE, TERMINAL, Game
    from magdomino.games.players import RandomPlayer

    player = RandomPlayer(start_seed)
    games = 0
    seed = start_seed
    t0 = time.perf_counter()
    while True:
        state = Game(rule, 2, seed).new_initial_state()
        while True:
            cur = state.current
            if cur == TERMINAL:
                break
            state.apply_action(state.legal_actions()[0] if cur == CHANCE else player.choose(state))
        games += 1
        seed += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return games, elapsed


def _theirs(dominoes, seconds: float) -> tuple[int, float]:
    rand = dominoes.players.random
    games = 0
    t0 = time.perf_counter()
    while True:
        game = dominoes.Game.new()
        while game.result is None:
            rand(game)
            game.make_move(*game.valid_moves[0])
        games += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return games, elapsed


def planner_win_rate(games: int, players: int = 4) -> dict[str, float]:
    """Team win rates of Le jeu des échanges: every seat the planner, or every seat random,
    on the same ``games`` deals (seeds 0, 1, ...); the planner's with its 95 % interval."""
    from scipy.stats import binomtest

    from magdomino.games.chain.record import play_chain

    won = {kind: sum(play_chain("echanges", players, seed, player_kinds=kind)["returns"][0] > 0 for seed in range(games))
           for kind in ("planner", "random")}
    low, high = binomtest(won["planner"], games).proportion_ci(0.95)
    return {
        "echanges_planner_win_rate": won["planner"] / games,
        "echanges_planner_win_rate_ci95_low": low,
        "echanges_planner_win_rate_ci95_high": high,
        "echanges_random_win_rate": won["random"] / games,
    }


def run(quick: bool = False) -> dict[str, float]:
    dominoes = _dominoes()
    import random

    random.seed(0)  # dominoes shuffles with the random module
    rounds, slice_s = (3, 0.3) if quick else (8, 1.0)
    _ours(0.1, 10**6)  # warm caches and imports on both sides
    _theirs(dominoes, 0.1)
    _ours(0.1, 10**6, "matador")
    ours_n = ours_t = theirs_n = theirs_t = mat_n = mat_t = 0.0
    seed = 0
    for _ in range(rounds):
        n, t = _ours(slice_s, seed)
        ours_n += n
        ours_t += t
        n, t = _ours(slice_s, seed, "matador")
        mat_n += n
        mat_t += t
        seed += n
        n, t = _theirs(dominoes, slice_s)
        theirs_n += n
        theirs_t += t
    ours = ours_n / ours_t
    theirs = theirs_n / theirs_t
    matador = mat_n / mat_t
    return {
        "rules_games_per_s_over_dominoes": ours / theirs,
        "rules_traditional_2p_games_per_s": ours,
        "matador_games_per_s_over_dominoes": matador / theirs,
        "matador_2p_games_per_s": matador,
        "dominoes_random_games_per_s": theirs,
        **planner_win_rate(300 if quick else 2000),
    }


if __name__ == "__main__":
    for key, value in run(quick="--quick" in sys.argv).items():
        print(f"{key:<40} {value:.4g}")
