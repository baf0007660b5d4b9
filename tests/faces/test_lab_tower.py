"""The lab's calls without a browser (magdomino.faces.lab.tower): the first tile, the ghosts'
risks, a placement's recorded motion, keeping or taking back, undo by replay, the odds in
rounds, the ranking, the placements as a scenario file and as Python; and the ``lab``
command's one-line refusals."""

import subprocess
import sys

import numpy as np
import pytest
from conftest import run_cli

import magdomino as md
from magdomino.errors import InputError
from magdomino.faces.lab.motion import FRAME_S, HAND_MM
from magdomino.faces.lab.tower import LabTower, nominal_poses
from magdomino.model.presets import load_preset
from magdomino.physics.settle import WATCH_FALL_S
from magdomino.studies.risk_scale import RISK_CLASSES, RISK_COLOURS, risk_class


@pytest.fixture(scope="module")
def two():
    """6-6 in the middle, 6-3 on its half 0 (by its ghost), and the 3-3's ghosts."""
    t = LabTower()
    t.first((6, 6))
    g = [x for x in t.ghosts((3, 6)) if x.text == "6-3 on #0 (6-6) half 0"][0]
    m = t.motion(g)
    assert t.keep(g, m)
    return t


def test_first_tile_in_the_middle():
    t = LabTower()
    t.first("6-6")
    assert t.texts == ["6-6 at (0, 0) mm"] and len(t) == 1
    assert np.allclose(t.poses[0][0][:2], 0.0, atol=1e-4)
    assert t.used() == {(6, 6)}


def test_ghosts_are_the_legal_spots_with_the_statics_risk(two):
    ghosts = two.ghosts((3, 3))
    texts = [g.text for g in ghosts]
    assert "3-3 on #1 (6-3) half 1" in texts and len(texts) == len(set(texts))
    for g in ghosts:
        assert g.risk in RISK_CLASSES and g.risk == risk_class(g.answer, g.margin_deg) and g.colour == RISK_COLOURS[g.risk]
        assert g.label() == f"{g.text} ({g.words()})"
        md.Construction(two.texts).add(g.text)  # every ghost reads back in the placement language
    on_end = [g for g in ghosts if g.text == "3-3 on #1 (6-3) half 1"][0]
    assert on_end.risk in ("falls", "unsure")  # a staircase PyBullet topples: never safe or tight
    assert all(g.risk in ("safe", "tight") for g in ghosts if g.text.startswith("3-3 beneath"))
    quick = two.ghosts((3, 3), margins=False)  # at once: the sure answers; the standing ones' margins later
    assert [g.text for g in quick] == texts and [g.answer for g in quick] == [g.answer for g in ghosts]
    assert all(g.margin_deg is None and (g.risk is None) == (g.answer == "stands") for g in quick)
    assert all(g.label().endswith("(judging...)") for g in quick if g.risk is None)
    two.fill_margins(quick, two.snapshot())
    assert [(g.risk, g.margin_deg) for g in quick] == [(g.risk, g.margin_deg) for g in ghosts]
    defi = two.ghosts((3, 3), "defi")
    assert {g.text for g in defi} <= set(texts) and not any("beneath" in g.text for g in defi)
    with pytest.raises(InputError, match="rule"):
        two.ghosts((3, 3), "chess")
    with pytest.raises(InputError, match="already"):
        two.ghosts((6, 6))


def test_a_spot_the_statics_cannot_be_sure_of_is_never_called_safe():
    """The statics says this 1-1 stands with a 19.8° margin, but its structure carries the
    tile only 1.23 times its weight (the magnet-pulled landing): unsure, and PyBullet topples it."""
    t = LabTower()
    t.start(["6-6 at (0, 0) mm", "6-3 on #0 (6-6) half 1", "3-3 on #1 (6-3) half 1, across left",
             "3-1 on #2 (3-3) half 0, across left"])
    g = [x for x in t.ghosts((1, 1)) if x.text == "1-1 on #3 (3-1) half 1"][0]
    assert g.answer == "unsure" and g.risk == "unsure" and g.margin_deg is None
    assert "unsure" in g.label() and "safe" not in g.label()
    assert not t.motion(g).stands


