"""The hybrid engine's PyBullet trials: a rest the statics certifies, a slide's bare approach
not stepped. Reference: the dynamics' own trial, trial by trial (the same random numbers), on
positions of seeded games of the default toy (``validation/toy_positions.py``: Défi seed 9100,
En quinconce seeds 9200 and 9201, rebuilt as scenarios)."""

from functools import partial

import numpy as np
import pytest

from magdomino.model.presets import load_preset
from magdomino.physics.settle import settle
from magdomino.physics.world import SlideShortcuts, World
from magdomino.studies.engines import get_engine
from magdomino.studies.hybrid_engine import SLIDE_APPROACH_GAP_M, SLIDE_SHORTCUTS, rest_check_for
from magdomino.studies.scenario import scenario_from_dict
from magdomino.studies.trials import Job, resolve_noise, run_trial

DROPS = {
    "stands, half of it decided by the statics": (["5-5 at (12, 0) mm", "1-5 on #0 (5-5) half 0", "3-5 on #1 (1-5) half 1"],
                                                  "1-1 on #1 (1-5) half 0"),
    "always falls": (["5-5 at (12, 0) mm", "1-5 on #0 (5-5) half 0"], "1-4 on #1 (1-5) half 0"),
    "stands across": (["5-5 at (12, 0) mm", "0-5 on #0 (5-5) half 1"], "1-5 on #1 (0-5) half 1, across right"),
}
SLIDES = {
    "beneath a two-tile tower": (["6-6 at (12, 0) mm", "2-6 on #0 (6-6) half 1"], "1-2 beneath #1 (2-6) half 0"),
    "beneath, across, a tile beside": (["6-6 at (12, 0) mm", "2-6 after #0 (6-6) half 1", "1-2 on #1 (2-6) half 0",
                                        "4-6 on #0 (6-6) half 1, across left"], "0-1 beneath #2 (1-2) half 0, across left"),
}
VERDICT = ("collapsed", "shifted", "error", "reason", "culprit")


def _job(structure, what_if):
    sc = scenario_from_dict({"name": "position", "preset": "toy", "structure": structure, "what_if": [what_if]})
    return Job(sc, get_engine("dynamics").starting_structure(sc), resolve_noise(sc), 7, (0.0, 0.0), None, get_engine("dynamics"))


@pytest.mark.parametrize("name", sorted(DROPS))
def test_a_rest_the_statics_certifies_gives_the_dynamics_verdict_sooner(name):
    job = _job(*DROPS[name])
    sooner = 0
    for i in range(8):
        full = run_trial(job, 0, i)
        short = run_trial(job, 0, i, partial(rest_check_for, job.scenario))
        assert {k: short[k] for k in VERDICT} == {k: full[k] for k in VERDICT}, i
        assert short["sim_time_s"] <= full["sim_time_s"] + 1e-9
        sooner += short["sim_time_s"] < full["sim_time_s"] - 1e-9
    if name != "always falls":  # a fall ends the settle at once either way
        assert sooner >= 4, sooner


@pytest.mark.parametrize("name", sorted(SLIDES))
def test_a_slide_without_its_bare_approach_gives_the_dynamics_verdict(name):
    job = _job(*SLIDES[name])
    for i in range(4):
        full = run_trial(job, 0, i)
        short = run_trial(job, 0, i, partial(rest_check_for, job.scenario), SLIDE_SHORTCUTS)
        assert {k: short[k] for k in VERDICT} == {k: full[k] for k in VERDICT}, i


def test_the_approach_skipped_ends_where_the_whole_slide_ends_in_fewer_steps():
    preset = load_preset("toy")
    ends, steps = [], []
    for gap in (None, SLIDE_APPROACH_GAP_M):
        world = World(preset)
        try:
            world.add_tile((6, 6), (0.0, 0.0, 0.004))
            world.step(100)
            before = world.steps
            index = world.slide((1, 2), (0.05, 0.0, 0.004), start_offset=(0.06, 0.0), shortcuts=SlideShortcuts(approach_gap=gap))
            steps.append(world.steps - before)
            ends.append(world.poses()[0][index])
        finally:
            world.close()
    assert steps[1] < 0.5 * steps[0]  # 60 mm of path, the last 8 mm near the other tile
    assert np.linalg.norm(ends[1] - ends[0]) < 1e-4


def test_a_rest_check_that_never_certifies_changes_nothing():
    preset = load_preset("toy")
    verdicts = []
    for check in (None, lambda p, q: False):
        world = World(preset)
        try:
            a = world.add_tile((6, 6), (0.0, 0.0, 0.004))
            world.step(100)
            world.drop((6, 1), (0.012, 0.0, 0.012), drop_height=0.001)
            verdicts.append(settle(world, [a], placed=1, placed_rest=(np.array([0.012, 0.0, 0.012]), np.array([0.0, 0.0, 0.0, 1.0])),
                                   rest_check=check).to_dict())
        finally:
            world.close()
    for v in verdicts:
        v.pop("wall_time_s")
    assert verdicts[0] == verdicts[1]


def test_what_stands_tilted_both_ways_stands_level():
    """The rest certificate asks only the four tilts (REST_TESTS): the loads a structure carries
    make a convex set, and the level load is the mean of the loads tilted towards +x and -x.
    Checked on the statics itself, for noisy placements of the drops above: whatever stands
    under both tilts stands level, and some stand level but not tilted (the tilts are not
    looser than the level test)."""
    from magdomino.studies.hybrid_engine import REST_TILT_DEG, rest_batch, sideways_load
    from magdomino.studies.statics_engine import fixed_tiles, with_placement

    both = level_only = 0
    rng = np.random.default_rng(3)
    for structure, what_if in DROPS.values():
        job = _job(structure, what_if)
        sc = job.scenario
        for _ in range(12):
            miss = (*rng.normal(0.0, 2.5, 2), rng.normal(0.0, 4.0))
            P, Q = with_placement(sc, job.settled, 0, miss)
            batch = rest_batch(sc, sc.preset, fixed_tiles(sc, placed=True), P, Q)
            if batch is None:
                continue
            level = bool(batch.stands(magnets=sc.magnets)[0])
            tilted = [bool(batch.stands(magnets=sc.magnets, lateral=sideways_load((REST_TILT_DEG, d)))[0]) for d in (0.0, 180.0)]
            if all(tilted):
                both += 1
                assert level, miss
            level_only += level and not all(tilted)
    assert both >= 5 and level_only >= 1, (both, level_only)
