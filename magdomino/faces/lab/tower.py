"""The lab's tower, without a browser: the construction a person builds tile by tile, the
ghosts of a tile's legal spots with the statics' risk, and a placement's motion as the
PyBullet world made it (recorded poses the browser replays).

Everything here goes through the studies' and the rules' public calls:
:class:`magdomino.faces.api.Construction` (placements in the placement language, checked),
:func:`magdomino.games.tower.candidates.enumerate_placements` (every legal spot, as ``rank``
and ``whatif`` list them), :func:`magdomino.studies.statics_engine.judge_poses` (does each
stand at rest: the ghosts' first colours) and
:func:`~magdomino.studies.statics_engine.candidate_margins` (the statics' tilt margin of
each: the risk classes), :func:`magdomino.studies.simulation.try_placement` (one placement in
a fresh PyBullet world, watched through the world's step hook: its frames, handed over as
they come) and :func:`magdomino.studies.odds.estimate_odds` (the hybrid odds, in rounds).

The tower is kept as a chain: a base (the first tile in the middle of the table, or an
uploaded scenario's structure, settled once) and the placements made on it, each run from
the poses the previous one left. Undo replays the chain from the base (PyBullet repeats
itself exactly for the same commands, so nothing drifts).
"""

from __future__ import annotations

import math
import tempfile
import time
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from magdomino.checks import check_choice
from magdomino.errors import InputError
from magdomino.faces.api import Construction
from magdomino.games.tower.candidates import enumerate_placements
from magdomino.model.presets import DEFAULT_PRESET
from magdomino.model.tiles import parse_tile
from magdomino.physics.motion import NoClearMotion
from magdomino.studies.engines import check_structure_settled
from magdomino.studies.odds import estimate_odds, wilson_interval
from magdomino.studies.scenario import scenario_from_dict
from magdomino.studies.simulation import settle_structure, try_placement
from magdomino.studies.statics_engine import candidate_margins, judge_poses, nominal_structure, with_placement

LAB = "lab"
"""Where an error of the lab comes from (the one-line InputError's source)."""

FRAME_S = 1 / 50
"""Simulated time between two recorded poses of a motion (s): the browser shows them at
this pace for real speed."""

FALL_TAIL_S = 1.2
"""After the verdict, the world runs on while anything moves, at most this long (s), so a
collapse is seen falling to the table."""

TAIL_SPEEDS = 5.0
"""After a verdict with no tile tipped, the tail runs only while a tile moves faster than this
many times the preset's settle speeds: a tower that settled by its window of rest may still
creep a little, which is not worth filming. After a tip (a fall), it runs while anything
moves at all."""

RULES = ("any", "defi", "quinconce")

RISK_COLOURS = {"safe": "#2e9d4f", "tight": "#e0b000", "risky": "#f07a1a", "falls": "#d6322c", "stands": "#8fc7a0",
                "unknown": "#8a8a8a"}
"""A ghost's colour by its statics risk (:func:`risk_of`)."""

TIGHT_DEG, RISKY_DEG = 15.0, 5.0
"""Tilt margins (degrees) under which a spot is "tight", then "risky": 5° is about what one
σ of the default hand changes in a margin (:data:`magdomino.studies.whatif.SCREEN_BAND_DEG`)."""


def risk_of(stands, margin) -> str:
    """The statics' risk class of a spot: "falls" (does not stand at rest), "risky" (margin
    under 5°), "tight" (under 15°), "safe", "stands" (stands at rest, its margin not yet
    known) or "unknown" (the statics cannot model it)."""
    if stands is None:
        return "unknown"
    if not stands:
        return "falls"
    if margin is None:
        return "stands"
    return "risky" if margin < RISKY_DEG else "tight" if margin < TIGHT_DEG else "safe"


def tile_text(t) -> str:
    return f"{t[0]}-{t[1]}"


