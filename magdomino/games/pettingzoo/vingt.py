"""20 sur 20 (rule ``vingt``) as a PettingZoo AEC environment, its moves of several tiles
chosen in one-tile sub-steps by the same agent (:mod:`magdomino.games.pettingzoo` says how
the environments behave).

As a PettingZoo game module: a module-level ``raw_env`` class and ``env()``, which wraps it
in PettingZoo's ``OrderEnforcingWrapper``.
"""

from __future__ import annotations

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from magdomino.games.family import VINGT
from magdomino.games.pettingzoo.core import MagdominoEnv


class raw_env(MagdominoEnv):  # noqa: N801 (PettingZoo's name for a game's environment class)
    """A game of this family (:func:`magdomino.games.pettingzoo.env`'s arguments)."""

    FAMILY = VINGT

    def __init__(self, rule: str = "vingt", players: int = 2, physics: str = "none", seed: int = 0,
                 render_mode: str | None = None, preset=None, magnets: bool = True, **options):
        super().__init__(rule, players, physics, seed, render_mode, preset, magnets, **options)


def env(rule: str = "vingt", players: int = 2, physics: str = "none", seed: int = 0, *,
        render_mode: str | None = None, preset=None, magnets: bool = True, **options):
    """``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` (:func:`magdomino.games.pettingzoo.env`)."""
    return OrderEnforcingWrapper(raw_env(rule, players, physics, seed, render_mode, preset, magnets, **options))
