"""20 sur 20: random play checked by an independent scan of the grid, the generator checked
against a brute-force enumerator, and one scripted position per rule point (RULES.md)."""

from __future__ import annotations

import json
import random

import pytest
from vingt_reference import (  # tests/games helpers
    ENDS,
    LEFTS,
    RIGHTS,
    WAYS,
    brute_moves,
    check_lines,
    grid_of,
    line_pattern,
    lone_blank_end_across_a_gap,
    new_cells,
    rack_for,
    run_through,
    turn_move,
    turn_tile,
)

from magdomino.errors import InputError
from magdomino.games.vingt.game import (
    CHANCE,
    DRAW,
    PASS,
    STOP,
    TERMINAL,
    TILES,
    IllegalActionError,
    VingtGame,
    VingtState,
)
from magdomino.games.vingt.moves import legal_moves

# -- random play ------------------------------------------------------------------------------


def play_checked(players, seed):
    """One random game; after every move the test's own grid (built from the moves and the
    marker lists) is checked, and compared with the state's table at the end."""
    game = VingtGame(players, seed)
    state = game.new_initial_state()
    rng = random.Random(seed)
    steps = 0
    full = game.markers
    halves: dict = {}
    marks: dict = {}
    while state.current != TERMINAL:
        steps += 1
        assert steps < 2000, "the round does not end"
        legal = state.legal_actions()
        cur = state.current
        if cur == CHANCE:
            if legal[0][0] == "deal":
                halves, marks = {}, {}
            state.apply_action(legal[0])
            continue
        action = rng.choice(legal)
        if action[0] != "place":
            state.apply_action(action)
            continue
        first = not halves
        cells = new_cells(action)
        assert all(c not in halves and c not in marks for c, _ in cells)
        had = len(state.markers_placed[cur])
        left = state.markers_left[cur]
        state.apply_action(action)
        old = dict(halves)
        for c, v in cells:
            halves[c] = v
        put = state.markers_placed[cur][had:]
        run = run_through(halves, cells[0][0], action[1])
        dx, dy = (1, 0) if action[1] == 0 else (0, 1)
        ends = ((run[0], (run[0][0] - dx, run[0][1] - dy)), (run[-1], (run[-1][0] + dx, run[-1][1] + dy)))
        needed = [b for e, b in ends if halves[e] != 0 and b not in marks]
        assert put == needed[: min(left, len(needed))]
        for c in put:
            assert c not in halves and c not in marks
            marks[c] = cur
        check_lines(halves, [c for c, _ in cells])
        # the alignment: one run along the move's line holding every new cell, worth 20,
        # with an old half unless first, each end closed by a blank or a marker
        assert {c for c, _ in cells} <= set(run)
        assert sum(halves[c] for c in run) == 20
        if first:
            assert 2 <= len(action[2]) <= 5
        else:
            assert any(c in old for c in run) and 1 <= len(action[2]) <= 5
        for e, b in ends:
            assert halves[e] == 0 or b in marks or state.markers_left[cur] == 0
        # conservation of tiles and markers
        assert sum(map(len, state.racks)) + len(state.stock) + len(state.tiles) == len(TILES)
        for s in range(players):
            assert state.markers_left[s] + len(state.markers_placed[s]) == full
    # the state's own table and markers match the test's grid; every tile exactly once
    h, m = grid_of(state)
    assert h == halves and m == marks
    placed = [tuple(t["tile"]) for t in state.table()]
    assert sorted(placed + [t for r in state.racks for t in r] + state.stock) == sorted(TILES)
    res = state.results[-1]
    if res["reason"] == "markers":
        assert state.markers_left[res["winners"][0]] == 0
    else:
        assert min(state.markers_left) == state.markers_left[res["winners"][0]]
    return state


def test_random_play_2000_games():
    reasons = {}
    for i in range(2000):
        state = play_checked(2 + i % 3, i)
        r = state.results[-1]["reason"]
        reasons[r] = reasons.get(r, 0) + 1
        assert sum(state.returns()) == pytest.approx(1.0)
    assert reasons.get("markers", 0) > 0 and reasons.get("blocked", 0) > 0


