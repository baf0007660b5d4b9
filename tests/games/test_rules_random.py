"""One generic random-play checker, run on every rule x 2/3/4 players (pure rules, no physics).

For every game: the 28 tiles are accounted for after every event, every applied action was
in ``legal_actions()`` (listed once each, in ``sort_key`` order), games end, scores follow
the rules, modes and extremities are respected, superposed squares match, and clone and
JSON round trips are exact (and continue identically).
"""

import json
from collections import Counter

import pytest

from magdomino.games import CHANCE, DEAL, RULES, TERMINAL, Game, State
from magdomino.games.players import RandomPlayer
from magdomino.games.tower.players import GreedyPlayer
from magdomino.model.tiles import ALL_TILES

GAMES = {"traditional": 1200, "defi": 800, "quinconce": 800}
EVENT_KEYS = {"type", "player", "deal", "hand_sizes", "stock_size", "construction_size"}


def _tiles_accounted(state):
    tiles = [t for h in state.hands for t in h] + list(state.stock) + [a.tile for a in state.placed]
    assert len(tiles) == 28 and set(tiles) == set(ALL_TILES), Counter(tiles).most_common(3)


def _value(game, hand):
    return len(hand) if game.kids else sum(a + b for a, b in hand)


def _check_construction(state):
    """Superposed squares match; every tile is joined to its parent by matching halves
    (on top, end to end in line, or slid under)."""
    grid = state.construction_grid()
    if state.game.rule == "traditional":
        xs = sorted(x for a in state.placed for x in (a.x, a.x + (1 if a.d == 0 else -1)))
        assert xs == list(range(xs[0], xs[0] + len(xs)))  # one straight, gapless chain
    for (x, y, lev), (_n, p) in grid.cells.items():
        below = grid.cells.get((x, y, lev - 1))
        if below is not None:
            assert below[1] == p, (x, y, lev)
    for n, a in enumerate(state.placed):
        if a.parent is None:
            assert n == 0 and a.start
            continue
        mine = {sq: a.tile[i] for i, sq in enumerate(a.grid.squares())}
        parent = state.placed[a.parent]
        theirs = {sq: parent.tile[i] for i, sq in enumerate(parent.grid.squares())}
        if a.mode == "tower":
            shift = (0, 0, -1)
        elif a.motion == "slide":
            assert a.level == 0
            shift = (0, 0, 1)
        else:
            assert a.level == 0 and parent.level == 0 and a.grid.axis() == parent.grid.axis()
            shift = None
        if shift is not None:
            joins = [(sq, (sq[0] + shift[0], sq[1] + shift[1], sq[2] + shift[2])) for sq in mine]
        else:
            joins = [(sq, o) for sq in mine for o in theirs if abs(sq[0] - o[0]) + abs(sq[1] - o[1]) == 1]
        assert any(o in theirs and theirs[o] == mine[sq] for sq, o in joins), (n, a, parent)


def _met(state, action):
    """The construction tiles a placement rests on, slides under or touches end to end (in
    line, at its level), by this file's own reading of RULES.md."""
    where = {}
    for n, a in enumerate(state.placed):
        for sq in a.grid.squares():
            where[sq] = n
    s0, s1 = action.grid.squares()
    step = (s1[0] - s0[0], s1[1] - s0[1])
    out = set()
    for x, y, lev in (s0, s1):
        for dz in (-1, 1):
            if (x, y, lev + dz) in where:
                out.add(where[(x, y, lev + dz)])
    for x, y, lev in ((s0[0] - step[0], s0[1] - step[1], s0[2]), (s1[0] + step[0], s1[1] + step[1], s1[2])):
        n = where.get((x, y, lev))
        if n is not None and state.placed[n].grid.axis() == action.grid.axis():
            out.add(n)
    return out


def _check_deal_end(state, events):
    game = state.game
    r = state.results[-1]
    if r["reason"] == "domino":
        (w,) = r["winners"]
        assert state.hands[w] == []
    else:
        assert not state.stock
        passes = [e for e in events[-game.players - 1 : -1]]
        assert all(e["type"] == "pass" for e in passes)
        values = [_value(game, h) for h in state.hands]
        assert r["winners"] == [s for s, v in enumerate(values) if v == min(values)]
    for s, h in enumerate(state.hands):
        assert r["scores"][s] == (0 if s in r["winners"] else _value(game, h))
    _check_construction(state)


def _round_trip(state):
    data = state.to_json()
    copy = State.from_json(json.loads(json.dumps(data)), state.game)
    assert copy.to_json() == data
    assert copy.legal_actions() == state.legal_actions()
    clone = state.clone()
    assert clone.to_json() == data
    assert str(state)


def _finish(state, seed):
    agents = [RandomPlayer(seed + s) for s in range(state.game.players)]
    while state.current != TERMINAL:
        state.apply_action(DEAL if state.current == CHANCE else agents[state.current].choose(state))
    return state.to_json()


