"""The quasi-static solver against hand computations and magpylib.

Every expected value here comes from a closed form (lever arms, the harmonic series, tan⁻¹ μ),
from brute force (contact areas by sampling) or from magpylib (the magnet torque balance);
never from the solver itself.
"""

from __future__ import annotations

import math
from dataclasses import replace

import magpylib as magpy  # a test dependency: missing is a failure, not a skip
import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.model.presets import load_preset
from magdomino.physics.statics import clip_convex, find_contacts, judge, judge_many

PRESET = load_preset("standard")
L, W, T = (float(v) for v in PRESET.tile.size)
FLAT = np.array([0.0, 0.0, 0.0, 1.0])


def _quats(n, yaws=None):
    yaws = np.zeros(n) if yaws is None else np.asarray(yaws, float)
    return np.column_stack([np.zeros(n), np.zeros(n), np.sin(yaws / 2), np.cos(yaws / 2)])


def _with_friction(mu):
    return PRESET.with_changes(tile=replace(PRESET.tile, friction=mu))


def _with_polarization(j):
    magnets = tuple(replace(m, polarization=j) for m in PRESET.tile.magnets)
    return PRESET.with_changes(tile=replace(PRESET.tile, magnets=magnets))


# -- geometry -------------------------------------------------------------------------------


def _rect(cx, cy, yaw, a=L, b=W):
    c, s = math.cos(yaw), math.sin(yaw)
    half = np.array([[-a, -b], [a, -b], [a, b], [-a, b]]) / 2
    return half @ np.array([[c, s], [-s, c]]) + [cx, cy]


def _inside(points, rect, tol=0.0):
    """Points (m, 2) inside a counter-clockwise convex polygon (or within ``tol`` m of it)."""
    ok = np.ones(len(points), bool)
    for e in range(len(rect)):
        a, b = rect[e], rect[(e + 1) % len(rect)]
        edge = np.hypot(b[0] - a[0], b[1] - a[1])
        ok &= (b[0] - a[0]) * (points[:, 1] - a[1]) - (b[1] - a[1]) * (points[:, 0] - a[0]) >= -tol * edge
    return ok


def _area(poly):
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_footprint_intersection_against_sampling():
    rng = np.random.default_rng(3)
    pts = rng.uniform(-0.06, 0.06, size=(200_000, 2))
    cell = 0.12**2 / len(pts)
    for _ in range(12):
        a = _rect(*rng.uniform(-0.01, 0.01, 2), rng.uniform(-np.pi, np.pi))
        b = _rect(*rng.uniform(-0.03, 0.03, 2), rng.uniform(-np.pi, np.pi))
        poly = clip_convex(b, a)
        sampled = np.count_nonzero(_inside(pts, a) & _inside(pts, b)) * cell
        assert _area(poly) == pytest.approx(sampled, abs=4e-6 + 0.02 * sampled)
        # Every vertex lies in both rectangles.
        assert np.all(_inside(poly, a, 1e-12)) and np.all(_inside(poly, b, 1e-12))


def test_contacts_of_a_stack_an_end_to_end_pair_and_the_table():
    # 0 and 1 end to end on the table, 2 across both (yaw 90°) over their shared ends.
    P = np.array([[-L / 2, 0, T / 2], [L / 2, 0, T / 2], [0, 0, 1.5 * T]])
    Q = _quats(3, [0, 0, math.pi / 2])
    contacts = find_contacts(P, Q, PRESET.tile.size)
    kinds = sorted((c.kind, c.a, c.b) for c in contacts)
    assert kinds == [("side", 0, 1), ("stack", 0, 2), ("stack", 1, 2), ("table", -1, 0), ("table", -1, 1)]
    by = {(c.a, c.b): c for c in contacts}
    # Tile 2 (24 wide across x, 48 long along y) covers x in [-12, 12]: 12 x 24 mm on each.
    assert by[(0, 2)].area == pytest.approx(0.012 * 0.024, rel=1e-9)
    assert by[(1, 2)].area == pytest.approx(0.012 * 0.024, rel=1e-9)
    assert by[(0, 1)].area == pytest.approx(W * T, rel=1e-9)  # the touching end faces
    assert np.allclose(by[(0, 1)].normal, [1, 0, 0])
    assert by[(-1, 0)].area == pytest.approx(L * W, rel=1e-9)


