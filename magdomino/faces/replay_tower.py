"""The replay of a Magnetic Domino rule's record (traditional, Défi, Quinconce): the
recorded moves fed again to the rules, each placement happening again in the physics
(:mod:`magdomino.faces.replay` explains the frame budget and the check of determinism)."""

from __future__ import annotations

import sys

import numpy as np

from magdomino.errors import InputError
from magdomino.faces import frames
from magdomino.faces.render import Camera, Scene, tiles_box
from magdomino.games.core import Game
from magdomino.games.record import JUDGED_IN_PYBULLET, game_options, recorded_verdicts, replay_moves
from magdomino.maths.geometry import physical_pose
from magdomino.maths.poses import yaw_quaternion
from magdomino.model.presets import load_preset, with_overrides
from magdomino.physics.adjudicator import Outcome
from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator
from magdomino.physics.settle import WATCH_FALL_S, run_until_still
from magdomino.wording import tile_text


class FilmingAdjudicator(PybulletAdjudicator):
    """The rules' PyBullet adjudicator that also keeps the tiles' poses every
    :data:`~magdomino.faces.frames.FRAME_EVERY_S` and follows the *recorded* verdicts.

    Parameters
    ----------
    recorded : list of dict
        The record's ``place`` events, in order.
    """

    def __init__(self, preset, recorded: list, *, magnets: bool, drop_mm: float, slide_start_mm: float):
        super().__init__(preset, magnets=magnets, drop_mm=drop_mm, slide_start_mm=slide_start_mm)
        self.recorded = list(recorded)
        self.snapshots: list = []  # (pips, positions (n, 3), quaternions (n, 4)) of the current placement
        self.replayed: dict | None = None
        self.last_recorded: dict | None = None

    def _hook(self) -> None:
        world = self.world
        if world is not None and world.on_step is None:
            world.on_step_every = max(1, int(round(frames.FRAME_EVERY_S / world.time_step)))
            world.on_step = self._snap

    def _snap(self, world) -> None:
        positions, quats = world.poses()
        self.snapshots.append(([t.pips for t in world.tiles], positions.copy(), quats.copy()))

    def start(self, construction) -> None:
        super().start(construction)
        self._hook()

    def place(self, view, action) -> Outcome:
        if self.world is None:
            super().start(None)
        self._hook()
        self.snapshots = []
        rec = self.recorded.pop(0) if self.recorded else {}
        self.last_recorded = rec
        outcome = super().place(view, action)
        recorded_collapse = bool((rec.get("verdict") or {}).get("collapsed", False))
        if (outcome.collapsed or recorded_collapse) and self.world is not None:
            self._tail()
        self._snap(self.world)
        self.replayed = outcome.verdict
        verdict = dict(outcome.verdict or {})
        verdict["replayed_collapsed"] = bool(outcome.collapsed)
        verdict["replayed_error"] = outcome.error
        # The rules follow the record; the difference, if any, is reported by the caller.
        return Outcome(collapsed=recorded_collapse, verdict=verdict, error=rec.get("error"))

    def _tail(self) -> None:
        """Go on until every tile lies still (at least a second, at most a few), so the fall is
        seen to its end: the same run as the verdict's, continued (it decides nothing)."""
        run_until_still(self.world, min_s=WATCH_FALL_S)


def _adjudicator(record: dict, source: str, place_events: list):
    if record.get("physics", "none") not in JUDGED_IN_PYBULLET:
        return None
    name = record.get("preset") or "standard"
    try:
        preset = load_preset(name)
    except InputError:
        raise InputError(source, "preset", f"a preset this version knows (the record's physics), got {name!r}") from None
    overrides = record.get("preset_overrides")
    if overrides:  # the game was judged with them (play --magnets-scale, --preset-set)
        if not isinstance(overrides, dict):
            raise InputError(source, "preset_overrides", f"a table of preset keys and values, got {overrides!r}"[:200])
        preset = with_overrides(preset, overrides, source)
    magnets = record.get("magnets")
    drop = record.get("drop_mm")
    slide = record.get("slide_start_mm")
    return FilmingAdjudicator(
        preset, place_events,
        magnets=True if magnets is None else bool(magnets),
        drop_mm=1.0 if drop is None else float(drop),
        slide_start_mm=60.0 if slide is None else float(slide),
    )


