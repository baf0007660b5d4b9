"""The lab's flows with NiceGUI's simulated user (``nicegui.testing``'s ``User``, no browser):
build by clicks, a collapse taken back, undo, magnets off refused, uploads, a reload, and a
whole game played to its end. What only a browser shows (the scene's motion, the layout) is
in ``test_lab_browser.py``."""

from __future__ import annotations

import asyncio
import json

import pytest

nicegui = pytest.importorskip("nicegui")
from nicegui import ui  # noqa: E402
from nicegui.elements.upload_files import SmallFileUpload  # noqa: E402
from nicegui.testing.user_simulation import user_simulation  # noqa: E402

from magdomino.faces.lab import play as play_module  # noqa: E402
from magdomino.faces.lab.server import LabSettings, page  # noqa: E402

WAIT = 300  # retries of should_see, 0.1 s each: physics runs in worker threads


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def lab(tmp_path):
    """A simulated user on a lab whose output folder is ``tmp_path``."""
    settings = LabSettings("toy", tmp_path)

    async def root():
        await page(settings)

    return root


def labels(user, part: str) -> list[str]:
    """The texts of the page's labels that contain ``part`` (none: an empty list)."""
    try:
        return [e.text for e in user.find(kind=ui.label, content=part).elements]
    except AssertionError:  # the simulated user's find asserts that something matches
        return []


def click_spot(user, text: str) -> None:
    """Click "place" in the listed spot whose text starts with ``text``."""
    for label in user.find(kind=ui.label, content=text).elements:
        k = label.props.get("data-testid", "").removeprefix("pick-")
        if k.isdigit():
            user.find(marker=f"place-{k}").click()
            return
    raise AssertionError(f"no spot {text!r}")


def placements(user):
    """The Build panel's placements (its scenario text)."""
    return user.find(marker="placements-text").elements.pop()


def buttons(user, text: str) -> list:
    try:
        return [b for b in user.find(kind=ui.button, content=text).elements if b.text == text]
    except AssertionError:
        return []


def upload(user, label: str):
    """The upload box whose label starts with ``label``."""
    return [u for u in user.find(kind=ui.upload).elements if u.props.get("label", "").startswith(label)][0]


async def choose(user, tile: str) -> None:
    user.find(kind=ui.button, content=tile).click()
    await user.should_see(f"{tile}: ", retries=WAIT)


async def settled_spots(user) -> None:
    """Wait until every listed spot has its class (the margins come after the list)."""
    for _ in range(WAIT):
        if not labels(user, "(judging...)"):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the spots' margins never came")


async def place(user, text: str) -> None:
    click_spot(user, text + " (")
    for _ in range(WAIT):
        words = [t for t in labels(user, text + ": ") if "simulating" not in t and "taking it back" not in t]
        if words:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"no verdict for {text}")


async def two_tiles(user, half: int) -> None:
    """A new lab: 6-6 in the middle, then 6-3 on its half ``half``."""
    await user.open("/")
    await user.should_see("Tiles (choose one", retries=WAIT)
    user.find(kind=ui.button, content="6-6").click()
    await user.should_see("6-6 in the middle of the table: stood", retries=WAIT)
    await choose(user, "3-6")
    await settled_spots(user)
    await place(user, f"6-3 on #0 (6-6) half {half}")
    await user.should_see(f"6-3 on #0 (6-6) half {half}: stood")


@pytest.mark.anyio
async def test_build_undo_and_a_collapse_taken_back(lab, tmp_path):
    async with user_simulation(root=lab) as user:
        await two_tiles(user, 0)
        await choose(user, "3-3")
        await settled_spots(user)
        assert any("(unsure" in t or "(falls" in t for t in labels(user, "3-3 on #1 (6-3) half 1 ("))
        await place(user, "3-3 on #1 (6-3) half 1")
        await user.should_see("collapsed", retries=WAIT)
        await user.should_see("taken back: the tower is as it was", retries=WAIT)
        code = placements(user)
        assert code.content.count("[[structure]]") == 2
        user.find(kind=ui.button, content="undo").click()
        await user.should_see("undone: 1 tiles", retries=WAIT)
        assert placements(user).content.count("[[structure]]") == 1
        user.find(kind=ui.button, content="save").click()
        await user.should_see("saved in the output folder", retries=WAIT)
        assert list(tmp_path.glob("construction-*.toml"))


