"""A move named by its text: the whole text, the pips in brackets left out, or its start, even
one ending inside a word; a start that fits several moves names them."""

import pytest

from magdomino.errors import InputError
from magdomino.games.move_texts import find_move, matching_moves
from magdomino.games.session import GameSession

# The legal moves of seat 0 in `play --rule defi --seats human,careful --physics statics --seed 1`
# after its first move: as the terminal listed them.
LISTED = [
    "0-3 on #1 (3-6) half 0",
    "0-3 on #1 (3-6) half 0, across right",
    "0-3 on #1 (3-6) half 0, across left",
    "4-6 on #1 (3-6) half 1, across right",
    "4-6 on #2 (2-6) half 1",
    "4-6 on #2 (2-6) half 1, across right",
    "5-6 on #12 (1-6) half 1",
]


@pytest.mark.parametrize("typed, meant", [
    ("0-3 on #1 half 0, across r", [1]),          # no pips, the last word cut short
    ("0-3 on #1 (3-6) half 0, across left", [2]),  # as printed
    ("0-3 ON #1  half 0 ,across left", [2]),       # case and spacing free
    ("0-3 on #1 half 0", [0]),                     # one text exactly, though it starts two more
    ("4-6 on #2 h", [4, 5]),                       # the start of two
    ("4-6 on #1", [3]),                            # a whole word: #1, not #12
    ("5-6 on #1", [6]),                            # no move on #1: inside the word #12
    ("6-6", []),
    ("", []),
])
def test_a_text_names_the_moves_it_fits(typed, meant):
    assert matching_moves(LISTED, typed) == meant


def test_a_start_of_several_moves_names_them():
    with pytest.raises(InputError) as caught:
        find_move(list(range(len(LISTED))), LISTED, "4-6 on #2 h")
    message = str(caught.value)
    assert "which starts 2 of them: 4-6 on #2 (2-6) half 1; 4-6 on #2 (2-6) half 1, across right (say more" in message


def test_the_start_of_a_listed_move_is_played():
    g = GameSession("defi", ["me", "greedy"], seed=1)
    g.play(0)
    across = next(t for t in g.legal() if t.endswith(", across right"))
    typed = across.split(" (")[0] + across.split(")")[1][: -len("ight")]  # "a-b on #k half h, across r"
    assert "(" not in typed and typed.endswith("across r")
    happened = g.play(typed)
    assert happened.placements[0]["placement"].startswith(across.split(" (")[0])
    assert "across right" in happened.placements[0]["placement"]
