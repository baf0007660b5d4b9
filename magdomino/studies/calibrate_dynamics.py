"""The calibration's measurements, taken in the PyBullet world instead of at home.

What a person does with a book and a ruler, done by the dynamics on a known preset: tilt the
table until a tile slides (tilting gravity instead: the same for a body at rest), place a
tile further and further out along another until it tips, drop a tile flat and watch it
rebound. Each answer is found by bisection on fresh worlds (a tile released at rest at each
angle or overhang: the quasi-static limit of a slow tilt or a slow push). With noise added,
:func:`measurement_dict` gives a measurement file's data whose fit
(:func:`magdomino.studies.calibrate.calibrate`) must give the preset back: the round trip
of the tests, an independent check of the fit's statics against the dynamics.
"""

from __future__ import annotations

import math

import numpy as np

from magdomino.model.measurements import UNCERTAINTY_DEFAULTS
from magdomino.model.presets import Preset
from magdomino.physics.world import World
from magdomino.studies.calibrate import overhang_poses

SLIDE_MM = 1.0
"""A tile has slid when it moved this far along the surface."""
TIP_DEG = 5.0
"""A tile has tipped when it turned this far."""
HOLD_S = 0.4
"""Simulated time each trial is watched."""


def _tilt_deg(q) -> float:
    x, y = float(q[0]), float(q[1])
    return math.degrees(math.acos(max(-1.0, min(1.0, 1 - 2 * (x * x + y * y)))))


def slides(preset: Preset, on: str, angle_deg: float) -> bool:
    """Does a tile slide on the table (``on="table"``), or laid across the middle of a held
    tile (``"tile"``), when the surface is tilted by ``angle_deg`` about the y axis?"""
    t = float(preset.tile.size[2])
    th = math.radians(angle_deg)
    with World(preset) as world:
        world.client.setGravity(preset.solver.gravity * math.sin(th), 0.0, -preset.solver.gravity * math.cos(th))
        if on == "table":
            i = world.add_tile((1, 2), position=(0.0, 0.0, t / 2))
        else:
            world.add_tile((1, 2), position=(0.0, 0.0, t / 2), fixed=True)
            i = world.add_tile((3, 4), position=(0.0, 0.0, 1.5 * t), yaw=math.pi / 2)
        start = world.poses()[0][i].copy()
        world.step(int(round(HOLD_S / world.time_step)))
        return bool(np.linalg.norm(world.poses()[0][i][:2] - start[:2]) > SLIDE_MM / 1000)


def tips(preset: Preset, overhang_mm: float, direction: str = "along") -> bool:
    """Does a tile released at rest on another, ``overhang_mm`` past its end, tip?"""
    P, Q = overhang_poses(preset.tile.size, overhang_mm / 1000, direction)
    L, W, t = (float(v) for v in preset.tile.size)
    with World(preset) as world:
        world.add_tile((1, 2), position=P[0], orientation=Q[0])
        i = world.add_tile((3, 4), position=P[1], orientation=Q[1])
        # The pushing finger: a frictionless stop at the near end, from just above the lower
        # tile to the top, that keeps the magnets from pulling the tile back (not a tile: no
        # magnets). Removed before the world closes (its connection is then reused).
        c, lift, thick = world.client, 0.3e-3, 1e-3
        half = [thick / 2, W / 2, (t - lift) / 2]
        along = np.array([1.0, 0.0, 0.0]) if direction == "along" else np.array([0.0, 1.0, 0.0])
        centre = P[1] - along * (L / 2 + thick / 2 + 1e-5)
        centre[2] = t + lift + half[2]
        stop = c.createMultiBody(0, c.createCollisionShape(c.GEOM_BOX, halfExtents=half), -1, centre.tolist(), Q[1].tolist())
        c.changeDynamics(stop, -1, lateralFriction=0.0)
        world.step(int(round(HOLD_S / world.time_step)))
        tipped = _tilt_deg(world.poses()[1][i]) > TIP_DEG
        c.removeBody(stop)
        return tipped


