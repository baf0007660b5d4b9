"""The OpenSpiel face of the games (optional: the ``openspiel`` extra): every game as a
pyspiel game (:mod:`~magdomino.games.openspiel.games`; 20 sur 20's moves numbered in
:mod:`~magdomino.games.openspiel.vingt`) and OpenSpiel's information-set MCTS as a player.

Nothing is imported here: import from the modules.
"""
