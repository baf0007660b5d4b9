"""The hybrid engine: the statics where it is sure, the dynamics' own trial elsewhere.

References: the dynamics itself (trial by trial, the same random numbers), the closed form of
a staircase's balance under a heavier top tile, and the engine seam's contract (every trial
counted once, by one engine, and said so).
"""

from pathlib import Path

import numpy as np
import pytest

from magdomino.model.presets import load_preset
from magdomino.physics.statics_screen import AT_REST, GRIP, TIPS, TIPS_BARE
from magdomino.studies.engines import engine_names, get_engine
from magdomino.studies.hybrid_engine import (
    HANG_TIPS,
    LOW_DROP,
    LOW_DROP_MM,
    ROBUST,
    SHORT_DROP,
    SHORT_DROP_MM,
    SNAP_REACH_MM,
    TILT_DEG,
    TILTS,
    decide,
    screen_trials,
    snap_poses,
)
from magdomino.studies.odds import estimate_odds
from magdomino.studies.scenario import load_scenario
from magdomino.studies.statics_engine import batch_stands
from magdomino.studies.trials import Job, resolve_noise, run_trial
from magdomino.studies.validation import case_scenario, load_cases

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"


def _job(sc, seed=1):
    dynamics = get_engine("dynamics")
    return Job(sc, dynamics.starting_structure(sc), resolve_noise(sc), seed, (0.0, 0.0), None, get_engine("hybrid"))


def test_hybrid_is_a_registered_engine():
    assert "hybrid" in engine_names()
    assert get_engine("hybrid").name == "hybrid"


def test_a_trial_sent_to_pybullet_has_the_dynamics_verdict_and_every_trial_draws_the_same_hand():
    sc = load_scenario(SCENARIOS / "demo.toml")
    job = _job(sc)
    trials = list(range(12))
    hybrid = get_engine("hybrid").run_trials(job, 0, trials)
    assert [r["trial"] for r in hybrid] == trials
    parts = {r["judged_by"] for r in hybrid}
    assert parts == {"statics", "dynamics"}, parts  # this what-if needs both (a magnet-held tile)
    for r in hybrid:
        dynamic = run_trial(job, 0, r["trial"])
        assert ({k: r[k] for k in ("dx_mm", "dy_mm", "dyaw_deg", "drop_mm")}
                == {k: dynamic[k] for k in ("dx_mm", "dy_mm", "dyaw_deg", "drop_mm")})
        if r["judged_by"] == "dynamics":  # the same verdict; it may stop sooner (a rest the statics certifies)
            verdict = ("collapsed", "shifted", "error", "reason", "culprit")
            assert {k: r[k] for k in verdict} == {k: dynamic[k] for k in verdict}
            assert r["sim_time_s"] <= dynamic["sim_time_s"] + 1e-9
        else:  # what the screen decided, the dynamics confirms on these trials
            assert r["collapsed"] == dynamic["collapsed"] and not dynamic["shifted"] and r["shifted"] is False


def test_slides_and_structures_always_go_to_pybullet():
    sc = load_scenario(SCENARIOS / "slide_beneath.toml")
    job = _job(sc)
    slides = [w for w, p in enumerate(sc.what_if) if p.slide_mm is not None or p.relation == "beneath"]
    assert slides
    records = get_engine("hybrid").run_trials(job, slides[0], [0, 1])
    assert {r["judged_by"] for r in records} == {"dynamics"}
    records = get_engine("hybrid").run_trials(job, None, [0])
    assert {r["judged_by"] for r in records} == {"dynamics"}


def test_the_odds_json_says_which_engine_judged_how_many_trials():
    sc = load_scenario(SCENARIOS / "demo.toml")
    doc = estimate_odds(sc, 10, engine="hybrid", seed=1, jobs=1).to_dict()
    assert doc["engine"] == "hybrid"
    for r in doc["results"]:
        assert sum(r["judged_by"].values()) == r["trials"] == 10
        assert set(r["judged_by"]) <= {"statics", "dynamics"}
    statics = estimate_odds(sc, 10, engine="statics", seed=1, jobs=1).to_dict()
    assert [r["judged_by"] for r in statics["results"]] == [{"statics": 10}] * 2


