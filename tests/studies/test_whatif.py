"""`magdomino whatif`: every legal placement of one tile, ranked by its odds of collapse.

Legality is checked independently of magdomino.games.tower.grid.Grid: the structures' grid layouts
are written out by hand below, and every candidate is held against the rules (RULES.md):
superposed squares match, a covered square is not covered again, flat tiles lie on the
table end to end or beneath an overhang with the same pips. The physics is kept small:
scenarios/whatif_step.toml, rule defi, two candidates, a few trials in this process.
"""

import json
import math
from functools import partial

import numpy as np
import pytest
from conftest import ROOT

from magdomino.errors import InputError
from magdomino.games.tower.candidates import enumerate_placements, structure_grid
from magdomino.maths.geometry import DIRS, physical_pose
from magdomino.studies import whatif
from magdomino.studies.scenario import load_scenario
from magdomino.studies.simulation import settle_structure
from magdomino.studies.whatif import whatif_document

rank_placements = partial(whatif.rank_placements, candidates=enumerate_placements)  # as magdomino whatif wires it

SC = ROOT / "scenarios"

# Hand-written layouts: (x, y, level, d) of each structure tile, pips as shown, in the
# frame of structure tile 0 (its half 0 is square (0, 0), its axis +x).
LAYOUTS = {
    "demo": [(0, 0, 0, 0), (1, 0, 1, 0), (1, 0, 2, 1), (1, 0, 3, 0)],
    "staircase_edge": [(0, 0, 0, 0), (1, 0, 1, 0)],
    "whatif_step": [(0, 0, 0, 0), (1, 0, 1, 0), (4, 0, 0, 0), (6, 0, 0, 0)],
}


def _cells(scenario, layout):
    cells = {}
    for (x, y, lev, d), pl in zip(layout, scenario.structure):
        dx, dy = DIRS[d]
        cells[(x, y, lev)] = pl.pips[0]
        cells[(x + dx, y + dy, lev)] = pl.pips[1]
    return cells


def _squares(c):
    x, y, lev, d = c.grid.to_list()
    dx, dy = DIRS[d]
    return [((x, y, lev), c.tile[0]), ((x + dx, y + dy, lev), c.tile[1])]


def _assert_legal(c, cells):
    sq = _squares(c)
    for (x, y, lev), _ in sq:
        assert (x, y, lev) not in cells, f"{c.describe()}: square {x, y, lev} taken"
        if c.motion == "drop":  # put down from above: nothing may lie over it
            assert not any((x, y, k) in cells for k in range(lev + 1, 40)), f"{c.describe()}: square {x, y, lev} covered"
    if c.kind == "on top":
        below = [(cells[(x, y, lev - 1)], p) for (x, y, lev), p in sq if (x, y, lev - 1) in cells]
        assert below, f"{c.describe()}: rests on nothing"
        assert all(a == b for a, b in below), f"{c.describe()}: superposed squares do not match: {below}"
    elif c.kind == "end to end":
        assert c.grid.level == 0
        touching = [
            (cells[(x + dx, y + dy, 0)], p) for (x, y, _), p in sq for dx, dy in DIRS if (x + dx, y + dy, 0) in cells
        ]
        assert any(a == b for a, b in touching), f"{c.describe()}: no matching half alongside"
        assert not any((x, y, 1) in cells for (x, y, _), _p in sq)
    else:
        assert c.kind == "beneath" and c.grid.level == 0 and c.motion == "slide"
        over = [(cells[(x, y, 1)], p) for (x, y, _), p in sq if (x, y, 1) in cells]
        assert over and all(a == b for a, b in over), f"{c.describe()}: not beneath a matching half: {over}"


@pytest.fixture(scope="module")
def settled():
    out = {}
    for name in LAYOUTS:
        sc = load_scenario(SC / f"{name}.toml")
        verdict, poses = settle_structure(sc)
        assert not verdict.collapsed
        out[name] = (sc, poses)
    return out


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_structure_maps_onto_the_hand_written_grid(settled, name):
    sc, poses = settled[name]
    grid, frame = structure_grid(sc, poses)
    assert [p.to_list() for p in grid.poses] == [list(p) for p in LAYOUTS[name]]
    assert grid.pips == [pl.pips for pl in sc.structure]