def test_a_tilted_tile_is_refused_with_its_angle():
    tilt = math.asin(T / L)  # a ramp: one end on a tile, the other on the table (9.6°)
    P = np.array([[0, 0, T / 2], [0.03, 0, T]])
    Q = np.array([FLAT, [0, math.sin(tilt / 2), 0, math.cos(tilt / 2)]])
    with pytest.raises(InputError, match=r"statics cannot judge this: tile 1 is tilted by 9\.6°"):
        judge(PRESET, P, Q)
    small = math.radians(0.5)  # within the tolerance: taken as flat
    Q[1] = [0, math.sin(small / 2), 0, math.cos(small / 2)]
    P[1] = [0.01, 0, 1.5 * T]  # resting on tile 0, its centre over it
    assert judge(PRESET, P, Q, margin=False).stands


# -- analytic cases -------------------------------------------------------------------------


@pytest.mark.parametrize("mu", [0.3, 0.5, 0.8])
def test_a_lone_tile_slides_at_atan_mu(mu):
    v = judge(_with_friction(mu), [[0.01, -0.02, T / 2]], [FLAT], placed=0)
    assert v.stands
    # A tile on a tilted table slides at tan θ = μ (it would tip only at tan θ = W / T = 3).
    assert v.margin == pytest.approx(math.degrees(math.atan(mu)), abs=1e-6)


def test_a_tile_overhanging_a_fixed_support_stands_below_half_its_length():
    # Support: a fixed tile with its right edge at x = L/2. The tile above sticks out by a.
    for frac, stands in ((0.40, True), (0.49, True), (0.51, False), (0.60, False)):
        a = frac * L
        P = np.array([[0, 0, T / 2], [a, 0, 1.5 * T]])  # its centre at the edge - L/2 + a
        v = judge(PRESET, P, _quats(2), placed=1, magnets=False, fixed=[True, False])
        assert v.stands is stands, frac
        # Tipping about the edge: the centre of mass is e = L/2 - a inside it and T/2 above
        # it, so tan θ = e / (T/2), unless it slides first, at tan θ = μ.
        e = L / 2 - a
        tip = math.atan(abs(e) / (T / 2))
        slide = math.atan(PRESET.tile.friction)
        if stands:
            assert v.margin == pytest.approx(math.degrees(min(tip, slide)), abs=1e-6)
        elif tip < slide:  # tilting the table back by θ saves it before it slides off
            assert v.margin == pytest.approx(-math.degrees(tip), abs=1e-6)
        else:
            assert v.margin < -80  # no tilt saves it


def test_the_magnets_hold_a_tile_a_little_beyond_half_its_length():
    P = np.array([[0, 0, T / 2], [0.51 * L, 0, 1.5 * T]])
    assert judge(PRESET, P, _quats(2), magnets=True, fixed=[True, False], margin=False).stands
    P[1, 0] = 0.6 * L  # 4.8 mm beyond the edge: more than they hold (about 3.5 mm)
    assert not judge(PRESET, P, _quats(2), magnets=True, fixed=[True, False], margin=False).stands


def _harmonic(n, scale):
    """n tiles on a fixed support tile; the k-th from the top sticks out L/(2k)·scale beyond
    the one below, so at scale 1 the top k tiles' centre of mass is at the next one's edge."""
    x = [0.0]  # the support
    offsets = [scale * L / (2 * k) for k in range(n, 0, -1)]  # bottom movable tile first
    for d in offsets:
        x.append(x[-1] + d)
    P = np.column_stack([x, np.zeros(n + 1), (np.arange(n + 1) + 0.5) * T])
    fixed = np.zeros(n + 1, bool)
    fixed[0] = True
    return P, _quats(n + 1), fixed


