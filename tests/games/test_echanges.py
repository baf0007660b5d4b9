"""Le jeu des échanges: scripted games with outcomes worked out by hand from RULES.md (the
start, placing, swapping with the stock, the exchange scored SUN / nothing / RAIN from SUN /
RAIN from the stock, the refill, the end), the players, copies and bad input."""

import json

import pytest

from magdomino.errors import InputError
from magdomino.games import make_game
from magdomino.games.chain.core import DRAW
from magdomino.games.chain.echanges import SWAP
from magdomino.games.chain.players import EchangesGreedyPlayer, PlannerPlayer, make_echanges_player


def T(s):
    a, b = int(s[0]), int(s[1])
    return (min(a, b), max(a, b))


def dealt(seats: str, stock: str):
    """One tile per seat, then the stock from the top (the rest of the set after it)."""
    tiles = [T(s) for s in seats.split()] + [T(s) for s in stock.split()]
    game = make_game("echanges", len(seats.split()), 0)
    state = game.new_initial_state()
    state.apply_action(("deal", tiles + [t for t in game.tiles if t not in tiles]))
    return state


def test_the_highest_tile_starts_in_the_centre_and_sun_scores_an_exchange_that_lets_the_next_play():
    s = dealt("12 66 16", "00 05 22")
    assert s.current_player() == 1 and s.legal_actions() == (("place", "centre"),)
    s.apply_action(("place", "centre"))
    # next is seat 2 (1-6 fits the 6s already): any exchange is "nothing"
    assert s.legal_actions() == (("exchange", 0),)
    s.apply_action(("exchange", 0))
    assert s.hands[2] == [(1, 2)] and s.hands[0] == [(1, 6)]
    s.apply_action(DRAW)  # seat 1 shows a new tile: nothing went to SUN or RAIN
    assert s.sun == [] and s.rain == [] and s.hands[1] == [(0, 0)] and s.current_player() == 2


def test_exchange_scored_sun():
    s = dealt("66 34 56 01", "00 05 22 11")
    s.apply_action(("place", "centre"))
    s.apply_action(("exchange", 2))  # seat 1 could not place 3-4; with 5-6 it can
    assert s.is_chance_node()
    s.apply_action(DRAW)  # the top of the stock onto SUN
    s.apply_action(DRAW)  # seat 0's new tile
    assert s.sun == [(0, 0)] and s.hands[0] == [(0, 5)] and s.hands[1] == [(5, 6)] and s.hands[2] == [(3, 4)]
    assert s.current_player() == 1


def test_exchange_scored_rain_from_sun_then_from_the_stock():
    s = dealt("66 34 56 01", "00 05 22 11 12")
    s.apply_action(("place", "centre"))
    s.apply_action(("exchange", 2))
    s.apply_action(DRAW)
    s.apply_action(DRAW)
    # seat 1 places 5-6 on the right: ends 6 | 5; seat 2 (3-4) cannot place, nor with 0-1
    assert set(s.legal_actions()) == {("place", 0), ("place", 1)}
    s.apply_action(("place", 1))
    assert s.ends == [[6, "open"], [5, "open"]]
    s.apply_action(("exchange", 3))
    assert s.rain == [(0, 0)] and s.sun == []  # from SUN to RAIN
    s.apply_action(DRAW)  # seat 1 refills: 2-2
    assert s.hands[1] == [(2, 2)] and s.current_player() == 2
    # seat 2 holds 0-1: no fit, it swaps with the top of the stock (1-1): still no fit
    assert s.legal_actions() == (SWAP,)
    s.apply_action(SWAP)
    s.apply_action(DRAW)
    assert s.hands[2] == [(1, 1)] and s.stock[-1] == (0, 1) and s.current_player() == 3


def test_exchange_scored_rain_from_the_stock_when_sun_is_empty():
    s = dealt("66 12 34", "00 05")
    s.apply_action(("place", "centre"))
    s.apply_action(("exchange", 2))  # seat 1: 1-2 no, 3-4 no
    s.apply_action(DRAW)
    assert s.rain == [(0, 0)] and s.sun == []


def test_a_good_swap_places_and_goes_on():
    s = dealt("66 12 34", "36 05 00")
    s.apply_action(("place", "centre"))
    s.apply_action(("exchange", 2))
    s.apply_action(DRAW)  # RAIN from the stock: 3-6
    s.apply_action(DRAW)  # seat 0's new tile: 0-5
    assert s.current_player() == 1 and s.hands[1] == [(3, 4)] and s.legal_actions() == (SWAP,)
    top = s.stock[0]
    s.apply_action(SWAP)
    s.apply_action(("draw", (4, 6)))  # a scripted draw: the swap brings 4-6, which fits
    assert s.hands[1] == [(4, 6)] and s.stock[-1] == (3, 4) and s.stock[0] == top
    assert s.legal_actions() == (("place", 0), ("place", 1))


