"""The frames of a replay (:mod:`magdomino.faces.replay`): the frame budget and display
times, and the caption strip under each picture (:func:`compose`).

Shared by the tower games' replay in the physics (:mod:`magdomino.faces.replay_tower`) and
the table games' (:mod:`magdomino.faces.replay_flat`); they and :mod:`magdomino.faces.replay`
import it, it imports none of them.
"""

from __future__ import annotations

import numpy as np

FRAME_EVERY_S = 0.01
"""Simulated time between two recorded poses of a placement, s."""

FRAMES_STANDING = 3
FRAMES_FALL = 30
FRAMES_LEAVING = 4

FRAME_MS = 90
"""Display time of one frame (ms); a fall's frames are ~40 ms of simulated time apart at
most, so it runs slower than life."""

HOLD_MS = 500
"""The last frame of each move is held this long."""


def strip_height(height: int) -> int:
    """Height (pixels) of the caption strip under the picture."""
    return max(48, int(round(height * 0.19))) // 2 * 2


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one bitmap size
        return ImageFont.load_default()


def compose(picture: np.ndarray, lines: list[str], hands: list[int], width: int, height: int,
            alert: bool = False) -> np.ndarray:
    """A frame: ``picture`` (resized to fit above the strip) and the caption strip (two lines
    of text and each seat's hand as small tiles). Returns (height, width, 3) uint8."""
    from PIL import Image, ImageDraw

    strip = strip_height(height)
    canvas = Image.new("RGB", (width, height), (250, 249, 246))
    top = Image.fromarray(picture)
    if top.size != (width, height - strip):
        top.thumbnail((width, height - strip), Image.Resampling.LANCZOS)
    canvas.paste(top, ((width - top.width) // 2, (height - strip - top.height) // 2))
    draw = ImageDraw.Draw(canvas)
    draw.rectangle([0, height - strip, width, height], fill=(36, 38, 44))
    size = max(9, strip // 4)
    font = _font(size)
    y = height - strip + 3
    for k, line in enumerate(lines[:2]):
        colour = (255, 120, 100) if (alert and k == 1) else (235, 235, 235)
        draw.text((6, y + k * (size + 2)), line, fill=colour, font=font)
    # Hands: per seat "P0" and one small tile per tile in hand.
    y0 = height - strip + 2 * (size + 2) + 6
    tile_w, tile_h = max(3, size // 2), max(6, size - 2)
    x = 6
    for seat, n in enumerate(hands):
        draw.text((x, y0 - 1), f"P{seat}", fill=(200, 200, 200), font=font)
        x += size * 2
        for _ in range(min(n, 30)):
            draw.rectangle([x, y0, x + tile_w - 1, y0 + tile_h], fill=(240, 236, 220), outline=(120, 120, 120))
            x += tile_w + 2
        x += size
    return np.asarray(canvas, dtype=np.uint8)
