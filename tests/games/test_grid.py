"""The rules' placement grid: canonical poses, superposition, covered squares, end to end,
slide, extremities (moved from tests/maths/test_geometry.py with the Grid)."""

import pytest

from magdomino.games.tower.grid import Grid, canonical
from magdomino.maths.geometry import GridPose


def poses(cands):
    return {c[:4] for c in cands}


def test_canonical():
    # a double pointing -x is named from its other square, pointing +x
    assert canonical(1, 0, 0, 1, True) == (0, 0, 0, 0)
    assert canonical(0, 0, 2, 3, True) == (0, -1, 2, 2)
    assert canonical(1, 0, 0, 1, False) == (1, 0, 0, 1)


def test_tower_parallel_and_perpendicular():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    # 5-6 on 6-6: the 6 half over either square, the 5 half overhanging outward
    par = g.tower_placements(5, 6, 0, parallel_only=True)
    assert poses(par) == {(-1, 0, 1, 0), (2, 0, 1, 1)}
    assert all(c[4] == 0 and c[5] == "drop" for c in par)
    both = g.tower_placements(5, 6, 0, parallel_only=False)
    assert len(poses(both)) == 6
    assert {c[3] for c in both} - {c[3] for c in par}  # some perpendicular directions
    # 2-3 does not match 6-6 at all
    assert g.tower_placements(2, 3, 0) == []


def test_superposed_squares_must_all_match():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (3, 4))
    # 3-4 exactly over 3-4: both squares match
    assert (0, 0, 1, 0) in poses(g.tower_placements(3, 4, 0))
    # 4-3 laid reversed over 3-4 would put 4 on 3: not offered
    assert (1, 0, 1, 1) not in poses(g.tower_placements(3, 4, 0))
    # 3-5: 3 over the 3 square with 5 over the 4 square is refused, overhang is fine
    assert poses(g.tower_placements(3, 5, 0)) == {(0, 0, 1, 1)}
    # a bridge over two tiles must match both
    g.add(GridPose(2, 0, 0, 0), (2, 1))
    assert (1, 0, 1, 0) in poses(g.tower_placements(4, 2, 0))  # 4 over 4, 2 over 2
    assert (1, 0, 1, 0) not in poses(g.tower_placements(4, 1, 0))  # 1 over 2: no


def test_double_on_double_deduplicates_to_three_poses():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    assert poses(g.tower_placements(6, 6, 0)) == {(0, 0, 1, 0), (-1, 0, 1, 0), (1, 0, 1, 0)}


def test_covered_squares_cannot_be_covered_again():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    g.add(GridPose(0, 0, 1, 0), (6, 6), parent=0)
    assert g.covered((0, 0, 0)) and g.covered((1, 0, 0)) and not g.covered((0, 0, 1))
    assert g.tower_placements(6, 5, 0) == []
    assert poses(g.tower_placements(6, 5, 1)) == {(0, 0, 2, 1), (1, 0, 2, 0)}  # the 6 over a 6, the 5 overhanging
    assert g.supports(GridPose(0, 0, 2, 0)) == [1]


def test_nothing_higher_over_a_new_square():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (3, 4))  # 0
    g.add(GridPose(1, 0, 1, 0), (4, 5), parent=0)  # 4 over the 4
    g.add(GridPose(1, 0, 2, 1), (4, 0), parent=1)  # 4 over the 4 at level 1, 0 overhangs (0,0,2)
    # 3-x over the 3 at (0,0,0) would be dropped under the level-2 overhang: refused
    assert g.tower_placements(3, 1, 0, parallel_only=False) == []


def test_end_to_end():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    cands = g.end_placements(2, 6, 0)
    assert poses(cands) == {(-2, 0, 0, 0), (3, 0, 0, 1)}
    assert all(c[5] == "drop" and c[4] == 0 for c in cands)
    # in line only, and never onto an occupied column
    g.add(GridPose(3, 0, 0, 1), (2, 6), parent=0)
    assert poses(g.end_placements(6, 1, 0)) == {(-1, 0, 0, 1)}
    assert poses(g.end_placements(2, 2, 1)) == {(4, 0, 0, 0)}
    # a tile on top is no table tile
    g.add(GridPose(0, 0, 1, 0), (6, 6), parent=0)
    assert g.end_placements(6, 1, 2) == []


