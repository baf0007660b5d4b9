"""RULES.md's tower rules, by scripted games and hand-built positions.

- the leaflet's tip: only the **second** tile of a construction must lie parallel to the
  first (``second_parallel``, on); ``parallel_only`` (off) makes every tower tile parallel;
- extremities (Défi's variant, En quinconce): **every** tile the new one rests on, touches
  end to end or slides under must be an extremity (no bridging onto a middle tile);
- two-player En quinconce: after a collapse both modes reset as at the start of a deal;
- no placement cap in the rules: the runaway guard ends a deal "abandoned", never scored.

Expected placements are listed by hand from the rules' text (squares ``(x, y, level)``; the
first tile, the double six, lies on squares (0, 0) and (1, 0) at level 0).
"""

import json

from magdomino.games import DEAL, DRAW, Action, Deal, Game, ScriptedAdjudicator, State, format_record, play_game
from magdomino.games.players import RandomPlayer
from magdomino.games.tower.grid import Grid
from magdomino.model.tiles import ALL_TILES


def T(s):
    a, b = s.split("-")
    return (min(int(a), int(b)), max(int(a), int(b)))


def hands_of(*specs):
    return [[T(t) for t in spec.split()] for spec in specs]


def deal(game, *specs):
    state = game.new_initial_state()
    hands = hands_of(*specs)
    state.apply_action(Deal.of(hands, [t for t in ALL_TILES if t not in sum(hands, [])]))
    return state


def squares(action):
    """{pips: square} of a non-double placement."""
    return {action.tile[i]: sq for i, sq in enumerate(action.grid.squares())}


def placements_of(state, tile, pips):
    """The legal placements of ``tile`` as (square of pips[0], square of pips[1])."""
    return {
        (squares(a)[pips[0]], squares(a)[pips[1]]) for a in state.legal_actions() if a.kind == "place" and a.tile == T(tile)
    }


def play_at(state, tile, pips, where):
    """Apply the placement of ``tile`` whose (pips[0], pips[1]) squares are ``where``."""
    for a in state.legal_actions():
        if a.kind == "place" and a.tile == T(tile) and (squares(a)[pips[0]], squares(a)[pips[1]]) == where:
            state.apply_action(a)
            return a
    raise AssertionError(f"{tile} at {where} not legal: {[str(a) for a in state.legal_actions()]}")


# -- the orientation of tower placements --------------------------------------------------------

HANDS = ("6-6 5-6 0-0 0-1 0-2 0-3 0-4", "4-6 1-1 1-2 1-3 1-4 2-2 2-3")
SECOND_PARALLEL = {((0, 0, 1), (-1, 0, 1)), ((1, 0, 1), (2, 0, 1))}  # 4-6: the 6 over a 6, the 4 in line
SECOND_ACROSS = {((0, 0, 1), (0, 1, 1)), ((0, 0, 1), (0, -1, 1)), ((1, 0, 1), (1, 1, 1)), ((1, 0, 1), (1, -1, 1))}
# the third tile, 5-6, once 4-6 lies with its 6 on (0,0,1) and its 4 on (-1,0,1): its 6 over
# the free 6s, (0,0,1) of 4-6 and (1,0,0) of 6-6; its 5 never over a square showing another pip
THIRD_PARALLEL = {((0, 0, 2), (1, 0, 2)), ((1, 0, 1), (2, 0, 1))}
THIRD_ACROSS = {((0, 0, 2), (0, 1, 2)), ((0, 0, 2), (0, -1, 2)), ((1, 0, 1), (1, 1, 1)), ((1, 0, 1), (1, -1, 1))}


def test_defaults_are_the_leaflet_tip():
    game = Game("defi", 2)
    assert game.parallel_only is False and game.second_parallel is True


def test_second_tile_parallel_later_tiles_parallel_or_perpendicular():
    state = deal(Game("defi", 2), *HANDS)
    state.apply_action(state.legal_actions()[0])  # 6-6
    assert placements_of(state, "4-6", (6, 4)) == SECOND_PARALLEL
    play_at(state, "4-6", (6, 4), ((0, 0, 1), (-1, 0, 1)))
    assert placements_of(state, "5-6", (6, 5)) == THIRD_PARALLEL | THIRD_ACROSS


