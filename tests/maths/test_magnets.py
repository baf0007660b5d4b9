"""Magnet forces against magpylib (an exact, independent reference), conservation laws, the
batch function's shortcuts and their stated error bounds."""

from __future__ import annotations

import math
from types import SimpleNamespace

import magpylib as magpy  # a test dependency: missing is a failure, not a skip
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from magdomino.errors import InputError
from magdomino.maths.magnets import (
    CUTOFF_Q,
    MU0,
    NEAR_Q,
    Magnet,
    TileMagnets,
    cell_rule,
    dipole_field,
    dipole_force_torque,
    dipole_pair_force_torque,
    energy_between,
    force_between,
    rule_nodes,
)

DISC = ("cylinder", (0.006, 0.002))
J = 1.2


def _magpy(m: Magnet):
    """The magpylib twin of a Magnet (polarisation along the local z axis)."""
    kw = dict(polarization=(0, 0, m.polarization), position=m.position, orientation=m.orientation)
    if m.shape == "cylinder":
        return magpy.magnet.Cylinder(dimension=m.dimensions, **kw)
    return magpy.magnet.Cuboid(dimension=m.dimensions, **kw)


def _meshing(m: Magnet):
    # Fine target meshes: the reference's own error is < 0.1 % at these sizes.
    return (48, 14, 12) if m.shape == "cylinder" else (24, 24, 12)


def exact(a: Magnet, b: Magnet):
    """magpylib: force on b from a and torque on b about b's centre (pivot = centroid)."""
    F, T = magpy.getFT(_magpy(a), _magpy(b), pivot=b.position, meshing=_meshing(b))
    return np.asarray(F), np.asarray(T)


def rel(x, ref):
    """Error relative to the magnitude of the reference (components near zero included)."""
    return float(np.linalg.norm(np.asarray(x) - ref) / np.linalg.norm(ref))


def dipole_moment(shape, dims, pol):
    return Magnet(shape, dims, pol).moment[2]


# --------------------------------------------------------------------------------------
# Known facts and closed forms
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gap, exact_N, dipole_N",
    [(0.004, 1.67, 6.83), (0.006, 0.604, 1.35), (0.010, 0.124, 0.175), (0.020, 0.00996, 0.0109)],
)
def test_known_coaxial_facts(gap, exact_N, dipole_N):
    a = Magnet(*DISC, J)
    b = Magnet(*DISC, J, position=(0, 0, gap))
    F, T = force_between(a, b)
    Fd, _ = force_between(a, b, model="dipole")
    assert F[2] == pytest.approx(-exact_N, rel=0.006)
    assert Fd[2] == pytest.approx(-dipole_N, rel=0.006)
    assert np.allclose(F[:2], 0, atol=1e-9 * exact_N) and np.allclose(T, 0, atol=1e-12)


@pytest.mark.parametrize("r", [0.004, 0.01, 0.05])
def test_dipole_model_closed_forms(r):
    a = Magnet(*DISC, J)
    b = Magnet(*DISC, 0.8, position=(0, 0, r))
    m1, m2 = a.moment[2], b.moment[2]
    F, T = force_between(a, b, model="dipole")
    assert F == pytest.approx([0, 0, -3 * MU0 * m1 * m2 / (2 * math.pi * r**4)], rel=1e-12, abs=1e-18)
    # side by side, parallel: repulsion 3 μ0 m1 m2 / (4π r⁴)
    b = Magnet(*DISC, 0.8, position=(r, 0, 0))
    F, T = force_between(a, b, model="dipole")
    assert F == pytest.approx([3 * MU0 * m1 * m2 / (4 * math.pi * r**4), 0, 0], rel=1e-12, abs=1e-18)
    # b turned 90° about y: torque m_b × B_a with B_a = -μ0 m1 / (4π r³) ẑ at b
    b = Magnet(*DISC, 0.8, position=(r, 0, 0), orientation=Rotation.from_euler("y", 90, degrees=True))
    F, T = force_between(a, b, model="dipole")
    B = np.array([0, 0, -MU0 * m1 / (4 * math.pi * r**3)])
    assert T == pytest.approx(np.cross(b.moment, B), rel=1e-12, abs=1e-18)


