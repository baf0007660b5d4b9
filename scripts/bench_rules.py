"""Pure-rules speed: random traditional 2-player games per second, against the ``dominoes``
package (PyPI, 6.1.0) playing random games, measured side by side in one run.

``rules_games_per_s_over_dominoes`` is the figure that counts (goal >= 1.0). Each side plays
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


def _ours(seconds: float, start_seed: int) -> tuple[int, float]:
    from magdomino.games.players import RandomPlayer
    from magdomino.games import CHANCE, DEAL, TERMINAL, Game

    player = RandomPlayer(start_seed)
    games = 0
    seed = start_seed
    t0 = time.perf_counter()
    while True:
        state = Game("traditional", 2, seed).new_initial_state()
        while True:
            cur = state.current
            if cur == TERMINAL:
                break
            state.apply_action(DEAL if cur == CHANCE else player.choose(state))
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


def run(quick: bool = False) -> dict[str, float]:
    dominoes = _dominoes()
    import random

    random.seed(0)  # dominoes shuffles with the random module
    rounds, slice_s = (3, 0.3) if quick else (8, 1.0)
    _ours(0.1, 10**6)  # warm caches and imports on both sides
    _theirs(dominoes, 0.1)
    ours_n = ours_t = theirs_n = theirs_t = 0.0
    seed = 0
    for _ in range(rounds):
        n, t = _ours(slice_s, seed)
        ours_n += n
        ours_t += t
        seed += n
        n, t = _theirs(dominoes, slice_s)
        theirs_n += n
        theirs_t += t
    ours = ours_n / ours_t
    theirs = theirs_n / theirs_t
    return {
        "rules_games_per_s_over_dominoes": ours / theirs,
        "rules_traditional_2p_games_per_s": ours,
        "dominoes_random_games_per_s": theirs,
    }


if __name__ == "__main__":
    for key, value in run(quick="--quick" in sys.argv).items():
        print(f"{key:<40} {value:.4g}")
