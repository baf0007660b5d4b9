"""Optional packages: one way to import one, and one message naming the extra that installs it.

The plain install is lean (pybullet, numpy, scipy, trimesh, matplotlib); the rest comes with
an extra of ``pyproject.toml``. A module that needs such a package imports it where it is
used, through :func:`require`, which says which extra brings it::

    go = require("plotly.graph_objects", "the 3D view", key="view3d")
    # InputError: arguments: view3d: the 3D view needs plotly: pip install 'magdomino[view]'
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from magdomino.errors import ARGUMENTS, InputError

EXTRAS = {
    "chex": "train",
    "distributed": "cluster",
    "etils": "train",
    "flax": "train",
    "gymnasium": "pettingzoo",
    "imageio": "video",
    "imageio_ffmpeg": "video",
    "jax": "train",
    "nicegui": "lab",
    "optax": "train",
    "orbax": "train",
    "pandas": "test",
    "pettingzoo": "pettingzoo",
    "plotly": "view",
    "pyspiel": "openspiel",
}
"""The extra of ``pyproject.toml`` that installs each optional package (by its top-level module)."""

DISTRIBUTIONS = {"pyspiel": "open_spiel", "distributed": "dask[distributed]", "imageio_ffmpeg": "imageio-ffmpeg"}
"""Packages whose name on PyPI differs from their module's."""


def install_hint(module: str) -> str:
    """The one command that installs ``module`` (a dotted name: its top-level package counts)."""
    top = module.partition(".")[0]
    extra = EXTRAS.get(top)
    if extra is None or extra == "test":
        return f"pip install {DISTRIBUTIONS.get(top, top)}"
    return f"pip install 'magdomino[{extra}]'"


def require(module: str, purpose: str, *, key: str, source: str = ARGUMENTS) -> ModuleType:
    """Import ``module``, or raise the one-line error that says how to install it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"plotly.graph_objects"``.
    purpose : str
        What needs it, in the user's words (``"the 3D view"``, ``"an .mp4"``).
    key : str
        The argument (or command-line option, through the command line's table) that asked
        for it: the error names it.
    source : str
        The error's source (:data:`~magdomino.errors.ARGUMENTS` by default).

    Raises
    ------
    InputError
        ``module`` (or a package it needs) is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = (exc.name or module).partition(".")[0]
        raise InputError(source, key, f"{purpose} needs {missing}: {install_hint(missing)}") from None


def available(module: str) -> bool:
    """Is ``module`` installed (without importing it)?"""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