def test_raw_layer_against_magpylib_and_itself():
    rng = np.random.default_rng(1)
    pos = rng.normal(size=(4, 3)) * 0.01
    mom = rng.normal(size=(4, 3))
    pts = rng.normal(size=(5, 3)) * 0.01 + 0.05
    B = dipole_field(pts, pos, mom)
    ref = sum(magpy.misc.Dipole(moment=m, position=p).getB(pts) for p, m in zip(pos, mom))
    assert np.allclose(B, ref, rtol=1e-8, atol=0)  # magpylib uses the CODATA μ0 (+5e-10)
    mb = rng.normal(size=(5, 3))
    F, T = dipole_force_torque(pos, mom, pts, mb)
    f, t = dipole_pair_force_torque(pts[None] - pos[:, None], mom[:, None], mb[None])
    assert np.allclose(F, f.sum(0)) and np.allclose(T, np.cross(mb, B), rtol=1e-10)


# --------------------------------------------------------------------------------------
# Finite model against magpylib
# --------------------------------------------------------------------------------------

CUBE = ("cuboid", (0.005, 0.005, 0.002))
TILT = Rotation.from_euler("xy", [20, -15], degrees=True)
T30 = Rotation.from_euler("x", 30, degrees=True)

CASES = {
    # coaxial, face clearances 1, 2, 4 mm, then centre gaps 10 and 20 mm
    "disc coax 1mm": (DISC, DISC, (0, 0, 0.003), None),
    "disc coax 2mm": (DISC, DISC, (0, 0, 0.004), None),
    "disc coax 4mm": (DISC, DISC, (0, 0, 0.006), None),
    "disc coax 10mm": (DISC, DISC, (0, 0, 0.010), None),
    "disc coax 20mm": (DISC, DISC, (0, 0, 0.020), None),
    "disc offset": (DISC, DISC, (0.003, 0.001, 0.004), None),
    "disc stack offset": (DISC, DISC, (0.012, 0, 0.008), None),
    "disc side 1mm": (DISC, DISC, (0.007, 0, 0), None),
    "disc tilt 30": (DISC, DISC, (0.001, 0, 0.0055), T30),
    "disc tilt mixed": (DISC, DISC, (0.002, 0.001, 0.005), TILT),
    "cuboid coax 1mm": (CUBE, CUBE, (0, 0, 0.003), None),
    "cuboid coax 20mm": (CUBE, CUBE, (0, 0, 0.020), None),
    "cuboid offset tilt": (CUBE, CUBE, (0.003, 0.001, 0.006), TILT),
    "cuboid side 1mm": (CUBE, CUBE, (0.006, 0, 0), None),
    "cube/disc tilt 30": (("cuboid", (0.004, 0.004, 0.004)), DISC, (0.002, 0.0, 0.0065), T30),
}


@pytest.mark.parametrize("name", list(CASES))
def test_finite_model_within_2_percent_of_magpylib(name):
    sa, sb, pos, rot = CASES[name]
    a = Magnet(*sa, J, position=(0.001, -0.002, 0.0005))
    b = Magnet(*sb, -0.9 if "mixed" in name else 1.0, position=np.add(pos, a.position), orientation=rot)
    F, T = force_between(a, b)
    Fr, Tr = exact(a, b)
    assert rel(F, Fr) < 0.02
    if np.linalg.norm(Tr) > 1e-3 * np.linalg.norm(Fr) * 0.003:  # torque not just round-off
        assert rel(T, Tr) < 0.02


# --------------------------------------------------------------------------------------
# Conservation laws
# --------------------------------------------------------------------------------------

_pose = st.tuples(
    st.floats(-0.01, 0.01), st.floats(-0.01, 0.01), st.floats(0.006, 0.02),
    st.floats(-np.pi, np.pi), st.floats(0, np.pi / 2), st.floats(-np.pi, np.pi),
)