def test_a_heavier_top_tile_tips_a_staircase_exactly_where_its_moments_balance():
    """Three tiles, no magnets: tile 1 steps out by d1 over tile 0, tile 2 by d2 over tile 1.
    With tile 2 weighing K times its weight, tiles 1 and 2 stay on tile 0 while their centre
    of mass is over it: (d1 + K (d1 + d2)) / (1 + K) <= L/2, so K* = (L/2 - d1) / (d1 + d2 - L/2)."""
    preset = load_preset("plain")
    L, H = preset.tile.size[0], preset.tile.size[2]
    d1, d2 = 0.012, 0.020  # m: tile 2 alone is carried (d2 < L/2); the pair tips for K > K*
    k_star = (L / 2 - d1) / (d1 + d2 - L / 2)
    P = np.array([[0, 0, H / 2], [d1, 0, 1.5 * H], [d1 + d2, 0, 2.5 * H]])
    Q = np.tile([0.0, 0, 0, 1], (3, 1))
    loads = np.array([1.0, 0.8 * k_star, 0.98 * k_star, 1.02 * k_star, 1.5 * k_star])
    stands, refused = batch_stands([preset] * len(loads), np.tile(P, (len(loads), 1, 1)), np.tile(Q, (len(loads), 1, 1)),
                                   False, np.zeros(3, bool), last_load=loads)
    assert refused == [None] * len(loads)
    assert list(stands) == [True, True, True, False, False], (k_star, stands)


@pytest.mark.slow
def test_the_screen_agrees_with_the_dynamics_on_every_trial_it_decides():
    """The thresholds re-checked on a sample of what the validation measured (the full table:
    ``python -m validation.hybrid_validation --compare``): a magnet-held tile half on half (the demo),
    a tile on a magnet-held cantilever (which the impact tips though the statics carries 4x
    the tile's weight at rest), a Défi game's first placements, random stacks."""
    cases = load_cases(ROOT / "tests" / "data" / "validation_set.json")
    scenarios = [load_scenario(SCENARIOS / "demo.toml"), load_scenario(SCENARIOS / "cantilever.toml")]
    scenarios += [case_scenario(cases[i]) for i in (39, 42, 140, 200)]
    decided = 0
    for sc in scenarios:
        job = _job(sc)
        for w in range(len(sc.what_if)):
            for row in screen_trials(job, w, list(range(25))):
                verdict = decide(row)
                if verdict is None:
                    continue
                decided += 1
                dynamic = run_trial(job, w, row["trial"])
                assert dynamic["collapsed"] == (verdict == "falls"), (sc.name, w, row, dynamic)
                assert not dynamic["shifted"] or verdict == "falls"
    assert decided > 100  # the screen decides most of these


def test_the_thresholds_keep_their_documented_values():
    """The values the validation page measured (``docs/validation/hybrid.md``: a change needs a
    new measurement)."""
    assert ROBUST == (4.0, 0.0, 0.5, 0.0, 0.0, 1.0) and LOW_DROP == (2.0, 0.5, 0.5, 0.0, 0.0, 1.0)
    assert LOW_DROP_MM == 1.5 and TILT_DEG == 10.0
    assert SHORT_DROP == (1.5, 0.5, 0.5, 0.0, 0.0, 1.0) and SHORT_DROP_MM == 1.0
    assert TIPS == (1.0, 1.0, 1.0, 0.0, 0.0, GRIP) and TIPS_BARE == (1.0, 0.0, 1.0, 0.0, 0.0, GRIP) and GRIP == 3.0
    assert HANG_TIPS == tuple((1.0, 1.0, 1.0, 3.0, d, GRIP) for d in (0.0, 90.0, 180.0, 270.0)) and SNAP_REACH_MM == 10.0


