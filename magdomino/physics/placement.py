"""Deprecated: the old name of :mod:`magdomino.physics.motion` (the motion that puts a tile into the world); kept for one version."""

from __future__ import annotations

import importlib
import warnings


def __getattr__(name: str):
    if name.startswith("__"):  # tools probing a module (__path__, __all__) get the plain answer
        raise AttributeError(name)
    warnings.warn(
        "magdomino.physics.placement is magdomino.physics.motion now; import it from there",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module("magdomino.physics.motion"), name)
