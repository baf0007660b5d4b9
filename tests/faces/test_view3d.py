"""The interactive 3D view (faces.view3d): one box per tile at its corners, hover texts and
labels naming the tiles, an HTML fragment that carries plotly.js, pages that draw in headless
Chromium (and a page whose figure did not draw is caught), ``report --view3d``, and the one
line that says how to install plotly when it is missing.

The figures are drawn from synthetic poses (no physics), but for the what-if's outcome and the
report.
"""

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from browser import browser_check, not_blank
from conftest import ROOT, run_cli

pytest.importorskip("plotly")  # the [view] extra, in [test]

from magdomino.errors import InputError  # noqa: E402
from magdomino.faces import view3d  # noqa: E402
from magdomino.faces.view3d import construction_figure3d, figure_html, outcome_figure3d  # noqa: E402
from magdomino.model.presets import load_preset  # noqa: E402
from magdomino.model.tiles import colour_of, colour_rgb, tile  # noqa: E402
from magdomino.optional import available  # noqa: E402

SCENARIOS = ROOT / "scenarios"
PRESET = load_preset("standard")
L, W, T = (float(v) for v in PRESET.tile.size)
TURN = [0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)]  # 90° about z
FLAT = [0.0, 0.0, 0.0, 1.0]

# Two tiles on the table, the second turned 90°, and a third across them.
POSITIONS = np.array([[0.0, 0.0, T / 2], [0.040, 0.010, T / 2], [0.020, 0.0, 1.5 * T]])
QUATERNIONS = np.array([FLAT, TURN, FLAT])
PIPS = [(1, 2), (5, 3), (6, 6)]


def tiles(fig) -> list:
    return [t for t in fig.data if t.type == "mesh3d" and t.name != "table"]


def texts(fig, name) -> list[str]:
    return [s for t in fig.data if t.type == "scatter3d" and t.name == name for s in t.text]


def corners_of(mesh) -> np.ndarray:
    return np.c_[mesh.x, mesh.y, mesh.z]


