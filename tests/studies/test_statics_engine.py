"""The statics as an engine of the studies: simulate, odds trials, what-if screening.

References: the dynamics on the scenarios whose verdict is robust (documented in each file),
the closed form of a tile laid half on half (it tips exactly when the hand puts its centre
past the lower tile's edge: P = Φ(offset / σ)), the documented random streams
(``SeedSequence(seed, spawn_key=(i,))``), and :func:`magdomino.physics.statics.judge` called
trial by trial.
"""

import json
import math
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, norm

from magdomino.errors import InputError
from magdomino.games.tower.candidates import enumerate_placements
from magdomino.physics.statics import judge
from magdomino.studies import whatif
from magdomino.studies.engines import Engine, get_engine, register_engine
from magdomino.studies.odds import estimate_odds
from magdomino.studies.scenario import load_scenario, scenario_from_dict
from magdomino.studies.simulation import simulate
from magdomino.studies.statics_engine import StaticsEngine, batch_stands, nominal_structure, with_placement
from magdomino.studies.trials import Job, resolve_noise, trial_draws
from magdomino.studies.whatif import SCREEN_BAND_DEG

rank_placements = partial(whatif.rank_placements, candidates=enumerate_placements)  # as magdomino whatif wires it


def simulate_statics(sc):
    return get_engine("statics").simulate(sc)

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
EDGE = 2  # odds_statics: 6-3 laid half on half, its centre right over the lower tile's edge


def _records(path: Path) -> list[dict]:
    return sorted((json.loads(line) for line in path.read_text().splitlines()[1:]), key=lambda r: r["trial"])


# -- simulate -------------------------------------------------------------------------------

ROBUST = [  # (scenario, None for the structure or a what-if index): verdicts far from any edge
    ("staircase_edge", None), ("staircase_edge", 0), ("staircase_edge", 1),
    ("cantilever", None), ("cantilever", 0),
    ("odds_statics", 0), ("odds_statics", 1),
    ("zigzag", 1), ("bridge", 0), ("bridge", 1),
]


@pytest.mark.parametrize("name", sorted({n for n, _ in ROBUST}))
def test_the_engines_agree_on_the_robust_verdicts(name):
    sc = load_scenario(SCENARIOS / f"{name}.toml")
    dynamic = simulate(sc)
    static = simulate_statics(sc)
    assert static.to_dict()["engine"] == "statics"
    doc = dynamic.to_dict()
    assert doc["engine"] == doc["structure"]["engine"] == "dynamics" and {w["engine"] for w in doc["what_if"]} <= {"dynamics"}
    for n, w in ROBUST:
        if n != name:
            continue
        d = dynamic.structure if w is None else dynamic.what_if[w]
        s = static.structure if w is None else static.what_if[w]
        assert s.collapsed == d.collapsed, (name, w)
        assert (s.margin_deg > 0) == s.stands  # a robust verdict has a margin of its sign


def test_the_cantilever_falls_without_magnets_in_both_engines():
    sc = load_scenario(SCENARIOS / "cantilever.toml")
    from dataclasses import replace

    bare = replace(sc, magnets=False, what_if=())
    assert simulate(bare).structure.collapsed
    verdict = simulate_statics(bare).structure
    assert verdict.collapsed and verdict.margin_deg < 0 and verdict.engine == "statics"


def test_both_engines_answer_with_the_same_verdict_keys():
    # One Verdict type: a parser of simulate's JSON never branches on the engine; what one
    # engine cannot know is present and null (the statics' settle time, the dynamics' margin).
    sc = load_scenario(SCENARIOS / "demo.toml")
    docs = {name: get_engine(name).simulate(sc).to_dict() for name in ("dynamics", "statics")}
    for part in ("structure", "what_if"):
        dyn, sta = docs["dynamics"][part], docs["statics"][part]
        dyn, sta = (dyn, sta) if part == "what_if" else ([dyn], [sta])
        assert [list(v) for v in dyn] == [list(v) for v in sta]
        assert {v["engine"] for v in dyn} == {"dynamics"} and {v["engine"] for v in sta} == {"statics"}
    s, d = docs["statics"]["what_if"][1], docs["dynamics"]["what_if"][1]
    assert s["collapsed"] and s["reason"] == "falls" and s["margin_deg"] < 0 and s["sim_time_s"] is None and s["settled"] is None
    assert d["collapsed"] and d["margin_deg"] is None and d["sim_time_s"] > 0


class _RenamedStatics(StaticsEngine):
    name = "statics-copy"