@pytest.mark.parametrize(
    "name, tile, perpendicular, expected",
    [
        # demo: end to end against 6-6's free half, on top of 6-5's six (outward; across both ways).
        ("demo", (6, 2), True, {(-2, 0, 0, 0), (0, 0, 4, 0), (1, -1, 4, 2), (1, 1, 4, 3)}),
        ("demo", (6, 2), False, {(-2, 0, 0, 0), (0, 0, 4, 0)}),
        # staircase: three slides beneath the overhanging 2 and the step outward on top of it.
        ("staircase_edge", (2, 3), False, {(2, 0, 0, 0), (2, 0, 0, 2), (2, 0, 0, 3), (2, 0, 2, 0)}),
        ("whatif_step", (2, 4), False, {(5, 0, 1, 0), (2, 0, 2, 0), (2, 0, 0, 0), (2, 0, 0, 2), (2, 0, 0, 3)}),
    ],
)
def test_every_candidate_is_legal_and_none_is_missing(settled, name, tile, perpendicular, expected):
    sc, poses = settled[name]
    cands = enumerate_placements(sc, tile, poses, parallel_only=not perpendicular)
    assert {tuple(c.grid.to_list()) for c in cands} == expected
    cells = _cells(sc, LAYOUTS[name])
    _, frame = structure_grid(sc, poses)
    size = np.asarray(sc.preset.tile.size)
    for c in cands:
        _assert_legal(c, cells)
        # the physical pose is the grid pose, where the parent really settled (within a mm)
        centre, yaw = physical_pose(c.grid, size)
        world = frame.to_world(centre) * 1000
        assert np.allclose(c.pos_mm[:2], world, atol=1.0), (c.describe(), c.pos_mm, world)
        assert abs(c.pos_mm[2] - (c.grid.level + 0.5) * size[2] * 1000) < 1.0
        turn = math.radians(c.placement.yaw_deg) - (yaw + frame.yaw)
        assert abs(math.remainder(turn, 2 * math.pi)) < math.radians(2)
        assert (c.placement.slide_mm is not None) == (c.motion == "slide")


def test_rules_defi_and_quinconce(settled):
    sc, poses = settled["whatif_step"]
    defi = enumerate_placements(sc, (2, 4), poses, rule="defi")
    assert {c.kind for c in defi} == {"on top"}
    quin = enumerate_placements(sc, (2, 4), poses, rule="quinconce")
    # extremities: 1-1 carries 1-2 (a leaf), 3-2 and 4-6 stand alone: every tile has <= 1 neighbour
    assert {tuple(c.grid.to_list()) for c in quin} == {tuple(c.grid.to_list()) for c in enumerate_placements(sc, (2, 4), poses)}
    assert {c.mode for c in quin} == {"tower", "flat"}


def test_statically_safe_placement_ranks_before_the_one_that_falls():
    sc = load_scenario(SC / "whatif_step.toml")
    ranked = rank_placements(sc, (2, 4), 3, seed=5, rule="defi", executor="serial", parallel_only=True)
    assert len(ranked) == 2
    p = [r.p_collapse for r in ranked]
    assert p == sorted(p)
    safe, falls = ranked
    assert safe.candidate.grid.to_list() == [5, 0, 1, 0] and safe.candidate.supports == (2, 3)  # the bridge
    assert falls.candidate.grid.to_list() == [2, 0, 2, 0]  # a second step outward: 12 mm beyond the edge
    assert safe.p_collapse < falls.p_collapse
    assert safe.p_collapse == 0.0 and falls.p_collapse == 1.0
    doc = json.loads(json.dumps(whatif_document(sc, (2, 4), ranked, seed=5, rule="defi", parallel_only=True)))
    assert {"version", "seed", "preset", "tile_size_mm", "candidates"} <= set(doc)
    assert doc["seed"] == 5 and doc["tile_size_mm"] == [48.0, 24.0, 8.0]
    first = doc["candidates"][0]
    assert {"placement", "p_collapse", "ci95", "trials"} <= set(first) and first["trials"] == 3
    pl = first["placement"]
    assert pl["mode"] == "tower" and pl["kind"] == "on top" and pl["parent"] == 2 and pl["parent_half"] == 1
    assert pl["pos_mm"] == pytest.approx([120.0, 0.0, 12.0], abs=0.5) and pl["yaw_deg"] == pytest.approx(0, abs=1)


class _Candidate:
    """The least a ranking reads of a candidate: its enumeration order and its text (here in
    the same order, so that equal candidates come in the order of ``index``)."""

    def __init__(self, index):
        self.index = index

    def describe(self):
        return f"0-1 at ({self.index:03d}, 0) mm"


def _ranked(index, collapses, counted, shifts, median, undecided=0):
    from magdomino.studies.odds import WhatIfOdds

    odds = WhatIfOdds(index, "", counted + undecided, collapses, 0, undecided, counted_shifts=shifts, median_shift_mm=median)
    return whatif.RankedPlacement(_Candidate(index), odds)


