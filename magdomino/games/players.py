"""Players: anything with ``choose(state) -> action``.

:class:`RandomPlayer` picks uniformly among the legal actions with its own seeded
``numpy.random.Generator`` (uniforms drawn in batches, so it is cheap);
:class:`GreedyPlayer` places the heaviest tile (largest pip total), ties broken by the
stable order of ``legal_actions()``. A physics-aware player only needs the same method.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from magdomino.errors import ARGUMENTS, InputError

PLAYER_KINDS = ("random", "greedy")


class Player(Protocol):
    def choose(self, state) -> object:
        """One of ``state.legal_actions()``."""


class RandomPlayer:
    """Uniform over the legal actions. ``seed`` seeds its own generator."""

    kind = "random"

    def __init__(self, seed: int | np.random.SeedSequence | None = 0):
        self.rng = np.random.default_rng(seed)
        self._buf = self.rng.random(256).tolist()
        self._i = 0

    def choose(self, state):
        legal = state.legal_actions()
        n = len(legal)
        if n == 1:
            return legal[0]
        i = self._i
        if i >= 256:
            self._buf = self.rng.random(256).tolist()
            i = 0
        self._i = i + 1
        return legal[int(self._buf[i] * n)]


class GreedyPlayer:
    """The heaviest tile first (pip total); ties by the stable order of legal actions."""

    kind = "greedy"

    def __init__(self, seed=None):
        pass

    def choose(self, state):
        legal = state.legal_actions()
        best = legal[0]
        if len(legal) == 1 or best.kind != "place":
            return best
        weight = sum(best.tile)
        for a in legal[1:]:
            w = a.tile[0] + a.tile[1]
            if w > weight:
                best, weight = a, w
        return best


def make_player(kind: str, seed=0):
    """A player by name: ``"random"`` (seeded) or ``"greedy"``."""
    if kind == "ismcts":  # OpenSpiel's ISMCTS: an optional extra, imported on use
        from magdomino.games.openspiel_games import ISMCTSPlayer

        return ISMCTSPlayer(seed)
    if kind == "random":
        return RandomPlayer(seed)
    if kind == "greedy":
        return GreedyPlayer()
    raise InputError(ARGUMENTS, "player_kinds", f"one of {', '.join(PLAYER_KINDS)}, got {kind!r}")