def same_points(a, b, tol=1e-9) -> bool:
    """The same set of points, in any order."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and all(np.min(np.linalg.norm(b - p, axis=1)) < tol for p in a) and \
        all(np.min(np.linalg.norm(a - p, axis=1)) < tol for p in b)


def box(centre_mm, half_mm) -> np.ndarray:
    """The 8 corners centre ± half sizes (mm), worked out here without rotations."""
    c, h = np.asarray(centre_mm, float), np.asarray(half_mm, float)
    return np.array([c + [sx * h[0], sy * h[1], sz * h[2]] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def test_one_box_per_tile_at_its_corners_in_its_colour():
    fig = construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET)
    meshes = tiles(fig)
    assert len(meshes) == 3
    half = np.array([L, W, T]) * 1000 / 2
    expected = [box(POSITIONS[0] * 1000, half),                           # along x
                box(POSITIONS[1] * 1000, half[[1, 0, 2]]),                # turned 90°: length along y
                box(POSITIONS[2] * 1000, half)]
    for mesh, corners, pips in zip(meshes, expected, PIPS):
        assert len(mesh.x) == len(mesh.y) == len(mesh.z) == 8
        assert same_points(corners_of(mesh), corners, tol=1e-3)
        r, g, b = (round(c * 255) for c in colour_rgb(colour_of(tile(*pips), PRESET.tile.colours)))
        assert mesh.color == f"rgb({r}, {g}, {b})"
        assert mesh.opacity == 1
    # The 12 triangles close the box: each lies on one face and together they cover its
    # surface once.
    mesh = meshes[1]
    v = corners_of(mesh)
    area = 0.0
    for i, j, k in zip(mesh.i, mesh.j, mesh.k):
        tri = v[[i, j, k]]
        assert any(np.ptp(tri[:, axis]) < 1e-9 for axis in range(3))
        area += np.linalg.norm(np.cross(tri[1] - tri[0], tri[2] - tri[0])) / 2
    length, width, thickness = np.array([L, W, T]) * 1000
    assert len(mesh.i) == 12 and area == pytest.approx(2 * (length * width + length * thickness + width * thickness))


def test_hover_names_the_tiles_and_labels_the_tiles_and_halves():
    fig = construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET, title="three tiles")
    assert [m.hovertext for m in tiles(fig)] == ["#0 1-2", "#1 5-3", "#2 6-6"]  # the pips as shown, half 0 first
    assert texts(fig, "tile numbers") == ["#0", "#1", "#2"]
    assert texts(fig, "halves") == ["h0", "h1"] * 3
    numbers = next(t for t in fig.data if t.name == "tile numbers")
    for k in range(3):  # each number on its tile's upper face
        assert numbers.x[k] == pytest.approx(POSITIONS[k, 0] * 1000) and numbers.z[k] > (POSITIONS[k, 2] + T / 2) * 1000
    halves = next(t for t in fig.data if t.name == "halves")
    # half 0 towards the tile's -x: along -x for tile 0, along -y for tile 1 (turned 90°)
    assert halves.x[0] < halves.x[1] and halves.y[2] < halves.y[3]
    assert fig.layout.title.text == "three tiles" and fig.layout.scene.aspectmode == "data"
    table = next(t for t in fig.data if t.name == "table")
    assert set(table.z) == {0} and min(table.x) < -L / 2 * 1000 and max(table.x) > (0.040 + W / 2) * 1000
    bare = construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET, labels=False)
    assert texts(bare, "tile numbers") == texts(bare, "halves") == [] and len(tiles(bare)) == 3


def test_removed_tiles_are_left_out_and_the_others_keep_their_numbers():
    positions = POSITIONS.copy()
    positions[1] = np.nan
    fig = construction_figure3d(positions, QUATERNIONS, PIPS, PRESET)
    assert [m.hovertext for m in tiles(fig)] == ["#0 1-2", "#2 6-6"]
    assert texts(fig, "tile numbers") == ["#0", "#2"]
    with pytest.raises(InputError, match="as many positions"):
        construction_figure3d(POSITIONS, QUATERNIONS, PIPS[:2], PRESET)


def test_outcome_the_end_opaque_and_where_moved_tiles_were_faint():
    before = (PIPS[:2], POSITIONS[:2], QUATERNIONS[:2])
    after_positions = np.r_[POSITIONS[:2], [[0.020, 0.0, 1.5 * T]]]
    after_positions[1] += [0.0, 0.005, 0.0]  # tile 1 pushed 5 mm; tile 0 stayed
    after = (PIPS, after_positions, QUATERNIONS)
    fig = outcome_figure3d(before, after, PRESET, title="what-if 0")
    meshes = tiles(fig)
    assert [(m.hovertext, m.opacity) for m in meshes] == [
        ("#0 1-2", 1), ("#1 5-3", 1), ("#2 6-6 (placed)", 1), ("#1 5-3 before", view3d.GHOST_OPACITY)]
    half = np.array([L, W, T]) * 1000 / 2
    assert same_points(corners_of(meshes[3]), box(POSITIONS[1] * 1000, half[[1, 0, 2]]), tol=1e-3)
    assert same_points(corners_of(meshes[1]), box(after_positions[1] * 1000, half[[1, 0, 2]]), tol=1e-3)
    assert texts(fig, "tile numbers") == ["#0", "#1", "#2"]
    # a tile that fell off the world is only where it was
    gone = after_positions.copy()
    gone[0] = np.nan
    fig = outcome_figure3d(before, (PIPS, gone, QUATERNIONS), PRESET)
    assert [m.hovertext for m in tiles(fig)] == ["#1 5-3", "#2 6-6 (placed)", "#0 1-2 before", "#1 5-3 before"]


def test_outcome_of_a_scenario_what_if():
    from magdomino.faces.render import what_if_outcome
    from magdomino.studies.scenario import load_scenario
    from magdomino.studies.simulation import settle_structure

    scenario = load_scenario(SCENARIOS / "demo.toml")
    _, settled = settle_structure(scenario)
    pips, positions, quaternions = what_if_outcome(scenario, 0, settled)
    n = len(scenario.structure)
    assert pips == [pl.pips for pl in scenario.structure] + [scenario.what_if[0].pips]
    assert positions.shape == (n + 1, 3) and quaternions.shape == (n + 1, 4)
    fig = outcome_figure3d(([pl.pips for pl in scenario.structure], *settled), (pips, positions, quaternions), scenario.preset)
    assert sum(not m.meta["ghost"] for m in tiles(fig)) == n + 1


def test_labels_lie_on_each_tiles_upper_face_whatever_its_tilt():
    from magdomino.maths.poses import quaternion_matrices

    tilt = math.radians(30)
    tilted = [math.sin(tilt / 2), 0.0, 0.0, math.cos(tilt / 2)]  # 30 deg about the tile's length
    upside_down = [1.0, 0.0, 0.0, 0.0]
    quaternions = np.array([FLAT, tilted, upside_down])
    fig = construction_figure3d(POSITIONS, quaternions, PIPS, PRESET)
    numbers = next(t for t in fig.data if t.name == "tile numbers")
    halves = next(t for t in fig.data if t.name == "halves")
    for k in range(3):
        R = quaternion_matrices(np.array(quaternions[k]))
        up = 1 if R[2, 2] > 0 else -1
        face = (POSITIONS[k] + R @ [0, 0, up * T / 2]) * 1000
        at = np.array([numbers.x[k], numbers.y[k], numbers.z[k]])
        assert 0 < np.dot(at - face, R @ [0, 0, up]) < 0.5 and np.linalg.norm(at - face) < 0.5, (k, at, face)
        for h, sign in ((0, -1), (1, 1)):
            half = (POSITIONS[k] + R @ [sign * L / 4, 0, up * T / 2]) * 1000
            assert np.linalg.norm(np.array([halves.x[2 * k + h], halves.y[2 * k + h], halves.z[2 * k + h]]) - half) < 0.5


def test_a_collapse_is_shown_at_rest_with_a_slider_through_its_motion():
    from magdomino.faces.view3d import what_if_motion
    from magdomino.studies.scenario import load_scenario
    from magdomino.studies.simulation import settle_structure

    scenario = load_scenario(SCENARIOS / "staircase_edge.toml")  # what-if 0: a third step falls
    _, settled = settle_structure(scenario)
    end, motion, at_rest = what_if_motion(scenario, 0, settled)
    assert at_rest and len(motion) > 5
    t_last, p_last, q_last = motion[-1]
    assert np.allclose(p_last, end[1], equal_nan=True) and np.allclose(q_last, end[2], equal_nan=True)
    assert np.nanmax(np.linalg.norm(motion[-1][1] - motion[-2][1], axis=1)) < 1e-4  # nothing moves any more
    before = ([pl.pips for pl in scenario.structure], *settled)
    fig = outcome_figure3d(before, end, scenario.preset, motion=motion)
    assert 5 < len(fig.frames) <= view3d.MOTION_FRAMES and fig.frames[-1].name == f"{t_last:.2f} s"
    (slider,) = fig.layout.sliders
    assert slider.active == len(fig.frames) - 1 and [s.label for s in slider.steps] == [f.name for f in fig.frames]
    shown = {i: t for i, t in enumerate(fig.data) if t.type == "mesh3d" and t.meta and not t.meta["ghost"]}
    last = dict(zip(fig.frames[-1].traces, fig.frames[-1].data))
    for i, mesh in shown.items():  # the figure shows the last frame: the end
        assert np.allclose(last[i].z, mesh.z) and np.allclose(last[i].x, mesh.x)
    first = dict(zip(fig.frames[0].traces, fig.frames[0].data))
    placed = next(i for i, t in shown.items() if "(placed)" in t.name)
    assert not np.allclose(first[placed].z, shown[placed].z)  # it moved on the way


PLOTLYJS = re.compile(r"plotly\.js v\d+\.\d+\.\d+")


def test_html_fragment_carries_plotlyjs_and_the_figure():
    fig = construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET)
    fragment = figure_html(fig)
    assert len(PLOTLYJS.findall(fragment)) == 1 and len(fragment) > 1_000_000
    assert "<html" not in fragment and "<body" not in fragment
    assert '"#1 5-3"' in fragment and '"mesh3d"' in fragment and '"aspectmode":"data"' in fragment
    div = re.search(r'<div id="([^"]+)" class="plotly-graph-div"', fragment).group(1)
    assert re.search(rf'Plotly\.newPlot\(\s*"{div}"', fragment)  # the figure drawn into its div
    lean = figure_html(fig, include_plotlyjs=False)
    assert not PLOTLYJS.search(lean) and len(lean) < 100_000 and '"#1 5-3"' in lean
    # the same figure twice on a page: two ids
    again = re.search(r'<div id="([^"]+)"', lean).group(1)
    assert again != div and again.startswith("magdomino-3d-")
    assert re.search(r'<div id="mine"', figure_html(fig, include_plotlyjs=False, div_id="mine"))


def _page(*fragments) -> str:
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>3D</title></head><body>'
            + "".join(fragments) + "</body></html>")


def _tile_pixels(png, pips=PIPS) -> float:
    """The share of the screenshot's pixels in the tiles' colours, shaded or not (the same
    chromaticity: not the white page, the grey table, the axes or plotly's blue text)."""
    from PIL import Image

    rgb = np.asarray(Image.open(png).convert("RGB"), dtype=float).reshape(-1, 3)
    bright = rgb.sum(axis=1) > 120
    chroma = rgb / np.maximum(rgb.sum(axis=1, keepdims=True), 1)
    hit = np.zeros(len(rgb), dtype=bool)
    for p in pips:
        c = np.asarray(colour_rgb(colour_of(tile(*p), PRESET.tile.colours)))
        hit |= bright & (np.abs(chroma - c / c.sum()).max(axis=1) < 0.03)
    return float(hit.mean())


def drawn(plot: dict) -> bool:
    return plot["traces"] > 0 and plot["svg"] and plot["gl"] and not plot["nowebgl"]


def test_page_with_two_3d_views_draws_in_chromium(tmp_path):
    fig = construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET, title="three tiles")
    outcome = outcome_figure3d((PIPS[:2], POSITIONS[:2], QUATERNIONS[:2]), (PIPS, POSITIONS + [0.0, 0.0, 0.0], QUATERNIONS), PRESET)
    page = tmp_path / "views.html"
    page.write_text(_page(figure_html(fig), figure_html(outcome, include_plotlyjs=False)))
    assert len(PLOTLYJS.findall(page.read_text())) == 1  # plotly.js once on the page
    seen = browser_check(page, tmp_path, window="900,1200")
    assert seen["errors"] == []
    assert seen["fetched"] == []  # nothing from the network: it opens offline
    assert len(seen["plots"]) == 2 and all(drawn(p) for p in seen["plots"]), seen["plots"]
    assert not_blank(seen["screenshot"]) and _tile_pixels(seen["screenshot"]) > 0.01


