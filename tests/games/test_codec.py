"""The compact action ids the program faces share (magdomino.games.codec, magdomino.games.vingt_codec):
one id per move in every position of seeded games of every rule, ids that say what the
placement language says, and 20 sur 20's moves chosen in one-tile sub-steps."""

from __future__ import annotations

import numpy as np
import pytest

from magdomino.games import codec
from magdomino.games import vingt_codec as vc
from magdomino.games.actions import Action
from magdomino.games.core import make_game
from magdomino.games.family import CHAIN, WholeTurn
from magdomino.games.move_texts import find_move
from magdomino.model.tiles import ALL_TILES, TILE_INDEX, TILE_SETS


def decision_states(rule: str, players: int, seeds, options=None):
    """Each position of seeded random games where a seat chooses (the state is then played on)."""
    for seed in seeds:
        state = make_game(rule, players, seed, options or {}).new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.legal_actions()[0])
                continue
            yield state
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])


TOWER_GAMES = [("traditional", 2, {}), ("traditional", 4, {"kids": True}), ("defi", 2, {}), ("defi", 3, {"variant": "extremities"}),
               ("defi", 4, {"parallel_only": True}), ("defi", 2, {"second_parallel": False}), ("quinconce", 2, {}),
               ("quinconce", 3, {})]


@pytest.mark.parametrize("rule, players, options", TOWER_GAMES, ids=[f"{r}-{n}-{'-'.join(o)}" for r, n, o in TOWER_GAMES])
def test_tower_ids_are_one_to_one_and_say_what_the_placement_language_says(rule, players, options):
    moves = anchored = doubles = 0
    for state in decision_states(rule, players, range(4), options):
        ids = codec.tower_ids(state)
        legal = state.legal_actions()
        assert len(ids) == len(legal) and set(ids.values()) == set(legal)  # one id per move, none shared
        placed = state.placed
        for i, a in ids.items():
            assert 0 <= i < codec.TOWER_ACTIONS
            said = codec.fields_of_id(i)
            if a.kind != "place":
                assert said == (a.kind,)
                continue
            text = state._words(a, len(placed))  # the placement language, written by the record's code
            assert codec.id_of_text(placed, text) == i  # action -> id -> the text's id
            if a.parent is None:
                assert said == ("start", a.tile) and " at (" in text
                continue
            tile, anchor, half, direction, relation = said
            anchor_tile = placed[a.parent].tile
            assert tile == a.tile and anchor == anchor_tile
            assert text.startswith(f"{a.tile[0]}-{a.tile[1]} {relation} #{a.parent} ({anchor_tile[0]}-{anchor_tile[1]}) half {half}")
            assert (direction == "outward") == (", across" not in text and ", back" not in text)
            anchored += 1
            doubles += anchor_tile[0] == anchor_tile[1]
        moves += len(ids)
    assert moves > 100 and anchored > 50
    if rule != "traditional":
        assert doubles > 3  # a double's halves are numbered from the one that meets its parent


def test_a_tower_id_is_the_documented_product():
    placed = [Action("place", (5, 5), 0, 0, 0, 0, "flat", "drop", None, None, True)]
    text = "2-5 on #0 (5-5) half 1, across left"
    assert codec.id_of_text(placed, text) == (((TILE_INDEX[(2, 5)] * 28 + TILE_INDEX[(5, 5)]) * 2 + 1) * 4 + 2) * 3 + 0
    assert codec.fields_of_id(codec.id_of_text(placed, text)) == ((2, 5), (5, 5), 1, "across left", "on")
    assert codec.id_of_text(placed, "5-5 at (12, 0) mm") == 28 * 28 * 2 * 4 * 3 + TILE_INDEX[(5, 5)]
    assert (codec.id_of_text(placed, "draw"), codec.id_of_text(placed, "pass"), codec.TOWER_ACTIONS) == (18_844, 18_845, 18_846)


def test_a_pose_named_from_either_half_has_the_lowest_halfs_id():
    # over both halves of its anchor ("back"): the same pose from half 0 and from half 1
    placed = [Action("place", (1, 3), 0, 0, 0, 0, "flat", "drop", None, None, True)]
    one = codec.id_of_text(placed, "3-1 on #0 half 1, back")
    assert one == codec.id_of_text(placed, "1-3 on #0 half 0, back")
    assert codec.fields_of_id(one)[2:] == (0, "back", "on")
    with pytest.raises(ValueError):
        codec.fields_of_id(codec.TOWER_ACTIONS)


CHAIN_GAMES = [("matador", 2, {}), ("matador", 3, {"variant": "strategic"}), ("matador", 5, {"set": 9}),
               ("echanges", 3, {}), ("echanges", 6, {})]


def index_of(state) -> dict:
    return {tile: i for i, tile in enumerate(state.game.tiles)}


@pytest.mark.parametrize("rule, players, options", CHAIN_GAMES, ids=[f"{r}-{n}" for r, n, _ in CHAIN_GAMES])
def test_chain_ids_are_one_to_one_within_the_documented_size(rule, players, options):
    size = codec.chain_actions(len(TILE_SETS[options.get("set", 6)].tiles))
    kinds = set()
    for state in decision_states(rule, players, range(3), options):
        ids = codec.chain_ids(state)
        legal = state.legal_actions()
        assert len(ids) == len(legal) and set(ids.values()) == set(legal)
        assert all(0 <= i < size for i in ids)
        texts = CHAIN.id_texts(state, WholeTurn(ids))  # as a face's info says them
        said = [text for _, text in sorted(texts.items())]
        moves = [ids[i] for i in sorted(texts)]
        for i, text in texts.items():  # id -> text -> the move the terminal reads -> id
            assert codec.chain_id(index_of(state), moves[find_move(moves, said, text)]) == i
        kinds |= {a[0] for a in legal}
    assert len(kinds) >= 3
    index = {t: i for i, t in enumerate(ALL_TILES)}
    assert codec.chain_id(index, ("line", 1, (2, 5), 5)) == 28 + (28 + index[(2, 5)]) * 2 + 1
    assert codec.chain_id(index, ("cross", 0, (2, 5), 5)) == 5 * 28 + index[(2, 5)] * 3 + 2
    assert codec.chain_id(index, ("pass",)) == codec.chain_actions(28) - 1 == 319


@pytest.mark.parametrize("players", [2, 4])
def test_vingt_moves_are_chosen_by_distinct_id_sequences_within_20000(players):
    assert vc.NUM_ACTIONS == 4_470 < 20_000
    chosen = several = 0
    for state in decision_states("vingt", players, range(2)):
        ways = vc.move_ids(state)
        legal = state.legal_actions()
        assert len(ways) == len(legal) and sorted(ways.values()) == sorted(legal)  # one sequence per move
        for ids in ways:
            assert all(0 <= i < vc.NUM_ACTIONS for i in ids)
            assert not any(ids[:k] in ways for k in range(1, len(ids)))  # no move's ids start another's
        for ids, move in list(ways.items())[:60]:
            turn = vc.VingtTurn(state)
            for i in ids[:-1]:
                assert turn.choose(i) is None  # a sub-step
            assert turn.choose(ids[-1]) == move
            chosen += 1
            several += len(ids) > 2
    assert chosen > 100 and several > 10
