"""Le Matador and Le jeu des échanges (rules ``matador``, ``echanges``) as PettingZoo AEC
environments (:mod:`magdomino.games.pettingzoo` says how they behave).

As a PettingZoo game module: a module-level ``raw_env`` class and ``env()``, which wraps it
in PettingZoo's ``OrderEnforcingWrapper``.
"""

from __future__ import annotations

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from magdomino.games.family import CHAIN
from magdomino.games.pettingzoo.core import MagdominoEnv


class raw_env(MagdominoEnv):  # noqa: N801 (PettingZoo's name for a game's environment class)
    """A game of this family (:func:`magdomino.games.pettingzoo.env`'s arguments)."""

    FAMILY = CHAIN

    def __init__(self, rule: str = "matador", players: int = 2, physics: str = "none", seed: int = 0,
                 render_mode: str | None = None, preset=None, magnets: bool = True, **options):
        super().__init__(rule, players, physics, seed, render_mode, preset, magnets, **options)


def env(rule: str = "matador", players: int = 2, physics: str = "none", seed: int = 0, *,
        render_mode: str | None = None, preset=None, magnets: bool = True, **options):
    """``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` (:func:`magdomino.games.pettingzoo.env`)."""
    return OrderEnforcingWrapper(raw_env(rule, players, physics, seed, render_mode, preset, magnets, **options))
