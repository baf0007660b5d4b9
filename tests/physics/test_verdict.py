"""Every field of a verdict, for each outcome class (DESIGN.md, "collapse means a fall").

Each case is small (one to three plain tiles, no magnets) and built so that the physics says
what the verdict must be before it runs:

- a tile left at rest on the table stands, and is called settled after two settle windows
  (the net motion of a window compared with the one before it);
- a tile pushed 15 mm along the table, without tilting, has shifted (5 mm is the threshold):
  not a fall; with ``count_shifts`` it is one, named "shift";
- a staircase whose centre of mass passes its supporting edge tips ("tilt");
- a tile whose support is gone falls straight down: it drops 5 mm ("drop") before it can
  touch the table; from 3 mm up it touches the table ("table contact") before it has dropped
  5 mm; a placed tile released over nothing drops off its rest pose ("placed tile fell");
- a time limit shorter than two settle windows leaves a still tile not yet settled;
- a NaN in a pose, or a tile that jumps 0.4 m in one 5 ms check (80 m/s), is a blow-up: an error, never a fall.

A fall, or an error, is never reported as a shift unless a tile had shifted before it: a
falling tile moves more than 5 mm by the time it has dropped 5 mm or tipped past the
threshold, and that motion is the fall's, not a push.
"""

import math

import numpy as np
import pytest

from magdomino.model.presets import load_preset
from magdomino.physics import settle as settle_module
from magdomino.physics.motion import Drop, place
from magdomino.physics.settle import settle
from magdomino.physics.world import World
from tests.physics.test_falls import _pushed_along_the_table  # the same push, one helper

L, W, H = 0.048, 0.024, 0.008
PLAIN = load_preset("plain")
HOLD = PLAIN.collapse.settle_hold  # s


def fields(verdict):
    return {k: getattr(verdict, k) for k in ("collapsed", "reason", "settled", "shifted", "shifted_tile", "culprit", "error", "stands")}


def expected(**changes):
    base = dict(collapsed=False, reason="stood", settled=True, shifted=False, shifted_tile=None, culprit=None, error=None)
    base.update(changes)
    base["stands"] = not base["collapsed"] and base["error"] is None  # nothing fell, nothing failed
    return base


def test_a_tile_at_rest_stands_after_two_settle_windows():
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.step(20)
        verdict = settle(world, [0])
    assert fields(verdict) == expected()
    # Settled is judged on two windows of settle_hold_s (the last one against the one before):
    # a tile still from the start is called settled exactly then, one check interval at most later.
    assert 2 * HOLD - 1e-9 <= verdict.sim_time_s <= 2 * HOLD + 0.005 + 1e-9


def test_a_tile_dropped_flat_on_another_stands():
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.step(20)
        placed, verdict = place(world, (6, 1), (0.0, 0.0, 1.5 * H), 0.0, Drop(0.001))
    assert placed == 1
    assert fields(verdict) == expected()
    assert verdict.max_shift_mm < 0.5 and verdict.max_tilt_deg < 0.5


def test_a_tile_pushed_15_mm_flat_has_shifted_and_stands():
    verdict = _pushed_along_the_table(PLAIN)
    assert fields(verdict) == expected(reason="shifted", shifted=True, shifted_tile=0)
    assert verdict.max_shift_mm == pytest.approx(15.0, abs=2.0) and verdict.max_tilt_deg < 1.0


def test_a_push_counted_as_a_collapse_is_a_shift_fall_at_once():
    verdict = _pushed_along_the_table(PLAIN.with_settings(count_shifts=True))
    # The hand's push is over when the settle starts: the first check sees the 15 mm and
    # stops there, not settled; the pushed tile is the culprit.
    assert fields(verdict) == expected(collapsed=True, reason="shift", settled=False, shifted=True, shifted_tile=0, culprit=0)
    assert verdict.max_shift_mm == pytest.approx(15.0, abs=2.0) and verdict.sim_time_s < 0.0051


