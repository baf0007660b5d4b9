"""Players: anything with ``choose(state) -> action``; the generic :class:`RandomPlayer` and
the registry of every game's player kinds.

:class:`RandomPlayer` picks uniformly among the legal actions with its own seeded
``numpy.random.Generator`` (uniforms drawn in batches, so it is cheap); it plays any game.

Each family's other players live beside its rules: :mod:`magdomino.games.tower.players`
(greedy, careful, bold), :mod:`magdomino.games.chain.players` (Le Matador's greedy; Le jeu
des échanges' greedy and planner) and :mod:`magdomino.games.vingt.players` (greedy,
lookahead). Each family has a ``make_player(kind, seed)`` that :mod:`magdomino.games`
registers for its rules (:func:`register_players`); :func:`players_of` gives a rule's.

A kind every game accepts but that needs an optional extra is looked up by name and
imported only when asked for (:data:`OPTIONAL_KINDS`, :func:`optional_player`): ``ismcts``,
OpenSpiel's information-set MCTS (:mod:`magdomino.games.openspiel.games`). So the games never
import the OpenSpiel face; it imports them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

import numpy as np

from magdomino.checks import check_choice
from magdomino.optional import require


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


OPTIONAL_KINDS = {"ismcts": ("magdomino.games.openspiel.games", "ISMCTSPlayer", "pyspiel")}
"""Player kinds of every game that live in an optional face: kind -> (module, class, the
optional package it needs), imported on use (:func:`optional_player`)."""


def optional_player(kind: str, seed=0, *, key: str = "player_kinds"):
    """The player of an optional kind (:data:`OPTIONAL_KINDS`), its module imported now; None
    when ``kind`` is not one.

    Raises
    ------
    InputError
        Its extra is not installed (naming ``key``, the argument that asked for ``kind``).
    """
    where = OPTIONAL_KINDS.get(kind)
    if where is None:
        return None
    module, name, needs = where
    require(needs, f"the {kind} player", key=key)
    return getattr(importlib.import_module(module), name)(seed)


PLAYERS: dict[str, Callable] = {}
"""Rule name -> its family's ``make_player(kind, seed)`` (:func:`register_players`)."""


def register_players(make_player: Callable, *rules: str) -> None:
    """Make ``make_player(kind, seed)`` the player maker of each of ``rules``."""
    for rule in rules:
        PLAYERS[rule] = make_player


def players_of(rule: str) -> Callable:
    """The ``make_player(kind, seed)`` of ``rule``'s players (registered in :mod:`magdomino.games`).

    Raises
    ------
    InputError
        No players are registered for ``rule`` (naming ``rule``).
    """
    return PLAYERS[check_choice(rule, "rule", tuple(PLAYERS))]
