"""Scripted games with known outcomes: blocked game, kids' variant, who starts, collapse and
take-back, collapse on the last tile, two-player quinconce memory, options and errors."""

import json

import pytest

from magdomino.errors import InputError
from magdomino.games import (
    CHANCE,
    DEAL,
    DRAW,
    PASS,
    TERMINAL,
    Action,
    Deal,
    Game,
    IllegalActionError,
    NoPhysics,
    Outcome,
    ScriptedAdjudicator,
    State,
    format_record,
    play_game,
)
from magdomino.games.players import RandomPlayer
from magdomino.games.tower.players import GreedyPlayer
from magdomino.model.tiles import ALL_TILES


def T(s):
    a, b = s.split("-")
    return (min(int(a), int(b)), max(int(a), int(b)))


def hands_of(*specs):
    return [[T(t) for t in spec.split()] for spec in specs]


def pick(state, tile, pred=lambda a: True):
    found = [a for a in state.legal_actions() if a.kind == "place" and a.tile == T(tile) and pred(a)]
    assert found, f"{tile} not legal: {[str(a) for a in state.legal_actions()]}"
    return found[0]


def left(a):
    return a.x < 0


def right(a):
    return a.x > 0


# -- traditional: a blocked four-player game, pips and kids -----------------------------------

BLOCK_HANDS = hands_of(
    "6-6 2-3 4-5 0-0 1-1 0-2",
    "1-6 0-6 5-6 2-2 0-3 1-2",
    "2-6 3-6 0-4 1-3 3-3 0-5",
    "0-1 4-6 1-4 2-4 4-4 1-5",
)
BLOCK_STOCK = [T("2-5"), T("3-4"), T("3-5"), T("5-5")]
BLOCK_MOVES = [
    (0, "6-6", None),
    (1, "1-6", left),
    (2, "2-6", right),
    (3, "0-1", left),
    (0, "2-3", right),
    (1, "0-6", left),
    (2, "3-6", right),
    (3, "4-6", right),
    (0, "4-5", right),
    (1, "5-6", right),
]


def play_blocked(kids):
    game = Game("traditional", 4, seed=0, kids=kids)
    state = game.new_initial_state()
    state.log = events = []
    state.apply_action(Deal.of(BLOCK_HANDS, BLOCK_STOCK))
    for player, tile, side in BLOCK_MOVES:
        assert state.current_player() == player
        state.apply_action(pick(state, tile, side or (lambda a: True)))
    assert (state.ends[1], state.ends[4]) == (6, 6)  # every six is on the table
    for player, tile in [(2, "2-5"), (3, "3-4"), (0, "3-5"), (1, "5-5")]:
        assert state.current_player() == player and state.legal_actions() == (DRAW,)
        state.apply_action(DRAW)
        assert T(tile) in state.hands[player]
    for _player in (2, 3, 0):
        assert state.legal_actions() == (PASS,)
        state.apply_action(PASS)
        assert not state.is_terminal()
    state.apply_action(PASS)
    assert state.is_terminal()
    assert events[-1]["type"] == "end" and events[-1]["reason"] == "blocked"
    return state


def test_blocked_game_fewest_pips_wins():
    state = play_blocked(kids=False)
    # left in hand: P0 0-0 1-1 0-2 3-5 (12), P1 2-2 0-3 1-2 5-5 (20), P2 (26), P3 (32)
    assert state.scores() == [0, 20, 26, 32]
    assert state.winners() == [0]
    assert state.returns() == [1.0, 0.0, 0.0, 0.0]


def test_blocked_game_kids_counts_tiles_and_shares_ties():
    state = play_blocked(kids=True)
    assert [len(h) for h in state.hands] == [4, 4, 5, 5]
    assert state.winners() == [0, 1]
    assert state.scores() == [0, 0, 5, 5]
    assert state.returns() == [0.5, 0.5, 0.0, 0.0]


def test_draw_ends_the_turn_even_if_playable():
    game = Game("traditional", 2, seed=0)
    state = game.new_initial_state()
    hands = hands_of("6-6 0-1 0-2 0-3 0-4 0-5 1-1", "1-2 1-3 1-4 1-5 2-2 2-3 2-4")
    rest = [t for t in ALL_TILES if t not in hands[0] + hands[1]]
    stock = [T("5-6")] + [t for t in rest if t != T("5-6")]
    state.apply_action(Deal.of(hands, stock))
    state.apply_action(state.legal_actions()[0])  # 6-6, forced
    assert state.current_player() == 1 and state.legal_actions() == (DRAW,)
    state.apply_action(DRAW)  # draws 5-6, which would fit, yet the turn ends
    assert T("5-6") in state.hands[1]
    assert state.current_player() == 0