def small_positions(count, seed):
    """States early in random games (<= 6 tiles on the table), half of them with a rack of
    light tiles (so that moves of 3 to 5 tiles are common), the others as dealt."""
    rng = random.Random(seed)
    out = []
    i = 0
    while len(out) < count:
        i += 1
        state = VingtGame(2 + i % 3, seed * 1000 + i).new_initial_state()
        stop = rng.randrange(0, 5)
        while state.current != TERMINAL and len(state.tiles) <= 6:
            if state.current == CHANCE:
                state.apply_action(state.legal_actions()[0])
                continue
            if stop == 0:
                break
            legal = state.legal_actions()
            a = rng.choice(legal)
            stop -= a[0] == "place"
            state.apply_action(a)
        if state.current < 0:
            continue
        if rng.random() < 0.5:
            free = [t for t in TILES if t not in {tuple(x["tile"]) for x in state.table()}]
            light = [t for t in free if sum(t) <= 9]
            state.racks[state.current] = sorted(rng.sample(light, 5))
            state._legal = None
        out.append(state)
    return out


def test_generator_matches_brute_force_on_small_boards():
    states = small_positions(40, 1)
    assert any(s.tiles == [] for s in states) and any(s.tiles for s in states)
    sizes = set()
    for state in states:
        seat = state.current
        for kmax in (5, 1):
            got = legal_moves(state.occ, state.racks[seat], not state.occ, kmax)
            want = brute_moves(state, seat, kmax)
            assert len(got) == len(set(got)), "duplicate moves"
            assert set(got) == want, (state.racks[seat], sorted(set(got) ^ want)[:5])
            assert got == sorted(got)
            sizes |= {len(m[2]) for m in got}
    assert {1, 2, 3, 4}.issubset(sizes), sizes


def test_generator_matches_brute_force_with_blanks_at_line_ends():
    """Every line pattern (a lone half or a tile along the line, a gap, a blank half alone or
    at either end of a tile, markers or a half beyond) in the four directions: the legal
    actions, and the single-tile moves of a series, are the brute-force sets."""
    rng = random.Random(26)
    seen = set()
    count = 0
    for left in LEFTS:
        for gap in (1, 2, 4) if left else (0,):
            for right in RIGHTS:
                for ends in ENDS:
                    tiles, marks, old = line_pattern(left, gap, right, ends)
                    used = {(min(t[3:]), max(t[3:])) for t in tiles}
                    rack = rack_for(20 - old, [t for t in TILES if t not in used], rng)
                    for way, f in WAYS.items():
                        turned = [turn_tile(t, way) for t in tiles]
                        state = VingtState.position(VingtGame(2, 0), turned, [rack], markers=[[f(*c) for c in marks]])
                        want = brute_moves(state, 0)
                        got = state.legal_actions()
                        assert set(got) == want or (got == (PASS,) and not want), (way, tiles, rack, sorted(set(got) ^ want)[:4])
                        singles = legal_moves(state.occ, state.racks[0], False, 1)
                        assert set(singles) == {m for m in want if len(m[2]) == 1}, (way, tiles, rack)
                        halves = grid_of(state)[0]
                        seen |= {lone_blank_end_across_a_gap(halves, m) for m in want}
                        count += 1
    assert count == 4 * (len(RIGHTS) * len(ENDS) * (1 + 3 * (len(LEFTS) - 1)))
    assert {(0, -1), (0, 1), (1, -1), (1, 1)} <= seen  # such lines exist in every direction


