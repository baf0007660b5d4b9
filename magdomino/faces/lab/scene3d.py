"""Tiles in NiceGUI's 3D scene (``ui.scene``, three.js), what Build and Play both draw: a tile
is a group of a coloured box, its pips and an optional ``#N`` label; a spot (a ghost) is an
outline in its risk's colour, drawn solid only while it is pointed at or chosen; the camera
frames the construction from three quarters; :func:`play_frames` shows a recorded motion at
its own pace. Scene units are centimetres (:data:`SCALE` per millimetre), z up, as in the
physics."""

from __future__ import annotations

import asyncio
import math
import time

import numpy as np

from magdomino.model.tiles import pip_positions

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

SCALE = 0.1
"""Scene units per millimetre."""

SCENE_HEIGHT = "min(560px, 75vw)"
"""The 3D view's height (CSS): its width is its column's, from a phone's to 760 px."""

FOV_DEG = 45.0
"""The camera's vertical field of view."""

VIEW_AZIMUTH_DEG, VIEW_ELEVATION_DEG = -60.0, 32.0
"""The three-quarter view: the camera's direction from the construction's centre (azimuth
from +x, counter-clockwise seen from above; elevation above the table)."""

FRAME_MARGIN = 1.05
"""The framed sphere's radius times this is what the view holds (room around the tiles)."""

MIN_FRAME_MM = 45.0
"""The smallest radius framed (mm): one tile fills about a third of the view."""


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


class _Posed:
    """A scene group that moves to poses (position mm, quaternion or yaw); NaN hides it."""

    def _init_pose(self) -> None:
        self.shown = True
        self.last = None

    def pose(self, pos_mm, quat=None, *, yaw_deg: float | None = None) -> None:
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

    def delete(self) -> None:
        self.group.delete()


class TileView(_Posed):
    """One tile drawn in ``scene``: a box, its pips, and a ``#N`` label over it.

    Parameters
    ----------
    scene : nicegui.ui.scene
    pips : (int, int)
        Half 0 (-x), half 1 (+x).
    size_mm : (float, float, float)
        Length, width, thickness.
    colour : str
        ``#rrggbb``.
    number : int or None
        The tile's number in the construction (its label ``#N``).
    labels : bool
        Whether the label shows.
    """

    def __init__(self, scene, pips, size_mm, colour: str, *, number: int | None = None, labels: bool = False):
        self.scene, self.pips, self.colour = scene, tuple(pips), colour
        length, width, thick = (s * SCALE for s in size_mm)
        with scene.group() as self.group:
            self.box = scene.box(length, width, thick).material(colour)
            scene.box(0.03, width * 0.8, thick * 1.02).material("#f4f1e8")
            radius = 0.035 * width
            for p in pip_positions(tuple(pips), np.asarray(size_mm) / 1000.0):
                scene.sphere(radius, 8, 6).move(p[0] * 1000 * SCALE, p[1] * 1000 * SCALE, thick / 2).material("#fbfaf4")
            self.label = None
            if number is not None:
                self.label = scene.text(f"#{number}", "font: 600 12px sans-serif; color: #1b1b1b; background: #ffffffcc; "
                                        "padding: 0 3px; border-radius: 3px").move(0, 0, thick)
                self.label.visible(labels)
        self._init_pose()

    def show_label(self, on: bool) -> None:
        if self.label is not None:
            self.label.visible(on)

    def highlight(self, on: bool, colour: str) -> None:
        """The tile drawn in ``colour`` (on) or its own (off): a tower about to be taken back."""
        self.box.material(colour if on else self.colour)