def test_slide_beneath():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (3, 4))  # 0
    g.add(GridPose(1, 0, 1, 0), (4, 5), parent=0)  # overhangs with 5 at (2,0,1)
    cands = g.slide_placements(1, 5, 1)
    # 5 under the 5; the 1 half to +x, +y or -y (-x is occupied by tile 0)
    assert poses(cands) == {(3, 0, 0, 1), (2, 1, 0, 3), (2, -1, 0, 2)}
    assert all(c[5] == "slide" and c[4] == 1 for c in cands)
    slide = {c[:4]: c[6] for c in cands}
    assert slide[(3, 0, 0, 1)] == 1  # from +x, moving -x, matching half first
    assert slide[(2, 1, 0, 3)] == 3  # from +y, moving -y
    # the other half under another overhanging square must match it too
    g.add(GridPose(2, 1, 1, 2), (5, 0), parent=1)  # a 5 over (2,1,0) too
    c2 = poses(g.slide_placements(1, 5, 1))
    assert (2, 1, 0, 3) not in c2  # 1 would lie under the 5 at (2,1,1)
    assert poses(g.slide_placements(5, 5, 1)) >= {(2, 0, 0, 2)}  # 5-5 under both fives
    # no slide under a tile not at level 1, nor where the table square is taken
    assert g.slide_placements(3, 3, 0) == []


def test_slide_direction_avoids_obstacles():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (3, 4))
    g.add(GridPose(1, 0, 1, 0), (4, 5), parent=0)
    g.add(GridPose(4, 0, 0, 0), (1, 1))  # blocks the +x approach
    d = g.slide_direction((2, 0), (3, 0))
    assert d in (2, 3)  # sideways, since from +x the path hits the 1-1


def test_extremities():
    g = Grid()
    assert g.extremities() == []
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    assert g.extremities() == [0]
    g.add(GridPose(0, 0, 1, 0), (6, 6), parent=0)
    assert g.extremities() == [0, 1]
    g.add(GridPose(-1, 0, 2, 0), (1, 6), parent=1)
    assert g.extremities() == [0, 2]
    g.add(GridPose(2, 0, 0, 0), (6, 2), parent=0)
    assert g.extremities() == [2, 3]
    assert g.degree == [2, 2, 1, 1]
    copy = g.copy()
    copy.add(GridPose(4, 0, 0, 0), (2, 2), parent=3)
    assert len(g) == 4 and len(copy) == 5


def test_occupied_square_refused():
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    with pytest.raises(ValueError):
        g.add(GridPose(1, 0, 0, 0), (1, 2))


def test_contacts_rest_on_slide_under_and_end_to_end_only():
    """What a pose meets (RULES.md: rests on, touches end to end, slides under); tiles beside
    it, or an end against a side, are not met. Hand-built layout (squares (x, y, level)):

    level 0: #0 6-6 at (0,0)-(1,0), #1 6-1 at (2,0)-(3,0) (in line), #2 2-3 at (0,1)-(1,1)
    (beside #0); level 1: #3 1-4 at (3,0)-(4,0) on #1.
    """
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    g.add(GridPose(2, 0, 0, 0), (6, 1), 0)
    g.add(GridPose(0, 1, 0, 0), (2, 3), 0)
    g.add(GridPose(3, 0, 1, 0), (1, 4), 1)
    assert g.contacts(GridPose(-2, 0, 0, 0)) == [0]  # (-2,0)-(-1,0): end to end with #0
    assert g.contacts(GridPose(-2, 1, 0, 0)) == [2]  # in line with #2 at y = 1
    assert g.contacts(GridPose(-1, 0, 0, 2)) == []  # (-1,0)-(-1,1) along y: its side against #0's and #2's ends
    assert g.contacts(GridPose(1, 0, 1, 0)) == [0, 1, 3]  # (1,0,1)-(2,0,1): on #0 and #1, end to end with #3
    assert g.contacts(GridPose(-1, 0, 1, 0)) == [0]  # (-1,0,1)-(0,0,1): on #0, overhanging
    assert g.contacts(GridPose(0, 0, 1, 2)) == [0, 2]  # (0,0,1)-(0,1,1): rests on #0 and #2
    assert g.contacts(GridPose(4, 0, 0, 2)) == [3]  # (4,0,0)-(4,1,0): under #3; beside #1's end, not in line
    assert g.contacts(GridPose(4, 0, 0, 0)) == [1, 3]  # (4,0,0)-(5,0,0): under #3 and end to end with #1
    assert g.contacts(GridPose(5, 0, 1, 0)) == [3]  # (5,0,1)-(6,0,1): end to end with #3 at level 1
    # degrees: #0 has children #1 and #2, #1 has parent #0 and child #3: both middle tiles
    assert g.extremities() == [2, 3] and g.degree == [2, 2, 1, 1]
    assert g.only_extremities(GridPose(5, 0, 1, 0)) and not g.only_extremities(GridPose(4, 0, 0, 0))
    assert not g.only_extremities(GridPose(0, 0, 1, 2))


