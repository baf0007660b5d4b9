"""Scenario values that would hang a run or make no physical sense are refused on load, the
bound named; a scenario no command can run is refused by every loader."""

from pathlib import Path

import pytest

from magdomino.errors import InputError
from magdomino.studies.scenario import load_scenario, scenario_from_dict

BASE = [{"pips": [6, 6], "pos_mm": [0, 0]}]


def _refused(data) -> str:
    with pytest.raises(InputError) as info:
        scenario_from_dict(data, source="S.toml")
    return str(info.value)


def test_a_slide_from_a_kilometre_away_is_refused():
    message = _refused({"structure": BASE, "what_if": [{"pips": [6, 5], "pos_mm": [60, 0], "slide_mm": [1e9, 0]}]})
    assert message.startswith("S.toml: what_if[0].slide_mm:") and "500 mm" in message


@pytest.mark.parametrize("key, value, bound", [
    ("mass_rel_sigma", 1e300, "[0, 1]"),
    ("pos_sigma_mm", 1e6, "[0, 50]"),
    ("drop_mm", [0, 1e9], "[0, 100]"),
])
def test_absurd_noise_is_refused_with_the_bound(key, value, bound):
    message = _refused({"structure": BASE, "noise": {key: value}})
    assert f"noise.{key}" in message and bound in message


def test_a_drop_from_a_metre_is_refused():
    message = _refused({"structure": BASE, "what_if": [{"pips": [6, 5], "on": {"tile": 0, "half": 1}, "drop_mm": 1000}]})
    assert "what_if[0].drop_mm" in message and "100" in message


def test_a_float_half_is_refused_in_one_line():
    message = _refused({"structure": [*BASE, {"pips": [6, 5], "on": {"tile": 0, "half": 1.0}}]})
    assert message == "S.toml: structure[1].on.half: expected 0 or 1, got 1.0"


def test_a_description_must_be_text():
    assert _refused({"structure": BASE, "description": 5}) == "S.toml: description: expected a string"


def test_a_structure_tile_inside_another_is_refused_on_load():
    message = _refused({"structure": [*BASE, {"pips": [6, 5], "pos_mm": [0, 0, 4]}]})
    assert message.startswith("S.toml: structure[1].pos_mm:") and "inside structure[0]" in message


def test_a_what_if_inside_a_tile_is_refused_on_load():
    message = _refused({"structure": BASE, "what_if": [{"pips": [6, 5], "pos_mm": [5, 0, 4]}]})
    assert message.startswith("S.toml: what_if[0].pos_mm:") and "inside structure[0]" in message


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b'name = "bom"\n[[structure]]\npips = [6, 6]\npos_mm = [0, 0]\n')
    assert load_scenario(path).name == "bom"


def test_a_slide_that_would_end_inside_a_tile_on_the_table_is_refused_on_load():
    # A slide ends on the table, beneath whatever is above: aimed on top of tile 0 (the
    # `on` target) it would end in tile 0 itself.
    message = _refused({"structure": BASE, "what_if": [{"pips": [6, 5], "on": {"tile": 0, "half": 0}, "slide_mm": [60, 0]}]})
    assert message.startswith("S.toml: what_if[0].slide_mm:") and "would end inside structure[0]" in message


def test_a_slide_beneath_an_overhang_is_accepted():
    # The bundled slide: it ends on the table under the overhang, clear of the supports.
    load_scenario(Path(__file__).resolve().parents[2] / "scenarios" / "slide_beneath.toml")


@pytest.mark.parametrize("z_mm, ok", [(4.0, True), (3.6, True), (3.0, False)])
def test_an_explicit_height_below_half_a_thickness_is_refused(z_mm, ok):
    # Centre heights: a lying tile's centre is half its thickness (4 mm) above the table;
    # contact and rounding within half a millimetre are let through.
    data = {"structure": [{"pips": [6, 6], "pos_mm": [0, 0, z_mm]}]}
    if ok:
        scenario_from_dict(data, source="S.toml")
    else:
        assert "mm inside the table" in _refused(data)


TOWER = ["6-6 at (0, 0) mm", "6-3 on #0 half 1", "3-3 on #1 half 1"]
"""#2 lies on #1's half 1: that half is covered."""


def test_a_placement_on_a_covered_half_is_refused_in_one_line_naming_both_tiles():
    message = _refused({"structure": [*TOWER, "3-1 on #1 (6-3) half 1"]})
    assert message == ("S.toml: structure[3]: expected a free half for '3-1 on #1 (6-3) half 1': "
                       "#1 (6-3) half 1 is covered by #2 (3-3); place it on #2 instead")
    message = _refused({"structure": TOWER, "what_if": ["3-1 on #1 half 1"]})
    assert message.startswith("S.toml: what_if[0]: expected a free half for '3-1 on #1 (6-3) half 1'")
    # a tile laid back over its support covers the support's other half too
    message = _refused({"structure": ["6-6 at (0, 0) mm", "6-3 on #0 half 1, back", "6-1 on #0 half 0"]})
    assert "#0 (6-6) half 0 is covered by #1 (6-3)" in message
    # free halves stay free: on #2, or on #0's half 0 where nothing lies
    scenario_from_dict({"structure": TOWER, "what_if": ["3-1 on #2 half 1", "6-1 on #0 half 0"]}, source="S.toml")


def test_the_tower_rules_never_offer_a_covered_half():
    import numpy as np

    from magdomino.games.tower.candidates import enumerate_placements
    from magdomino.studies.aiming import structure_poses

    scenario = scenario_from_dict({"structure": TOWER}, source="S.toml")
    poses = structure_poses(scenario, np.asarray(scenario.preset.tile.size, float))
    settled = (np.array([p for p, _ in poses]), np.array([q for _, q in poses]))
    for rule in ("any", "defi"):
        texts = [c.describe() for c in enumerate_placements(scenario, (3, 1), settled, rule=rule)]
        assert texts and not [t for t in texts if " on #1 " in t and "half 1" in t], texts