@pytest.mark.parametrize("n", [2, 4, 6])
def test_harmonic_stack_at_098_stands_and_at_102_falls(n):
    # The overhang of the top tile beyond the support's edge is (L/2) H_n at scale 1.
    P, Q, fixed = _harmonic(n, 1.0)
    assert P[-1, 0] + L / 2 - L / 2 == pytest.approx(L / 2 * sum(1 / k for k in range(1, n + 1)))
    assert judge(PRESET, *_harmonic(n, 0.98)[:2], magnets=False, fixed=fixed, margin=False).stands
    assert not judge(PRESET, *_harmonic(n, 1.02)[:2], magnets=False, fixed=fixed, margin=False).stands


@pytest.mark.parametrize("magnets", [False, True])
def test_a_bridge_stands_on_two_supports_and_falls_on_either_alone(magnets):
    # Supports across (yaw 90°) with inner edges 8 mm from the bridge's centre.
    P = np.array([[-0.020, 0, T / 2], [0.020, 0, T / 2], [0, 0, 1.5 * T]])
    Q = _quats(3, [math.pi / 2, math.pi / 2, 0])
    both = judge(PRESET, P, Q, placed=2, magnets=magnets)
    assert both.stands and both.margin > 0
    for keep in (0, 1):
        idx = [keep, 2]
        alone = judge(PRESET, P[idx], Q[idx], placed=1, magnets=magnets)
        # Its centre of mass is 8 mm beyond the support's edge; the magnets hold ~3.5 mm.
        assert not alone.stands and alone.margin < 0


def _magpylib_tipping_torque(centre_x, j):
    """Torque (N·m, about the y axis through the support's top right edge) of the support
    tile's magnets on the upper tile's magnets (standard preset, polarisation j), magpylib."""
    def disc(x, z):
        m = PRESET.tile.magnets[0]
        return magpy.magnet.Cylinder(dimension=m.dimensions, polarization=(0, 0, j), position=(x, 0, z))

    lower = [disc(m.position[0], T / 2) for m in PRESET.tile.magnets]
    pivot = np.array([L / 2, 0, T])
    total = 0.0
    for m in PRESET.tile.magnets:
        target = disc(centre_x + m.position[0], 1.5 * T)
        _, torque = magpy.getFT(lower, target, pivot=pivot, meshing=(48, 14, 12))
        total += float(np.sum(np.asarray(torque).reshape(-1, 3)[:, 1]))
    return total


def test_magnet_held_cantilever_at_the_critical_polarisation():
    # scenarios/cantilever.toml: 0-1 on 0-0, its centre 2.5 mm beyond 0-0's edge.
    d = 0.0025
    x1 = L / 2 + d
    j0 = PRESET.tile.magnets[0].polarization
    weight = PRESET.tile.mass * 9.81
    # Gravity tips the tile by +m g d about the edge (y component); the magnets turn it back
    # by a torque ∝ J²: the critical polarisation balances the two.
    tau = _magpylib_tipping_torque(x1, j0)
    assert tau < 0
    j_crit = j0 * math.sqrt(weight * d / -tau)
    P = np.array([[0, 0, T / 2], [x1, 0, 1.5 * T]])
    Q = _quats(2)
    assert judge(_with_polarization(1.02 * j_crit), P, Q, margin=False).stands
    assert not judge(_with_polarization(0.98 * j_crit), P, Q, margin=False).stands
    assert not judge(PRESET, P, Q, magnets=False, margin=False).stands
    # The load factor on the upper tile's weight at J0 is (J0 / J*)² for a torque balance.
    v = judge(PRESET, P, Q, placed=1)
    assert j0 / math.sqrt(v.load_factor) == pytest.approx(j_crit, rel=0.02)


def test_verdict_reports_units_and_engine():
    v = judge(PRESET, [[0, 0, T / 2]], [FLAT], placed=0)
    d = v.to_dict()
    assert d["engine"] == "statics" and d["margin_unit"] == "deg" and d["collapsed"] is False
    assert d["load_factor"] == pytest.approx(100.0)  # a tile on the table holds any weight