class _Camera:
    """A camera per construction that only widens (a steady picture while the tower grows)."""

    def __init__(self, size, width: int, height: int):
        self.size, self.width, self.height = size, width, height
        self.box = None
        self.camera = None

    def reset(self) -> None:
        self.box, self.camera = None, None

    def for_poses(self, positions, quats):
        live = np.all(np.isfinite(positions), axis=1) & (positions[:, 2] > -1.0)
        if not np.any(live):
            return self.camera
        lo, hi = tiles_box(positions[live], quats[live], self.size)
        reach = max(0.03, 0.5 * hi[2])  # room for a fall around the tower
        lo[:2] -= reach
        hi[:2] += reach
        hi[2] = max(hi[2], 0.04)
        if self.box is None or np.any(lo < self.box[0] - 1e-9) or np.any(hi > self.box[1] + 1e-9):
            if self.box is not None:
                lo, hi = np.minimum(lo, self.box[0]), np.maximum(hi, self.box[1])
            self.box = (lo, hi)
            self.camera = Camera(lo, hi, self.width, self.height, margin=0.95)
        return self.camera


def _pick(n: int, k: int) -> list[int]:
    """``k`` indices spread evenly over ``range(n)``, the last included."""
    if n <= k:
        return list(range(n))
    return sorted({int(round(v)) for v in np.linspace(0, n - 1, k)})


