"""The preset's μ is the friction of every contact, checked against Coulomb's law.

A tile under a steady sideways load F (here: gravity turned so that it pulls sideways with
F = r·m·g while pressing with m·g) stays put while r < μ and slides with acceleration
(r − μ)·g once r > μ. PyBullet multiplies the two bodies' coefficients, so this fails by a
factor μ if the world gives each body the preset's μ.
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from magdomino.model.presets import load_preset
from magdomino.physics.world import World

G = 9.81
H = 0.008


def _slide_mm(ratio: float, on_tile: bool, mu: float = 0.5, seconds: float = 0.4) -> float:
    preset = load_preset("plain")
    preset = preset.with_changes(tile=replace(preset.tile, friction=mu))
    with World(preset, magnets=False) as world:
        if on_tile:
            world.add_tile((6, 6), (0.0, 0.0, H / 2), fixed=True)
        top = world.add_tile((5, 5), (0.0, 0.0, H / 2 + (H if on_tile else 0.0)))
        world.step(100)  # seat the contacts under plain gravity
        before = world.poses()[0][top]
        world.client.setGravity(ratio * G, 0.0, -G)  # a steady sideways load r·m·g
        world.step(int(round(seconds / world.time_step)))
        return float(np.linalg.norm(world.poses()[0][top][:2] - before[:2]) * 1000)


@pytest.mark.parametrize("on_tile", [False, True], ids=["on the table", "on a fixed tile"])
@pytest.mark.parametrize("mu", [0.5, 0.3])
def test_a_tile_slides_exactly_when_the_sideways_load_exceeds_mu_m_g(on_tile, mu):
    below = _slide_mm(0.95 * mu, on_tile, mu)
    above = _slide_mm(1.05 * mu, on_tile, mu)
    assert below < 0.2, f"slid {below:.2f} mm under 0.95 μ m g"
    # Coulomb: a = (r − μ) g, so 0.05 μ g over 0.4 s moves 0.5 a t².
    expected = 0.5 * 0.05 * mu * G * 0.4**2 * 1000
    assert above == pytest.approx(expected, rel=0.25), f"slid {above:.2f} mm, Coulomb says {expected:.2f} mm"


def test_each_body_gets_the_square_root_so_the_product_is_mu():
    with World(load_preset("plain"), magnets=False) as world:
        assert world.body_friction == pytest.approx(math.sqrt(load_preset("plain").tile.friction))