def test_a_sideways_slide_is_refused_when_a_table_tile_lies_on_either_half_s_path():
    # Tile 0 at level 0 under tile 1 at level 1, which overhangs at (2, 0); the new tile's
    # matching half goes under it at (2, 0), its other half at (3, 0). From +x the 1-1 at
    # (4, 0) blocks the path; sideways from -y (moving +y) a table tile at (2, -1) blocks the
    # matching half's path: the slide comes from +y (moving -y), the only clear side.
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (3, 4))
    g.add(GridPose(1, 0, 1, 0), (4, 5), parent=0)
    g.add(GridPose(4, 0, 0, 0), (1, 1))
    g.add(GridPose(1, -1, 0, 0), (2, 2))  # squares (1, -1) and (2, -1)
    assert g.slide_direction((2, 0), (3, 0)) == 3


def test_a_slide_path_is_checked_for_the_half_still_inside_the_bounds():
    # The matching half lies just outside the construction (x = -1; the construction spans
    # x 0..2, y -1..1), the other half at (0, 0) inside. From the far end (moving -x) the path
    # of the other half meets the tile at (1, 0); sideways, the matching half's path stays
    # outside the bounds while the other half's meets the table tiles at (0, -1) and (0, 1):
    # both refused although one half is out of the bounds from the first square. Only from
    # the matching half's end (moving +x) is the path clear.
    g = Grid()
    g.add(GridPose(1, 0, 0, 0), (1, 1))   # (1, 0), (2, 0)
    g.add(GridPose(0, -1, 0, 0), (2, 2))  # (0, -1), (1, -1)
    g.add(GridPose(0, 1, 0, 0), (3, 3))   # (0, 1), (1, 1)
    assert g.bounds() == (0, 2, -1, 1)
    assert g.slide_direction((-1, 0), (0, 0)) == 0


def _legal_tower_poses(grid, hand, parallel):
    from types import SimpleNamespace

    from magdomino.games.tower.rules import legal_on_grid

    game = SimpleNamespace(extremities_only=False, _cache={}, parallel_now=lambda n: parallel)
    return {(a.x, a.y, a.level, a.d) for a in legal_on_grid(SimpleNamespace(game=game, grid=grid), hand, "tower")}


@pytest.mark.parametrize("parallel", [True, False])
def test_the_rules_offer_every_tower_pose_the_grid_finds_once(parallel):
    # Two supports side by side at level 0 (6-6 and 6-3, touching end to end): a 6-6 in
    # hand fits over either 6 half, parallel or across; poses met twice (a double matches
    # both ways, and from both supports where they meet) are offered once, and none is lost.
    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (6, 6))
    g.add(GridPose(2, 0, 0, 0), (6, 3), parent=0)
    expected = {c[:4] for p in (0, 1) for c in g.tower_placements(6, 6, p, parallel)}
    assert len(expected) > 2
    assert _legal_tower_poses(g, [(6, 6)], parallel) == expected


@pytest.mark.parametrize("span, shown", [(40, True), (41, False)])
def test_the_top_view_is_drawn_up_to_40_squares_across(span, shown):
    # Two table tiles whose far squares are `span` squares apart (x 0 and x span): drawn when
    # the span is at most the limit of 40, replaced by one line beyond it.
    from types import SimpleNamespace

    from magdomino.games.tower.state import State

    g = Grid()
    g.add(GridPose(0, 0, 0, 0), (1, 2))
    g.add(GridPose(span - 1, 0, 0, 0), (3, 4))
    rows = State._top_view(SimpleNamespace(construction_grid=lambda: g))
    if shown:
        assert rows[0] == "top view (pips@level):" and len(rows) == 2 and len(rows[1]) == 4 * (span + 1)
    else:
        assert rows == [f"(top view omitted: {span + 1} x 1 squares)"]