def replay_construction(record: dict, width: int, height: int, rep, source: str):  # noqa: PLR0915 - long: see the reason below
    # long: one pass over the record's moves, whose game state, camera, scene and frames each step updates together
    """Fill ``rep`` (a :class:`~magdomino.faces.replay.Replay`) with the frames of a tower
    rule's record; see :mod:`magdomino.faces.replay`."""
    events = record["events"]
    moves = [e for e in events if isinstance(e, dict) and e.get("type") in ("place", "draw", "pass")]
    adj = _adjudicator(record, source, [e for e in moves if e["type"] == "place"])
    preset = adj.preset if adj is not None else load_preset("standard")
    # Filmed in PyBullet, or (the statics' records) judged as recorded and drawn at the grid poses.
    judge = adj if adj is not None else recorded_verdicts(record, moves)
    try:
        game = Game(record["rule"], record["players"], record["seed"], game_options(record, judge, source))
    except InputError as exc:
        raise InputError(source, exc.key, exc.expected) from None
    kinds = record.get("player_kinds") or ["?"] * game.players
    n_deals = game.deals
    size = np.asarray(game.tile_size if adj is None else preset.tile.size, dtype=float)
    picture_h = height - frames.strip_height(height)
    camera = _Camera(size, width, picture_h)
    scene = Scene(preset)
    state = game.new_initial_state()
    state.log = log = []
    seen = 0
    placement_in_deal = 0
    built: list = []  # the current construction's actions, as the frames show it
    shown: list = []  # the last frame's (pips, positions, quaternions)

    def frame(pips, positions, quats, lines, hands, ms, alert=False):
        scene.sync(pips, positions, quats)
        cam = camera.for_poses(positions, quats)
        rep.frames.append(frames.compose(scene.image(cam), lines, hands, width, height, alert))
        rep.captions.append(" | ".join(lines))
        rep.durations_ms.append(int(ms))

    try:
        for ev, action in replay_moves(state, moves, source):
            new, seen = log[seen:], len(log)
            for e in new:
                kind = e["type"]
                deal_text = f"deal {e['deal'] + 1}/{n_deals}"
                if kind == "deal":
                    placement_in_deal = 0
                if kind in ("restart", "deal", "collapse"):
                    built = []
                if kind in ("restart", "deal"):
                    shown[:] = []
                    scene.close()
                    scene = Scene(preset)
                    camera.reset()
                if kind != "place":
                    if kind == "collapse":
                        _leaving(frame, e, deal_text, kinds, shown)
                    elif kind in ("draw", "pass") and shown:
                        what = f"draws (stock {e['stock_size']} left)" if kind == "draw" else "passes"
                        frame(*shown[0], [f"{deal_text}  P{e['player']} ({kinds[e['player']]}) {what}", ""],
                              e["hand_sizes"], frames.FRAME_MS * 3)
                    continue
                placement_in_deal += 1
                built.append(action)
                rec = adj.last_recorded if adj is not None else ev
                verdict = e.get("verdict") or {}
                recorded = bool((rec.get("verdict") or {}).get("collapsed", False))
                replayed = bool(verdict.get("replayed_collapsed", recorded))
                rec_error = bool(rec.get("error"))
                rep_error = bool(verdict.get("replayed_error")) if adj is not None else rec_error
                word = "FALLS" if recorded else "stands"  # as the game's log says it
                if verdict.get("reason") and recorded:
                    word += f" ({verdict['reason']})"
                if e.get("collapse_ignored"):
                    word = "stands (first tile)"
                lines = [f"{deal_text}  #{placement_in_deal}  P{e['player']} ({kinds[e['player']]})  "
                         f"{tile_text(e['tile'])} {e['mode']} {e['motion']}", f"verdict: {word}"]
                alert = False
                said = {(True, False): "collapse", (False, False): "stands"}
                if adj is not None and ((replayed != recorded and not e.get("collapse_ignored")) or rep_error != rec_error):
                    msg = (f"deal {e['deal'] + 1} placement {placement_in_deal} ({tile_text(e['tile'])}): recorded "
                           f"{said.get((recorded, rec_error), 'an error')}, the physics now says "
                           f"{said.get((replayed, rep_error), 'an error')}")
                    rep.mismatches.append({"deal": e["deal"], "placement": placement_in_deal, "tile": list(e["tile"]),
                                           "recorded": recorded, "replayed": replayed, "message": msg})
                    print(f"replay: verdict differs from the record: {msg}", file=sys.stderr)  # noqa: T201 - the replay command's warning, on stderr
                    lines[1] += f"   REPLAY DIFFERS: physics says {said.get((replayed, rep_error), 'an error')}"
                    alert = True
                hands = list(e["hand_sizes"])
                if adj is not None:
                    shots = adj.snapshots
                    k = frames.FRAMES_FALL if (recorded or replayed) else frames.FRAMES_STANDING
                    picks = _pick(len(shots), k)
                    for j, i in enumerate(picks):
                        pips, pos, q = shots[i]
                        last = j == len(picks) - 1
                        frame(pips, pos, q, lines, hands, frames.HOLD_MS if last else frames.FRAME_MS, alert)
                    shown[:] = [shots[-1]]
                else:
                    pips = [tuple(a.tile) for a in built]
                    poses = [physical_pose(a.grid, tuple(size)) for a in built]
                    pos = np.array([p for p, _ in poses]).reshape(-1, 3)
                    q = np.array([yaw_quaternion(y) for _, y in poses]).reshape(-1, 4)
                    frame(pips, pos, q, lines, hands, frames.HOLD_MS * 2, alert)
                    shown[:] = [(pips, pos, q)]
                rep.placements.append({
                    "deal": e["deal"], "player": e["player"], "tile": list(e["tile"]),
                    "collapsed": recorded and not e.get("collapse_ignored"),
                    "hand_sizes": list(e["hand_sizes"]), "construction_size": len(built),
                    "levels": 1 + max(a.level for a in built), "replayed_collapsed": replayed,
                })
    finally:
        scene.close()
        if adj is not None:
            adj.close()
    return rep


def _leaving(frame, e, deal_text, kinds, shown):
    """Frames of the taken-back tiles leaving the table (lifted away, towards the camera's left)."""
    if not shown:
        return
    pips, pos, q = shown[0]
    lines = [f"{deal_text}  P{e['player']} ({kinds[e['player']]}) takes back {len(e['tiles'])} tiles",
             "the construction starts again"]
    for k in range(1, frames.FRAMES_LEAVING + 1):
        moved = pos + k / frames.FRAMES_LEAVING * np.array([0.0, -0.4, 0.15])
        frame(pips, moved, q, lines, e["hand_sizes"], frames.FRAME_MS * 2)