def test_parallel_only_keeps_every_tower_tile_parallel():
    state = deal(Game("defi", 2, parallel_only=True), *HANDS)
    state.apply_action(state.legal_actions()[0])
    assert placements_of(state, "4-6", (6, 4)) == SECOND_PARALLEL
    play_at(state, "4-6", (6, 4), ((0, 0, 1), (-1, 0, 1)))
    assert placements_of(state, "5-6", (6, 5)) == THIRD_PARALLEL


def test_without_the_tip_the_second_tile_may_turn():
    state = deal(Game("defi", 2, second_parallel=False), *HANDS)
    state.apply_action(state.legal_actions()[0])
    assert placements_of(state, "4-6", (6, 4)) == SECOND_PARALLEL | SECOND_ACROSS


def test_quinconce_second_tower_tile_is_parallel_too():
    # three players: 6-6 flat, then the next tile goes on top of it, parallel by the tip
    state = deal(Game("quinconce", 3), "6-6 0-0 0-1 0-2 0-3 0-5", "4-6 1-1 1-2 1-3 1-4 1-5", "2-2 2-3 2-4 2-5 3-3 3-4")
    state.apply_action(state.legal_actions()[0])
    assert state.mode(1) == "tower"
    assert placements_of(state, "4-6", (6, 4)) == SECOND_PARALLEL


def test_options_survive_json():
    game = Game("defi", 2, parallel_only=True, second_parallel=False)
    again = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert (again.parallel_only, again.second_parallel) == (True, False)
    state = deal(game, *HANDS)
    copy = State.from_json(json.dumps(state.to_json()))
    assert (copy.game.parallel_only, copy.game.second_parallel) == (True, False)


# -- extremities: every tile met must be one -------------------------------------------------------

BRIDGE_HANDS = ("6-6 2-6 4-6 3-4 0-0 0-1 0-2", "1-6 3-6 5-6 1-1 1-2 1-3 2-2")
BRIDGE = ((0, 1, 3), (1, 1, 3))  # 3-4: its 3 over 3-6's 3, its 4 over 4-6's 4
ON_E_ALONE = ((1, 2, 3), (1, 1, 3))  # 3-4 on 4-6 alone, in line with it


def _bridge_game(variant):
    """6-6; 1-6 on its (0,0) (1 overhanging -x); 2-6 on its (1,0) (2 overhanging +x);
    3-6 on 1-6's 6 with its 3 across at (0,1,2); 4-6 on 2-6's 6 with its 4 across at
    (1,1,2); 5-6 on 3-6's 6 (5 overhanging at (-1,0,3)). Then 3-6 has two neighbours in the
    tree (1-6 below, 5-6 above): a middle tile; 4-6 has one: an extremity."""
    state = deal(Game("defi", 2, variant=variant), *BRIDGE_HANDS)
    state.apply_action(state.legal_actions()[0])  # P0 6-6
    play_at(state, "1-6", (6, 1), ((0, 0, 1), (-1, 0, 1)))  # P1
    play_at(state, "2-6", (6, 2), ((1, 0, 1), (2, 0, 1)))  # P0
    play_at(state, "3-6", (6, 3), ((0, 0, 2), (0, 1, 2)))  # P1
    play_at(state, "4-6", (6, 4), ((1, 0, 2), (1, 1, 2)))  # P0
    play_at(state, "5-6", (6, 5), ((0, 0, 3), (-1, 0, 3)))  # P1
    assert state.current_player() == 0
    return state


def test_defi_bridge_from_an_extremity_onto_a_middle_tile_is_refused_in_the_variant():
    free = placements_of(_bridge_game(None), "3-4", (3, 4))
    assert BRIDGE in free and ON_E_ALONE in free  # the geometry allows both
    state = _bridge_game("extremities")
    assert state.construction_grid().extremities() == [4, 5]
    ends = placements_of(state, "3-4", (3, 4))
    assert BRIDGE not in ends and ON_E_ALONE in ends


