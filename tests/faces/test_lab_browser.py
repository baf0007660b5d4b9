"""The lab in a real browser: ``magdomino lab`` started as a command, Debian's Chromium driven
headless by Playwright for Python. A three-tile tower built by clicks and its verdict, a busy
click refused with a note, the odds of a spot until an interval shows, undo, two tabs at
once, and no console error. Screenshots go to a temporary folder, or to the folder named by
``MAGDOMINO_LAB_SHOTS`` (``MAGDOMINO_LAB_SHOTS=docs/lab`` makes the docs' pictures).

Without Chromium (scripts/test installs it where it can) or Playwright these tests skip,
except under CI (``CI`` set), where they fail.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from browser import chromium
from conftest import ROOT, run_cli

_shots: list = []


def shots() -> Path:
    """Where screenshots go (made once, when the first is taken)."""
    if not _shots:
        _shots.append(Path(os.environ.get("MAGDOMINO_LAB_SHOTS") or tempfile.mkdtemp(prefix="lab-shots-")))
    return _shots[0]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
WAIT_MS = 60_000


def _needs(module: str):
    try:
        return __import__(module)
    except ImportError:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"{module} is not installed (pip install 'magdomino[test]')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The lab's address, served by the command in a subprocess (and its output folder)."""
    _needs("nicegui")
    out = tmp_path_factory.mktemp("lab-out")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}  # NiceGUI would take itself for under test
    log = open(out.parent / "lab-server.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "magdomino", "lab", "--port", str(port), "--out-dir", str(out)],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                log.seek(0)
                pytest.fail(f"the lab did not start: {log.read()[-800:]}")
            time.sleep(0.3)
    yield url, out, proc
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.seek(0)
    said = log.read()
    log.close()
    assert "Traceback" not in said, said[-2000:]  # every error shown in a page, or logged in one line


@pytest.fixture(scope="module")
def browser():
    exe = chromium()
    _needs("playwright")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()


class Tab:
    """One browser tab on the lab, with its console errors."""

    def __init__(self, browser, url: str):
        self.page = browser.new_page(viewport={"width": 1420, "height": 900})
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.page.get_by_test_id("tile-0-0").wait_for(timeout=WAIT_MS)

    def id(self, name: str):
        return self.page.get_by_test_id(name)

    def text(self, name: str) -> str:
        return self.id(name).inner_text()

    def wait_text(self, name: str, pattern: str) -> str:
        self.page.wait_for_function(
            "([id, p]) => { const e = document.querySelector(`[data-testid='${id}']`); return e && new RegExp(p).test(e.innerText); }",
            arg=[name, pattern], timeout=WAIT_MS)
        return self.text(name)

    def tile(self, a: int, b: int) -> None:
        self.id(f"tile-{min(a, b)}-{max(a, b)}").click()

    def option(self, select: str, name: str) -> None:
        """Choose ``name`` in the drop-down ``select`` (the newest menu: a closed one may linger)."""
        self.id(select).click()
        self.page.get_by_role("option", name=name, exact=True).last.click()

    def spots(self, tile: str) -> None:
        """Wait for ``tile``'s spots and their classes (the standing ones' margins come last)."""
        self.wait_text("verdict", tile + ": [0-9]+ legal spots")
        self.wait_text("spots", r"^(?![\s\S]*judging)[\s\S]*\((safe|tight|unsure|falls)")

    def place(self, text: str) -> str:
        """Click the listed spot whose placement is ``text``; wait for the verdict."""
        self.spot(text + " (").locator("[data-testid^=place-]").click()
        return self.wait_text("verdict", re.escape(text) + ": (stood|shifted|collapsed|error)")

    def two_tiles(self, half: int) -> None:
        """6-6 in the middle, then 6-3 on its half ``half``."""
        self.tile(6, 6)
        self.wait_text("verdict", "middle of the table")
        self.tile(3, 6)
        self.spots("3-6")
        assert "stood" in self.place(f"6-3 on #0 (6-6) half {half}")

    def spot(self, text: str):
        """The listed spot (its row) whose placement starts with ``text``."""
        return self.page.locator("[data-testid^=spot-]", has_text=text).first

    def shot(self, name: str) -> Path:
        """A picture of the page (``MAGDOMINO_LAB_SHOTS=docs/lab`` renews the docs' ones), without
        the notes that pass over it (they go after a few seconds, as a reader would see)."""
        shots().mkdir(parents=True, exist_ok=True)
        path = shots() / name
        self.page.evaluate("document.querySelectorAll('.q-notification').forEach(note => note.remove())")
        self.page.screenshot(path=str(path))
        return path

    def close(self) -> None:
        self.page.close()


def test_build_a_tower_by_clicks(lab, browser):
    url, out, proc = lab
    tab = Tab(browser, url)
    tab.tile(6, 6)
    assert "6-6 in the middle of the table: stood" in tab.wait_text("verdict", "middle of the table")
    tab.tile(3, 6)
    tab.spots("3-6")
    assert tab.page.locator("[data-testid^=place-]").count() >= 4
    tab.id("spot-0").hover()
    assert re.search(r"\((safe|tight|unsure|falls)", tab.wait_text("hover", "."))
    assert "stood" in tab.place("6-3 on #0 (6-6) half 0")
    tab.tile(3, 3)
    tab.spots("3-3")
    # A click while a placement runs (shown in slow motion) is refused with a note, never interleaved.
    # Both clicks in one go: the server takes them in order, so the tile's click comes while the
    # placement runs however loaded the machine is (waiting in between, it could come after).
    tab.id("slow").click()
    place = tab.spot("3-3 on #1 (6-3) half 1, across left (").locator("[data-testid^=place-]").get_attribute("data-testid")
    tab.page.evaluate("([a, b]) => { for (const id of [a, b]) document.querySelector(`[data-testid='${id}']`).click(); }",
                      [place, "tile-1-1"])
    assert "busy placing 3-3 on #1 (6-3) half 1, across left: choosing 1-1 refused" in tab.wait_text("note", "refused")
    verdict = tab.wait_text("verdict", "across left: (stood|shifted|collapsed)")
    assert "stood" in verdict
    assert "3-3 on #1 (6-3) half 1, across left" in tab.text("placements-text")
    assert tab.id("tile-3-3").is_disabled() and tab.id("tile-3-6").is_disabled()
    tab.tile(1, 3)
    tab.spots("1-3")
    tab.spot(" on #2 (3-3)").hover()
    assert " on #2 (3-3)" in tab.wait_text("hover", "on #2")
    tab.spot(" on #2 (3-3)").locator("[data-testid^=pick-]").click()
    tab.shot("build.png")
    # The odds of the spot pointed at, in the background, until an interval shows; then cancel.
    tab.id("odds").click()
    estimate = tab.wait_text("odds-estimate", r"95 % interval \[[0-9.]+, [0-9.]+\]")
    assert " on #2 (3-3)" in estimate
    assert re.search(r"p\(collapse\) [0-9.]+", estimate)
    tab.id("cancel").click()
    # the run may end (its interval narrow enough) between the interval shown and the click:
    # then the page says there is nothing left to cancel
    end = tab.wait_text("odds-estimate", r"cancel|\(done: ")
    if "cancel" not in end:
        assert "no odds running" in tab.wait_text("note", "no odds running")
    # Défi's spots only (on top), ranked by their odds: p(collapse) and the shift share beside each.
    tab.option("rule", "defi")
    tab.spots("1-3")
    # the list is re-ranked once the server has the rule: until then it shows the old one
    tab.wait_text("spots", r"^(?![\s\S]*(beneath|judging))[\s\S]*\(")
    assert "beneath" not in tab.text("spots")
    tab.id("rank").click()
    assert re.search(r"ranked: safest .* \(p\(collapse\) [0-9.]+", tab.wait_text("verdict", "ranked"))
    assert "p(collapse)" in tab.text("spots") and "shifted" in tab.text("spots")
    # Undo: back to the tower before the last placement, two tiles left.
    tab.id("undo").click()
    assert "undone: 2 tiles" in tab.wait_text("verdict", "undone")
    assert "across left" not in tab.text("placements-text")
    assert not tab.id("tile-3-3").is_disabled()
    tab.id("save").click()
    tab.wait_text("note", "saved")
    assert [p.name for p in out.iterdir() if p.suffix == ".toml"]
    assert tab.errors == []
    tab.close()
    assert proc.poll() is None


def test_two_tabs_are_two_labs(lab, browser):
    url, _, proc = lab
    one, two = Tab(browser, url), Tab(browser, url)
    one.tile(5, 5)
    two.tile(2, 2)
    one.wait_text("verdict", "5-5 in the middle")
    two.wait_text("verdict", "2-2 in the middle")
    assert one.id("tile-5-5").is_disabled() and not one.id("tile-2-2").is_disabled()
    assert two.id("tile-2-2").is_disabled() and not two.id("tile-5-5").is_disabled()
    one.tile(2, 5)
    two.tile(2, 5)
    one.wait_text("verdict", "legal spots")
    two.wait_text("verdict", "legal spots")
    assert "5-5" in one.text("placements-text") and "5-5" not in two.text("placements-text")
    # Malformed messages from a client: logged and ignored; the tab goes on.
    one.page.evaluate("""() => {
      window.socket.emit('event', 'garbage');
      window.socket.emit('event', {client_id: window.clientId, id: 3, listener_id: 'nope', args: ['{not json']});
      window.socket.emit('event', {client_id: window.clientId, id: 99999999, args: []});
    }""")
    # A scenario opened by upload (contents only); a bad one is one line in the page.
    upload = two.page.locator("[data-testid=scenario-upload] input[type=file]")
    upload.set_input_files(files=[{"name": "bad.toml", "mimeType": "text/plain", "buffer": b"name = "}])
    assert "not a TOML file" in two.wait_text("note", "bad.toml")
    scenario = (ROOT / "scenarios" / "demo.toml").read_bytes()
    upload.set_input_files(files=[{"name": "demo.toml", "mimeType": "text/plain", "buffer": scenario}])
    assert "4 tiles rebuilt" in two.wait_text("verdict", "scenario demo.toml")
    assert two.text("placements-text").count("[[structure]]") == 4
    # A preset file (a calibrated set) uploaded: the tower rebuilt on it.
    from magdomino.model.presets import load_preset, write_preset

    preset_file = write_preset(load_preset("weak"), Path(tempfile.mkdtemp()) / "my_set.toml")
    two.page.locator("[data-testid=preset-upload] input[type=file]").set_input_files(
        files=[{"name": "my_set.toml", "mimeType": "text/plain", "buffer": preset_file.read_bytes()}])
    assert "4 tiles rebuilt" in two.wait_text("verdict", "preset file my_set.toml")
    one.tile(5, 6)
    one.wait_text("verdict", "6-5: [0-9]+ legal spots|5-6: [0-9]+ legal spots")
    assert one.errors == [] and two.errors == []
    # A tab closed while its odds run: the other goes on.
    one.id("pick-0").click()
    one.id("odds").click()
    one.wait_text("odds-estimate", "running|interval")
    one.close()
    two.tile(4, 4)
    two.wait_text("verdict", "4-4: .*legal spot")
    assert two.errors == []
    two.close()
    assert proc.poll() is None


def play_first_move(tab: "Tab", status: str) -> str:
    """Play the first listed move, then wait for the person's next turn or the end: a status
    other than the one before the click (a move the physics cannot make is chosen again, in
    the same turn, with one legal move fewer)."""
    tab.id("move-0").click()
    tab.page.wait_for_function(
        "(old) => { const t = document.querySelector(\"[data-testid='play-status']\").innerText;"
        " return t !== old && /^your turn|^game over/.test(t); }", arg=status, timeout=WAIT_MS)
    return tab.text("play-status")


def play_to_the_end(tab: "Tab", physics: str, shot: str | None = None) -> str:
    """A whole Défi game in seat 0 against two careful seats, always the safest listed move."""
    tab.id("mode-play").click()
    if physics != "statics":
        tab.option("play-physics", "PyBullet (slow)")
    tab.id("new-game").click()
    status = tab.wait_text("play-status", "your turn|game over")
    log = tab.text("play-log")  # the person's hand is shown, the other seats' stay hidden
    assert "your hand (seat 0)" in log and not re.search(r"^\s+seat [12]: ", log, re.M), log
    moves = 0
    while "game over" not in status:
        assert moves < 40, status
        tab.id("move-row-0").hover()
        tab.wait_text("play-hover", ".")
        if shot and moves == 2:
            tab.shot(shot)
        status = play_first_move(tab, status)
        moves += 1
    return status


@pytest.mark.slow
def test_play_a_defi_game_judged_by_the_statics(lab, browser):
    url, out, proc = lab
    tab = Tab(browser, url)
    status = play_to_the_end(tab, "statics", shot="play.png")
    assert re.search(r"game over: winners .*; pips left \[\d+, \d+, \d+\]", status)
    assert "end of deal" in tab.text("play-log")
    saved = tab.wait_text("note", "the game is saved")
    path = out / re.search(r"as (\S+\.json)", saved).group(1)
    import json

    record = json.loads(path.read_text())
    assert record["rule"] == "defi" and record["player_kinds"] == ["me", "careful", "careful"] and record["physics"] == "statics"
    r = run_cli("report", path, "--out", out.parent / "game.html", "--no-replays")  # the record as report reads it
    assert r.returncode == 0, r.stderr
    tab.shot("game-over.png")
    assert tab.errors == []
    tab.close()
    assert proc.poll() is None


def test_a_collapse_in_play_is_shown_and_taken_back(lab, browser):
    url, _, proc = lab
    tab = Tab(browser, url)
    tab.id("mode-play").click()
    tab.id("new-game").click()
    tab.wait_text("play-status", "your turn")
    riskiest = tab.page.locator("[data-testid^=move-row-]").last
    assert "(falls)" in riskiest.inner_text()
    riskiest.locator("[data-testid^=move-]").click()
    assert "you take back" in tab.wait_text("play-status", "collapse!")
    tab.wait_text("play-status", "your turn 2 |game over")
    assert "COLLAPSE: takes back" in tab.text("play-log")
    assert tab.errors == []
    tab.close()
    assert proc.poll() is None


def test_en_quinconce_against_bold_and_random_seats(lab, browser):
    url, _, proc = lab
    tab = Tab(browser, url)
    tab.id("mode-play").click()
    tab.option("play-rule", "En quinconce")
    tab.option("seat-1", "bold")
    tab.option("seat-2", "random")
    tab.id("new-game").click()
    status = tab.wait_text("play-status", "your turn|game over")
    for _ in range(2):
        if "game over" in status:
            break
        status = play_first_move(tab, status)
    log = tab.text("play-log")
    assert "bold" in log or "P1 place" in log
    assert tab.errors == []
    tab.close()
    assert proc.poll() is None


SCENE_POSES = """() => {
  const scene = getElement(document.querySelector('[data-testid=scene]'));
  const out = [];
  for (const [id, o] of scene.objects) {
    if (o.mesh && o.mesh.type === 'Group' && o.mesh.visible) {
      const p = o.mesh.position, q = o.mesh.quaternion;
      out.push([id, p.x, p.y, p.z, q.x, q.y, q.z, q.w].map(v => typeof v === 'number' ? Math.round(v * 1000) / 1000 : v));
    }
  }
  return out.sort().join(';');
}"""
"""What the scene draws: every visible group's (tile's or spot's) pose, as text."""


def test_a_collapse_is_shown_happening_then_taken_back(lab, browser):
    """The tiles move in the scene at real speed for the length of the recorded motion (the
    hand bringing the tile down, the fall, the tiles coming to rest), not a twitch; then the
    tower comes back as it was."""
    url, _, proc = lab
    tab = Tab(browser, url)
    tab.two_tiles(0)
    tab.tile(3, 3)
    tab.spots("3-3")
    before = tab.page.evaluate(SCENE_POSES)
    # What the scene draws, watched in the page every 10 ms from the click on.
    tab.page.evaluate("(f) => { window.seen = []; const poses = eval(f); window.watch = setInterval(() => {"
                      " const now = poses(); if (!window.seen.length || window.seen.at(-1)[1] !== now)"
                      " window.seen.push([performance.now(), now]); }, 10); }", SCENE_POSES)
    tab.spot("3-3 on #1 (6-3) half 1 (").locator("[data-testid^=place-]").click()
    # The docs' picture, mid-fall: after 16 pictures drawn, or 10 s (frames that reach a loaded
    # browser together are drawn as one, so there may be fewer).
    tab.page.evaluate("async () => { for (let i = 0; i < 100 && window.seen.length < 16; i++)"
                      " await new Promise(done => setTimeout(done, 100)); }")
    tab.shot("collapse.png")
    tab.wait_text("verdict", "taking it back|taken back")  # the first lasts a second: it may be gone by now
    seen = tab.page.evaluate("() => { clearInterval(window.watch); return window.seen; }")
    times = [t / 1000 for t, _ in seen[1:]]
    assert len(seen) >= 8, "the motion was not shown"
    assert times[-1] - times[0] >= 0.4  # seen for as long as it lasts at real speed, not a twitch
    assert "collapsed" in tab.wait_text("verdict", "taken back")
    assert tab.text("placements-text").count("[[structure]]") == 2
    tab.page.wait_for_function("(b) => b !== (" + SCENE_POSES + ")()", arg=before, timeout=WAIT_MS)
    assert tab.errors == []
    tab.close()
    assert proc.poll() is None


def test_magnets_off_a_reload_and_a_binary_upload_never_lose_the_tower(lab, browser):
    url, _, proc = lab
    tab = Tab(browser, url)
    tab.two_tiles(1)
    tab.id("magnets").click()  # the half-lap held by its magnets would fall: refused, the switch goes back
    assert "refused" in tab.wait_text("verdict", "magnets off")
    assert "6-3 on #0 (6-6) half 1" in tab.wait_text("note", "kept as it was")
    tab.page.wait_for_function("() => document.querySelector('[data-testid=magnets]').getAttribute('aria-checked') === 'true'",
                               timeout=WAIT_MS)
    text = tab.text("placements-text")
    assert "magnets = true" in text and text.count("[[structure]]") == 2
    upload = tab.page.locator("[data-testid=scenario-upload] input[type=file]")
    upload.set_input_files(files=[{"name": "picture.png", "mimeType": "image/png", "buffer": b"\x89PNG\r\n\x1a\n\x00\xff\xfe"}])
    assert "expected a .toml file" in tab.wait_text("note", "refused")
    upload.set_input_files(files=[{"name": "picture.toml", "mimeType": "text/plain", "buffer": b"\x89PNG\r\n\x1a\n\x00\xff\xfe"}])
    assert "not text" in tab.wait_text("note", "picture.toml")
    assert tab.text("placements-text").count("[[structure]]") == 2
    tab.page.reload()
    tab.id("tile-0-0").wait_for(timeout=WAIT_MS)
    assert "your tower is back: 2 tiles" in tab.wait_text("verdict", "back")
    assert tab.text("placements-text").count("[[structure]]") == 2
    assert tab.id("tile-3-6").is_disabled()
    assert tab.errors == []
    tab.close()
    assert proc.poll() is None


@pytest.mark.parametrize("width", [1024, 390])
def test_the_panel_fits_the_screen(lab, browser, width):
    url, _, proc = lab
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(url)
    page.get_by_test_id("tile-6-6").wait_for(timeout=WAIT_MS)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # nothing runs off to the side
    for name in ["preset", "magnets", "rule", "tile-0-0", "tile-6-6", "undo", "rank", "legend", "scenario-upload"]:
        page.get_by_test_id(name).scroll_into_view_if_needed()
        box = page.get_by_test_id(name).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (name, box)
    scene = page.get_by_test_id("scene").bounding_box()
    assert scene["width"] <= width and scene["height"] >= 200
    if width < 600:  # on a phone the panel folds under the scene
        assert page.get_by_test_id("tile-0-0").bounding_box()["y"] > scene["y"] + scene["height"] - 1 - page.evaluate("window.scrollY")
    page.screenshot(path=str(shots() / f"lab-{width}.png"), full_page=width < 600)
    page.close()
    assert proc.poll() is None