def test_the_game_ends_when_the_stock_is_empty_and_sun_must_beat_rain():
    s = dealt("66 34 56 01", "00 05 22 11 12")
    s.stock = s.stock[:2]  # two tiles left: one to SUN, one to refill
    s.apply_action(("place", "centre"))
    s.apply_action(("exchange", 2))
    s.apply_action(DRAW)
    assert not s.is_terminal()
    s.apply_action(DRAW)
    assert s.is_terminal() and s.stock == [] and s.returns() == [1.0] * 4 and s.winners() == [0, 1, 2, 3]


def test_a_blocked_chain_ends_the_game():
    s = dealt("66 34 56 01", "00 05 22 11 12")
    s.apply_action(("place", "centre"))
    s.apply_action(("exchange", 3))  # seat 1 gets 0-1: no fit: RAIN from the stock
    s.apply_action(DRAW)
    assert s.rain == [(0, 0)]
    # every 6 but 5-6 and the 6s on the table gone: make the chain 6 | 6 with nothing left to fit
    others = [t for t in s.stock if 6 not in t]
    s.stock = others
    s.hands[2] = [(0, 2)]
    s.apply_action(DRAW)
    assert s.is_terminal() and s.returns() == [-1.0] * 4 and s.results[-1]["reason"] == "blocked"


def test_greedy_and_planner_choose_the_exchange_that_scores_sun():
    s = dealt("66 34 56 01", "00 05 22 11 12")
    s.apply_action(("place", "centre"))
    assert set(s.legal_actions()) == {("exchange", 2), ("exchange", 3)}
    assert EchangesGreedyPlayer().choose(s) == ("exchange", 2) and PlannerPlayer().choose(s) == ("exchange", 2)


def test_planner_looks_one_turn_ahead_when_the_exchanges_tie():
    # seat 0 starts with 3-6: ends 3 | 6. Seat 1 (1-5) cannot place; with 3-4 (seat 2) or
    # 3-5 (seat 3) it can: both exchanges score SUN now. One turn later, seat 1 places what
    # it got on the 3 and exchanges seat 2's tile with seat 3's:
    #   with 3-4: ends 4 | 6, seat 2 holds 1-5, seat 3 holds 3-5: neither fits: RAIN;
    #   with 3-5: ends 5 | 6, seat 2 holds 3-4 (no fit), seat 3 holds 1-5 (fits): SUN.
    s = dealt("36 15 34 35", "00 11 22 44 55 66")
    s.apply_action(("place", "centre"))
    assert s.legal_actions() == (("exchange", 2), ("exchange", 3))
    assert EchangesGreedyPlayer().choose(s) == ("exchange", 2)  # ties: the first
    assert PlannerPlayer().choose(s) == ("exchange", 3)


def test_clone_and_json_copies_continue_identically():
    from magdomino.games.players import RandomPlayer

    s = make_game("echanges", 5, 8).new_initial_state()
    agents = [RandomPlayer(k) for k in range(5)]
    for _ in range(30):
        s.apply_action(s.legal_actions()[0] if s.is_chance_node() else agents[s.current].choose(s))
    copies = [s.clone(), type(s).from_json(json.dumps(s.to_json()))]
    for c in [s, *copies]:
        rng = [RandomPlayer(50 + k) for k in range(5)]
        while not c.is_terminal():
            c.apply_action(c.legal_actions()[0] if c.is_chance_node() else rng[c.current].choose(c))
    assert copies[0].to_json() == s.to_json() == copies[1].to_json()


@pytest.mark.parametrize(
    "options, players, key",
    [({"set": 7}, 3, "set"), ({}, 2, "players"), ({}, 7, "players"), ({"variant": "strategic"}, 3, "variant"),
     ({"target": 150}, 3, "target")],
)
def test_bad_options_name_the_key(options, players, key):
    with pytest.raises(InputError) as err:
        make_game("echanges", players, 0, options)
    assert err.value.key == key


def test_unknown_player_names_the_key():
    with pytest.raises(InputError) as err:
        make_echanges_player("lookahead")
    assert err.value.key == "player_kinds"
