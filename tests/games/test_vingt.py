"""20 sur 20: random play checked by an independent scan of the grid, the generator checked
against a brute-force enumerator, and one scripted position per rule point (RULES.md)."""

from __future__ import annotations

import json
import random
from itertools import combinations, permutations, product

import pytest

from magdomino.errors import InputError
from magdomino.games.vingt import (
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
from magdomino.games.vingt_moves import legal_moves

# -- independent reference: the grid as {(x, y): pips} and {(x, y): seat} ---------------------


def grid_of(state):
    """Halves and markers rebuilt from the public table and marker lists (not ``occ``)."""
    halves = {}
    for t in state.table():
        for (x, y), v in zip(t["cells"], t["pips"]):
            assert (x, y) not in halves, "two halves on one cell"
            halves[(x, y)] = v
    marks = {}
    for seat, cells in enumerate(state.markers_placed):
        for c in cells:
            assert c not in halves and c not in marks, "a marker on an occupied cell"
            marks[c] = seat
    return halves, marks


def runs_of(halves):
    """Every run (maximal line of >= 2 consecutive halves), as lists of cells, rows then columns."""
    out = []
    for axis in (0, 1):
        lines = {}
        for c in halves:
            lines.setdefault(c[1 - axis], []).append(c[axis])
        for fixed, coords in lines.items():
            coords.sort()
            group = [coords[0]]
            for v in coords[1:] + [None]:
                if v is not None and v == group[-1] + 1:
                    group.append(v)
                    continue
                if len(group) >= 2:
                    out.append([(g, fixed) if axis == 0 else (fixed, g) for g in group])
                if v is not None:
                    group = [v]
    return out


def check_table(halves):
    for run in runs_of(halves):
        vals = [halves[c] for c in run]
        assert sum(vals) <= 20, f"run {run} worth {sum(vals)}"
        assert 0 not in vals[1:-1], f"blank inside run {run}"


def new_cells(move):
    d = move[1]
    out = []
    for x, y, p, q in move[2]:
        out += [((x, y), p), (((x + 1, y) if d == 0 else (x, y + 1)), q)]
    return out


def run_through(halves, c, d):
    """The maximal run of halves along direction d (0: x, 1: y) through cell c."""
    dx, dy = (1, 0) if d == 0 else (0, 1)
    x, y = c
    while (x - dx, y - dy) in halves:
        x, y = x - dx, y - dy
    run = []
    while (x, y) in halves:
        run.append((x, y))
        x, y = x + dx, y + dy
    return run


# -- brute force: every window of every line, every tiling and arrangement, full-rule check ----


def brute_moves(state, seat, kmax=5):
    """Every legal move by trying all arrangements in all windows and checking each result
    against the rules with :func:`runs_of` (slow: small boards only)."""
    halves, marks = grid_of(state)
    rack = state.racks[seat]
    first = not halves
    found = set()
    if first:
        lines = [(0, 0, 0, 10)]  # canonical: row 0 from x = 0 (see the module docstring)
    else:
        xs = [c[0] for c in halves] + [c[0] for c in marks]
        ys = [c[1] for c in halves] + [c[1] for c in marks]
        lines = [(0, y, min(xs) - 11, max(xs) + 11) for y in {c[1] for c in halves}]
        lines += [(1, x, min(ys) - 11, max(ys) + 11) for x in {c[0] for c in halves}]
    for d, fixed, lo, hi in lines:
        at = (lambda i: (i, fixed)) if d == 0 else (lambda i: (fixed, i))
        starts = [0] if first else range(lo, hi + 1)
        for s in starts:
            for e in range(s + 1, hi + 1):
                window = [at(i) for i in range(s, e + 1)]
                if any(c in marks for c in window):
                    break
                empty = [c for c in window if c not in halves]
                if not empty or len(empty) > 2 * kmax or len(empty) % 2:
                    continue
                # tile the empty cells with dominoes along the line (greedy left to right is the
                # only tiling of a line; check that each pair is two neighbouring cells)
                pairs = [(empty[i], empty[i + 1]) for i in range(0, len(empty), 2)]
                if any(abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1 for a, b in pairs):
                    continue
                old = sum(halves[c] for c in window if c in halves)
                k = len(pairs)
                for sub in permutations(rack, k):
                    if old + sum(a + b for a, b in sub) != 20:
                        continue
                    for flips in product((0, 1), repeat=k):
                        placed = []
                        for (c1, _), (a, b), f in zip(pairs, sub, flips):
                            if f and a == b:
                                break
                            placed.append((c1[0], c1[1], b, a) if f else (c1[0], c1[1], a, b))
                        else:
                            move = ("place", d, tuple(placed))
                            if is_legal_by_rules(halves, marks, move, first):
                                found.add(move)
    return found


def is_legal_by_rules(halves, marks, move, first):
    after = dict(halves)
    for c, v in new_cells(move):
        if c in after or c in marks:
            return False
        after[c] = v
    for run in runs_of(after):
        vals = [after[c] for c in run]
        if sum(vals) > 20 or 0 in vals[1:-1]:
            return False
    cells = new_cells(move)
    run = run_through(after, cells[0][0], move[1])
    if not {c for c, _ in cells} <= set(run) or sum(after[c] for c in run) != 20:
        return False
    if first:
        return 2 <= len(move[2]) <= 5
    return any(c in halves for c in run)


# -- random play ----------------------------------------------------------------------------


def check_lines(halves, cells):
    """No run above 20 and no blank inside one, on every row and column through ``cells``
    (the only lines a move changes; the test's grid is its own dict)."""
    for x, y in cells:
        for d in (0, 1):
            run = run_through(halves, (x, y), d)
            if len(run) >= 2:
                vals = [halves[c] for c in run]
                assert sum(vals) <= 20, f"run {run} worth {sum(vals)}"
                assert 0 not in vals[1:-1], f"blank inside run {run}"


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


def test_random_play_5000_games():
    reasons = {}
    for i in range(300):
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