@pytest.mark.parametrize("way", list(WAYS))
def test_a_lone_blank_reached_across_a_gap_ends_the_line(way):
    """Row 0 reads 2 . . 0 (the 2 and the 0 stand on upright tiles); 9-9 in the gap
    makes 2 9 9 0 = 20, the blank closing its end, whichever way the line runs."""
    tiles = [turn_tile(t, way) for t in [(0, 0, 1, 2, 3), (3, 0, 1, 0, 5)]]
    state = VingtState.position(VingtGame(2, 0), tiles, [[(9, 9), (1, 1), (4, 4), (6, 7), (5, 8)]])
    move = turn_move(("place", 0, ((1, 0, 9, 9),)), way)
    legal = state.legal_actions()
    assert move in legal and set(legal) == brute_moves(state, 0)
    assert move in legal_moves(state.occ, state.racks[0], False, 1)  # and in a series of single-tile moves
    place(state, move)
    assert state.markers_placed[0] == [WAYS[way](-1, 0)]  # one marker, beyond the 2


@pytest.mark.parametrize("way", list(WAYS))
def test_no_pass_when_the_only_twenty_ends_on_a_lone_blank(way):
    """From a random game: with 9-9 alone on the rack the player passed."""
    tiles = [turn_tile(t, way) for t in [(0, 0, 1, 2, 3), (3, 0, 1, 0, 5), (-1, 1, 1, 9, 4)]]
    state = VingtState.position(VingtGame(2, 0), tiles, [[(9, 9)]])
    move = turn_move(("place", 0, ((1, 0, 9, 9),)), way)
    assert state.legal_actions() == (move,)
    place(state, move)
    assert state.markers_placed[0] == [WAYS[way](-1, 0)]


# -- scripted positions, one per rule point --------------------------------------------------


def scripted_deal(racks, players=2):
    """A full deal action: these racks in seat order, then the other tiles in set order."""
    used = [tuple(sorted(t)) for r in racks for t in r]
    rest = [t for t in TILES if t not in used]
    return ("deal", tuple(used + rest))


def place(state, move):
    assert move in state.legal_actions(), move
    state.apply_action(move)


def test_first_move_of_two_tiles():
    state = VingtGame(2, 0).new_initial_state()
    state.apply_action(scripted_deal([[(9, 9), (1, 1), (2, 5), (3, 6), (4, 7)], [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]]))
    assert state.current == 0 and state.racks[0] == [(1, 1), (2, 5), (3, 6), (4, 7), (9, 9)]
    legal = state.legal_actions()
    assert all(2 <= len(m[2]) <= 5 and m[1] == 0 for m in legal)
    assert set(legal) == brute_moves(state, 0)
    place(state, ("place", 0, ((0, 0, 9, 9), (2, 0, 1, 1))))
    assert state.markers_placed[0] == [(-1, 0), (4, 0)] and state.markers_left == [20, 22]
    # the turn is over: the player draws back to five (two chance events), then seat 1 plays
    assert state.current == CHANCE and state.legal_actions() == (DRAW,)
    state.apply_action(DRAW)
    state.apply_action(("draw", (8, 9)))
    assert len(state.racks[0]) == 5 and (8, 9) in state.racks[0] and state.current == 1


FIVE = [(0, 1), (1, 2), (1, 3), (2, 3), (3, 4)]  # 1 + 3 + 4 + 5 + 7 = 20


def test_first_move_of_five_tiles_blank_end_and_blank_inside():
    state = VingtGame(3, 0).new_initial_state()
    state.apply_action(scripted_deal([FIVE]))
    legal = state.legal_actions()
    assert legal and all(len(m[2]) == 5 for m in legal)
    assert set(legal) == brute_moves(state, 0)
    inside = ("place", 0, ((0, 0, 1, 2), (2, 0, 1, 0), (4, 0, 1, 3), (6, 0, 2, 3), (8, 0, 3, 4)))
    assert inside not in legal
    with pytest.raises(IllegalActionError):
        state.clone().apply_action(inside)
    # no legal move has a blank anywhere but at an end of the line
    for m in legal:
        vals = [v for _, _, p, q in m[2] for v in (p, q)]
        assert 0 not in vals[1:-1]
    # a blank end closes the alignment: one marker, at the other end
    blank_left = ("place", 0, ((0, 0, 0, 1), (2, 0, 1, 2), (4, 0, 1, 3), (6, 0, 2, 3), (8, 0, 3, 4)))
    s = state.clone()
    place(s, blank_left)
    assert s.markers_placed[0] == [(10, 0)] and s.markers_left[0] == 14
    blank_right = ("place", 0, ((0, 0, 4, 3), (2, 0, 3, 2), (4, 0, 3, 1), (6, 0, 2, 1), (8, 0, 1, 0)))
    s = state.clone()
    place(s, blank_right)
    assert s.markers_placed[0] == [(-1, 0)]