@pytest.mark.parametrize("magnets", [True, False])
def test_staircase_edge_as_the_dynamics_found_it(magnets):
    # scenarios/staircase_edge.toml (its stated dynamic outcomes, magnets on): 1-2 with its
    # centre of mass exactly over 1-1's edge is held by the magnets alone; a third step
    # outward falls; the same tile turned back over the staircase stands. Without magnets
    # the balanced step is exactly at the tipping point, so it is moved 1 mm inward.
    inward = 0.0 if magnets else 0.001
    base = [[0, 0, T / 2], [L / 2 - inward, 0, 1.5 * T]]
    outward = np.array(base + [[L - inward, 0, 2.5 * T]])
    back = np.array(base + [[L / 2 - inward, 0, 2.5 * T]])
    assert judge(PRESET, np.array(base), _quats(2), magnets=magnets, margin=False).stands
    assert not judge(PRESET, outward, _quats(3), placed=2, magnets=magnets, margin=False).stands
    assert judge(PRESET, back, _quats(3, [0, 0, math.pi]), placed=2, magnets=magnets, margin=False).stands


def test_tiles_inside_each_other_or_the_table_are_refused():
    P = np.array([[0, 0, T / 2], [L - 0.001, 0, T / 2]])  # end to end, 1 mm into each other
    with pytest.raises(InputError, match=r"statics cannot judge this: tiles 0 and 1 overlap by 1\.00 mm"):
        judge(PRESET, P, _quats(2))
    P[1, 0] = L  # just touching: an end-face contact
    assert judge(PRESET, P, _quats(2), margin=False).stands
    with pytest.raises(InputError, match=r"statics cannot judge this: tile 0 is 2\.00 mm inside the table"):
        judge(PRESET, [[0, 0, T / 2 - 0.002]], [FLAT])


def test_a_tile_on_a_support_stands_iff_its_centre_is_over_both_footprints():
    # No magnets, no lateral load: a rigid tile on a fixed one stands exactly when its centre
    # of mass is over the contact polygon, i.e. inside both footprints (a point-in-rectangle
    # test, independent of the clipping and of the LP).
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 30:
        x, y = rng.uniform(-0.035, 0.035), rng.uniform(-0.03, 0.03)
        yaw = rng.uniform(-np.pi, np.pi)
        centre = np.array([[x, y]])
        inside = _inside(centre, _rect(0, 0, 0))[0] and _inside(centre, _rect(x, y, yaw))[0]
        near_edge = _inside(centre, _rect(0, 0, 0, L + 1e-4, W + 1e-4))[0] != _inside(centre, _rect(0, 0, 0, L - 1e-4, W - 1e-4))[0]
        overlap = _area(clip_convex(_rect(x, y, yaw), _rect(0, 0, 0))) > 1e-5
        if near_edge or not overlap:
            continue
        v = judge(PRESET, [[0, 0, T / 2], [x, y, 1.5 * T]], _quats(2, [0, yaw]), magnets=False, fixed=[True, False], margin=False)
        assert v.stands == inside, (x, y, yaw)
        checked += 1


def test_tilt_margin_with_magnets_is_the_true_sliding_tilt():
    # A tile right on top of a fixed one: the magnets press it on with F (perpendicular to the
    # faces, magpylib), so on a table tilted by θ it slides when
    # m g sin θ = μ (m g cos θ + F), i.e. θ = atan μ + asin(μ F / (m g √(1 + μ²))).
    mu = PRESET.tile.friction
    j = PRESET.tile.magnets[0].polarization
    weight = PRESET.tile.mass * 9.81
    m = PRESET.tile.magnets[0]
    lower = [magpy.magnet.Cylinder(dimension=m.dimensions, polarization=(0, 0, j), position=(s.position[0], 0, T / 2))
             for s in PRESET.tile.magnets]
    force = 0.0
    for s in PRESET.tile.magnets:
        target = magpy.magnet.Cylinder(dimension=m.dimensions, polarization=(0, 0, j), position=(s.position[0], 0, 1.5 * T))
        F, _ = magpy.getFT(lower, target, meshing=(48, 14, 12))
        force += float(np.sum(np.asarray(F).reshape(-1, 3)[:, 2]))
    assert force < 0  # pulled down onto the tile below
    expected = math.degrees(math.atan(mu) + math.asin(mu * -force / (weight * math.hypot(1, mu))))
    v = judge(PRESET, [[0, 0, T / 2], [0, 0, 1.5 * T]], _quats(2), placed=1, fixed=[True, False])
    assert v.stands
    assert v.margin == pytest.approx(expected, abs=0.1)  # 0.1°: the magnet model is within 1 % of magpylib
    assert v.margin > math.degrees(math.atan(mu)) + 10  # far from the plain sliding angle


