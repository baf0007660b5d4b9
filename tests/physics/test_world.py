"""The world and its verdicts against references that do not come from our own code:
closed-form statics (centres of mass over supports), magpylib's exact magnet forces for a
tile held only by magnets, and conservation of momentum."""

import math

import numpy as np
import pytest

from magdomino.model.presets import load_preset, preset_from_dict
from magdomino.physics.settle import settle
from magdomino.physics.world import World

L, W, H = 0.048, 0.024, 0.008  # the bundled presets' tile, m
G = 9.81
MASS = 0.010


def preset(name="plain", **solver_or_collapse):
    return load_preset(name).with_settings(**solver_or_collapse)


def stack_verdict(p, xs, magnets=False, fixed_base=False, yaws=None):
    """Spawn tiles at centre x offsets (m), one per level, settle, return the verdict."""
    with World(p, magnets=magnets) as world:
        for level, x in enumerate(xs):
            yaw = 0.0 if yaws is None else yaws[level]
            world.add_tile((level % 7, (level + 1) % 7), (x, 0.0, H / 2 + level * H), yaw, fixed=fixed_base and level == 0)
        return settle(world, list(range(len(xs))))


def staircase(n, step):
    return [i * step for i in range(n)]


# -- statics, magnets off ------------------------------------------------------------------
# A uniform staircase of n tiles with step s: the tiles above the bottom one have their
# centre of mass n*s/2 from the bottom tile's centre, the worst sub-stack; it stands iff
# n*s/2 < L/2, so the critical step is L/n.


@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("side, margin_mm", [("inside", -1.5), ("beyond", +1.5)])
def test_staircases_stand_or_fall_as_their_centres_of_mass_say(n, side, margin_mm):
    step = (L / 2 + margin_mm / 1000) * 2 / n  # worst sub-stack centre of mass = L/2 + margin
    v = stack_verdict(preset(), staircase(n, step))
    assert v.error is None
    assert v.collapsed == (side == "beyond"), v
    if side == "inside":
        assert v.settled and v.max_shift_mm < 0.5


def harmonic_offsets(n, scale):
    """The classic overhang stack: the top tile overhangs the next by L/2, that one by L/4, ...

    Every sub-stack has its centre of mass exactly over the edge below it at scale 1.
    """
    xs = [0.0]
    for k in range(n - 1, 0, -1):  # from the bottom: overhang L/(2k) for the k tiles above
        xs.append(xs[-1] + scale * L / (2 * k))
    return xs


@pytest.mark.parametrize("n", [3, 5])
def test_harmonic_stacks_stand_inside_and_fall_beyond_their_edges(n):
    assert not stack_verdict(preset(), harmonic_offsets(n, 0.85)).collapsed
    assert stack_verdict(preset(), harmonic_offsets(n, 1.15)).collapsed


def test_crossed_stack_stands_and_a_leaning_one_falls_sideways():
    # Alternate tiles turned 90 degrees: every centre over the one below, wide margins.
    assert not stack_verdict(preset(), [0.0] * 6, yaws=[0, math.pi / 2] * 3).collapsed
    # Across its width a tile tips at W/2 = 12 mm: a 2-tile step of 14 mm sideways falls.
    with World(preset()) as world:
        world.add_tile((0, 1), (0, 0, H / 2))
        world.add_tile((1, 2), (0, 0.014, 1.5 * H))
        assert settle(world, [0, 1]).collapsed


def test_mesh_collision_gives_the_same_verdicts_as_the_box():
    data = load_preset("plain").to_dict()
    data["tile"]["collision"] = "mesh"
    mesh = preset_from_dict(data)
    for n, margin in [(2, -1.5), (2, 1.5), (3, -1.5), (3, 1.5)]:
        step = (L / 2 + margin / 1000) * 2 / n
        box_v = stack_verdict(preset(), staircase(n, step))
        mesh_v = stack_verdict(mesh, staircase(n, step))
        assert mesh_v.collapsed == box_v.collapsed == (margin > 0)


@pytest.mark.slow
@pytest.mark.parametrize("magnets", [False, True])
def test_an_aligned_28_tile_stack_stays_within_half_a_millimetre_for_5_s(magnets):
    # The solver contract of DESIGN.md, with the presets' default settings.
    with World(preset("standard"), magnets=magnets) as world:
        for level in range(28):
            world.add_tile((level % 7, (level + 3) % 7), (0, 0, H / 2 + level * H))
        start, _ = world.poses()
        world.step(int(round(5.0 / world.time_step)))
        end, _ = world.poses()
    assert np.max(np.linalg.norm(end - start, axis=1)) < 0.5e-3


