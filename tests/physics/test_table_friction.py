"""A table friction apart from the tiles': the world's plane, the statics and the
batched LP each give a tile on the table the table's mu and a tile on a tile the tiles'."""

import math

import numpy as np
import pytest

from magdomino.maths.poses import yaw_quaternion
from magdomino.model.presets import load_preset, with_overrides, write_preset
from magdomino.physics.statics import judge
from magdomino.studies import calibrate_dynamics as dyn
from magdomino.studies.statics_engine import batch_stands


def test_world_slides_at_the_table_friction_and_the_tiles_friction():
    # Coulomb: a lone tile on a surface tilted by theta slides when tan(theta) > mu.
    preset = with_overrides(load_preset("plain"), {"tile.friction": 0.6, "tile.table_friction": 0.3})
    table, tile = math.degrees(math.atan(0.3)), math.degrees(math.atan(0.6))
    assert not dyn.slides(preset, "table", table - 1.0) and dyn.slides(preset, "table", table + 1.0)
    assert not dyn.slides(preset, "tile", tile - 1.0) and dyn.slides(preset, "tile", tile + 1.0)


def test_statics_margin_and_batch_lp_use_the_table_friction():
    preset = with_overrides(load_preset("plain"), {"tile.table_friction": 0.3})
    one = judge(preset, [(0, 0, 0.004)], [yaw_quaternion(0.0)], placed=0)
    assert one.margin == pytest.approx(math.degrees(math.atan(0.3)), abs=1e-6)
    # Two strong tiles end to end 0.5 mm apart on the table pull each other together: only
    # the table's friction holds them, judged alike by judge() and the batched LP.
    P = np.array([[[0, 0, 0.004], [0.0485, 0, 0.004]]])
    Q = np.array([[yaw_quaternion(0.0)] * 2])
    for mu_table, stands in ((0.005, False), (0.5, True)):
        strong = with_overrides(load_preset("strong"), {"tile.table_friction": mu_table})
        assert judge(strong, P[0], Q[0], margin=False).stands is stands
        assert batch_stands([strong], P, Q, True, np.zeros(2, bool))[0] == stands


def test_without_table_friction_nothing_changes(tmp_path):
    standard = load_preset("standard")
    assert standard.tile.table_friction is None and standard.tile.table_mu == standard.tile.friction
    assert "table_friction" not in standard.to_dict()["tile"] and "spread" not in standard.to_dict()
    back = load_preset(write_preset(standard, tmp_path / "s.toml"))
    assert back.to_dict() | {"name": 0} == standard.to_dict() | {"name": 0}
    same = with_overrides(standard, {"tile.table_friction": 0.5})
    from magdomino.physics.world import World

    with World(standard) as a:
        body_a, table_a = a.body_friction, a.table_body_friction
    with World(same) as b:
        assert (b.body_friction, b.table_body_friction) == (body_a, table_a)  # bit for bit
