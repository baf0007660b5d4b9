"""Every placement starts clear of every tile.

A tile put into a slot under an overhang, one tile thick, must not be released above its
rest pose (it would start inside the overhanging tile, and the engine would push the two
apart): the release height is capped by the room above the rest pose, in scenarios, odds
trials and the games' PyBullet adjudicator alike. A file pose "resting on what is below"
never puts a tile inside a neighbour it grazes. A placement no motion can start clear of
is refused in one line.

The checks measure the start against every tile with their own separating-axis test
(:func:`penetration`, on box corners: independent of :mod:`magdomino.maths.geometry`).
"""

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from magdomino.errors import InputError
from magdomino.physics.world import World

L, W, H = 0.048, 0.024, 0.008
SIZE = np.array([L, W, H])
TINY = 0.05e-3
"""How far a start may lie inside a tile: the sinking of settled contacts (about 0.01 mm)."""


# -- independent geometry -----------------------------------------------------------------


def _corners(position, quaternion):
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    R = Rotation.from_quat(np.asarray(quaternion, dtype=float)).as_matrix()
    return np.asarray(position, dtype=float) + (signs * SIZE / 2) @ R.T


def penetration(position_a, quaternion_a, position_b, quaternion_b) -> float:
    """How deep (m) box A lies inside box B: 0 when some axis separates them, else the
    shortest move along one of the 15 separating axes that parts their corners' projections."""
    A, B = _corners(position_a, quaternion_a), _corners(position_b, quaternion_b)
    Ra = Rotation.from_quat(np.asarray(quaternion_a, dtype=float)).as_matrix()
    Rb = Rotation.from_quat(np.asarray(quaternion_b, dtype=float)).as_matrix()
    axes = [Ra[:, i] for i in range(3)] + [Rb[:, i] for i in range(3)]
    axes += [np.cross(Ra[:, i], Rb[:, j]) for i in range(3) for j in range(3)]
    depth = math.inf
    for axis in axes:
        n = np.linalg.norm(axis)
        if n < 1e-9:
            continue
        pa, pb = A @ (axis / n), B @ (axis / n)
        move = min(pa.max() - pb.min(), pb.max() - pa.min())
        if move <= 0:
            return 0.0
        depth = min(depth, move)
    return depth


def _yaw_q(yaw):
    return np.array([0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)])


def deepest(position, yaw, positions, quaternions) -> float:
    """The deepest a flat box at ``position`` (heading ``yaw``) lies inside any of the boxes."""
    return max((penetration(position, _yaw_q(yaw), p, q) for p, q in zip(positions, quaternions)), default=0.0)


class Spy:
    """Records every drop and slide a world makes: the tiles there before, and the start."""

    def __init__(self, monkeypatch):
        self.starts = []
        drop, slide = World.drop, World.slide
        spy = self

        def spied_drop(world, pips, rest_position, yaw=0.0, drop_height=0.002, orientation=None):
            positions, quats = world.poses()
            start = np.asarray(rest_position, dtype=float) + [0.0, 0.0, drop_height]
            spy.starts.append(("drop", start, yaw, positions, quats, drop_height))
            return drop(world, pips, rest_position, yaw, drop_height, orientation)

        def spied_slide(world, pips, rest_position, yaw=0.0, *, start_offset=(0.06, 0.0), **kwargs):
            positions, quats = world.poses()
            start = np.asarray(rest_position, dtype=float) + [start_offset[0], start_offset[1], kwargs.get("clearance", 0.0)]
            spy.starts.append(("slide", start, yaw, positions, quats, None))
            return slide(world, pips, rest_position, yaw, start_offset=start_offset, **kwargs)

        monkeypatch.setattr(World, "drop", spied_drop)
        monkeypatch.setattr(World, "slide", spied_slide)


# -- a drop into a slot under an overhang ---------------------------------------------------

# 1-4 lies with its 1 half on 1-1 and its 4 half out over the table (held by the magnets); 4-4
# goes end to end with 1-1, its 4 half under the overhang: a slot exactly one tile thick.
SLOT = {
    "preset": "standard",
    "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [1, 4], "on": {"tile": 0, "half": 1}}],
    "what_if": [{"pips": [4, 4], "pos_mm": [48, 0, 4], "drop_mm": 2}],
}


