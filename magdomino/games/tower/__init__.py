"""The tower rules: the traditional game, Défi magnétique and En quinconce, which share one
:class:`~magdomino.games.tower.state.State`, with the rules' placement grid, a tile's legal
placements on a settled structure and the physics-aware players.

Nothing is imported here: import from the modules.
"""