@dataclass
class Ghost:
    """One legal spot of the chosen tile.

    Attributes
    ----------
    index : int
        Its order in the rules' enumeration.
    text : str
        The placement in the placement language (what the panel lists and copies).
    pips : (int, int)
        As shown: half 0, half 1.
    pos_mm : (float, float, float)
        The rest pose's centre, mm.
    yaw_deg : float
    stands : bool or None
        The statics' answer at rest (None: a pose it cannot model).
    margin_deg : float or None
        The statics' tilt margin, degrees.
    risk : str
        :func:`risk_of`.
    p_collapse, ci95, shift_share : float, (float, float), float or None
        Filled by a ranking (:meth:`LabTower.rank`).
    """

    index: int
    text: str
    pips: tuple[int, int]
    pos_mm: tuple[float, float, float]
    yaw_deg: float
    stands: bool | None
    margin_deg: float | None
    risk: str
    placement: object = field(repr=False, default=None)
    p_collapse: float | None = None
    ci95: tuple[float, float] | None = None
    shift_share: float | None = None

    @property
    def colour(self) -> str:
        return RISK_COLOURS[self.risk]

    def label(self) -> str:
        """The text and its risk, as the panel shows them."""
        margin = "" if self.margin_deg is None else f", margin {self.margin_deg:.1f}°"
        odds = "" if self.p_collapse is None else f", p(collapse) {self.p_collapse:.2f}"
        shift = "" if self.shift_share is None else f", shifted {self.shift_share:.0%}"
        return f"{self.text} ({self.risk}{margin}{odds}{shift})"


@dataclass
class Motion:
    """A placement as the PyBullet world made it.

    Attributes
    ----------
    pips : list of (int, int)
        The tiles, in the world's order (the placed tile last).
    times_s : ndarray, shape (f,)
        Simulated time of each frame from the hook (s), ``FRAME_S`` apart.
    positions_mm : ndarray, shape (f, n, 3)
        NaN rows: a tile not yet in the world (the placed tile before its release) or removed.
    quaternions : ndarray, shape (f, n, 4), x, y, z, w
    verdict : Verdict
    verdict_frame : int
        The first frame at or after the verdict (the frames after it are the fall's tail).
    end : (positions (n, 3) m, quaternions (n, 4))
        The poses at the verdict: the structure the next placement starts from.
    wall_time_s : float
    """

    pips: list
    times_s: np.ndarray
    positions_mm: np.ndarray
    quaternions: np.ndarray
    verdict: object
    verdict_frame: int
    end: tuple
    wall_time_s: float

    @property
    def stands(self) -> bool:
        return bool(self.verdict.stands)

    def summary(self) -> str:
        """The verdict in words: stood, shifted N mm, or collapsed (why, which tile)."""
        return verdict_words(self.verdict, self.pips)


def verdict_words(v, pips) -> str:
    """A verdict in one line: "stood", "shifted 6.2 mm (#1 3-3)", "collapsed: tilt (#2 3-1)"."""
    def which(i):
        return f" (#{i} {tile_text(pips[i])})" if i is not None and 0 <= i < len(pips) else ""

    if v.error:
        return f"error: {v.error}"
    if v.collapsed:
        return f"collapsed: {v.reason}{which(v.culprit)}"
    if v.shifted:
        return f"shifted {v.max_shift_mm:.1f} mm{which(v.shifted_tile)}"
    if v.reason == "time limit":
        return "did not settle in the time limit"
    return "stood" if (v.max_shift_mm or 0) < 0.05 else f"stood (moved {v.max_shift_mm:.2f} mm)"


