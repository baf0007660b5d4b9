"""The rules layer: the three Magnetic Domino rules as games with an OpenSpiel-like State API.

- :class:`Game`, :class:`State` (:mod:`magdomino.games.game`): traditional, defi, quinconce;
  choices made where RULES.md is silent are listed in that module's docstring.
- :class:`Action`, :class:`Deal`, :data:`DRAW`, :data:`PASS`, :data:`DEAL`
  (:mod:`magdomino.games.actions`).
- The adjudicator interface and the ``none`` and scripted adjudicators
  (:mod:`magdomino.physics.adjudicator`); the PyBullet one lives in the physics layer.
- :func:`play_game` and :func:`format_record` (:mod:`magdomino.games.record`): game records
  for the command line.

Nothing here imports pybullet.
"""

from magdomino.games.actions import DEAL, DRAW, PASS, Action, Deal
from magdomino.physics.adjudicator import (
    Adjudicator,
    ConstructionInfo,
    NoPhysics,
    Outcome,
    PlacedTile,
    PlacementView,
    ScriptedAdjudicator,
    make_adjudicator,
)
from magdomino.games.game import CHANCE, RULES, TERMINAL, Game, IllegalActionError, State
from magdomino.games.record import format_record, play_game

__all__ = [
    "Action",
    "Adjudicator",
    "CHANCE",
    "ConstructionInfo",
    "DEAL",
    "DRAW",
    "Deal",
    "Game",
    "IllegalActionError",
    "NoPhysics",
    "Outcome",
    "PASS",
    "PlacedTile",
    "PlacementView",
    "RULES",
    "ScriptedAdjudicator",
    "State",
    "TERMINAL",
    "format_record",
    "make_adjudicator",
    "play_game",
]