def _position(placed, hand, owed):
    """A three-player quinconce position built by hand (its history need not be a legal
    game; what matters is the tree of placements): seat 0 to play ``hand`` in mode ``owed``."""
    state = deal(Game("quinconce", 3), "6-6 0-0 0-1 0-2 0-3 0-4", "1-1 1-2 1-3 1-4 1-5 1-6", "2-2 2-3 2-4 2-5 2-6 3-3")
    actions = []
    for tile, (x, y, lev, d), mode, motion, parent in placed:
        actions.append(Action("place", T(tile), x, y, lev, d, mode, motion, None, parent, parent is None))
    state.placed = actions
    state.grid = Grid()
    for a in actions:
        state.grid.add(a.grid, a.tile, a.parent)
    state.hands[0] = sorted(T(t) for t in hand.split())
    state.owed = [owed] * 3
    state.forced = None
    state.current = 0
    state._legal = None
    return state


def test_quinconce_tower_bridge_onto_a_middle_tile_is_refused():
    # 6-6 (0,0)-(1,0); 3-6 end to end (2,0)-(3,0); 1-6 on 6-6's (1,0) with its 1 across at
    # (1,1,1); 2-6 on 3-6's (2,0) with its 2 across at (2,1,1); 4-6 on 1-6's 6 (4 overhanging
    # at (0,0,2)): 1-6 is a middle tile (6-6 below, 4-6 above), 2-6 an extremity.
    placed = [
        ("6-6", (0, 0, 0, 0), "flat", "drop", None),
        ("3-6", (3, 0, 0, 1), "flat", "drop", 0),
        ("1-6", (1, 1, 1, 3), "tower", "drop", 0),
        ("2-6", (2, 1, 1, 3), "tower", "drop", 1),
        ("4-6", (0, 0, 2, 0), "tower", "drop", 2),
    ]
    bridge = ((1, 1, 2), (2, 1, 2))  # 1-2 over 1-6's 1 and 2-6's 2
    alone = ((2, 2, 2), (2, 1, 2))  # 1-2 on 2-6 alone, in line
    state = _position(placed, "1-2", "tower")
    found = placements_of(state, "1-2", (1, 2))
    assert bridge not in found and alone in found
    control = placements_of(_position(placed[:4], "1-2", "tower"), "1-2", (1, 2))  # 1-6 an extremity again
    assert bridge in control and alone in control


def test_quinconce_end_to_end_touching_a_middle_tile_is_refused():
    # Row y = 0 at table level: 6-6 (0,0)-(1,0), 5-6 (2,0)-(3,0) (an extremity), a gap
    # (4,0)-(5,0), then 0-3 (6,0)-(7,0) with 0-2 beyond it (8,0)-(9,0). 0-3 joins the tree
    # around the gap: 4-6 on 6-6's (1,0) across to (1,1,1); 0-4 slid under its 4, (1,1)-(2,1);
    # 0-1 and 1-2 end to end along y = 1; 2-3 on 1-2's 2 across to (6,0,1); 0-3 slid under
    # that 3; 0-2 end to end with 0-3: 0-3 has two neighbours (2-3 above, 0-2 beyond).
    placed = [
        ("6-6", (0, 0, 0, 0), "flat", "drop", None),
        ("5-6", (3, 0, 0, 1), "flat", "drop", 0),
        ("4-6", (1, 1, 1, 3), "tower", "drop", 0),
        ("0-4", (2, 1, 0, 1), "flat", "slide", 2),
        ("0-1", (3, 1, 0, 0), "flat", "drop", 3),
        ("1-2", (5, 1, 0, 0), "flat", "drop", 4),
        ("2-3", (6, 1, 1, 3), "tower", "drop", 5),
        ("0-3", (7, 0, 0, 1), "flat", "slide", 6),
        ("0-2", (8, 0, 0, 0), "flat", "drop", 7),
    ]
    gap = ((4, 0, 0), (5, 0, 0))  # 1-5: its 5 against 5-6's 5, its 1 against 0-3's end
    state = _position(placed, "1-5", "flat")
    assert placements_of(state, "1-5", (5, 1)) == set()
    assert state.legal_actions() == (DRAW,)
    control = _position(placed[:8], "1-5", "flat")  # without 0-2, 0-3 is an extremity
    assert placements_of(control, "1-5", (5, 1)) == {gap}


