"""The statics against PyBullet on game positions (``validation/statics_toy_validation.py``), and
the statics engine's graded verdicts."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from magdomino.studies.statics_validation import agreement, view_from_dict, view_to_dict

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("statics_toy_validation", ROOT / "validation" / "statics_toy_validation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _game_views(rule: str, seed: int, physics: str = "statics"):
    """The views of one seeded careful game (the script's own recorder and game loop)."""
    from magdomino.model.presets import load_preset

    script = _script()
    return script.game_positions(load_preset("toy"), rule, "careful", physics, seed, 1000)


def test_a_position_survives_json_exactly():
    views = _game_views("quinconce", 4100)
    assert any(v.motion == "slide" for v in views) and any(v.mode == "flat" for v in views)
    for view in views:
        assert view_from_dict(json.loads(json.dumps(view_to_dict(view)))) == view


def test_agreement_counts_sure_answers_apart_from_unsure_ones():
    def row(tower, placement, pyb_tower, pyb_placement):
        def pb(c):
            return None if c is None else {"collapsed": c, "error": None, "settled": True}

        return {"statics": {"tower": {"verdict": tower, "rigid": tower != "falls"}, "placement": {"verdict": placement, "rigid": True}},
                "pybullet": {"tower": pb(pyb_tower), "placement": pb(pyb_placement)}}

    rows = [row("stands", "stands", False, False), row("stands", "unsure", False, True), row("falls", "falls", True, None),
            row("stands", "stands", False, True)]
    a = agreement(rows)
    assert a["tower"] == {"judged": 4, "sure": 4, "agree": 4, "unsure": 0, "refused": 0, "sure_stands_fell": 0, "sure_falls_stood": 0,
                          "rigid_agree": 4}
    assert a["placement"]["judged"] == 3 and a["placement"]["sure"] == 2 and a["placement"]["agree"] == 1
    assert a["placement"]["unsure"] == 1 and a["placement"]["sure_stands_fell"] == 1 and a["placement"]["rigid_agree"] == 1


def test_the_statics_engine_calls_a_tie_a_fall_as_the_dynamics_does():
    # Magnets off: 5-6 half off 6-6 (its centre of mass right above 6-6's end): a tie. The
    # rigid check stands with a zero margin; PyBullet, spawning the pair at rest, topples it.
    from magdomino.studies.engines import get_engine
    from magdomino.studies.scenario import scenario_from_dict

    sc = scenario_from_dict({"preset": "standard", "magnets": False, "structure": [
        {"pips": [6, 6], "pos_mm": [0, 0]}, {"pips": [6, 5], "on": {"tile": 0, "half": 1}}]})
    static = get_engine("statics").simulate(sc).structure
    assert static.collapsed and static.reason == "falls" and static.margin_deg == pytest.approx(0.0, abs=1e-6)
    assert static.unsure is False
    assert get_engine("dynamics").simulate(sc).structure.collapsed


@pytest.mark.slow
def test_a_slice_of_the_validation_agrees_with_pybullet(tmp_path):
    # One game of each kind (both rules, random and careful seats, statics- and
    # PyBullet-judged), 3 positions each, every one judged by both engines.
    out = tmp_path / "slice.json"
    assert _script().main(["--quick", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["positions"]) >= 20 and not (tmp_path / "slice.json.partial.jsonl").exists()
    for part in ("tower", "placement"):
        c = doc["summary"][part]
        assert c["sure_stands_fell"] == 0, part
        assert c["agree"] >= 0.98 * c["sure"] and c["unsure"] <= 0.2 * c["judged"], (part, c)