def test_a_drop_under_an_overhang_is_aimed_to_start_clear_of_the_tile_above():
    from magdomino.physics.motion import Drop
    from magdomino.studies.aiming import aim_placement, structure_poses
    from magdomino.studies.scenario import scenario_from_dict

    sc = scenario_from_dict(SLOT, source="S.toml")
    poses = structure_poses(sc, SIZE)
    positions, quats = np.array([p for p, _ in poses]), np.array([q for _, q in poses])
    assert positions[1][2] - H / 2 == pytest.approx(H)  # the overhang's underside: 8 mm, the slot's top
    for drop_mm in (2.0, 0.5, 0.0):
        rest, yaw, motion = aim_placement(sc, (positions, quats), sc.what_if[0], SIZE, drop_mm=drop_mm)
        assert isinstance(motion, Drop) and 0.0 <= motion.height <= drop_mm / 1000
        start = rest + [0, 0, motion.height]
        # Straight z gap (axis-aligned tiles): the overhang's underside minus the start's top.
        assert positions[1][2] - H / 2 - (start[2] + H / 2) >= -TINY
        assert deepest(start, yaw, positions, quats) <= TINY


def test_a_tried_drop_under_an_overhang_starts_clear_of_the_settled_tiles(monkeypatch):
    # try_placement (simulate, odds trials): the tile spawned in the world, against the
    # settled structure as the world holds it; with a hand's miss too.
    from magdomino.studies.scenario import scenario_from_dict
    from magdomino.studies.simulation import settle_structure, try_placement

    sc = scenario_from_dict(SLOT, source="S.toml")
    verdict, settled = settle_structure(sc)
    assert verdict.settled and not verdict.collapsed
    spy = Spy(monkeypatch)
    try_placement(sc, settled, sc.what_if[0])
    try_placement(sc, settled, sc.what_if[0], offset_mm=(0.4, -0.3), drop_mm=1.5)
    assert len(spy.starts) == 2
    for kind, start, yaw, positions, quats, height in spy.starts:
        assert kind == "drop"
        assert deepest(start, yaw, positions, quats) <= TINY, (start, height)


def _quinconce_under_an_overhang():
    """En quinconce: 6-6 flat; 4-6 on top, its 4 half out over the table at square 2; 4-5 flat,
    end to end with 6-6 at squares 2-3, under that overhang. The rules make it a slide; a
    construction drifted off the grid makes such placements drops (the validation set's
    quinconce 3p seed 2028 #8): here it is asked as a drop."""
    from magdomino.games import Deal, Game
    from magdomino.model.tiles import ALL_TILES

    def T(text):
        a, b = map(int, text.split("-"))
        return (min(a, b), max(a, b))

    hands = (
        [T(t) for t in "6-6 0-1 0-2 0-3 0-4 0-5 0-0".split()],
        [T(t) for t in "4-6 1-1 1-2 1-3 1-4 2-2 2-3".split()],
        [T(t) for t in "4-5 3-3 3-4 3-5 2-4 2-5 2-6".split()],
    )
    return hands, [t for t in ALL_TILES if t not in sum(hands, [])], Game, Deal, T


def test_the_games_adjudicator_drops_under_an_overhang_clear_of_the_tile_above(monkeypatch):
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    hands, stock, Game, Deal, T = _quinconce_under_an_overhang()
    adj = PybulletAdjudicator("standard", drop_mm=2.0)
    state = Game("quinconce", 3, seed=0, adjudicator=adj).new_initial_state()
    state.apply_action(Deal.of(hands, stock))
    state.apply_action(state.legal_actions()[0])
    state.apply_action(next(a for a in state.legal_actions() if a.tile == T("4-6") and a.x == 2))
    action = next(a for a in state.legal_actions() if a.tile == T("4-5") and (a.x, a.y, a.d) == (2, 0, 0))
    view = replace(state.placement_view(action), motion="drop", slide=None, slide_vector=None)
    positions, quats = adj.world.poses()
    rest, yaw, motion = adj.aim(view)
    assert rest[2] == pytest.approx(H / 2) and motion.height <= 0.002
    assert deepest(rest + [0, 0, motion.height], yaw, positions, quats) <= TINY
    spy = Spy(monkeypatch)
    outcome = adj.place(view, action)
    adj.close()
    assert outcome.error is None
    (kind, start, yaw, before_p, before_q, height), = spy.starts
    assert kind == "drop" and deepest(start, yaw, before_p, before_q) <= TINY, height


