"""Renders: PNG size and content (tile colours, pips), GIF frames, a visible collapse."""

import numpy as np
import pytest
from PIL import Image, ImageSequence

from magdomino.errors import InputError
from magdomino.faces.render import render_frames, render_gif, render_image, render_png
from magdomino.model.presets import COLOUR_RGB
from magdomino.studies.scenario import scenario_from_dict


def plain(structure, what_if=()):
    """A scenario without magnets (fast, and independent of the magnet model)."""
    return scenario_from_dict({"name": "t", "preset": "plain", "structure": list(structure), "what_if": list(what_if)})


def whiteish(image):
    """Pixels that are near white (pips), not the table nor a tile body."""
    image = image.astype(int)
    return (image.min(axis=2) > 200) & (image.max(axis=2) - image.min(axis=2) < 40)


def near_hue(image, rgb, cos=0.995):
    """Pixels whose colour points the way of ``rgb`` (any brightness): a shaded tile body."""
    v = image.reshape(-1, 3).astype(float) + 1e-9
    c = np.asarray(rgb) / np.linalg.norm(rgb)
    return ((v @ c) / np.linalg.norm(v, axis=1) > cos).reshape(image.shape[:2])


def test_png_size_colours_and_pips(tmp_path):
    # (0, 0) is red, (0, 4) blue in the default palette; 6-6 (pink) shows its pips.
    sc = plain([{"pips": [0, 0], "pos_mm": [0, 0]}, {"pips": [0, 4], "pos_mm": [0, 40]}, {"pips": [6, 6], "pos_mm": [60, 20]}])
    out = tmp_path / "s.png"
    verdict = render_png(sc, out, width=640, height=480)
    assert verdict is not None and not verdict.collapsed
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (480, 640, 3)
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50  # not blank: shading, tiles, table
    for colour in ("red", "blue", "pink"):
        assert near_hue(image, COLOUR_RGB[colour]).sum() > 500, colour
    assert whiteish(image).sum() > 200  # the pips of 6-6 (the others have none)


def test_pips_come_from_the_pips():
    blank, _ = render_image(plain([{"pips": [0, 0], "pos_mm": [0, 0]}]), width=320, height=240, labels=False)
    six, _ = render_image(plain([{"pips": [6, 6], "pos_mm": [0, 0]}]), width=320, height=240, labels=False)
    assert whiteish(blank).sum() == 0
    assert whiteish(six).sum() > 100
    # and they lie on the tile: inside the box of the tile's non-table pixels
    rows, cols = np.nonzero(whiteish(six))
    body = near_hue(six, COLOUR_RGB["pink"], cos=0.99)
    r, c = np.nonzero(body)
    assert r.min() <= rows.min() and rows.max() <= r.max() and c.min() <= cols.min() and cols.max() <= c.max()


def test_the_camera_frames_the_construction():
    image, _ = render_image(plain([{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [1, 2], "pos_mm": [150, 0]}]), width=320, height=240,
                            labels=False)
    tiles = ~near_hue(image, (0.80, 0.76, 0.69), cos=0.9995) & (image.sum(axis=2) > 120)
    cols = np.nonzero(tiles.any(axis=0))[0]
    rows = np.nonzero(tiles.any(axis=1))[0]
    assert cols.min() > 2 and cols.max() < 317 and rows.min() > 2 and rows.max() < 237  # all in
    assert cols.max() - cols.min() > 160  # and not lost in the middle


STEP_OUT = plain(
    [{"pips": [5, 5], "pos_mm": [0, 0]}, {"pips": [5, 2], "on": {"tile": 0, "half": 1}, "yaw_deg": 180}],
    [
        {"pips": [2, 3], "on": {"tile": 1, "half": 1}, "drop_mm": 1},  # on its own: half of it in the air
        {"pips": [2, 4], "on": {"tile": 1, "half": 1}, "yaw_deg": 180, "drop_mm": 1},  # back over: stands
    ],
)


def frames_of(path):
    """Frames (RGB arrays) and their durations (ms) of a GIF."""
    with Image.open(path) as gif:
        frames, durations = [], []
        for f in ImageSequence.Iterator(gif):
            frames.append(np.asarray(f.convert("RGB")))
            durations.append(f.info.get("duration", 0))
        return frames, durations


def test_frames_run_from_release_to_verdict_and_a_tail():
    frames, times, verdict, verdict_time = render_frames(STEP_OUT, 0, width=160, height=120, frame_every_s=0.02, tail_s=0.4)
    assert verdict.collapsed and verdict_time == pytest.approx(verdict.sim_time_s, abs=1e-9)
    assert verdict_time / 0.02 + 5 <= len(frames) == len(times) <= round((verdict_time + 0.4) / 0.02)
    assert times[0] == pytest.approx(0.02) and np.allclose(np.diff(times), 0.02)
    assert all(f.shape == (120, 160, 3) for f in frames)


