"""Cached magnet wrenches (magdomino.maths.magnets.CachedWrenches, used by World before every
step) against fresh computations of the same model: the stated error bound, exact
invariance under common motions, recomputation of what moved, free magnets."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from magdomino.maths.magnets import MU0, UPDATE_REF_DISTANCE, CachedWrenches, TileMagnets
from magdomino.maths.magnets.batch import _accumulate
from magdomino.model.presets import load_preset
from magdomino.physics.world import World

H = 0.008
SHIFT = 1e-5  # the standard preset's thresholds
TURN = math.radians(0.05)


def specs(free=False):
    return [
        SimpleNamespace(position=np.array([x, 0.0, 0.0]), shape="cylinder", dimensions=(0.006, 0.002),
                        polarization=0.6, axis=np.array([0.0, 0.0, 1.0]), free=free)
        for x in (-0.012, 0.012)
    ]


def smooth(free=False):
    """One rule for every pair, no dipole tier, no cutoff: a model without discontinuities,
    so that cached and fresh values differ only by the motion since the computation."""
    return TileMagnets.from_specs(specs(free), cells=32, near=np.inf, cutoff=np.inf)


def pair_scales(tm, pos, quats):
    """Per tile pair (i < j): Σ over its magnet pairs of F_ax(d) and of F_ax(d) (ρ + d)."""
    R = Rotation.from_quat(quats)
    C = np.array([pos[t] + R[t].apply(tm.positions) for t in range(len(pos))])  # (n, k, 3)
    m = np.abs(tm.moments)
    rho = float(np.max(np.linalg.norm(tm.positions, axis=1)))
    out = {}
    for i in range(len(pos)):
        for j in range(i + 1, len(pos)):
            d = np.linalg.norm(C[j][None, :, :] - C[i][:, None, :], axis=2)
            fax = 6 * MU0 / (4 * math.pi) * np.outer(m, m) / d**4
            out[i, j] = (float(fax.sum()), float((fax * (rho + d)).sum()))
    return out


def tile_bounds(cache, tm, pos, quats):
    """Per tile, the sum over its pairs of the stated force and torque bounds."""
    eps_f, eps_t = cache.error_bounds()
    bf = np.zeros(len(pos))
    bt = np.zeros(len(pos))
    for (i, j), (sf, st) in pair_scales(tm, pos, quats).items():
        for t in (i, j):
            bf[t] += eps_f * sf
            bt[t] += eps_t * st
    return bf, bt


def random_pair(rng):
    """Two tiles with their magnets 8-30 mm apart, tile 1 turned any way (magnets clear)."""
    tm = smooth()
    while True:
        pos = np.array([[0.0, 0.0, 0.0], rng.uniform([-0.03, -0.02, 0.006], [0.03, 0.02, 0.03])])
        rot = Rotation.from_rotvec([rng.normal(scale=0.1, size=3), rng.normal(scale=0.6, size=3)])
        _, _, _, gap = tm.pair_wrenches([0], [1], pos, rot.as_quat())
        if 0.008 <= gap[0] <= 0.03:
            return pos, rot


def test_error_bounds_as_stated():
    eps_f, eps_t = CachedWrenches(smooth(), SHIFT, TURN).error_bounds()
    assert eps_f == pytest.approx(5 * SHIFT / UPDATE_REF_DISTANCE + 2 * TURN)  # 0.80 %
    assert eps_f < 0.0081 and eps_t == pytest.approx(eps_f + TURN)


def test_a_move_just_inside_the_thresholds_stays_within_the_stated_bound():
    """Relative moves at the edge of the thresholds (the worst the cache may hold), in random
    directions, plus a common rigid motion of both tiles: no recomputation, and the cached
    wrenches differ from fresh ones by less than the stated bound."""
    rng = np.random.default_rng(4)
    tm = smooth()
    worst = 0.0
    for trial in range(40):
        pos, rot = random_pair(rng)
        cache = CachedWrenches(tm, SHIFT, TURN)
        cache.update(pos, rot.as_quat())
        gap = tm.pair_wrenches([0], [1], pos, rot.as_quat())[3][0]
        # Relative turn θ of tile 1 (about its centre) and shift in tile 0's frame, with
        # |Δs| + θ ρ just under shift · gap / 8 mm.
        theta = rng.uniform(0, 0.99) * min(TURN, SHIFT * gap / UPDATE_REF_DISTANCE / cache.rho)
        budget = 0.99 * SHIFT * gap / UPDATE_REF_DISTANCE - theta * cache.rho
        axis = rng.normal(size=3)
        step = rng.normal(size=3)
        rot1 = Rotation.from_rotvec(theta * axis / np.linalg.norm(axis)) * rot[1]
        pos1 = pos[1] + rot[0].apply(budget * step / np.linalg.norm(step))
        # ... and a common motion of both (within margin / 2 = 2 mm, beyond which the pair
        # set is remade): a turn by up to 1° about tile 0's centre and a 0.5 mm shift.
        direction = rng.normal(size=(2, 3))
        direction /= np.linalg.norm(direction, axis=1)[:, None]
        common = Rotation.from_rotvec(rng.uniform(0, 0.0175) * direction[0])
        pivot = pos[0]
        shift = 0.0005 * direction[1]
        new_pos = common.apply(np.array([pos[0], pos1]) - pivot) + pivot + shift
        new_rot = common * Rotation.concatenate([rot[0], rot1])
        F, T = cache.update(new_pos, new_rot.as_quat())
        assert cache.last == 0, trial
        Fr, Tr = tm.wrenches(new_pos, new_rot.as_quat())
        bf, bt = tile_bounds(cache, tm, new_pos, new_rot.as_quat())
        for t in range(2):
            assert np.linalg.norm(F[t] - Fr[t]) < bf[t], trial
            assert np.linalg.norm(T[t] - Tr[t]) < bt[t], trial
            worst = max(worst, np.linalg.norm(F[t] - Fr[t]) / bf[t])
        assert np.allclose(F[0], -F[1], rtol=0, atol=1e-12 * np.abs(F).max())  # third law, exactly
    assert worst > 0.05  # the bound is not vacuous: real moves use a fair part of it


def test_a_move_beyond_a_threshold_recomputes_the_pair():
    rng = np.random.default_rng(8)
    tm = smooth()
    pos, rot = random_pair(rng)
    cache = CachedWrenches(tm, SHIFT, TURN)
    cache.update(pos, rot.as_quat())
    gap = tm.pair_wrenches([0], [1], pos, rot.as_quat())[3][0]
    moved = pos.copy()
    moved[1] += rot[0].apply([1.01 * SHIFT * gap / UPDATE_REF_DISTANCE, 0, 0])
    F, _ = cache.update(moved, rot.as_quat())
    assert cache.last == 1
    assert np.allclose(F, tm.wrenches(moved, rot.as_quat())[0], rtol=0, atol=1e-9)
    turned = Rotation.concatenate([rot[0], Rotation.from_rotvec([0, 0, 1.01 * TURN]) * rot[1]])
    cache.update(pos, turned.as_quat())  # back to pos, turned: stale either way
    assert cache.last == 1


def tower(n, rng, jitter=0.0003, tilt=0.002):
    pos = np.zeros((n, 3))
    pos[:, 2] = H / 2 + H * np.arange(n)
    pos[:, :2] += rng.normal(scale=jitter, size=(n, 2))
    return pos, Rotation.from_rotvec(rng.normal(scale=tilt, size=(n, 3)))


def test_a_tower_moving_as_a_whole_recomputes_nothing():
    """A rigid motion (a tower drifting and leaning as a whole) leaves every relative pose as
    it was: nothing is recomputed and the turned wrenches equal fresh ones to rounding."""
    rng = np.random.default_rng(1)
    tm = TileMagnets.from_specs(load_preset("standard").tile.magnets)  # the default tiers
    pos, rot = tower(12, rng)
    cache = CachedWrenches(tm, SHIFT, TURN)
    cache.update(pos, rot.as_quat())
    assert cache.last == cache.pairs > 0
    centre = pos.mean(axis=0)
    for angle in (0.001, 0.01, 0.02):  # up to 1.1°: the top tiles' magnets move < 2 mm (margin / 2)
        common = Rotation.from_rotvec(angle * np.array([0.6, -0.8, 0.3]))
        new_pos = common.apply(pos - centre) + centre + [0.0003, -0.0002, 0.0001]
        new_rot = common * rot
        F, T = cache.update(new_pos, new_rot.as_quat())
        assert cache.last == 0
        Fr, Tr = tm.wrenches(new_pos, new_rot.as_quat())
        scale = np.abs(Fr).max()
        assert np.allclose(F, Fr, rtol=0, atol=1e-9 * scale)
        assert np.allclose(T, Tr, rtol=0, atol=1e-9 * scale * 0.01)


def test_only_the_pairs_of_a_moved_tile_are_recomputed():
    rng = np.random.default_rng(2)
    tm = smooth()
    pos, rot = tower(6, rng)
    cache = CachedWrenches(tm, SHIFT, TURN)
    cache.update(pos, rot.as_quat())
    moved = pos.copy()
    moved[3] += [0.0002, 0.0, 0.0]
    F, T = cache.update(moved, rot.as_quat())
    assert cache.last == 5  # tile 3 with each of the 5 others
    Fr, Tr = tm.wrenches(moved, rot.as_quat())
    bf, bt = tile_bounds(cache, tm, moved, rot.as_quat())  # the others' pairs are cached (unmoved)
    assert np.all(np.linalg.norm(F - Fr, axis=1) < 1e-9 + 1e-5 * bf)
    assert np.all(np.linalg.norm(T - Tr, axis=1) < 1e-12 + 1e-5 * bt)


def test_pair_wrenches_add_up_to_wrenches():
    rng = np.random.default_rng(3)
    tm = TileMagnets.from_specs(load_preset("standard").tile.magnets)
    pos, rot = tower(9, rng, jitter=0.002, tilt=0.05)
    ti, tj = tm.tile_pairs(pos)
    Fj, Tj, Ti, gap = tm.pair_wrenches(ti, tj, pos, rot.as_quat())
    out = _accumulate(len(pos), ti, tj, Fj, Tj, Ti)
    F, T = tm.wrenches(pos, rot.as_quat())
    assert np.array_equal(out[:, :3], F) and np.array_equal(out[:, 3:], T)
    assert np.all(gap > 0.007)


def test_free_magnets_recompute_everything_when_anything_moved():
    """A free magnet's moment depends on the field of all the others: any stale pair makes
    a full recomputation, equal to a fresh one."""
    rng = np.random.default_rng(5)
    tm = TileMagnets.from_specs(specs(free=True))
    pos, rot = tower(5, rng, jitter=0.002, tilt=0.05)
    cache = CachedWrenches(tm, SHIFT, TURN)
    cache.update(pos, rot.as_quat())
    moved = pos.copy()
    moved[4] += [0.0005, 0.0, 0.0]
    F, T = cache.update(moved, rot.as_quat())
    assert cache.last == cache.pairs
    Fr, Tr = tm.wrenches(moved, rot.as_quat())
    scale = np.abs(Fr).max()
    assert np.allclose(F, Fr, rtol=0, atol=1e-9 * scale) and np.allclose(T, Tr, rtol=0, atol=1e-11 * scale)


def test_a_tile_coming_into_reach_is_picked_up():
    """Pairs beyond reach are not tracked; a tile that moves more than margin / 2 remakes the
    pair set, so a tile approaching from afar starts to feel its neighbours."""
    tm = TileMagnets.from_specs(load_preset("standard").tile.magnets)
    cache = CachedWrenches(tm, SHIFT, TURN)
    quats = np.tile([0, 0, 0, 1.0], (2, 1))
    for x in np.arange(0.15, 0.04, -0.0015):  # 1.5 mm per call
        pos = np.array([[0.0, 0.0, H / 2], [x, 0.0, H / 2]])
        F, T = cache.update(pos, quats)
        Fr, Tr = tm.wrenches(pos, quats)
        bf, _ = tile_bounds(cache, tm, pos, quats)
        assert np.all(np.linalg.norm(F - Fr, axis=1) <= bf + 1e-15), x
    assert np.abs(Fr).max() > 0  # it did come into reach


@pytest.mark.parametrize("what", ["drop", "fall"])
def test_world_wrenches_stay_within_the_bound_of_fresh_ones(what):
    """A moving world (a tile dropped askew on a stack; a tile falling off an overhang): every
    few steps, the wrenches the world applies differ from fresh ones by less than the
    stated bound, and action equals reaction."""
    preset = load_preset("standard")
    with World(preset) as world:
        world._magnets = smooth()
        world._cache = CachedWrenches(world._magnets, SHIFT, TURN)
        world.add_tile((1, 1), (0, 0, H / 2))
        if what == "drop":
            world.add_tile((1, 2), (0.003, 0.001, 1.5 * H), 0.05)
            world.drop((2, 2), (0.006, -0.002, 2.5 * H), 0.3, drop_height=0.002)
        else:
            world.add_tile((1, 2), (0.030, 0.0, 1.5 * H))
            world.add_tile((2, 2), (0.060, 0.0, 2.5 * H))
        recomputed = 0
        for _ in range(60):
            world.step(10)
            pos, quats = world.poses()
            F, T = world._cache.update(pos, quats)  # what the next step applies
            recomputed += world._cache.last
            Fr, Tr = world._magnets.wrenches(pos, quats)
            bf, bt = tile_bounds(world._cache, world._magnets, pos, quats)
            assert np.all(np.linalg.norm(F - Fr, axis=1) <= bf)
            assert np.all(np.linalg.norm(T - Tr, axis=1) <= bt)
            assert np.linalg.norm(F.sum(axis=0)) < 1e-12 * np.abs(F).max()
        assert recomputed > 0 and world.magnet_updates > 0


def test_idle_checks_change_nothing_that_matters():
    # Checking a resting construction only every few steps must give the same verdicts and,
    # to well within the collapse thresholds, the same motion as checking every step.

    from magdomino.model.presets import load_preset
    from magdomino.physics.settle import settle
    from magdomino.physics.world import World

    base = load_preset("standard")
    results = []
    for idle in (1, 3):
        p = base.with_settings(magnet_idle_steps=idle)
        with World(p) as world:
            for level in range(4):
                world.add_tile((level, 6), (0.012 * (level % 2), 0, 0.004 + 0.008 * level))
            world.step(400)
            before = world.poses()
            rest = np.array([0.036, 0, 0.036])  # a step outward: too far for these magnets
            index = world.drop((6, 6), rest, drop_height=0.001)
            ref = (np.vstack([before[0], [np.nan] * 3]), np.vstack([before[1], [np.nan] * 4]))
            v = settle(world, list(range(4)), ref, placed=index, placed_rest=(rest, np.array([0, 0, 0, 1.0])))
            results.append((v.collapsed, v.reason, world.poses()[0][:4].copy(), v.max_shift_mm))
    (c1, r1, p1, s1), (c3, r3, p3, s3) = results
    assert (c1, r1) == (c3, r3)
    assert np.max(np.abs(p1 - p3)) < 0.2e-3


def test_idle_checks_only_at_rest_not_during_a_rigid_fall():
    # Two attracting tiles stacked and held together fall as one body: no pair moves
    # relative to the other (nothing to recompute), yet they move, so every step is checked.
    from magdomino.model.presets import load_preset
    from magdomino.physics.world import World

    with World(load_preset("standard")) as world:
        world.add_tile((0, 1), (0, 0, 0.060))
        world.add_tile((1, 2), (0, 0, 0.068))
        world.step(40)  # the pair falls freely (about 2 mm in 20 ms)
        checks = world.magnet_checks
        world.step(100)
        assert world.magnet_checks - checks == 100
    with World(load_preset("standard")) as world:
        for level in range(6):
            world.add_tile((0, level), (0, 0, 0.004 + 0.008 * level))
        world.step(2000)  # settled
        checks = world.magnet_checks
        world.step(400)
        idle = world._idle_steps
        assert world.magnet_checks - checks <= 400 / idle + 20  # at rest: one check per idle period


def test_pybullet_keeps_an_external_force_over_the_sub_steps_of_one_call():
    # World steps a construction at rest as sub-steps of one stepSimulation with the magnet
    # wrenches applied once: that is only right if PyBullet holds the force over every
    # sub-step. A free body pushed up by half its weight falls at g/2: closed form
    # (semi-implicit Euler: z drops by a·dt²·N(N+1)/2 after N steps), 1 or 4 sub-steps a call.
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

    dt, steps, mass, g = 1 / 2500, 1000, 0.01, 9.81
    for k in (1, 4):
        client = BulletClient(pybullet.DIRECT)
        try:
            client.setGravity(0, 0, -g)
            client.setPhysicsEngineParameter(fixedTimeStep=k * dt, numSubSteps=k if k > 1 else 0)
            body = client.createMultiBody(mass, client.createCollisionShape(pybullet.GEOM_SPHERE, radius=0.01), basePosition=[0, 0, 1])
            client.changeDynamics(body, -1, linearDamping=0.0, angularDamping=0.0)
            for _ in range(steps // k):
                client.applyExternalForce(body, -1, [0, 0, mass * g / 2], [0, 0, 1], pybullet.WORLD_FRAME)
                client.stepSimulation()
            drop = 1 - client.getBasePositionAndOrientation(body)[0][2]
        finally:
            client.disconnect()
        assert drop == pytest.approx(g / 2 * dt**2 * steps * (steps + 1) / 2, rel=1e-6), k


def test_sub_stepped_rest_gives_the_verdicts_of_single_steps():
    # The same placements stepped one call per step (the magnets applied before each) and with
    # the idle steps as sub-steps: same verdicts, motions within micrometres of each other.
    from magdomino.physics.settle import settle

    preset = load_preset("standard")
    results = []
    for substeps in (False, True):
        with World(preset) as world:
            if not substeps:
                world._set_substeps = lambda k: None  # every call one step
                world._idle_steps = 1
            for level in range(4):
                world.add_tile((level, 6), (0.012 * (level % 2), 0, 0.004 + 0.008 * level))
            world.step(400)
            before = world.poses()
            rest = np.array([0.012, 0, 0.036])  # continues the zigzag: held
            index = world.drop((6, 6), rest, drop_height=0.001)
            ref = (np.vstack([before[0], [np.nan] * 3]), np.vstack([before[1], [np.nan] * 4]))
            v = settle(world, list(range(4)), ref, placed=index, placed_rest=(rest, np.array([0, 0, 0, 1.0])))
            results.append((v.collapsed, v.reason, world.poses()[0].copy(), world.steps))
    (c1, r1, p1, n1), (c2, r2, p2, n2) = results
    assert (c1, r1) == (c2, r2) and n1 == n2
    assert np.max(np.abs(p1 - p2)) < 0.05e-3


LINEAR = (0.2e-3, math.radians(1.0))  # the standard preset's first-order band


def _moved_within(rng, pos, rot, rho, gap, shift, turn, fraction):
    """Tile 1 moved relative to tile 0 by a displacement bound (|Δs| + θ ρ) of ``fraction``
    of ``shift · gap / 8 mm``, turn at most ``turn``, random directions."""
    theta = rng.uniform(0, fraction) * min(turn, shift * gap / UPDATE_REF_DISTANCE / rho)
    budget = fraction * shift * gap / UPDATE_REF_DISTANCE - theta * rho
    axis, step = rng.normal(size=3), rng.normal(size=3)
    rot1 = Rotation.from_rotvec(theta * axis / np.linalg.norm(axis)) * rot[1]
    pos1 = pos[1] + rot[0].apply(budget * step / np.linalg.norm(step))
    return np.array([pos[0], pos1]), Rotation.concatenate([rot[0], rot1]).as_quat()


def test_the_first_order_band_stays_within_its_stated_bound():
    """Moves across the first-order band (beyond the zero-order thresholds, within the band's):
    no recomputation, the Jacobian is followed, and the wrenches differ from fresh ones by
    less than the stated bound; third law exact, angular momentum balanced."""
    rng = np.random.default_rng(11)
    tm = smooth()
    worst = 0.0
    for trial in range(60):
        pos, rot = random_pair(rng)
        cache = CachedWrenches(tm, SHIFT, TURN, linear=LINEAR)
        cache.update(pos, rot.as_quat())
        gap = tm.pair_wrenches([0], [1], pos, rot.as_quat())[3][0]
        P, Q = _moved_within(rng, pos, rot, cache.rho, gap, *LINEAR, rng.uniform(0.2, 0.99))
        F, T = cache.update(P, Q)
        assert cache.last == 0 and cache.linear_updates == 1, trial
        Fr, Tr = tm.wrenches(P, Q)
        bf, bt = tile_bounds(cache, tm, P, Q)
        assert np.all(np.linalg.norm(F - Fr, axis=1) < bf), trial
        assert np.all(np.linalg.norm(T - Tr, axis=1) < bt), trial
        worst = max(worst, float(np.max(np.linalg.norm(F - Fr, axis=1) / bf)))
        assert np.allclose(F[0], -F[1], rtol=0, atol=1e-12 * np.abs(F).max())
        moment = np.cross(P, F).sum(axis=0) + T.sum(axis=0)
        assert np.linalg.norm(moment) < 1e-9 * np.abs(F).max() * 0.01
    eps_f, _ = CachedWrenches(tm, SHIFT, TURN, linear=LINEAR).error_bounds()
    assert eps_f == pytest.approx(max(5 * SHIFT / UPDATE_REF_DISTANCE + 2 * TURN, 10 * (0.2 / 8) ** 2 + 5e-4))
    assert worst > 0.1  # not vacuous


@pytest.mark.parametrize("gap_mm", [8, 15, 30])
@pytest.mark.parametrize("direction", [(0, 0, 1), (0, 0, -1), (1, 0, 0)])
def test_the_first_order_band_holds_its_bound_along_the_magnets_axis(gap_mm, direction):
    """The remainder's worst direction: a stacked pair pulled apart or pushed together along
    the magnets' axis (where F ∝ d⁻⁴ bends most), to the band's edge: within the bound, and a
    sizeable part of it (the axial remainder of a point dipole, 10 (Δ/d)², is what sets it)."""
    tm = smooth()
    q = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
    gap = gap_mm / 1000
    pos = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, gap]])
    cache = CachedWrenches(tm, SHIFT, TURN, linear=LINEAR)
    cache.update(pos, q)
    moved = pos.copy()
    moved[1] += 0.99 * LINEAR[0] * gap / UPDATE_REF_DISTANCE * np.array(direction, float)
    F, T = cache.update(moved, q)
    assert cache.linear_updates == 1 and cache.last == 0
    Fr, Tr = tm.wrenches(moved, q)
    bf, bt = tile_bounds(cache, tm, moved, q)
    assert np.all(np.linalg.norm(F - Fr, axis=1) < bf)
    assert np.all(np.linalg.norm(T - Tr, axis=1) <= bt)
    if direction[2]:
        assert np.linalg.norm(F[1] - Fr[1]) > 0.2 * bf[1]


def test_the_first_order_band_follows_the_jacobian():
    """The remainder is second order: half the move leaves a quarter of the error (a wrong or
    missing Jacobian leaves half, the zero-order rate); and it is far below what holding
    the computed wrench would err."""
    rng = np.random.default_rng(5)
    tm = smooth()
    ratios, gains = [], []
    for _trial in range(20):
        pos, rot = random_pair(rng)
        gap = tm.pair_wrenches([0], [1], pos, rot.as_quat())[3][0]
        axis, step = rng.normal(size=3), rng.normal(size=3)
        errors = []
        for scale in (1.0, 0.5):
            cache = CachedWrenches(tm, SHIFT, TURN, linear=LINEAR)
            cache.update(pos, rot.as_quat())
            theta = scale * min(0.3 * LINEAR[0] * gap / UPDATE_REF_DISTANCE / cache.rho, 0.8 * LINEAR[1])
            rot1 = Rotation.from_rotvec(theta * axis / np.linalg.norm(axis)) * rot[1]
            pos1 = pos[1] + rot[0].apply(scale * 0.6 * LINEAR[0] * gap / UPDATE_REF_DISTANCE * step / np.linalg.norm(step))
            P, Q = np.array([pos[0], pos1]), Rotation.concatenate([rot[0], rot1]).as_quat()
            F, _ = cache.update(P, Q)
            assert cache.linear_updates == 1
            Fr, _ = tm.wrenches(P, Q)
            errors.append(np.linalg.norm(F[1] - Fr[1]))
            if scale == 1.0:
                F0, _ = tm.wrenches(pos, rot.as_quat())
                gains.append(np.linalg.norm(F0[1] - Fr[1]) / errors[-1])
        ratios.append(errors[0] / errors[1])
    assert 3.3 < np.median(ratios) < 4.7, ratios
    assert min(gains) > 5, gains


def test_a_world_slide_with_the_band_stays_within_the_bound_of_fresh_ones():
    """A tile slid under a magnet-held overhang (the band at work: few recomputations): every
    few steps the world's wrenches are within the stated bound of fresh ones."""
    preset = load_preset("standard")
    with World(preset) as world:
        world._magnets = smooth()
        world._cache = CachedWrenches(world._magnets, SHIFT, TURN, linear=LINEAR)
        world.add_tile((1, 1), (0, 0, H / 2))
        world.add_tile((1, 4), (0.024, 0, 1.5 * H))
        world.step(100)
        checked = []

        def check(w):
            pos, quats = w.poses()
            F, T = w._cache.update(pos, quats)
            Fr, Tr = w._magnets.wrenches(pos, quats)
            bf, bt = tile_bounds(w._cache, w._magnets, pos, quats)
            assert np.all(np.linalg.norm(F - Fr, axis=1) <= bf)
            assert np.all(np.linalg.norm(T - Tr, axis=1) <= bt)
            checked.append(np.max(np.linalg.norm(F - Fr, axis=1) / np.maximum(bf, 1e-30)))

        world.on_step, world.on_step_every = check, 25
        updates = world._cache.updates
        world.slide((4, 4), (0.048, 0, H / 2), start_offset=(0.02, 0))
        steps = len(checked) * 25
        assert len(checked) > 10 and world._cache.linear_updates > steps / 2
        assert world._cache.updates - updates < steps / 5  # recomputed far less than every step
        assert max(checked) > 0.01


@pytest.mark.parametrize("shift, turn, linear", [(0.0, 0.0, None), (0.0, TURN, None), (SHIFT, 0.0, LINEAR), (0.0, 0.0, LINEAR)])
def test_zero_thresholds_are_thresholds_not_divisions(shift, turn, linear):
    """A threshold of 0 means: recompute (or, within a band, follow the Jacobian) on any such
    move; the compiled check must not divide by it."""
    rng = np.random.default_rng(2)
    tm = smooth()
    pos, rot = random_pair(rng)
    cache = CachedWrenches(tm, shift, turn, linear=linear)
    cache.update(pos, rot.as_quat())
    moved = pos.copy()
    moved[1] += 1e-6
    turned = (Rotation.from_rotvec([0.0, 0.0, 1e-4]) * rot[1]).as_quat()
    quats = np.array([rot[0].as_quat(), turned])
    F, _ = cache.update(moved, quats)
    fresh = tm.wrenches(moved, quats)[0]
    if linear is None:
        assert cache.last == 1
        np.testing.assert_allclose(F, fresh, rtol=1e-12, atol=1e-15)
    else:
        assert cache.last + cache.linear_updates == 1
        assert np.all(np.linalg.norm(F - fresh, axis=1) <= tile_bounds(cache, tm, moved, quats)[0])


def test_dropping_the_active_mask_makes_every_tile_active_again():
    tm = smooth()
    pos = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.01], [0.02, 0.0, 0.0]])
    q = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))
    cache = CachedWrenches(tm, SHIFT, TURN, linear=LINEAR)
    F_masked, _ = cache.update(pos, q, active=[True, True, False])
    assert not F_masked[2].any()
    F, _ = cache.update(pos, q)
    np.testing.assert_allclose(F, tm.wrenches(pos, q)[0], rtol=1e-12, atol=1e-15)
