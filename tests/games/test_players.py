"""Physics-aware players: careful and bold, against hand statics and hand-set risks.

The hand-built construction (magnets off; grid unit u = half a tile's length; a tile along +x
at grid square x spans [x - u/2, x + 3u/2], its centre of mass at x + u/2): a straight stack of
two at squares 0-1 (levels 0 and 1). A new tile on squares 1-2 (level 2) has its centre of mass
at 3u/2, right above the edge of the tile below: a tie, an unstable balance that the statics
calls a fall (PyBullet topples it: tests/physics/test_statics_screen.py). On squares 0-1
(level 2) it is centred: it stands.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.games.actions import Action
from magdomino.games.tower.players import BOLD_THRESHOLD, BoldPlayer, CarefulPlayer, GreedyPlayer, make_player
from magdomino.maths.geometry import GridPose, physical_pose
from magdomino.model.presets import load_preset
from magdomino.model.tiles import ALL_TILES
from magdomino.physics.adjudicator import PlacedTile, PlacementView

PRESET = load_preset("standard")
SIZE = tuple(float(v) for v in PRESET.tile.size)
U = SIZE[0] / 2
BASE = [(0, 0, 0), (0, 0, 1)]


def _view(action: Action) -> PlacementView:
    placed = tuple(
        PlacedTile(i, (0, 1), ALL_TILES.index((0, 1)), GridPose(x, y, lv, 0), i - 1 if i else None, "tower", "drop")
        for i, (x, y, lv) in enumerate(BASE)
    )
    centre, yaw = physical_pose(action.grid, SIZE)
    return PlacementView(
        number=3, deal=0, player=0, tile=action.tile, tile_index=ALL_TILES.index(action.tile), grid=action.grid,
        pose=(tuple(float(c) for c in centre), yaw), mode="tower", motion="drop", slide=None, slide_vector=None,
        parent=placed[-1], relative_pose=None, supports=(1,), construction=placed, first=False, tile_size=SIZE, rule="defi",
    )


def _place(tile, x, level=2) -> Action:
    return Action("place", tile, x, 0, level, 0, "tower", "drop", None, 1)


class _State:
    """The little of a State the players use: legal actions, candidate views, the game."""

    def __init__(self, actions, adjudicator, can_collapse=True):
        self.actions = tuple(actions)
        self.game = SimpleNamespace(adjudicator=adjudicator, rulebook=SimpleNamespace(can_collapse=can_collapse))
        self.viewed = 0

    def legal_actions(self):
        return self.actions

    def placement_view(self, action):
        self.viewed += 1
        return _view(action)


class _Risks:
    """An adjudicator whose assessment is set by hand (per tile)."""

    name = "hand"

    def __init__(self, risks: dict):
        self.risks = risks

    def assess(self, views):
        return [self.risks[v.tile] for v in views]


def _statics():
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    return StaticsAdjudicator(PRESET, magnets=False)


def test_hand_statics_careful_plays_the_standing_tile_bold_the_heavy_one_only_under_its_threshold():
    # Hand statics (module docstring): a centre of mass at 3u/2 on [-u/2, 3u/2] is a tie (falls),
    # one at u/2 stands.
    assert (1 + 0.5) * U == 1.5 * U and -0.5 * U < (0 + 0.5) * U < 1.5 * U
    falls, stands = _place((6, 6), 1), _place((0, 1), 0)
    state = _State([stands, falls], _statics())
    assert CarefulPlayer().choose(state) == stands
    assert GreedyPlayer().choose(state) == falls  # what careful avoids
    assert BoldPlayer().choose(state) == stands  # a fall (risk 1) is above 0.3
    assert BoldPlayer(threshold=1.0).choose(state) == falls  # risk 1 <= 1: the heavier tile


def test_careful_takes_the_lowest_risk_then_the_heaviest_bold_the_heaviest_under_the_threshold():
    light, mid, heavy = _place((0, 1), 0), _place((2, 3), 0), _place((6, 6), 0)
    actions = [light, mid, heavy]
    # careful: lowest risk wins whatever the weight; equal risks go to the heaviest tile.
    assert CarefulPlayer().choose(_State(actions, _Risks({(0, 1): 0.0, (2, 3): 0.1, (6, 6): 0.2}))) == light
    assert CarefulPlayer().choose(_State(actions, _Risks({(0, 1): 0.1, (2, 3): 0.0, (6, 6): 0.0}))) == heavy
    # bold (threshold 0.3): the heaviest tile at risk <= 0.3; above it the next heaviest that is under.
    assert BOLD_THRESHOLD == 0.3
    assert BoldPlayer().choose(_State(actions, _Risks({(0, 1): 0.0, (2, 3): 0.1, (6, 6): 0.29}))) == heavy
    assert BoldPlayer().choose(_State(actions, _Risks({(0, 1): 0.0, (2, 3): 0.3, (6, 6): 0.31}))) == mid
    # nothing under the threshold: the safest.
    assert BoldPlayer().choose(_State(actions, _Risks({(0, 1): 0.9, (2, 3): 0.5, (6, 6): 1.0}))) == mid


def test_draws_only_when_they_must_and_greedy_without_assessment():
    draw, heavy, light = Action("draw"), _place((6, 6), 2), _place((0, 1), 0)
    risky = _Risks({(6, 6): 1.0, (0, 1): 1.0})
    for player in (CarefulPlayer(), BoldPlayer()):
        assert player.choose(_State([draw], risky)) == draw
        assert player.choose(_State([light, heavy, draw], risky)) == heavy  # every place risky: still places
        # no assess (or not a tower game): the greedy choice, and no view is built
        no_assess = _State([light, heavy], SimpleNamespace(name="x"))
        assert player.choose(no_assess) == heavy and no_assess.viewed == 0
        flat = _State([light, heavy], _Risks({(6, 6): 1.0, (0, 1): 0.0}), can_collapse=False)
        assert player.choose(flat) == heavy and flat.viewed == 0


def test_make_player_and_an_unknown_kind():
    assert isinstance(make_player("careful", 3), CarefulPlayer)
    assert isinstance(make_player("bold", 3), BoldPlayer)
    with pytest.raises(InputError, match="careful"):
        make_player("reckless", 0)


def _play(kind: str, seed: int, adjudicator, placements: int = 12) -> list:
    from magdomino.games import CHANCE, TERMINAL, Game

    state = Game("defi", 2, seed, {"adjudicator": adjudicator}).new_initial_state()
    player = make_player(kind, seed)
    actions = []
    while state.current != TERMINAL and state.placements < placements:
        action = state.legal_actions()[0] if state.current == CHANCE else player.choose(state)
        actions.append(action)
        state.apply_action(action)
    return actions


@pytest.mark.parametrize("kind", ["careful", "bold"])
def test_same_seed_same_actions_with_the_statics(kind):
    first = _play(kind, 5, _statics())
    assert len(first) > 5
    assert _play(kind, 5, _statics()) == first


def test_statics_game_careful_never_plays_what_the_statics_condemns_when_it_can_avoid_it():
    from magdomino.games import CHANCE, TERMINAL, Game
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    adj = StaticsAdjudicator(PRESET, magnets=False)
    state = Game("defi", 2, 2, {"adjudicator": adj}).new_initial_state()
    careful = CarefulPlayer()
    while state.current != TERMINAL and state.placements < 20:
        if state.current == CHANCE:
            state.apply_action(state.legal_actions()[0])
            continue
        places = [a for a in state.legal_actions() if a.kind == "place"]
        action = careful.choose(state)
        # the statics adjudicator's own verdict of every candidate (stateless: nothing changes)
        fell = {a: adj.place(state.placement_view(a), a).collapsed and len(state.placed) > 0 for a in places}
        if not all(fell.values()):
            assert not fell[action]
        state.apply_action(action)


def test_previews_leave_the_live_world_and_its_verdicts_untouched(monkeypatch):
    """The same actions with and without careful's assessment before each placement give the
    same verdict records and the same settled poses (every assessment previews here, even a
    candidate the statics is comfortable with)."""
    from magdomino.games import CHANCE, TERMINAL, Game
    from magdomino.physics import pybullet_adjudicator
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    monkeypatch.setattr(pybullet_adjudicator, "COMFORTABLE_RISK", -1.0)
    previews = []

    def run(assess: bool, actions=None):
        adj = PybulletAdjudicator(PRESET)
        real_preview = adj._preview
        adj._preview = lambda *a: previews.append(1) or real_preview(*a)
        state = Game("defi", 2, 1, {"adjudicator": adj}).new_initial_state()
        records, played, assessed = [], [], 0
        real_place = adj.place

        def place(view, action):
            out = real_place(view, action)
            records.append({k: v for k, v in out.verdict.items() if k != "wall_time_s"})  # the clock differs
            return out

        adj.place = place
        greedy = GreedyPlayer()
        i = 0
        while state.current != TERMINAL and state.placements < 5:
            if state.current == CHANCE:
                action = state.legal_actions()[0]
            else:
                action = actions[i] if actions else greedy.choose(state)
                i += 1
                places = [a for a in state.legal_actions() if a.kind == "place"]
                if assess and len(state.placed) > 0 and len(places) > 1:
                    before = adj.world.poses()
                    risks = adj.assess([state.placement_view(a) for a in places])
                    assert all(0.0 <= r <= 1.0 for r in risks)
                    after = adj.world.poses()
                    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
                    assessed += 1
            if state.current != CHANCE:
                played.append(action)
            state.apply_action(action)
        poses = adj.world.poses()
        adj.close()
        return records, played, poses, assessed

    plain, actions, poses, _ = run(False)
    checked, _, poses2, assessed = run(True, actions)
    assert assessed >= 2 and len(previews) >= 2
    assert checked == plain
    assert np.array_equal(poses[0], poses2[0]) and np.array_equal(poses[1], poses2[1])


def test_cli_unknown_player_kind_is_one_line_exit_2(cli):
    out = cli("play", "--rule", "defi", "--players", "2", "--physics", "statics", "--player", "reckless")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--player" in lines[0] and "careful" in lines[0]


def test_cli_play_statics_with_careful_and_bold(cli):
    for kind in ("careful", "bold"):
        out = cli("play", "--rule", "defi", "--players", "2", "--physics", "statics", "--no-magnets",
                  "--player", kind, "--max-placements", "8", "--seed", "3")
        assert out.returncode == 0, out.stderr
        assert "abandoned" in out.stdout or "winner" in out.stdout


def test_trap_share_after_the_second_tile_by_the_rules_and_the_preset():
    # Défi, 6-6 started, the second tile 0-6 parallel with its 0 half overhanging (seed 0).
    # By the rules the next tile goes on a free 6 square (the double's free half, or the 0-6's
    # 6 half) or on the overhanging 0 half. By the preset (its description: one tile half on
    # another's half is held by the magnets, a one-way staircase of three is not), every
    # placement on the overhanging 0 half falls, and a 6 tile laid on the double's free half
    # mirroring the 0-6 stands. So the traps are the tiles with a 0 and no 6: of the tiles
    # the player cannot see (27 minus its six left in hand, minus 0-6).
    from magdomino.games.core import Game
    from magdomino.games.tower.players import trap_share
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    statics = StaticsAdjudicator(PRESET, margins=0)
    state = Game("defi", 2, seed=0, adjudicator=statics).new_initial_state()
    state.apply_action(state.legal_actions()[0])  # the deal
    state.apply_action(state.legal_actions()[0])  # the 6-6
    second = next(a for a in state.legal_actions() if a.tile == (0, 6))
    hand = [t for t in state.hands[state.current] if t != (0, 6)]
    unseen = [t for t in ALL_TILES if t not in hand and t not in ((6, 6), (0, 6))]
    traps = [t for t in unseen if 0 in t and 6 not in t]
    assert len(traps) >= 3
    assert trap_share(state, second, statics) == pytest.approx(len(traps) / len(unseen))
    # The copy is rules only: the real state and its adjudicator are untouched.
    assert len(state.placed) == 1 and (0, 6) in state.hands[state.current]


def test_careful_leaves_fewer_traps_than_the_safest_pose_alone_would():
    # Same opening: both second tiles stand; lookahead prefers the one whose overhanging
    # number leaves fewer unseen tiles stranded (a trap count by the rules, as above).
    from magdomino.games.core import Game
    from magdomino.games.tower.players import trap_share
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    statics = StaticsAdjudicator(PRESET, margins=0)
    state = Game("defi", 2, seed=1, adjudicator=statics).new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[0])  # 6-6; the player holds 3-6 and 4-6
    places = [a for a in state.legal_actions() if a.kind == "place"]
    assert {a.tile for a in places} >= {(3, 6), (4, 6)}
    shares = {a: trap_share(state, a, statics) for a in places}
    # All stand (risk equal): weighing every candidate, careful leaves the fewest traps.
    chosen = CarefulPlayer(lookahead=len(places)).choose(state)
    assert shares[chosen] == min(shares.values())
    assert len(set(shares.values())) > 1  # the choice mattered
    # By default it weighs only its LOOKAHEAD safest (here the heaviest, at equal risk).
    from magdomino.games.tower.players import LOOKAHEAD

    heaviest = sorted(places, key=lambda a: -sum(a.tile))[:LOOKAHEAD]
    assert shares[CarefulPlayer().choose(state)] == min(shares[a] for a in heaviest)


def test_the_seats_are_careful_by_default_only_where_physics_judges_collapses():
    """A newcomer's game names no player: careful seats where a collapse can happen (a tower
    rule judged by physics), random ones where nothing is judged or nothing can fall."""
    from magdomino.games.record import play_game
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    judged = play_game("defi", 2, seed=1, physics=StaticsAdjudicator("toy"), max_placements=3)
    assert judged["player_kinds"] == ["careful", "careful"]
    assert play_game("defi", 2, seed=1, max_placements=3)["player_kinds"] == ["random", "random"]  # rules alone
    flat = play_game("traditional", 2, seed=1, physics=StaticsAdjudicator("toy"))
    assert flat["player_kinds"] == ["random", "random"]  # a flat game never collapses
    assert play_game("defi", 2, seed=1, physics=StaticsAdjudicator("toy"), max_placements=3,
                     player_kinds="greedy")["player_kinds"] == ["greedy", "greedy"]


def test_careful_seats_do_not_replay_one_collapse_for_ever():
    # En quinconce, 2 careful seats, seed 4, judged by the statics on the default toy: seats
    # that always play their safest move repeat one four-move collapse until the runaway guard
    # abandons the deal (75 collapses at f1b1fc9). A seat that has led the
    # construction into a state twice plays another move when it has one: the deal ends.
    from magdomino.games import play_game
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    record = play_game("quinconce", 2, seed=4, physics=StaticsAdjudicator("toy"), player_kinds="careful", max_placements=300)
    assert not record["abandoned"] and record["collapses"] < 10
    assert record["deals"][0]["reason"] in ("domino", "blocked")


def test_repeats_count_the_constructions_a_seat_leads_to():
    from magdomino.games.core import Game
    from magdomino.games.tower.players import REPEATS, Repeats

    game = Game("defi", 2, seed=1)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])  # the deal
    state.apply_action(state.legal_actions()[0])  # the forced double
    places = [a for a in state.legal_actions() if a.kind == "place"]
    repeats = Repeats()
    for _ in range(REPEATS):
        assert repeats.fresh(state, places[:2]) == [True, True]
        repeats.made(state, places[0])
    assert repeats.fresh(state, places[:2]) == [False, True]
