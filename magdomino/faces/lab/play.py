"""The lab's Play mode: Défi magnétique or En quinconce with the person in seat 0 and
careful, bold or random seats in the others, on the step-by-step game
(``md.game``, :func:`magdomino.faces.api_game.game`, a :class:`~magdomino.games.session.GameSession`).

The person sees their hand and only the legal moves (with hints, each move's class on the
project's risk scale, safest first), and chooses one. The move is drawn at once while the game
applies it and the other seats think in a worker thread; their replies are then shown one by
one: each placement, a collapse (the collapsing placement made again in PyBullet on the
construction before it and shown falling at real speed; when that run stands, the note says so
and nothing is shown falling) and its take-back, draws, passes, the end and the scores. The
construction is drawn where the placement language puts its tiles. A finished game is saved in
the output folder as the record that ``magdomino replay`` and ``magdomino report`` read.
"""

from __future__ import annotations

import asyncio
import logging
import re

import numpy as np

from magdomino.errors import InputError
from magdomino.faces.api_game import game
from magdomino.faces.lab.scene3d import GhostView, new_scene, play_frames
from magdomino.faces.lab.tower import nominal_poses, replayed_motion
from magdomino.faces.lab.widgets import Busy, TowerScene, legend_row, view_controls
from magdomino.faces.terminal import shown
from magdomino.model.presets import Preset, load_preset
from magdomino.studies.risk_scale import RISK_COLOURS, risk_words, seat_risk_class
from magdomino.wording import tile_text

# NiceGUI (the lab extra) is imported inside the functions that use it: the lab's modules import without it.

log = logging.getLogger("magdomino.lab")

RULES = {"defi": "Défi magnétique", "quinconce": "En quinconce"}
KINDS = ("careful", "bold", "random")
PHYSICS = {"statics": "statics (fast)", "dynamics": "PyBullet (slow)"}
STEP_S = 0.25
"""Pause after each of the other seats' moves as they are shown (s)."""
ARRIVE_S = 0.3
"""How long a placed tile takes to arrive in the picture (s): a sketch of the move, not its physics."""
TAKE_BACK_S = 0.8
"""How long a collapsed construction is shown marked before it is taken back (s)."""


