"""Le Matador: scripted games with outcomes worked out by hand from RULES.md, one per rule
point (start, sum to the target, crossed matadors and the blank after them, drawing and the
forced matador, passing, "Domino!", blocked games and ties, the match target, the strategic
variant), plus copies, the picture and bad input."""

import json

import pytest

from magdomino.errors import InputError
from magdomino.games import make_game
from magdomino.games.chain.core import DRAW, PASS
from magdomino.games.players import RandomPlayer


def T(s):
    a, b = int(s[0]), int(s[1])
    return (min(a, b), max(a, b))


def hands_of(*specs):
    return [[T(s) for s in spec.split()] for spec in specs]


def dealt(players, hands, stock, **options):
    """A game dealt by script: these hands (seat order), then the stock from the top."""
    game = make_game("matador", players, 0, options)
    tiles = [t for h in hands for t in h] + [T(s) for s in stock.split()]
    rest = [t for t in game.tiles if t not in tiles]
    state = game.new_initial_state()
    state.apply_action(("deal", tiles + rest))
    return state


def position(players, hands, ends, stock_size=2, table=None, current=0, **options):
    """A mid-deal position: these hands and ends, the stock made of other tiles."""
    game = make_game("matador", players, 0, options)
    state = game.new_initial_state()
    state.apply_action(("deal", list(game.tiles)))
    state.hands = [sorted(h) for h in hands]
    used = {t for h in hands for t in h} | {tuple(e["tile"]) for e in table or []}
    state.stock = [t for t in game.tiles if t not in used][:stock_size]
    state.table = table or [{"tile": [3, 3], "halves": [3, 3], "crossed": False, "side": "start", "order": 0, "seat": 0}]
    state.ends = [list(e) for e in ends]
    state.current = current
    return state


# 4 players, double-six: seat 0 starts with 6-6; seat 1 has no 1 but the matador 5-2.
FOUR = hands_of("66 11 12 13 14 15", "25 22 23 33 24 44", "01 04 05 06 16 26", "34 35 36 45 46 56")


def test_the_highest_double_starts_and_lies_in_line():
    s = dealt(4, FOUR, "55 02 00 03")
    assert s.current_player() == 0 and s.legal_actions() == (("start", (6, 6)),)
    s.apply_action(("start", (6, 6)))
    assert s.ends == [[6, "open"], [6, "open"]] and s.current_player() == 1


def test_without_doubles_the_highest_single_starts():
    hands = hands_of("01 02 03 04 05 06 12", "13 14 15 16 23 24 56")
    s = dealt(2, hands, "")
    assert s.current_player() == 1 and s.legal_actions() == (("start", (5, 6)),)


def test_drawing_then_the_forced_matador():
    s = dealt(4, FOUR, "55 02 00 03")
    s.apply_action(("start", (6, 6)))
    # no 1 to answer the 6s: seat 1 may cross its matador or draw
    assert set(s.legal_actions()) == {("cross", 0, (2, 5)), ("cross", 1, (2, 5)), DRAW}
    s.apply_action(DRAW)
    assert s.is_chance_node()
    s.apply_action(DRAW)
    assert (5, 5) in s.hands[1] and len(s.stock) == 3 and s.current_player() == 1
    s.apply_action(DRAW)
    s.apply_action(DRAW)
    # the stock is down to two: never drawn; the matador must be played
    assert len(s.stock) == 2 and set(s.legal_actions()) == {("cross", 0, (2, 5)), ("cross", 1, (2, 5))}


def test_a_crossed_matador_must_be_followed_by_a_blank():
    s = dealt(4, FOUR, "55 02 00 03")
    s.apply_action(("start", (6, 6)))
    s.apply_action(("cross", 1, (2, 5)))
    assert s.ends[1] == [None, "cross"]
    # seat 2: a 1 against the left 6, a blank against the crossed matador, and its own
    # matador 1-6 across the open left end only
    assert set(s.legal_actions()) == {
        ("line", 0, (0, 1), 1), ("line", 0, (1, 6), 1),
        ("line", 1, (0, 1), 0), ("line", 1, (0, 4), 0), ("line", 1, (0, 5), 0), ("line", 1, (0, 6), 0),
        ("cross", 0, (1, 6)),
    }
    s.apply_action(("line", 1, (0, 4), 0))
    assert s.ends[1] == [4, "open"] and s.table[-1]["halves"] == [0, 4]


def test_a_blank_end_takes_only_a_matador_across_and_0_0_after_a_crossed_one():
    s = position(2, hands_of("01 34 00", "26"), [[0, "open"], [5, "open"]], stock_size=5)
    # left shows a blank: no ordinary tile; 3-4 (a matador) across either end; 0-0 too;
    # 0-1 is no answer to a blank; right shows 5: 2 needed, nobody has one
    assert set(s.legal_actions()) == {("cross", 0, (3, 4)), ("cross", 1, (3, 4)), ("cross", 0, (0, 0)),
                                      ("cross", 1, (0, 0)), DRAW}
    s.apply_action(("cross", 0, (3, 4)))
    s.current = 0  # seat 0 again, to answer its own crossed matador
    assert ("line", 0, (0, 0), 0) in s.legal_actions() and ("line", 0, (0, 1), 0) in s.legal_actions()
    s.apply_action(("line", 0, (0, 0), 0))
    assert s.ends[0] == [0, "open"]


def test_matadors_in_line_by_the_sum_rule():
    s = position(2, hands_of("16 22", "55"), [[6, "open"], [4, "open"]])
    # 1-6: its 1 against the 6 in line (the end then shows 6), or across either end
    assert set(s.legal_actions()) == {("line", 0, (1, 6), 1), ("cross", 0, (1, 6)), ("cross", 1, (1, 6))}
    s.apply_action(("line", 0, (1, 6), 1))
    assert s.ends[0] == [6, "open"] and s.table[0]["halves"] == [6, 1]