def test_quinconce_slide_under_a_middle_tile_is_refused():
    # 6-6 (0,0)-(1,0); 1-6 on its (0,0) with its 1 across at (0,1,1); 2-6 on its (1,0) with
    # its 2 across at (1,1,1); 3-6 on 2-6's 6 (3 overhanging at (2,0,2)): 2-6 is a middle tile.
    placed = [
        ("6-6", (0, 0, 0, 0), "flat", "drop", None),
        ("1-6", (0, 1, 1, 3), "tower", "drop", 0),
        ("2-6", (1, 1, 1, 3), "tower", "drop", 0),
        ("3-6", (2, 0, 2, 1), "tower", "drop", 2),
    ]
    bridge = ((0, 1, 0), (1, 1, 0))  # 1-2 slid under 1-6's 1 and 2-6's 2
    under_e = {((0, 1, 0), (-1, 1, 0)), ((0, 1, 0), (0, 2, 0))}  # under 1-6's 1 alone
    state = _position(placed, "1-2", "flat")
    assert placements_of(state, "1-2", (1, 2)) == under_e
    assert all(a.motion == "slide" for a in state.legal_actions())
    control = placements_of(_position(placed[:3], "1-2", "flat"), "1-2", (1, 2))
    assert bridge in control


# -- two-player quinconce: modes reset after a collapse ---------------------------------------------


def test_two_player_quinconce_modes_reset_after_a_collapse():
    adj = ScriptedAdjudicator(collapse_on={3})
    state = deal(Game("quinconce", 2, adjudicator=adj), "6-6 4-5 0-0 0-1 1-1 0-2 1-2", "5-6 1-6 0-3 1-3 2-3 3-3 2-2")
    state.log = events = []
    state.apply_action(state.legal_actions()[0])  # P0 6-6 flat: P0 owes tower, P1 flat
    play_at(state, "5-6", (6, 5), ((2, 0, 0), (3, 0, 0)))  # P1 flat, end to end: owes tower
    assert state.owed == ["tower", "tower"]
    play_at(state, "4-5", (5, 4), ((3, 0, 1), (4, 0, 1)))  # P0 on top: placement 3 collapses
    assert [e["type"] for e in events[-2:]] == ["collapse", "restart"]
    assert state.current_player() == 0  # P0 took 6-6 back and restarts with it
    state.apply_action(state.legal_actions()[0])
    # a new start: as at the deal, the restarter owes tower and the other player flat (P1
    # owed tower before the collapse)
    assert state.owed == ["tower", "flat"] and state.mode(1) == "flat"
    legal = state.legal_actions()
    assert {a.mode for a in legal} == {"flat"} and T("1-6") in {a.tile for a in legal}


def test_three_player_quinconce_after_a_collapse_the_next_tile_goes_on_top():
    adj = ScriptedAdjudicator(collapse_on={2})
    state = deal(Game("quinconce", 3, adjudicator=adj), "6-6 0-0 0-1 0-2 0-3 0-5", "4-6 1-1 1-2 1-3 1-4 1-5",
                 "2-2 2-3 2-4 2-5 3-3 3-4")
    state.apply_action(state.legal_actions()[0])  # 6-6
    play_at(state, "4-6", (6, 4), ((1, 0, 1), (2, 0, 1)))  # P1 on top: collapses, takes both
    assert state.current_player() == 1  # P1 now holds 6-6 and restarts
    state.apply_action(state.legal_actions()[0])
    assert state.owed == ["tower"] * 3


# -- the runaway guard: abandoned, not scored ---------------------------------------------------------


def test_a_deal_stopped_by_the_guard_is_abandoned_and_not_scored():
    state = Game("defi", 2, seed=3, max_placements=4).new_initial_state()
    state.log = events = []
    agents = [RandomPlayer(1), RandomPlayer(2)]
    while not state.is_terminal():
        state.apply_action(DEAL if state.is_chance_node() else agents[state.current].choose(state))
    assert state.placements == 4 and all(state.hands)  # nobody was out: stopped by the guard
    assert state.results == [{"deal": 0, "winners": [], "scores": [0, 0], "reason": "abandoned"}]
    assert state.winners() == [] and state.returns() == [0.0, 0.0] and state.scores() == [0, 0]
    end = events[-1]
    assert end["type"] == "end" and end["reason"] == "abandoned" and end["abandoned"] is True
    assert end["winners"] == [] and end["max_placements"] == 4
    assert end["player"] == [e for e in events if e["type"] == "place"][-1]["player"]
    assert "abandoned" in str(state)
    copy = State.from_json(json.dumps(state.to_json()))
    assert copy.results == state.results and copy.winners() == []


