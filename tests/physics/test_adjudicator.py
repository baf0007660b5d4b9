"""The interface the games see (magdomino.physics.adjudicator): outcomes and views are values
(frozen, hashable), the scripted adjudicator collapses exactly where told, and anything else
than an adjudicator is refused in one line."""

import dataclasses

import pytest

from magdomino.errors import InputError
from magdomino.maths.geometry import GridPose
from magdomino.physics.adjudicator import (
    ConstructionInfo,
    NoPhysics,
    Outcome,
    PlacedTile,
    ScriptedAdjudicator,
    make_adjudicator,
)


@pytest.mark.parametrize(
    "value",
    [
        Outcome(True, {"reason": "tilt"}),
        PlacedTile(0, (3, 4), 22, GridPose(0, 0, 0, 0), None, "tower", "drop"),
        ConstructionInfo(0, "deal", (0.048, 0.024, 0.008)),
    ],
    ids=["Outcome", "PlacedTile", "ConstructionInfo"],
)
def test_what_the_adjudicator_exchanges_cannot_change_after_the_fact(value):
    # A view or an outcome is shared by the records and the players: frozen.
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, getattr(value, field))


def test_placed_tiles_are_values_that_hash():
    a = PlacedTile(0, (3, 4), 22, GridPose(0, 0, 0, 0), None, "tower", "drop")
    b = PlacedTile(0, (3, 4), 22, GridPose(0, 0, 0, 0), None, "tower", "drop")
    assert a == b and hash(a) == hash(b) and len({a, b, Outcome(False)}) == 2


class View:
    def __init__(self, number, deal):
        self.number, self.deal = number, deal


@pytest.mark.parametrize(
    "deals, deal, number, collapsed",
    [
        (None, 0, 3, True),   # any deal
        (None, 5, 3, True),
        (None, 0, 2, False),  # not a number it was told
        ((1,), 1, 3, True),   # only deal 1
        ((1,), 0, 3, False),
        ((1,), 2, 3, False),
    ],
)
def test_a_scripted_adjudicator_collapses_on_its_numbers_in_its_deals(deals, deal, number, collapsed):
    adj = ScriptedAdjudicator(collapse_on={3}, deals=deals)
    outcome = adj.place(View(number, deal), None)
    assert outcome == Outcome(collapsed, {"scripted": True, "collapsed": collapsed}, None)
    assert len(adj.calls) == 1


def test_a_scripted_adjudicator_s_repr_names_its_script_not_its_log():
    adj = ScriptedAdjudicator(collapse_on=(2,))
    adj.place(View(1, 0), None)
    adj.start(ConstructionInfo(0, "deal", (0.048, 0.024, 0.008)))
    assert repr(adj) == "ScriptedAdjudicator(collapse_on=(2,), deals=None, name='scripted')"


def test_no_physics_never_collapses_and_knows_no_risk():
    none = make_adjudicator("none")
    assert isinstance(none, NoPhysics) and isinstance(make_adjudicator(None), NoPhysics)
    assert none.place(None, None) == Outcome(False) and none.assess([1, 2]) == [0.0, 0.0]


def test_an_adjudicator_by_another_name_or_without_its_methods_is_refused():
    with pytest.raises(InputError, match="physics"):
        make_adjudicator("pybullet")
    with pytest.raises(InputError, match="start"):
        make_adjudicator(object())
    adj = ScriptedAdjudicator()
    assert make_adjudicator(adj) is adj