def test_many_trials_in_one_lp_against_the_point_in_rectangle_test():
    # The tile-on-support cases of the test above, judged as one batch.
    rng = np.random.default_rng(8)
    poses, quats, expected = [], [], []
    while len(poses) < 40:
        x, y, yaw = rng.uniform(-0.035, 0.035), rng.uniform(-0.03, 0.03), rng.uniform(-np.pi, np.pi)
        centre = np.array([[x, y]])
        near_edge = _inside(centre, _rect(0, 0, 0, L + 1e-4, W + 1e-4))[0] != _inside(centre, _rect(0, 0, 0, L - 1e-4, W - 1e-4))[0]
        if near_edge or _area(clip_convex(_rect(x, y, yaw), _rect(0, 0, 0))) < 1e-5:
            continue
        poses.append([[0, 0, T / 2], [x, y, 1.5 * T]])
        quats.append(_quats(2, [0, yaw]))
        expected.append(bool(_inside(centre, _rect(0, 0, 0))[0]))
    got = judge_many(PRESET, poses, quats, magnets=False, fixed=[True, False])
    assert got.tolist() == expected
    assert 0 < sum(expected) < len(expected)


def test_many_trials_with_magnets_match_one_by_one_and_name_a_bad_trial():
    # The cantilever about its critical overhang (3.6 mm at the standard polarisation):
    # batch and single answers agree.
    overhangs = np.linspace(0.002, 0.005, 13)
    poses = [[[0, 0, T / 2], [L / 2 + d, 0, 1.5 * T]] for d in overhangs]
    quats = [_quats(2)] * len(poses)
    single = [judge(PRESET, p, q, margin=False).stands for p, q in zip(poses, quats)]
    assert judge_many(PRESET, poses, quats).tolist() == single
    assert single[0] and not single[-1]
    bad = [q.copy() for q in quats]
    tilt = math.radians(5)
    bad[3][1] = [0, math.sin(tilt / 2), 0, math.cos(tilt / 2)]
    with pytest.raises(InputError, match=r"trial 3: tile 1: statics cannot judge this: tile 1 is tilted by 5\.0°"):
        judge_many(PRESET, poses, bad)


