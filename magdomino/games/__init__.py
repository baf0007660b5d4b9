"""The rules layer: the three Magnetic Domino rules as games with an OpenSpiel-like State API.

- :class:`Game` and the rule registry (:mod:`magdomino.games.core`; choices made where
  RULES.md is silent are listed in its docstring), :class:`State`
  (:mod:`magdomino.games.tower.state`); each rule an object of
  :mod:`~magdomino.games.tower.rules`, registered below. (20 sur 20 is :mod:`magdomino.games.vingt.game`.)
- Games with a State of their own, registered with :func:`register_game`:
  :mod:`~magdomino.games.vingt.game`; Le Matador (:mod:`~magdomino.games.chain.matador`) and Le jeu
  des échanges (:mod:`~magdomino.games.chain.echanges`) on the chain games' core
  (:mod:`~magdomino.games.chain.core`, records in :mod:`~magdomino.games.chain.record`).
- The rules' placement grid (:mod:`magdomino.games.tower.grid`) and a tile's legal placements on
  a settled structure, for what-if studies (:mod:`magdomino.games.tower.candidates`).
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
from magdomino.games.core import CHANCE, RULES, TERMINAL, Game, IllegalActionError, register_game, register_rule
from magdomino.games.players import register_players
from magdomino.games.record import format_record, play_game
from magdomino.games.tower.players import make_player as _make_tower_player
from magdomino.games.tower.rules import Defi, Quinconce, Traditional
from magdomino.games.tower.state import State
from magdomino.games.chain.echanges import EchangesGame
from magdomino.games.chain.matador import MatadorGame
from magdomino.games.chain.players import make_echanges_player as _make_echanges_player
from magdomino.games.chain.players import make_matador_player as _make_matador_player
from magdomino.games.vingt.game import VingtGame
from magdomino.games.vingt.players import make_player as _make_vingt_player

register_rule(Traditional())
register_rule(Defi())
register_rule(Quinconce())
register_game("vingt", VingtGame)
register_game("matador", MatadorGame)
register_game("echanges", EchangesGame)
register_players(_make_tower_player, "traditional", "defi", "quinconce")
register_players(_make_matador_player, "matador")
register_players(_make_echanges_player, "echanges")
register_players(_make_vingt_player, "vingt")

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
    "register_rule",
]