class GhostView(_Posed):
    """A spot: its outline in its risk's colour, and a translucent solid of the same colour
    shown only while the spot is pointed at or chosen (:meth:`solid`).

    Parameters
    ----------
    scene : nicegui.ui.scene
    size_mm : (float, float, float)
    colour : str
    name : str
        The solid's and outline's object name (what a click on the scene reports).
    """

    def __init__(self, scene, size_mm, colour: str, name: str):
        self.scene = scene
        length, width, thick = (s * SCALE for s in size_mm)
        with scene.group() as self.group:
            self.outline = scene.box(length, width, thick, wireframe=True).material(colour).with_name(name)
            self.fill = scene.box(length * 0.98, width * 0.98, thick * 0.98).material(colour, 0.55).with_name(name)
            self.fill.visible(False)
        self._init_pose()
        self.is_solid = False

    def recolour(self, colour: str) -> None:
        self.outline.material(colour)
        self.fill.material(colour, 0.55)

    def solid(self, on: bool) -> None:
        if on != self.is_solid:
            self.fill.visible(on)
            self.is_solid = on


def new_scene():
    """A 3D view of the table (turn, zoom), as every mode shows it, framed on an empty table."""
    from nicegui import ui

    camera = ui.scene.perspective_camera(fov=FOV_DEG)
    scene = ui.scene(width=760, height=560, grid=(60, 60), camera=camera, background_color="#f2efe8").classes(
        "w-full").style(f"height: {SCENE_HEIGHT}; max-width: 760px").props("data-testid=scene")
    frame_camera(scene, np.zeros((0, 3)), (48.0, 24.0, 8.0), duration=0)
    return scene


def camera_pose(positions_mm, size_mm) -> tuple[np.ndarray, np.ndarray]:
    """Where the three-quarter view puts the camera to hold every tile (and what it looks at),
    scene units: the sphere around the tiles' boxes, seen at :data:`FOV_DEG` with
    :data:`FRAME_MARGIN` around it (the table's middle and one tile's room when there is none).

    Parameters
    ----------
    positions_mm : array_like, shape (n, 3)
        The tiles' centres (NaN rows ignored).
    size_mm : (float, float, float)

    Returns
    -------
    eye, target : ndarray, shape (3,), scene units
    """
    p = np.asarray(positions_mm, float).reshape(-1, 3)
    p = p[np.all(np.isfinite(p), axis=1)]
    half_diagonal = 0.5 * float(np.linalg.norm(size_mm))
    if len(p):
        low, high = p.min(axis=0) - half_diagonal, p.max(axis=0) + half_diagonal
        centre = (low + high) / 2
        radius = max(MIN_FRAME_MM, 0.5 * float(np.linalg.norm(high - low)))
    else:
        centre, radius = np.array([0.0, 0.0, size_mm[2] / 2]), MIN_FRAME_MM
    distance = FRAME_MARGIN * radius / math.sin(math.radians(FOV_DEG) / 2)
    az, el = math.radians(VIEW_AZIMUTH_DEG), math.radians(VIEW_ELEVATION_DEG)
    eye = centre + distance * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    return eye * SCALE, centre * SCALE


def frame_camera(scene, positions_mm, size_mm, duration: float = 0.4) -> None:
    """Turn the camera to the three-quarter view holding every tile (:func:`camera_pose`)."""
    eye, target = camera_pose(positions_mm, size_mm)
    scene.move_camera(x=float(eye[0]), y=float(eye[1]), z=float(eye[2]), look_at_x=float(target[0]),
                      look_at_y=float(target[1]), look_at_z=float(target[2]), up_x=0, up_y=0, up_z=1, duration=duration)


async def play_frames(views, live: list, running, *, slow: float = 1.0, stopped=lambda: False) -> int:
    """Show a motion's frames as they are recorded (``live``, filled by ``running`` in a
    worker thread: ``(time s, positions (k, 3) m, quaternions (k, 4))``), each at its own time
    (times ``slow``): the motion starts as soon as its first frame exists and runs at real
    speed (or slower), however fast the physics makes it. Returns how many frames were shown."""
    shown, start = 0, None
    while not stopped():
        if shown < len(live):
            t, positions, quats = live[shown]
            if start is None:
                start = time.perf_counter() - t * slow
            wait = start + t * slow - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            for v, p, q in zip(views, positions * 1000.0, quats):
                v.pose(p, q)
            shown += 1
        elif running.done():
            break
        else:
            await asyncio.sleep(0.005)
    return shown