def test_the_lower_the_release_the_smaller_the_margin_a_stood_trial_needs():
    """The impact screen's rungs: a trial at rest within the tilt margin is stood when it
    passes the rung its release height allows (4x on its weight alone at any height, 2x below
    1.5 mm, 1.5x below 1 mm), and goes to PyBullet otherwise (however low the release: on the
    toy's strong magnets a tile released 0.2 mm above its rest pose tipped its structure)."""
    def row(drop_mm, passed=()):
        r = {"refused": None, "drop_mm": drop_mm, AT_REST: True, **{t: True for t in TILTS}}
        r.update({t: t in passed for t in (ROBUST, LOW_DROP, SHORT_DROP)})
        return r

    assert decide(row(1.9, [ROBUST])) == "stood"
    assert decide(row(1.4, [LOW_DROP, SHORT_DROP])) == "stood" and decide(row(1.6, [LOW_DROP, SHORT_DROP])) is None
    assert decide(row(0.9, [SHORT_DROP])) == "stood" and decide(row(1.1, [SHORT_DROP])) is None
    assert decide(row(0.1)) is None
    tilted = row(0.9, [SHORT_DROP])
    tilted[TILTS[2]] = False
    assert decide(tilted) is None  # every rung needs the tilt margin


def test_rest_falls_need_a_margin_where_a_tile_can_hang_on_its_magnets():
    """On the toy's 1.2 T magnets one magnet pair holds more than a tile's weight (the closed
    form of the toy physics test: F > 2 m g), so a tile the statics refuses at its aimed pose
    may snap into line and hang: its rest fall is decided only if it also falls with the table
    tilted each way and at every pose it may snap to; else it goes to PyBullet. On
    ``standard`` (F < m g) the statics decides it."""
    import magpylib as magpy

    from magdomino.studies.hybrid_engine import HANG_WEIGHTS, magnets_hold_a_tile

    for name in ("weak", "standard", "toy"):
        # The reference: magpylib's force between the two discs in line, one tile thick apart.
        preset = load_preset(name)
        m = preset.tile.magnets[0]
        disc = dict(dimension=tuple(m.dimensions), polarization=(0, 0, m.polarization))
        F, _ = magpy.getFT(magpy.magnet.Cylinder(position=(0, 0, 0), **disc),
                           magpy.magnet.Cylinder(position=(0, 0, preset.tile.size[2]), **disc), meshing=(48, 14, 12))
        pull = -float(F[2]) / (preset.tile.mass * preset.solver.gravity)
        assert magnets_hold_a_tile(preset) == (pull >= HANG_WEIGHTS), (name, pull)
        assert abs(pull - HANG_WEIGHTS) > 0.3  # far from the line on every bundled strength
    assert magnets_hold_a_tile(load_preset("toy")) and not magnets_hold_a_tile(load_preset("standard"))
    row = {"refused": None, "drop_mm": 1.0, AT_REST: False, TIPS: False, TIPS_BARE: False}
    assert decide({**row, "hangs": False}) == "falls" and decide({**row, "hangs": True}) is None
    hanging = {**row, "hangs": True, **dict.fromkeys(HANG_TIPS, False), "snaps": False}
    assert decide(hanging) == "falls"
    assert decide({**hanging, "snaps": True}) is None and decide({**hanging, HANG_TIPS[1]: True}) is None
    assert decide({**hanging, "snaps": None}) is None  # a snap pose the statics refuses: PyBullet decides


def test_a_tile_snaps_to_the_pose_that_puts_its_magnet_in_line_with_the_one_below():
    """Closed form: tile B lies half on tile A, missed by (dx, dy); the only magnet of A within
    reach of one of B's is the one under B's half 0, and the snap moves B by (-dx, -dy) exactly.
    A tile two levels up, or farther than the reach, has no pose to snap to."""
    toy = load_preset("toy")
    L, _, T = toy.tile.size
    Q = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
    for dx, dy in ((0.003, 0.001), (-0.002, -0.004), (0.0, 0.0)):
        P = np.array([[0.0, 0.0, T / 2], [L / 2 + dx, dy, 1.5 * T]])
        poses = snap_poses(toy, P, Q)
        assert len(poses) == 1
        assert np.allclose(poses[0][0], P[0]) and np.allclose(poses[0][1], [L / 2, 0.0, 1.5 * T], atol=1e-12)
    assert snap_poses(toy, np.array([[0.0, 0.0, T / 2], [L / 2, 0.0, 2.5 * T]]), Q) == []
    far = SNAP_REACH_MM / 1000 + 0.001
    assert snap_poses(toy, np.array([[0.0, 0.0, T / 2], [L / 2 + far, 0.0, 1.5 * T]]), Q) == []