@pytest.mark.parametrize("magnets", [False, True])
def test_an_aligned_stack_keeps_still(magnets):
    p = preset("standard")
    with World(p, magnets=magnets) as world:
        for level in range(8):
            world.add_tile((0, level % 7), (0, 0, H / 2 + level * H))
        start, _ = world.poses()
        world.step(int(1.0 / world.time_step))
        end, _ = world.poses()
    assert np.max(np.linalg.norm(end - start, axis=1)) < 0.5e-3


# -- magnets against magpylib ------------------------------------------------------------


def magpylib_tipping_torque(d, J, dims=(0.006, 0.002), meshing=400):
    """Net torque (N m) tipping tile B over tile A's edge; positive tips it over.

    B lies on A with its centre d beyond A's edge (x = L/2); both carry the bundled
    presets' magnets (discs at x = +-12 mm, mid-thickness, magnetised +z). Computed with
    magpylib's exact getFT, about the pivot line on A's top edge.
    """
    import magpylib as magpy  # a test dependency: missing is a failure, not a skip

    def disc(x, z):
        return magpy.magnet.Cylinder(position=(x, 0, z), dimension=dims, polarization=(0, 0, J))

    xb = L / 2 + d
    a = [disc(-L / 4, H / 2), disc(L / 4, H / 2)]
    b = [disc(xb - L / 4, 1.5 * H), disc(xb + L / 4, 1.5 * H)]
    _, torque = magpy.getFT(a, b, pivot=np.array([L / 2, 0.0, H]), meshing=meshing)
    return float(np.sum(np.asarray(torque)[..., 1])) + MASS * G * d


@pytest.fixture(scope="module")
def critical_overhang():
    from scipy.optimize import brentq

    J = load_preset("standard").tile.magnets[0].polarization
    return brentq(lambda d: magpylib_tipping_torque(d, J), 1e-4, L / 2, xtol=1e-5)


def test_magpylib_balance_says_standard_magnets_hold_a_half_lap(critical_overhang):
    # Sanity of the reference itself: a few mm of extra overhang, well below a tile.
    assert 0.001 < critical_overhang < 0.008


@pytest.mark.parametrize("fraction, falls", [(0.8, False), (1.25, True)])
def test_a_tile_held_only_by_magnets_obeys_the_magpylib_torque_balance(critical_overhang, fraction, falls):
    d = fraction * critical_overhang
    xs = [0.0, L / 2 + d]
    with_magnets = stack_verdict(preset("standard"), xs, magnets=True, fixed_base=True)
    assert with_magnets.error is None
    assert with_magnets.collapsed == falls, with_magnets
    # Control: without magnets any overhang beyond the edge falls.
    assert stack_verdict(preset("standard"), xs, magnets=False, fixed_base=True).collapsed


def test_standard_preset_holds_one_half_lap_but_not_a_staircase_of_three():
    p = preset("standard")
    assert not stack_verdict(p, [0.0, L / 2], magnets=True).collapsed
    assert stack_verdict(p, [0.0, L / 2, L], magnets=True).collapsed


def test_magnet_forces_conserve_momentum_in_free_fall():
    # No gravity: only the magnets act until the tiles meet, so the total linear and
    # angular momentum stay zero while each tile gains plenty of its own (Newton's third
    # law, and torques that balance the moment of the forces, as applied through PyBullet).
    # Measured until the first contact: PyBullet applies a contact's friction impulse at
    # two points a penetration depth apart, which alone breaks the angular momentum by
    # about 1e-3 of a tile's (with the preset's true μ).
    from scipy.spatial.transform import Rotation

    box_inertia = MASS / 12 * np.array([W**2 + H**2, L**2 + H**2, L**2 + W**2])

    def spin(q, w):  # angular momentum about the centre of mass, world frame
        r = Rotation.from_quat(q)
        return r.apply(box_inertia * r.inv().apply(w))

    p = preset("standard", gravity_m_s2=0.0)
    with World(p, magnets=True) as world:
        world.add_tile((0, 1), (0, 0, 0.05))
        world.add_tile((1, 2), (0.004, 0.003, 0.066), 0.4)
        gap0 = 0.016
        peak_p = peak_l = 0.0
        worst_p = worst_l = 0.0
        for _ in range(40):  # at most 0.1 s, in 2.5 ms strides
            world.step(int(round(0.0025 / world.time_step)))
            world.detect_contacts()
            if world.client.getContactPoints():
                break
            lin, ang = world.velocities()
            positions, quats = world.poses()
            own_l = [MASS * np.cross(positions[i], lin[i]) + spin(quats[i], ang[i]) for i in range(2)]
            peak_p = max(peak_p, MASS * np.linalg.norm(lin[1]))
            peak_l = max(peak_l, np.linalg.norm(own_l[1]))
            worst_p = max(worst_p, np.linalg.norm(MASS * lin.sum(axis=0)))
            worst_l = max(worst_l, np.linalg.norm(own_l[0] + own_l[1]))
    assert positions[1, 2] - positions[0, 2] < gap0 - 0.002  # attracted
    assert peak_p > 1e-5 and peak_l > 1e-9  # each tile gained momentum of its own
    assert worst_p < 1e-6 * peak_p
    assert worst_l < 1e-3 * peak_l


