"""The statics adjudicator against hand statics on tiny grid constructions (magnets off).

References are worked by hand from the grid layout: the grid unit u is half a tile's length,
a tile along +x at grid square x spans [x - u/2, x + 3u/2] and its centre of mass is at
x + u/2 (pips do not shift it). A stack stands when the centre of mass of everything above
each contact lies strictly inside that contact's support interval, and falls when it lies
outside, or right above its edge: a tie, an unstable balance that the first disturbance tips
(PyBullet topples such ties: ``tests/physics/test_statics_screen.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from magdomino.maths.geometry import GridPose, physical_pose
from magdomino.model.presets import load_preset
from magdomino.model.tiles import ALL_TILES
from magdomino.physics.adjudicator import NoPhysics, PlacedTile, PlacementView
from magdomino.physics.statics_adjudicator import UNKNOWN_RISK

PRESET = load_preset("standard")
SIZE = tuple(float(v) for v in PRESET.tile.size)
U = SIZE[0] / 2  # grid unit, m


def _view(construction: list[tuple[int, int, int]], new: tuple[int, int, int], tile=(6, 6)) -> PlacementView:
    """A tower placement of ``tile`` at grid square ``new = (x, y, level)`` (along +x) on
    ``construction`` (grid squares of tiles along +x, placed in that order)."""
    placed = tuple(
        PlacedTile(i, (0, 1), ALL_TILES.index((0, 1)), GridPose(x, y, lv, 0), i - 1 if i else None, "tower", "drop")
        for i, (x, y, lv) in enumerate(construction)
    )
    grid = GridPose(*new, 0)
    centre, yaw = physical_pose(grid, SIZE)
    return PlacementView(
        number=len(placed) + 1, deal=0, player=0, tile=tile, tile_index=ALL_TILES.index(tile), grid=grid,
        pose=(tuple(float(c) for c in centre), yaw), mode="tower", motion="drop", slide=None, slide_vector=None,
        parent=placed[-1] if placed else None, relative_pose=None if not placed else ((0.0, 0.0, SIZE[2]), 0.0),
        supports=(len(placed) - 1,) if placed else (), construction=placed, first=not placed, tile_size=SIZE,
        rule="defi",
    )


def _span(x: int) -> tuple[float, float]:
    """Support interval along x (m) of a tile along +x at grid square x."""
    return (x - 0.5) * U, (x + 1.5) * U


def _com(xs) -> float:
    """Centre of mass along x (m) of equal tiles along +x at grid squares ``xs``."""
    return float(np.mean([(x + 0.5) * U for x in xs]))


def _timeless(outcome):
    """An outcome without its verdict's wall time (the only field that may differ between runs)."""
    return outcome.collapsed, outcome.error, outcome.unsure, {k: v for k, v in outcome.verdict.items() if k != "wall_time_s"}


@pytest.fixture
def adjudicator():
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    adj = StaticsAdjudicator(PRESET, magnets=False)
    yield adj
    adj.close()


def test_a_tile_bridging_two_bases_stands(adjudicator):
    # Bases at squares 0 and 2 (level 0), the new tile on squares 1-2 at level 1: its centre
    # of mass (2u) lies inside the union of its two supports, [-u/2, 7u/2].
    lo, hi = _span(0)[0], _span(2)[1]
    assert lo < _com([1]) < hi
    view = _view([(0, 0, 0), (2, 0, 0)], (1, 0, 1))
    out = adjudicator.place(view, None)
    assert out.error is None
    assert out.collapsed is False


def test_a_stack_leaning_past_its_base_falls(adjudicator):
    # Base at squares 0-1, then a tile on 1-2 (level 1), then the new one on 2-3 (level 2):
    # the two upper tiles' centre of mass (2u) is past the base's edge (3u/2): they tip over.
    assert _com([1, 2]) > _span(0)[1]
    view = _view([(0, 0, 0), (1, 0, 1)], (2, 0, 2))
    out = adjudicator.place(view, None)
    assert out.error is None
    assert out.collapsed is True


def test_a_tile_right_above_its_parent_stands_and_the_first_tile_never_falls(adjudicator):
    assert adjudicator.place(_view([], (0, 0, 0)), None).collapsed is False
    out = adjudicator.place(_view([(0, 0, 0), (0, 0, 1)], (0, 0, 2)), None)
    assert out.error is None and out.collapsed is False


def test_the_statics_not_knowing_is_an_error_never_a_collapse(adjudicator):
    # A tile right where tile 1 lies: rigid tiles cannot overlap, the statics refuses the pose.
    out = adjudicator.place(_view([(0, 0, 0), (1, 0, 1)], (1, 0, 1)), None)
    assert out.collapsed is False and out.unsure is False
    assert out.error and "cannot judge" in out.error and "overlap" in out.error
    assert out.verdict["reason"] == "error" and out.verdict["engine"] == "statics"


def test_assess_ranks_the_falling_placement_riskiest_and_leaves_verdicts_alone(adjudicator):
    base = [(0, 0, 0), (1, 0, 1)]  # a staircase: the next step out leans past the base's end
    falling = _view(base, (2, 0, 2))
    falling_again = _view(base, (2, 0, 2), tile=(5, 6))
    stack = _view([(0, 0, 0), (0, 0, 1)], (0, 0, 2))
    assert _com([1, 2]) > _span(0)[1]
    before = adjudicator.place(falling, None)
    risks = adjudicator.assess([falling, falling_again])
    assert risks == [1.0, 1.0]  # the statics says it falls; pips do not matter
    assert adjudicator.assess([stack])[0] < 1.0
    assert _timeless(adjudicator.place(falling, None)) == _timeless(before)  # stateless: assessing changes nothing


def test_a_tile_half_off_its_parent_is_a_tie_that_falls(adjudicator):
    # On a straight stack, a tile right above has a wide tilt margin; one half off its parent
    # has its centre of mass right over the parent's edge (3u/2): no margin at all, a tie.
    stack = [(0, 0, 0), (0, 0, 1)]
    assert _com([1]) == pytest.approx(_span(0)[1])
    centred, half_off = _view(stack, (0, 0, 2)), _view(stack, (1, 0, 2))
    r_centred, r_half = adjudicator.assess([centred, half_off])
    assert r_centred < UNKNOWN_RISK and r_half == 1.0
    out = adjudicator.place(half_off, None)
    assert out.collapsed is True and out.unsure is False
    assert adjudicator.place(centred, None).collapsed is False


def test_no_physics_knows_nothing():
    views = [_view([(0, 0, 0)], (0, 0, 1)), _view([(0, 0, 0)], (1, 0, 1))]
    assert NoPhysics().assess(views) == [0.0, 0.0]