@settings(max_examples=10, deadline=None)
@given(_pose, st.sampled_from(["cylinder", "cuboid"]), st.sampled_from(["finite", "dipole"]))
def test_newton_third_law_and_angular_momentum(pose, shape, model):
    dims = DISC[1] if shape == "cylinder" else CUBE[1]
    a = Magnet(*DISC, J, position=(0.001, 0.002, -0.001), orientation=Rotation.from_euler("z", 10, degrees=True))
    b = Magnet(shape, dims, 0.7, position=np.add(pose[:3], a.position),
               orientation=Rotation.from_euler("zyz", pose[3:]))
    Fb, Tb = force_between(a, b, model=model, cells=32)
    Fa, Ta = force_between(b, a, model=model, cells=32)
    scale = np.linalg.norm(Fb)
    assert np.allclose(Fa, -Fb, rtol=0, atol=1e-9 * scale)
    L = Ta + Tb + np.cross(b.position - a.position, Fb)
    assert np.linalg.norm(L) < 1e-9 * scale * 0.01


@pytest.mark.parametrize("model", ["finite", "dipole"])
def test_force_and_torque_are_minus_energy_gradient(model):
    a = Magnet(*DISC, J, position=(0.0, 0.0, 0.0))
    base = np.array([0.003, -0.001, 0.007])
    rot = Rotation.from_euler("xy", [25, 10], degrees=True)
    b = Magnet(*CUBE, 0.9, position=base, orientation=rot)
    F, T = force_between(a, b, model=model, cells=72)
    h = 1e-6
    for i in range(3):
        dx = np.eye(3)[i] * h
        up = energy_between(a, Magnet(*CUBE, 0.9, position=base + dx, orientation=rot), model=model, cells=72)
        dn = energy_between(a, Magnet(*CUBE, 0.9, position=base - dx, orientation=rot), model=model, cells=72)
        assert -(up - dn) / (2 * h) == pytest.approx(F[i], abs=2e-5 * np.linalg.norm(F))
    d = 1e-5  # turning b about its centre: τ = -dU/dθ
    for i in range(3):
        turn = Rotation.from_rotvec(np.eye(3)[i] * d)
        up = energy_between(a, Magnet(*CUBE, 0.9, position=base, orientation=turn * rot), model=model, cells=72)
        dn = energy_between(a, Magnet(*CUBE, 0.9, position=base, orientation=turn.inv() * rot), model=model, cells=72)
        assert -(up - dn) / (2 * d) == pytest.approx(T[i], abs=2e-5 * np.linalg.norm(T))


# --------------------------------------------------------------------------------------
# Checked layer: bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, key",
    [
        (dict(shape="sphere", dimensions=(0.006,)), "shape"),
        (dict(shape="cylinder", dimensions=(0.006, 0.0)), "dimensions"),
        (dict(shape="cylinder", dimensions=(0.006, 0.002, 0.001)), "dimensions"),
        (dict(shape="cuboid", dimensions=(0.006, -0.002, 0.001)), "dimensions"),
        (dict(shape="cuboid", dimensions=(0.006, 0.002, 0.001), polarization=float("nan")), "polarization"),
        (dict(shape="cuboid", dimensions=(0.006, 0.002, 0.001), orientation="up"), "orientation"),
    ],
)
def test_bad_magnet_raises_input_error(kwargs, key):
    with pytest.raises(InputError) as err:
        Magnet(**kwargs)
    assert err.value.key == key


def test_bad_model_and_cells_raise_input_error():
    a, b = Magnet(*DISC, J), Magnet(*DISC, J, position=(0, 0, 0.01))
    with pytest.raises(InputError) as err:
        force_between(a, b, model="exact")
    assert err.value.key == "model"
    with pytest.raises(InputError):
        force_between(a, b, cells=0)
    with pytest.raises(InputError):
        TileMagnets([(0, 0, 0)], [(0, 0, 1)], ["cylinder"], [(0.006, 0.002)], [J], [False], model="magic")
    with pytest.raises(InputError):
        TileMagnets([(0, 0, 0)], [(0, 0, 1)], ["cone"], [(0.006, 0.002)], [J], [False])


# --------------------------------------------------------------------------------------
# Batch layer
# --------------------------------------------------------------------------------------

STANDARD = [
    SimpleNamespace(position=np.array([x, 0.0, 0.0]), shape="cylinder", dimensions=(0.006, 0.002),
                    polarization=0.6, axis=np.array([0.0, 0.0, 1.0]), free=False)
    for x in (-0.012, 0.012)
]


