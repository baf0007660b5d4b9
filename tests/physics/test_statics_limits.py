"""The statics at its limits: the true-tilt margin's early exits, poses that are not finite,
and contact polygon areas against closed forms."""

import math

import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.physics import margins
from magdomino.physics.contact_polygons import Contact, clip_convex, flat_footprints

SIZE = (0.048, 0.024, 0.008)


# -- the true-tilt margin ------------------------------------------------------------------


def _boundary(monkeypatch, lateral_factor):
    """Make the LP's parametric boundary ``s = lateral_factor(c)`` (lateral load factor at
    vertical gravity scaled by ``c``; None where no factor exists) and record the calls."""
    calls = []

    def fake(eq, w_grav, w_mag, direction, n, cos_scale, stands):
        calls.append(cos_scale)
        return lateral_factor(cos_scale)

    monkeypatch.setattr(margins, "_lateral_factor", fake)
    return calls


def _true_tilt(lam):
    return margins._true_tilt(None, None, None, np.array([1.0, 0.0]), 1, lam, True)


def test_the_true_tilt_where_magnets_add_a_fixed_lateral_hold(monkeypatch):
    # Friction or tipping give a lateral factor k c proportional to the normal load; a magnet
    # adds a fixed m: s = k c + m. On the tilted table (c, s) = (cos t, sin t), so the
    # structure gives way at sin t - k cos t = m: t = atan k + asin(m / sqrt(1 + k^2)).
    k, m = 0.5, 0.2
    _boundary(monkeypatch, lambda c: k * c + m)
    assert _true_tilt(k + m) == pytest.approx(math.atan(k) + math.asin(m / math.hypot(1, k)), abs=1e-12)


def test_a_zero_margin_is_zero_at_once(monkeypatch):
    # At its limit (no lateral load survives: lambda = 0) the first secant point is the
    # vertical itself (c = 1): nothing to draw a secant through, the margin is 0.
    calls = _boundary(monkeypatch, lambda c: 0.0)
    assert _true_tilt(0.0) == 0.0
    assert calls == [1.0]


def test_an_infeasible_secant_point_keeps_the_pseudo_static_tilt(monkeypatch):
    # No lateral factor exists once gravity is scaled down (the LP infeasible below c = 1):
    # the margin stays the pseudo-static one, atan(lambda).
    calls = _boundary(monkeypatch, lambda c: None if c < 1 else 0.3)
    assert _true_tilt(0.3) == pytest.approx(math.atan(0.3), abs=1e-15)
    assert len(calls) == 1


def test_an_infeasible_second_secant_point_stops_at_the_first_step(monkeypatch):
    # The boundary exists at c = cos(atan 0.3) but not beyond: one secant step from
    # (1, 0.3) through (c1, s1) gives the tilt, and the infeasible next point stops there.
    c1 = math.cos(math.atan(0.3))
    k, m = 0.1, 0.2
    _boundary(monkeypatch, lambda c: k * c + m if c >= c1 - 1e-12 else None)
    # Through (1, 0.3) and (c1, k c1 + m): the line s = k c + m itself.
    assert _true_tilt(0.3) == pytest.approx(math.atan(k) + math.asin(m / math.hypot(1, k)), abs=1e-12)


class _Directional:
    """A structure reduced to its answer on the tilted table: along heading phi it stands while
    the lateral load (in weights, sin of the tilt) is below ``capacity(phi)``. Loads are the
    lateral vector itself (gravity and magnets zero in this reduction)."""

    def __init__(self, capacity):
        self.capacity = capacity

    def load(self, forces, torques):
        return np.asarray(forces, float)[0, :2].copy()

    def stands(self, w):
        return float(np.hypot(*w)) < self.capacity(math.atan2(w[1], w[0]))


class _Verdict:
    stands, magnets = True, True
    margin = tilt_direction_deg = load_factor = None


def test_the_margin_is_the_smallest_true_tilt_of_the_directions_that_fail_at_the_worst_one(monkeypatch):
    # Eight headings. Pseudo-statically (gravity scaled with the lateral load) heading 0 is the
    # weakest (lambda 0.30, true tilt 0.29 rad); heading 90 degrees looks stronger (lambda 0.6)
    # but, magnets not scaling with gravity, gives way at 0.20 rad: tilted 0.29 rad towards
    # 90 degrees the structure falls, so that heading is measured and is the margin. Every
    # other heading holds sin(0.29) (capacity 0.95 away from a narrow 90-degree notch).
    notch = math.radians(10)
    weak = math.sin(0.20)

    def capacity(phi):
        return weak if abs(phi - math.pi / 2) < notch else 0.95

    def heading(d):
        return round(math.degrees(math.atan2(d[1], d[0]))) % 360

    monkeypatch.setattr(margins, "_lateral_factor", lambda eq, g, m, d, n, c, stands: 0.30 if heading(d) == 0 else 0.6)
    monkeypatch.setattr(margins, "_true_tilt", lambda eq, g, m, d, n, lam, stands: {0: 0.29, 90: 0.20}.get(heading(d), 0.9))
    verdict = _Verdict()
    margins.fill_margins(verdict, _Directional(capacity), np.zeros(2), np.zeros(2), 1, None, [True])
    assert verdict.margin == pytest.approx(math.degrees(0.20)) and verdict.tilt_direction_deg == pytest.approx(90.0)