def test_who_starts_without_doubles_and_forced_start():
    # no double dealt: the highest pip total starts; 3-6 and 4-5 tie at 9, 3-6 has the higher top half
    hands = hands_of("3-6 0-1 0-2 0-3 0-4 0-5 0-6", "4-5 1-2 1-3 1-4 1-5 1-6 2-3")
    rest = [t for t in ALL_TILES if t not in hands[0] + hands[1]]
    state = Game("traditional", 2).new_initial_state()
    state.apply_action(Deal.of(hands, rest))
    assert state.current_player() == 0
    (start,) = state.legal_actions()
    assert start.tile == (3, 6) and start.start and start.grid.squares() == ((0, 0, 0), (1, 0, 0))
    with pytest.raises(IllegalActionError):
        state.apply_action(Action("place", (0, 1), 0, 0, 0, 0, "flat", "drop"))
    # the highest double starts when there is one, whoever holds it
    state = Game("defi", 3, seed=3).new_initial_state()
    state.apply_action(DEAL)
    doubles = [(t, s) for s, h in enumerate(state.hands) for t in h if t[0] == t[1]]
    top, seat = max(doubles)
    assert state.current_player() == seat and state.legal_actions()[0].tile == top


def test_single_colour_hands_are_redealt():
    # with two colours alternating over the tile order, single-colour hands happen; never dealt
    for seed in range(200):
        game = Game("traditional", 2, seed=seed, colours=["red", "blue"])
        state = game.new_initial_state()
        state.apply_action(DEAL)
        for h in state.hands:
            assert len({game.colour[t] for t in h}) == 2
    one = Game("traditional", 2, seed=1, colours=["red"]).new_initial_state()
    one.apply_action(DEAL)  # a one-colour palette cannot satisfy the rule: no endless re-deal
    assert sum(map(len, one.hands)) == 14


# -- défi: collapse and its take-back ------------------------------------------------------------

COLLAPSE_HANDS = hands_of("6-6 5-6 0-0 0-1 0-2 0-3 0-4", "4-6 1-1 1-2 1-3 1-4 2-2 2-3")


def test_collapse_takes_back_the_construction_and_restarts():
    adj = ScriptedAdjudicator(collapse_on={3})
    game = Game("defi", 2, seed=0, adjudicator=adj)
    state = game.new_initial_state()
    state.log = events = []
    rest = [t for t in ALL_TILES if t not in COLLAPSE_HANDS[0] + COLLAPSE_HANDS[1]]
    state.apply_action(Deal.of(COLLAPSE_HANDS, rest))
    state.apply_action(state.legal_actions()[0])  # P0: 6-6
    a = pick(state, "4-6")  # P1 on top of 6-6
    state.apply_action(a)
    assert a.mode == "tower" and a.level == 1 and a.parent == 0
    b = pick(state, "5-6", lambda x: x.parent == 1)  # P0 on 4-6: placement number 3 collapses
    state.apply_action(b)
    types = [e["type"] for e in events]
    assert types[-4:] == ["place", "place", "collapse", "restart"]
    collapse = events[-2]
    assert collapse["player"] == 0 and sorted(map(tuple, collapse["tiles"])) == [(4, 6), (5, 6), (6, 6)]
    # P0 took the three tiles, holds the double six again and must restart with it
    assert len(state.hands[0]) == 8 and len(state.hands[1]) == 6
    assert state.placed == [] and state.current_player() == 0
    (restart,) = state.legal_actions()
    assert restart.tile == (6, 6) and restart.start
    state.apply_action(restart)
    assert events[-1]["type"] == "place" and events[-1].get("restart") is True
    assert events[-1]["construction_size"] == 1 and len(state.hands[0]) == 7
    assert state.current_player() == 1  # play continues to the restarter's left
    # what the adjudicator was told
    assert [s.cause for s in adj.starts] == ["deal", "collapse"]
    view = adj.calls[2]
    assert view.number == 3 and view.tile == (5, 6) and view.mode == "tower" and view.motion == "drop"
    assert view.parent.tile == (4, 6) and view.parent.grid == a.grid
    assert [p.tile for p in view.construction] == [(6, 6), (4, 6)]
    assert view.supports == (1,) and view.relative_pose is not None
    assert view.pose[0][2] == pytest.approx(2.5 * 0.008)
    assert adj.calls[3].first and adj.calls[3].tile == (6, 6)


