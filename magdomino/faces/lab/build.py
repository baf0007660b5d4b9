"""The lab's Build mode: a palette of the 28 tiles, the tower in 3D, a chosen tile's legal
spots as ghosts coloured by the statics' risk (and as a list), a placement made in the
PyBullet world and replayed from its recorded poses, the verdict; undo, reset, magnets,
preset; the odds of a spot in the background; the placements as a scenario file or Python.

One :class:`BuildLab` per browser tab (:mod:`magdomino.faces.lab.server`). Physics runs in a
worker thread (``nicegui.run.io_bound``) so the page and the other tabs stay live; one
action at a time per tab: a click during another is refused with a note, never interleaved.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
import tomllib
from pathlib import Path

from magdomino.errors import InputError
from magdomino.faces.lab.scene3d import TileView, hex_colour, new_scene
from magdomino.faces.lab.tower import FRAME_S, RULES, LabTower, tile_text
from magdomino.model.presets import Preset, load_preset, preset_from_dict, preset_names
from magdomino.model.tiles import ALL_TILES, colour_of, colour_rgb, tile

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

log = logging.getLogger("magdomino.lab")

SLOW_MOTION = 4
"""The slow-motion switch shows a motion this many times slower than life."""

ODDS_ROUNDS = (4, 8, 16, 32, 64, 128, 256)
"""Trials per round of a background odds run (each round ends with an updated interval)."""

RANK_TRIALS = 10
"""Trials per spot when every ghost is ranked."""


class Busy:
    """One action at a time: ``async with busy("placing 3-1"):`` or a visible note and nothing done."""

    def __init__(self, note):
        self.what: str | None = None
        self.note = note

    def __call__(self, what: str):
        return _Hold(self, what)


class _Hold:
    def __init__(self, busy: Busy, what: str):
        self.busy, self.what, self.refused = busy, what, False

    async def __aenter__(self):
        if self.busy.what is not None:
            self.busy.note(f"busy {self.busy.what}: {self.what} refused (try again when it is done)", "warning")
            self.refused = True
            return None
        self.busy.what = self.what
        self.busy.note("", "info")
        return self

    async def __aexit__(self, kind, exc, tb):
        if not self.refused:
            self.busy.what = None
        if exc is None or self.refused:
            return False
        if isinstance(exc, InputError):
            self.busy.note(str(exc), "negative")
        else:
            log.exception("lab: %s failed", self.what)
            self.busy.note(f"{self.what} failed: {type(exc).__name__}: {exc}", "negative")
        return True  # shown in the page; the server keeps running


class BuildLab:
    """The Build tab of one browser tab.

    Parameters
    ----------
    settings : LabSettings
        The server's preset and output folder (:mod:`magdomino.faces.lab.server`).
    note : callable(str, kind)
        Shows a line in the page.
    """

    def __init__(self, settings, note):
        self.settings, self.note = settings, note
        self.scene = None
        self.tower = LabTower(settings.preset)
        self.busy = Busy(note)
        self.tile: tuple[int, int] | None = None
        self.ghosts: list = []
        self.selected = None
        self.views: list[TileView] = []
        self.ghost_views: list[TileView] = []
        self.spot_marks: list = []  # (icon, label) of each listed spot
        self.odds_cancel = threading.Event()
        self.odds_running = False
        self.saved = 0

    # -- the panel ---------------------------------------------------------------------

    def build(self) -> None:
        from nicegui import ui

        with ui.row().classes("w-full items-start no-wrap gap-4"):
            with ui.column().classes("gap-1"):
                self.scene = new_scene()
                ui.label("drag to turn, scroll to zoom; click a ghost to see it, click it again (or double-click) to place it"
                         ).classes("text-xs text-gray-600")
            with ui.column().classes("gap-1 grow"):
                self._panel()
        self.scene.on_click(self._on_scene_click)

    def _panel(self) -> None:
        from nicegui import ui

        with ui.row().classes("items-center gap-2"):
            names = preset_names()
            start = self.settings.preset if isinstance(self.settings.preset, str) and self.settings.preset in names else None
            self.preset_select = ui.select(names + ([] if start else ["(file)"]), value=start or "(file)", label="preset",
                                           on_change=self._on_preset).classes("w-32").props("dense data-testid=preset")
            ui.upload(label="preset file", on_upload=self._on_preset_upload, auto_upload=True).props(
                "dense flat accept=.toml data-testid=preset-upload").classes("w-40")
            self.magnets = ui.switch("magnets", value=True, on_change=self._on_magnets).props("data-testid=magnets")
            self.rule = ui.select(list(RULES), value="any", label="rule", on_change=self._on_rule).classes("w-28").props(
                "dense data-testid=rule")
            self.slow = ui.switch(f"slow motion (x{SLOW_MOTION})").props("data-testid=slow")
        ui.label("Tiles (choose one; greyed: in the tower)").classes("text-sm text-gray-600")
        self.palette = {}
        with ui.row().classes("gap-1"):
            for t in ALL_TILES:
                self.palette[t] = ui.button(tile_text(t), on_click=lambda t=t: self.choose(t)).props(
                    f"dense no-caps size=sm data-testid=tile-{t[0]}-{t[1]}").classes("min-w-0 px-1")
        with ui.row().classes("gap-2"):
            ui.button("undo", on_click=self.undo).props("data-testid=undo dense")
            ui.button("reset", on_click=self.reset).props("data-testid=reset dense")
            ui.button("odds", on_click=self.odds).props("data-testid=odds dense")
            ui.button("cancel", on_click=self.cancel_odds).props("data-testid=cancel dense")
            ui.button("rank this tile", on_click=self.rank).props("data-testid=rank dense")
        # One line each, of fixed height: text that changes never moves the list under the pointer.
        line = "white-space: nowrap; overflow: hidden; text-overflow: ellipsis; height: 1.5em; max-width: 640px"
        self.verdict = ui.label("The table is empty: choose a tile.").props("data-testid=verdict").classes("font-medium").style(line)
        self.hover = ui.label("").props("data-testid=hover").classes("text-sm").style(line)
        self.odds_label = ui.label("").props("data-testid=odds-estimate").classes("text-sm").style(line)
        ui.label("Spots: point at one to see it, click its text to select it (odds), 'place' to place it").classes("text-sm text-gray-600")
        # Rows of one line each: a spot's words may change (its margin comes later), never its place.
        self.spot_list = ui.column().classes("gap-0 max-h-64 overflow-auto w-full").props("data-testid=spots")
        with ui.expansion("Placements", value=True).classes("w-full").props("data-testid=placements"):
            with ui.row().classes("gap-2"):
                self.form = ui.toggle(["scenario", "python"], value="scenario", on_change=lambda _: self.show_text())
                ui.button("copy", on_click=self.copy).props("dense data-testid=copy")
                ui.button("save", on_click=self.save).props("dense data-testid=save")
                ui.upload(label="open a scenario", on_upload=self._on_scenario_upload, auto_upload=True).props(
                    "dense flat accept=.toml data-testid=scenario-upload").classes("w-44")
            self.text = ui.code("", language="toml").classes("w-full text-xs").props("data-testid=placements-text")

    # -- drawing -----------------------------------------------------------------------

    def _size_mm(self):
        return tuple(s * 1000 for s in self._preset().tile.size)

    def _preset(self):
        return self.tower.preset if isinstance(self.tower.preset, Preset) else load_preset(self.tower.preset)

    def _colour(self, pips) -> str:
        return hex_colour(colour_rgb(colour_of(tile(*pips), self._preset().tile.colours)) or (0.8, 0.2, 0.2))

    def draw_tower(self, positions_mm=None, quats=None) -> None:
        """Every tile of the tower at its poses (the tower's own by default)."""
        pips = self.tower.pips
        while len(self.views) > len(pips):
            self.views.pop().delete()
        for i, v in enumerate(self.views):
            if tuple(v.pips) != tuple(pips[i]):  # the same tile named the other way round (and turned)
                v.delete()
                self.views[i] = TileView(self.scene, pips[i], self._size_mm(), self._colour(pips[i]))
        for i in range(len(self.views), len(pips)):
            self.views.append(TileView(self.scene, pips[i], self._size_mm(), self._colour(pips[i])))
        if positions_mm is None and pips:
            positions_mm, quats = self.tower.poses[0] * 1000, self.tower.poses[1]
        for v, p, q in zip(self.views, positions_mm if pips else [], quats if pips else []):
            v.pose(p, q)

    def clear_ghosts(self) -> None:
        for g in self.ghost_views:
            g.delete()
        self.ghost_views, self.ghosts, self.selected = [], [], None
        self.spot_list.clear()
        self.hover.text = ""

    def show_ghosts(self) -> None:
        from nicegui import ui

        for g in self.ghost_views:
            g.delete()
        self.ghost_views = []
        self.spot_list.clear()
        self.spot_marks = []
        for k, g in enumerate(self.ghosts):
            view = TileView(self.scene, g.pips, self._size_mm(), g.colour, opacity=0.4, name=f"ghost:{k}")
            view.pose(g.pos_mm, yaw_deg=g.yaw_deg)
            self.ghost_views.append(view)
            with self.spot_list:
                with ui.row().classes("items-center gap-1 no-wrap").props(f"data-testid=spot-{k}") as row:
                    ui.button("place", on_click=lambda k=k: self.place(k)).props(f"dense size=sm data-testid=place-{k}")
                    icon = ui.icon("circle").style(f"color: {g.colour}")
                    label = ui.label(g.label()).classes("text-xs cursor-pointer whitespace-nowrap").props(f"data-testid=pick-{k}").on(
                        "click", lambda _, k=k: self.select(k))
                    self.spot_marks.append((icon, label))
                row.on("mouseenter", lambda _, k=k: self.point(k))
        self.palette_state()

    def recolour(self) -> None:
        """The ghosts and their rows in their risk's colours and words again (the same elements:
        a click on a row keeps its target)."""
        for k, (g, view, (icon, label)) in enumerate(zip(self.ghosts, self.ghost_views, self.spot_marks)):
            view.highlight(k == self.selected, g.colour)
            icon.style(f"color: {g.colour}")
            label.text = g.label()
        if self.selected is not None and self.selected < len(self.ghosts):
            self.hover.text = self.ghosts[self.selected].label()

    def palette_state(self) -> None:
        used = self.tower.used()
        for t, b in self.palette.items():
            b.props(f"color={'grey-5' if t in used else ('primary' if t != self.tile else 'accent')}")
            if t in used:
                b.disable()
            else:
                b.enable()

    def show_text(self) -> None:
        if not len(self.tower):
            self.text.content = ""
            return
        self.text.content = self.tower.scenario_toml() if self.form.value == "scenario" else self.tower.python_lines()
        self.text.language = "toml" if self.form.value == "scenario" else "python"

    # -- actions -----------------------------------------------------------------------

    def point(self, k: int) -> None:
        """Pointing at a spot's row: its text and risk (the selection stays)."""
        if 0 <= k < len(self.ghosts):
            self.hover.text = self.ghosts[k].label()

    def select(self, k: int) -> None:
        """A spot chosen (its ghost stands out; the odds are of it)."""
        if not 0 <= k < len(self.ghosts):
            return
        if self.selected is not None and self.selected < len(self.ghost_views):
            self.ghost_views[self.selected].highlight(False, self.ghosts[self.selected].colour)
        self.selected = k
        self.ghost_views[k].highlight(True, self.ghosts[k].colour)
        self.hover.text = self.ghosts[k].label()

    def _on_scene_click(self, e) -> None:
        for hit in e.hits:
            if hit.object_name and hit.object_name.startswith("ghost:"):
                k = int(hit.object_name.split(":")[1])
                if e.click_type == "dblclick" or self.selected == k:
                    asyncio.ensure_future(self.place(k))
                else:
                    self.select(k)
                return

    async def choose(self, t) -> None:
        """A tile from the palette: the first goes to the middle of the table; later ones show
        their spots (at once whether each stands at rest, then their margins)."""
        from nicegui import background_tasks, run

        async with self.busy(f"choosing {tile_text(t)}") as ok:
            if ok is None:
                return
            self.stop_odds()
            self.tile = tuple(t)
            if not len(self.tower):
                await run.io_bound(self.tower.first, t)
                self.clear_ghosts()
                self.draw_tower()
                self.verdict.text = f"{tile_text(t)} in the middle of the table: stood"
                self.tile = None
                self.palette_state()
                self.show_text()
                return
            self.ghosts = await run.io_bound(self.tower.ghosts, t, self.rule.value, margins=False)
            self.show_ghosts()
            self.verdict.text = (f"{tile_text(t)}: {len(self.ghosts)} legal spots under rule {self.rule.value}" if self.ghosts
                                 else f"{tile_text(t)}: no legal spot under rule {self.rule.value}")
        if ok is not None and self.ghosts:
            background_tasks.create(self._margins(self.ghosts, self.tower.snapshot()), name="lab margins")

    async def _margins(self, ghosts, at) -> None:
        """The ghosts' tilt margins, found after they are shown (the risk classes then), unless
        the spots on show have changed meanwhile."""
        from nicegui import run

        try:
            await run.io_bound(self.tower.fill_margins, ghosts, at)
        except Exception as exc:  # shown; the ghosts keep their first colours
            log.exception("lab: margins failed")
            self.note(f"the spots' margins failed: {type(exc).__name__}: {exc}", "negative")
            return
        if self.ghosts is ghosts:
            self.recolour()

    async def place(self, k: int) -> None:
        """Make spot ``k`` in the PyBullet world, replay its motion, then the verdict."""
        from nicegui import run

        if not 0 <= k < len(self.ghosts):
            return
        ghost = self.ghosts[k]
        async with self.busy(f"placing {ghost.text}") as ok:
            if ok is None:
                return
            self.stop_odds()
            self.select(k)
            self.verdict.text = f"{ghost.text}: simulating..."
            for g in self.ghost_views:
                g.delete()
            self.ghost_views = []
            live: list = []
            running = asyncio.ensure_future(run.io_bound(self.tower.motion, ghost, live))
            await self.replay(ghost, live, running)
            motion = await running
            kept = self.tower.keep(ghost, motion)
            words = motion.summary()
            self.verdict.text = f"{ghost.text}: {words}" + ("" if kept else " (taken back: the tower is as it was)")
            if not kept:
                await asyncio.sleep(0.8)
            self.clear_ghosts()
            self.draw_tower()
            self.tile = None
            self.palette_state()
            self.show_text()

    async def replay(self, ghost, live: list, running) -> None:
        """The frames as the world records them (``live``, filled by ``running`` in a worker
        thread), each shown at its simulated time (or slower): the motion starts as soon as
        its first frame exists."""
        pips = self.tower.pips + [tuple(ghost.pips)]
        while len(self.views) < len(pips):
            i = len(self.views)
            self.views.append(TileView(self.scene, pips[i], self._size_mm(), self._colour(pips[i])))
        self.views[-1].pose([math.nan] * 3)
        pace = FRAME_S * (SLOW_MOTION if self.slow.value else 1)
        shown, start = 0, None
        while True:
            if shown < len(live):
                positions, quats = live[shown]
                start = time.perf_counter() if start is None else start
                for v, p, q in zip(self.views, positions * 1000.0, quats):
                    v.pose(p, q)
                shown += 1
                await asyncio.sleep(max(0.0, start + shown * pace - time.perf_counter()))
            elif running.done():
                return
            else:
                await asyncio.sleep(0.005)

    async def undo(self) -> None:
        from nicegui import run

        async with self.busy("undoing") as ok:
            if ok is None:
                return
            self.stop_odds()
            if not len(self.tower):
                self.note("nothing to undo", "info")
                return
            await run.io_bound(self.tower.undo)
            self.clear_ghosts()
            self.draw_tower()
            self.tile = None
            self.verdict.text = f"undone: {len(self.tower)} tiles (replayed from the start)"
            self.palette_state()
            self.show_text()

    async def reset(self) -> None:
        async with self.busy("resetting") as ok:
            if ok is None:
                return
            self.stop_odds()
            self.tower.reset()
            self.clear_ghosts()
            self.draw_tower()
            self.tile = None
            self.verdict.text = "The table is empty: choose a tile."
            self.odds_label.text = ""
            self.palette_state()
            self.show_text()

    async def _rebuild(self, what: str, change) -> None:
        from nicegui import run

        async with self.busy(what) as ok:
            if ok is None:
                return
            self.stop_odds()
            await run.io_bound(change)
            self.clear_ghosts()
            for v in self.views:
                v.delete()
            self.views = []
            self.draw_tower()
            self.tile = None
            self.verdict.text = f"{what}: {len(self.tower)} tiles rebuilt"
            self.palette_state()
            self.show_text()

    async def _on_preset(self, e) -> None:
        if e.value and e.value != "(file)" and e.value != self.tower.preset:
            await self._rebuild(f"preset {e.value}", lambda: self.tower.set_preset(e.value))

    async def _on_magnets(self, e) -> None:
        if bool(e.value) != self.tower.magnets:
            await self._rebuild(f"magnets {'on' if e.value else 'off'}", lambda: self.tower.set_preset(self.tower.preset, e.value))

    async def _on_rule(self, _e) -> None:
        if self.tile is not None and len(self.tower):
            t, self.tile = self.tile, None
            await self.choose(t)

    async def _on_preset_upload(self, e) -> None:
        name = Path(e.file.name).name
        try:
            data = tomllib.loads(await e.file.text())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            self.note(f"{name}: not a TOML file ({exc})", "negative")
            return
        try:
            preset = preset_from_dict(data, source=name)
        except InputError as exc:
            self.note(str(exc), "negative")
            return
        await self._rebuild(f"preset file {name}", lambda: self.tower.set_preset(preset))
        if self.tower.preset is preset:
            self.preset_select.set_options(list(self.preset_select.options)
                                           + ([] if "(file)" in self.preset_select.options else ["(file)"]),
                                           value="(file)")

    async def _on_scenario_upload(self, e) -> None:
        name = Path(e.file.name).name
        text = await e.file.text()
        await self._rebuild(f"scenario {name}", lambda: self.tower.load_text(text, name))
        self.magnets.value = self.tower.magnets

    def copy(self) -> None:
        from nicegui import ui

        self.show_text()
        ui.clipboard.write(self.text.content)
        self.note("copied", "positive")

    def save(self) -> None:
        if not len(self.tower):
            self.note("nothing to save: the table is empty", "info")
            return
        self.saved += 1
        out = self.settings.out_path(f"construction-{self.saved}.toml")
        self.tower.construction().save(out)
        self.note(f"saved in the output folder as {out.name}", "positive")

    # -- odds --------------------------------------------------------------------------

    def stop_odds(self) -> None:
        self.odds_cancel.set()

    def cancel_odds(self) -> None:
        if self.odds_running:
            self.odds_cancel.set()
            self.odds_label.text += " (cancelling)"
        else:
            self.note("no odds running", "info")

    async def odds(self) -> None:
        """The hybrid odds of the selected ghost (or of the last placement) in the background."""
        from nicegui import run

        ghost = self.ghosts[self.selected] if self.selected is not None and self.selected < len(self.ghosts) else None
        what, tower = ghost, self.tower
        if ghost is None and self.tower.placed:
            what, tower = self.tower.last_ghost(), self.tower.without_last()
        if what is None:
            self.note("choose a tile and point at one of its spots first", "info")
            return
        if self.odds_running:
            self.note("odds already running: cancel them first", "warning")
            return
        self.odds_cancel = cancel = threading.Event()
        self.odds_running = True
        self.odds_label.text = f"odds of {what.text}: running..."
        try:
            rounds = tower.odds_rounds(what, rounds=ODDS_ROUNDS)
            while not cancel.is_set():
                step = await run.io_bound(next, rounds, None)
                if step is None or cancel.is_set():
                    break
                c, n, s, (lo, hi) = step
                self.odds_label.text = (f"odds of {what.text}: p(collapse) {c / n:.3f}, 95 % interval [{lo:.3f}, {hi:.3f}], "
                                        f"{n} trials, shifted {s}")
            if cancel.is_set():
                self.odds_label.text += " (cancelled)"
        except InputError as exc:
            self.note(str(exc), "negative")
        except Exception as exc:  # shown; the server keeps running
            log.exception("lab: odds failed")
            self.note(f"odds failed: {type(exc).__name__}: {exc}", "negative")
        finally:
            self.odds_running = False

    async def rank(self) -> None:
        """Every ghost coloured by p(collapse) (hybrid, common random numbers), the shift share beside it."""
        from nicegui import run

        if not self.ghosts:
            self.note("choose a tile first: its spots are ranked", "info")
            return
        async with self.busy(f"ranking {tile_text(self.tile)}") as ok:
            if ok is None:
                return
            self.stop_odds()
            self.verdict.text = f"ranking {len(self.ghosts)} spots of {tile_text(self.tile)} ({RANK_TRIALS} trials each)..."
            await run.io_bound(self.tower.rank, self.ghosts, RANK_TRIALS)
            for g in self.ghosts:
                g.risk = "falls" if g.p_collapse is None else ("safe" if g.p_collapse < 0.1 else "tight" if g.p_collapse < 0.3
                                                               else "risky" if g.p_collapse < 0.6 else "falls")
            self.recolour()
            best = min(self.ghosts, key=lambda g: (1.0 if g.p_collapse is None else g.p_collapse))
            share = "" if best.shift_share is None else f", shifted in {best.shift_share:.0%}"
            self.verdict.text = f"ranked: safest {best.text} (p(collapse) {best.p_collapse:.2f}{share})"

