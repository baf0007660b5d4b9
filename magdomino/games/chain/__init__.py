"""The chain games, played with ordinary dominoes: Le Matador and Le jeu des échanges, on
their shared core (:mod:`~magdomino.games.chain.core`), with their records and players.

Nothing is imported here: import from the modules.
"""