def play_and_check(game, agents, round_trips=False, continuation_at=None):  # noqa: PLR0915 - one random game checked move by move: the state, log and debts each step updates together
    state = game.new_initial_state()
    state.log = events = []
    owed = None
    steps = 0
    while not state.is_terminal():
        cur = state.current_player()
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        assert list(legal) == sorted(legal, key=lambda a: a.sort_key)
        action = DEAL if cur == CHANCE else agents[cur].choose(state)
        assert action in legal
        if cur == CHANCE and state.deal_no >= 0:
            _check_construction(state)
        if action.kind == "place":
            if action.start:
                assert action.mode == "flat" and len(legal) == 1
                if owed is None or state.placements == 0:
                    owed = ["flat"] * game.players
            else:
                assert state.placed, "only the first tile starts a construction"
                parent = state.placed[action.parent]
                grid = state.construction_grid()
                if game.extremities_only:
                    assert grid.is_extremity(action.parent)
                    for n in _met(state, action):
                        assert grid.is_extremity(n), (n, str(action))
                if action.mode == "tower":
                    assert action.level == parent.level + 1
                    # RULES.md: the second tile parallel (the tip, unless off); later tiles
                    # parallel only with parallel_only
                    parallel = game.parallel_only or (game.second_parallel and len(state.placed) == 1)
                    assert not parallel or action.grid.axis() == parent.grid.axis()
                else:
                    assert action.level == 0
                    assert parent.level == (1 if action.motion == "slide" else 0)
                expected = {"traditional": "flat", "defi": "tower"}.get(game.rule, owed[cur])
                assert action.mode == expected
                assert state.mode(cur) == expected
            if game.rule == "quinconce":
                nxt = "tower" if action.mode == "flat" else "flat"
                if game.players == 2:
                    owed[cur] = nxt
                else:
                    owed = [nxt] * game.players
        elif action.kind in ("draw", "pass"):
            assert len(legal) == 1
            assert (action.kind == "draw") == bool(state.stock)
        if round_trips and steps % 4 == 0:
            _round_trip(state)
        if continuation_at is not None and steps == continuation_at:
            a = _finish(state.clone(), 99)
            b = _finish(State.from_json(json.dumps(state.to_json()), game), 99)
            assert a == b
        n_before = len(events)
        deal_before = state.deal_no
        state.apply_action(action)
        _tiles_accounted(state)
        for ev in events[n_before:]:
            assert EVENT_KEYS <= set(ev), ev
            assert sum(ev["hand_sizes"]) + ev["stock_size"] + ev["construction_size"] == 28
        if state.current in (CHANCE, TERMINAL) and action.kind != "deal":
            assert events[-1]["type"] == "end"
            _check_deal_end(state, events)
        if action.kind == "deal":
            assert state.deal_no == deal_before + 1 and events[n_before]["type"] == "deal"
            assert all(len(h) == game.hand_size for h in state.hands)
        steps += 1
        assert steps < 2000, "game does not end"
    assert len(state.results) == game.deals
    totals = state.scores()
    assert totals == [sum(r["scores"][s] for r in state.results) for s in range(game.players)]
    winners = state.winners()
    if game.deals == 1:
        assert winners == state.results[0]["winners"]
    else:
        assert winners == [s for s, v in enumerate(totals) if v == min(totals)]
    assert abs(sum(state.returns()) - 1.0) < 1e-12
    assert state.legal_actions() == ()
    return state, events


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rule", RULES)
def test_random_play(rule, players):
    n_games = GAMES[rule]
    outcomes = Counter()
    for i in range(n_games):
        options = {"kids": i % 5 == 0, "deals": 2 if i % 7 == 0 else 1}
        if rule != "traditional":
            options["parallel_only"] = i % 3 == 0
            options["second_parallel"] = i % 5 != 1
        if rule == "defi" and i % 2:
            options["variant"] = "extremities"
        game = Game(rule, players, seed=1000 * players + i, options=options)
        agents = [GreedyPlayer() if (i % 4 == 1 and s == 0) else RandomPlayer(7 * i + s) for s in range(players)]
        full = i % 10 == 0
        state, events = play_and_check(game, agents, round_trips=full, continuation_at=12 if i == 0 else None)
        for r in state.results:
            outcomes[r["reason"]] += 1
        outcomes["places"] += sum(1 for e in events if e["type"] == "place")
        outcomes["slides"] += sum(1 for e in events if e.get("motion") == "slide")
    assert outcomes["domino"] > 0
    if rule == "quinconce":
        assert outcomes["slides"] > 0


def test_same_seed_same_game_and_greedy_is_deterministic():
    from magdomino.games import play_game

    a = play_game("defi", 3, seed=5, player_kinds=("greedy", "random", "greedy"))
    b = play_game("defi", 3, seed=5, player_kinds=("greedy", "random", "greedy"))
    assert a == b
    c = play_game("defi", 3, seed=6, player_kinds=("greedy", "random", "greedy"))
    assert c["events"][0]["hands"] != a["events"][0]["hands"]