def test_on_the_toy_a_hang_fall_decided_by_the_statics_is_a_fall_in_the_dynamics():
    """Validation-set drops rebuilt on ``toy``: every trial the screen calls a fall falls in the
    dynamics' own trial (the same random numbers). Case 113's trial 19 is refused at its aimed
    pose even with the table tilted 3° each way, and stands in the dynamics: its magnet, 6.3 mm
    from the line of the one below, snaps it there, where the statics carries it; it goes to
    PyBullet."""
    from dataclasses import replace

    cases = load_cases(ROOT / "tests" / "data" / "validation_set.json")
    toy = load_preset("toy")
    falls = 0
    for i, trials in ((14, range(6)), (188, range(12)), (113, [19])):
        sc = replace(case_scenario(cases[i]), preset=toy)
        job = _job(sc)
        for row in screen_trials(job, 0, list(trials)):
            verdict = decide(row)
            if (i, row["trial"]) == (113, 19):
                assert all(row[t] is False for t in HANG_TIPS) and row["snaps"] and verdict is None
                assert not run_trial(job, 0, 19)["collapsed"]
            elif verdict == "falls":
                falls += 1
                assert run_trial(job, 0, row["trial"])["collapsed"], (i, row["trial"])
    assert falls >= 8


def test_a_batch_of_hands_is_aimed_as_each_hand_alone():
    """:func:`aim_many` (the screen's batched aiming) gives exactly what :func:`aim_placement`
    gives each miss, refusals included: on a tower, a cantilever, a bridge and a slide."""
    from magdomino.errors import InputError
    from magdomino.studies.aiming import aim_many, aim_placement

    rng = np.random.default_rng(9)
    compared = 0
    for name in ("demo", "cantilever", "bridge", "slide_beneath"):
        sc = load_scenario(SCENARIOS / f"{name}.toml")
        settled = get_engine("dynamics").starting_structure(sc)
        size = np.asarray(sc.preset.tile.size, float)
        misses = np.column_stack([rng.normal(0, 1.5, (30, 2)), rng.normal(0, 3, 30), rng.uniform(0, 2, 30)])
        for _w, placement in enumerate(sc.what_if):
            for miss, got in zip(misses, aim_many(sc, settled, placement, size, misses)):
                try:
                    rest, yaw, motion = aim_placement(sc, settled, placement, size, tuple(miss[:2]), miss[2], miss[3])
                except InputError as exc:
                    assert isinstance(got, InputError) and str(got) == str(exc)
                    continue
                assert np.array_equal(got[0], rest) and got[1] == yaw and got[2] == motion
                compared += 1
    assert compared > 200


def test_a_sideways_load_slides_a_tile_on_the_table_where_coulomb_says():
    """A flat tile alone on the table, no magnets: a sideways load of λ weights (the table
    tilted by atan λ) is held while λ <= μ cos(π/K) (the pyramid's weakest direction) and
    not once λ > μ (Coulomb's cone); it cannot tip (its half width over its half height is 3)."""
    from magdomino.physics.statics import FRICTION_DIRECTIONS

    preset = load_preset("plain")
    mu, H = preset.tile.table_mu, preset.tile.size[2]
    P, Q = np.array([[[0.0, 0, H / 2]]]), np.array([[[0.0, 0, 0, 1]]])
    held = 0.95 * mu * np.cos(np.pi / FRICTION_DIRECTIONS)
    for lam, stands in ((held, True), (1.05 * mu, False)):
        for direction in (0.0, 0.7, 2.0):
            got, refused = batch_stands([preset], P, Q, False, np.zeros(1, bool),
                                        lateral=lam * np.array([np.cos(direction), np.sin(direction)]))
            assert refused == [None] and bool(got[0]) is stands, (lam, direction)


