"""magdomino: simulate Magnetic Domino towers.

Layers, bottom to top (a module never imports from a layer above it):

- math: :mod:`magdomino.magnets`, :mod:`magdomino.geometry`
- model: :mod:`magdomino.tiles`, :mod:`magdomino.presets`
- physics: :mod:`magdomino.world`, :mod:`magdomino.verdict`
- studies: :mod:`magdomino.scenario`, :mod:`magdomino.odds`
- games: :mod:`magdomino.rules`, :mod:`magdomino.players`
- faces: :mod:`magdomino.cli`, :mod:`magdomino.plots`, :mod:`magdomino.render`

``import magdomino`` stays light: submodules are imported where used.
"""

__version__ = "0.1.0"
