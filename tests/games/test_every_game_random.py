"""One generic random-play checker over every game of the registry (the three Magnetic Domino
rules, Le Matador, Le jeu des échanges): more than 10,000 games across player counts, sets
and variants.

At every step: the set's tiles are all accounted for (hands, stock, table, SUN and RAIN),
the applied action was listed once in ``legal_actions()``, and, for the chain games, the
move is legal by this file's own reading of RULES.md (sum to the target at every joint, a
blank after a crossed matador, a defence only against a blank, the last two (strategic:
three) tiles never drawn, drawing and passing only when allowed; échanges: matching
halves, swap only when the tile does not fit, the exchange judged on the next player).
Every game ends; clone and JSON copies continue identically.
"""

import json
from collections import Counter

import pytest

from magdomino.games import CHANCE, RULES, make_game
from magdomino.games.core import GAMES
from magdomino.games.players import RandomPlayer

MAX_STEPS = 20_000


def _pips(tiles):
    return sum(a + b for a, b in tiles)


def _tiles_of(state):
    if hasattr(state, "all_tiles"):
        return state.all_tiles()
    return [t for h in state.hands for t in h] + list(state.stock) + [a.tile for a in state.placed]


# -- Le Matador, by this file's own reading -----------------------------------------------------


def _m_end(state, side):
    """What an end asks for, from the table alone: ("any", v) in line, ("blank",) after a
    crossed matador (base game)."""
    e = state.table[0 if side == 0 else -1]
    if not e["crossed"]:
        return ("open", e["halves"][0 if side == 0 else 1])
    if state.game.strategic:
        return ("open", e["shows"])
    return ("blank",)


def _m_placements(state, hand):
    """(in line, across) placements by the rules' text."""
    g = state.game
    T, line, cross = g.sum, set(), set()
    for side in (0, 1):
        end = _m_end(state, side)
        for t in hand:
            matador = t == (0, 0) or sum(t) == T
            if end == ("blank",):
                if 0 in t:
                    line.add((side, t))
                continue
            v = end[1]
            if T - v in t:
                line.add((side, t))
            if not g.strategic and matador:
                cross.add((side, t))
            if g.strategic and (t == (0, 0) or (v == 0 and sum(t) == T)):
                cross.add((side, t))
    return line, cross


def _check_matador_move(before, action, after):
    g = before.game
    p = before.current
    hand = before.hands[p]
    reserve = 3 if g.strategic else 2
    if action[0] == "start":
        held = [t for h in before.hands for t in h]
        doubles = [t for t in held if t[0] == t[1]]
        best = max(doubles) if doubles else max(held, key=lambda t: (t[1], t[0]))
        assert action[1] == best and best in hand
        return
    line, cross = _m_placements(before, hand)
    if action[0] == "draw":
        assert len(before.stock) > reserve  # the last two (three) are never drawn
        assert g.strategic or not line  # an ordinary play must be played
        return
    if action[0] == "pass":
        assert len(before.stock) <= reserve and not line and not cross
        return
    side = action[1]
    new = after.table[0 if side == 0 else -1]
    assert tuple(new["tile"]) in hand and new["crossed"] == (action[0] == "cross")
    end = _m_end(before, side)
    if new["crossed"]:
        assert (side, tuple(new["tile"])) in cross
        if g.strategic:
            t = tuple(new["tile"])
            assert new["shows"] == 0 if t == (0, 0) else (end == ("open", 0) and new["shows"] in t)
        return
    touch = new["halves"][1 if side == 0 else 0]
    if end == ("blank",):
        assert touch == 0  # a blank after a crossed matador
    else:
        assert touch + end[1] == g.sum  # the joint adds up to the target


def _check_matador_end(state, ev):
    left = [_pips(h) for h in state.hands]
    n = len(left)
    if ev["reason"] == "domino":
        (w,) = ev["winners"]
        assert left[w] == 0 and ev["scores"][w] == sum(left)
    else:
        low = min(left)
        tied = [s for s in range(n) if left[s] == low]
        assert ev["winners"] == tied
        assert all(ev["scores"][s] == (sum(left[o] for o in range(n) if o not in tied) if s in tied else 0) for s in range(n))


