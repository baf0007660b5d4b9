"""Stability odds: determinism across executors, resume, intervals, errors, statics by hand.

Scenarios are tiny (plain tiles, no magnets) so the whole file stays well under two minutes
on two cores. The statics references: a tile lying on another tips over exactly when its
centre of mass is past the lower tile's edge (x = 24 mm), see scenarios/odds_statics.toml.
"""

import functools
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, norm

from magdomino.errors import InputError
from magdomino.physics.verdict import Verdict
from magdomino.studies.odds import estimate_odds, odds_settings, run_odds, wilson_interval
from magdomino.studies.scenario import load_scenario, scenario_from_dict, with_preset
from magdomino.studies.sweeps import sweep
from magdomino.studies.trial_record import verdict_outcome
from magdomino.studies.trials import NOISE_DEFAULTS, resolve_noise, trial_stream

ROOT = Path(__file__).resolve().parents[2]
STATICS = ROOT / "scenarios" / "odds_statics.toml"
SAFE, BEYOND, EDGE = 0, 1, 2


@pytest.fixture(scope="module")
def statics():
    return load_scenario(STATICS)


def _without_timing(doc):
    return json.loads(json.dumps(doc))


# -- seeds and intervals ---------------------------------------------------------------------


def test_trial_streams_are_spawned_children():
    children = np.random.SeedSequence(42).spawn(20)
    for i in (0, 1, 7, 19):
        expected = np.random.default_rng(children[i]).standard_normal(5)
        assert np.array_equal(trial_stream(42, i).standard_normal(5), expected)


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (17, 40), (250, 1000)])
def test_interval_is_scipys_wilson(k, n):
    lo, hi = wilson_interval(k, n)
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (lo, hi) == (ci.low, ci.high)
    # and the textbook formula, independently
    z = norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert lo == pytest.approx(max(0.0, centre - half), abs=1e-12)
    assert hi == pytest.approx(min(1.0, centre + half), abs=1e-12)


def test_noise_defaults_scenario_and_overrides(statics):
    assert resolve_noise(statics) == NOISE_DEFAULTS
    noise = resolve_noise(statics, {"pos_sigma_mm": 0.5, "drop_mm": [1, 1]})
    assert noise["pos_sigma_mm"] == 0.5 and noise["drop_mm"] == [1.0, 1.0]
    with pytest.raises(InputError, match="pos_sigma_mm"):
        resolve_noise(statics, {"pos_sigma_mm": -1})
    with pytest.raises(InputError, match="unknown key"):
        resolve_noise(statics, {"sigma": 1})


def test_varied_preset_multiplies_and_clips_positive():
    from magdomino.model.presets import load_preset
    from magdomino.studies.sweeps import scaled_polarization
    from magdomino.studies.trials import MIN_FACTOR, _factors, varied_preset

    preset = load_preset("standard")  # data only: no magnet model is used here
    n = len(preset.tile.magnets)
    assert n > 0
    varied = varied_preset(preset, np.linspace(0.5, 1.5, n), 1.1, 0.9)
    assert [m.polarization for m in varied.tile.magnets] == pytest.approx(
        [m.polarization * f for m, f in zip(preset.tile.magnets, np.linspace(0.5, 1.5, n))]
    )
    assert varied.tile.friction == pytest.approx(preset.tile.friction * 1.1)
    assert varied.tile.mass == pytest.approx(preset.tile.mass * 0.9)
    assert preset.tile.mass == load_preset("standard").tile.mass  # the original is untouched
    assert all(m.polarization == 0 for m in scaled_polarization(preset, 0).tile.magnets)
    wild = {"polarization_rel_sigma": 50.0, "friction_rel_sigma": 50.0, "mass_rel_sigma": 50.0}
    for i in range(20):
        pol, friction, mass = _factors(trial_stream(1, i), n, wild)
        assert np.all(pol >= MIN_FACTOR) and friction >= MIN_FACTOR and mass >= MIN_FACTOR


# -- statics by hand -------------------------------------------------------------------------


def test_safe_placement_near_0_and_overhang_near_1(statics):
    result = estimate_odds(statics, 30, executor="serial", what_ifs=[SAFE, BEYOND])
    safe, beyond = result.results
    assert (safe.collapses, safe.errors, safe.trials) == (0, 0, 30)
    assert (beyond.collapses, beyond.errors, beyond.trials) == (30, 0, 30)
    assert safe.ci95[1] < 0.15 and beyond.ci95[0] > 0.85


