"""20 sur 20 (Fernand Nathan): the game (:mod:`~magdomino.games.vingt.game`), its table
and legal-move generator (:mod:`~magdomino.games.vingt.moves`) and its players.

Nothing is imported here: import from the modules.
"""