ROW = [(0, 0, 0, 9, 2), (2, 0, 0, 2, 7)]  # row 0: 9 2 2 7 = 20
ROW_MARKERS = [[], [(-1, 0), (4, 0)]]


def test_end_already_closed_by_a_marker():
    tiles = [(0, 0, 0, 7, 9), (2, 0, 0, 2, 2), (7, -3, 1, 4, 5), (7, -1, 1, 8, 3)]
    markers = [[], [(-1, 0), (4, 0), (7, -4), (7, 1)]]
    state = VingtState.position(VingtGame(2, 0), tiles, [[(8, 9), (1, 1), (2, 6), (0, 5), (3, 4)]], markers=markers)
    assert set(state.legal_actions()) == brute_moves(state, 0)
    place(state, ("place", 0, ((5, 0, 8, 9),)))  # 8 + 9 + 3 = 20 between the marker at (4, 0) and (8, 0)
    assert state.markers_placed[0] == [(8, 0)] and state.markers_left[0] == 21


def test_old_blank_only_at_an_end():
    tiles = [(0, 0, 0, 0, 9), (2, 0, 0, 9, 2)]  # 0 9 9 2: the blank closes the left end
    state = VingtState.position(VingtGame(2, 0), tiles, [[(3, 7), (4, 6), (1, 1), (2, 5), (5, 5)]], markers=[[], [(4, 0)]])
    legal = state.legal_actions()
    assert set(legal) == brute_moves(state, 0)
    across = ("place", 1, ((0, -2, 3, 7), (0, 1, 4, 6)))  # 3 7 0 4 6: the blank inside
    assert across not in legal
    up = ("place", 1, ((0, 1, 3, 7), (0, 3, 4, 6)))  # 0 3 7 4 6: the blank ends it
    place(state, up)
    assert state.markers_placed[0] == [(0, 5)]


def test_a_move_making_another_run_21_is_refused():
    # row 5 already holds 9 9 (two upright tiles); column 2 holds an 8 at (2, 3)
    tiles = [(0, 5, 1, 9, 1), (1, 5, 1, 9, 2), (2, 3, 0, 8, 4)]
    state = VingtState.position(VingtGame(2, 0), tiles, [[(3, 9), (7, 9), (1, 1), (0, 2), (1, 3)]])
    legal = state.legal_actions()
    assert set(legal) == brute_moves(state, 0)
    for bad in (("place", 1, ((2, 4, 9, 3),)), ("place", 1, ((2, 4, 3, 9),))):
        assert 8 + 9 + 3 == 20 and bad not in legal  # column 2 would be 20, row 5 21 or 27
        with pytest.raises(IllegalActionError):
            state.clone().apply_action(bad)
    # up column 2 nothing can reach (2, 5) next to the 9 9 of row 5 (extending row 5 itself
    # to exactly 20 is another matter: 9 9 1 1 is a move)
    assert not [m for m in legal if m[1] == 1 and (2, 5) in [c for c, _ in new_cells(m)]]
    assert ("place", 0, ((2, 5, 1, 1),)) in legal
    place(state, ("place", 1, ((3, 4, 7, 9),)))  # 4 + 7 + 9 = 20 in column 3: fine


REPLAY_RACK = [(3, 8), (5, 8), (9, 9), (1, 2), (0, 5)]


def replay_position(markers_left=None, game=None):
    return VingtState.position(game or VingtGame(2, 0), ROW, [REPLAY_RACK], stock=[(6, 6), (6, 7), (4, 4)], markers=ROW_MARKERS,
                               markers_left=markers_left)


