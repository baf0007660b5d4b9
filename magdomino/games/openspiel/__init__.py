"""The OpenSpiel face of the games (optional: the ``openspiel`` extra): every game as a
pyspiel game, one module per family (:mod:`~magdomino.games.openspiel.tower`,
:mod:`~magdomino.games.openspiel.chain`, :mod:`~magdomino.games.openspiel.vingt`; what they
share and the registration: :mod:`~magdomino.games.openspiel.games`), and OpenSpiel's
information-set MCTS as a player.

Nothing is imported here: import from the modules.
"""
