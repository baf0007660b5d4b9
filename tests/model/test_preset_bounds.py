"""Preset values outside what makes physical sense are refused on load, the bound named
(absurd masses, time steps, iteration counts and time limits, bad colours, a BOM)."""

import copy

import pytest

from magdomino.errors import InputError
from magdomino.model.presets import colour_rgb, load_preset, preset_from_dict


@pytest.fixture(scope="module")
def base():
    return load_preset("standard").to_dict()


def _refusal(base, path, value, **more):
    data = copy.deepcopy(base)
    for key, v in [(path, value), *more.items()]:
        table, name = key.rsplit(".", 1) if "." in key else ("", key)
        node = data
        for part in filter(None, table.split(".")):
            node = node[part]
        node[name] = v
    with pytest.raises(InputError) as info:
        preset_from_dict(data, "P.toml")
    return str(info.value)


@pytest.mark.parametrize(
    "path, value, bound",
    [
        ("tile.mass_g", 1e20, "(0, 1000]"),
        ("tile.friction", 6.0, "[0, 5]"),
        ("solver.time_step_s", 1e-9, "[1e-05,"),
        ("solver.iterations", 1e13, "[1, 1000]"),
        ("solver.magnet_idle_steps", 10**6, "[1, 1000]"),
        ("solver.gravity_m_s2", 1e9, "[0, 100]"),
        ("collapse.time_limit_s", 1e12, "(0, 60]"),
        ("collapse.max_tilt_deg", 1e6, "(0, 180]"),
    ],
)
def test_absurd_values_are_refused_with_the_bound(base, path, value, bound):
    message = _refusal(base, path, value)
    assert message.startswith(f"P.toml: {path}: expected") and bound in message and "\n" not in message


def test_a_size_beyond_half_a_metre_is_refused(base):
    assert "[1, 500]" in _refusal(base, "tile.size_mm", [48, 24, 1e9])


def test_a_time_limit_and_a_hold_that_would_hang_are_refused(base):
    message = _refusal(base, "collapse.time_limit_s", 1e12, **{"collapse.settle_hold_s": 1e11})
    assert "collapse." in message and "60" in message


def test_the_steps_of_a_settle_are_bounded(base):
    # 60 s at 10 µs is 6e6 steps: each value alone is allowed, together they are not.
    message = _refusal(base, "collapse.time_limit_s", 60.0, **{"solver.time_step_s": 1e-5})
    assert "steps" in message and "2,000,000" in message


def test_colours_are_names_or_six_hex_digits():
    assert colour_rgb("#-1-1-1") is None and colour_rgb("# 1 2 3") is None and colour_rgb("#12345g") is None
    assert colour_rgb("#ff0000") == (1.0, 0.0, 0.0) and colour_rgb("#00FF00") == (0.0, 1.0, 0.0)


def test_a_bad_colour_is_refused_on_load(base):
    assert "tile.colours[0]" in _refusal(base, "tile.colours", ["#-1-1-1"])


def test_a_byte_order_mark_is_accepted(tmp_path):
    text = (load_preset("standard").source and open(load_preset("standard").source, encoding="utf-8").read())
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_preset(path).to_dict() == load_preset("standard").to_dict()
