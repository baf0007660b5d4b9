"""Figures: PNGs of a sensible size; centres of mass by hand; the settle's time series."""

import numpy as np
import pytest
from conftest import ROOT

from magdomino.faces.plots import (
    construction_figure,
    draw_construction,
    stack_centres,
    trace_figure,
    whatif_figure,
)
from magdomino.model.presets import load_preset
from magdomino.studies.scenario import load_scenario
from magdomino.studies.simulation import settle_structure, try_placement

UP = np.array([0.0, 0.0, 0.0, 1.0])


def _png(path, min_w=500, min_h=300):
    from matplotlib.image import imread

    image = imread(path)
    h, w = image.shape[:2]
    assert w >= min_w and h >= min_h, (w, h)
    assert w <= 3000 and h <= 3000
    assert np.std(image[..., :3]) > 0.02  # not blank
    return image


def _staircase(n):
    """n tiles, each with its half 0 on the half 1 of the one below (48 x 24 x 8 mm)."""
    positions = np.array([[0.024 * k, 0.0, 0.004 + 0.008 * k] for k in range(n)])
    return positions, np.tile(UP, (n, 1))


def test_centres_of_mass_of_a_staircase_by_hand():
    size = (0.048, 0.024, 0.008)
    p, q = _staircase(2)
    c = stack_centres(p, q, size)
    assert c["rests_on"] == [[], [0]]
    com, members = c["loads"][0]
    assert members == [1]
    assert com * 1000 == pytest.approx([24.0, 0.0, 12.0])  # the load on 1-1: the step, right over its edge
    assert c["all"] * 1000 == pytest.approx([12.0, 0.0, 8.0])  # (0 + 24) / 2, (4 + 12) / 2
    p, q = _staircase(3)
    c = stack_centres(p, q, size)
    com, members = c["loads"][0]
    assert members == [1, 2]
    assert com * 1000 == pytest.approx([36.0, 0.0, 16.0])  # 12 mm beyond 1-1's edge at x = 24 mm
    assert c["loads"][1][0] * 1000 == pytest.approx([48.0, 0.0, 20.0])
    assert 2 not in c["loads"]


def test_side_view_draws_the_combined_centre_where_the_hand_puts_it(tmp_path):
    from matplotlib.figure import Figure

    preset = load_preset("standard")
    p, q = _staircase(2)
    fig = Figure()
    side, top = fig.subplots(1, 2)
    draw_construction(side, top, p, q, [(1, 1), (1, 2)], preset)
    load = [line for line in side.lines if line.get_gid() == "load-com-0"]
    assert len(load) == 1
    assert (load[0].get_xdata()[0], load[0].get_ydata()[0]) == pytest.approx((24.0, 12.0))
    whole = [line for line in side.lines if line.get_gid() == "all-com"][0]
    assert (whole.get_xdata()[0], whole.get_ydata()[0]) == pytest.approx((12.0, 8.0))
    # magnets are drawn: one marker per magnet per tile in each view
    n_mag = len(preset.tile.magnets)
    dots = [line for line in top.lines if line.get_marker() == "o" and len(line.get_xdata()) == 1]
    assert len(dots) == 2 * n_mag
    path = construction_figure(p, q, [(1, 1), (1, 2)], preset, tmp_path / "staircase.png", title="staircase")
    _png(path)


def test_settle_trace_and_shift_curves(tmp_path):
    sc = load_scenario(ROOT / "scenarios" / "staircase_edge.toml")
    verdict0, settled = settle_structure(sc)
    trace, trace1 = [], []
    falls = try_placement(sc, settled, sc.what_if[0], trace=trace)
    assert falls.collapsed and falls.reason == "tilt"
    t = [row[0] for row in trace]
    assert t[0] == 0.0 and all(b > a for a, b in zip(t, t[1:]))
    assert trace[-1][0] == pytest.approx(falls.sim_time_s)
    assert trace[-1][1] == pytest.approx(falls.max_shift_mm, abs=1e-6)
    assert trace[-1][2] == pytest.approx(falls.max_tilt_deg, abs=1e-6) and trace[-1][2] > 10
    stands = try_placement(sc, settled, sc.what_if[1], trace=trace1)
    assert not stands.collapsed and max(row[2] for row in trace1) < 10
    path = trace_figure([("step outward", trace), ("turned back", trace1)], tmp_path / "trace.png",
                        thresholds=falls.thresholds)
    _png(path)


def test_whatif_figure_from_a_document(tmp_path):
    doc = {
        "name": "x", "preset": "standard", "tile": [2, 4], "rule": "defi",
        "noise": {"pos_sigma_mm": 1, "yaw_sigma_deg": 2, "drop_mm": [0, 2], "polarization_rel_sigma": 0.05,
                  "friction_rel_sigma": 0.1, "mass_rel_sigma": 0.02},
        "candidates": [
            {"placement": {"description": f"2-4 candidate {k}"}, "p_collapse": p, "ci95": [max(0, p - 0.2), min(1, p + 0.2)],
             "trials": 20, "errors": 0}
            for k, p in enumerate([0.0, 0.1, 0.5, 1.0])
        ],
    }
    _png(whatif_figure(doc, tmp_path / "rank.png"), min_h=250)


def test_simulate_plot_cli(cli, tmp_path):
    png = tmp_path / "sim.png"
    r = cli("simulate", ROOT / "scenarios" / "staircase_edge.toml", "--plot", png)
    assert r.returncode == 0, r.stderr
    assert f"wrote {png}" in r.stdout
    _png(png, min_w=900, min_h=700)