def test_the_shifted_tile_is_the_one_that_ended_farthest():
    # Tile 0 lies 6 mm from where the reference says it was (seen shifted at the first check);
    # tile 1 is sent sliding along the table at 0.35 m/s: friction (mu = 0.5) stops it after
    # v^2 / (2 mu g) = 12.5 mm. The tile reported is the one farthest at the end: tile 1.
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.add_tile((5, 5), (0.0, 0.1, H / 2))
        world.step(20)
        ref_p, ref_q = world.poses()
        ref_p = ref_p.copy()
        ref_p[0, 0] -= 0.006
        world.client.resetBaseVelocity(world.tiles[1].body, [0.35, 0.0, 0.0], [0.0, 0.0, 0.0])
        verdict = settle(world, [0, 1], (ref_p, ref_q))
    assert fields(verdict) == expected(reason="shifted", shifted=True, shifted_tile=1)
    assert verdict.max_shift_mm == pytest.approx(0.35**2 / (2 * 0.5 * 9.81) * 1000, rel=0.25)


def test_a_staircase_that_tips_is_a_tilt_and_no_shift():
    # Tile 1 overhangs tile 0 (fixed) by 20 mm, its centre of mass 4 mm inside the edge; a tile
    # dropped on tile 1's outer half puts their common centre of mass at (20 + 44) / 2 = 32 mm,
    # 8 mm past the edge at 24 mm: the pair tips about that edge; tile 1 (the watched one)
    # passes 10 degrees first.
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2), fixed=True)
        world.add_tile((6, 5), (0.020, 0.0, 1.5 * H))
        world.step(100)
        _, verdict = place(world, (5, 4), (0.044, 0.0, 2.5 * H), 0.0, Drop(0.001))
    assert fields(verdict) == expected(collapsed=True, reason="tilt", settled=False, culprit=1)
    assert verdict.max_tilt_deg > 10.0


