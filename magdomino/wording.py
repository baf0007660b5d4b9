"""One way to print each thing, for every face and every game log.

- winners: ``winners: 0``, ``winners: 0, 2``, ``winners: none`` (:func:`winners`);
- a count with its noun, singular for one: ``1 collapse``, ``2 collapses`` (:func:`counted`);
- a probability with three decimals, ``-`` when not known: ``0.000`` (:func:`probability`);
- a boolean as a word: ``on``/``off`` (:func:`on_off`), ``yes``/``no`` (:func:`yes_no`);
- a tile by its pips: ``6-3``, a crossed double on a chain's table ``5|5`` (:func:`tile_text`).

Placements are printed by the placement language (:mod:`magdomino.studies.placement_language`).
This module imports nothing, so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Iterable


def tile_text(pips, crossed: bool = False) -> str:
    """A tile by its two halves' pips, in the order given: ``6-3``; ``5|5`` for a double laid
    across a chain (``crossed``).

    Parameters
    ----------
    pips : sequence of two ints
        The halves' pips, half 0 first (or as the face shows the tile).
    crossed : bool
        Whether the tile lies across the chain (a double in the chain games).
    """
    a, b = pips
    return f"{a}|{b}" if crossed else f"{a}-{b}"


def winners(seats: Iterable[int] | None) -> str:
    """``winners: 0, 2`` for the seats that won (``winners: none`` when nobody did)."""
    seats = list(seats or [])
    return "winners: " + (", ".join(str(s) for s in seats) if seats else "none")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun, singular for exactly one: ``counted(1, "collapse")`` → ``1 collapse``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def probability(p: float | None) -> str:
    """A probability with three decimals (``0.070``); ``-`` when not known."""
    return "-" if p is None else f"{float(p):.3f}"


def on_off(value: bool) -> str:
    """``on`` or ``off`` (magnets, a switch)."""
    return "on" if value else "off"


def yes_no(value: bool) -> str:
    """``yes`` or ``no``."""
    return "yes" if value else "no"


def as_words(value):
    """``value`` as a table or a page shows it: a boolean as ``yes``/``no``, anything else as is."""
    return yes_no(value) if isinstance(value, bool) else value