# -- verdict mechanics ---------------------------------------------------------------------


def test_absurd_speed_is_an_error_never_a_collapse():
    with World(preset()) as world:
        world.add_tile((0, 0), (0, 0, H / 2))
        world.add_tile((0, 1), (0, 0, 1.5 * H), velocity=(400.0, 0, 0))
        v = settle(world, [0, 1])
    assert v.error and v.reason == "error" and v.collapsed is False


def test_a_dropped_tile_on_a_stable_base_stands_and_stops_early():
    with World(preset()) as world:
        world.add_tile((0, 0), (0, 0, H / 2))
        index = world.drop((0, 1), (0.01, 0, 1.5 * H), drop_height=0.002)
        v = settle(world, [0], placed=index, placed_rest=(np.array([0.01, 0, 1.5 * H]), np.array([0, 0, 0, 1.0])))
    assert not v.collapsed and v.settled
    assert v.sim_time_s < 0.6  # stops as soon as it is at rest, far before the time limit


@pytest.mark.parametrize("magnets", [False, True])
def test_an_unstable_balance_is_not_mistaken_for_rest(magnets):
    # A tile whose centre of mass is right over the edge below starts tipping from rest
    # exponentially slowly; without magnets it must still be judged fallen, while the
    # standard magnets' restoring torque (see the magpylib test above) holds it.
    for drop in (0.0, 0.001):
        with World(preset("standard"), magnets=magnets) as world:
            world.add_tile((6, 6), (0, 0, H / 2))
            rest = np.array([L / 2, 0, 1.5 * H])
            index = world.drop((4, 6), rest, drop_height=drop)
            v = settle(world, [0], placed=index, placed_rest=(rest, np.array([0, 0, 0, 1.0])))
        assert v.collapsed == (not magnets), (drop, v)
        assert v.error is None


def test_a_tall_stack_settles_despite_its_vibrating_contacts():
    # The contacts of a tall stack vibrate at tens of mm/s with micrometre amplitudes:
    # the stack is at rest, and the verdict must say so long before the time limit.
    with World(preset("standard")) as world:
        for level in range(20):
            world.add_tile((0, level % 7), (0, 0, H / 2 + level * H))
        v = settle(world, list(range(20)))
    assert v.settled and not v.collapsed and v.sim_time_s < 1.0


def test_a_placed_tile_that_falls_off_is_a_collapse():
    with World(preset()) as world:
        world.add_tile((0, 0), (0, 0, H / 2), fixed=True)
        rest = np.array([L / 2 + 0.01, 0, 1.5 * H])
        index = world.drop((0, 1), rest, drop_height=0.001)
        v = settle(world, [0], placed=index, placed_rest=(rest, np.array([0, 0, 0, 1.0])))
    assert v.collapsed and v.reason == "placed tile fell" and v.culprit == index


def test_fixed_tiles_never_move_and_slides_push():
    with World(preset()) as world:
        world.add_tile((0, 0), (0, 0, H / 2), fixed=True)
        world.add_tile((1, 1), (0.0, 0.05, H / 2))
        # Slide a tile along y through where tile 1 lies: it pushes tile 1 out of the way.
        # It starts touching the fixed tile's side (not inside it: a body spawned inside
        # another is thrown out by the contact solver) and slides away from it.
        index = world.slide((2, 3), (0.0, 0.04, H / 2), start_offset=(0.0, -0.016), speed=0.1)
        positions, _ = world.poses()
    assert np.allclose(positions[0], [0, 0, H / 2], atol=1e-9)
    assert positions[index][1] == pytest.approx(0.04, abs=0.003)
    assert positions[1][1] > 0.05 + 0.005