def test_a_third_engine_is_one_class_and_one_registration():
    # The studies hold an engine object and never test its name: a new one needs no change
    # anywhere else (here the statics under another name gives the statics' odds).
    register_engine("statics-copy", _RenamedStatics)
    sc = load_scenario(SCENARIOS / "odds_statics.toml")
    ours = estimate_odds(sc, 40, executor="serial", what_ifs=[EDGE], engine="statics-copy")
    reference = estimate_odds(sc, 40, executor="serial", what_ifs=[EDGE], engine="statics")
    assert ours.engine == "statics-copy" and isinstance(get_engine("statics-copy"), Engine)
    assert ours.to_dict()["results"] == reference.to_dict()["results"]
    with pytest.raises(InputError, match="engine: expected one of dynamics, statics, hybrid, statics-copy, got 'mujoco'"):
        get_engine("mujoco")


def test_a_tile_placed_inside_the_table_is_refused_on_load_naming_the_key():
    # pos_mm z is the centre's height: 2 mm puts the bottom of a tile 4 mm half-thick 2 mm
    # into the table, a pose no hand makes (the dynamics would pop it out and call the jump a
    # fall; the statics cannot model it): refused on load, for both engines.
    with pytest.raises(InputError, match=r"sunk.toml: structure\[0\].pos_mm: expected a height >= 4 mm .* 2.00 mm inside the table"):
        scenario_from_dict({"preset": "plain", "magnets": False, "structure": [{"pips": [1, 1], "pos_mm": [0, 0, 2]}]},
                           source="sunk.toml")


# -- odds -----------------------------------------------------------------------------------


def test_statics_trials_draw_the_dynamic_trials_numbers(tmp_path):
    sc = load_scenario(SCENARIOS / "odds_statics.toml")
    estimate_odds(sc, 3, executor="serial", what_ifs=[EDGE], out_dir=tmp_path / "d")
    estimate_odds(sc, 3, executor="serial", what_ifs=[EDGE], out_dir=tmp_path / "s", engine="statics")
    dyn, sta = _records(tmp_path / "d" / "odds.jsonl"), _records(tmp_path / "s" / "odds.jsonl")
    keys = ("trial", "dx_mm", "dy_mm", "dyaw_deg", "drop_mm")
    assert [[r[k] for k in keys] for r in sta] == [[r[k] for k in keys] for r in dyn]
    assert {r["engine"] for r in sta} == {"statics"}
    for r in sta:  # the documented stream: SeedSequence(seed).spawn(n)[i], x, y, yaw first
        z = np.random.default_rng(np.random.SeedSequence(sc.seed).spawn(3)[r["trial"]]).standard_normal(3)
        assert [r["dx_mm"], r["dy_mm"], r["dyaw_deg"]] == pytest.approx(list(z * [1.0, 1.0, 2.0]), abs=1e-6)


@pytest.mark.parametrize("offset", [-1.0, 0.0, 0.5])
def test_statics_odds_of_a_tile_half_on_half_are_the_closed_form(offset, tmp_path):
    # The top tile's centre lands at x = 24 + dx mm; the lower tile ends at 24 mm. It tips
    # exactly when dx > 0: P = Φ(offset / σ) for a hand of σ = 1 mm (yaw and drop do not matter).
    sc = load_scenario(SCENARIOS / "odds_statics.toml")
    n = 1500
    result = estimate_odds(sc, n, executor="serial", what_ifs=[EDGE], offset_mm=(offset, 0.0), engine="statics", out_dir=tmp_path)
    r = result.results[0]
    assert (r.trials, r.errors, r.undecided) == (n, 0, 0)
    assert binomtest(r.collapses, n, norm.cdf(offset / 1.0)).pvalue > 1e-3
    records = _records(tmp_path / "odds.jsonl")
    clear = [x for x in records if abs(x["dx_mm"]) > 1e-6]
    assert len(clear) == n
    assert [x["collapsed"] for x in clear] == [x["dx_mm"] > 0 for x in clear]
    assert result.to_dict()["engine"] == "statics"


def test_the_batch_agrees_with_judge_trial_by_trial():
    # A magnet-held cantilever with a tile on it (a margin of about 3°) under a shaky hand:
    # trials both stand and fall; each has its own friction, mass and polarisations.
    sc = load_scenario(SCENARIOS / "cantilever.toml")
    structure = nominal_structure(sc)
    noise = resolve_noise(sc, {"pos_sigma_mm": 2.0, "polarization_rel_sigma": 0.3, "friction_rel_sigma": 0.3})
    job = Job(sc, structure, noise, 5, (0.0, 0.0), None, "statics")
    presets, P, Q = [], [], []
    for i in range(24):
        preset, miss = trial_draws(job, 1, i)
        p, q = with_placement(sc, structure, 1, miss[:3])
        presets.append(preset), P.append(p), Q.append(q)
    stands, refused = batch_stands(presets, np.array(P), np.array(Q), True, np.zeros(3, bool))
    one_by_one = [judge(pr, p, q, magnets=True, margin=False).stands for pr, p, q in zip(presets, P, Q)]
    assert refused == [None] * 24
    assert list(stands) == one_by_one
    assert 0 < sum(one_by_one) < 24