def test_collapse_on_the_last_tile_is_not_a_win():
    class LastTileFalls:
        name = "last-tile"

        def __init__(self):
            self.state = None
            self.fired = False

        def start(self, construction):
            pass

        def place(self, view, action):
            if not self.fired and not view.first and not self.state.hands[view.player]:
                self.fired = True
                return Outcome(True, {"collapsed": True, "reason": "test"})
            return Outcome(False, {"collapsed": False})

    adj = LastTileFalls()
    game = Game("defi", 2, seed=4, adjudicator=adj)
    state = game.new_initial_state()
    adj.state = state
    state.log = events = []
    agents = [GreedyPlayer(), RandomPlayer(1)]
    while not state.is_terminal():
        state.apply_action(DEAL if state.current == CHANCE else agents[state.current].choose(state))
        if adj.fired and events[-1]["type"] in ("collapse", "restart"):
            break
    assert adj.fired
    i = next(k for k, e in enumerate(events) if e["type"] == "collapse")
    loser = events[i]["player"]
    assert events[i - 1]["type"] == "place" and events[i - 1]["verdict"]["reason"] == "test"
    assert not any(e["type"] == "end" for e in events[: i + 1])
    assert events[i - 1]["player"] == loser and events[i - 1]["hand_sizes"][loser] == 0  # the last tile
    assert events[i]["hand_sizes"][loser] == len(events[i]["tiles"]) >= 2  # took the whole construction
    assert events[i + 1]["type"] == "restart"


def test_error_verdict_is_not_a_collapse_and_traditional_never_collapses():
    class Broken:
        name = "broken"

        def start(self, construction):
            pass

        def place(self, view, action):
            return Outcome(True, None, "NaN in the solver")

    r = play_game("defi", 2, seed=1, physics=Broken())
    assert r["collapses"] == 0 and all(e.get("error") for e in r["events"] if e["type"] == "place")
    r = play_game("traditional", 2, seed=1, physics=ScriptedAdjudicator(collapse_on=set(range(2, 40))))
    assert r["collapses"] == 0 and r["winners"]


def test_scripted_collapses_in_every_tower_rule_keep_all_tiles():
    for rule in ("defi", "quinconce"):
        for players in (2, 3, 4):
            adj = ScriptedAdjudicator(collapse_on={4, 9, 15})
            r = play_game(rule, players, seed=players, physics=adj)
            assert r["collapses"] >= 1
            for i, e in enumerate(r["events"]):
                if e["type"] == "collapse":
                    assert r["events"][i + 1]["type"] == "restart"
                    assert r["events"][i + 2]["type"] == "place" and r["events"][i + 2]["restart"]
                    assert r["events"][i + 2]["mode"] == "flat"
                    assert e["construction_size"] == 0
            assert format_record(r).count("takes back") == r["collapses"]


# -- quinconce: the two-player memory ------------------------------------------------------------


def test_quinconce_two_player_memory():
    hands = hands_of("6-6 3-4 0-0 0-1 1-1 0-2 1-2", "5-6 4-5 0-3 1-3 2-3 3-3 2-2")
    rest = [t for t in ALL_TILES if t not in hands[0] + hands[1]]
    stock = [T("2-4")] + [t for t in rest if t != T("2-4")]
    state = Game("quinconce", 2, seed=0).new_initial_state()
    state.apply_action(Deal.of(hands, stock))
    assert state.owed == ["flat", "flat"]
    state.apply_action(state.legal_actions()[0])  # P0: 6-6 flat, counts as P0's flat
    assert state.owed == ["tower", "flat"]
    assert {a.mode for a in state.legal_actions()} == {"flat"}  # P1 starts flat too
    state.apply_action(pick(state, "5-6", right))  # end to end
    assert state.owed == ["tower", "tower"]
    # P0 owes "tower": no 5 or 6 in hand, so P0 draws (the 2-4) and keeps owing "tower"
    assert state.legal_actions() == (DRAW,)
    state.apply_action(DRAW)
    assert state.owed == ["tower", "tower"] and state.mode(0) == "tower"
    a = pick(state, "4-5")  # P1 on top of the 5 of 5-6
    assert a.mode == "tower"
    state.apply_action(a)
    assert state.owed == ["tower", "flat"]
    # P0 still owes "tower": 3-4 or 2-4 on top of the 4, never flat
    legal = state.legal_actions()
    assert {x.mode for x in legal} == {"tower"}
    assert {x.tile for x in legal} == {(3, 4), (2, 4)}


def test_quinconce_global_mode_drawing_is_not_playing():
    hands = hands_of("6-6 0-0 0-1 1-1 0-2 1-2", "5-6 4-5 0-3 1-3 2-3 3-3", "2-2 0-4 1-4 0-5 1-5 2-5")
    rest = [t for t in ALL_TILES if t not in sum(hands, [])]
    state = Game("quinconce", 3, seed=0).new_initial_state()
    state.apply_action(Deal.of(hands, rest))
    state.apply_action(state.legal_actions()[0])  # P0: 6-6 flat
    assert state.owed == ["tower"] * 3
    state.apply_action(pick(state, "5-6"))  # P1 on top
    assert state.owed == ["flat"] * 3
    assert state.legal_actions()[0].mode == "flat"


