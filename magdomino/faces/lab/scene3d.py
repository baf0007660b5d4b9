"""Tiles in NiceGUI's 3D scene (``ui.scene``, three.js): a tile is a group of a coloured box
and its pips; a ghost is a translucent box coloured by its risk. Scene units are
centimetres (:data:`SCALE` per millimetre), z up, as in the physics."""

from __future__ import annotations

import math

import numpy as np

from magdomino.model.tiles import pip_positions

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

SCALE = 0.1
"""Scene units per millimetre."""

SCENE_SIZE = (760, 560)
"""The 3D view's width and height, pixels."""


def rotation(q) -> list[list[float]]:
    """The rotation matrix of a quaternion (x, y, z, w)."""
    x, y, z, w = (float(v) for v in q)
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def yaw_rotation(yaw_deg: float) -> list[list[float]]:
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    return [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]


def hex_colour(rgb) -> str:
    return "#" + "".join(f"{int(round(255 * max(0.0, min(1.0, c)))):02x}" for c in rgb)


class TileView:
    """One tile drawn in ``scene``: a box (named ``name``, for clicks) and its pips.

    Parameters
    ----------
    scene : nicegui.ui.scene
    pips : (int, int)
        Half 0 (-x), half 1 (+x).
    size_mm : (float, float, float)
        Length, width, thickness.
    colour : str
        ``#rrggbb``.
    opacity : float
        Below 1: a ghost (no pips).
    """

    def __init__(self, scene, pips, size_mm, colour: str, *, opacity: float = 1.0, name: str | None = None):
        self.scene, self.pips = scene, tuple(pips)
        length, width, thick = (s * SCALE for s in size_mm)
        with scene.group() as self.group:
            box = scene.box(length, width, thick).material(colour, opacity)
            if name:
                box.with_name(name)
            self.box = box
            if opacity >= 1.0:
                scene.box(0.03, width * 0.8, thick * 1.02).material("#f4f1e8")
                radius = 0.035 * width
                for p in pip_positions(tuple(pips), np.asarray(size_mm) / 1000.0):
                    scene.sphere(radius, 8, 6).move(p[0] * 1000 * SCALE, p[1] * 1000 * SCALE, thick / 2).material("#fbfaf4")
        self.shown = True
        self.last = None

    def pose(self, pos_mm, quat=None, *, yaw_deg: float | None = None) -> None:
        """Move the tile (position mm; a quaternion, or a yaw); NaN hides it."""
        pos = np.asarray(pos_mm, dtype=float)
        if not np.all(np.isfinite(pos)):
            if self.shown:
                self.group.visible(False)
                self.shown = False
            return
        key = (tuple(np.round(pos, 2)), None if quat is None else tuple(np.round(np.asarray(quat, float), 4)), yaw_deg)
        if key == self.last:
            return
        self.last = key
        if not self.shown:
            self.group.visible(True)
            self.shown = True
        self.group.move(*(pos * SCALE).tolist())
        self.group.rotate_R(rotation(quat) if quat is not None else yaw_rotation(yaw_deg or 0.0))

    def highlight(self, on: bool, colour: str) -> None:
        self.box.material(colour, 0.85 if on else 0.4)

    def delete(self) -> None:
        self.group.delete()


def new_scene():
    """A 3D view of the table (turn, zoom), as every mode shows it."""
    from nicegui import ui

    camera = ui.scene.perspective_camera(fov=45)
    scene = ui.scene(width=SCENE_SIZE[0], height=SCENE_SIZE[1], grid=(60, 60), camera=camera,
                     background_color="#f2efe8").props("data-testid=scene")
    scene.move_camera(x=0, y=-19, z=15, look_at_x=0, look_at_y=0, look_at_z=1.5, duration=0)
    return scene