def _one_trial_rows(preset, place):
    """The screen's rows of 4 noiseless trials of ``place`` on one tile lying at the origin."""
    from dataclasses import replace

    from magdomino.studies.scenario import scenario_from_dict

    sc = scenario_from_dict({"preset": "plain", "structure": ["6-6 at (0, 0) mm"], "what_if": [place]}, source="t.toml")
    sc = replace(sc, preset=preset)
    noise = {"pos_sigma_mm": 0.0, "yaw_sigma_deg": 0.0, "drop_mm": [0.5, 0.5], "polarization_rel_sigma": 0.0,
             "friction_rel_sigma": 0.0, "mass_rel_sigma": 0.0}
    job = Job(sc, get_engine("dynamics").starting_structure(sc), resolve_noise(sc, noise), 1, (0.0, 0.0), None, get_engine("hybrid"))
    return screen_trials(job, 0, [0, 1, 2, 3])


def test_a_tile_whose_centre_is_past_its_support_tips_and_the_statics_says_it_fell():
    """Closed form: a lone tile on another, its centre of mass 6 mm past the lower tile's end,
    tips over whatever the friction (no magnets: nothing else holds it)."""
    rows = _one_trial_rows(load_preset("plain"), "6-5 at (30, 0, 12) mm")
    assert {decide(r) for r in rows} == {"falls"}
    assert {r[TIPS] for r in rows} == {False} and not any(r[AT_REST] for r in rows)
    within = _one_trial_rows(load_preset("plain"), "6-5 at (18, 0, 12) mm")  # centre 6 mm inside the end
    assert {decide(r) for r in within} == {"stood"}


def test_a_tile_refused_only_for_want_of_friction_goes_to_pybullet():
    """Two magnets 4 mm out of line pull the upper tile sideways with a force F while pressing it
    down with N: at rest it needs a friction coefficient of at least |F| / N (Coulomb). With
    half of that the statics refuses the pose; three times half of it holds: a slide that the
    magnets may end in line, not a tip, so PyBullet decides."""
    from dataclasses import replace

    from magdomino.studies.statics_engine import batch_magnets

    strong = load_preset("strong")
    H = strong.tile.size[2]
    P = np.array([[[0.0, 0, H / 2], [0.004, 0, 1.5 * H]]])
    Q = np.tile([0.0, 0, 0, 1], (1, 2, 1))
    force = batch_magnets([strong], P, Q, strong)[0][0, 1]
    weight = strong.tile.mass * 9.81
    needed = np.hypot(force[0], force[1]) / (weight - force[2])  # the magnets pull down: force[2] < 0
    assert 0.05 < needed < 1.0, needed
    slippery = replace(strong, tile=replace(strong.tile, friction=needed / 2, table_friction=needed / 2))
    rows = _one_trial_rows(slippery, "6-5 at (4, 0, 12) mm")
    assert not any(r[AT_REST] for r in rows) and {r[TIPS] for r in rows} == {True}
    assert {decide(r) for r in rows} == {None}


def test_on_the_toy_s_strong_magnets_a_tile_its_own_pull_tips_is_left_to_pybullet():
    """Two drops of the validation set rebuilt on ``toy`` (1.2 T) where, at the aimed pose, the
    tile's own magnets tip it and then snap it into line, where it stands: three times the
    friction alone (:data:`TIPS`) would call them falls. Without its own magnets the tile
    stands there (:data:`TIPS_BARE`), so PyBullet decides; the dynamics stands most of them.
    Every trial the screen does decide agrees with the dynamics' own trial."""
    from dataclasses import replace

    cases = load_cases(ROOT / "tests" / "data" / "validation_set.json")
    toy = load_preset("toy")
    snapped = stood = 0
    for i in (186, 247):
        sc = replace(case_scenario(cases[i]), preset=toy)
        job = _job(sc)
        for row in screen_trials(job, 0, list(range(25))):
            verdict = decide(row)
            dynamic = run_trial(job, 0, row["trial"])
            if verdict is not None:
                assert dynamic["collapsed"] == (verdict == "falls") and not dynamic["shifted"], (i, row["trial"], verdict, dynamic)
            elif row.get(TIPS) is False and row.get(TIPS_BARE) is True:  # what TIPS alone called falls
                snapped += 1
                stood += not dynamic["collapsed"]
    assert snapped >= 10 and stood >= snapped // 2, (snapped, stood)