def test_a_3d_view_that_did_not_draw_is_caught(tmp_path):
    fig = construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET)
    # plotly.js missing: the figure's script fails
    page = tmp_path / "nojs.html"
    page.write_text(_page(figure_html(fig, include_plotlyjs=False)))
    seen = browser_check(page, tmp_path, window="900,700")
    assert any("Plotly is not defined" in e for e in seen["errors"]), seen["errors"]
    assert not drawn(seen["plots"][0])
    # no WebGL: plotly draws its frame and says so, and no tile is seen
    page = tmp_path / "nogl.html"
    page.write_text(_page(figure_html(fig)))
    seen = browser_check(page, tmp_path, flags=["--disable-webgl"], window="900,700")
    assert seen["plots"][0]["nowebgl"] and not drawn(seen["plots"][0])
    assert _tile_pixels(seen["screenshot"]) < 0.001


@pytest.fixture(scope="module")
def simulate_json(tmp_path_factory):
    path = tmp_path_factory.mktemp("results") / "simulate.json"
    r = run_cli("simulate", SCENARIOS / "demo.toml", "--engine", "statics", "--json", path)
    assert r.returncode == 0, r.stderr
    return path


def test_report_view3d_embeds_the_views_and_draws_in_chromium(simulate_json, tmp_path):
    doc = json.loads(simulate_json.read_text())
    out = tmp_path / "r.html"
    r = run_cli("report", simulate_json, "--out", out, "--scenarios", SCENARIOS, "--view3d")
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert len(PLOTLYJS.findall(page)) == 1  # once, in the head
    assert page.index("plotly.js v") < page.index("</head>")
    assert not re.search(r'<(?:script|img|link)[^>]*(?:src|href)="(?:https?:|//|file:)', page)  # nothing fetched
    section = re.search(r'<section id="doc0" class="kind-simulate">(.*?)</section>', page, re.S).group(1)
    views = re.findall(r'<div class="view3d">.*?<p>([^<]*)</p></div>', section, re.S)
    assert len(views) == 1 + len(doc["what_if"])
    assert views[0].startswith("the settled structure, in 3D")
    assert all(v.startswith(f"what-if {i}: ") and "in 3D" in v for i, v in enumerate(views[1:]))
    ids = re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', page)
    assert len(ids) == len(set(ids)) == len(views)
    seen = browser_check(out, tmp_path)
    assert seen["errors"] == [] and seen["fetched"] == [] and seen["undecoded"] == []
    assert len(seen["plots"]) == len(views) and all(drawn(p) for p in seen["plots"]), seen["plots"]
    # without the flag: no script at all (the plain page)
    plain = tmp_path / "plain.html"
    assert run_cli("report", simulate_json, "--out", plain, "--no-renders").returncode == 0
    assert "<script" not in plain.read_text() and "plotly" not in plain.read_text()