def _scene(rng, n=5, jitter=0.002, tilt=0.05):
    """A jittered stack of n tiles (tilts of a few degrees: no tiles overlap) plus one tile
    lying beside it."""
    pos = np.zeros((n + 1, 3))
    pos[:n, 2] = 0.004 + 0.008 * np.arange(n)
    pos[:n, :2] += rng.normal(scale=jitter, size=(n, 2))
    pos[n] = (0.010, 0.030, 0.012)
    rot = Rotation.from_rotvec(rng.normal(scale=tilt, size=(n + 1, 3)))
    return pos, rot


def _pair_sum(specs, pos, rot, **kw):
    """Σ force_between over the magnet pairs of different tiles; torque about tile centres."""
    mags = [
        (i, Magnet(s.shape, s.dimensions, s.polarization, position=pos[i] + rot[i].apply(s.position),
                   orientation=rot[i] * Rotation.align_vectors([s.axis], [[0, 0, 1]])[0]))
        for i in range(len(pos)) for s in specs
    ]
    F = np.zeros((len(pos), 3))
    T = np.zeros((len(pos), 3))
    for i, a in mags:
        for j, b in mags:
            if i != j:
                f, t = force_between(a, b, **kw)
                F[j] += f
                T[j] += t + np.cross(b.position - pos[j], f)
    return F, T


@pytest.mark.parametrize("model, cells", [("finite", 32), ("dipole", None)])
def test_batch_equals_sum_of_pairs(model, cells):
    rng = np.random.default_rng(3)
    pos, rot = _scene(rng)
    tm = TileMagnets.from_specs(STANDARD, model=model, near=np.inf, cutoff=np.inf, cells=cells)
    F, T = tm.wrenches(pos, rot.as_quat())
    Fr, Tr = _pair_sum(STANDARD, pos, rot, model=model, cells=cells)
    scale = np.abs(Fr).max()
    assert np.allclose(F, Fr, rtol=0, atol=1e-9 * scale)
    assert np.allclose(T, Tr, rtol=0, atol=1e-9 * scale * 0.01)
    # Conservation over the whole construction.
    assert np.allclose(F.sum(0), 0, atol=1e-6 * scale)
    assert np.allclose(T.sum(0) + np.cross(pos, F).sum(0), 0, atol=1e-6 * scale * 0.01)


def test_compiled_direct_sums_equal_the_moment_sums():
    """The batch's compiled kernel (direct sums over cell pairs, float64) against the moment
    sums of :func:`cells_wrench` (float64), on mixed magnets (padded rules), every level
    from the point dipole to fine rules, random poses: equal to rounding."""
    from magdomino.maths.magnets.finite import cells_wrench, rules_wrench

    specs = [SimpleNamespace(position=np.array([-0.012, 0.001, 0.0]), axis=np.array([0.0, 0.1, 1.0]), shape="cylinder",
                             dimensions=(0.006, 0.002), polarization=1.2, free=False),
             SimpleNamespace(position=np.array([0.012, 0.0, 0.0]), axis=np.array([0.3, 0.0, -1.0]), shape="cuboid",
                             dimensions=(0.004, 0.003, 0.002), polarization=-1.1, free=False)]
    tm = TileMagnets.from_specs(specs)
    offsets, moments, counts = tm._stacked_rules(4)
    rng = np.random.default_rng(5)
    P = 40
    level = rng.integers(0, 5, P).astype(np.intp)
    ka, kb = rng.integers(0, 2, P).astype(np.intp), rng.integers(0, 2, P).astype(np.intp)
    Ra, Rb = Rotation.random(P, random_state=1).as_matrix(), Rotation.random(P, random_state=2).as_matrix()
    r = rng.normal(size=(P, 3))
    r *= (rng.uniform(0.008, 0.04, P) / np.linalg.norm(r, axis=1))[:, None]
    ua = np.einsum("pij,pj->pi", Ra, tm.axes[ka])
    ub = np.einsum("pij,pj->pi", Rb, tm.axes[kb])
    F, T = np.empty((P, 3)), np.empty((P, 3))
    rules_wrench(level, ka, kb, Ra, Rb, r, ua, ub, offsets, moments, counts, F, T)
    def cells(kind, lv):  # the magnet's own quadrature cells (tile frame), unpadded
        o, w = cell_rule(specs[kind].shape, specs[kind].dimensions, rule_nodes(specs[kind].shape, specs[kind].dimensions, lv))
        return o @ tm.frames[kind].T, w * tm.moments[kind]

    for p in range(P):
        (oa, wa), (ob, wb) = cells(ka[p], level[p]), cells(kb[p], level[p])
        Fr, Tr = cells_wrench((oa @ Ra[p].T)[None], wa[None], ua[p][None], (r[p] + ob @ Rb[p].T)[None], wb[None],
                               ub[p][None], r[p][None])
        scale = np.linalg.norm(Fr)
        assert np.allclose(F[p], Fr[0], rtol=0, atol=1e-9 * scale), p
        assert np.allclose(T[p], Tr[0], rtol=0, atol=1e-9 * scale * 0.02), p