def test_motion_frames_are_recorded_poses(two):
    ghosts = two.ghosts((3, 3))
    g = [x for x in ghosts if x.text == "3-3 on #1 (6-3) half 1, across left"][0]
    m = two.motion(g)
    f, n = len(m.times_s), len(two) + 1
    assert m.positions_mm.shape == (f, n, 3) and m.quaternions.shape == (f, n, 4)
    assert np.all(np.diff(m.times_s) > 0) and np.allclose(np.diff(m.times_s[: m.verdict_frame]), FRAME_S, atol=2e-3)
    assert np.isnan(m.positions_mm[0, -1]).all()  # the placed tile comes with the hand
    hand = m.positions_mm[1: 1 + m.hand_frames, -1, 2]
    released = m.positions_mm[1 + m.hand_frames, -1, 2]
    assert m.hand_frames >= 5 and hand[0] - released > 0.8 * HAND_MM and np.all(np.diff(hand) < 0)  # lowered, seen
    assert np.isfinite(m.positions_mm[-1]).all()
    assert 0 < m.verdict_frame <= f - 1
    assert np.allclose(m.positions_mm[m.verdict_frame], m.end[0] * 1000)
    assert m.stands and m.summary().startswith("stood")
    assert abs(m.positions_mm[-1, -1, 2] - g.pos_mm[2]) < 1.0  # at rest where the ghost was
    assert len(two) == 2  # trying does not build
    live = []
    again = two.motion(g, live)  # the frames as they are recorded, for a caller in another thread
    assert len(live) == len(again.times_s) and np.allclose(live[-1][1] * 1000, again.positions_mm[-1])
    assert np.array_equal(again.positions_mm, m.positions_mm, equal_nan=True)  # PyBullet repeats itself


def test_a_collapse_is_seen_falling_to_rest_and_taken_back(two):
    g = [x for x in two.ghosts((3, 3)) if x.text == "3-3 on #1 (6-3) half 1"][0]
    m = two.motion(g)
    assert not m.stands and m.summary().startswith("collapsed: ")
    after = m.times_s[m.verdict_frame:]
    assert after[-1] - after[0] >= WATCH_FALL_S - 1e-9  # the same run, continued: at least 1 s more of physics
    assert np.allclose(np.diff(after[1:-1]), FRAME_S, atol=2e-3)  # new frames, not the same ones paced slower
    assert not np.allclose(m.positions_mm[m.verdict_frame], m.positions_mm[-1], atol=0.5)  # the tiles went on moving
    lin, ang = m.final_velocities
    limits = load_preset(two.preset).collapse
    assert m.still and np.all(np.linalg.norm(lin, axis=1) <= limits.settle_speed)
    assert np.all(np.linalg.norm(ang, axis=1) <= limits.settle_spin)
    before = [a.copy() for a in two.poses]
    assert not two.keep(g, m)
    assert len(two) == 2 and np.array_equal(two.poses[0], before[0])


def test_every_spot_offered_can_be_placed_and_reads_back():
    """Built through the lab's own spots, a double's halves are named as its text reads:
    the spot "2-0 after #2 (2-2) half ..." is placed, and the texts make the same tower."""
    t = LabTower()
    t.first((5, 5))
    for tile in [(2, 5), (2, 2), (0, 2)]:
        g = [x for x in t.ghosts(tile, margins=False) if " after " in x.text][0]
        assert t.keep(g, t.motion(g)), g.text
        assert md.Construction(t.texts).tiles == t.texts
    _, p, _ = nominal_poses(t.texts)
    assert np.allclose(p[:, :2], t.poses[0][:, :2] * 1000, atol=2.0)  # the texts put every tile where the lab has it


def test_undo_goes_back_to_the_poses_before():
    t = LabTower()
    t.first((6, 6))
    for tile, text in [((3, 6), "6-3 on #0 (6-6) half 0"), ((3, 3), "3-3 on #1 (6-3) half 1, across left")]:
        g = [x for x in t.ghosts(tile) if x.text == text][0]
        assert t.keep(g, t.motion(g))
    two_poses = [a.copy() for a in t.history[1]]
    t.undo()
    assert len(t) == 2 and np.array_equal(t.poses[0], two_poses[0]) and np.array_equal(t.poses[1], two_poses[1])
    assert t.texts == ["6-6 at (0, 0) mm", "6-3 on #0 (6-6) half 0"]
    t.undo()
    t.undo()
    assert len(t) == 0
    with pytest.raises(InputError, match="empty"):
        t.ghosts((1, 1))


def test_odds_in_rounds_and_rank(two):
    ghosts = two.ghosts((3, 3))
    safe = [g for g in ghosts if " on #" in g.text and "across left" in g.text][0]
    steps = list(two.odds_rounds(safe, rounds=(4, 8)))
    assert [n for _, n, _, _ in steps] == [4, 12]
    c, n, _, (lo, hi) = steps[-1]
    assert 0 <= lo <= c / n <= hi <= 1 and hi - lo < 1
    ranked = two.rank(ghosts[:3], trials=3, engine="statics")
    assert all(g.p_collapse is not None and g.ci95 is not None for g in ranked)
    assert "p(collapse)" in ranked[0].label()


