"""A position's board as a small RGB picture (``render_mode="rgb_array"`` of the program faces).

Drawn with NumPy alone (no plotting library: an environment renders at every step): the
squares of the board seen from above, each square shaded by its level (tower rules: the
top square of each column; darker is lower) with its pips as dots, and a thin gap between
two tiles. 20 sur 20's markers are red squares.
"""

from __future__ import annotations

import numpy as np

CELL = 18
"""Pixels per grid square."""
_DOTS = {  # pips -> dot centres on a 3 x 3 lattice (0..2)
    0: (), 1: ((1, 1),), 2: ((0, 0), (2, 2)), 3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (0, 2), (2, 0), (2, 2)), 5: ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    7: ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)),
    8: ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)),
    9: tuple((i, j) for i in range(3) for j in range(3)),
}
_TABLE = (34, 102, 60)
_MARKER = (200, 40, 40)


def board_picture(tiles) -> np.ndarray:
    """An ``(H, W, 3)`` ``uint8`` picture of ``tiles`` seen from above (+y up): each an
    ``(((x, y, pips), (x, y, pips)), level)`` (a marker: one square twice, pips −1), drawn
    lowest level first so a column shows its top square; an empty board is one green square."""
    tiles = sorted(tiles, key=lambda t: t[1])
    if not tiles:
        return np.full((CELL, CELL, 3), _TABLE, np.uint8)
    xs = [sq[0] for t in tiles for sq in t[0]]
    ys = [sq[1] for t in tiles for sq in t[0]]
    x0, y0 = min(xs) - 1, max(ys) + 1
    img = np.empty(((y0 - min(ys) + 2) * CELL, (max(xs) - x0 + 2) * CELL, 3), np.uint8)
    img[:] = _TABLE
    for squares, level in tiles:
        rows = [(y0 - y) * CELL for _, y, _ in squares]
        cols = [(x - x0) * CELL for x, _, _ in squares]
        colour = _MARKER if squares[0][2] < 0 else (min(255, 150 + 25 * level),) * 2 + (min(245, 140 + 25 * level),)
        img[min(rows) + 1 : max(rows) + CELL - 1, min(cols) + 1 : max(cols) + CELL - 1] = colour
        for (_, _, pips), r, c in zip(squares, rows, cols):
            for i, j in _DOTS.get(int(pips), ()):
                img[r + 4 + 5 * i : r + 6 + 5 * i, c + 4 + 5 * j : c + 6 + 5 * j] = 20
    return img