def test_report_help_says_view3d_is_off_and_heavy():
    r = run_cli("report", "--help")
    text = " ".join(r.stdout.split())
    assert "--view3d" in text and "Off by default" in text and "MB" in text and "pip install 'magdomino[view]'" in text


# -- without plotly -----------------------------------------------------------------------


def test_without_plotly_one_line_says_how_to_install(monkeypatch):
    for name in [m for m in sys.modules if m == "plotly" or m.startswith("plotly.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "plotly", None)
    for call in (lambda: construction_figure3d(POSITIONS, QUATERNIONS, PIPS, PRESET),
                 lambda: outcome_figure3d((PIPS, POSITIONS, QUATERNIONS), (PIPS, POSITIONS, QUATERNIONS), PRESET),
                 lambda: figure_html(None)):
        with pytest.raises(InputError) as err:
            call()
        message = str(err.value)
        assert "\n" not in message and "plotly" in message and "pip install 'magdomino[view]'" in message
    assert not available("plotly")


def test_report_view3d_without_plotly_exit_2_one_line(simulate_json, tmp_path):
    out = tmp_path / "r.html"
    code = ("import sys; sys.modules['plotly'] = None; from magdomino.faces.cli import main; "
            f"sys.exit(main(['report', {str(simulate_json)!r}, '--out', {str(out)!r}, '--view3d']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--view3d" in lines[0] and "pip install 'magdomino[view]'" in lines[0], r.stderr
    assert not out.exists()
    r = run_cli("report", simulate_json, "--out", out, "--view3d", "--no-renders")
    assert r.returncode == 2 and "--view3d" in r.stderr and "--no-renders" in r.stderr


def test_import_magdomino_does_not_import_plotly():
    code = "import sys, magdomino, magdomino.faces.view3d, magdomino.faces.report; print('plotly' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr
