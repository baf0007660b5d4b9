"""Deprecated: the old name of :mod:`magdomino.physics.motion` (the motion that puts a tile into the world); kept for one version."""

from magdomino.deprecated import forward_to

__getattr__ = forward_to("magdomino.physics.motion", __name__)
