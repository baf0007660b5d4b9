"""The rules adjudicated by the PyBullet world: scripted placements whose outcome statics
and the preset's design predict, and short random games checked for consistency."""

import numpy as np
import pytest

from magdomino.games import Deal, Game, play_game
from magdomino.model.tiles import ALL_TILES
from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator


def T(text):
    a, b = map(int, text.split("-"))
    return (min(a, b), max(a, b))


def pick(state, tile, pred=lambda a: True):
    found = [a for a in state.legal_actions() if a.kind == "place" and a.tile == T(tile) and pred(a)]
    assert found, f"{tile} not legal: {[str(a) for a in state.legal_actions()]}"
    return found[0]


HANDS = ([T(t) for t in "6-6 5-6 0-4 0-0 0-1 0-2 0-3".split()], [T(t) for t in "4-6 1-1 1-2 1-3 1-4 2-2 2-3".split()])


def _start(adjudicator):
    game = Game("defi", 2, seed=0, adjudicator=adjudicator)
    state = game.new_initial_state()
    state.log = events = []
    rest = [t for t in ALL_TILES if t not in HANDS[0] + HANDS[1]]
    state.apply_action(Deal.of(HANDS, rest))
    state.apply_action(state.legal_actions()[0])  # P0: the double six, flat at squares 0, 1
    # P1: 4-6 with its 6 half on a half of the double six, its 4 half overhanging: a half-lap.
    state.apply_action(pick(state, "4-6", lambda a: a.parent == 0))
    return state, events


def test_a_one_way_staircase_of_three_collapses_and_the_placer_takes_it_back():
    # Standard magnets hold one half-lap but not a staircase of three (the top two tiles'
    # centre of mass 12 mm past the bottom tile's edge; see tests/test_world.py).
    adj = PybulletAdjudicator("standard")
    state, events = _start(adj)
    assert events[-1]["verdict"]["collapsed"] is False  # the half-lap is held
    step = pick(state, "0-4", lambda a: a.parent == 1)  # its 4 half on 4-6's 4 half: outward
    state.apply_action(step)
    adj.close()
    place, collapse, restart = events[-3:]
    assert place["type"] == "place" and place["verdict"]["collapsed"] is True
    assert collapse["type"] == "collapse" and collapse["player"] == 0
    assert sorted(map(tuple, collapse["tiles"])) == [(0, 4), (4, 6), (6, 6)]
    assert restart["type"] == "restart"
    assert len(state.hands[0]) == 5 + 3 and len(state.hands[1]) == 6  # 5 left, 3 taken back
    assert state.legal_actions()[0].tile == (6, 6)  # P0 holds the double six again


def test_a_zigzag_placement_stands():
    adj = PybulletAdjudicator("standard")
    state, events = _start(adj)
    back = pick(state, "5-6", lambda a: a.parent == 1)  # 6 on 6, back over the double six
    state.apply_action(back)
    adj.close()
    assert events[-1]["type"] == "place" and events[-1]["verdict"]["collapsed"] is False
    assert len(state.placed) == 3


def test_without_magnets_even_a_half_lap_falls():
    adj = PybulletAdjudicator("standard", magnets=False)
    _, events = _start(adj)
    adj.close()
    # 4-6 overhangs with its centre of mass right over the edge: an unstable balance with
    # nothing to hold it.
    assert [e["type"] for e in events[-3:]] == ["place", "collapse", "restart"]


@pytest.mark.parametrize("rule", ["traditional", "defi", "quinconce"])
def test_short_physics_games_keep_every_tile_and_record_every_verdict(rule):
    adj = PybulletAdjudicator("standard")
    record = play_game(rule, 2, seed=5, physics=adj, max_placements=16)
    adj.close()
    events = record["events"]
    assert events[0]["type"] == "deal"
    for e in events[1:]:
        assert sum(e["hand_sizes"]) + e["stock_size"] + e["construction_size"] == 28, e
    places = [e for e in events if e["type"] == "place"]
    assert places and all("verdict" in e for e in places)
    assert all(e["verdict"]["error"] is None for e in places)
    for i, e in enumerate(events):
        if e["type"] == "collapse":
            assert events[i - 1]["type"] == "place" and events[i - 1]["verdict"]["collapsed"] is True
            assert rule != "traditional"
    assert events[-1]["type"] == "end"
    assert record["physics"] == "dynamics" and record["preset"] == "standard"


def test_after_a_blow_up_the_world_is_rebuilt_and_play_goes_on():
    adj = PybulletAdjudicator("standard")
    state, events = _start(adj)
    # Sabotage the world as a numerical blow-up would: the double six shoots off.
    world = adj.world
    world.client.resetBaseVelocity(world.tiles[adj._bodies[0]].body, [500.0, 0, 0], [0, 0, 0])
    state.apply_action(pick(state, "5-6", lambda a: a.parent == 1))
    blown = events[-1]
    assert blown["type"] == "place" and blown.get("error") and blown["verdict"]["world_rebuilt"]
    assert "collapse" not in [e["type"] for e in events]  # an error is never a collapse
    positions, _ = adj.world.poses()
    assert np.all(np.isfinite(positions)) and np.max(np.abs(positions)) < 0.2  # rebuilt in place
    state.apply_action(pick(state, "1-4", lambda a: True))  # play goes on, judged normally
    adj.close()
    assert events[-1]["type"] in ("place", "restart") and not events[-1].get("error")
