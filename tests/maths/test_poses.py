"""poses.py against independent references: scipy's Rotation for matrices and angles, hand
values for yaw, tilt, corners and angle wrapping."""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from magdomino.maths.poses import (
    box_corners,
    pose_matrices,
    quaternion_matrices,
    quaternion_yaw,
    rotation_angles,
    tilt_angles,
    top_face_height,
    wrap_angle,
    yaw_quaternion,
)

SIZE = np.array([0.048, 0.024, 0.008])


def test_quaternion_matrices_match_scipy():
    rot = Rotation.random(50, random_state=1)
    q = rot.as_quat()  # x, y, z, w, as PyBullet
    assert np.allclose(quaternion_matrices(q), rot.as_matrix(), rtol=0, atol=1e-14)
    # Not normalised on input: the same rotation.
    assert np.allclose(quaternion_matrices(3.7 * q), rot.as_matrix(), rtol=0, atol=1e-14)
    # One quaternion: shape (3, 3).
    assert np.allclose(quaternion_matrices(q[0]), rot[0].as_matrix(), rtol=0, atol=1e-14)


def test_pose_matrices_are_rotation_and_position():
    rot = Rotation.random(7, random_state=2)
    x = np.random.default_rng(2).normal(size=(7, 3))
    out = np.full((7, 3, 4), np.nan)
    A = pose_matrices(x, rot.as_quat(), out=out)
    assert A is out
    assert np.allclose(A[:, :, :3], rot.as_matrix(), rtol=0, atol=1e-14)
    assert np.array_equal(A[:, :, 3], x)


@pytest.mark.parametrize("yaw_deg", [0.0, 30.0, 90.0, 179.0, -179.0, -90.0, -45.0])
def test_yaw_quaternion_and_back(yaw_deg):
    yaw = math.radians(yaw_deg)
    q = yaw_quaternion(yaw)
    # By hand: a turn by yaw about z is (0, 0, sin(yaw/2), cos(yaw/2)).
    assert q == pytest.approx([0, 0, math.sin(yaw / 2), math.cos(yaw / 2)], abs=1e-15)
    assert Rotation.from_quat(q).as_euler("ZYX")[0] == pytest.approx(yaw, abs=1e-12)
    assert quaternion_yaw(q) == pytest.approx(yaw, abs=1e-12)


def test_quaternion_yaw_is_heading_of_x_axis_when_tilted():
    rot = Rotation.random(30, random_state=3)
    for r in rot:
        x_axis = r.apply([1.0, 0.0, 0.0])
        assert quaternion_yaw(r.as_quat()) == pytest.approx(math.atan2(x_axis[1], x_axis[0]), abs=1e-12)


def test_tilt_angles_by_hand_and_against_scipy():
    # Tilted 20° about x, then turned about z (which does not change the tilt).
    q = (Rotation.from_euler("z", 70, degrees=True) * Rotation.from_euler("x", 20, degrees=True)).as_quat()
    upright = np.array([[0.0, 0.0, 0.0, 1.0]])
    assert tilt_angles(q[None], upright)[0] == pytest.approx(math.radians(20), abs=1e-12)
    a, b = Rotation.random(2, random_state=4), Rotation.random(2, random_state=5)
    za, zb = a.apply([0, 0, 1]), b.apply([0, 0, 1])
    expected = np.arccos(np.clip(np.sum(za * zb, axis=1), -1, 1))
    assert np.allclose(tilt_angles(a.as_quat(), b.as_quat()), expected, rtol=0, atol=1e-7)


def test_rotation_angles_against_scipy():
    a, b = Rotation.random(20, random_state=6), Rotation.random(20, random_state=7)
    expected = (a * b.inv()).magnitude()
    assert np.allclose(rotation_angles(a.as_quat(), b.as_quat()), expected, rtol=0, atol=1e-7)
    # -q is the same orientation.
    assert np.allclose(rotation_angles(-a.as_quat(), a.as_quat()), 0.0, atol=1e-7)


def test_box_corners_by_hand():
    p = np.array([0.1, -0.2, 0.3])
    c = box_corners(p, yaw_quaternion(math.pi / 2), SIZE)
    # Turned 90° about z, length lies along y and width along x.
    assert c.shape == (8, 3)
    assert np.allclose(c.min(axis=0), p - [0.012, 0.024, 0.004], atol=1e-15)
    assert np.allclose(c.max(axis=0), p + [0.012, 0.024, 0.004], atol=1e-15)
    expected = {(round(x, 6), round(y, 6), round(z, 6)) for x in (0.088, 0.112) for y in (-0.224, -0.176) for z in (0.296, 0.304)}
    assert {tuple(np.round(v, 6)) for v in c} == expected


def test_box_corners_batch_against_scipy():
    rot = Rotation.random(5, random_state=8)
    p = np.random.default_rng(8).normal(size=(5, 3))
    c = box_corners(p, rot.as_quat(), SIZE)
    assert c.shape == (5, 8, 3)
    for i in range(5):
        local = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * SIZE / 2
        assert np.allclose(c[i], rot[i].apply(local) + p[i], rtol=0, atol=1e-14)


def test_top_face_height_by_hand():
    assert top_face_height([0, 0, 0.004], [0, 0, 0, 1], SIZE) == pytest.approx(0.008, abs=1e-15)
    # Standing on its long edge side (90° about x): the top is half the width up.
    q = Rotation.from_euler("x", 90, degrees=True).as_quat()
    assert top_face_height([0, 0, 0.012], q, SIZE) == pytest.approx(0.024, abs=1e-15)
    # Tilted by θ about y: the top is h/2 + (L/2 sin θ + t/2 cos θ).
    th = math.radians(10)
    q = Rotation.from_euler("y", th).as_quat()
    assert top_face_height([0, 0, 0.05], q, SIZE) == pytest.approx(0.05 + 0.024 * math.sin(th) + 0.004 * math.cos(th), abs=1e-15)
    many = top_face_height(np.zeros((2, 3)), np.array([[0, 0, 0, 1.0], q]), SIZE)
    assert many.shape == (2,) and many[0] == pytest.approx(0.004, abs=1e-15)


@pytest.mark.parametrize("angle, expected", [
    (0.0, 0.0), (1.0, 1.0), (-1.0, -1.0), (math.pi, math.pi), (-math.pi, math.pi),
    (3 * math.pi, math.pi), (2 * math.pi, 0.0), (-2 * math.pi, 0.0), (7.0, 7.0 - 2 * math.pi), (-7.0, 2 * math.pi - 7.0),
    (4.0, 4.0 - 2 * math.pi), (-4.0, 2 * math.pi - 4.0),
])
def test_wrap_angle_by_hand(angle, expected):
    w = wrap_angle(angle)
    assert -math.pi < w <= math.pi
    assert w == pytest.approx(expected, abs=1e-12)