def test_among_equal_odds_of_collapse_fewer_shifts_rank_first():
    """The key: p(collapse); among exactly equal p, the shift share, then the median shift
    (to 0.1 mm); then the interval's upper end and the placement's order. A shift never outranks a
    difference in p, and a share not known (the statics) comes after the known ones."""
    candidates = [
        _ranked(0, 0, 10, 4, 6.0),  # p 0, shifted 40 %, median 6 mm
        _ranked(1, 0, 10, 0, 0.5),  # p 0, never shifted: first
        _ranked(2, 0, 10, 4, 3.0),  # p 0, shifted 40 % as #0, but a smaller median shift
        _ranked(3, 1, 10, 0, 0.2),  # p 0.1 without shifts: after every p 0, however much they shift
        _ranked(4, 0, 10, None, None),  # p 0, shifts unknown: after the p 0 that are known
        _ranked(5, 2, 20, 9, 22.0),  # p 2/20, the same float as 1/10: equal odds, more shifts than #3
        _ranked(6, 0, 5, 0, 0.5, undecided=5),  # as #1 but fewer trials counted: a wider interval, after #1
    ]
    order = [r.candidate.index for r in sorted(candidates, key=whatif._rank_key)]
    assert order == [1, 6, 2, 0, 4, 3, 5]
    assert 2 / 20 == 1 / 10  # "equal" is exact: the same share of collapses is the same float
    # without shifts the key is what it was: p, then the upper end, then the order
    plain = [_ranked(0, 1, 10, 0, 1.0), _ranked(1, 0, 10, 0, 1.0), _ranked(2, 0, 5, 0, 1.0, undecided=5)]
    assert [r.candidate.index for r in sorted(plain, key=whatif._rank_key)] == [1, 2, 0]
    # medians compared as shown, to 0.1 mm: micrometres of creep do not reorder; 0.06 mm shows as 0.1 and does
    creep = [_ranked(0, 0, 10, 0, 0.0004), _ranked(1, 0, 10, 0, 0.0001), _ranked(2, 0, 10, 0, 0.04), _ranked(3, 0, 10, 0, 0.06)]
    assert whatif.MEDIAN_SHIFT_DECIMALS == 1
    assert [r.candidate.index for r in sorted(creep[::-1], key=whatif._rank_key)] == [0, 1, 2, 3]


def test_equal_placements_come_in_the_placement_languages_order_whatever_their_listing():
    """Ties (the same odds, shifts and interval) are ordered by the placement as written: on
    top before beneath before end to end, the lower tile's number, half 0 before half 1, then
    outward, back, across left, across right; the order the candidates were listed in does
    not matter, so ``best`` is the same from any enumeration."""
    import random

    from magdomino.studies.aiming import structure_poses
    from magdomino.studies.odds import WhatIfOdds
    from magdomino.studies.scenario import scenario_from_dict

    sc = scenario_from_dict({"preset": "standard", "structure": ["6-6 at (0, 0) mm", "6-3 on #0 half 1", "3-3 on #1 half 1, back"]})
    poses = structure_poses(sc, np.asarray(sc.preset.tile.size, float))
    settled = (np.array([p for p, _ in poses]), np.array([q for _, q in poses]))
    found = enumerate_placements(sc, (3, 1), settled, rule="any")
    assert len(found) > 4
    tied = [whatif.RankedPlacement(c, WhatIfOdds(0, "", 10, 0, 0, 0, counted_shifts=0, median_shift_mm=None)) for c in found]
    orders = []
    for seed in range(3):
        listing = tied[:]
        random.Random(seed).shuffle(listing)
        orders.append([r.candidate.describe() for r in sorted(listing, key=whatif._rank_key)])
    assert orders[0] == orders[1] == orders[2]
    expected = sorted(orders[0], key=lambda text: (
        0 if " on #" in text else 1 if " beneath #" in text else 2,
        int(text.split("#")[1].split()[0]), int(text.split(" half ")[1][0]),
        next((k for k, d in enumerate(("back", "across left", "across right"), 1) if f", {d}" in text), 0)))
    assert orders[0] == expected, orders[0]