class PlayLab:
    """The Play tab of one browser tab (``settings``, ``note``: as :class:`~magdomino.faces.lab.build.BuildLab`'s;
    ``game_session``: the tab's game kept by the server, shown again after a reload; ``keep``:
    called with each new game, for the server to keep)."""

    def __init__(self, settings, note, game_session=None, keep=lambda game_session: None):
        self.settings, self.note, self.keep = settings, note, keep
        self.busy = Busy(note)
        self.game = game_session
        self.ghost: GhostView | None = None
        self.saved = None
        self.stopped = False
        self.judge = "statics"

    def build(self) -> None:
        from nicegui import ui

        with ui.element("div").classes("w-full flex flex-wrap items-start gap-4"):
            with ui.column().classes("gap-1 min-w-0").style("flex: 1 1 420px; max-width: 760px"):
                self.scene = new_scene()
                self.tiles = TowerScene(self.scene, self._preset)
                self.slow = view_controls(self.tiles, "slow falls (x4)")
                legend_row()
            with ui.column().classes("gap-1 min-w-0").style("flex: 1 1 320px"):
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
                wrap = "break-words"
                self.status = ui.label("Choose the seats and start a new game; you are seat 0.").props(
                    "data-testid=play-status").classes(f"font-medium {wrap}").style("min-height: 1.5em")
                self.hand = ui.label("").props("data-testid=hand").classes(f"text-sm {wrap}").style("min-height: 1.5em")
                self.pointed = ui.label("").props("data-testid=play-hover").classes(f"text-sm {wrap}").style("min-height: 1.5em")
                ui.label("Your legal moves (point at one to see it on the table)").classes("text-sm text-gray-600")
                self.moves = ui.column().classes("gap-0 max-h-64 overflow-auto w-full").props("data-testid=moves")
                self.log = ui.code("", language="text").classes("w-full text-xs").props("data-testid=play-log").style(
                    "white-space: pre-wrap; word-break: break-word")

    async def restore(self) -> None:
        """A game kept by the server, shown as it stands (a reload)."""
        if self.game is not None:
            self.draw(self.game.placements())
            await self.show_state()

    # -- drawing -----------------------------------------------------------------------

    def _preset(self):
        p = self.game.preset if self.game is not None else self.settings.preset
        return p if isinstance(p, Preset) else load_preset(p)

    def draw(self, texts: list[str]) -> None:
        """The construction of these placements, where the placement language puts them."""
        pips, positions, quats = nominal_poses(texts, self._preset(), self.game.magnets if self.game else True)
        self.tiles.mark(None)
        self.tiles.draw(pips, positions, quats)

    async def arrive(self, text: str) -> None:
        """The last tile drawn comes to its place: lowered from above, or slid along the table
        (beneath), from where its text says (``slid from (x, y) mm``) if it says."""
        views = self.tiles.views
        if not views or views[-1].last is None:
            return
        end = np.array(views[-1].last[0], float)
        q = views[-1].last[1]
        slid = re.search(r"slid from \(([-0-9.e]+), ([-0-9.e]+)\) mm", text)
        if slid:
            start = np.array([float(slid.group(1)), float(slid.group(2)), end[2]])
        else:  # beneath: along the table from the viewer's side; else from above
            start = end + ([0.0, -40.0, 0.0] if " beneath " in text else [0.0, 0.0, 40.0])
        steps = 10
        for k in range(steps + 1):
            if self.stopped or not self.tiles.views:
                return
            s = k / steps
            views[-1].pose(start + (end - start) * s * (2 - s), q)
            await asyncio.sleep(ARRIVE_S / steps)

    def point(self, move: str, risk) -> None:
        """A legal move pointed at: its text and risk, and its spot drawn on the table."""
        cls = None if risk is None else seat_risk_class(risk)
        self.pointed.text = move + ("" if cls is None else f" ({risk_words(cls)})")
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
        self.ghost = GhostView(self.scene, size, RISK_COLOURS[cls] if cls else "#b0b0b0", name="move")
        self.ghost.pose(positions[-1], quats[-1])
        self.ghost.solid(True)

    async def refresh_moves(self, event=None) -> None:
        """The legal moves (and with hints their classes, judged in a worker thread) listed again."""
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
                cls = None if risk is None or legal[k] in ("draw", "pass") else seat_risk_class(risk)
                with ui.row().classes("items-center gap-1 no-wrap w-full").props(f"data-testid=move-row-{rank}") as row:
                    ui.button("play", on_click=lambda k=k: self.play(k)).props(
                        f"dense size=sm data-testid=move-{rank}").mark(f"move-{rank}")
                    if cls is not None:
                        ui.icon("check_box_outline_blank").style(f"color: {RISK_COLOURS[cls]}")
                    ui.label(legal[k] + ("" if cls is None else f"  ({risk_words(cls)})")).classes("text-xs break-words min-w-0")
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
            physics = self.judge = self.physics.value
            preset = self.settings.preset
            seed = int(self.seed.value or 0)
            self.status.text = f"dealing {RULES[self.rule.value]} for {len(seats)} seats ({physics})..."
            self.game = await run.io_bound(lambda: game(self.rule.value, seats=seats, physics=physics, seed=seed, preset=preset))
            self.keep(self.game)  # the server keeps it for the tab (a reload shows it again)
            self.saved = None
            await self.show_events(self.game.events)

    async def play(self, k: int) -> None:
        """Your move, drawn at once while the game applies it and the others reply in a worker
        thread; then their replies, one by one."""
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
            self._drop_ghost()
            self.status.text = f"you play {move}; the others think..."
            before, placed = len(g.events), g.placements()  # read before the worker changes the game
            replying = asyncio.ensure_future(run.io_bound(g.play, k))
            if move not in ("draw", "pass"):
                try:
                    self.draw(placed + [move])
                    await self.arrive(move)
                except InputError:  # drawn from the game's own events below
                    pass
            happened = await replying
            shown_already = 1 if move not in ("draw", "pass") else 0
            await self.show_events(happened.events, skip_first_place=shown_already, first=before)

    def _drop_ghost(self) -> None:
        if self.ghost is not None:
            self.ghost.delete()
            self.ghost = None

    async def show_events(self, events, *, skip_first_place: int = 0, first: int | None = None) -> None:
        """Each event shown in turn (placements drawn, a collapse shown falling and taken back), then the state."""
        self._drop_ghost()
        every = self.game.events
        first = len(every) - len(events) if first is None else first
        for n, ev in enumerate(events):
            if self.stopped:
                return
            kind, who = ev.get("type"), ev.get("player")
            seat = "you" if who == 0 else f"seat {who}"
            if kind == "place":
                if skip_first_place and who == 0:
                    skip_first_place = 0
                    continue
                self.draw(self.game.placements(first + n + 1))
                self.status.text = f"{seat}: {ev['placement']}"
                await self.arrive(ev["placement"])
            elif kind == "collapse":
                takes = "you take" if who == 0 else f"{seat} takes"
                self.status.text = f"collapse! {takes} back {len(ev.get('tiles', []))} tiles"
                placed = max((j for j in range(first + n) if every[j]["type"] == "place"), default=None)
                if placed is not None:
                    await self.show_fall(self.game.placements(placed), every[placed]["placement"])
                self.tiles.mark(RISK_COLOURS["falls"])
                await asyncio.sleep(TAKE_BACK_S)
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
        (spawned and settled once) and shown as the world makes it, falling to rest. When
        PyBullet's run stands (the game was judged by the statics), the note says so: no fall
        is ever made up."""
        from nicegui import run

        live: list = []
        running = asyncio.ensure_future(run.io_bound(replayed_motion, before, text, self._preset(), self.game.magnets, live))
        self.draw(before)
        self.tiles.extend(_pips_of(text, before, self._preset(), self.game.magnets))
        await play_frames(self.tiles.views, live, running, slow=4.0 if self.slow.value else 1.0, stopped=lambda: self.stopped)
        try:
            motion = await running
        except Exception as exc:  # the fall is an illustration: the game goes on without it
            log.warning("lab: the fall of %s could not be shown (%s: %s)", text, type(exc).__name__, exc)
            self.note(f"the fall of {text} could not be made again in PyBullet ({exc})", "warning")
            return
        if motion.stands:
            judge = PHYSICS.get(self.judge, self.judge)
            self.note(f"{text}: {judge} says it collapses; made again in PyBullet it {motion.summary()} "
                      "(the rules follow the judge)", "warning")

    def stop(self) -> None:
        """The tab is closing (or a new game starts): stop showing, close the game's physics."""
        self.stopped = True
        if self.game is not None:
            try:
                self.game.close()
            except Exception:  # already closed
                log.debug("lab: closing a game", exc_info=True)


def _pips_of(text: str, before: list[str], preset, magnets: bool):
    """The tile a placement's text puts (as drawn)."""
    pips, _, _ = nominal_poses(list(before) + [text], preset, magnets)
    return pips[-1]
