"""Deprecated: the old name of :mod:`magdomino.studies.placement_language` (the placement language); kept for one version."""

from magdomino.deprecated import forward_to

__getattr__ = forward_to("magdomino.studies.placement_language", __name__)