# -- options, errors, records -----------------------------------------------------------------


def test_parallel_only_and_extremities_options():
    hands = hands_of("6-6 5-6 0-0 0-1 0-2 0-3 0-4", "4-6 1-1 1-2 1-3 1-4 2-2 2-3")
    rest = [t for t in ALL_TILES if t not in hands[0] + hands[1]]
    counts = {}
    for parallel in (True, False):  # the second tile: parallel by the leaflet's tip, unless it is off
        state = Game("defi", 2, second_parallel=parallel).new_initial_state()
        state.apply_action(Deal.of(hands, rest))
        state.apply_action(state.legal_actions()[0])
        acts = state.legal_actions()
        counts[parallel] = len(acts)
        axes = {a.grid.axis() for a in acts}
        assert axes == ({0} if parallel else {0, 1})
    assert counts == {True: 2, False: 6}
    # extremities: after 6-6 <- 4-6 <- 5-6, the middle tile 4-6 has two neighbours
    hands = hands_of("6-6 5-6 0-0 0-1 0-2 0-3 0-4", "4-6 4-4 1-2 1-3 1-4 2-2 2-3")
    rest = [t for t in ALL_TILES if t not in hands[0] + hands[1]]
    for variant in (None, "extremities"):
        state = Game("defi", 2, variant=variant).new_initial_state()
        state.apply_action(Deal.of(hands, rest))
        state.apply_action(state.legal_actions()[0])  # 6-6
        state.apply_action(pick(state, "4-6", lambda a: a.x < 0))  # the 4 overhangs at -x
        state.apply_action(pick(state, "5-6", lambda a: a.parent == 1))  # 6 over 6, level 2
        if variant is None:
            assert any(a.tile == (4, 4) and a.parent == 1 for a in state.legal_actions())
        else:
            assert state.construction_grid().extremities() == [0, 2]
            assert state.legal_actions() == (DRAW,)


def test_bad_options_raise_input_errors():
    with pytest.raises(InputError, match="rule"):
        Game("chess", 2)
    with pytest.raises(InputError, match="players"):
        Game("defi", 5)
    with pytest.raises(InputError, match="variant"):
        Game("traditional", 2, variant="extremities")
    with pytest.raises(InputError, match="deals"):
        Game("defi", 2, deals=0)
    with pytest.raises(InputError):
        Game("defi", 2, colour="red")
    with pytest.raises(InputError, match="physics"):
        play_game("defi", 2, physics="bullet")
    with pytest.raises(InputError, match="player"):
        play_game("defi", 2, player_kinds=("random", "clever"))
    state = Game("defi", 2).new_initial_state()
    with pytest.raises(InputError, match="tiles"):
        state.apply_action(Deal((ALL_TILES[0],) * 28))


def test_match_of_several_deals_and_record_contract():
    r = play_game("quinconce", 3, seed=11, deals=3, kids=True, player_kinds="greedy")
    assert set(r) >= {"version", "seed", "rule", "players", "winners", "scores", "events", "final"}
    assert len(r["deals"]) == 3
    assert r["scores"] == [sum(d["scores"][s] for d in r["deals"]) for s in range(3)]
    assert r["winners"] == [s for s, v in enumerate(r["scores"]) if v == min(r["scores"])]
    assert [e["type"] for e in r["events"]].count("deal") == 3
    assert [e["type"] for e in r["events"]].count("end") == 3
    for e in r["events"]:
        assert {"type", "player"} <= set(e)
        if e["type"] == "deal":
            assert len(e["hands"]) == 3
        if e["type"] == "place":
            assert e["mode"] in ("flat", "tower") and len(e["tile"]) == 2
    final = r["final"]
    assert sum(map(len, final["hands"])) + len(final["stock"]) + len(final["construction"]) == 28
    json.dumps(r)
    text = format_record(r)
    assert text.count("\n") >= len(r["events"]) and "winners" in text


def test_state_json_round_trip_mid_game_and_str():
    game = Game("quinconce", 4, seed=2, deals=2)
    state = game.new_initial_state()
    agents = [RandomPlayer(s) for s in range(4)]
    for _ in range(25):
        state.apply_action(DEAL if state.current == CHANCE else agents[state.current].choose(state))
    text = json.dumps(state.to_json())
    copy = State.from_json(text)
    assert copy.to_json() == state.to_json()
    assert "seat" in str(state) and "top view" in str(state)
    assert state.current_player() not in (CHANCE, TERMINAL)
    assert isinstance(game.adjudicator, NoPhysics)