def test_batch_defaults_against_magpylib_tile_pairs():
    """The default tiers (finite near, dipole beyond ``near``) for whole tiles: within 1 %
    of magpylib for stacked tiles and 3 % (of the coaxial force at that distance) beyond."""
    tm = TileMagnets.from_specs(STANDARD)
    rng = np.random.default_rng(7)
    for k, (offset, tilt) in enumerate([((0, 0, 0.008), 0.0), ((0.004, 0.002, 0.008), 0.1),
                                        ((0.020, 0.0, 0.008), 0.2), ((0.0, 0.0, 0.016), 0.1)]):
        pos = np.array([[0.0, 0.0, 0.0], offset])
        rot = Rotation.from_rotvec(rng.normal(scale=tilt, size=(2, 3)))
        F, T = tm.wrenches(pos, rot.as_quat())
        src = [_magpy(Magnet("cylinder", s.dimensions, s.polarization, position=rot[0].apply(s.position), orientation=rot[0]))
               for s in STANDARD]
        tgt = magpy.Collection(*[_magpy(Magnet("cylinder", s.dimensions, s.polarization,
                                                 position=pos[1] + rot[1].apply(s.position), orientation=rot[1]))
                                  for s in STANDARD])
        Fr, Tr = magpy.getFT(src, tgt, pivot=pos[1], meshing=(48, 14, 12))
        Fr, Tr = np.sum(Fr, axis=0), np.sum(Tr, axis=0)
        assert rel(F[1], Fr) < 0.01, k
        assert np.linalg.norm(T[1] - Tr) < 0.01 * np.linalg.norm(Fr) * 0.024, k  # lever 24 mm


def test_dipole_beyond_near_errs_less_than_3_percent():
    """Bound stated for ``near``: at d = near the point dipole errs < 3 % of the coaxial force
    at that distance, worst over orientations (coaxial, side by side, tilted)."""
    tm = TileMagnets.from_specs(STANDARD)
    d = tm.near
    rho = math.hypot(0.003, 0.001)
    assert d == pytest.approx(NEAR_Q * rho)
    m = dipole_moment(*DISC, J)
    scale = 3 * MU0 * m * m / (2 * math.pi * d**4)
    rng = np.random.default_rng(11)
    dirs = [np.array([0, 0, 1.0]), np.array([1.0, 0, 0])] + [v / np.linalg.norm(v) for v in rng.normal(size=(4, 3))]
    rots = [Rotation.identity(), Rotation.identity()] + list(Rotation.random(4, random_state=5))
    for u, rb in zip(dirs, rots):
        a = Magnet(*DISC, J)
        b = Magnet(*DISC, J, position=u * d, orientation=rb)
        Fd, Td = force_between(a, b, model="dipole")
        Fr, Tr = exact(a, b)
        assert np.linalg.norm(Fd - Fr) < 0.03 * scale
        assert np.linalg.norm(Td - Tr) < 0.03 * scale * d


def test_cutoff_drops_less_than_0_15_percent():
    """Bound stated for ``cutoff``: a pair at the cutoff exerts < 0.15 % of the force the
    same pair exerts coaxially at the 8 mm stacking gap."""
    tm = TileMagnets.from_specs(STANDARD)
    assert tm.cutoff == pytest.approx(CUTOFF_Q * math.hypot(0.003, 0.001))
    a = Magnet(*DISC, 0.6)
    near, _ = exact(a, Magnet(*DISC, 0.6, position=(0, 0, 0.008)))
    far, _ = exact(a, Magnet(*DISC, 0.6, position=(0, 0, tm.cutoff)))  # coaxial: the strongest
    assert np.linalg.norm(far) < 0.0015 * np.linalg.norm(near)