def test_each_trial_on_the_edge_falls_as_its_centre_of_mass_says(statics, tmp_path):
    # what-if 2 lies half on half: its centre is on the lower tile's edge, so a trial tips
    # over exactly when the hand put it further out (dx > 0). Dynamics (the drop) may decide
    # the trials within a millimetre of the edge; statics decides every other one.
    estimate_odds(statics, 40, executor="serial", what_ifs=[EDGE], noise={"pos_sigma_mm": 3.0}, out_dir=tmp_path)
    records = [json.loads(line) for line in (tmp_path / "odds.jsonl").read_text().splitlines()[1:]]
    clear = [r for r in records if abs(r["dx_mm"]) > 1.0]
    assert len(clear) >= 20
    assert [r["collapsed"] for r in clear] == [r["dx_mm"] > 0 for r in clear]


def test_structure_only_statics():
    def tower(x_mm):
        return scenario_from_dict(
            {"preset": "plain", "magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [x_mm, 0]}]}
        )

    standing = estimate_odds(tower(10), 12, executor="serial").results[0]
    falling = estimate_odds(tower(38), 12, executor="serial").results[0]
    assert standing.what_if is None and standing.placement == "structure"
    assert (standing.collapses, standing.errors) == (0, 0)
    assert (falling.collapses, falling.errors) == (12, 0)


# -- determinism -----------------------------------------------------------------------------


def test_same_counts_for_1_and_2_workers_and_a_dask_cluster(statics):
    runs = [
        estimate_odds(statics, 24, jobs=1, what_ifs=[EDGE]),
        estimate_odds(statics, 24, jobs=2, what_ifs=[EDGE]),
        estimate_odds(statics, 24, jobs=2, scheduler="local", what_ifs=[EDGE]),
    ]
    docs = [r.to_dict() for r in runs]
    assert docs[0] == docs[1] == docs[2]
    edge = runs[0].results[0]
    assert 0 < edge.collapses < edge.trials  # a real coin toss, so the equality means something


def test_precision_stops_deterministically(statics):
    a = estimate_odds(statics, 500, executor="serial", precision=0.1, batch=10, what_ifs=[SAFE, BEYOND])
    b = estimate_odds(statics, 500, jobs=2, precision=0.1, batch=10, what_ifs=[SAFE, BEYOND])
    assert a.to_dict() == b.to_dict()
    # 0 of n: the Wilson upper bound is z²/(n + z²); half-width < 0.1 first at n = 20 in steps of 10
    for r in a.results:
        assert r.stopped_by == "precision" and r.trials == 20 and r.half_width < 0.1
    assert wilson_interval(0, 10)[1] / 2 >= 0.1


# -- errors and crashes ----------------------------------------------------------------------


def _raise_on(trial, what_if, i):
    if i == trial:
        raise RuntimeError("boom")


def test_a_trial_that_raises_is_an_error_not_a_collapse(statics):
    result = run_odds(statics, odds_settings(10, executor="serial"), what_ifs=[BEYOND], trial_hook=functools.partial(_raise_on, 3))
    r = result.results[0]
    assert (r.trials, r.errors, r.collapses) == (10, 1, 9)
    assert r.p_collapse == 1.0 and r.ci95 == wilson_interval(9, 9)
    assert r.error_messages == ["RuntimeError: boom"]


def test_numerical_blow_up_is_counted_in_errors(tmp_path):
    # dropped from 30 mm at 10^4 g: it reaches ~80 m/s, far past any real speed: an error verdict.
    # No preset file may ask for that gravity (at most 100 m/s²): set past the checks.
    sc = scenario_from_dict({"magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0, 30]}]})
    sc = with_preset(sc, sc.preset.with_settings(gravity_m_s2=100000.0, time_limit_s=0.5))
    r = estimate_odds(sc, 3, executor="serial").results[0]
    assert (r.trials, r.errors, r.collapses, r.p_collapse) == (3, 3, 0, None)
    assert r.ci95 == (0.0, 1.0) and "blow-up" in r.error_messages[0]
    bad = Verdict(False, "error", False, math.nan, math.nan, 0.1, 0.1, error="numerical blow-up")
    assert verdict_outcome(bad) == {"collapsed": False, "error": "numerical blow-up", "reason": "error"}


def _crash_once(marker, trial, what_if, i):
    if i == trial and not os.path.exists(marker):
        Path(marker).write_text("crashed")
        os._exit(1)  # the worker dies as in a segfault: the pool breaks


def test_a_crashed_workers_trials_are_retried(statics, tmp_path):
    marker = tmp_path / "crashed"
    hook = functools.partial(_crash_once, str(marker), 5)
    crashed = run_odds(statics, odds_settings(16, jobs=2), what_ifs=[EDGE], trial_hook=hook)
    assert marker.exists()
    clean = estimate_odds(statics, 16, executor="serial", what_ifs=[EDGE])
    assert crashed.to_dict() == clean.to_dict()
    assert crashed.results[0].errors == 0


# -- nothing lost ----------------------------------------------------------------------------


def _record_calls(calls, what_if, i):
    calls.append(i)


def test_resume_after_a_cut_log_recomputes_only_the_missing_trials(statics, tmp_path):
    full = estimate_odds(statics, 20, executor="serial", what_ifs=[EDGE], out_dir=tmp_path)
    log = tmp_path / "odds.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    assert len(lines) == 21 and json.loads(lines[0])["kind"] == "header"
    log.write_text("".join(lines[:9]) + lines[9][:15])  # 8 trials kept, one cut mid-line
    calls = []
    resumed = run_odds(
        statics, odds_settings(20, executor="serial", out_dir=tmp_path, resume=True), what_ifs=[EDGE],
        trial_hook=functools.partial(_record_calls, calls),
    )
    assert resumed.to_dict() == full.to_dict()
    kept = {json.loads(line)["trial"] for line in lines[1:9]}
    assert sorted(calls) == sorted(set(range(20)) - kept)
    assert len(log.read_text().splitlines()) == 21


def test_resume_refuses_other_settings_and_overwrite_needs_resume(statics, tmp_path):
    estimate_odds(statics, 4, executor="serial", what_ifs=[SAFE], out_dir=tmp_path)
    with pytest.raises(InputError, match="already holds a run"):
        estimate_odds(statics, 4, executor="serial", what_ifs=[SAFE], out_dir=tmp_path)
    with pytest.raises(InputError, match=r"seed: this run differs .*\(8 now, 7 stored\)"):
        estimate_odds(statics, 4, seed=8, executor="serial", what_ifs=[SAFE], out_dir=tmp_path, resume=True)
    with pytest.raises(InputError, match="noise"):
        estimate_odds(statics, 4, executor="serial", what_ifs=[SAFE], out_dir=tmp_path, resume=True, noise={"pos_sigma_mm": 2})
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="out_dir"):
        estimate_odds(statics, 4, executor="serial", what_ifs=[SAFE], out_dir=tmp_path / "file" / "sub")


# -- sweep, command line, plots --------------------------------------------------------------


def test_sweep_over_an_offset_crosses_the_edge(statics, tmp_path):
    # what-if 0 sits at x = 10 mm: shifted by 0 it is 14 mm inside the edge, by 28 mm 14 mm beyond
    result = sweep(statics, "offset_x_mm", [0, 28], 8, executor="serial", what_ifs=[SAFE], out_dir=tmp_path)
    doc = result.to_dict()
    assert doc["param"] == "offset_x_mm" and doc["values"] == [0.0, 28.0]
    p = [entry["results"][0]["p_collapse"] for entry in doc["results"]]
    assert p == [0.0, 1.0]
    assert sorted(f.name for f in tmp_path.iterdir()) == ["sweep-offset_x_mm-000.jsonl", "sweep-offset_x_mm-001.jsonl"]
    from magdomino.faces.plots import sweep_figure

    assert sweep_figure(doc, tmp_path / "sweep.png").stat().st_size > 1000
    with pytest.raises(InputError, match="param"):
        sweep(statics, "gravity", [1], 4, executor="serial")


def test_sweep_over_a_sigma_uses_common_random_numbers(statics):
    doc = sweep(statics, "pos_sigma_mm", [0.0, 2.0], 6, executor="serial", what_ifs=[EDGE]).to_dict()
    assert [entry["noise"]["pos_sigma_mm"] for entry in doc["results"]] == [0.0, 2.0]
    assert "pos_sigma_mm" not in doc["noise"]


# -- undecided trials, structures that do not settle, settled poses given -------------------

SHORT_PRESET = (
    'name = "short"\n[tile]\nsize_mm = [48, 24, 8]\nmass_g = 10\n'
    # the verdict never calls a settle before 0.05 s: with 0.03 s every verdict is "time limit"
    "[collapse]\ntime_limit_s = 0.03\nsettle_hold_s = 0.01\n"
)


def _short(tmp_path, what_if=()):
    (tmp_path / "short.toml").write_text(SHORT_PRESET)
    return scenario_from_dict(
        {"preset": "short.toml", "magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}], "what_if": list(what_if)},
        source=str(tmp_path / "sc.toml"),
        base=tmp_path,
    )


def test_undecided_trials_are_neither_collapses_nor_standing(tmp_path):
    r = estimate_odds(_short(tmp_path), 3, executor="serial").results[0]
    assert (r.trials, r.collapses, r.errors, r.undecided) == (3, 0, 0, 3)
    assert r.p_collapse is None and r.ci95 == (0.0, 1.0) and r.reasons == {"time limit": 3}
    assert r.to_dict()["undecided"] == 3


def test_the_denominator_leaves_out_errors_and_undecided(statics):
    from magdomino.studies.odds import _tally

    kinds = [(True, "shift", None)] * 3 + [(False, "stood", None)] * 5 + [(False, "time limit", None)] * 4
    kinds += [(False, "error", "numerical blow-up")] * 2
    records = {(0, i): {"what_if": 0, "trial": i, "collapsed": c, "reason": why, "error": e} for i, (c, why, e) in enumerate(kinds)}
    r = _tally(statics, 0, records, len(kinds))
    assert (r.trials, r.collapses, r.errors, r.undecided, r.counted) == (14, 3, 2, 4, 8)
    assert r.p_collapse == 3 / 8 and r.ci95 == wilson_interval(3, 8)


def test_a_structure_that_does_not_settle_is_refused_before_the_what_ifs(tmp_path):
    sc = _short(tmp_path, [{"pips": [1, 2], "pos_mm": [0, 0]}])
    with pytest.raises(InputError, match=r"sc\.toml: structure: expected a structure that settles before the what-ifs; "
                                         r"it did not within time_limit_s"):
        estimate_odds(sc, 2, executor="serial")


def test_a_collapsing_structure_is_refused_before_the_what_ifs():
    sc = scenario_from_dict(
        {"preset": "plain", "magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [38, 0]}],
         "what_if": [{"pips": [1, 3], "pos_mm": [0, 40]}]}
    )
    with pytest.raises(InputError, match="structure: expected a structure that settles before the what-ifs; it collapsed"):
        estimate_odds(sc, 2, executor="serial")


def test_structure_trials_ignore_drop_noise_as_documented():
    import magdomino.studies.odds

    assert "drop noise does not apply" in magdomino.studies.odds.__doc__
    sc = scenario_from_dict(
        {"preset": "plain", "magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [20, 0]}]}
    )
    low = estimate_odds(sc, 2, executor="serial", noise={"drop_mm": [0, 0]}).to_dict()
    high = estimate_odds(sc, 2, executor="serial", noise={"drop_mm": [5, 5]}).to_dict()
    assert low["results"] == high["results"]


def test_settled_poses_given_are_used_and_the_structure_not_settled_again(statics, monkeypatch, tmp_path):
    import magdomino.studies.engines
    from magdomino.studies.runner import poses_digest as _poses_digest
    from magdomino.studies.simulation import settle_structure

    _, poses = settle_structure(statics)
    monkeypatch.setattr(magdomino.studies.engines, "settle_structure", lambda *a, **k: pytest.fail("settled again"))
    estimate_odds(statics, 2, executor="serial", what_ifs=[SAFE], settled=poses, out_dir=tmp_path)
    header = json.loads((tmp_path / "odds.jsonl").read_text().splitlines()[0])
    assert header["settled_sha256"] == _poses_digest(poses)


def test_resume_without_out_dir_is_refused(statics):
    with pytest.raises(InputError, match="resume: expected out_dir with it"):
        estimate_odds(statics, 2, executor="serial", resume=True)


def test_shift_share_and_median_shift_from_the_records(statics):
    """The tally's shifts against values computed here: the share of shifted trials among
    those counted (errors and undecided left out) and the median of their largest shifts."""
    import statistics

    from magdomino.studies.odds import _tally

    rows = [  # (collapsed, reason, error, shifted, max_shift_mm)
        (False, "stood", None, False, 0.4), (False, "shifted", None, True, 22.1), (False, "shifted", None, True, 16.0),
        (False, "stood", None, False, 1.25), (True, "tilt", None, True, 9.5), (True, "tilt", None, False, 0.8),
        (False, "time limit", None, True, 40.0),  # undecided: not counted, even though it shifted
        (False, "error", "numerical blow-up", False, None),
    ]
    records = {(0, i): {"what_if": 0, "trial": i, "collapsed": c, "reason": why, "error": e, "shifted": s, "max_shift_mm": m}
               for i, (c, why, e, s, m) in enumerate(rows)}
    r = _tally(statics, 0, records, len(rows))
    counted = [row for row in rows if row[2] is None and row[1] != "time limit"]
    shifted = sum(1 for row in counted if row[3])
    assert (r.counted, r.counted_shifts) == (len(counted), shifted) == (6, 3)
    assert r.shift_share == shifted / len(counted) == 0.5
    assert r.shift_ci95 == wilson_interval(shifted, len(counted))
    assert r.median_shift_mm == pytest.approx(statistics.median(row[4] for row in counted)) == pytest.approx(5.375)
    assert r.median_shift_mm == pytest.approx(float(np.median([row[4] for row in counted])))
    assert r.shifts == 4  # the old count, unchanged: every shifted trial but the errors (the undecided one too)
    d = r.to_dict()
    assert d["shift_share"] == 0.5 and d["shift_ci95"] == list(wilson_interval(3, 6)) and d["median_shift_mm"] == r.median_shift_mm
    assert (d["trials"], d["collapses"], d["errors"], d["undecided"], d["shifts"], d["p_collapse"]) == (8, 2, 1, 1, 4, 2 / 6)
    assert d["ci95"] == list(wilson_interval(2, 6)) and d["stopped_by"] == "trials"
    # an odd number of counted trials: the middle one
    r3 = _tally(statics, 0, {(0, i): records[0, i] for i in range(3)}, 3)
    assert r3.median_shift_mm == statistics.median([0.4, 22.1, 16.0]) == 16.0 and r3.shift_share == 2 / 3


def test_shifts_are_unknown_where_the_engine_does_not_measure_them(statics):
    """A statics trial records no max_shift_mm (it judges equilibrium, not displacement):
    its shift share, interval and median are None, not 0."""
    from magdomino.studies.odds import _tally

    records = {(0, i): {"what_if": 0, "trial": i, "engine": "statics", "collapsed": i == 0, "shifted": False, "error": None,
                        "reason": "falls" if i == 0 else "stood"} for i in range(4)}
    r = _tally(statics, 0, records, 4)
    assert r.p_collapse == 0.25 and r.shift_share is None and r.shift_ci95 is None and r.median_shift_mm is None
    d = r.to_dict()
    assert d["shift_share"] is None and d["shift_ci95"] is None and d["median_shift_mm"] is None
    real = estimate_odds(statics, 3, engine="statics", executor="serial", what_ifs=[SAFE]).results[0]
    assert real.counted == 3 and real.shift_share is None and real.median_shift_mm is None


@pytest.mark.parametrize("changes, key", [
    ({"trials": 0}, "trials"), ({"trials": 2.5}, "trials"), ({"trials": True}, "trials"),
    ({"batch": 0}, "batch"), ({"jobs": 0}, "jobs"), ({"jobs": -2}, "jobs"),
    ({"precision": 0}, "precision"), ({"precision": 0.6}, "precision"), ({"precision": "tight"}, "precision"),
    ({"resume": True}, "resume"), ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"), ({"engine": "mujoco"}, "engine"),
])
def test_odds_arguments_from_python_are_refused_naming_the_argument_before_any_trial(changes, key):
    """What the command line refuses, the library refuses too: InputError naming
    the argument, and no trial run (the hook would count it)."""
    sc = load_scenario(STATICS)
    ran = []
    settings = {"trials": 4, "engine": "statics", "executor": "serial", **changes}
    with pytest.raises(InputError) as err:
        run_odds(sc, odds_settings(settings.pop("trials"), **settings), trial_hook=lambda w, i: ran.append(i))
    assert err.value.key == key and ran == []