def rebound_mm(preset: Preset, height_mm: float) -> float:
    """Height (mm) of the first rebound of a tile dropped flat from ``height_mm`` onto the table."""
    t = float(preset.tile.size[2])
    with World(preset) as world:
        i = world.add_tile((1, 2), position=(0.0, 0.0, t / 2 + height_mm / 1000))
        rising, top = False, 0.0
        for _ in range(int(round((math.sqrt(2 * height_mm / 1000 / preset.solver.gravity) * 2 + 0.1) / world.time_step))):
            world.step(1)
            vz = float(world.velocities()[0][i][2])
            if vz > 0:  # on its way up from the table
                rising = True
                top = max(top, float(world.poses()[0][i][2]) - t / 2)
            elif rising:  # the top of the first rebound is behind
                break
        return top * 1000


def _bisect(test, low: float, high: float, steps: int) -> float:
    """The switch of ``test`` (False at ``low``, True at ``high``) to ``(high - low) / 2**steps``."""
    for _ in range(steps):
        mid = (low + high) / 2
        if test(mid):
            high = mid
        else:
            low = mid
    return (low + high) / 2


def slide_angle(preset: Preset, on: str, steps: int = 8) -> float:
    """The angle (degrees) at which the tile starts to slide (:func:`slides`), by bisection."""
    return _bisect(lambda a: slides(preset, on, a), 1.0, 89.0, steps)


def largest_overhang(preset: Preset, direction: str = "along", steps: int = 7) -> float:
    """The largest overhang (mm) at which a tile is held (:func:`tips`), by bisection."""
    L = float(preset.tile.size[0]) * 1000
    return _bisect(lambda s: tips(preset, s, direction), L / 2 - 4.0, L - 0.5, steps)


def measurement_dict(preset: Preset, layout: str, *, rng: np.random.Generator, readings: int = 3, uncertainty=None,
                     bounce_mm: float | None = None, name: str = "dynamics") -> tuple[dict, dict]:
    """A measurement file's data taken by the dynamics on ``preset``, each reading with a
    Gaussian instrument error (σ ``uncertainty``: the file's defaults).

    Returns
    -------
    data : dict
        For :func:`magdomino.model.measurements.measurements_from_dict`.
    exact : dict
        The noiseless answers: ``slide_table_deg``, ``slide_tile_deg``, ``overhang_mm``
        (and ``rebound_mm``).
    """
    u = dict(UNCERTAINTY_DEFAULTS, **(uncertainty or {}))
    exact = {
        "slide_table_deg": slide_angle(preset, "table"),
        "slide_tile_deg": slide_angle(preset, "tile"),
        "overhang_mm": largest_overhang(preset),
    }
    noisy = lambda v, s: [round(float(x), 2) for x in v + rng.normal(0.0, s, readings)]  # noqa: E731
    data = {
        "name": name,
        "magnet_layout": layout,
        "tile": {"size_mm": [round(float(v) * 1000, 6) for v in preset.tile.size], "mass_g": noisy(preset.tile.mass * 1000, u["mass_g"])},
        "slide": [{"on": "table", "angle_deg": noisy(exact["slide_table_deg"], u["angle_deg"])},
                  {"on": "tile", "angle_deg": noisy(exact["slide_tile_deg"], u["angle_deg"])}],
        "overhang": [{"direction": "along", "overhang_mm": noisy(exact["overhang_mm"], u["length_mm"])}],
        "uncertainty": u,
    }
    if bounce_mm is not None:
        exact["rebound_mm"] = rebound_mm(preset, bounce_mm)
        data["bounce"] = [{"height_mm": bounce_mm, "rebound_mm": [max(v, 0.0) for v in noisy(exact["rebound_mm"], u["length_mm"])]}]
    return data, exact