def test_gif_of_a_collapse_shows_it(tmp_path):
    out = tmp_path / "fall.gif"
    verdict = render_gif(STEP_OUT, out, what_if=0, width=200, height=150, frame_every_s=0.02, tail_s=0.4)
    assert verdict.collapsed
    frames, durations = frames_of(out)
    # Pillow merges identical frames (a tile at rest), adding up their durations
    assert len(frames) >= 8
    assert sum(durations) >= (verdict.sim_time_s / 0.02 + 5) * 40
    assert all(f.shape == (150, 200, 3) for f in frames)
    change = np.abs(frames[0].astype(int) - frames[-1].astype(int)).sum(axis=2) > 60
    assert change.mean() > 0.01  # the fallen tile is somewhere else


def test_gif_of_a_standing_placement_is_calm(tmp_path):
    out = tmp_path / "stand.gif"
    verdict = render_gif(STEP_OUT, out, what_if=1, width=200, height=150, frame_every_s=0.02, caption=False)
    assert verdict.settled and not verdict.collapsed
    frames, durations = frames_of(out)
    assert len(frames) >= 2  # the drop; then identical frames, merged
    assert sum(durations) >= verdict.sim_time_s / 0.02 * 40
    change = np.abs(frames[0].astype(int) - frames[-1].astype(int)).sum(axis=2) > 60
    assert change.mean() < 0.01


def test_bad_requests_are_input_errors(tmp_path):
    with pytest.raises(InputError):
        render_gif(STEP_OUT, tmp_path / "x.gif", what_if=5)
    with pytest.raises(InputError):
        render_png(STEP_OUT, tmp_path / "x.png", width=10, height=10)


def test_render_command(tmp_path, cli):
    scenario = tmp_path / "two.toml"
    scenario.write_text(
        'preset = "plain"\n[[structure]]\npips = [3, 3]\npos_mm = [0, 0]\n'
        '[[what_if]]\npips = [3, 4]\npos_mm = [30, 0]\n'  # 6 mm beyond the edge, no magnets: falls
    )
    png = tmp_path / "two.png"
    done = cli("render", scenario, "--out", png, "--size", "320x240")
    assert done.returncode == 0, done.stderr
    assert "structure stood" in done.stdout and png.exists()
    assert Image.open(png).size == (320, 240)
    gif = tmp_path / "two.gif"
    done = cli("render", scenario, "--out", gif, "--size", "160x120")
    assert done.returncode == 0, done.stderr
    assert "what-if 0 COLLAPSED" in done.stdout and Image.open(gif).n_frames > 3
    bad = cli("render", scenario, "--out", tmp_path / "two.jpg")
    assert bad.returncode == 2 and "expected a .png or .gif" in bad.stderr and "Traceback" not in bad.stderr


FALLEN = plain(
    [{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [2, 2], "pos_mm": [38, 0]}],  # 14 mm beyond the edge: falls by itself
    [{"pips": [1, 3], "pos_mm": [0, 40]}],
)


def test_what_ifs_on_a_structure_that_collapsed_are_refused(tmp_path):
    says = "structure: expected a structure that settles before a what-if is shown; it collapsed"
    with pytest.raises(InputError, match=says):
        render_gif(FALLEN, tmp_path / "x.gif", what_if=0, width=64, height=64)
    with pytest.raises(InputError, match=says):
        render_image(FALLEN, width=64, height=64, what_if=0)
    assert not (tmp_path / "x.gif").exists()
    image, verdict = render_image(FALLEN, width=64, height=64)  # the structure alone is drawn as it fell
    assert verdict.collapsed and image.shape == (64, 64, 3)


def test_render_command_refuses_a_collapsed_structure_and_an_unwritable_out(tmp_path, cli):
    scenario = tmp_path / "fallen.toml"
    scenario.write_text(
        'preset = "plain"\n[[structure]]\npips = [1, 1]\npos_mm = [0, 0]\n[[structure]]\npips = [2, 2]\npos_mm = [38, 0]\n'
        '[[what_if]]\npips = [1, 3]\npos_mm = [0, 40]\n'
    )
    done = cli("render", scenario, "--out", tmp_path / "f.gif", "--size", "64x64")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "fallen.toml: structure: expected a structure that settles" in done.stderr
    done = cli("render", scenario, "--out", tmp_path / "no" / "f.png")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--out: expected a file in an existing directory" in done.stderr


def test_pictures_label_each_tile_and_half_where_it_lies():
    # The labels are drawn over the picture at each tile's top centre (#N) and over its halves
    # (h0, h1): the labelled picture differs from the bare one there, and only near the tiles.
    sc = plain([{"pips": [1, 1], "pos_mm": [0, 0]}, {"pips": [1, 2], "pos_mm": [150, 0]}])
    bare, _ = render_image(sc, width=320, height=240, labels=False)
    labelled, _ = render_image(sc, width=320, height=240)
    changed = np.any(bare != labelled, axis=2)
    assert changed.sum() > 50
    rows, cols = np.nonzero(changed)
    tiles = ~near_hue(bare, (0.80, 0.76, 0.69), cos=0.9995) & (bare.sum(axis=2) > 120)
    r, c = np.nonzero(tiles)
    assert r.min() - 12 <= rows.min() and rows.max() <= r.max() + 12 and c.min() - 12 <= cols.min() and cols.max() <= c.max() + 12
    left, right = cols < 160, cols >= 160  # both tiles carry a label (#0 left, #1 right)
    assert left.sum() > 20 and right.sum() > 20