def test_three_single_tile_replays_place_six_markers():
    state = replay_position()
    state.log = []
    assert set(state.legal_actions()) == brute_moves(state, 0)
    for move in (("place", 1, ((1, 1, 9, 9),)), ("place", 1, ((0, -2, 3, 8),)), ("place", 1, ((3, -2, 5, 8),))):
        assert state.current == 0
        place(state, move)
    assert state.markers_left[0] == 22 - 6
    assert sorted(state.markers_placed[0]) == sorted([(1, -1), (1, 3), (0, -3), (0, 1), (3, -3), (3, 1)])
    assert [len(e["markers"]) for e in state.log if e["type"] == "place"] == [2, 2, 2]
    if state.current == 0:
        assert state.legal_actions()[-1] == STOP
        state.apply_action(STOP)
    assert state.current == CHANCE  # refill: three draws
    for _ in range(3):
        state.apply_action(DRAW)
    assert len(state.racks[0]) == 5 and state.current == 1


def test_multi_tile_move_and_replay_do_not_mix():
    state = replay_position()
    two = ("place", 1, ((2, 1, 5, 8), (2, 3, 5, 0)))  # 2 + 13 + 5 = 20 up column 2
    assert two in state.legal_actions()
    place(state, ("place", 1, ((1, 1, 9, 9),)))
    legal = state.legal_actions()
    assert legal[-1] == STOP and all(len(m[2]) == 1 for m in legal[:-1])
    assert two not in legal
    with pytest.raises(IllegalActionError):
        state.apply_action(two)
    # and a multi-tile move ends the turn: no single-tile move after it
    s = replay_position()
    place(s, two)
    assert s.current == CHANCE and s.refill == 0


def test_a_player_running_out_of_markers_wins_at_once():
    state = replay_position(markers_left=[1, 20])
    place(state, ("place", 1, ((1, 1, 9, 9),)))  # needs two markers, one is left
    assert state.markers_placed[0] == [(1, -1)] and state.markers_left[0] == 0
    assert state.is_terminal() and state.returns() == [1.0, 0.0]
    assert state.results[-1]["reason"] == "markers" and state.results[-1]["points"] == [20, 0]


def test_blocked_round_fewest_markers_win_ties_shared():
    state = VingtState.position(VingtGame(3, 0), ROW, [[], [], []], markers=[[], ROW_MARKERS[1]], markers_left=[5, 3, 3])
    for seat in range(3):
        assert state.current == seat and state.legal_actions() == (PASS,)
        state.apply_action(PASS)
    assert state.is_terminal()
    r = state.results[-1]
    assert r["reason"] == "blocked" and r["winners"] == [1, 2]
    assert r["points"] == [0, 5 - 3, 5 - 3] and state.returns() == [0.0, 0.5, 0.5]


def test_competition_rounds_until_the_target():
    state = replay_position(markers_left=[1, 20], game=VingtGame(2, 3, target=60))
    place(state, ("place", 1, ((1, 1, 9, 9),)))
    assert state.totals == [20, 0] and state.current == CHANCE  # 20 < 60: another round
    state.apply_action(state.legal_actions()[0])
    assert state.round_no == 1 and state.current == 1 and state.markers_left == [22, 22]
    rng = random.Random(0)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[0] if state.current == CHANCE else rng.choice(legal))
    # every round's points by hand from its markers left; the totals add them up
    totals = [0, 0]
    for r in state.results:
        left, win = r["markers_left"], r["winners"]
        for s in range(2):
            want = 0
            if s in win and len(win) < 2:
                want = sum(left[o] for o in range(2) if o not in win) - left[s]
            assert r["points"][s] == want
            totals[s] += want
        if r is not state.results[-1]:
            assert max(totals) < 60
    assert totals == state.totals and max(totals) >= 60
    assert state.winners() == [s for s in range(2) if totals[s] == max(totals)]


