"""The lab's server: one page per browser tab (the 3D view beside the panel, Build and Play
modes), served by NiceGUI on a local address (:func:`serve`)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from magdomino.faces.lab.build import BuildLab
from magdomino.faces.lab.play import PlayLab
from magdomino.faces.lab.tower import LabTower

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

log = logging.getLogger("magdomino.lab")



@dataclass
class LabSettings:
    """What every tab shares: the starting preset and the output folder.

    ``out_path(name)`` is where the lab writes a file: always inside ``out_dir``, under a
    name the lab chooses (a number is added so nothing is overwritten)."""

    preset: object
    out_dir: Path
    _counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def out_path(self, name: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "-", Path(name).name) or "file"
        stem, dot, ext = safe.rpartition(".")
        stem, ext = (stem, "." + ext) if dot else (safe, "")
        with self._lock:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            for n in self._counter:
                path = self.out_dir / f"{stem}-{n}{ext}"
                if not path.exists():
                    path.touch()
                    return path
        raise AssertionError("unreachable")


LAB_CSS = """
.lab-drop .q-uploader__subtitle, .lab-drop .q-uploader__list { display: none; }
.lab-drop .q-uploader__header { min-height: 2.2em; }
"""
"""An upload box is a drop zone only: the file list and its byte counts are not kept (the
note says what each file did)."""

KEPT_S = 3600.0
"""How long the server keeps a tab's tower and game after the tab last closed (s): a
reload, or a tab restored by the browser, shows them again."""

_KEPT: dict = {}
"""Each tab's kept state by the tab's id (NiceGUI's ``client.tab_id``, which a reload keeps)."""


def kept_for(tab_id) -> dict:
    """The state the server keeps for a tab (``tower``, ``game``), made empty on its first
    visit; tabs closed more than :data:`KEPT_S` ago are forgotten (their games closed)."""
    now = time.monotonic()
    for other, state in list(_KEPT.items()):
        if other != tab_id and now - state.get("seen", now) > KEPT_S:
            game = _KEPT.pop(other).get("game")
            if game is not None:
                try:
                    game.close()
                except Exception:  # already closed
                    log.debug("lab: closing a forgotten game", exc_info=True)
    state = _KEPT.setdefault(tab_id, {})
    state.pop("seen", None)  # open again
    return state


async def page(settings: LabSettings) -> None:
    """Build one tab's page (called by NiceGUI for each new tab). The tab's tower and game are
    kept by the server under the tab's id (:func:`kept_for`): a reload of the tab shows them
    again; another tab is another lab."""
    from nicegui import ui

    note_label = None

    def note(text: str, kind: str = "info") -> None:
        if note_label is None or note_label.is_deleted:
            return  # the tab is gone
        if not text:  # an action starts: the last note is old news
            note_label.text = ""
            return
        with note_label:  # the page's own slot: the element whose click started the action may be gone
            ui.notify(text, type=kind, position="bottom", multi_line=True)
        note_label.text = text
        note_label.classes(replace="text-sm break-words " + ("text-red-700" if kind == "negative" else "text-gray-700"))

    ui.page_title("magdomino lab")
    ui.add_css(LAB_CSS)
    with ui.row().classes("items-center gap-x-4 gap-y-0 w-full"):
        ui.label("magdomino lab").classes("text-lg font-bold")
        with ui.tabs().props("dense data-testid=modes") as tabs:
            build_tab = ui.tab("Build").props("data-testid=mode-build")
            play_tab = ui.tab("Play").props("data-testid=mode-play")
        note_label = ui.label("").props("data-testid=note").classes("text-sm break-words min-w-0").style(
            "flex: 1 1 240px; min-height: 1.5em")
    await ui.context.client.connected(timeout=30)
    kept = kept_for(ui.context.client.tab_id)
    with ui.tab_panels(tabs, value=build_tab).classes("w-full"):
        with ui.tab_panel(build_tab).classes("p-1"):
            build = BuildLab(settings, note, kept.get("tower"))
            kept["tower"] = build.tower
            build.build()
        with ui.tab_panel(play_tab).classes("p-1"):
            play = PlayLab(settings, note, kept.get("game"), keep=lambda g: kept.__setitem__("game", g))
            play.build()
    if play.game is not None:
        await play.restore()

    def closed() -> None:  # a reload closes the client, not the tab: its tower and game stay kept
        build.stop_odds()
        play.stopped = True
        kept["seen"] = time.monotonic()

    ui.context.client.on_delete(closed)


def serve(*, host: str, port: int, preset, out_dir: Path, open_browser: bool = False) -> None:
    """Serve the lab until Ctrl-C (a KeyboardInterrupt or the server's own shutdown)."""
    from nicegui import app, ui

    settings = LabSettings(preset, Path(out_dir))

    @ui.page("/")
    async def index() -> None:
        await page(settings)

    app.on_exception(lambda exc: log.error("lab: %s: %s", type(exc).__name__, exc))
    app.on_startup(_quiet_loop)
    stop = threading.Event()
    warming = threading.Thread(target=warm_up, args=(preset, stop), name="lab-warm-up", daemon=True)
    warming.start()

    def let_warm_up_end() -> None:  # a thread still inside PyBullet when the interpreter exits aborts it
        stop.set()
        warming.join(timeout=60)

    app.on_shutdown(let_warm_up_end)
    ui.run(host=host, port=port, reload=False, show=open_browser, title="magdomino lab", show_welcome_message=False,
           uvicorn_logging_level="warning", reconnect_timeout=10.0, favicon="🁣")



def warm_up(preset, stop: threading.Event | None = None) -> None:
    """Load what the first actions need (the physics, the statics' compiled kernels, the
    hybrid) while the server starts, so that the first tab's first clicks answer at once;
    ``stop`` set: end after the step under way (the server is stopping)."""
    stop = stop or threading.Event()
    try:
        t = LabTower(preset)
        t.first((6, 6))
        ghosts = t.ghosts((3, 6))
        if stop.is_set():
            return
        t.keep(ghosts[-1], t.motion(ghosts[-1]))
        on = [g for g in t.ghosts((3, 3)) if " on #" in g.text]
        if stop.is_set():
            return
        for _ in t.odds_rounds(on[0], rounds=(2,)):
            pass
    except Exception:  # a warm-up only: the first action then pays, and says what is wrong
        log.debug("lab: warm-up failed", exc_info=True)


def _quiet_loop() -> None:
    """A message a client should not have sent (malformed, or for an element that is gone)
    fails in the socket's task, which nobody awaits: logged in one line and ignored."""
    def handler(loop, context) -> None:
        exc = context.get("exception")
        if exc is None:
            loop.default_exception_handler(context)
            return
        log.warning("lab: a client's message ignored (%s: %s)", type(exc).__name__, str(exc)[:200])

    asyncio.get_running_loop().set_exception_handler(handler)
