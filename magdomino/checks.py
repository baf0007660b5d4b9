"""Every check of a value the user gave: a file's key or a function's argument.

Each failure is an :class:`~magdomino.errors.InputError` naming the source (the file, or
:data:`~magdomino.errors.ARGUMENTS`) and the key, in one wording per kind of value:

- a number: ``expected a number in [0, 1], got 2`` (:func:`check_number`);
- a whole number: ``expected a whole number >= 0, got -1`` (:func:`check_count`,
  :func:`check_seed`);
- a probability: ``expected a probability in [0, 1], got 1.5`` (:func:`check_probability`);
- one of a few names: ``expected one of 'a', 'b', got 'c'`` (:func:`check_choice`).

A file's tables are read through :class:`FileChecks` (the preset, measurement and scenario
loaders).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from magdomino.errors import ARGUMENTS, InputError


class FileChecks:
    """Checks values of one file; every failure names the file and the key."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, expected: str):
        raise InputError(self.source, key, f"expected {expected}")

    def keys(self, table: dict, where: str, required: set[str], optional: set[str]):
        prefix = f"{where}." if where else ""
        for k in table:
            if k not in required | optional:
                allowed = ", ".join(sorted(required | optional))
                raise InputError(self.source, prefix + k, f"unknown key; expected one of {allowed}")
        for k in sorted(required):
            if k not in table:
                raise InputError(self.source, prefix + k, "missing required key")

    def table(self, data: dict, key: str) -> dict:
        value = data[key]
        if not isinstance(value, dict):
            self.fail(key, "a table")
        return value

    def string(self, data: dict, key: str) -> str:
        value = data[key]
        if not isinstance(value, str):
            self.fail(key, "a string")
        return value

    def boolean(self, data: dict, path: str, key: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            self.fail(path, "true or false")
        return value

    def choice(self, data: dict, path: str, key: str, options: tuple[str, ...], default: str | None) -> str:
        value = data.get(key, default)
        if value not in options:
            self.fail(path, f"one of {', '.join(repr(o) for o in options)}, got {value!r}")
        return value

    def number(
        self,
        data: dict,
        path: str,
        key: str,
        *,
        positive: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        integer: bool = False,
        default: float | None = None,
    ) -> float:
        value = data.get(key, default)
        return check_number(self.source, path, value, positive=positive, minimum=minimum, maximum=maximum, integer=integer)

    def vector(
        self,
        data: dict,
        path: str,
        key: str,
        n: int,
        *,
        positive: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        default: list | None = None,
    ) -> list[float]:
        value = data.get(key, default)
        if not isinstance(value, list) or len(value) != n:
            self.fail(path, f"a list of {n} numbers")
        return [
            check_number(self.source, f"{path}[{i}]", v, positive=positive, minimum=minimum, maximum=maximum)
            for i, v in enumerate(value)
        ]

    def bounded(self, data: dict, path: str, key: str, low: float, high: float, integer: bool = False, zero: bool = False) -> float:
        """A number in ``[low, high]`` (``(0, high]`` when ``low`` is 0 and not ``zero``), a whole one if ``integer``."""
        positive = low == 0 and not zero
        value = check_number(self.source, path, data[key], positive=positive, minimum=None if positive else low, maximum=high,
                             integer=integer)
        return int(value) if integer else value


def check_number(
    source: str,
    key: str,
    value: Any,
    *,
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
    integer: bool = False,
) -> float:
    """Check one number from a file; raise :class:`InputError` naming ``source`` and ``key``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(source, key, "expected a number")
    if integer and not float(value).is_integer():
        raise InputError(source, key, f"expected a whole number, got {value}")
    value = float(value)
    whole = "a whole number" if integer else "a number"
    if not math.isfinite(value):
        raise InputError(source, key, f"expected a finite number, got {value}")
    low_ok = not (positive and value <= 0) and not (minimum is not None and value < minimum)
    if not low_ok or (maximum is not None and value > maximum):
        raise InputError(source, key, f"expected {whole} {_range_text(positive, minimum, maximum)}, got {value:g}")
    return value


def _range_text(positive: bool, minimum: float | None, maximum: float | None) -> str:
    """The allowed range in words: ``in (0, 1000]``, ``>= 0``, ``in [1, 500]``."""
    if positive and (minimum is None or minimum <= 0):
        low, bracket = 0.0, "("
    elif minimum is not None:
        low, bracket = minimum, "["
    else:
        low, bracket = None, ""
    if low is None:
        return f"<= {maximum:g}"
    if maximum is None:
        return f"> {low:g}" if bracket == "(" else f">= {low:g}"
    return f"in {bracket}{low:g}, {maximum:g}]"


def is_whole(value: Any) -> bool:
    """Is ``value`` a Python or NumPy integer (not a bool)? (NumPy registers its integers as
    :class:`numbers.Integral`; numpy itself is not imported here: the command line starts
    without it.)"""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_count(value: Any, key: str, *, minimum: int = 0, maximum: int | None = None, source: str = ARGUMENTS) -> int:
    """A whole number in ``[minimum, maximum]`` (a count, an index, a number of workers).

    Raises
    ------
    InputError
        ``expected a whole number >= 1, got 0`` (or ``in [2, 4]`` with a maximum), naming
        ``source`` and ``key``.
    """
    if not is_whole(value) or value < minimum or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise InputError(source, key, f"expected a whole number {bounds}, got {value!r}")
    return int(value)


def check_seed(value: Any, key: str = "seed", *, source: str = ARGUMENTS) -> int:
    """A random seed: a whole number >= 0 (what :class:`numpy.random.SeedSequence` takes)."""
    return check_count(value, key, minimum=0, source=source)


def check_probability(value: Any, key: str, *, source: str = ARGUMENTS) -> float:
    """A probability: a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise InputError(source, key, f"expected a probability in [0, 1], got {value!r}")
    return float(value)


def check_choice(value: Any, key: str, options, *, source: str = ARGUMENTS) -> str:
    """One of ``options`` (names: a rule, an engine, a player kind)."""
    if not isinstance(value, str) or value not in options:
        raise InputError(source, key, f"expected one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value