def test_standard_tower_preset_and_active_mask():
    from magdomino.model.presets import load_preset

    preset = load_preset("standard")
    tm = TileMagnets.from_specs(preset.tile.magnets, model=preset.solver.magnet_model)
    n = 28
    pos = np.zeros((n, 3))
    pos[:, 2] = 0.004 + 0.008 * np.arange(n)
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    F, T = tm.wrenches(pos, quat)
    # The bottom tile is pulled up, the top one down, the middle ones cancel; ~0.065 N per
    # pair at the stacking gap (the preset's figure), two pairs per tile pair.
    assert 0.12 < F[0, 2] < 0.15 and F[-1, 2] == pytest.approx(-F[0, 2], rel=1e-5)
    # (tiles 5 and 22 feel 0.1 % from the one tile that the cutoff leaves them on one side)
    assert np.abs(F[7:-7]).max() < 1e-5 * F[0, 2]
    assert np.abs(T).max() < 1e-6 * F[0, 2]
    active = np.ones(n, bool)
    active[1] = False
    F2, T2 = tm.wrenches(pos, quat, active)
    assert np.all(F2[1] == 0) and np.all(T2[1] == 0)
    F3, T3 = tm.wrenches(np.delete(pos, 1, axis=0), np.delete(quat, 1, axis=0))  # tile 1 gone
    assert np.allclose(np.delete(F2, 1, axis=0), F3, rtol=0, atol=1e-9) and np.allclose(np.delete(T2, 1, axis=0), T3, atol=1e-12)


def test_rules_are_shared_by_the_same_magnets_only():
    """Every world builds its own TileMagnets; their rules are made once per magnet set, and
    a set that differs in anything the rules depend on gets its own."""
    from magdomino.model.presets import load_preset

    specs = load_preset("standard").tile.magnets
    pos = np.array([[0.0, 0.0, 0.004], [0.01, 0.002, 0.012], [0.03, 0.0, 0.004]])
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))
    a, b = TileMagnets.from_specs(specs), TileMagnets.from_specs(specs)
    wa, wb = a.wrenches(pos, quat), b.wrenches(pos, quat)
    assert all(np.array_equal(x, y) for x, y in zip(wa, wb))
    assert a._stack is not None and a._stack is b._stack  # what the wrenches used
    assert a._rule(2) is b._rule(2) and not a._rule(2).offsets.flags.writeable
    changed = {
        "polarization": lambda s: {"polarization": 2 * s.polarization},
        "axis": lambda s: {"axis": np.array([0.0, 0.6, 0.8])},
    }
    for what, change in changed.items():
        other = TileMagnets.from_specs([SimpleNamespace(**{**vars(s), **change(s)}) for s in specs])
        other.wrenches(pos, quat)
        assert other._stack is not a._stack and other._rule(2) is not a._rule(2), what
        assert not np.array_equal(other._stack[1 if what == "polarization" else 0], a._stack[1 if what == "polarization" else 0])
    other = TileMagnets.from_specs(specs, cells=8)
    assert other._rule(2) is not a._rule(2)
    stronger = TileMagnets.from_specs([SimpleNamespace(**{**vars(s), "polarization": 2 * s.polarization}) for s in specs])
    assert np.allclose(stronger._rule(2).moments, 2 * a._rule(2).moments, rtol=1e-12, atol=0)
    assert np.allclose(stronger.wrenches(pos, quat)[0], 4 * wa[0], rtol=1e-9, atol=1e-15)


def _flipped(spec, free):
    return SimpleNamespace(**{**vars(spec), "axis": np.array([0, 0, -1.0]), "free": free})


