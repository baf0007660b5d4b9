"""The lab's Build mode: a palette of the 28 tiles, the tower in 3D, a chosen tile's legal
spots (outlines in their risk's colour, listed beside), a placement made in the PyBullet world
and shown as it happens (the hand bringing the tile down, a collapse falling to the table at
real speed, then the take-back), the verdict; undo, reset, magnets, preset; the odds of a spot
in the background; the placements as a scenario file or Python.

One :class:`BuildLab` per browser tab (:mod:`magdomino.faces.lab.server`). The server's
:class:`~magdomino.faces.lab.tower.LabTower` is the only truth: after every change the scene,
the spot list and the placements are drawn again from it (:meth:`BuildLab.redraw`). Physics
runs in a worker thread (``nicegui.run.io_bound``) so the page and the other tabs stay live;
one action at a time per tab: a click during another is refused with a note, never
interleaved, and an action that fails says so and leaves the tower as it was.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import numpy as np

from magdomino.errors import InputError
from magdomino.faces.lab.scene3d import GhostView, new_scene, play_frames
from magdomino.faces.lab.tower import RULES, LabTower
from magdomino.faces.lab.widgets import Busy, TowerScene, drop_zone, legend_row, read_toml, view_controls
from magdomino.model.presets import Preset, load_preset, preset_from_dict, preset_names
from magdomino.model.tiles import ALL_TILES
from magdomino.studies.risk_scale import RISK_COLOURS
from magdomino.wording import tile_text

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

log = logging.getLogger("magdomino.lab")

SLOW_MOTION = 4
"""The slow-motion switch shows a motion this many times slower than life."""

ODDS_ROUNDS = (4, 8, 16, 32, 64, 128, 256)
"""Trials per round of a background odds run (each round ends with an updated interval)."""

ODDS_WIDTH = 0.1
"""A background odds run stops once its 95 % interval is this narrow (or after its last round)."""

RANK_TRIALS = 10
"""Trials per spot when every ghost is ranked."""

TAKE_BACK_S = 1.0
"""How long a collapsed tower is shown marked before it is taken back (s)."""

class BuildLab:
    """The Build tab of one browser tab.

    Parameters
    ----------
    settings : LabSettings
        The server's preset and output folder (:mod:`magdomino.faces.lab.server`).
    note : callable(str, kind)
        Shows a line in the page.
    tower : LabTower, optional
        The tab's tower kept by the server (a reload shows it again).
    """

    def __init__(self, settings, note, tower: LabTower | None = None):
        self.settings, self.note = settings, note
        self.scene = None
        self.tower = tower if tower is not None else LabTower(settings.preset)
        self.busy = Busy(note)
        self.tile: tuple[int, int] | None = None
        self.ghosts: list = []
        self.selected = None
        self.ghost_views: list[GhostView] = []
        self.spot_marks: list = []  # (icon, label) of each listed spot
        self.odds_cancel = threading.Event()
        self.odds_running = False
        self.saved = 0

    # -- the page ----------------------------------------------------------------------

    def build(self) -> None:
        from nicegui import ui

        with ui.element("div").classes("w-full flex flex-wrap items-start gap-4"):
            with ui.column().classes("gap-1 min-w-0").style("flex: 1 1 420px; max-width: 760px"):
                self.scene = new_scene()
                self.tiles = TowerScene(self.scene, self._preset)
                self.slow = view_controls(self.tiles, f"slow motion (x{SLOW_MOTION})")
                ui.label("drag to turn, scroll to zoom; click a spot to see it, click it again (or double-click) to place it"
                         ).classes("text-xs text-gray-600")
                legend_row()
            with ui.column().classes("gap-1 min-w-0").style("flex: 1 1 320px"):
                self._panel()
        self.scene.on_click(self._on_scene_click)
        self.redraw(verdict="The table is empty: choose a tile." if not len(self.tower)
                    else f"your tower is back: {len(self.tower)} tiles")

    def _panel(self) -> None:
        from nicegui import ui

        with ui.row().classes("items-center gap-2"):
            names = preset_names()
            self.preset_select = ui.select(names + ["(file)"], value=self._preset_value(), label="preset",
                                           on_change=self._on_preset).classes("w-32").props("dense data-testid=preset")
            self.magnets = ui.switch("magnets", value=self.tower.magnets, on_change=self._on_magnets).props("data-testid=magnets")
            self.rule = ui.select(list(RULES), value="any", label="rule", on_change=self._on_rule).classes("w-28").props(
                "dense data-testid=rule")
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
        # Lines wrap; each keeps at least one line's height, so a short text never moves the list up.
        self.verdict = ui.label("").props("data-testid=verdict").classes("font-medium break-words").style("min-height: 1.5em")
        self.hover = ui.label("").props("data-testid=hover").classes("text-sm break-words").style("min-height: 1.5em")
        self.odds_label = ui.label("").props("data-testid=odds-estimate").classes("text-sm break-words").style("min-height: 1.5em")
        ui.label("Spots: point at one to see it, click its text to select it (odds), 'place' to place it").classes(
            "text-sm text-gray-600")
        self.spot_list = ui.column().classes("gap-0 max-h-64 overflow-auto w-full").props("data-testid=spots")
        with ui.expansion("Placements", value=True).classes("w-full").props("data-testid=placements"):
            with ui.row().classes("gap-2 items-center"):
                self.form = ui.toggle(["scenario", "python"], value="scenario", on_change=lambda _: self.show_text())
                ui.button("copy", on_click=self.copy).props("dense data-testid=copy")
                ui.button("save", on_click=self.save).props("dense data-testid=save")
            with ui.row().classes("gap-2 items-start"):
                self.scenario_upload = drop_zone("open a scenario (.toml)", self._on_scenario_upload, "scenario-upload", self.note)
                self.preset_upload = drop_zone("a preset file (.toml)", self._on_preset_upload, "preset-upload", self.note)
            self.text = ui.code("", language="toml").classes("w-full text-xs").props("data-testid=placements-text").mark(
                "placements-text")

    def _preset_value(self) -> str:
        p = self.tower.preset
        return p if isinstance(p, str) and p in preset_names() else "(file)"

    def _preset(self):
        return self.tower.preset if isinstance(self.tower.preset, Preset) else load_preset(self.tower.preset)

    # -- drawing: everything from the tower ---------------------------------------------

    def redraw(self, verdict: str | None = None) -> None:
        """The scene, the spot list, the palette, the switches and the placements drawn again
        from the server's tower (the spots are cleared: a tile is chosen again)."""
        self.clear_ghosts()
        self.draw_tower()
        self.tile = None
        if verdict is not None:
            self.verdict.text = verdict
        self.sync_controls()
        self.palette_state()
        self.show_text()

    def sync_controls(self) -> None:
        """The magnets switch and the preset select as the tower has them (their handlers then
        see no change and do nothing)."""
        if self.magnets.value != self.tower.magnets:
            self.magnets.set_value(self.tower.magnets)
        if self.preset_select.value != self._preset_value():
            self.preset_select.set_value(self._preset_value())

    def draw_tower(self, frame: bool = True) -> None:
        """Every tile of the tower at its poses."""
        if not len(self.tower):
            self.tiles.draw([], [], [], frame=frame)
            return
        self.tiles.draw(self.tower.pips, self.tower.poses[0] * 1000, self.tower.poses[1], frame=frame)

    def clear_ghosts(self) -> None:
        for g in self.ghost_views:
            g.delete()
        self.ghost_views, self.ghosts, self.selected = [], [], None
        self.spot_list.clear()
        self.spot_marks = []
        self.hover.text = ""

    def show_ghosts(self) -> None:
        from nicegui import ui

        for g in self.ghost_views:
            g.delete()
        self.ghost_views = []
        self.spot_list.clear()
        self.spot_marks = []
        size = tuple(s * 1000 for s in self._preset().tile.size)
        for k, g in enumerate(self.ghosts):
            view = GhostView(self.scene, size, g.colour, name=f"ghost:{k}")
            view.pose(g.pos_mm, yaw_deg=g.yaw_deg)
            self.ghost_views.append(view)
            with self.spot_list:
                with ui.row().classes("items-center gap-1 no-wrap w-full").props(f"data-testid=spot-{k}") as row:
                    ui.button("place", on_click=lambda k=k: self.place(k)).props(f"dense size=sm data-testid=place-{k}").mark(f"place-{k}")
                    icon = ui.icon("check_box_outline_blank").style(f"color: {g.colour}")
                    label = ui.label(g.label()).classes("text-xs cursor-pointer break-words min-w-0").props(
                        f"data-testid=pick-{k}").on("click", lambda _, k=k: self.select(k))
                    self.spot_marks.append((icon, label))
                row.on("mouseenter", lambda _, k=k: self.point(k))
                row.on("mouseleave", lambda _, k=k: self.unpoint(k))
        self.tiles.keep_framed(self._framed_with_ghosts())
        self.palette_state()

    def _framed_with_ghosts(self):
        tower = self.tower.poses[0] * 1000 if len(self.tower) else np.zeros((0, 3))
        spots = np.array([g.pos_mm for g in self.ghosts]).reshape(-1, 3)
        return np.vstack([tower, spots])

    def recolour(self) -> None:
        """The spots and their rows in their risk's colours and words again (the same elements:
        a click on a row keeps its target)."""
        for g, view, (icon, label) in zip(self.ghosts, self.ghost_views, self.spot_marks):
            view.recolour(g.colour)
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
        """Pointing at a spot's row: its text and risk, and its spot drawn solid."""
        if 0 <= k < len(self.ghosts):
            self.hover.text = self.ghosts[k].label()
            self.ghost_views[k].solid(True)

    def unpoint(self, k: int) -> None:
        if 0 <= k < len(self.ghost_views) and k != self.selected:
            self.ghost_views[k].solid(False)

    def select(self, k: int) -> None:
        """A spot chosen (drawn solid; the odds are of it)."""
        if not 0 <= k < len(self.ghosts):
            return
        if self.selected is not None and self.selected < len(self.ghost_views):
            self.ghost_views[self.selected].solid(False)
        self.selected = k
        self.ghost_views[k].solid(True)
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
        their spots (at once the statics' sure answers, then the standing ones' margins)."""
        from nicegui import background_tasks, run

        async with self.busy(f"choosing {tile_text(t)}") as ok:
            if ok is None:
                return
            self.stop_odds()
            if not len(self.tower):
                await run.io_bound(self.tower.first, t)
                self.redraw(f"{tile_text(t)} in the middle of the table: stood")
                return
            self.tile = tuple(t)
            self.ghosts = await run.io_bound(self.tower.ghosts, t, self.rule.value, margins=False)
            self.show_ghosts()
            self.verdict.text = (f"{tile_text(t)}: {len(self.ghosts)} legal spots under rule {self.rule.value}" if self.ghosts
                                 else f"{tile_text(t)}: no legal spot under rule {self.rule.value}")
        if ok is not None and self.ghosts:
            background_tasks.create(self._margins(self.ghosts, self.tower.snapshot()), name="lab margins")

    async def _margins(self, ghosts, at) -> None:
        """The standing spots' tilt margins, found after they are shown (their classes then),
        unless the spots on show have changed meanwhile."""
        from nicegui import run

        try:
            await run.io_bound(self.tower.fill_margins, ghosts, at)
        except Exception as exc:  # shown; a spot left unjudged is one the statics could not tell
            log.exception("lab: margins failed")
            self.note(f"the spots' margins failed: {type(exc).__name__}: {exc}", "negative")
            for g in ghosts:
                g.risk = g.risk or "unsure"
        if self.ghosts is ghosts:
            self.recolour()

    async def place(self, k: int) -> None:
        """Make spot ``k`` in the PyBullet world and show it happening, then the verdict; a
        collapse is shown falling, marked, then taken back. Whatever happens, the page ends
        drawn from the tower (as it was, or with the tile)."""
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
            self.spot_list.clear()
            verdict = f"{ghost.text}: not placed (the tower is as it was)"
            try:
                live: list = []
                running = asyncio.ensure_future(run.io_bound(self.tower.motion, ghost, live))
                self.tiles.extend(ghost.pips)
                await play_frames(self.tiles.views, live, running, slow=SLOW_MOTION if self.slow.value else 1.0)
                motion = await running
                kept = self.tower.keep(ghost, motion)
                verdict = f"{ghost.text}: {motion.summary()}" + ("" if kept else " (taken back: the tower is as it was)")
                if not kept:
                    self.verdict.text = f"{ghost.text}: {motion.summary()}; taking it back..."
                    self.tiles.mark(RISK_COLOURS["falls"])
                    await asyncio.sleep(TAKE_BACK_S)
            finally:
                self.redraw(verdict)

    async def undo(self) -> None:
        from nicegui import run

        async with self.busy("undoing") as ok:
            if ok is None:
                return
            self.stop_odds()
            if not len(self.tower):
                self.note("nothing to undo", "info")
                return
            try:
                await run.io_bound(self.tower.undo)
            finally:
                self.redraw(f"undone: {len(self.tower)} tiles")

    async def reset(self) -> None:
        async with self.busy("resetting") as ok:
            if ok is None:
                return
            self.stop_odds()
            self.tower.reset()
            self.odds_label.text = ""
            self.redraw("The table is empty: choose a tile.")

    async def _rebuild(self, what: str, change) -> bool:
        """A change of the tower's physics or base, all or nothing; the page drawn again from
        the tower either way. Returns whether it changed."""
        from nicegui import run

        async with self.busy(what) as ok:
            if ok is None:
                self.sync_controls()  # the switch or select the click moved goes back
                return False
            self.stop_odds()
            done = False
            try:
                await run.io_bound(change)
                done = True
            finally:
                self.redraw(f"{what}: {len(self.tower)} tiles rebuilt" if done else f"{what}: refused (the tower is as it was)")
                self.tiles.keep_framed(self.tower.poses[0] * 1000 if len(self.tower) else [], force=True)
        return done

    async def _on_preset(self, e) -> None:
        if e.value and e.value != "(file)" and e.value != self.tower.preset:
            await self._rebuild(f"preset {e.value}", lambda: self.tower.set_preset(e.value))

    async def _on_magnets(self, e) -> None:
        if bool(e.value) != self.tower.magnets:
            await self._rebuild(f"magnets {'on' if e.value else 'off'}", lambda: self.tower.set_preset(self.tower.preset, e.value))

    async def _on_rule(self, _e) -> None:
        if self.tile is not None and len(self.tower):
            await self.choose(self.tile)

    async def _on_preset_upload(self, e) -> None:
        name = Path(e.file.name).name
        e.sender.reset()
        try:
            preset = preset_from_dict(read_toml(await e.file.read(), name), source=name)
        except InputError as exc:
            self.note(f"{name} refused: {exc}", "negative")
            return
        if await self._rebuild(f"preset file {name}", lambda: self.tower.set_preset(preset)):
            self.note(f"{name} taken: the preset of the lab", "positive")

    async def _on_scenario_upload(self, e) -> None:
        name = Path(e.file.name).name
        e.sender.reset()
        data = await e.file.read()
        if await self._rebuild(f"scenario {name}", lambda: self.tower.load_text(data, name)):
            self.note(f"{name} taken: {len(self.tower)} tiles", "positive")

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
        """The hybrid odds of the selected spot (or of the last placement) in the background,
        in rounds, until the interval is :data:`ODDS_WIDTH` wide or the last round is done."""
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
            line, end = "", f"done: the last round ({sum(ODDS_ROUNDS)} trials)"
            while not cancel.is_set():
                step = await run.io_bound(next, rounds, None)
                if step is None or cancel.is_set():
                    break
                c, n, s, (lo, hi) = step
                line = (f"odds of {what.text}: p(collapse) {c / n:.3f}, 95 % interval [{lo:.3f}, {hi:.3f}], "
                        f"{n} trials, shifted {s}")
                self.odds_label.text = line + " (running...)"
                if hi - lo <= ODDS_WIDTH:
                    end = f"done: the interval is {ODDS_WIDTH:g} wide or less"
                    break
            self.odds_label.text = line + (" (cancelled)" if cancel.is_set() else f" ({end})")
        except InputError as exc:
            self.note(str(exc), "negative")
        except Exception as exc:  # shown; the server keeps running
            log.exception("lab: odds failed")
            self.note(f"odds failed: {type(exc).__name__}: {exc}", "negative")
        finally:
            self.odds_running = False

    async def rank(self) -> None:
        """Every spot classed by its p(collapse) (hybrid, common random numbers), the shift share beside it."""
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
            self.recolour()
            best = min(self.ghosts, key=lambda g: (1.0 if g.p_collapse is None else g.p_collapse))
            share = "" if best.shift_share is None else f", shifted in {best.shift_share:.0%}"
            self.verdict.text = f"ranked: safest {best.text} (p(collapse) {best.p_collapse:.2f}{share})"