def test_a_physics_game_starts_every_placement_clear_or_does_not_make_it(monkeypatch):
    # A real En quinconce game whose construction drifts off the grid (seed 2028, the
    # validation set's): every tile the adjudicator drops or slides starts clear of every
    # tile; a placement whose place is taken by a drifted neighbour is not a move: the seat
    # keeps its tile and chooses again, the world untouched, and the placement is never in
    # the construction (nor scored).
    from magdomino.games import play_game
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    spy = Spy(monkeypatch)
    adj = PybulletAdjudicator("standard", magnets=True)
    record = play_game("quinconce", players=3, seed=2028, physics=adj, max_placements=6, player_kinds="random")
    adj.close()
    assert spy.starts
    for kind, start, yaw, positions, quats, height in spy.starts:
        assert deepest(start, yaw, positions, quats) <= TINY, (kind, start, height)
    events = record["events"]
    refused = [k for k, e in enumerate(events) if e["type"] == "unplayable"]
    assert refused and all("no clear motion" in events[k]["error"] for k in refused)
    assert not any(e.get("error") for e in events if e["type"] == "place")
    for k in refused:  # the same seat moves next, with its hand as it was, another move
        tried, after = events[k], next(e for e in events[k + 1:] if e["type"] in ("place", "draw", "pass"))
        assert after["player"] == tried["player"] and after.get("placement") != tried["placement"]
        assert tried["hand_sizes"] == events[k - 1]["hand_sizes"] and tried["construction_size"] == events[k - 1]["construction_size"]


# -- resting on what is below ---------------------------------------------------------------


def _poses(structure):
    from magdomino.studies.aiming import structure_poses
    from magdomino.studies.scenario import scenario_from_dict

    sc = scenario_from_dict({"preset": "standard", "structure": structure}, source="S.toml")
    poses = structure_poses(sc, SIZE)
    return np.array([p for p, _ in poses]), np.array([q for _, q in poses])


def test_rest_height_never_rests_a_tile_inside_a_tile_its_footprint_overlaps():
    # 1-1 on the table, 2-2 on it. A tile whose footprint overlaps both by 0.3 mm (less than
    # the 0.5 mm the overlap tolerance forgave): resting at rest_height it is clear of both
    # (it used to rest on the table, 0.3 mm inside 1-1).
    from magdomino.studies.aiming import rest_height

    positions, quats = _poses([{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [0, 0]}])
    for centre in ([0.0477, 0.0], [0.0, 0.0237], [0.0479, 0.0239]):
        z = rest_height(np.array(centre), 0.0, list(zip(positions, quats)), SIZE) + H / 2
        assert deepest([*centre, z], 0.0, positions, quats) <= TINY, (centre, z)


def test_a_file_tile_grazing_a_neighbour_lies_against_it_on_its_support():
    # What a user means by 47.7 mm beside a tile 48 mm long: end to end, on the table (a
    # hand is stopped by the neighbour's end), not 0.3 mm inside it, nor lifted onto the
    # stack beside it, hanging from a 0.3 mm sliver.
    structure = [
        {"pips": [1, 1], "pos_mm": [0, 0]},
        {"pips": [2, 2], "pos_mm": [0, 0]},
        {"pips": [1, 3], "pos_mm": [47.7, 0]},
    ]
    positions, quats = _poses(structure)
    assert positions[2] == pytest.approx([L, 0.0, H / 2], abs=1e-6)
    assert deepest(positions[2], 0.0, positions[:2], quats[:2]) <= TINY


def test_a_file_tile_grazing_an_overhang_above_it_stays_where_it_was_put():
    # 1-4's 4 half hangs over the table at 24..48 mm; a tile on the table from 47.7 mm lies
    # under that edge, clear of it (its top is the overhang's underside): nothing to move.
    positions, quats = _poses([
        {"pips": [1, 1], "pos_mm": [0, 0]},
        {"pips": [1, 4], "on": {"tile": 0, "half": 1}},
        {"pips": [3, 3], "pos_mm": [71.7, 0]},
    ])
    assert positions[2] == pytest.approx([0.0717, 0.0, H / 2], abs=1e-9)
    assert deepest(positions[2], 0.0, positions[:2], quats[:2]) <= TINY


