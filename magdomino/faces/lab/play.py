"""The lab's Play mode: Défi magnétique or En quinconce with the person in seat 0 and
careful, bold or random seats in the others, on the step-by-step game
(``md.game``, :func:`magdomino.faces.api_game.game`, a :class:`~magdomino.games.session.GameSession`).

The person sees their hand and only the legal moves (with the statics' risk beside each
when hints are on, safest first), and chooses one; the game applies it and the other seats'
replies, which the lab shows one by one: each placement, a collapse (the collapsing
placement made again in PyBullet on the construction before it, and shown falling) and its
take-back, draws, passes, the end and the scores. The construction is drawn where the placement
language puts its tiles. A finished game is saved in the output folder as the record that
``magdomino replay`` and ``magdomino report`` read.
"""

from __future__ import annotations

import asyncio
import logging
import re

import numpy as np

from magdomino.errors import InputError
from magdomino.faces.api_game import game
from magdomino.faces.lab.build import Busy
from magdomino.faces.lab.scene3d import TileView, hex_colour, new_scene
from magdomino.faces.lab.tower import FRAME_S, RISK_COLOURS, nominal_poses, replayed_motion, risk_of, tile_text
from magdomino.faces.terminal import shown
from magdomino.model.presets import Preset, load_preset
from magdomino.model.tiles import colour_of, colour_rgb, tile

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

log = logging.getLogger("magdomino.lab")

RULES = {"defi": "Défi magnétique", "quinconce": "En quinconce"}
KINDS = ("careful", "bold", "random")
PHYSICS = {"statics": "statics (fast)", "dynamics": "PyBullet (slow)"}
STEP_S = 0.6
"""Pause after each of the other seats' moves as they are shown (s)."""
ARRIVE_S = 0.3
"""How long a placed tile takes to arrive in the picture (s): a sketch of the move, not its physics."""