def test_free_magnets_always_attract():
    """A free magnet lines up with the field of the others, so it attracts even when its
    preset axis points the repelling way; two free magnets attract each other too."""
    free = TileMagnets.from_specs([_flipped(s, True) for s in STANDARD])
    rng = np.random.default_rng(2)
    for k in range(6):
        pos = np.array([[0, 0, 0], [rng.uniform(-0.02, 0.02), rng.uniform(-0.01, 0.01), rng.uniform(0.008, 0.02)]])
        rot = Rotation.from_rotvec(rng.normal(scale=0.3, size=(2, 3)))
        F, T = free.wrenches(pos, rot.as_quat())
        assert F[1] @ (pos[0] - pos[1]) > 0, k
        assert np.allclose(F[0], -F[1], atol=1e-6 * np.linalg.norm(F[1]))
    # Tile type: a fixed magnet (+z) at -12 mm and a free one (preset axis -z) at +12 mm.
    # Tile 1 at x = -24 mm, 8 mm up: its free magnet sits right above tile 0's fixed one.
    pos = np.array([[0, 0, 0], [-0.024, 0, 0.008]])
    quat = np.tile([0, 0, 0, 1.0], (2, 1))
    mixed = TileMagnets.from_specs([STANDARD[0], _flipped(STANDARD[1], True)])
    assert mixed.wrenches(pos, quat)[0][1, 2] < 0  # attracts
    fixed = TileMagnets.from_specs([STANDARD[0], _flipped(STANDARD[1], False)])
    assert fixed.wrenches(pos, quat)[0][1, 2] > 0  # would repel were it fixed


def test_batch_with_cuboids_and_tilted_axes_equals_sum_of_pairs():
    """Mixed shapes, a tilted axis, default (clearance-chosen) rules: the batch agrees with
    force_between pair by pair (same rules), to rounding (the compiled direct sums against
    the moment sums, both float64)."""
    specs = [
        SimpleNamespace(position=np.array([-0.012, 0.0, 0.0]), shape="cylinder", dimensions=(0.006, 0.002),
                        polarization=0.6, axis=np.array([0.0, 0.0, 1.0]), free=False),
        SimpleNamespace(position=np.array([0.012, 0.002, 0.0]), shape="cuboid", dimensions=(0.004, 0.003, 0.002),
                        polarization=1.0, axis=np.array([0.0, 0.3, 1.0]) / math.hypot(0.3, 1.0), free=False),
    ]
    rng = np.random.default_rng(5)
    pos, rot = _scene(rng, n=4)
    tm = TileMagnets.from_specs(specs, near=np.inf, cutoff=np.inf)
    F, T = tm.wrenches(pos, rot.as_quat())
    Fr, Tr = _pair_sum(specs, pos, rot)
    scale = np.abs(Fr).max()
    assert np.allclose(F, Fr, rtol=0, atol=1e-9 * scale)
    assert np.allclose(T, Tr, rtol=0, atol=1e-9 * scale * 0.01)


def test_batch_close_magnets_fine_rules_equal_sum_of_pairs():
    """Magnets 0.5 mm under the tile faces: stacked tiles bring them to 1 mm clearance,
    where the fine (float64) rules are used; still equal to the pair sum."""
    specs = [
        SimpleNamespace(position=np.array([0.0, 0.0, z]), shape="cylinder", dimensions=(0.006, 0.002),
                        polarization=1.2, axis=np.array([0.0, 0.0, 1.0]), free=False)
        for z in (-0.0025, 0.0025)
    ]
    pos = np.array([[0.0, 0.0, 0.004], [0.0005, 0.0, 0.012], [0.0, 0.0003, 0.020]])
    rot = Rotation.from_rotvec([[0, 0, 0], [0.01, 0, 0], [0, 0.01, 0.3]])
    tm = TileMagnets.from_specs(specs)
    F, T = tm.wrenches(pos, rot.as_quat())
    Fr, Tr = _pair_sum(specs, pos, rot)
    scale = np.abs(Fr).max()
    assert np.allclose(F, Fr, rtol=0, atol=1e-9 * scale)
    assert np.allclose(T, Tr, rtol=0, atol=1e-9 * scale * 0.01)


def test_free_magnet_with_negative_polarization_attracts():
    """J < 0 puts the moment against the axis; a free magnet still ends up attracting."""
    neg = SimpleNamespace(**{**vars(STANDARD[1]), "polarization": -0.6, "free": True})
    pos = np.array([[0, 0, 0], [-0.024, 0, 0.008]])  # tile 1's free magnet above tile 0's fixed one
    quat = np.tile([0, 0, 0, 1.0], (2, 1))
    assert TileMagnets.from_specs([STANDARD[0], neg]).wrenches(pos, quat)[0][1, 2] < 0
    fixed = SimpleNamespace(**{**vars(neg), "free": False})
    assert TileMagnets.from_specs([STANDARD[0], fixed]).wrenches(pos, quat)[0][1, 2] > 0
