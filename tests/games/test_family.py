"""The game families: every game goes through its family alone (record, log, account, check,
whole game), and the registries the faces read are the families'."""

import pytest

from magdomino.errors import InputError
from magdomino.games.core import GAMES, make_game
from magdomino.games.core import RULES as CORE_RULES
from magdomino.games.family import FAMILIES, RULES, family_of
from magdomino.games.players import players_of
from magdomino.games.session import GameSession


@pytest.mark.parametrize("rule", RULES)
def test_a_game_is_recorded_told_checked_and_played_by_its_family(rule):
    family = family_of(rule)
    session = GameSession(rule, ["random"] * 3, seed=1)
    record = session.record
    assert family.check_record(record, "record") is record
    told = family.format_record(record)
    assert session.lines() and all(line.strip() in told for line in session.lines())
    played = family.play(rule, 3, 1, "random", {})  # md.play's way: the same seats and seed, the same game
    assert played["events"] == record["events"] and played["scores"] == record["scores"] == session.scores
    for other in FAMILIES.values():
        if other is not family:
            with pytest.raises(InputError):
                other.check_record(record, "record")


def test_the_registries_are_the_families():
    for family in FAMILIES.values():
        assert family.rules == tuple(family.games) and set(family.players) == set(family.games)
        for rule, game in family.games.items():
            assert family_of(rule) is family and players_of(rule) is family.players[rule]
            assert (CORE_RULES.get(rule) or GAMES[rule]) is game
            assert make_game(rule, 3, 0).rule == rule
    assert RULES == (*CORE_RULES, *GAMES)


def test_an_unknown_rule_is_one_line_naming_every_game():
    with pytest.raises(InputError) as err:
        family_of("chess")
    assert "rule" in str(err.value) and all(rule in str(err.value) for rule in RULES) and "\n" not in str(err.value)
