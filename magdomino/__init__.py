"""magdomino: simulate Magnetic Domino towers.

Layers, bottom to top (a module never imports from a layer above it):

- math: :mod:`magdomino.maths.magnets`, :mod:`magdomino.maths.geometry`
- model: :mod:`magdomino.model.tiles`, :mod:`magdomino.model.presets`
- physics: :mod:`magdomino.physics.world`, :mod:`magdomino.physics.verdict`
- studies: :mod:`magdomino.studies.scenario`, :mod:`magdomino.studies.odds`
- games: :mod:`magdomino.games`, :mod:`magdomino.games.players`
- faces: :mod:`magdomino.faces.cli`, :mod:`magdomino.faces.plots`, :mod:`magdomino.faces.render`

``import magdomino`` stays light: submodules are imported where used.
"""

from magdomino.version import __version__  # noqa: F401