def test_placements_as_a_scenario_and_as_python(two, tmp_path):
    text = two.scenario_toml()
    (tmp_path / "lab.toml").write_text(text)
    assert md.load(tmp_path / "lab.toml").tiles == two.texts
    namespace = {}
    exec(two.python_lines().replace("print(tower.simulate())", ""), namespace)
    assert namespace["tower"].tiles == two.texts
    other = LabTower()
    other.load_text(text, "lab.toml")
    assert other.texts == two.texts
    with pytest.raises(InputError, match="not a TOML file"):
        other.load_text("name = ", "bad.toml")
    assert other.texts == two.texts  # a bad upload changes nothing


def test_magnets_off_rebuilds_or_changes_nothing():
    t = LabTower()
    t.first((6, 6))
    t.set_preset("standard", magnets=False)
    assert not t.magnets and len(t) == 1
    with pytest.raises(InputError):
        t.set_preset("no-such-preset")
    assert t.preset == "standard"
    t.set_preset("toy", magnets=True)
    g = [x for x in t.ghosts((3, 6), margins=False) if x.text == "6-3 on #0 (6-6) half 1"][0]
    assert t.keep(g, t.motion(g))
    texts, poses = t.texts, [a.copy() for a in t.poses]
    with pytest.raises(InputError, match="magnets off.*6-3 on #0.*kept as it was"):
        t.set_preset(t.preset, magnets=False)  # a half-lap held by its magnets falls without them
    assert t.magnets and t.texts == texts and np.array_equal(t.poses[0], poses[0])
    assert "magnets = true" in t.scenario_toml() and len(t.scenario().structure) == 2


def test_uploaded_bytes_that_are_not_text_change_nothing(two):
    t = LabTower()
    t.first((1, 1))
    with pytest.raises(InputError, match="not text"):
        t.load_text(b"\x89PNG\r\n\x1a\n\x00\xff", "picture.png")
    assert t.texts == ["1-1 at (0, 0) mm"]


def test_lab_command_refuses_in_one_line(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run_cli("lab", "--port", str(port), "--out-dir", tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "busy" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("lab", "--preset", tmp_path / "missing.toml")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    r = run_cli("lab", "--port", "70000")
    assert r.returncode == 2 and "--port" in r.stderr


def test_lab_without_the_extra_names_the_install(monkeypatch, capsys):
    from magdomino.faces.cli import main

    monkeypatch.setitem(sys.modules, "nicegui", None)  # as if NiceGUI were not installed
    assert main(["lab"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'magdomino[lab]'" in err


def test_import_magdomino_does_not_import_the_lab():
    code = "import sys, magdomino, magdomino.faces.cli; md = magdomino; md.Construction; print('nicegui' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "False", r.stderr


def test_lab_serves_warns_off_this_machine_and_stops_on_ctrl_c(tmp_path):
    import os
    import signal
    import socket
    import time
    import urllib.request

    pytest.importorskip("nicegui")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}  # NiceGUI would take itself for under test
    proc = subprocess.Popen([sys.executable, "-m", "magdomino", "lab", "--port", str(port), "--host", "0.0.0.0",
                             "--out-dir", str(tmp_path / "out")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read().decode()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-500:]
                time.sleep(0.3)
        assert "<title>magdomino lab</title>" in page
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.startswith(f"magdomino lab: http://0.0.0.0:{port}/")
    assert "no login" in err and "stopped" in err and "Traceback" not in err


def test_nominal_poses_and_a_move_made_again():
    from magdomino.faces.lab.tower import replayed_motion

    texts = ["6-6 at (0, 0) mm", "6-3 on #0 (6-6) half 1"]
    pips, p, q = nominal_poses(texts)
    assert pips == [(6, 6), (6, 3)] and p.shape == (2, 3) and q.shape == (2, 4)
    assert p[1, 2] > p[0, 2] + 5 and abs(p[1, 0] - p[0, 0] - 24) < 1  # on top, over half 1
    assert nominal_poses([])[0] == []
    live = []
    fell = replayed_motion(texts, "3-3 on #1 (6-3) half 1", live=live)
    assert not fell.stands and len(live) == len(fell.times_s)
    assert replayed_motion(texts, "3-3 on #1 (6-3) half 1, across left").stands
    with pytest.raises(InputError):
        replayed_motion(texts, "3-3 on #7 half 1")


def test_odds_of_the_last_placement_from_the_tower_before_it(two):
    last = two.last_ghost()
    before = two.without_last()
    assert last.text == "6-3 on #0 (6-6) half 0" and len(before) == 1 and len(two) == 2
    assert np.array_equal(before.poses[0], two.history[0][0])
    c, n, _, (lo, hi) = next(before.odds_rounds(last, rounds=(3,)))
    assert n == 3 and 0 <= lo <= hi <= 1
    with pytest.raises(InputError, match="no placement"):
        before.without_last()
