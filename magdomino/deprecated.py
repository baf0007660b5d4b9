"""Names kept for one version after a move: one way to forward them, with one warning.

A module whose contents moved keeps its old path as a module-level ``__getattr__`` made by
:func:`forward_to`: the old import works and warns ``DeprecationWarning`` naming the new
module.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Collection


def forward_to(new: str, old: str, names: Collection[str] | None = None) -> Callable[[str], object]:
    """A module ``__getattr__`` for the module ``old`` whose ``names`` (default: every name)
    live in the module ``new`` now: each warns, then returns the new module's object.

    The new module is imported by name when first asked for: it may import the old one.
    Dunder probes (``__path__``, ``__all__``) get the plain AttributeError.
    """

    def __getattr__(name: str):
        if name.startswith("__") or (names is not None and name not in names):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old}.{name} is in {new} now; import it from there", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)

    return __getattr__