# -- scenarios and the command line ------------------------------------------------------


def test_a_missed_placement_stops_at_contact_and_never_starts_inside_a_tile():
    from magdomino.studies.aiming import missed_placement
    from magdomino.studies.scenario import scenario_from_dict
    from magdomino.studies.simulation import settle_structure, try_placement

    data = {
        "preset": "plain",
        "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [0, 0]}],
        "what_if": [{"pips": [1, 3], "pos_mm": [48, 0]}],
    }
    sc = scenario_from_dict(data)
    size = sc.preset.tile.size
    poses = [(np.array([0, 0, H / 2]), np.array([0, 0, 0, 1.0])), (np.array([0, 0, 1.5 * H]), np.array([0, 0, 0, 1.0]))]
    rest = np.array([L, 0, H / 2])
    # Missing 3 mm towards the tile it should touch end to end: the hand stops at contact,
    # the sideways part of the miss stays.
    out, yaw = missed_placement(sc.what_if[0], rest, 0.0, (-3.0, 0.5), 0.0, poses, size)
    assert out[0] == pytest.approx(L, abs=2e-5) and out[1] == pytest.approx(0.5e-3, abs=2e-5)
    # Missing away from it, or sideways, is a plain miss.
    out, _ = missed_placement(sc.what_if[0], rest, 0.0, (2.0, 1.0), 0.0, poses, size)
    assert np.allclose(out, [L + 0.002, 0.001, H / 2])
    # A miss that puts the tile over a higher tile releases it above that tile, not inside.
    out, _ = missed_placement(sc.what_if[0], np.array([0.030, 0, 1.5 * H]), 0.0, (-8.0, 0.0), 0.0, poses, size)
    assert out[2] >= 2.5 * H - 1e-9
    _, settled = settle_structure(sc)
    v = try_placement(sc, settled, sc.what_if[0], offset_mm=(-3.0, 0.0))
    assert not v.collapsed and v.max_shift_mm < 0.5


def test_gui_without_a_display_is_one_line_not_a_silent_exit():
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    res = subprocess.run(
        [sys.executable, "-m", "magdomino", "simulate", "scenarios/demo.toml", "--gui"],
        capture_output=True, text=True, env=env, cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        timeout=120,
    )
    assert res.returncode == 2
    assert res.stderr.strip().startswith("magdomino: command line: --gui: a display")


def test_a_reused_connection_gives_the_same_world_bit_for_bit():
    """A closed world's connection serves the next world of the same settings (see
    magdomino.physics.connections.POOL_SIZE): after a world with other tiles, a slide's constraint
    and magnets, the same placement gives the same poses to the last bit as on a new
    connection; other settings get another connection."""
    import magdomino.physics.connections as world_module

    preset = load_preset("standard")
    H = 0.008

    def placement():
        world = World(preset)
        world.add_tile((1, 1), (0.0, 0.0, H / 2))
        world.add_tile((1, 4), (0.02, 0.001, 1.5 * H), 0.05)
        world.drop((4, 4), (0.03, 0.0, 2.5 * H), 0.2)
        verdict = settle(world, [0, 1], placed=2, time_limit_s=0.3)
        poses = world.poses()
        client = world.client
        world.close()
        return client, verdict, poses

    world_module._pool.clear()
    fresh_client, fresh, fresh_poses = placement()
    with World(preset) as other:  # the fresh connection again, dirtied
        assert other.client is fresh_client
        for k in range(4):
            other.add_tile((k, 6), (0.05 * k, 0.0, H / 2))
        other.slide((2, 2), (0.2, 0.0, H / 2), start_offset=(0.01, 0.0))
        other.step(50)
    client, again, poses = placement()
    assert client is fresh_client  # reused
    assert again.to_dict() | {"wall_time_s": 0} == fresh.to_dict() | {"wall_time_s": 0}
    assert all(np.array_equal(a, b) for a, b in zip(poses, fresh_poses))
    with World(preset.with_settings(time_step_s=1 / 3000)) as other:
        assert other.client is not fresh_client
    idle = [client for clients in world_module._pool.values() for client, _ in clients]
    assert fresh_client in idle and all(client.isConnected() for client in idle)
    world_module._drain_pool()  # what runs at exit: every idle connection disconnected
    world_module._pool_closed = False
    assert not world_module._pool and not any(client.isConnected() for client in idle)


