"""The lab's blocks that Build and Play share: one action at a time (:class:`Busy`), a
construction's tiles in the scene (:class:`TowerScene`: drawn, numbered, framed), the controls
under the scene, the risk colours' legend, and the upload drop zones."""

from __future__ import annotations

import logging
import tomllib

import numpy as np

from magdomino.errors import InputError
from magdomino.faces.lab.scene3d import TileView, frame_camera, hex_colour
from magdomino.model.tiles import colour_of, colour_rgb, tile
from magdomino.studies.risk_scale import RISK_CLASSES, RISK_COLOURS, RISK_SYMBOLS, SAFE_MARGIN_DEG

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

log = logging.getLogger("magdomino.lab")

LEGEND = {
    "safe": f"stands, margin ≥ {SAFE_MARGIN_DEG:.0f}°",
    "tight": "stands, a real hand may topple it",
    "unsure": "the statics cannot tell",
    "falls": "falls",
}
"""The risk colours' legend (the statics' words; with odds, p(collapse) decides)."""


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


def legend_row() -> None:
    """The risk classes' colours and meanings, one chip each."""
    from nicegui import ui

    with ui.row().classes("items-center gap-x-3 gap-y-0 text-xs text-gray-700").props("data-testid=legend"):
        for cls in RISK_CLASSES:
            with ui.row().classes("items-center gap-1 no-wrap"):
                ui.icon("check_box_outline_blank").style(f"color: {RISK_COLOURS[cls]}")
                ui.label(f"{RISK_SYMBOLS[cls]} {cls}: {LEGEND[cls]}")


def tile_colour(preset, pips) -> str:
    return hex_colour(colour_rgb(colour_of(tile(*pips), preset.tile.colours)) or (0.8, 0.2, 0.2))


class TowerScene:
    """A construction's tiles in a scene: views made and posed from poses, numbered ``#N``,
    framed from three quarters when the construction outgrows the view (the same in Build
    and Play)."""

    def __init__(self, scene, preset_of):
        self.scene, self.preset_of = scene, preset_of
        self.views: list[TileView] = []
        self.labels = False
        self.framed_mm = None  # the poses the camera last framed

    def draw(self, pips, positions_mm, quats, *, frame: bool = True) -> None:
        """The tiles ``pips`` at these poses (views made, kept or deleted as needed)."""
        preset = self.preset_of()
        size = tuple(s * 1000 for s in preset.tile.size)
        while len(self.views) > len(pips):
            self.views.pop().delete()
        for i, p in enumerate(pips):
            if i < len(self.views) and tuple(self.views[i].pips) == tuple(p):
                continue
            view = TileView(self.scene, p, size, tile_colour(preset, p), number=i, labels=self.labels)
            if i < len(self.views):
                self.views[i].delete()
                self.views[i] = view
            else:
                self.views.append(view)
        for v, x, q in zip(self.views, positions_mm, quats):
            v.pose(x, q)
        if frame:
            self.keep_framed(positions_mm)

    def extend(self, pips) -> None:
        """One more (hidden) view for a tile about to be placed."""
        preset = self.preset_of()
        self.views.append(TileView(self.scene, pips, tuple(s * 1000 for s in preset.tile.size), tile_colour(preset, pips),
                                   number=len(self.views), labels=self.labels))
        self.views[-1].pose([float("nan")] * 3)

    def keep_framed(self, positions_mm, force: bool = False) -> None:
        """Frame the construction again if it has grown out of what the camera framed."""
        p = np.asarray(positions_mm, float).reshape(-1, 3)
        if force or self.framed_mm is None or self._outgrown(p):
            frame_camera(self.scene, p, tuple(s * 1000 for s in self.preset_of().tile.size))
            self.framed_mm = p.copy()

    def _outgrown(self, p) -> bool:
        old = self.framed_mm
        if len(p) == 0 or len(old) == 0:
            return len(p) != len(old)
        grown = np.maximum(p.max(axis=0) - old.max(axis=0), old.min(axis=0) - p.min(axis=0))
        return bool(np.any(grown > 10.0)) or len(p) < len(old) // 2

    def show_labels(self, on: bool) -> None:
        self.labels = bool(on)
        for v in self.views:
            v.show_label(self.labels)

    def mark(self, colour: str | None) -> None:
        """Every tile in ``colour`` (a collapsed tower before its take-back), or its own (None)."""
        for v in self.views:
            v.highlight(colour is not None, colour or v.colour)


def view_controls(tower_scene: TowerScene, slow_label: str | None = None):
    """The row under a scene: frame the construction, #N labels, and (Build) slow motion."""
    from nicegui import ui

    with ui.row().classes("items-center gap-2"):
        ui.button("frame", icon="center_focus_strong",
                  on_click=lambda: tower_scene.keep_framed(tower_scene.framed_mm if tower_scene.framed_mm is not None else [],
                                                           force=True)).props("dense flat data-testid=frame")
        ui.switch("#N labels", on_change=lambda e: tower_scene.show_labels(e.value)).props("dense data-testid=labels")
        slow = ui.switch(slow_label).props("dense data-testid=slow") if slow_label else None
    return slow


def drop_zone(label: str, handler, testid: str, note):
    """One upload box: a file dropped or picked is handed to ``handler`` (which says in a note
    what it took or refused) and the box is cleared; a file that is not a ``.toml`` is refused
    with a note (``note(text, kind)``)."""
    from nicegui import ui

    return ui.upload(label=label, on_upload=handler, auto_upload=True, max_files=1,
                     on_rejected=lambda _: note(f"{label}: refused, expected a .toml file", "negative")).props(
        f"flat bordered accept=.toml data-testid={testid}").classes("w-52 lab-drop")


def read_toml(data: bytes, name: str) -> dict:
    """An uploaded file's bytes as a TOML table; one InputError naming the file otherwise."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(name, "", "a TOML file (UTF-8 text), got bytes that are not text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(name, "", f"not a TOML file ({exc})") from None