# -- poses that are not finite -------------------------------------------------------------


def _poses():
    positions = np.array([[0.0, 0.0, 0.004], [0.0, 0.0, 0.012]])
    quaternions = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]])
    return positions, quaternions


@pytest.mark.parametrize("where", ["position", "orientation"])
def test_a_pose_not_finite_in_position_or_orientation_alone_is_refused(where):
    positions, quaternions = _poses()
    if where == "position":
        positions[1, 0] = math.nan
    else:
        quaternions[1, 2] = math.nan
    with pytest.raises(InputError, match="tile 1") as e:
        flat_footprints(positions, quaternions, SIZE)
    assert "finite position and orientation" in str(e.value)


def test_finite_poses_give_the_footprints():
    corners, yaw = flat_footprints(*_poses(), SIZE)
    assert corners.shape == (2, 4, 2) and np.allclose(yaw, 0.0)
    assert np.allclose(corners[0], [[-0.024, -0.012], [0.024, -0.012], [0.024, 0.012], [-0.024, 0.012]])


def test_a_turned_tile_s_footprint_turns_its_corners():
    # Yaw 30 degrees: the corner at (+24, +12) mm goes to (24 cos 30 - 12 sin 30, 24 sin 30 + 12 cos 30).
    positions, quaternions = _poses()
    yaw = math.radians(30)
    quaternions[0] = [0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)]
    corners, yaws = flat_footprints(positions, quaternions, SIZE)
    assert yaws[0] == pytest.approx(yaw)
    c, s = math.cos(yaw), math.sin(yaw)
    assert corners[0, 2] == pytest.approx([0.024 * c - 0.012 * s, 0.024 * s + 0.012 * c], abs=1e-12)
    assert corners[0, 0] == pytest.approx([-0.024 * c + 0.012 * s, -0.024 * s - 0.012 * c], abs=1e-12)


def test_a_contact_is_a_value_that_cannot_change():
    import dataclasses

    contact = _contact([[0, 0], [0.01, 0], [0, 0.01]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        contact.kind = "side"


# -- contact polygon areas -----------------------------------------------------------------


def _contact(points_xy, z=0.008):
    p = np.asarray(points_xy, float)
    return Contact(a=0, b=1, points=np.column_stack([p, np.full(len(p), z)]), normal=np.array([0.0, 0.0, 1.0]), kind="face")


def test_a_triangle_s_area_is_half_base_times_height():
    assert _contact([[0.0, 0.0], [0.03, 0.0], [0.01, 0.02]]).area == pytest.approx(0.5 * 0.03 * 0.02, rel=1e-12)


def test_a_rectangle_s_area_is_length_times_width():
    assert _contact([[0, 0], [0.048, 0], [0.048, 0.024], [0, 0.024]]).area == pytest.approx(0.048 * 0.024, rel=1e-12)


def test_a_segment_or_a_point_has_no_area():
    assert _contact([[0, 0], [0.01, 0]]).area == 0.0
    assert _contact([[0, 0]]).area == 0.0


def test_a_tilted_polygon_s_area_is_its_own_not_its_shadow():
    # A 48 x 24 mm rectangle in a plane tilted 30 degrees about x: its area, not the
    # projection's (cos 30 times smaller).
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    pts = np.array([[0, 0, 0], [0.048, 0, 0], [0.048, 0.024 * c, 0.024 * s], [0, 0.024 * c, 0.024 * s]])
    contact = Contact(a=0, b=1, points=pts, normal=np.array([0.0, -s, c]), kind="face")
    assert contact.area == pytest.approx(0.048 * 0.024, rel=1e-12)


def test_clipped_overlaps_against_closed_forms():
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)
    # Two squares of side 2 offset by (0.5, 1.5): overlap 1.5 x 0.5.
    overlap = clip_convex(square, square + [0.5, 1.5])
    assert _contact(overlap).area == pytest.approx(1.5 * 0.5)
    # The square under the diamond |x| + |y| <= 1.5: four corner triangles of legs 0.5 cut off.
    diamond = np.array([[1.5, 0], [0, 1.5], [-1.5, 0], [0, -1.5]], float)
    cut = clip_convex(square, diamond)
    assert len(cut) == 8
    assert _contact(cut).area == pytest.approx(4 - 4 * 0.5 * 0.5**2)
    # Apart: nothing.
    assert len(clip_convex(square, square + [2.5, 0])) == 0
