"""Calibration: measurements taken by PyBullet on a known preset, with noise, give
the preset back inside the fit's intervals; the fit's models against the statics."""

import math

import numpy as np
import pytest

from magdomino.model.measurements import measurements_from_dict
from magdomino.model.presets import load_preset, with_overrides
from magdomino.studies import calibrate_dynamics as dyn
from magdomino.studies.calibrate import _Statics, across_poses, calibrate, overhang_poses

# Weak, standard and strong magnets (J 0.3, 0.6, 1.2 T), two frictions (0.5 and 0.35) and a
# table apart from the tiles; the file names the standard layout (its magnets' places and
# sizes), so J itself is found, not copied.
TRUE_SETS = {
    "weak": ("weak", {"tile.table_friction": 0.35}),
    "standard": ("standard", {}),
    "strong": ("strong", {"tile.friction": 0.35}),
}


@pytest.mark.parametrize("name", list(TRUE_SETS))
def test_round_trip_through_the_dynamics(name):
    base, overrides = TRUE_SETS[name]
    truth = with_overrides(load_preset(base), overrides)
    data, exact = dyn.measurement_dict(truth, "standard", rng=np.random.default_rng(list(TRUE_SETS).index(name)))
    result = calibrate(measurements_from_dict(data, f"<{name}>"), draws=200)
    expected = {"table friction": truth.tile.table_mu, "tile friction": truth.tile.friction,
                "polarization": truth.tile.magnets[0].polarization}
    for param, value in expected.items():
        p = result.parameter(param)
        assert p.low <= value <= p.high, (name, param, value, p)
        assert p.high - p.low < 1.2 * value  # an interval that says something (strong magnets: wide, their J is)
    assert all(row.inside for row in result.rows) and not result.conflicts
    # The fitted preset's dynamics agree with the measurements: no slide and no tip below
    # each measured mean by two sigma, a slide and a tip above it.
    fitted = result.preset
    for row in result.rows:
        lo, hi = row.mean - 2 * row.sigma, row.mean + 2 * row.sigma
        if row.key.startswith("slide"):
            on = "table" if "table" in row.what else "tile"
            assert not dyn.slides(fitted, on, lo) and dyn.slides(fitted, on, hi), row
        else:
            assert not dyn.tips(fitted, lo) and dyn.tips(fitted, hi), row


def test_tile_slide_closed_form_is_the_statics_margin():
    # mu = sin(theta) / (cos(theta) - F/mg) (the magnets' normal force F on a tile laid
    # across): the angle it predicts is the statics' tilt margin of that set-up.
    for name, mu in (("weak", 0.3), ("strong", 0.6)):
        preset = with_overrides(load_preset(name), {"tile.friction": mu})
        st = _Statics(preset)
        f = st.normal_magnet_ratio()
        theta = st.slide_angle("tile")
        assert math.sin(math.radians(theta)) / (math.cos(math.radians(theta)) - f) == pytest.approx(mu, rel=1e-3)
    assert _Statics(with_overrides(load_preset("standard"), {"tile.table_friction": 0.3})).slide_angle("table") == pytest.approx(
        math.degrees(math.atan(0.3)), abs=1e-6)


def test_largest_overhang_is_where_the_statics_judge_turns():
    # The fit's root-found overhang against judge() itself: stands 0.2 mm inside, falls 0.2 mm out
    # (the tile-on-tile friction high, as the fit's set-up: only tipping is measured).
    from magdomino.physics.statics import judge

    for name in ("weak", "strong"):
        preset = with_overrides(load_preset(name), {"tile.friction": 5.0})
        s = _Statics(preset).largest_overhang(1.0)
        for ds, stands in ((-2e-4, True), (2e-4, False)):
            P, Q = overhang_poses(preset.tile.size, s + ds)
            assert judge(preset, P, Q, placed=1, margin=False).stands is stands, (name, s, ds)


def test_magnets_scale_as_the_root_of_mass():
    # Only k^2 / m matters (the equilibrium is homogeneous in the loads): a tile twice as heavy
    # needs magnets sqrt(2) times as strong for the same overhang.
    light = _Statics(load_preset("standard"))
    heavy = _Statics(with_overrides(load_preset("standard"), {"tile.mass_g": 20}))
    s = 0.027
    assert heavy.lambda_min(s) == pytest.approx(2 * light.lambda_min(s), rel=1e-6)