# -- Le jeu des échanges, by this file's own reading ---------------------------------------------


def _e_fits(state, tile):
    if not state.table:
        return True
    return state.table[0]["halves"][0] in tile or state.table[-1]["halves"][1] in tile


def _check_echanges_move(before, action, after):
    p = before.current
    n = (p + 1) % before.game.players
    if action[0] == "swap":
        assert before.phase == "play" and not _e_fits(before, before.hands[p][0])
    elif action[0] == "place":
        assert _e_fits(before, before.hands[p][0])
        if len(after.table) > 1:
            t = after.table
            assert all(t[i]["halves"][1] == t[i + 1]["halves"][0] for i in range(len(t) - 1))
    else:
        x = action[1]
        assert x not in (p, n)
        could, can = _e_fits(before, before.hands[n][0]), _e_fits(before, before.hands[x][0])
        expect = "nothing" if could else ("sun" if can else "rain")
        assert after.log[-1]["outcome"] == expect


def _check_echanges_end(state):
    nothing_fits = state.table and not any(_e_fits(state, t) for t in [*(t for h in state.hands for t in h), *state.stock])
    assert not state.stock or nothing_fits
    won = len(state.sun) > len(state.rain)
    assert state.returns() == [1.0 if won else -1.0] * state.game.players


# -- the generic loop ----------------------------------------------------------------------------


def play_checked(game, seed, round_trip=False):
    state = game.new_initial_state()
    state.log = []
    agent = RandomPlayer(seed)
    full = sorted(_tiles_of(state)) if state.current != CHANCE else None
    for step in range(MAX_STEPS):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal)
        if state.is_chance_node():
            action = legal[0]
        else:
            action = agent.choose(state)
        assert action in legal
        before = state.clone() if game.rule in GAMES else None
        seen = len(state.log)
        state.apply_action(action)
        tiles = sorted(_tiles_of(state))
        full = full or tiles
        assert tiles == full and len(set(tiles)) == len(tiles)
        if before is not None and before.current >= 0:
            {"matador": _check_matador_move, "echanges": _check_echanges_move}[game.rule](before, action, state)
        for ev in state.log[seen:]:
            if game.rule == "matador" and ev["type"] == "end":
                _check_matador_end(state, ev)
        if round_trip and step % 7 == 3:
            copy = type(state).from_json(json.loads(json.dumps(state.to_json())))
            assert copy.to_json() == state.to_json() == state.clone().to_json()
    else:
        raise AssertionError(f"{game!r} did not end in {MAX_STEPS} steps")
    if game.rule == "echanges":
        _check_echanges_end(state)
    assert len(state.returns()) == game.players
    return state


def _cases():
    for rule in RULES:
        for players in (2, 3, 4):
            yield rule, players, {}, 40
    for top in (6, 7, 8, 9):
        for players in range(2, (4 if top == 6 else 6) + 1):
            for variant in (None, "strategic"):
                yield "matador", players, {"set": top, "variant": variant}, 400 if top == 6 else 200
    for players in (3, 4, 5, 6):
        yield "echanges", players, {}, 500


CASES = list(_cases())


def test_at_least_ten_thousand_games():
    assert sum(n for *_, n in CASES) >= 10_000
    assert {rule for rule, *_ in CASES} == set(RULES) | {"matador", "echanges"}


@pytest.mark.parametrize("rule, players, options, n_games", CASES, ids=lambda v: str(v))
def test_random_play_keeps_the_rules(rule, players, options, n_games):
    outcomes = Counter()
    for i in range(n_games):
        opts = dict(options)
        if rule == "matador" and i % 50 == 7:
            opts["target"] = 60
        state = play_checked(make_game(rule, players, seed=i, options=opts), seed=1000 + i, round_trip=i % 100 == 0)
        for r in state.results:
            outcomes[r["reason"]] += 1
    if rule == "matador":
        assert outcomes["domino"] > 0
    if rule == "echanges":
        assert outcomes["stock empty"] > 0