@pytest.mark.anyio
async def test_magnets_off_uploads_and_a_reload_keep_the_tower(lab, tmp_path):
    async with user_simulation(root=lab) as user:
        await two_tiles(user, 1)
        switch = user.find(kind=ui.switch, content="magnets").elements.pop()
        switch.set_value(False)  # the half-lap is held by its magnets: refused, and the switch goes back
        await user.should_see("magnets off: refused (the tower is as it was)", retries=WAIT)
        await user.should_see("kept as it was", retries=WAIT)
        assert switch.value is True
        code = placements(user)
        assert "magnets = true" in code.content and code.content.count("[[structure]]") == 2
        await upload(user, "open a scenario").handle_uploads([SmallFileUpload("picture.toml", "text/plain", b"\x89PNG\r\n\x00\xff")])
        await user.should_see("not text", retries=WAIT)
        await upload(user, "a preset file").handle_uploads([SmallFileUpload("set.toml", "text/plain", b"name = ")])
        await user.should_see("not a TOML file", retries=WAIT)
        assert placements(user).content.count("[[structure]]") == 2
        await user.open("/")  # a reload: the same tab
        await user.should_see("your tower is back: 2 tiles", retries=WAIT)
        assert placements(user).content.count("[[structure]]") == 2
        good = b'name = "two"\npreset = "toy"\n[[structure]]\nplace = "5-5 at (0, 0) mm"\n'
        await upload(user, "open a scenario").handle_uploads([SmallFileUpload("two.toml", "text/plain", good)])
        await user.should_see("two.toml taken: 1 tiles", retries=WAIT)


@pytest.mark.anyio
@pytest.mark.parametrize("judge", ["statics (fast)", "PyBullet (slow)"])
async def test_a_defi_game_played_to_its_end(lab, tmp_path, monkeypatch, judge):
    """Against one careful seat, the safest listed move each turn, the pauses of the show cut."""
    for name in ("STEP_S", "ARRIVE_S", "TAKE_BACK_S"):
        monkeypatch.setattr(play_module, name, 0.0)
    async with user_simulation(root=lab) as user:
        await user.open("/")
        await user.should_see("Tiles (choose one", retries=WAIT)
        seat_2 = [s for s in user.find(kind=ui.select).elements if s.props.get("label") == "seat 2"][0]
        seat_2.set_value("none")
        physics = [s for s in user.find(kind=ui.select).elements if s.props.get("label") == "judged by"][0]
        physics.set_value({v: k for k, v in play_module.PHYSICS.items()}[judge])
        user.find(kind=ui.button, content="new game").click()
        for _ in range(60):
            for _ in range(WAIT):
                status = labels(user, "your turn") + labels(user, "game over")
                if status and buttons(user, "play") or labels(user, "game over"):
                    break
                await asyncio.sleep(0.1)
            if labels(user, "game over"):
                break
            before = labels(user, "your turn")
            if not buttons(user, "play"):
                continue
            user.find(marker="move-0").click()
            for _ in range(WAIT):
                if labels(user, "game over") or (labels(user, "your turn") and labels(user, "your turn") != before):
                    break
                await asyncio.sleep(0.1)
        await user.should_see("game over: winners", retries=WAIT)
        await user.should_see("the game is saved", retries=WAIT)
        record = json.loads(next(tmp_path.glob("defi-game-*.json")).read_text())
        mine = [e for e in record["events"] if e.get("player") == 0 and e.get("type") == "place"]
        assert record["physics"] == {"statics (fast)": "statics", "PyBullet (slow)": "dynamics"}[judge]
        assert len(mine) >= 5, record["events"][-3:]
