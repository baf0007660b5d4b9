"""The rules layer: six domino games with an OpenSpiel-like State API.

The games, by family (each family's players beside its rules):

- **The tower rules**, Magnetic Domino (:mod:`magdomino.games.tower`): the traditional game,
  Défi magnétique (``defi``) and En quinconce (``quinconce``), one :class:`State`
  (:mod:`~magdomino.games.tower.state`) and a :class:`~magdomino.games.core.Rule` object
  each (:mod:`~magdomino.games.tower.rules`, registered by their family with :func:`register_rule`);
  the rules' placement grid (:mod:`~magdomino.games.tower.grid`), a tile's legal placements
  on a settled structure, for what-if studies (:mod:`~magdomino.games.tower.candidates`),
  and the greedy and physics-aware players, careful and bold
  (:mod:`~magdomino.games.tower.players`).
- **The chain games**, with ordinary dominoes (:mod:`magdomino.games.chain`): Le Matador
  (``matador``) and Le jeu des échanges (``echanges``) on their shared core
  (:mod:`~magdomino.games.chain.core`), their records (:mod:`~magdomino.games.chain.record`)
  and players (greedy, planner: :mod:`~magdomino.games.chain.players`).
- **20 sur 20** (``vingt``, :mod:`magdomino.games.vingt`): the game
  (:mod:`~magdomino.games.vingt.game`), its table and move generator
  (:mod:`~magdomino.games.vingt.moves`) and players (greedy, lookahead:
  :mod:`~magdomino.games.vingt.players`).

The shared core, here:

- :class:`Game` and the registries (:mod:`magdomino.games.core`; choices made where
  the leaflets are silent are listed in its docstring and in ``docs/rules/index.md``): ``Game(rule, players, seed, options)``
  plays a rule registered with :func:`register_rule`; :func:`make_game` makes a match of
  any game: a :class:`Game`, or for a game registered with :func:`register_game` (vingt,
  matador, echanges) an instance of that game's own class.
- :class:`Action`, :class:`Deal`, :data:`DRAW`, :data:`PASS`, :data:`DEAL`
  (:mod:`magdomino.games.actions`).
- The adjudicator interface and the ``none`` and scripted adjudicators
  (:mod:`magdomino.physics.adjudicator`); the PyBullet one lives in the physics layer.
- :func:`play_game` and :func:`format_record` (:mod:`magdomino.games.record`): the tower
  rules' game records for the command line; tournaments between player kinds of any game
  (:mod:`magdomino.games.tournament`).
- :class:`GameSession` (:mod:`magdomino.games.session`): a game of any rule driven move by
  move, with seats of the caller's, player kinds and player objects (the player protocol);
  ``play_game`` and its siblings play through it.
- The game families (:mod:`magdomino.games.family`): one object per family (tower, chain,
  20 sur 20) that every face asks for what differs between the games (its rules, record,
  log lines, saved options, defaults, guards, observation and action ids); it registers
  its games (:func:`register_rule`, :func:`~magdomino.games.core.register_game`) and
  their players, and a seventh game is one entry there (``docs/howto/layers.md``).
- Players (:mod:`magdomino.games.players`): the generic random player and the registry of
  every rule's player kinds (registered by the families).

The OpenSpiel face (:mod:`magdomino.games.openspiel`: every game as a pyspiel game, and the
``ismcts`` player) imports the games and is never imported by them; the ``ismcts`` kind is
looked up by name and imported only when asked for. Nothing here imports pybullet or
pyspiel.
"""

from magdomino.games.actions import DEAL, DRAW, PASS, Action, Deal
from magdomino.games.core import CHANCE, RULES, TERMINAL, Game, IllegalActionError, make_game, register_rule
from magdomino.games.family import FAMILIES  # noqa: F401 - imported to register the game families, their games and players
from magdomino.games.record import format_record, play_game
from magdomino.games.session import GameSession
from magdomino.games.tower.state import State
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

__all__ = [
    "Action",
    "Adjudicator",
    "CHANCE",
    "ConstructionInfo",
    "DEAL",
    "DRAW",
    "Deal",
    "Game",
    "GameSession",
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
    "make_game",
    "play_game",
    "register_rule",
]
