"""The one risk scale (:mod:`magdomino.studies.risk_scale`) against PyBullet's verdicts on
the statics' toy validation sets: the statics' recorded answers and margins, classed, and
the recorded PyBullet run of the same positions (no noise)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from magdomino.physics.statics_adjudicator import STANDING_MAX, UNKNOWN_RISK, statics_risk
from magdomino.studies.risk_scale import RISK_CLASSES, RISK_COLOURS, risk_class, risk_words, seat_risk_class

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "validation"


@pytest.mark.parametrize("name", ["statics_toy_validation", "statics_toy_chosen"])
def test_a_safe_spot_never_fell_in_pybullet_and_unsure_is_the_statics_own_share(name):
    record = json.loads((ASSETS / f"{name}.json").read_text())
    classes, fell = [], []
    for position in record["positions"]:
        statics, pybullet = position["statics"].get("placement"), position["pybullet"].get("placement")
        if statics is None or pybullet is None:  # the tower before it was not judged
            continue
        classes.append(risk_class(statics["verdict"], statics.get("margin_deg")))
        fell.append(bool(pybullet["collapsed"]))
    safe = [f for c, f in zip(classes, fell) if c == "safe"]
    assert len(safe) > 50 and not any(safe)
    assert not any(f for c, f in zip(classes, fell) if c == "tight")
    assert all(f for c, f in zip(classes, fell) if c == "falls")
    unsure_share = classes.count("unsure") / len(classes)
    statics_share = record["summary"]["placement"]["unsure"] / record["summary"]["placement"]["judged"]
    assert unsure_share <= statics_share + 1e-12
    assert 0.04 < unsure_share < 0.12  # the scale does not call everything unsure


def test_the_classes_of_answers_margins_and_odds():
    assert risk_class("stands", 19.8) == "safe"
    assert risk_class("stands", 3.0) == "tight"
    assert risk_class("stands", None) == "tight"  # a margin not measured is no promise
    assert risk_class("unsure", 25.0) == "unsure"
    assert risk_class(None) == "unsure"
    assert risk_class("falls", None) == "falls"
    assert risk_class("falls", None, p_collapse=0.05) == "safe"  # the odds decide alone
    assert risk_class("stands", 30.0, p_collapse=0.3) == "tight"
    assert risk_class("stands", 30.0, p_collapse=0.5) == "falls"
    assert set(RISK_COLOURS) == set(RISK_CLASSES)


class _Static:
    def __init__(self, stands, margin, load_factor=None):
        self.stands, self.margin, self.load_factor = stands, margin, load_factor


def test_a_seats_risk_reads_on_the_same_scale():
    assert seat_risk_class(statics_risk(_Static(True, 19.8))) == "safe"
    assert seat_risk_class(statics_risk(_Static(True, 4.0))) == "tight"
    assert seat_risk_class(statics_risk(_Static(False, None))) == "falls"
    assert seat_risk_class(UNKNOWN_RISK) == "unsure"
    assert seat_risk_class(STANDING_MAX) == "tight"
    assert seat_risk_class(None) == "unsure"


def test_one_wording():
    assert risk_words("safe", margin_deg=19.76) == "safe, margin 19.8°"
    assert risk_words("unsure", margin_deg=19.76).startswith("unsure")
    assert risk_words("tight", p_collapse=0.2, ci95=(0.06, 0.51), trials=10) == "tight, p(collapse) 0.20 [0.06, 0.51] of 10"


def test_on_the_held_out_toy_positions_a_safe_spot_stands_in_pybullet():
    """The held-out toy positions of the hybrid validation (seeded Défi and En quinconce games),
    classed from the statics' answer at their nominal poses, against PyBullet's verdict without
    noise kept in ``hybrid_toy_games_held_out_pybullet.json`` (made by ``scripts/bench --only
    agents``): no spot classed safe fell, and the unsure share stays the statics' own."""
    import hashlib

    from magdomino.model.presets import load_preset
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator
    from validation import toy_positions

    kept = json.loads((ASSETS / "hybrid_toy_games_held_out_pybullet.json").read_text())["verdicts"]
    statics = StaticsAdjudicator(load_preset(toy_positions.PRESET))
    classes, fell, statics_unsure = [], [], 0
    for position, view in toy_positions.position_views(toy_positions.HELD_OUT):
        key = hashlib.sha256(json.dumps([position["id"], position["structure"], position["what_if"]]).encode()).hexdigest()[:16]
        entry = kept.get(position["id"])
        assert entry is not None and entry["key"] == key, f"{position['id']}: re-make the PyBullet verdicts (scripts/bench --only agents)"
        if entry["verdict"] is None:  # the structure did not stand by itself
            continue
        answer = statics.answer(view)
        statics_unsure += answer["verdict"] in ("unsure", "refused")
        classes.append(risk_class(answer["verdict"] if answer["verdict"] != "refused" else None, answer["margin_deg"]))
        fell.append(entry["verdict"] == "falls")
    assert len(classes) > 100
    safe = [f for c, f in zip(classes, fell) if c == "safe"]
    assert len(safe) > 20 and not any(safe)
    assert not any(f for c, f in zip(classes, fell) if c == "tight")
    assert not all(f for c, f in zip(classes, fell) if c == "unsure")  # where PyBullet goes both ways
    assert classes.count("unsure") == statics_unsure  # (17 of 132, 12.9 %: the statics' own share on these positions)
