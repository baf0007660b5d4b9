"""Grid geometry: poses, anchors, relative poses (the rules' Grid is tested in tests/games/test_grid.py)."""

import math

import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.maths import geometry as geo
from magdomino.maths.geometry import GridPose

SIZE = (0.048, 0.024, 0.008)


def test_grid_pose_squares():
    assert GridPose(0, 0, 0, 0).squares() == ((0, 0, 0), (1, 0, 0))
    assert GridPose(2, 1, 3, 3).squares() == ((2, 1, 3), (2, 0, 3))
    assert geo.dir_index("-y") == 3
    with pytest.raises(InputError):
        geo.dir_index("up")


def test_physical_pose():
    c, yaw = geo.physical_pose(GridPose(0, 0, 0, 0), SIZE)
    assert np.allclose(c, [0.012, 0, 0.004]) and yaw == 0
    c, yaw = geo.physical_pose(GridPose(0, 0, 2, 2), SIZE)
    assert np.allclose(c, [0, 0.012, 0.020]) and math.isclose(yaw, math.pi / 2)
    c, yaw = geo.physical_pose(GridPose(3, 0, 1, 1), SIZE)
    assert np.allclose(c, [0.060, 0, 0.012]) and math.isclose(yaw, math.pi)
    # the half anchors: half 0 at -x of the tile frame, half 1 at +x
    p = GridPose(0, 0, 0, 0)
    assert np.allclose(geo.half_anchor(p, 0, SIZE), [0, 0, 0.008])
    assert np.allclose(geo.half_anchor(p, 1, SIZE, face="bottom"), [0.024, 0, 0])
    with pytest.raises(InputError):
        geo.check_tile_size((0.048, -1, 0.008))


def test_relative_pose_round_trip():
    rng = np.random.default_rng(1)
    for _ in range(200):
        a = GridPose(*[int(v) for v in rng.integers(-5, 6, 2)], int(rng.integers(0, 5)), int(rng.integers(0, 4)))
        b = GridPose(*[int(v) for v in rng.integers(-5, 6, 2)], int(rng.integers(0, 5)), int(rng.integers(0, 4)))
        off, ryaw = geo.relative_pose(a, b, SIZE)
        cb, yb = geo.physical_pose(b, SIZE)
        c, y = geo.compose_pose(cb, yb, off, ryaw)
        ca, ya = geo.physical_pose(a, SIZE)
        assert np.allclose(c, ca, atol=1e-12)
        assert math.isclose(math.cos(y - ya), 1.0, abs_tol=1e-12)
    # a tile stacked exactly on another: offset one thickness up, no turn
    off, ryaw = geo.relative_pose(GridPose(0, 0, 1, 0), GridPose(0, 0, 0, 0), SIZE)
    assert np.allclose(off, [0, 0, 0.008]) and ryaw == 0
    # support turned by 90 degrees: the relative offset is in the support's frame
    off, _ = geo.relative_pose(GridPose(0, 1, 1, 2), GridPose(0, 0, 0, 2), SIZE)
    assert np.allclose(off, [0.024, 0, 0.008])
