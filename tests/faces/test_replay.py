"""Replays of whole games (magdomino replay, play --gif/--mp4): a short Défi game in the
physics with collapses, the flat games, the budgets, determinism and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from magdomino.faces import replay as rp


@pytest.fixture(scope="module")
def defi_record():
    """A short 2-player Défi game in PyBullet that collapses (seed 3, 8 placements)."""
    from magdomino.games import play_game
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    adj = PybulletAdjudicator("standard")
    try:
        record = play_game("defi", 2, seed=3, physics=adj, max_placements=8)
    finally:
        adj.close()
    assert record["collapses"] >= 1, "the fixture game must contain a collapse"
    # What the replay needs to repeat the physics, as the adjudicator had it.
    assert (record["preset"], record["magnets"]) == (adj.preset.name, adj.magnets)
    assert (record["drop_mm"], record["slide_start_mm"]) == pytest.approx((adj.drop * 1000, adj.slide_start * 1000))
    return record


@pytest.fixture(scope="module")
def defi_replay(defi_record):
    return rp.replay(defi_record)


def _expected_moves(record):
    """Per recorded move, what its caption must name (built from the record alone)."""
    out = []
    for ev in record["events"]:
        if ev["type"] == "place":
            collapsed = bool((ev.get("verdict") or {}).get("collapsed")) and not ev.get("collapse_ignored")
            out.append(("place", f"P{ev['player']} ", f"{ev['tile'][0]}-{ev['tile'][1]} {ev['mode']} {ev['motion']}",
                        "FALLS" if collapsed else "stands"))
        elif ev["type"] == "collapse":
            out.append(("collapse", f"P{ev['player']} ", f"takes back {len(ev['tiles'])} tiles", ""))
        elif ev["type"] in ("draw", "pass"):
            out.append((ev["type"], f"P{ev['player']} ", "draws" if ev["type"] == "draw" else "passes", ""))
    return out


def _runs(captions):
    """The captions with consecutive repeats merged: one entry per move shown."""
    runs = []
    for c in captions:
        if not runs or runs[-1][0] != c:
            runs.append([c, 0])
        runs[-1][1] += 1
    return runs


def test_frames_follow_the_record_with_captions_and_budget(defi_record, defi_replay):
    rep = defi_replay
    assert rep.mismatches == []
    assert len(rep.frames) == len(rep.captions) == len(rep.durations_ms)
    assert all(f.shape == (rp.HEIGHT, rp.WIDTH, 3) and f.dtype == np.uint8 for f in rep.frames)
    moves = _expected_moves(defi_record)
    runs = _runs(rep.captions)
    assert len(runs) == len(moves)
    for (caption, count), (kind, player, what, verdict) in zip(runs, moves):
        assert player in caption and what in caption and verdict in caption, (caption, what, verdict)
        budget = {"place": rp.FRAMES_FALL if verdict == "FALLS" else rp.FRAMES_STANDING,
                  "collapse": rp.FRAMES_LEAVING, "draw": 1, "pass": 1}[kind]
        assert 1 <= count <= budget
        if kind == "place" and verdict == "FALLS":
            assert count > rp.FRAMES_STANDING  # the fall gets more frames (slow motion)
    assert len(rep.placements) == sum(1 for e in defi_record["events"] if e["type"] == "place")


def _saturated_top(frame):
    """Row of the highest tile pixel in the picture (tiles are coloured, the table is grey)."""
    picture = frame[: rp.HEIGHT - rp.strip_height(rp.HEIGHT)].astype(float)
    hi, lo = picture.max(axis=2), picture.min(axis=2)
    mask = (hi - lo) > 0.35 * np.maximum(hi, 1)
    rows = np.nonzero(mask.any(axis=1))[0]
    return rows.min(), mask


def test_the_fall_is_in_the_frames(defi_record, defi_replay):
    runs = _runs(defi_replay.captions)
    start = 0
    falls = 0
    for caption, count in runs:
        if "FALLS" in caption:
            first, last = defi_replay.frames[start], defi_replay.frames[start + count - 1]
            top_first, mask_first = _saturated_top(first)
            top_last, mask_last = _saturated_top(last)
            # The tower's top comes down: its highest tile pixels are lower in the picture.
            assert top_last > top_first + 3, caption
            ys_first = np.nonzero(mask_first)[0].mean()
            ys_last = np.nonzero(mask_last)[0].mean()
            assert ys_last > ys_first, caption
            falls += 1
        start += count
    assert falls == defi_record["collapses"]


def test_same_record_same_frames(defi_record, defi_replay, tmp_path):
    again = rp.replay(json.loads(json.dumps(defi_record)))
    assert len(again.frames) == len(defi_replay.frames)
    assert all(np.array_equal(a, b) for a, b in zip(again.frames, defi_replay.frames))
    rp.write_frames(defi_replay, tmp_path / "a.gif")
    rp.write_frames(again, tmp_path / "b.gif")
    assert (tmp_path / "a.gif").read_bytes() == (tmp_path / "b.gif").read_bytes()


def test_gif_and_mp4_within_budget_and_mp4_decodes(defi_record, defi_replay, tmp_path):
    import imageio.v2 as imageio
    from PIL import Image

    n = len(defi_replay.placements)
    gif, mp4 = tmp_path / "g.gif", tmp_path / "g.mp4"
    rp.write_frames(defi_replay, gif)
    rp.write_frames(defi_replay, mp4)
    # The goal, 15 MB (GIF) and 5 MB (MP4) for 40 placements, per placement.
    assert gif.stat().st_size <= 15e6 * n / 40
    assert mp4.stat().st_size <= 5e6 * n / 40
    with Image.open(gif) as im:
        # Pillow merges identical consecutive frames, adding up their display times.
        assert im.n_frames <= len(defi_replay.frames) and im.size == (rp.WIDTH, rp.HEIGHT)
        shown = 0
        for k in range(im.n_frames):
            im.seek(k)
            shown += im.info["duration"]
    assert shown == sum(defi_replay.durations_ms[:-1]) + max(defi_replay.durations_ms[-1], 2000)
    reader = imageio.get_reader(str(mp4))
    try:
        frames = [f for f in reader]
    finally:
        reader.close()
    # Each frame repeated for its display time at MP4_FPS (rounded on the running total).
    expected = round(sum(defi_replay.durations_ms) * rp.MP4_FPS / 1000)
    assert abs(len(frames) - expected) <= 1
    assert frames[0].shape == (rp.HEIGHT, rp.WIDTH, 3)
    # Decoded pictures look like the frames (lossy: compare means of the first frame).
    assert abs(frames[0].astype(float).mean() - defi_replay.frames[0].astype(float).mean()) < 6


def test_a_record_that_names_the_engine_pybullet_replays_in_the_physics_as_one_that_says_dynamics(defi_record, defi_replay):
    # "pybullet" is the name records had before each engine had one
    assert defi_record["physics"] == "dynamics"
    old = rp.replay({**json.loads(json.dumps(defi_record)), "physics": "pybullet"})
    assert old.mismatches == [] and len(old.placements) == len(defi_replay.placements)
    assert all(np.array_equal(a, b) for a, b in zip(old.frames, defi_replay.frames))


def test_png_directory(defi_replay, tmp_path):
    from PIL import Image

    out = tmp_path / "frames"
    rp.write_frames(defi_replay, str(out) + "/")
    files = sorted(out.iterdir())
    assert len(files) == len(defi_replay.frames)
    with Image.open(files[-1]) as im:
        assert np.array_equal(np.asarray(im.convert("RGB")), defi_replay.frames[-1])


def test_a_verdict_the_physics_no_longer_gives_is_reported(defi_record, cli, tmp_path):
    # The same moves, but released 30 mm above their rest poses instead of the recorded
    # 1 mm: the physics no longer agrees with the record, and the replay must say so.
    record = dict(defi_record, drop_mm=30.0)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    res = cli("replay", str(path), "--out", str(tmp_path / "r.gif"))
    assert res.returncode == 1
    lines = [line for line in res.stderr.splitlines() if "verdict differs from the record" in line]
    assert lines and "recorded stands, the physics now says collapse" in res.stderr
    assert (tmp_path / "r.gif").exists()


@pytest.mark.parametrize("rule,players,seed", [("matador", 3, 1), ("echanges", 3, 1), ("vingt", 2, 3), ("traditional", 2, 1)])
def test_every_flat_game_replays(rule, players, seed, cli, tmp_path):
    rec = tmp_path / "g.json"
    res = cli("play", "--rule", rule, "--players", str(players), "--seed", str(seed), "--json", str(rec))
    assert res.returncode == 0, res.stderr
    record = json.loads(rec.read_text())
    rep = rp.replay(rp.check_record(record, str(rec)))
    events = record["events"]
    last = max(k for k, e in enumerate(events) if e["type"] == "deal")
    places = [e for e in events[last:] if e["type"] == "place"]
    if rule == "traditional":  # one frame per move: places, draws and passes
        moves = [e for e in events if e["type"] in ("place", "draw", "pass")]
        assert len(rep.frames) == len(moves)
    else:  # one frame per placement of the last deal, the final table last
        assert places and len(rep.frames) == len(places)
    for frame in rep.frames:
        assert frame.shape == (rp.HEIGHT, rp.WIDTH, 3)
        assert frame[: rp.HEIGHT // 2].std() > 1  # a picture, not a blank


def test_a_flat_game_replays_to_a_gif_from_the_command_line(cli, tmp_path):
    # The command line writes what replay() draws (every flat rule above): one rule shows the path.
    from PIL import Image, ImageSequence

    rec = tmp_path / "g.json"
    assert cli("play", "--rule", "matador", "--players", "3", "--seed", "1", "--json", str(rec)).returncode == 0
    res = cli("replay", str(rec), "--out", str(tmp_path / "g.gif"))
    assert res.returncode == 0, res.stderr
    with Image.open(tmp_path / "g.gif") as gif:
        assert gif.size == (rp.WIDTH, rp.HEIGHT)
        assert sum(1 for _ in ImageSequence.Iterator(gif)) > 1


def test_summary_series_from_a_hand_built_record(tmp_path):
    from PIL import Image

    from magdomino.faces.cli_replay import game_series, game_summary_figure

    def place(level, hands, size, collapsed=False, **extra):
        return {"type": "place", "player": 0, "tile": [1, 2], "mode": "tower", "motion": "drop", "pose": [0, 0, level, 0],
                "hand_sizes": hands, "construction_size": size, "verdict": {"collapsed": collapsed}, **extra}

    record = {"rule": "defi", "players": 2, "seed": 0, "events": [
        {"type": "deal", "player": 0, "hands": [], "hand_sizes": [7, 7]},
        place(0, [6, 7], 1, start=True), place(1, [6, 6], 2), place(1, [5, 6], 3), place(2, [5, 5], 4, collapsed=True),
        {"type": "collapse", "player": 1, "tiles": [[0, 0]] * 4, "hand_sizes": [5, 9]},
        {"type": "restart", "player": 1, "tile": [6, 6], "hand_sizes": [5, 9]},
        place(0, [5, 8], 1, restart=True),
    ]}
    s = game_series(record)
    assert s["levels"] == [1, 2, 2, 3, 1]
    assert s["size"] == [1, 2, 3, 4, 1]
    assert s["collapse"] == [False, False, False, True, False]
    assert s["hands"][3] == [5, 9]  # after the tiles are taken back
    out = game_summary_figure(record, tmp_path / "s.png")
    with Image.open(out) as im:
        assert im.size[0] > 300


@pytest.mark.parametrize("case", ["png", "txt", "not_json", "not_record", "newer", "list"])
def test_bad_input_one_line_exit_2_before_rendering(case, defi_record, cli, tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(defi_record))
    path, out = good, tmp_path / "out.gif"
    if case in ("png", "txt"):
        out = tmp_path / f"out.{case}"
    elif case == "not_json":
        path = tmp_path / "x.json"
        path.write_text("{not json")
    elif case == "not_record":
        path = tmp_path / "x.json"
        path.write_text(json.dumps({"kind": "odds", "results": []}))
    elif case == "newer":
        path = tmp_path / "x.json"
        path.write_text(json.dumps(dict(defi_record, record_version=rp.RECORD_VERSION + 1)))
    elif case == "list":
        path = tmp_path / "x.json"
        path.write_text("[1, 2]")
    res = cli("replay", str(path), "--out", str(out))
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not out.exists()
    res = cli("play", "--rule", "defi", "--players", "2", "--physics", "none", "--gif", str(tmp_path / "o.png"))
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1


def test_tournament_summary_figure(cli, tmp_path):
    """``replay TOURNAMENT.json --summary`` draws the tournament's own figure; a document
    without its per-kind rows is refused in one line before anything is drawn."""
    from PIL import Image

    path = tmp_path / "t.json"
    r = cli("tournament", "--rule", "traditional", "--seats", "greedy,random", "--deals", "4", "--jobs", "1", "--json", str(path))
    assert r.returncode == 0, r.stderr
    res = cli("replay", str(path), "--summary", str(tmp_path / "t.png"))
    assert res.returncode == 0, res.stderr
    with Image.open(tmp_path / "t.png") as im:
        assert im.size[0] > 200
    doc = json.loads(path.read_text())
    del doc["per_kind"]
    path.write_text(json.dumps(doc))
    res = cli("replay", str(path), "--summary", str(tmp_path / "u.png"))
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "per_kind" in res.stderr
    assert not (tmp_path / "u.png").exists()


def test_play_writes_the_game_just_played(cli, tmp_path):
    from PIL import Image

    res = cli("play", "--rule", "defi", "--players", "2", "--seed", "5", "--physics", "none", "--json", str(tmp_path / "g.json"),
              "--gif", str(tmp_path / "g.gif"), "--mp4", str(tmp_path / "g.mp4"), "--plot", str(tmp_path / "g.png"))
    assert res.returncode == 0, res.stderr
    record = json.loads((tmp_path / "g.json").read_text())
    moves = [e for e in record["events"] if e["type"] in ("place", "draw", "pass")]
    assert f"wrote {tmp_path / 'g.gif'}: {len(moves)} frames" in res.stdout  # one frame a move without physics
    for name in ("g.gif", "g.mp4", "g.png"):
        assert (tmp_path / name).stat().st_size > 1000
    with Image.open(tmp_path / "g.gif") as im:
        assert im.size == (rp.WIDTH, rp.HEIGHT)


def test_mp4_without_the_video_extra_is_said_before_rendering(monkeypatch):
    import sys

    from magdomino.errors import InputError

    monkeypatch.setitem(sys.modules, "imageio", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "imageio.v2", None)
    with pytest.raises(InputError, match=r"pip install 'magdomino\[video\]'"):
        rp.check_output("game.mp4")
    assert rp.check_output("game.gif") == "gif"  # GIFs need only Pillow
