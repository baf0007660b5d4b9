"""What the physics hands to the layers above, pinned field by field: the statics' answer as
a Verdict, the statics' risk scale (closed form), the motions as values, the games
adjudicator's defaults."""

import dataclasses
import math

import pytest

from magdomino.physics.motion import Drop, Slide
from magdomino.physics.statics import StaticVerdict
from magdomino.physics.statics_adjudicator import SAFE_LOAD, SAFE_MARGIN_DEG, STANDING_MAX, UNKNOWN_RISK, statics_risk


@pytest.mark.parametrize("stands", [True, False])
def test_the_statics_answer_as_a_verdict(stands):
    answer = StaticVerdict(stands=stands, margin=3.0 if stands else -2.0, tiles=2, contacts=1, magnets=False, wall_time_s=0.01,
                           tilt_direction_deg=45.0, load_factor=1.5 if stands else 0.0)
    v = answer.verdict()
    assert (v.collapsed, v.reason, v.settled, v.shifted, v.error, v.engine) == (not stands, "stood" if stands else "falls", None, None,
                                                                                None, "statics")
    assert (v.margin_deg, v.tilt_direction_deg, v.load_factor, v.contacts) == (answer.margin, 45.0, answer.load_factor, 1)
    assert v.stands == stands and answer.collapsed == (not stands)


def _answer(stands=True, margin=None, load_factor=None):
    return StaticVerdict(stands=stands, margin=margin, tiles=2, contacts=1, magnets=False, wall_time_s=0.0, load_factor=load_factor)


def test_the_statics_risk_scale():
    assert statics_risk(None) == UNKNOWN_RISK                   # could not judge
    assert statics_risk(_answer(stands=False)) == 1.0             # falls
    assert statics_risk(_answer()) == 0.0                          # stands, nothing more known
    assert statics_risk(_answer(margin=SAFE_MARGIN_DEG / 2)) == pytest.approx(STANDING_MAX / 2)
    assert statics_risk(_answer(margin=2 * SAFE_MARGIN_DEG)) == 0.0
    assert statics_risk(_answer(load_factor=(SAFE_LOAD + 1) / 2)) == pytest.approx(STANDING_MAX / 2)
    assert statics_risk(_answer(load_factor=1.0)) == pytest.approx(STANDING_MAX)
    # The riskiest standing placement is still below an unknown one, and a fall above both.
    assert statics_risk(_answer(margin=0.0, load_factor=0.5)) == STANDING_MAX < UNKNOWN_RISK < 1.0


def test_motions_are_values():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Drop(0.001).height = 0.002
    with pytest.raises(dataclasses.FrozenInstanceError):
        Slide((0.05, 0.0)).start_offset = (0.0, 0.0)
    assert Drop(0.001) == Drop(0.001) and len({Drop(0.001), Drop(0.001), Slide((0.05, 0.0))}) == 2


def test_the_games_adjudicator_releases_a_tile_1_mm_above_its_rest_and_slides_from_60_mm():
    # A careful hand (DESIGN.md, placements): what the games' physics does unless told.
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    adj = PybulletAdjudicator("plain")
    assert math.isclose(adj.drop, 0.001) and math.isclose(adj.slide_start, 0.060)
    assert adj.world is None and adj.assess([]) == []


class _FirstTile:
    first, construction = True, ()


def test_the_first_tile_of_a_construction_is_never_at_risk():
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    assert PybulletAdjudicator("plain").assess([_FirstTile(), _FirstTile()]) == [0.0, 0.0]


def _edge_candidates(previews):
    """Défi, 6-6 on the table; the candidates: two tiles at each of two poses with a 6 half
    over one of 6-6's squares and the other half out, the centre of mass right over 6-6's end.
    Returns (views, risks, live poses before, after)."""
    from magdomino.games import Game
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    adj = PybulletAdjudicator("plain", magnets=False, previews=previews)
    try:
        state = Game("defi", 2, seed=0, adjudicator=adj).new_initial_state()
        state.apply_action(state.legal_actions()[0])  # the deal
        state.apply_action(state.legal_actions()[0])  # 6-6 on the table
        views = [state.placement_view(a) for a in state.legal_actions()]
        before = [p.copy() for p in adj.world.poses()]
        risks = adj.assess(views)
        return views, risks, before, adj.world.poses()
    finally:
        adj.close()


def test_assess_at_the_edge_the_statics_margin_is_zero_a_tie_that_falls():
    # The pips do not matter to the physics: one risk per pose. The statics: the centre of
    # mass right over the edge of the tile below is a tie (a tilt margin of 0), an unstable
    # balance: it falls, risk 1 (dropped 1 mm in PyBullet, such a tile tips over that edge:
    # tests/physics/test_statics_screen.py). With previews allowed none is made: previews go
    # to poses the statics does not condemn. The live world is not touched.
    import numpy as np

    views, risks, before, after = _edge_candidates(previews=0)
    assert len(views) == 4 and len({v.grid for v in views}) == 2
    assert risks == [1.0] * 4
    views, risks, before, after = _edge_candidates(previews=2)
    assert risks == [1.0] * 4
    assert all(np.array_equal(b, a) for b, a in zip(before, after))