def test_a_trial_the_statics_refuses_is_an_error_never_a_collapse(tmp_path):
    # 3-2 and 4-6 lie end to end, touching, 4-6 at an explicit height: the hands' misses put
    # them into each other in about half the trials, a pose rigid tiles cannot take (refused
    # by the statics, or, deeper than the pose check forgives, by the scenario). Without the
    # explicit height 4-6 would rest where it is clear (whatif_step's end-to-end pair: a miss
    # of less than a millimetre into 3-2 stops at contact, a larger one puts it on 3-2).
    sc = scenario_from_dict({
        "name": "end_to_end", "structure": [
            {"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [3, 2], "pos_mm": [96, 0]}, {"pips": [4, 6], "pos_mm": [144, 0, 4]},
        ],
    })
    r = estimate_odds(sc, 60, executor="serial", engine="statics", out_dir=tmp_path).results[0]
    assert r.what_if is None and 0 < r.errors < 60
    records = _records(tmp_path / "odds.jsonl")
    refused = [x for x in records if x["error"]]
    assert any("statics cannot judge this" in x["error"] for x in refused)
    assert all(("statics cannot judge this" in x["error"] or "expected a pose clear of the other tiles" in x["error"])
               and not x["collapsed"] for x in refused)
    assert r.counted == 60 - len(refused) and r.collapses == sum(x["collapsed"] for x in records)


def test_same_seed_same_document_for_any_executor():
    sc = load_scenario(SCENARIOS / "staircase_edge.toml")
    a = estimate_odds(sc, 150, executor="serial", engine="statics").to_dict()
    b = estimate_odds(sc, 150, jobs=2, engine="statics").to_dict()
    c = estimate_odds(sc, 150, executor="serial", engine="statics", seed=sc.seed + 1).to_dict()
    assert a == b and a["engine"] == "statics" and a["seed"] != c["seed"]


def test_engine_and_screen_are_checked():
    sc = load_scenario(SCENARIOS / "odds_statics.toml")
    with pytest.raises(InputError, match="engine: expected one of dynamics, statics"):
        estimate_odds(sc, 2, executor="serial", engine="fast")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InputError, match="screen"):
            rank_placements(load_scenario(SCENARIOS / "whatif_step.toml"), "2,4", 2, screen=bad, settled=([0], [0]))


# -- what-if screening ----------------------------------------------------------------------


def test_screen_confirms_the_best_with_the_dynamics():
    sc = load_scenario(SCENARIOS / "whatif_step.toml")
    ranked = rank_placements(sc, "2,4", 4, rule="defi", screen=1, executor="serial", parallel_only=True, engine="dynamics")
    assert [r.engine for r in ranked] == ["dynamics", "statics"]
    best, out = ranked
    assert "bridging" in best.candidate.describe() and best.p_collapse == 0.0 and best.statics.stands
    assert not out.statics.stands and out.odds is None and out.to_dict()["engine"] == "statics"
    assert best.statics.margin - out.statics.margin > SCREEN_BAND_DEG
    # the one screened out falls in the dynamics too (the scenario's comment)
    from dataclasses import replace

    dyn = estimate_odds(replace(sc, what_if=(out.candidate.placement,)), 3, executor="serial").results[0]
    assert dyn.collapses == 3


def test_screen_refuses_a_structure_it_cannot_model():
    sc = load_scenario(SCENARIOS / "whatif_step.toml")
    P, Q = nominal_structure(sc)
    tilt = math.radians(3.0) / 2
    Q = Q.copy()
    Q[2] = [math.sin(tilt), 0.0, 0.0, math.cos(tilt)]  # 3-2 rolled by 3°: still on the rules' grid
    with pytest.raises(InputError, match=r"structure: statics cannot judge this: tile 2 is tilted by 3.0°"):
        rank_placements(sc, "2,4", 2, rule="defi", screen=1, executor="serial", settled=(P, Q))


def test_statics_odds_refuse_a_structure_the_statics_says_falls():
    # the magnet-held cantilever without magnets: the nominal structure cannot stand
    from dataclasses import replace

    sc = replace(load_scenario(SCENARIOS / "cantilever.toml"), magnets=False)
    with pytest.raises(InputError, match="structure: expected a structure that stands before the what-ifs; the statics says it falls"):
        estimate_odds(sc, 5, executor="serial", engine="statics")