def test_a_match_goes_on_after_an_abandoned_deal_and_counts_only_scored_deals():
    # deals of two random players; 15 placements leave room for some deals to be won
    # (7 + 6 placements at least) and stop others: look for a match with both
    for seed in range(40):
        r = play_game("defi", 2, seed=seed, deals=3, max_placements=15)
        reasons = [d["reason"] for d in r["deals"]]
        if "abandoned" in reasons and set(reasons) - {"abandoned"}:
            break
    else:
        raise AssertionError("no match with both an abandoned and a scored deal")
    assert len(r["deals"]) == 3 and [e["type"] for e in r["events"]].count("deal") == 3
    scored = [d for d in r["deals"] if d["reason"] != "abandoned"]
    for d in r["deals"]:
        if d["reason"] == "abandoned":
            assert d["winners"] == [] and d["scores"] == [0, 0]
    totals = [sum(d["scores"][s] for d in scored) for s in range(2)]
    assert r["scores"] == totals
    assert r["winners"] == [s for s in range(2) if totals[s] == min(totals)]
    assert r["abandoned"] == reasons.count("abandoned")
    text = format_record(r)
    assert text.count("ABANDONED by the runaway guard") == reasons.count("abandoned")
    assert "not scored" in text


def test_a_one_deal_match_abandoned_has_no_winner_in_the_record():
    r = play_game("quinconce", 3, seed=1, max_placements=2)
    assert r["deals"] == [{"deal": 0, "winners": [], "scores": [0, 0, 0], "reason": "abandoned"}]
    assert r["winners"] == [] and r["abandoned"] == 1
    assert format_record(r).splitlines()[-1].startswith("winners: none;")


# -- whatif's candidates follow the same orientation defaults ----------------------------------------


def _one_and_two_tiles():
    """A structure of one tile (6-6) and of two (6-6 with 4-6 on its (1,0) square, 4 at (2,0,1)),
    as settled poses on the grid (standard tile 48 x 24 x 8 mm: a square is 24 mm)."""
    from magdomino.studies.scenario import scenario_from_dict

    identity = [0.0, 0.0, 0.0, 1.0]
    one = scenario_from_dict({"preset": "standard", "structure": [{"pips": [6, 6], "pos_mm": [0, 0]}]})
    two = scenario_from_dict({"preset": "standard", "structure": [
        {"pips": [6, 6], "pos_mm": [0, 0]}, {"pips": [6, 4], "pos_mm": [24, 0, 12]}]})
    settled_one = ([[0.0, 0.0, 0.004]], [identity])
    settled_two = ([[0.0, 0.0, 0.004], [0.024, 0.0, 0.012]], [identity, identity])
    return (one, settled_one), (two, settled_two)


def test_candidates_second_tile_parallel_later_tiles_may_turn():
    from magdomino.games.tower.candidates import enumerate_placements

    (one, s1), (two, s2) = _one_and_two_tiles()
    # on the lone 6-6, 5-6 goes over either 6 with its 5 in line (outward): 2 poses; across: 4 more
    axes = [c.grid.axis() for c in enumerate_placements(one, (5, 6), s1, rule="defi")]
    assert sorted(axes) == [0, 0]
    axes = [c.grid.axis() for c in enumerate_placements(one, (5, 6), s1, rule="defi", second_parallel=False)]
    assert sorted(axes) == [0, 0, 1, 1, 1, 1]
    # on two tiles the third may lie across (here 4-5 on 4-6's 4 at the (2,0) end: in line, or across)
    cands = enumerate_placements(two, (4, 5), s2, rule="defi")
    assert {c.grid.axis() for c in cands} == {0, 1} and {c.parent for c in cands} == {1}
    assert {c.grid.axis() for c in enumerate_placements(two, (4, 5), s2, rule="defi", parallel_only=True)} == {0}