class PlayLab:
    """The Play tab of one browser tab (``settings``, ``note``: as :class:`~magdomino.faces.lab.build.BuildLab`'s)."""

    def __init__(self, settings, note):
        self.settings, self.note = settings, note
        self.busy = Busy(note)
        self.game = None
        self.views: list[TileView] = []
        self.ghost: TileView | None = None
        self.shown: list[str] = []
        self.shown_poses = ((), ())
        self.saved = None
        self.stopped = False

    def build(self) -> None:
        from nicegui import ui

        with ui.row().classes("w-full items-start no-wrap gap-4"):
            with ui.column().classes("gap-1"):
                self.scene = new_scene()
            with ui.column().classes("gap-1 grow"):
                with ui.row().classes("items-center gap-2"):
                    self.rule = ui.select(RULES, value="defi", label="rule").classes("w-40").props("dense data-testid=play-rule")
                    self.seats = [ui.select(list(KINDS) + ([] if k == 0 else ["none"]), value="careful" if k < 2 else "none",
                                            label=f"seat {k + 1}").classes("w-28").props(f"dense data-testid=seat-{k + 1}")
                                  for k in range(3)]
                with ui.row().classes("items-center gap-2"):
                    self.physics = ui.select(PHYSICS, value="statics", label="judged by").classes("w-40").props(
                        "dense data-testid=play-physics")
                    self.seed = ui.number("seed", value=1, min=0, step=1, format="%d").classes("w-20").props("dense data-testid=play-seed")
                    self.hints = ui.switch("hints (risk, safest first)", value=True, on_change=self.refresh_moves).props(
                        "data-testid=hints")
                    ui.button("new game", on_click=self.new_game).props("dense data-testid=new-game")
                line = "white-space: nowrap; overflow: hidden; text-overflow: ellipsis; height: 1.5em; max-width: 640px"
                self.status = ui.label("Choose the seats and start a new game; you are seat 0.").props(
                    "data-testid=play-status").classes("font-medium").style(line)
                self.hand = ui.label("").props("data-testid=hand").classes("text-sm").style(line)
                self.pointed = ui.label("").props("data-testid=play-hover").classes("text-sm").style(line)
                ui.label("Your legal moves (point at one to see it on the table)").classes("text-sm text-gray-600")
                self.moves = ui.column().classes("gap-0 max-h-64 overflow-auto w-full").props("data-testid=moves")
                self.log = ui.code("", language="text").classes("w-full text-xs").props("data-testid=play-log")

    # -- drawing -----------------------------------------------------------------------

    def _preset(self):
        p = self.game.preset if self.game is not None else self.settings.preset
        return p if isinstance(p, Preset) else load_preset(p)

    def draw(self, texts: list[str]) -> None:
        """The construction of these placements, where the placement language puts them."""
        preset = self._preset()
        pips, positions, quats = nominal_poses(texts, preset, self.game.magnets if self.game else True)
        size = tuple(s * 1000 for s in preset.tile.size)
        for v in self.views:
            v.delete()
        self.views = []
        for p, x, q in zip(pips, positions, quats):
            colour = hex_colour(colour_rgb(colour_of(tile(*p), preset.tile.colours)) or (0.8, 0.2, 0.2))
            view = TileView(self.scene, p, size, colour)
            view.pose(x, q)
            self.views.append(view)
        self.shown = list(texts)
        self.shown_poses = (positions, quats)

    async def arrive(self, text: str) -> None:
        """The last tile drawn comes to its place: dropped from above, or slid along the table
        (beneath), from where its text says (``slid from (x, y) mm``) if it says."""
        if not self.views:
            return
        end, q = np.asarray(self.shown_poses[0][-1], float), self.shown_poses[1][-1]
        slid = re.search(r"slid from \(([-0-9.e]+), ([-0-9.e]+)\) mm", text)
        if slid:
            start = np.array([float(slid.group(1)), float(slid.group(2)), end[2]])
        else:  # beneath: along the table from the viewer's side; else from above
            start = end + ([0.0, -40.0, 0.0] if " beneath " in text else [0.0, 0.0, 25.0])
        steps = 10
        for k in range(steps + 1):
            if self.stopped or not self.views:
                return
            self.views[-1].pose(start + (end - start) * (k / steps), q)
            await asyncio.sleep(ARRIVE_S / steps)

    def point(self, move: str, risk) -> None:
        """A legal move pointed at: its text and risk, and its ghost on the table."""
        self.pointed.text = move + ("" if risk is None else f" (risk {risk:.2f})")
        if self.ghost is not None:
            self.ghost.delete()
            self.ghost = None
        if move in ("draw", "pass") or self.game is None:
            return
        try:
            pips, positions, quats = nominal_poses(self.game.placements() + [move], self._preset(), self.game.magnets)
        except InputError:
            return
        size = tuple(s * 1000 for s in self._preset().tile.size)
        colour = RISK_COLOURS[risk_of(None if risk is None else risk < 0.5, None if risk is None else 30 * (1 - risk))]
        self.ghost = TileView(self.scene, pips[-1], size, colour, opacity=0.5)
        self.ghost.pose(positions[-1], quats[-1])

    async def refresh_moves(self, event=None) -> None:
        """The legal moves (and with hints their risks, judged in a worker thread) listed again."""
        from nicegui import run

        g = self.game
        if event is not None and self.busy.what is not None:  # the switch, while a move is played: shown after it
            return
        if g is None or g.over or not g.my_turn:
            self.moves.clear()
            return
        legal = await run.io_bound(g.legal)
        risks = await run.io_bound(g.risks) if self.hints.value else None
        self.show_moves(legal, risks)

    def show_moves(self, legal: list, risks) -> None:
        from nicegui import ui

        self.moves.clear()
        g = self.game
        order = list(range(len(legal)))
        if risks:
            order.sort(key=lambda k: (risks[k] is None, risks[k] or 0.0, k))
        with self.moves:
            for rank, k in enumerate(order):
                risk = risks[k] if risks else None
                with ui.row().classes("items-center gap-1 no-wrap").props(f"data-testid=move-row-{rank}") as row:
                    ui.button("play", on_click=lambda k=k: self.play(k)).props(f"dense size=sm data-testid=move-{rank}")
                    ui.label(legal[k] + ("" if risk is None else f"  (risk {risk:.2f})")).classes("text-xs whitespace-nowrap")
                row.on("mouseenter", lambda _, m=legal[k], r=risk: self.point(m, r))
        self.hand.text = "your hand: " + "  ".join(tile_text(t) for t in g.hand)

    async def show_state(self) -> None:
        g = self.game
        self.log.content = "\n".join(shown(g, g.events)[-40:])  # the other seats' hands stay hidden
        await self.refresh_moves()
        if g.over:
            winners = ", ".join(f"seat {w}" + (" (you)" if w == 0 else "") for w in g.winners) or "none"
            self.status.text = f"game over: winners {winners}; pips left {g.scores}"
            self.hand.text = "your hand: " + "  ".join(tile_text(t) for t in g.hand_of(0))
            self._save()
        else:
            turn = 1 + sum(1 for e in g.events if e.get("player") == 0 and e.get("type") in ("place", "draw", "pass"))
            self.status.text = f"your turn {turn} (seat 0): {len(g.legal())} legal moves; pips left {g.scores}, stock {g.stock}"

    def _save(self) -> None:
        if self.saved is not None:
            return
        try:
            path = self.settings.out_path(f"{self.game.rule}-game.json")
            self.saved = self.game.save(path)
            self.note(f"the game is saved in the output folder as {self.saved.name} (magdomino replay and report read it)", "positive")
        except OSError as exc:
            self.note(f"could not save the game: {exc}", "negative")

    # -- actions -----------------------------------------------------------------------

    async def new_game(self) -> None:
        """A game with the chosen rule and seats; the others play up to your first turn."""
        from nicegui import run

        seats = ["me"] + [s.value for s in self.seats if s.value != "none"]
        async with self.busy("starting a game") as ok:
            if ok is None:
                return
            self.stop()
            self.stopped = False
            physics = self.physics.value
            preset = self.settings.preset
            seed = int(self.seed.value or 0)
            self.status.text = f"dealing {RULES[self.rule.value]} for {len(seats)} seats ({physics})..."
            self.game = await run.io_bound(lambda: game(self.rule.value, seats=seats, physics=physics, seed=seed, preset=preset))
            self.saved = None
            await self.show_events(self.game.events)

    async def play(self, k: int) -> None:
        from nicegui import run

        g = self.game
        if g is None or g.over or not g.my_turn or not 0 <= k < len(g.legal()):
            self.note("no move of yours to play now", "info")
            return
        move = g.legal()[k]
        async with self.busy(f"playing {move}") as ok:
            if ok is None:
                return
            self.moves.clear()
            self.status.text = f"you play {move}; the others reply..."
            happened = await run.io_bound(g.play, k)
            await self.show_events(happened.events)

    async def show_events(self, events) -> None:
        """Each event shown in turn (placements drawn, a collapse taken back), then the state."""
        if self.ghost is not None:
            self.ghost.delete()
            self.ghost = None
        every = self.game.events
        first = len(every) - len(events)
        for n, ev in enumerate(events):
            if self.stopped:
                return
            kind, who = ev.get("type"), ev.get("player")
            seat = "you" if who == 0 else f"seat {who}"
            if kind == "place":
                self.draw(self.game.placements(first + n + 1))
                self.status.text = f"{seat}: {ev['placement']}"
                await self.arrive(ev["placement"])
            elif kind == "collapse":
                takes = "you take" if who == 0 else f"{seat} takes"
                self.status.text = f"collapse! {takes} back {len(ev.get('tiles', []))} tiles"
                placed = max((j for j in range(first + n) if every[j]["type"] == "place"), default=None)
                if placed is not None:
                    await self.show_fall(self.game.placements(placed), every[placed]["placement"])
                for v in self.views:
                    v.highlight(True, RISK_COLOURS["falls"])
                await asyncio.sleep(STEP_S)
                self.draw([])
            elif kind in ("draw", "pass"):
                self.status.text = f"{seat}: {kind}"
            elif kind in ("deal", "restart"):
                self.draw(self.game.placements(first + n + 1))
            else:
                continue
            if who != 0 or kind == "collapse":
                await asyncio.sleep(STEP_S)
        self.draw(self.game.placements())
        await self.show_state()

    async def show_fall(self, before: list[str], text: str) -> None:
        """The collapsing placement made again in PyBullet on the construction before it
        (spawned and settled once) and shown as the world records it: how it fell."""
        from nicegui import run

        live: list = []
        running = asyncio.ensure_future(run.io_bound(replayed_motion, before, text, self._preset(), self.game.magnets, live))
        self.draw(before + [text])
        self.views[-1].pose([float("nan")] * 3)
        shown = 0
        while not self.stopped:
            if shown < len(live):
                positions, quats = live[shown]
                for v, x, q in zip(self.views, positions * 1000.0, quats):
                    v.pose(x, q)
                shown += 1
                await asyncio.sleep(FRAME_S)
            elif running.done():
                break
            else:
                await asyncio.sleep(0.005)
        try:
            await running
        except Exception as exc:  # the fall is an illustration: the game goes on without it
            log.warning("lab: the fall of %s could not be shown (%s: %s)", text, type(exc).__name__, exc)

    def stop(self) -> None:
        """The tab is closing (or a new game starts): stop showing, close the game's physics."""
        self.stopped = True
        if self.game is not None:
            try:
                self.game.close()
            except Exception:  # already closed
                log.debug("lab: closing a game", exc_info=True)