def test_clone_and_json_round_trip_continue_identically():
    state = VingtGame(3, 11, target=30).new_initial_state()
    rng = random.Random(5)
    for _ in range(40):
        legal = state.legal_actions()
        state.apply_action(legal[0] if state.current == CHANCE else rng.choice(legal))
    copies = [state.clone(), VingtState.from_json(state.to_json_str()), VingtState.from_json(json.loads(json.dumps(state.to_json())))]
    runs = []
    for s in [state] + copies:
        r = random.Random(9)
        trail = []
        while not s.is_terminal():
            legal = s.legal_actions()
            a = legal[0] if s.current == CHANCE else r.choice(legal)
            trail.append(a)
            s.apply_action(a)
        runs.append((trail, s.totals, s.returns(), s.final()))
    assert all(r == runs[0] for r in runs[1:])


@pytest.mark.parametrize(
    "make",
    [
        lambda: VingtGame(1, 0),
        lambda: VingtGame(5, 0),
        lambda: VingtGame(2, 0, target=0),
        lambda: VingtGame(2, 0, target=-3),
        lambda: VingtGame(2, 0, colours=["red"]),
        lambda: VingtState.from_json({"format": "magdomino.state/1", "game": {"rule": "traditional"}}),
        lambda: VingtGame.from_json({"rule": "defi", "players": 2, "seed": 0}),
    ],
)
def test_bad_input_is_one_input_error(make):
    with pytest.raises(InputError):
        make()


# -- pictures and the command line -------------------------------------------------------------


def test_scripted_examples_render(tmp_path):
    from magdomino.faces.tables import vingt_figure

    examples = {}
    s = replay_position()
    for move in (("place", 1, ((1, 1, 9, 9),)), ("place", 1, ((0, -2, 3, 8),)), ("place", 1, ((3, -2, 5, 8),))):
        s.apply_action(move)
    examples["three_replays"] = s
    s = VingtState.position(VingtGame(2, 0), [(0, 0, 0, 0, 9), (2, 0, 0, 9, 2)], [[(3, 7), (4, 6)]], markers=[[], [(4, 0)]])
    s.apply_action(("place", 1, ((0, 1, 3, 7), (0, 3, 4, 6))))
    examples["blank_end"] = s
    s = VingtGame(3, 0).new_initial_state()
    s.apply_action(scripted_deal([FIVE]))
    s.apply_action(("place", 0, ((0, 0, 0, 1), (2, 0, 1, 2), (4, 0, 1, 3), (6, 0, 2, 3), (8, 0, 3, 4))))
    examples["first_five"] = s
    for name, state in examples.items():
        path = vingt_figure(state.final(), tmp_path / f"{name}.png", name)
        assert path.stat().st_size > 5000 and path.read_bytes()[:4] == b"\x89PNG"


def test_cli_plays_and_draws_a_record(cli, tmp_path):
    out, png, png2 = tmp_path / "v.json", tmp_path / "board.png", tmp_path / "again.png"
    res = cli("play", "--rule", "vingt", "--players", "3", "--target", "15", "--player", "greedy", "--seed", "4", "--json", out,
              "--png", png)
    assert res.returncode == 0, res.stderr
    rec = json.loads(out.read_text())
    final = rec["final"]
    assert rec["rule"] == "vingt" and max(rec["scores"]) >= 15 and rec["winners"]
    tiles = [tuple(t["tile"]) for t in final["table"]] + [tuple(t) for h in final["hands"] for t in h] + [tuple(t) for t in final["stock"]]
    assert sorted(tiles) == sorted(TILES)
    for t in final["table"]:
        (x0, y0), (x1, y1) = t["cells"]
        assert abs(x1 - x0) + abs(y1 - y0) == 1 and sorted(t["pips"]) == t["tile"]
    for placed, left in zip(final["markers"]["placed"], final["markers"]["left"]):
        assert len(placed) + left == 15
    assert png.read_bytes()[:4] == b"\x89PNG"
    res = cli("play", "--rule", "vingt", "--record", out, "--png", png2)
    assert res.returncode == 0, res.stderr
    assert png2.read_bytes()[:4] == b"\x89PNG"


