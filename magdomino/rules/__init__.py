"""The rules layer: the three Magnetic Domino rules as games with an OpenSpiel-like State API.

- :class:`Game`, :class:`State` (:mod:`magdomino.rules.game`): traditional, defi, quinconce;
  choices made where RULES.md is silent are listed in that module's docstring.
- :class:`Action`, :class:`Deal`, :data:`DRAW`, :data:`PASS`, :data:`DEAL`
  (:mod:`magdomino.rules.actions`).
- The adjudicator interface and the ``none`` and scripted adjudicators
  (:mod:`magdomino.rules.adjudicator`); the PyBullet one lives in the physics layer.
- :func:`play_game` and :func:`format_record` (:mod:`magdomino.rules.record`): game records
  for the command line.

Nothing here imports pybullet.
"""

from magdomino.rules.actions import DEAL, DRAW, PASS, Action, Deal
from magdomino.rules.adjudicator import (
    Adjudicator,
    ConstructionInfo,
    NoPhysics,
    Outcome,
    PlacedTile,
    PlacementView,
    ScriptedAdjudicator,
    make_adjudicator,
)
from magdomino.rules.game import CHANCE, RULES, TERMINAL, Game, IllegalActionError, State
from magdomino.rules.record import format_record, play_game

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