def test_worlds_on_reused_connections_remember_nothing_of_earlier_worlds():
    """A verdict must not depend on what the process judged before (trials land on workers
    in any order and number): validation cases, every slide among them, judged one after the
    other on reused connections (which keep their table, see POOL_SIZE) give the verdicts
    each gives on a new connection, to the last digit."""
    from conftest import ROOT

    import magdomino.physics.connections as world_module
    from magdomino.studies.validation import judge, load_cases

    cases = load_cases(ROOT / "tests" / "data" / "validation_set.json")
    chosen = [c for i, c in enumerate(cases) if i % 25 == 0 or (c.placement and type(c.placement[3]).__name__ == "Slide")]
    assert len(chosen) >= 20
    presets = {name: load_preset(name) for name in {c.preset for c in chosen}}

    def verdict(case, fresh):
        if fresh:
            world_module._drain_pool()  # every idle connection closed: this one is new
            world_module._pool_closed = False
        return judge(case, presets[case.preset]).to_dict() | {"wall_time_s": 0}

    in_sequence = [verdict(c, fresh=False) for c in chosen]
    assert any(table is not None for idle in world_module._pool.values() for _, table in idle)  # tables passed on
    assert in_sequence == [verdict(c, fresh=True) for c in chosen]


def test_a_slide_is_a_motion_at_the_hand_s_speed_from_start_to_rest():
    # 10 mm at 50 mm/s: the hand moves for 0.2 s, one target per step, and leaves the tile
    # where it was told (alone on the table, nothing pushes it off its line).
    with World(load_preset("plain"), magnets=False) as world:
        t0 = world.time
        index = world.slide((1, 2), (0.0, 0.0, 0.004), 0.0, start_offset=(0.01, 0.0), speed=0.05)
        assert world.time - t0 == pytest.approx(0.2, abs=world.time_step / 10)
        assert world.poses()[0][index][:2] == pytest.approx([0.0, 0.0], abs=5e-4)


def test_a_removed_tile_has_no_pose_and_touches_nothing():
    # A tile whose body is gone (body -1) while another lies on the table: NaN pose, zero
    # speed, and not on the table (PyBullet's bodyA=-1 would match every table contact).
    from magdomino.physics.world import TileBody

    with World(load_preset("plain"), magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, 0.004))
        world.step(10)
        world.tiles.append(TileBody(-1, (1, 2)))
        world.detect_contacts()
        assert world.touches_table().tolist() == [True, False]
        positions, _ = world.poses()
        assert np.isnan(positions[1]).all() and not np.isnan(positions[0]).any()
        assert np.array_equal(world.velocities()[0][1], [0.0, 0.0, 0.0])
        world.tiles.pop()  # closing leaves the table to the next world: only real bodies


def test_the_preset_s_contact_erp_and_solver_reach_the_engine(monkeypatch):
    # PyBullet cannot report contactERP back: the call that sets it is watched instead.
    from magdomino.physics import world as world_module

    calls = []
    real_connect = world_module.connect

    class Watched:
        def __init__(self, client):
            self._client = client

        def setPhysicsEngineParameter(self, **kwargs):
            calls.append(kwargs)
            return self._client.setPhysicsEngineParameter(**kwargs)

        def __getattr__(self, name):
            return getattr(self._client, name)

    def connect(gui=False):
        client, pybullet = real_connect(gui)
        return Watched(client), pybullet

    monkeypatch.setattr(world_module, "connect", connect)
    preset = load_preset("plain")
    with World(preset, magnets=False, visuals=True):  # its own connection, not a pooled one
        pass
    assert calls[0]["contactERP"] == preset.solver.contact_erp == 0.4
    assert calls[0]["fixedTimeStep"] == preset.solver.time_step and calls[0]["numSolverIterations"] == preset.solver.iterations


def test_a_drop_releases_the_tile_2_mm_above_its_rest_unless_told():
    with World(load_preset("plain"), magnets=False) as world:
        index = world.drop((1, 2), (0.0, 0.0, 0.004))
        assert world.poses()[0][index][2] == pytest.approx(0.006, abs=1e-9)