def test_a_placement_that_pushes_the_structure_ranks_after_one_that_does_not(tmp_path):
    """slide_beneath.toml, tile 4-2 slid beneath the overhang: lengthwise it stands and drags
    the overhang about 3 mm (under max_shift_mm, 5); across it pushes the overhanging 1-4
    some 15-20 mm along 1-1 in every trial (a push that a last-digit change in the
    floating-point sums can turn into a tilt past the limit: p = 0 or 1/3 across library
    versions). The push ranks second, though enumerated first. The shares and medians are
    those of the trial records."""
    import statistics

    from magdomino.studies.odds import wilson_interval

    sc = load_scenario(SC / "slide_beneath.toml")
    _, poses = settle_structure(sc)
    beneath = [c for c in enumerate_placements(sc, (4, 2), poses) if c.kind == "beneath"]
    across = next(c for c in beneath if c.direction == "across, left")
    lengthwise = next(c for c in beneath if c.direction == "outward")
    assert across.index < lengthwise.index
    ranked = rank_placements(sc, (4, 2), 3, candidates=[across, lengthwise], executor="serial", settled=poses, out_dir=tmp_path)
    assert [r.candidate for r in ranked] == [lengthwise, across]
    assert ranked[0].p_collapse == 0.0 and ranked[1].p_collapse <= 1 / 3
    assert ranked[1].shift_share == 1.0  # every trial across moved the structure
    lines = (tmp_path / "odds.jsonl").read_text().splitlines()[1:]
    records = [json.loads(line) for line in lines]
    for what_if, r in enumerate([ranked[1], ranked[0]]):  # the what-ifs in the order given: across, lengthwise
        mine = [x for x in records if x["what_if"] == what_if]
        assert len(mine) == 3 and not any(x["error"] or x["reason"] == "time limit" for x in mine)
        shifted = sum(x["shifted"] for x in mine)
        assert r.shift_share == shifted / 3 and r.shift_ci95 == wilson_interval(shifted, 3)
        assert r.median_shift_mm == pytest.approx(statistics.median(x["max_shift_mm"] for x in mine), abs=1e-6)
    first, second = ranked
    assert first.shift_share == 0.0 and 0 < first.median_shift_mm < 5
    assert second.shift_share == 1.0 and second.median_shift_mm > 10
    doc = json.loads(json.dumps(whatif_document(sc, (4, 2), ranked)))
    for c, r in zip(doc["candidates"], ranked):
        assert c["shift_share"] == r.shift_share and c["shift_ci95"] == list(r.shift_ci95)
        assert c["median_shift_mm"] == r.median_shift_mm
        assert c["reasons"] == r.odds.reasons  # the old keys as they were
    reasons = doc["candidates"][1]["reasons"]
    assert reasons.get("shifted", 0) >= 2 and sum(reasons.values()) == 3 and set(reasons) <= {"shifted", "tilt"}


def test_bad_input_from_python():
    sc = load_scenario(SC / "whatif_step.toml")
    with pytest.raises(InputError, match="already in the structure"):
        rank_placements(sc, (1, 2), 1, executor="serial")
    with pytest.raises(InputError, match="double-six"):
        rank_placements(sc, (2, 7), 1, executor="serial")
    with pytest.raises(InputError, match="no legal placement of 0-5"):
        rank_placements(sc, (0, 5), 1, executor="serial")
    with pytest.raises(InputError, match="rule"):
        rank_placements(sc, (2, 4), 1, executor="serial", rule="traditional")


def _one_tile(preset="plain", base=None):
    from magdomino.studies.scenario import scenario_from_dict

    return scenario_from_dict(
        {"preset": preset, "magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}]}, source="one.toml", base=base
    )


def test_the_structure_is_settled_once_and_the_same_poses_reach_the_trials(monkeypatch):
    import magdomino.studies.engines
    import magdomino.studies.whatif

    sc = _one_tile()
    settles, given = [], []
    real_settle, real_estimate = magdomino.studies.engines.settle_structure, magdomino.studies.whatif.estimate_odds

    def counted_settle(*a, **k):
        settles.append(1)
        return real_settle(*a, **k)

    def spy_estimate(*a, **k):
        given.append(k.get("settled"))
        return real_estimate(*a, **k)

    monkeypatch.setattr(magdomino.studies.engines, "settle_structure", counted_settle)  # the one settle: estimate_odds not again
    monkeypatch.setattr(magdomino.studies.whatif, "estimate_odds", spy_estimate)
    ranked = rank_placements(sc, (1, 2), 1, rule="defi", executor="serial")
    assert settles == [1] and ranked and given[-1] is not None
    # poses given by the caller: not settled again, and both the candidates and the trials use them
    _, poses = real_settle(sc)
    shifted = (poses[0] + [0.002, 0.0, 0.0], poses[1])
    again = rank_placements(sc, (1, 2), 1, rule="defi", executor="serial", settled=shifted)
    assert settles == [1] and given[-1] is shifted
    xs = sorted(r.candidate.pos_mm[0] for r in ranked)
    assert sorted(r.candidate.pos_mm[0] for r in again) == pytest.approx([x + 2.0 for x in xs], abs=0.05)


def test_a_structure_that_does_not_settle_is_refused(tmp_path):
    (tmp_path / "short.toml").write_text(
        'name = "short"\n[tile]\nsize_mm = [48, 24, 8]\nmass_g = 10\n[collapse]\ntime_limit_s = 0.03\nsettle_hold_s = 0.01\n'
    )
    with pytest.raises(InputError, match="one.toml: structure: expected a structure that settles before the what-ifs; it did not"):
        rank_placements(_one_tile("short.toml", tmp_path), (1, 2), 1, executor="serial")


