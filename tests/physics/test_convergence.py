"""The shipped solver settings give the verdicts of a time step half as large.

The validation set (tests/data/validation_set.json, written by
validation/make_validation_set.py) holds the bundled scenarios, the statics families, every
placement of several physics games and random structures, magnets on and off. Each case is
judged twice from the same inputs: at the shipped settings and with half the time step
(everything else the same). A verdict that changed with the step would be the integrator's,
not the physics'.

Knife-edge placements, whose verdict changes when the placement moves by half a millimetre
(a tile with its centre of mass right over an edge: every outward Défi placement without
magnets), have no answer a step size could keep; the set leaves them out
(:func:`magdomino.studies.validation.robust`), and the generator says how many.
"""

from collections import Counter

import pytest
from conftest import ROOT

from magdomino.model.presets import load_preset
from magdomino.studies.validation import judge_all, load_cases

CASES = ROOT / "tests" / "data" / "validation_set.json"


@pytest.mark.slow
def test_the_shipped_step_gives_the_verdicts_of_half_the_step():
    cases = load_cases(CASES)
    played = [c for c in cases if c.source.startswith(("game", "random"))]
    assert len(played) >= 200 and sum(c.magnets for c in cases) >= 60 and sum(not c.magnets for c in cases) >= 40
    step = load_preset("standard").solver.time_step
    assert all(load_preset(name).solver.time_step == step for name in {c.preset for c in cases})
    shipped, _ = judge_all(cases)
    halved, _ = judge_all(cases, time_step_s=step / 2)
    differ = [(c.name, a, b) for c, a, b in zip(cases, shipped, halved) if a != b]
    assert not differ, f"{len(differ)} of {len(cases)} verdicts change with half the step: {differ[:10]}"
    # The set exercises every outcome that matters, not only towers that stand.
    kinds = Counter(shipped)
    assert kinds["fall"] >= 20 and kinds["stood"] >= 20 and kinds["error"] == 0, kinds
