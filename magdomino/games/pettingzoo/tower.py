"""Traditional, Défi magnétique and En quinconce (rules ``traditional``, ``defi``,
``quinconce``), judged by the physics chosen at creation, as PettingZoo AEC environments
(:mod:`magdomino.games.pettingzoo` says how they behave).

As a PettingZoo game module: a module-level ``raw_env`` class and ``env()``, which wraps it
in PettingZoo's ``OrderEnforcingWrapper``.
"""

from __future__ import annotations

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from magdomino.games.family import TOWER
from magdomino.games.pettingzoo.core import MagdominoEnv


class raw_env(MagdominoEnv):  # noqa: N801 (PettingZoo's name for a game's environment class)
    """A game of this family (:func:`magdomino.games.pettingzoo.env`'s arguments)."""

    FAMILY = TOWER

    def __init__(self, rule: str = "defi", players: int = 2, physics: str = "none", seed: int = 0,
                 render_mode: str | None = None, preset=None, magnets: bool = True, **options):
        super().__init__(rule, players, physics, seed, render_mode, preset, magnets, **options)


def env(rule: str = "defi", players: int = 2, physics: str = "none", seed: int = 0, *,
        render_mode: str | None = None, preset=None, magnets: bool = True, **options):
    """``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` (:func:`magdomino.games.pettingzoo.env`)."""
    return OrderEnforcingWrapper(raw_env(rule, players, physics, seed, render_mode, preset, magnets, **options))