class _Recorder:
    """The ``world_hook`` of a placement: the poses every ``FRAME_S``, the verdict's poses
    when the world is about to close, then the tail while anything moves."""

    def __init__(self, frames: list | None = None):
        self.times: list[float] = []
        self.frames: list[tuple[np.ndarray, np.ndarray]] = [] if frames is None else frames
        self.end = None
        self.verdict_frame = 0

    def __call__(self, world) -> None:
        self.start = world.time
        world.on_step_every = max(1, int(round(FRAME_S / world.time_step)))
        world.on_step = self.snap
        world.on_close = self.tail
        self.snap(world)

    def snap(self, world) -> None:
        self.times.append(world.time - self.start)
        self.frames.append(world.poses())

    def tail(self, world) -> None:
        self.end = world.poses()
        if not self.times or world.time - self.start > self.times[-1] + 1e-9:
            self.snap(world)
        else:
            self.frames[-1] = self.end
        self.verdict_frame = len(self.frames) - 1
        limits = world.preset.collapse
        falling = self._tipped(limits.max_tilt)
        end = world.time + FALL_TAIL_S
        while world.time < end:
            lin, ang = world.velocities()
            factor = 1.0 if falling else TAIL_SPEEDS
            if not (np.any(np.linalg.norm(lin, axis=1) > factor * limits.settle_speed)
                    or np.any(np.linalg.norm(ang, axis=1) > factor * limits.settle_spin)):
                break
            world.step(world.on_step_every)

    def _tipped(self, max_tilt: float) -> bool:
        """Has a tile turned away from the table's plane by more than ``max_tilt`` (rad) since
        the first frame (the placed tile: since it came)? A fall, to be filmed to its end."""
        first = {}
        for _, q in self.frames:
            for i in range(len(q)):
                first.setdefault(i, q[i])
        _, last = self.frames[-1]

        def tilt(q):
            x, y = q[0], q[1]
            return math.acos(max(-1.0, min(1.0, 1 - 2 * (x * x + y * y))))

        return any(np.all(np.isfinite(last[i])) and abs(tilt(last[i]) - tilt(first[i])) > max_tilt for i in range(len(last)))

    def arrays(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        p = np.full((len(self.frames), n, 3), np.nan)
        q = np.full((len(self.frames), n, 4), np.nan)
        for k, (fp, fq) in enumerate(self.frames):
            p[k, : len(fp)] = fp * 1000.0
            q[k, : len(fq)] = fq
        return p, q


class LabTower:
    """The construction of one lab: a base and the placements made on it.

    Parameters
    ----------
    preset : str or Preset
        A bundled preset's name, a file's path, or a checked :class:`~magdomino.model.presets.Preset`.
    magnets : bool
    seed : int
        The seed of the odds.
    """

    def __init__(self, preset=DEFAULT_PRESET, *, magnets: bool = True, seed: int = 0):
        self.preset, self.magnets, self.seed = preset, bool(magnets), int(seed)
        Construction(["0-0 at (0, 0) mm"], preset=preset, magnets=magnets)  # checks the preset now
        self.base: list[str] = []
        self.placed: list = []  # (text, Placement as run, Placement as the text reads)
        self.poses = None  # (positions (n, 3) m, quaternions (n, 4)) of the standing tower
        self.history: list = []  # the poses after the base, then after each placement
        self._base_scenario = None
        self._base_poses = None

    # -- what it is -------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.base) + len(self.placed)

    @property
    def texts(self) -> list[str]:
        """The placements in order, in the placement language."""
        return list(self.base) + [t for t, _, _ in self.placed]

    @property
    def pips(self) -> list[tuple[int, int]]:
        return [pl.pips for pl in self.scenario().structure] if len(self) else []

    def used(self) -> set[tuple[int, int]]:
        """The tiles in the construction, as (low, high)."""
        return {tuple(sorted(p)) for p in self.pips}

    def construction(self):
        """The construction as an :class:`magdomino.faces.api.Construction` (its texts)."""
        return Construction(self.texts, preset=self.preset, magnets=self.magnets, seed=self.seed, name="lab")

    def scenario(self):
        """The checked scenario of the whole tower (base and placements; no what-ifs)."""
        if self._base_scenario is None:
            raise InputError(LAB, "tower", "the table is empty: choose a first tile")
        return replace(self._base_scenario, structure=self._base_scenario.structure + tuple(shown for _, _, shown in self.placed))

    def scenario_toml(self) -> str:
        """The construction as a scenario file's text."""
        with tempfile.TemporaryDirectory() as d:
            path = self.construction().save(Path(d) / "lab.toml")
            return path.read_text()

    def python_lines(self) -> str:
        """The construction as lines of Python (the Python face)."""
        preset = self.preset if isinstance(self.preset, str) else getattr(self.preset, "name", "toy")
        lines = ["import magdomino as md", "", "tower = md.Construction(["]
        lines += [f"    {t!r}," for t in self.texts]
        lines += [f"], preset={preset!r}, magnets={self.magnets})", "print(tower.simulate())"]
        return "\n".join(lines)

    # -- building -----------------------------------------------------------------------

    def start(self, texts) -> object:
        """A new base from placements (the first tile: ``["6-6 at (0, 0) mm"]``): checked,
        spawned and settled once; refused unless it stands. Returns its verdict."""
        c = Construction(list(texts), preset=self.preset, magnets=self.magnets, seed=self.seed, name="lab")
        sc = c.scenario
        verdict, poses = settle_structure(sc)
        check_structure_settled(sc, verdict, before="building on it")
        self.base, self.placed = list(c.tiles), []
        self._base_scenario, self._base_poses = sc, poses
        self.poses = poses
        self.history = [poses]
        return verdict

    def first(self, tile) -> object:
        """The first tile ((a, b) or "a-b"), in the middle of the table."""
        t = tuple(tile) if isinstance(tile, (tuple, list)) else parse_tile(tile, LAB, "tile")
        return self.start([f"{tile_text(t)} at (0, 0) mm"])

    def load_text(self, text: str, name: str = "uploaded.toml") -> None:
        """A scenario file's contents as the new base (its preset and magnets too; its what-ifs ignored)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(name, "", f"not a TOML file ({exc})") from None
        sc = scenario_from_dict(data, source=name)
        self.preset, self.magnets = sc.preset, sc.magnets
        self.start([sc.describe(pl) for pl in sc.structure])

    def set_preset(self, preset, magnets: bool | None = None) -> None:
        """Another preset (or magnets on/off): the tower is rebuilt from its placements."""
        old = (self.preset, self.magnets)
        self.preset = preset
        if magnets is not None:
            self.magnets = bool(magnets)
        try:
            Construction(["0-0 at (0, 0) mm"], preset=self.preset, magnets=self.magnets)
            if len(self):
                self._replay(len(self))
        except InputError:
            self.preset, self.magnets = old
            raise

    def reset(self) -> None:
        self.base, self.placed, self.poses, self.history = [], [], None, []
        self._base_scenario = self._base_poses = None

    def ghosts(self, tile, rule: str = "any", *, margins: bool = True) -> list[Ghost]:
        """Every legal spot of ``tile`` on the tower, with the statics' risk of each.

        Parameters
        ----------
        tile : (int, int) or "a-b"
        rule : "any" | "defi" | "quinconce"
        margins : bool
            With the tilt margins (the risk classes); without, whether each stands at rest
            only (risk "stands" or "falls"), about four times faster: :meth:`fill_margins`
            adds them later.

        Returns
        -------
        list of Ghost, in the rules' order (empty: no legal spot).
        """
        check_choice(rule, "rule", RULES, source=LAB)
        sc = self.scenario()
        candidates = enumerate_placements(sc, tile, self.poses, rule=rule)
        out = [Ghost(c.index, c.describe(), tuple(c.placement.pips), tuple(float(x) for x in c.pos_mm), float(c.placement.yaw_deg),
                     None, None, "unknown", c.placement) for c in candidates]
        if out:
            self._judge(out, margins, (sc, self.poses))
        return out

    def fill_margins(self, ghosts: list[Ghost], at=None) -> list[Ghost]:
        """The statics' tilt margins (and risk classes) of ghosts found without them, in place;
        ``at``: the (scenario, poses) they were found on (default the tower now)."""
        if ghosts:
            self._judge(ghosts, True, at or (self.scenario(), self.poses))
        return ghosts

    def snapshot(self):
        """The (scenario, poses) the tower is now: what :meth:`fill_margins` judges ghosts on
        while the tower may change."""
        return self.scenario(), self.poses

    @staticmethod
    def _judge(ghosts: list[Ghost], margins: bool, at) -> None:
        sc, poses = at
        try:
            if margins:
                verdicts = candidate_margins(sc, [g.placement for g in ghosts], poses)
            else:
                synthetic = replace(sc, what_if=tuple(g.placement for g in ghosts))
                verdicts = []
                for i in range(len(ghosts)):
                    try:
                        verdicts.append(judge_poses(synthetic, *with_placement(synthetic, poses, i), f"candidate {i}", placed=True,
                                                    margin=False))
                    except InputError:  # this pose only
                        verdicts.append({"stands": None, "margin": None})
        except InputError:  # the statics cannot model this structure: every risk unknown
            verdicts = [{"stands": None, "margin": None}] * len(ghosts)
        for g, v in zip(ghosts, verdicts):
            stands, margin = (v["stands"], v["margin"]) if isinstance(v, dict) else (v.stands, v.margin if margins else None)
            g.stands, g.margin_deg = stands, None if margin is None else float(margin)
            g.risk = risk_of(g.stands, g.margin_deg)

    def motion(self, ghost: Ghost, live: list | None = None) -> Motion:
        """Make the placement in a fresh PyBullet world from the tower's poses; the motion as recorded.

        ``live``: a list that receives each frame as it is recorded, ``(positions (k, 3) m,
        quaternions (k, 4))`` (k grows by one when the placed tile comes), so that a caller in
        another thread can show the motion while it is being simulated. The tower is not
        changed (:meth:`keep` adds a placement that did not collapse)."""
        sc = self.scenario()
        recorder = _Recorder(live)
        start = time.perf_counter()
        try:
            verdict = try_placement(sc, self.poses, ghost.placement, world_hook=recorder)
        except NoClearMotion as exc:
            raise InputError(LAB, "placement", f"{ghost.text}: no clear motion ({exc})") from None
        n = len(sc.structure) + 1
        p, q = recorder.arrays(n)
        return Motion([pl.pips for pl in sc.structure] + [tuple(ghost.pips)], np.asarray(recorder.times), p, q, verdict,
                      recorder.verdict_frame, recorder.end, time.perf_counter() - start)

    def keep(self, ghost: Ghost, motion: Motion) -> bool:
        """Add the placement if it did not collapse (the tower is then its poses at the verdict). Returns whether added."""
        if not motion.stands:
            return False
        self._add(ghost.text, ghost.placement, motion.end)
        return True

    def _add(self, text: str, placement, end) -> None:
        """Add a placement made (``end``: the poses at its verdict). The tower's tile is named as
        its text reads back (the matching half is half 0 there): when the candidate wrote the
        tile the other way round, the same tile is recorded turned by half a turn, so that
        later texts ("on #k half h") mean the same halves to the lab and to a scenario file."""
        positions, quats = (np.array(a, dtype=float) for a in end)
        shown = Construction(self.texts + [text], preset=self.preset, magnets=self.magnets).scenario.structure[-1]
        as_shown = placement
        if tuple(shown.pips) != tuple(placement.pips):
            as_shown = replace(placement, pips=tuple(shown.pips), yaw_deg=(placement.yaw_deg + 180.0) % 360.0)
            x, y, z, w = quats[-1]
            quats[-1] = (y, -x, w, -z)  # q * (0, 0, 1, 0): half a turn about the tile's own z
        self.placed.append((text, placement, as_shown))
        self.poses = (positions, quats)
        self.history.append(self.poses)

    def without_last(self) -> LabTower:
        """A copy of this tower before its last placement (nothing is run again)."""
        if not self.placed:
            raise InputError(LAB, "tower", "no placement on the base to take away")
        t = LabTower.__new__(LabTower)
        t.__dict__.update(self.__dict__)
        t.placed, t.history = list(self.placed[:-1]), list(self.history[:-1])
        t.poses = t.history[-1]
        return t

    def last_ghost(self) -> Ghost | None:
        """The last placement as a ghost (to ask its odds from the tower before it)."""
        if not self.placed:
            return None
        text, pl, _ = self.placed[-1]
        p = self.history[-1][0][-1] * 1000
        return Ghost(-1, text, tuple(pl.pips), tuple(float(v) for v in p), float(pl.yaw_deg), None, None, "unknown", pl)

    def undo(self) -> None:
        """Take the last tile back: the chain is replayed from the base (the base's last tile
        goes with a tower that has no placement on it)."""
        if self.placed:
            self._replay(len(self) - 1)
        elif len(self.base) > 1:
            self.start(self.base[:-1])
        else:
            self.reset()

    def _replay(self, n: int) -> None:
        """Rebuild the first ``n`` tiles: the base settled, then each placement run again."""
        placed = self.placed[: n - len(self.base)] if n > len(self.base) else []
        self.start(self.base[:n])
        for text, pl, _ in placed:
            recorder = _Recorder()
            verdict = try_placement(self.scenario(), self.poses, pl, world_hook=recorder)
            if not verdict.stands:
                raise InputError(LAB, "undo", f"replaying {text} it {verdict_words(verdict, self.pips)}; the tower stops before it")
            self._add(text, pl, recorder.end)

    # -- odds -------------------------------------------------------------------------

    def odds_rounds(self, ghost: Ghost, *, rounds=(8, 16, 32, 64, 128), engine: str = "hybrid"):
        """The hybrid odds of a placement, in rounds of trials (each round its own seed, so the
        rounds are independent): yields ``(collapses, counted, shifts, (lo, hi))`` after each.

        The caller stops by not asking for the next round (a cancel takes at most one round)."""
        sc, settled = replace(self.scenario(), what_if=(ghost.placement,)), self.poses
        collapses = counted = shifts = 0
        for k, n in enumerate(rounds):
            r = estimate_odds(sc, int(n), seed=self.seed * 1000 + k, jobs=1, engine=engine, settled=settled, progress=False).results[0]
            n_counted = r.trials - r.errors - r.undecided
            collapses += r.collapses
            counted += n_counted
            shifts += int(round((r.shift_share or 0.0) * n_counted))
            yield collapses, counted, shifts, (wilson_interval(collapses, counted) if counted else (0.0, 1.0))

    def rank(self, ghosts: list[Ghost], trials: int = 10, engine: str = "hybrid") -> list[Ghost]:
        """p(collapse) and the shift share of every ghost (common random numbers), in place; returns them."""
        sc = replace(self.scenario(), what_if=tuple(g.placement for g in ghosts))
        result = estimate_odds(sc, int(trials), seed=self.seed, jobs=1, engine=engine, settled=self.poses, progress=False)
        for g, r in zip(ghosts, result.results):
            g.p_collapse, g.ci95, g.shift_share = r.p_collapse, tuple(r.ci95), r.shift_share
        return ghosts


def nominal_poses(texts, preset=DEFAULT_PRESET, magnets: bool = True):
    """Where placements put their tiles, by the placement language alone (nothing settled):
    how the lab draws a game's construction.

    Returns
    -------
    pips : list of (int, int)
    positions_mm : ndarray, shape (n, 3)
    quaternions : ndarray, shape (n, 4), x, y, z, w
    """
    texts = list(texts)
    if not texts:
        return [], np.zeros((0, 3)), np.zeros((0, 4))
    sc = Construction(texts, preset=preset, magnets=magnets).scenario
    p, q = nominal_structure(sc)
    return [pl.pips for pl in sc.structure], p * 1000.0, q


def replayed_motion(texts, text: str, preset=DEFAULT_PRESET, magnets: bool = True, live: list | None = None) -> Motion:
    """A placement said in the placement language, made in PyBullet on the construction of
    ``texts`` (spawned and settled once): how the lab shows a game's move again, a collapse
    falling. ``live`` as :meth:`LabTower.motion`'s."""
    tower = LabTower(preset, magnets=magnets)
    tower.start(texts)
    placement = Construction(list(texts) + [text], preset=preset, magnets=magnets).scenario.structure[-1]
    ghost = Ghost(-1, text, tuple(placement.pips), (0.0, 0.0, 0.0), 0.0, None, None, "unknown", placement)
    return tower.motion(ghost, live)