def test_cli_bad_input_is_one_line_exit_2(cli, tmp_path):
    other = tmp_path / "traditional.json"
    assert cli("play", "--rule", "traditional", "--players", "2", "--json", other).returncode == 0
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    for args in (
        ("--players", "5"),
        ("--players", "1"),
        ("--players", "2", "--target", "0"),
        ("--players", "2", "--target", "-4"),
        ("--record", other, "--png", tmp_path / "x.png"),
        ("--record", junk),
    ):
        res = cli("play", "--rule", "vingt", *args)
        assert res.returncode == 2, (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


# -- players ---------------------------------------------------------------------------------


def most_markers_by_state(state, seat, depth=0):
    """The most markers ``seat`` can place in the rest of the turn, by trying every legal
    action on clones of the state (an independent search of the turn)."""
    best = 0
    for a in state.legal_actions():
        if a[0] != "place":
            continue
        s = state.clone()
        before = s.markers_left[seat]
        s.apply_action(a)
        got = before - s.markers_left[seat]
        if s.current == seat and not s.is_terminal():
            got += most_markers_by_state(s, seat, depth + 1)
        best = max(best, got)
    return best


def play_turn(state, player):
    seat = state.current
    before = state.markers_left[seat]
    while state.current == seat and not state.is_terminal():
        state.apply_action(player.choose(state))
    return before - state.markers_left[seat]


def test_greedy_plays_the_turn_with_the_most_markers():
    from magdomino.games.vingt.players import GreedyPlayer, LookaheadPlayer

    state = replay_position()
    best = most_markers_by_state(state, 0)
    assert best >= 6  # the three replays above, and maybe more
    assert play_turn(state.clone(), GreedyPlayer()) == best
    assert play_turn(state.clone(), LookaheadPlayer()) >= 2
    rng = random.Random(3)
    checked = 0
    for i in range(400):
        if checked == 25:
            break
        s = VingtGame(2 + i % 3, 500 + i).new_initial_state()
        for _ in range(rng.randrange(5, 60)):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[0] if s.current == CHANCE else rng.choice(legal))
        if s.current < 0 or s.replay or len(s.legal_actions()) > 150:
            continue
        want = most_markers_by_state(s, s.current)
        assert play_turn(s.clone(), GreedyPlayer(budget=10_000)) == want
        checked += 1
    assert checked == 25


def test_legal_order_does_not_depend_on_the_history():
    a, b = ("place", 1, ((0, -2, 3, 8),)), ("place", 1, ((3, -2, 5, 8),))
    s1, s2 = replay_position(), replay_position()
    for m in (a, b):
        place(s1, m)
    for m in (b, a):
        place(s2, m)
    assert list(s1.occ) != list(s2.occ)  # the same table, filled in another order
    assert s1.occ == s2.occ and s1.legal_actions() == s2.legal_actions()
    assert list(s1.legal_actions()[:-1]) == sorted(s1.legal_actions()[:-1])


def test_the_registry_plays_vingt():
    from magdomino.games import make_game

    game = make_game("vingt", 4, 2, {"target": 5})
    assert isinstance(game, VingtGame) and game.markers == 11 and game.target == 5
    state = game.new_initial_state()
    assert state.is_chance_node() and state.legal_actions() == (("deal",),)
    with pytest.raises(InputError):
        make_game("vingt", 2, 0, {"deals": 3})


def test_game_of_a_game_of_its_own_and_game_rules_are_deprecated():
    from magdomino.games import Game

    with pytest.warns(DeprecationWarning, match="make_game"):
        assert isinstance(Game("vingt", 2, 0), VingtGame)
    tower = Game("defi", 2, 0)
    with pytest.warns(DeprecationWarning, match="rulebook"):
        assert tower.rules is tower.rulebook
    with pytest.raises(InputError, match="rule: expected one of"):
        Game("chess", 2, 0)


def test_an_illegal_move_raises_the_one_illegal_action_error_of_every_game():
    import magdomino.games.core as core

    state = VingtGame(2, 0).new_initial_state()
    state.apply_action(state.legal_actions()[0])  # the deal
    with pytest.raises(core.IllegalActionError):
        state.apply_action(("place", 0, ((0, 0, 9, 9),)))
    assert IllegalActionError is core.IllegalActionError