def _data(**changes):
    data = {"name": "t", "magnet_layout": "standard", "tile": {"size_mm": [48, 24, 8], "mass_g": 10},
            "slide": [{"on": "table", "angle_deg": [26, 27]}, {"on": "tile", "angle_deg": [25, 26]}],
            "overhang": [{"direction": "along", "overhang_mm": [27.5, 27.6]}]}
    data.update(changes)
    return data


def test_irreconcilable_overhangs_are_said_plainly():
    data = _data(overhang=[{"overhang_mm": [27.5, 27.6]}, {"overhang_mm": [25.0, 25.1]}])
    result = calibrate(measurements_from_dict(data), draws=50)
    assert len(result.conflicts) == 1
    text = result.conflicts[0]
    assert text.startswith("irreconcilable") and "overhang[0] alone needs J" in text and "overhang[1] alone needs J" in text
    assert "closest fit" in text
    assert [r.inside for r in result.rows if r.key.startswith("overhang")].count(False) >= 1


def test_bounce_gives_restitution_and_predicts_the_rebound():
    data = _data(bounce=[{"height_mm": 100, "rebound_mm": [9, 9]}])
    result = calibrate(measurements_from_dict(data), draws=50)
    assert result.parameter("restitution").value == pytest.approx(0.3)
    assert result.preset.tile.restitution == pytest.approx(0.3)
    row = next(r for r in result.rows if r.key == "bounce[0]")
    assert row.predicted == pytest.approx(9.0)


def test_the_written_preset_is_a_preset_with_its_spread(tmp_path):
    from magdomino.model.presets import write_preset

    result = calibrate(measurements_from_dict(_data()), draws=50)
    back = load_preset(write_preset(result.preset, tmp_path / "mine.toml"))
    assert back.tile.table_friction == pytest.approx(result.parameter("table friction").value)
    assert back.tile.friction == pytest.approx(result.parameter("tile friction").value)
    assert set(back.spread) == {"polarization_rel_sigma", "friction_rel_sigma", "mass_rel_sigma"}
    assert back.tile.magnets[0].polarization == pytest.approx(result.parameter("polarization").value)
    assert across_poses(back.tile.size)[0][1, 1] == pytest.approx(0.0)  # the slide set-up is centred


def test_a_presets_spread_is_the_odds_noise_default():
    from dataclasses import replace
    from pathlib import Path

    from magdomino.studies.scenario import load_scenario
    from magdomino.studies.trials import NOISE_DEFAULTS, resolve_noise

    sc = load_scenario(Path(__file__).resolve().parents[2] / "scenarios" / "zigzag.toml")
    assert "mass_rel_sigma" not in sc.noise
    assert resolve_noise(sc)["mass_rel_sigma"] == NOISE_DEFAULTS["mass_rel_sigma"]
    spread = replace(sc, preset=replace(sc.preset, spread={"mass_rel_sigma": 0.07}))
    assert resolve_noise(spread)["mass_rel_sigma"] == 0.07
    assert resolve_noise(spread, {"mass_rel_sigma": 0.01})["mass_rel_sigma"] == 0.01  # the caller still wins


def test_measurements_no_magnet_explains_are_said_plainly():
    # 40 mm out: no J up to 2 T holds it (left out; nothing else measures J: the layout's kept).
    result = calibrate(measurements_from_dict(_data(overhang=[{"overhang_mm": [40.0]}])), draws=20)
    assert result.conflicts == ["overhang[0]: no magnet strength up to 2 T holds a tile 40 mm out in the statics "
                                "(left out of the fit): check the measurement, or the magnet layout"]
    assert not result.parameter("polarization").measured
    assert result.preset.tile.magnets[0].polarization == load_preset("standard").tile.magnets[0].polarization
    # 20 mm: it tipped before its centre passed the edge (24 mm).
    result = calibrate(measurements_from_dict(_data(overhang=[{"overhang_mm": [20.0]}])), draws=20)
    assert result.conflicts[0].startswith("overhang[0]: the tile tipped where it stands without magnets (the fit predicts 24 mm)")
