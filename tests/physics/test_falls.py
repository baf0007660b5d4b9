"""A fall is not a push: the verdict tells them apart (DESIGN.md, "collapse means a fall").

Each case is built so that statics by hand says what must happen: a tile pushed flat along
the table stays flat (nothing to tip it: its support is the table); a staircase whose
centre of mass passes the supporting edge tips; a tile pushed past the end of its support
has nothing under its centre of mass and drops to the table.
"""

import numpy as np
import pytest

from magdomino.model.presets import load_preset
from magdomino.physics.motion import Drop, Slide, place
from magdomino.physics.verdict import FALL_REASONS
from magdomino.physics.world import World

L, W, H = 0.048, 0.024, 0.008


def _pushed_along_the_table(preset):
    with World(preset, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.step(50)
        # The slid tile's rest pose overlaps the lying tile by 15 mm: the hand pushes it 15 mm.
        _, verdict = place(world, (1, 2), (-L + 0.015, 0.0, H / 2), 0.0, Slide((-0.05, 0.0)))
        return verdict


def test_a_tile_pushed_along_the_table_has_shifted_not_fallen():
    verdict = _pushed_along_the_table(load_preset("plain"))
    assert not verdict.collapsed
    assert verdict.shifted and verdict.shifted_tile == 0
    assert verdict.settled and verdict.reason == "shifted"
    assert verdict.max_shift_mm == pytest.approx(15.0, abs=2.0)
    assert verdict.max_tilt_deg < 1.0
    assert verdict.to_dict()["shifted"] is True


def test_a_preset_can_count_a_shift_as_a_collapse():
    verdict = _pushed_along_the_table(load_preset("plain").with_settings(count_shifts=True))
    assert verdict.collapsed and verdict.reason == "shift" and verdict.culprit == 0


def test_a_staircase_that_tips_has_fallen():
    # Tile 1 overhangs tile 0 by 20 mm (its centre of mass 4 mm inside the edge: it stands);
    # a tile dropped on tile 1's outer half puts their common centre of mass at
    # (20 + 44) / 2 = 32 mm, 8 mm past tile 0's edge at 24 mm: the pair tips.
    with World(load_preset("plain"), magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2), fixed=True)
        world.add_tile((6, 5), (0.020, 0.0, 1.5 * H))
        world.step(100)
        assert np.linalg.norm(world.poses()[0][1] - [0.020, 0, 1.5 * H]) < 1e-4  # it stands alone
        _, verdict = place(world, (5, 4), (0.044, 0.0, 2.5 * H), 0.0, Drop(0.001))
    assert verdict.collapsed and verdict.reason in FALL_REASONS


def test_a_tile_pushed_off_its_support_drops_and_has_fallen():
    # A hand slides a tile along the top of a fixed tile (half a millimetre above it) into the
    # tile lying there, pushing it 52 mm: its centre of mass ends 28 mm past the support's
    # edge, with nothing under it. The slide starts 1 mm short of that tile (a motion starts
    # clear of every tile).
    with World(load_preset("plain"), magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2), fixed=True)
        world.add_tile((6, 5), (0.0, 0.0, 1.5 * H))
        world.step(100)
        _, verdict = place(world, (1, 2), (0.004, 0.0, 1.5 * H + 0.0005), 0.0, Slide((-0.053, 0.0)))
    assert verdict.collapsed and verdict.reason in FALL_REASONS and verdict.culprit == 1