def _random_structures(seed, count):
    """Stacks with random offsets and turns, tiles beside on the table (side contacts),
    tiles bridging two others, now and then a fixed first tile: (positions, quaternions, fixed)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        P, yaws = [np.array([0.0, 0.0, T / 2])], [0.0]
        for _ in range(1, int(rng.integers(2, 8))):
            k = len(P)
            r = rng.random()
            if r < 0.2:  # end to end or side by side on the table: a side contact
                s = int(rng.integers(0, k))
                if P[s][2] > T:
                    continue
                d = rng.choice([L, W]) * rng.choice([-1.0, 1.0])
                axis = (np.array([math.cos(yaws[s]), math.sin(yaws[s]), 0.0]) if abs(d) == L
                        else np.array([-math.sin(yaws[s]), math.cos(yaws[s]), 0.0]))
                P.append(P[s] + axis * d)
                yaws.append(yaws[s])
                continue
            s = k - 1 if rng.random() < 0.7 else int(rng.integers(0, k))
            u = np.array([math.cos(yaws[s]), math.sin(yaws[s])])
            v = np.array([-u[1], u[0]])
            xy = P[s][:2] + u * rng.uniform(-0.5, 0.5) * L + v * rng.uniform(-0.3, 0.3) * W
            yaw = yaws[s] + float(rng.choice([0.0, 0.0, math.pi / 2]))
            # Rest on the highest tile below (on the table when nothing is under it).
            top = 0.0
            for p, y in zip(P, yaws):
                if np.all(np.abs(_local(xy, p, y)) < [L, W]) and _overlaps(xy, yaw, p, y):
                    top = max(top, p[2] + T / 2)
            P.append(np.array([xy[0], xy[1], top + T / 2]))
            yaws.append(yaw)
        fixed = np.zeros(len(P), bool)
        fixed[0] = rng.random() < 0.2
        out.append((np.array(P), _quats(len(P), yaws), fixed))
    return out


def _local(xy, p, yaw):
    d = xy - p[:2]
    return np.array([d[0] * math.cos(yaw) + d[1] * math.sin(yaw), -d[0] * math.sin(yaw) + d[1] * math.cos(yaw)])


def _overlaps(xy, yaw, p, y):
    return _area(clip_convex(_rect(*xy, yaw), _rect(p[0], p[1], y))) > 1e-9


def test_stands_by_parts_is_the_whole_lp():
    """The decomposition at the contact graph's bridges (:meth:`Equilibrium.stands`) is a
    rewrite of the one LP of every equilibrium (solved whole by scipy's linprog), not an
    approximation: the same answer on structures with towers (bridges only), tiles on two
    supports and tiles side by side (groups), fixed tiles, under gravity with and without a
    random sideways load that makes some of them fall."""
    from scipy.optimize import linprog

    from magdomino.physics.statics import Equilibrium, magnet_wrenches

    weight = PRESET.tile.mass * PRESET.solver.gravity
    rng = np.random.default_rng(3)
    answers = []
    for P, Q, fixed in _random_structures(1, 150):
        try:
            contacts = find_contacts(P, Q, PRESET.tile.size, fixed=fixed)
        except InputError:
            continue
        n = len(P)
        eq = Equilibrium(P, contacts, ~fixed, PRESET.tile.friction, L)
        mf, mt = magnet_wrenches(PRESET, P, Q)
        down = np.tile([0.0, 0.0, -1.0], (n, 1))
        for side in (0.0, rng.uniform(0.0, 0.7)):
            lateral = side * np.array([*rng.normal(size=2), 0.0])
            w = eq.load(down + lateral, np.zeros((n, 3))) + eq.load(mf / weight, mt / weight)
            # The reference: the whole LP through scipy's linprog (the code under test feeds
            # HiGHS through highspy, piece by piece).
            whole = linprog(np.zeros(eq.k), A_eq=eq.A, b_eq=-w, bounds=(0.0, None), method="highs")
            answers.append((eq.stands(w), whole.status == 0))
    assert len(answers) > 200
    assert all(a == b for a, b in answers)
    assert 0.2 < np.mean([b for _, b in answers]) < 0.9  # both answers are exercised


def test_a_prepared_structure_judges_as_judge_does():
    """:class:`Structure` (the structure's contacts and magnets computed once) gives
    :func:`judge`'s verdict, margins included, for candidates on it, magnets on and off."""
    from magdomino.physics.statics import Structure

    rng = np.random.default_rng(4)
    compared = 0
    for P, Q, fixed in _random_structures(2, 40):
        top = int(np.argmax(P[:, 2]))
        for magnets in (True, False):
            yaw = float(rng.choice([0.0, math.pi / 2]))
            rest = P[top] + [rng.uniform(-0.5, 0.5) * L, rng.uniform(-0.2, 0.2) * W, T]
            try:
                whole = judge(PRESET, np.vstack([P, rest]), np.vstack([Q, _quats(1, [yaw])]), placed=len(P), magnets=magnets,
                              fixed=np.append(fixed, False))
            except InputError:
                continue
            part = Structure(PRESET, P, Q, magnets, fixed=fixed).judge(rest, _quats(1, [yaw])[0], margin=True)
            assert part.stands == whole.stands
            assert part.margin == pytest.approx(whole.margin, abs=1e-5)  # LP tolerances on sums in another order
            assert part.load_factor == pytest.approx(whole.load_factor, abs=1e-5)
            compared += 1
    assert compared > 40


@pytest.mark.parametrize("beyond_mm", [1.0, 3.0])
def test_a_side_face_cannot_wedge_a_tipping_tile(beyond_mm):
    # A on the table, C on A and on D (well supported), B on A with its centre of mass
    # ``beyond`` past A's left edge and its right end against C's left end. By hand: B's only
    # support is A, and its weight acts outside A, so B tips about that edge; C can push B
    # sideways but not hold it up: friction on the end faces would need them pressed together
    # before B starts tipping, and tipping only opens that joint. (With friction on the end
    # faces the LP finds a wedged solution: C's friction holds B's end down, B's push on C
    # balanced by friction under both; the old statics said "stands" here and the dynamics
    # watched B fall.)
    beyond = beyond_mm / 1000
    A, D = [L / 2, 0, T / 2], [1.5 * L, 0, T / 2]
    B = [-beyond, 0, 1.5 * T]
    C = [-beyond + L, 0, 1.5 * T]  # end to end with B
    P = np.array([A, D, C, B])
    v = judge(PRESET, P, _quats(4), placed=3, magnets=False, fixed=[True, True, False, False])
    assert not v.stands
    # The same pair moved right until B's centre of mass is 1 mm inside A's edge: it stands.
    P[2:, 0] += beyond + 0.001
    assert judge(PRESET, P, _quats(4), placed=3, magnets=False, fixed=[True, True, False, False]).stands


def test_the_default_toy_holds_a_tile_across_the_free_end_of_a_magnet_held_overhang():
    """Why the default preset (``toy``) has 1.2 T magnets: the Défi tower that careful players
    kept rebuilding on ``standard``. Tile 1 lies on tile 0's half 0, parallel, its centre of
    mass right over tile 0's end; tile 2 lies across tile 1's free half. About that end, tile
    2's weight pulls with m g × 12 mm and the magnet pair (tile 0's half 0 under tile 1's half,
    8 mm apart, 12 mm inside the end) holds with F × 12 mm: it stands when F > m g. F from
    magpylib: 0.6 T gives less than m g (standard: it falls), 1.2 T more than twice it (the
    toy: it stands), and the statics says the same."""
    weight = PRESET.tile.mass * PRESET.solver.gravity
    held = {}
    for name in ("standard", "toy"):
        preset = load_preset(name)
        j = preset.tile.magnets[0].polarization
        disc = dict(dimension=(0.006, 0.002), polarization=(0, 0, j))
        F, _ = magpy.getFT(magpy.magnet.Cylinder(position=(0, 0, 0), **disc), magpy.magnet.Cylinder(position=(0, 0, T), **disc),
                           meshing=(48, 14, 12))
        held[name] = -float(F[2]) / weight  # the upper disc is pulled down
        P = [[0.0, 0, T / 2], [-L / 2, 0, 1.5 * T], [-L / 2 - L / 4, 0, 2.5 * T]]  # tile 2 across tile 1's free half
        v = judge(preset, P, _quats(3, [0.0, 0.0, math.pi / 2]), placed=2, margin=False)
        held[name] = (held[name], v.stands)
    assert held["standard"][0] < 1.0 and not held["standard"][1], held
    assert held["toy"][0] > 2.0 and held["toy"][1], held


def test_stands_each_judges_structures_side_by_side_as_each_whole_lp():
    """:meth:`Equilibrium.stands_each` on many structures laid side by side (the hybrid's and
    :func:`judge_many`'s batches), each with its own friction and sideways load, answers for
    each what the whole LP of that structure alone answers (scipy's linprog)."""
    from scipy.optimize import linprog

    from magdomino.physics.statics import BATCH_SPACING_M, Equilibrium

    rng = np.random.default_rng(5)
    structures = []
    for P, Q, fixed in _random_structures(6, 80):
        try:
            find_contacts(P, Q, PRESET.tile.size, fixed=fixed)
        except InputError:
            continue
        structures.append((P, Q, fixed, rng.uniform(0.2, 0.8), rng.uniform(0.0, 0.5) * np.array([*rng.normal(size=2), 0.0])))
    expected = []
    for P, Q, fixed, mu, lateral in structures:
        eq = Equilibrium(P, find_contacts(P, Q, PRESET.tile.size, fixed=fixed), ~fixed, mu, L)
        w = eq.load(np.tile([0.0, 0.0, -1.0], (len(P), 1)) + lateral, np.zeros((len(P), 3)))
        whole = linprog(np.zeros(eq.k), A_eq=eq.A, b_eq=-w, bounds=(0.0, None), method="highs")
        expected.append(whole.status == 0)
    # All of them at once: one equation system, each contact vertex with its structure's friction.
    P = np.vstack([s[0] + [k * BATCH_SPACING_M, 0.0, 0.0] for k, s in enumerate(structures)])
    Q = np.vstack([s[1] for s in structures])
    fixed = np.concatenate([s[2] for s in structures])
    of = np.repeat(np.arange(len(structures)), [len(s[0]) for s in structures])
    contacts = find_contacts(P, Q, PRESET.tile.size, fixed=fixed)
    mu = np.array([s[3] for s in structures])[np.repeat([of[max(c.a, c.b)] for c in contacts], [len(c.points) for c in contacts])]
    eq = Equilibrium(P, contacts, ~fixed, mu, L)
    w = eq.load(np.tile([0.0, 0.0, -1.0], (len(P), 1)) + np.array([s[4] for s in structures])[of], np.zeros((len(P), 3)))
    labels = of[~fixed]
    balanced = eq.stands_each(w, labels=labels)
    got = [bool(balanced[labels == k].all()) for k in range(len(structures))]
    assert len(got) > 60
    assert got == expected
    assert 0.2 < np.mean(expected) < 0.9  # both answers are exercised


def test_a_bridge_proved_to_balance_has_a_solution_and_most_balanced_ones_are_proved():
    """The direct proof of :func:`proved_in_cones` (normal forces by least norm, sideways
    forces shared as the normal ones, a twist for the moment about the normal) is only a
    shortcut: every bridge it proves, the non-negative least-squares fit of its cone balances
    too; it proves most of those that balance under gravity and a sideways load."""
    from magdomino.physics.contact_polygons import proved_in_cones
    from magdomino.physics.equilibrium import CONE_RESIDUAL, FRICTION_DIRECTIONS, _nnls_fit
    from magdomino.physics.statics import Equilibrium

    rng = np.random.default_rng(8)
    proved_any = balanced_any = proved_balanced = 0
    for P, Q, fixed in _random_structures(9, 60):
        try:
            contacts = find_contacts(P, Q, PRESET.tile.size, fixed=fixed)
        except InputError:
            continue
        eq = Equilibrium(P, contacts, ~fixed, rng.uniform(0.2, 0.8), L)
        (carrier, carried), child, _, cones, _, _ = eq._topology()
        if not len(child):
            continue
        proofs = eq._bridge_proofs(eq._bridges)
        for side in (0.0, rng.uniform(0.0, 0.4)):
            n = len(P)
            block = eq.load(np.tile([0.0, 0.0, -1.0], (n, 1)) + side * np.array([*rng.normal(size=2), 0.0]),
                            np.zeros((n, 3))).reshape(-1, 6)
            centres = P[~fixed]
            F = np.array([block[carried[carrier == u], :3].sum(axis=0) for u in range(len(block))])
            T = np.array([(block[carried[carrier == u], 3:] * L
                           + np.cross(centres[carried[carrier == u]], block[carried[carrier == u], :3])).sum(axis=0)
                          for u in range(len(block))])
            W = np.hstack([F[child], (T[child] - np.cross(centres[child], F[child])) / L])
            scales = 1.0 + np.abs(W).max(axis=1)
            proved = proved_in_cones(proofs, W, CONE_RESIDUAL * scales, L, FRICTION_DIRECTIONS)
            for k in range(len(child)):
                residual, _ = _nnls_fit(cones[k], -W[k])
                balanced = residual <= 1e-7 * scales[k]
                assert balanced or not proved[k]
                proved_any += bool(proved[k])
                balanced_any += balanced
                proved_balanced += bool(proved[k]) and balanced
    assert proved_balanced > 0.8 * balanced_any and balanced_any > 100, (proved_balanced, balanced_any)
