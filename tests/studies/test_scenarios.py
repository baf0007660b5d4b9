"""Every curated scenario in scenarios/ runs and shows the verdicts its header promises."""

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from magdomino.model.presets import load_preset
from magdomino.studies.scenario import load_scenario
from magdomino.studies.simulation import simulate

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"

S, C, NOT_TRIED = "stood", "collapsed", "not tried"
EXPECTED = {
    # name: (structure, [what-if 0, what-if 1, ...])
    "demo": (S, [S, C]),
    "zigzag": (S, [S, C]),
    "staircase_edge": (S, [C, S]),
    "cantilever": (S, [S, C]),
    "bridge": (S, [S, S]),
    "slide_beneath": (S, [S, S]),
    "weak_vs_strong_strong": (S, [S, S]),
    "weak_vs_strong_weak": (C, [NOT_TRIED, NOT_TRIED]),
    "free_magnets": (S, [S, C]),
}


def outcome(verdict) -> str:
    if verdict is None:
        return NOT_TRIED
    assert verdict.error is None, verdict.error
    if verdict.collapsed:
        return C
    assert verdict.settled, f"neither settled nor collapsed: {verdict.reason}"
    return S


@cache
def run(name: str, preset: str | None = None, magnets: bool | None = None):
    scenario = load_scenario(SCENARIOS / f"{name}.toml")
    if preset is not None:
        scenario = replace(scenario, preset=load_preset(preset))
    if magnets is not None:
        scenario = replace(scenario, magnets=magnets)
    return simulate(scenario)


def test_the_curated_scenarios_are_there_with_a_header():
    for name in EXPECTED:
        path = SCENARIOS / f"{name}.toml"
        assert path.read_text().startswith("#"), f"{path.name}: a comment header says what it shows"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_structure(name):
    assert outcome(run(name).structure) == EXPECTED[name][0]


WHAT_IFS = [(name, i) for name in sorted(EXPECTED) for i in range(len(EXPECTED[name][1]))]


@pytest.mark.parametrize("name, i", WHAT_IFS)
def test_what_if(name, i):
    result = run(name)
    assert len(result.what_if) == len(EXPECTED[name][1])
    assert outcome(result.what_if[i]) == EXPECTED[name][1][i]


def test_cantilever_is_held_by_the_magnets_alone():
    assert outcome(run("cantilever").structure) == S
    assert outcome(run("cantilever", magnets=False).structure) == C


def test_weak_vs_strong_is_one_construction_under_two_presets():
    weak = load_scenario(SCENARIOS / "weak_vs_strong_weak.toml")
    strong = load_scenario(SCENARIOS / "weak_vs_strong_strong.toml")
    assert (weak.preset.name, strong.preset.name) == ("weak", "strong")
    assert weak.structure == strong.structure and weak.what_if == strong.what_if
    assert outcome(run("weak_vs_strong_weak", preset="standard").structure) == C  # standard: falls too


def test_free_magnets_hold_what_fixed_ones_do_not():
    assert outcome(run("free_magnets").structure) == S
    assert outcome(run("free_magnets", preset="standard").structure) == C