def _unsupported(height, preset=PLAIN):
    """A watched tile ``height`` above the table with nothing under it (its support is gone)."""
    with World(preset, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.add_tile((6, 5), (0.1, 0.0, H / 2 + height))
        return settle(world, [0, 1])


def test_a_tile_whose_support_is_gone_drops_and_has_not_shifted():
    # From 8 mm up it falls straight: 5 mm down (the drop threshold) before it reaches the
    # table; that fall moves it 5 mm, which is not a push.
    verdict = _unsupported(H)
    assert fields(verdict) == expected(collapsed=True, reason="drop", settled=False, culprit=1)
    assert verdict.max_tilt_deg < 1.0
    # Seen within a check (5 ms, at most 2 mm at the speed of a 8 mm fall) of passing 5 mm.
    assert 5.0 < verdict.max_shift_mm < 7.0


def test_a_tile_that_lands_on_the_table_before_dropping_5_mm_is_a_table_contact():
    verdict = _unsupported(0.003)
    assert fields(verdict) == expected(collapsed=True, reason="table contact", settled=False, culprit=1)
    assert verdict.max_shift_mm < 5.0


def test_a_placed_tile_released_over_nothing_fell_and_has_not_shifted():
    # Its rest pose is one tile up, where nothing is: it falls straight down and passes
    # 5 mm below that pose before touching the table (8 mm down).
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.step(20)
        placed, verdict = place(world, (6, 1), (0.1, 0.0, 1.5 * H), 0.0, Drop(0.0))
    assert fields(verdict) == expected(collapsed=True, reason="placed tile fell", settled=False, culprit=placed)
    assert verdict.max_shift_mm < 0.1  # the watched tile did not move


def test_a_time_limit_shorter_than_two_windows_leaves_a_still_tile_unsettled():
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.step(20)
        verdict = settle(world, [0], time_limit_s=1.5 * HOLD)
    assert fields(verdict) == expected(reason="time limit", settled=False)
    assert verdict.sim_time_s == pytest.approx(1.5 * HOLD, abs=0.005 + 1e-9)


def _blow_up(inject, after_checks=2, shift_first=False):
    """Settle two still tiles on the table and call ``inject(world)`` after ``after_checks``
    checks; with ``shift_first`` tile 0 lies 15 mm from its reference (shifted from the start)."""
    with World(PLAIN, magnets=False) as world:
        world.add_tile((6, 6), (0.0, 0.0, H / 2))
        world.add_tile((5, 5), (0.0, 0.1, H / 2))
        world.step(20)
        ref_p, ref_q = world.poses()
        if shift_first:
            ref_p = ref_p.copy()
            ref_p[0, 0] -= 0.015
        step = world.step
        calls = []

        def step_then_inject(n=1):
            step(n)
            calls.append(n)
            if len(calls) == after_checks:
                inject(world)

        world.step = step_then_inject
        return settle(world, [0, 1], (ref_p, ref_q))


def _nan_position(world):
    world.client.resetBasePositionAndOrientation(world.tiles[1].body, [math.nan, 0.1, H / 2], [0, 0, 0, 1])


def _nan_orientation(world):
    world.client.resetBasePositionAndOrientation(world.tiles[1].body, [0.0, 0.1, H / 2], [math.nan, 0, 0, 1])


def _thrown(world):
    world.client.resetBasePositionAndOrientation(world.tiles[1].body, [0.5, 0.1, H / 2], [0, 0, 0, 1])


def _sunk(world):
    # Its centre 1 mm above the table: 3 mm into it (no contact allows below 2 mm, a quarter
    # of the thickness), moved 3 mm in one check (0.6 m/s: not an absurd speed).
    world.client.resetBasePositionAndOrientation(world.tiles[1].body, [0.0, 0.1, 0.001], [0, 0, 0, 1])


@pytest.mark.parametrize("inject", [_nan_position, _nan_orientation, _thrown, _sunk],
                         ids=["nan position", "nan orientation", "80 m per s", "sunk"])
@pytest.mark.parametrize("shift_first", [False, True], ids=["still", "after a shift"])
def test_a_blow_up_is_an_error_never_a_fall_nor_a_shift(inject, shift_first):
    verdict = _blow_up(inject, shift_first=shift_first)
    error = verdict.error
    assert fields(verdict) == expected(reason="error", settled=False, error=error)
    assert error.startswith("numerical blow-up")
    if inject is _thrown:  # 0.4 m in one 5 ms check: 80 m/s
        assert "tile 1 reached" in error and "m/s" in error
    elif inject is _sunk:
        assert error.endswith("tile 1 went into the table")
    else:
        assert "not finite" in error
    assert math.isnan(verdict.max_shift_mm) and verdict.moved_tiles == []
    assert verdict.to_dict()["shifted"] is False and verdict.to_dict()["max_shift_mm"] is None


def _history(shifts_m):
    """Poses of one tile at each check, moving along x by ``shifts_m`` per check."""
    x = np.concatenate([[0.0], np.cumsum(shifts_m)])
    q = np.array([[0.0, 0.0, 0.0, 1.0]])
    return [(np.array([[xi, 0.0, H / 2]]), q) for xi in x]


def test_a_slow_start_that_doubles_each_window_is_not_rest():
    # A centre of mass right over an edge tips as exp(7 t): x 2 per 0.1 s window. Both windows'
    # net motions (0.05 mm, then 0.1 mm) are under the speed bound (2 mm/s over 0.1 s: 0.2 mm),
    # but the motion doubled: not rest. The same motion, steady, is rest.
    window = 20
    growing = _history([0.05e-3 / window] * window + [0.1e-3 / window] * window)
    steady = _history([0.05e-3 / window] * (2 * window))
    bound = PLAIN.collapse.settle_speed * HOLD
    assert not settle_module._at_rest(growing, window, bound, 1.0)
    assert settle_module._at_rest(steady, window, bound, 1.0)
    # Growing by x 1.4 is within the allowed growth (x 1.5): rest.
    assert settle_module._at_rest(_history([0.05e-3 / window] * window + [0.07e-3 / window] * window), window, bound, 1.0)