def test_no_play_no_matador_stock_at_two_passes_and_a_full_round_blocks():
    # ends ask for 4; nobody holds a 4 or a matador; stock at two: pass, pass, blocked
    s = position(3, hands_of("22 55", "66 02", "56 26"), [[3, "open"], [3, "open"]])
    assert s.legal_actions() == (PASS,)
    s.apply_action(PASS)
    s.apply_action(PASS)
    s.apply_action(PASS)
    # pips 14, 14, 19: seats 0 and 1 tie lowest and each score the 19 of seat 2
    assert s.is_terminal() and s.results[-1] == {"deal": 0, "winners": [0, 1], "scores": [19, 19, 0], "reason": "blocked"}
    assert s.returns() == [0.5, 0.5, 0.0]


def test_blocked_single_winner_scores_the_others_pips():
    s = position(2, hands_of("22 55", "66 01"), [[3, "open"], [3, "open"]])
    s.apply_action(PASS)
    s.apply_action(PASS)
    assert s.results[-1]["winners"] == [1] and s.results[-1]["scores"] == [0, 14]


def test_domino_is_scored():
    s = position(3, hands_of("36", "66 55", "12 00"), [[4, "open"], [1, "open"]])
    assert ("line", 1, (3, 6), 6) in s.legal_actions() and ("line", 0, (3, 6), 3) in s.legal_actions()
    s.apply_action(("line", 1, (3, 6), 6))
    # "Domino!": 22 + 3 pips left to the others
    assert s.is_terminal() and s.results[-1] == {"deal": 0, "winners": [0], "scores": [25, 0, 0], "reason": "domino"}
    assert s.table[-1]["halves"] == [6, 3] and s.ends[1] == [3, "open"]


def test_a_match_to_a_target_ends_after_the_deal_that_reaches_it():
    for seed in range(30):
        state = make_game("matador", 3, seed, {"target": 60}).new_initial_state()
        agents = [RandomPlayer(seed * 3 + k) for k in range(3)]
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0] if state.is_chance_node() else agents[state.current].choose(state))
        totals = [0, 0, 0]
        for r in state.results[:-1]:
            totals = [a + b for a, b in zip(totals, r["scores"])]
            assert max(totals) < 60
        totals = [a + b for a, b in zip(totals, state.results[-1]["scores"])]
        assert totals == state.totals and max(totals) >= 60
        assert state.winners() == [s for s in range(3) if totals[s] == max(totals)]


def test_strategic_defence_aligned_on_a_chosen_half():
    s = position(2, hands_of("25 00 44", "23 55 66"), [[0, "open"], [6, "open"]], stock_size=3, variant="strategic")
    # the blank on the left is an attack: 5-2 across aligned on its 5 or its 2, or 0-0 on
    # either end; the right shows 6 (1 needed): nothing in line; the stock is at three: no bluff
    assert set(s.legal_actions()) == {("cross", 0, (2, 5), 2), ("cross", 0, (2, 5), 5),
                                      ("cross", 0, (0, 0), 0), ("cross", 1, (0, 0), 0)}
    s.apply_action(("cross", 0, (2, 5), 5))
    assert s.ends[0] == [5, "open"]
    # 5 aligned asks for a 2: seat 1 answers with 2-3, whose 3 then shows
    assert set(s.legal_actions()) == {("line", 0, (2, 3), 2)}
    s.apply_action(("line", 0, (2, 3), 2))
    assert s.ends[0] == [3, "open"]
    # the double blank turns an end back into an attack
    s.apply_action(("cross", 1, (0, 0), 0))
    assert s.ends[1] == [0, "open"]


def test_strategic_bluff_while_the_stock_holds_more_than_three():
    s = position(2, hands_of("34 11", "23"), [[3, "open"], [6, "open"]], stock_size=4, variant="strategic")
    assert DRAW in s.legal_actions() and ("line", 0, (3, 4), 4) in s.legal_actions()
    s.apply_action(DRAW)
    s.apply_action(DRAW)
    assert len(s.stock) == 3 and DRAW not in s.legal_actions()
    s = position(2, hands_of("22", "23"), [[3, "open"], [6, "open"]], stock_size=3, variant="strategic")
    assert s.legal_actions() == (PASS,)  # nothing to place and the stock is at three


def test_clone_and_json_copies_continue_identically():
    game = make_game("matador", 3, 11, {"set": 7, "target": 40})
    s = game.new_initial_state()
    agents = [RandomPlayer(k) for k in range(3)]
    for _ in range(25):
        s.apply_action(s.legal_actions()[0] if s.is_chance_node() else agents[s.current].choose(s))
    copies = [s.clone(), type(s).from_json(json.dumps(s.to_json()))]
    for c in [s, *copies]:
        rng = [RandomPlayer(99 + k) for k in range(3)]
        while not c.is_terminal():
            c.apply_action(c.legal_actions()[0] if c.is_chance_node() else rng[c.current].choose(c))
    assert copies[0].to_json() == s.to_json() == copies[1].to_json()


@pytest.mark.parametrize(
    "options, players, key",
    [({"set": 5}, 2, "set"), ({}, 5, "players"), ({"set": 9}, 7, "players"), ({"variant": "extremities"}, 2, "variant"),
     ({"target": 0}, 2, "target"), ({"target": 150, "deals": 3}, 2, "deals"), ({"colours": 1}, 2, "colours")],
)
def test_bad_options_name_the_key(options, players, key):
    with pytest.raises(InputError) as err:
        make_game("matador", players, 0, options)
    assert err.value.key == key
