import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from magdomino.errors import InputError
from magdomino.model.presets import (
    COLLAPSE_DEFAULTS,
    SOLVER_DEFAULTS,
    load_preset,
    preset_from_dict,
    preset_names,
)

GOOD = {
    "name": "mine",
    "description": "test",
    "tile": {
        "size_mm": [48, 24, 8],
        "mass_g": 10,
        "magnets": [
            {"pos_mm": [-12, 0, 0], "shape": "cylinder", "size_mm": [6, 2], "polarization_T": 1.2, "axis": [0, 0, 2]},
            {"pos_mm": [12, 0, 0], "shape": "cuboid", "size_mm": [4, 4, 2], "polarization_T": 1.0},
        ],
    },
}


def test_bundled_presets_load_and_are_the_promised_set():
    assert {"toy", "standard", "strong", "weak", "free", "plain"} <= set(preset_names())
    for name in preset_names():
        p = load_preset(name)
        assert p.name == name
        assert "measured" in p.description.lower() or "assumed" in p.description.lower()
    assert load_preset("plain").tile.magnets == ()
    assert all(m.free for m in load_preset("free").tile.magnets)
    strong = load_preset("strong").tile.magnets[0]
    assert strong.dimensions == pytest.approx((0.006, 0.002)) and strong.polarization == 1.2


def test_values_are_converted_to_si_and_defaults_filled():
    p = preset_from_dict(GOOD)
    assert np.allclose(p.tile.size, [0.048, 0.024, 0.008])
    assert p.tile.mass == pytest.approx(0.010)
    assert p.tile.friction == 0.5 and p.tile.restitution == 0.0
    assert np.allclose(p.tile.magnets[0].axis, [0, 0, 1])  # normalised
    assert p.to_dict()["solver"] == SOLVER_DEFAULTS and p.to_dict()["collapse"] == COLLAPSE_DEFAULTS
    # Moment of a 6x2 mm N35 disc: J V / mu0.
    assert p.tile.magnets[0].moment == pytest.approx(1.2 * math.pi * 0.003**2 * 0.002 / (4e-7 * math.pi))


def _with(path, value):
    data = json.loads(json.dumps(GOOD))
    node = data
    for k in path[:-1]:
        node = node[k]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    "path, value, key",
    [
        (("tile", "size_mm"), KeyError, "tile.size_mm"),
        (("tile", "mass_g"), KeyError, "tile.mass_g"),
        (("tile", "mass_g"), -1, "tile.mass_g"),
        (("tile", "mass_g"), 0, "tile.mass_g"),
        (("tile", "size_mm"), [48, 0, 8], "tile.size_mm[1]"),
        (("tile", "size_mm"), [48, 24], "tile.size_mm"),
        (("tile", "frcition"), 0.3, "tile.frcition"),
        (("tile", "magnets", 0, "shape"), "sphere", "tile.magnets[0].shape"),
        (("tile", "magnets", 0, "axis"), [0, 0, 0], "tile.magnets[0].axis"),
        (("tile", "magnets", 0, "axis"), ["x", 0, 1], "tile.magnets[0].axis[0]"),
        (("tile", "magnets", 1, "size_mm"), [4, 4], "tile.magnets[1].size_mm"),
        (("tile", "magnets", 0, "polarization_T"), -1.2, "tile.magnets[0].polarization_T"),
        (("tile", "magnets", 0, "pos_mm"), [40, 0, 0], "tile.magnets[0].pos_mm"),
        (("tile", "colours"), ["red", "mauve-ish"], "tile.colours[1]"),
        (("solver",), {"time_step_s": -0.001}, "solver.time_step_s"),
        (("collapse",), {"max_shift": 5}, "collapse.max_shift"),
        (("name",), KeyError, "name"),
        (("solver",), {"time_step_s": 0.5}, "solver.time_step_s"),
        (("collapse",), {"settle_hold_s": 4.0}, "collapse.settle_hold_s"),
        (("tile", "magnets", 0, "pos_mm"), [-22, 0, 0], "tile.magnets[0]"),  # sticks out of the tile end
        (("tile", "magnets", 1, "pos_mm"), [-10, 0, 0], "tile.magnets[1]"),  # overlaps magnet 0
    ],
)
def test_bad_values_name_the_file_and_key(path, value, key):
    with pytest.raises(InputError) as err:
        preset_from_dict(_with(path, value), source="my.toml")
    assert err.value.source == "my.toml" and err.value.key == key
    assert str(err.value).startswith(f"my.toml: {key}: ")
    assert "\n" not in str(err.value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 100) | st.floats(allow_nan=True) | st.text(max_size=5),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
        max_leaves=12,
    ),
    st.sampled_from(["name", "tile", "tile.size_mm", "tile.mass_g", "tile.magnets", "solver", "collapse", "junk"]),
)
def test_any_garbage_value_is_an_input_error_or_a_valid_preset(garbage, where):
    data = json.loads(json.dumps(GOOD))
    node, *rest = where.split(".")
    if rest:
        data[node][rest[0]] = garbage
    else:
        data[node] = garbage
    try:
        p = preset_from_dict(data, source="fuzz.toml")
    except InputError as exc:
        assert str(exc).startswith("fuzz.toml: ") and "\n" not in str(exc)
    else:
        assert p.tile.mass > 0 and np.all(p.tile.size > 0)




def test_a_key_with_a_line_break_is_named_on_one_line():
    # Found by the fuzz test above: a TOML key may hold any character.
    data = json.loads(json.dumps(GOOD))
    data["tile"]["size\nmm"] = 1
    with pytest.raises(InputError) as info:
        preset_from_dict(data, source="fuzz.toml")
    assert str(info.value).startswith("fuzz.toml: tile.size\\nmm: unknown key") and "\n" not in str(info.value)


def test_the_default_preset_is_the_toy_and_standard_keeps_its_name():
    from magdomino.model.presets import DEFAULT_PRESET
    from magdomino.studies.scenario import scenario_from_dict

    toy, standard = load_preset(DEFAULT_PRESET), load_preset("standard")
    assert DEFAULT_PRESET == "toy" and [m.polarization for m in toy.tile.magnets] == [1.2, 1.2]
    assert [m.polarization for m in standard.tile.magnets] == [0.6, 0.6]
    # the same tiles: only the magnets' strength was chosen (by the design study)
    assert (tuple(toy.tile.size) == tuple(standard.tile.size) and toy.tile.mass == standard.tile.mass
            and toy.tile.friction == standard.tile.friction)
    assert "docs/study/magnets.png" in toy.description
    assert scenario_from_dict({"structure": ["6-6 at (0, 0) mm"]}).preset.name == "toy"  # a scenario that names none


def test_the_commands_help_names_the_default_preset():
    from magdomino.faces.overrides import PRESET_DEFAULT_HELP
    from magdomino.model.presets import DEFAULT_PRESET

    assert PRESET_DEFAULT_HELP.startswith(f"default: {DEFAULT_PRESET},")