def test_a_missed_aim_at_a_grazing_pose_starts_clear():
    # The odds' hand: a miss that would put the tile 0.3 mm into a neighbour at its level
    # stops at contact (it did before; the release is now checked too).
    from magdomino.studies.aiming import aim_placement, structure_poses
    from magdomino.studies.scenario import scenario_from_dict

    sc = scenario_from_dict({
        "preset": "standard",
        "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [0, 0]}],
        "what_if": [{"pips": [1, 3], "pos_mm": [60, 0]}],
    }, source="S.toml")
    poses = structure_poses(sc, SIZE)
    positions, quats = np.array([p for p, _ in poses]), np.array([q for _, q in poses])
    rest, yaw, motion = aim_placement(sc, (positions, quats), sc.what_if[0], SIZE, offset_mm=(-12.3, 0.0))
    assert deepest(rest, yaw, positions, quats) <= TINY
    assert deepest(rest + [0, 0, motion.height], yaw, positions, quats) <= TINY


# -- no clear motion: refused in one line ---------------------------------------------------


@pytest.mark.parametrize("what_if, key", [
    # The slot's way in from the left is 1-1 itself: the slide would start inside it.
    ({"pips": [4, 4], "pos_mm": [48, 0, 4], "slide_mm": [-30, 0]}, "what_if[0].slide_mm"),
    # 0.3 mm too high for the slot (within the 0.5 mm the pose check forgives): no room under
    # the overhang at any release height.
    ({"pips": [4, 4], "pos_mm": [48, 0, 4.3]}, "what_if[0].pos_mm"),
])
def test_a_placement_with_no_clear_motion_is_refused_in_one_line(what_if, key):
    from magdomino.studies.scenario import scenario_from_dict

    with pytest.raises(InputError) as info:
        scenario_from_dict({**SLOT, "what_if": [what_if]}, source="S.toml")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"S.toml: {key}: expected a placement that starts clear")
    assert "inside structure[0]" in message or "inside structure[1]" in message


def test_the_bundled_slide_beneath_still_starts_clear():
    from pathlib import Path

    from magdomino.studies.scenario import load_scenario

    load_scenario(Path(__file__).resolve().parents[2] / "scenarios" / "slide_beneath.toml")


def test_the_clearance_geometry_agrees_with_the_corner_test():
    # box_separation (signed, separating axes on radii) and box_rise (the heights over which
    # a flat box rising straight up meets a tilted one) against :func:`penetration` on box
    # corners, sampled along the vertical.
    from magdomino.maths.geometry import box_rise, box_separation

    rng = np.random.default_rng(26)
    heights = np.linspace(-0.025, 0.025, 501)
    for _ in range(60):
        yaw = rng.uniform(-math.pi, math.pi)
        qa = _yaw_q(yaw)
        pb = np.array([rng.uniform(-0.05, 0.05), rng.uniform(-0.03, 0.03), rng.uniform(-0.012, 0.012)])
        qb = Rotation.from_euler("zyx", [rng.uniform(-math.pi, math.pi), rng.normal(0, 0.2), rng.normal(0, 0.2)]).as_quat()
        Ra, Rb = Rotation.from_quat(qa).as_matrix(), Rotation.from_quat(qb).as_matrix()
        sep = box_separation(np.zeros(3), Ra, pb, Rb, SIZE / 2)
        assert max(-sep, 0.0) == pytest.approx(penetration(np.zeros(3), qa, pb, qb), abs=1e-12)
        hit = box_rise(np.zeros(3), Ra, pb, Rb, SIZE / 2)
        for t in heights:
            inside = penetration([0, 0, t], qa, pb, qb) > 1e-9
            if hit is None:
                assert not inside, t
            elif inside:
                assert hit[0] - 1e-9 < t < hit[1] + 1e-9
            else:
                assert not (hit[0] + 1e-6 < t < hit[1] - 1e-6), (t, hit)
