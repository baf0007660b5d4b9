"""The lab's tower, without a browser: the construction a person builds tile by tile, the
ghosts of a tile's legal spots with the statics' risk, and a placement's motion as the
PyBullet world made it (recorded poses the browser replays).

Everything here goes through the studies' and the rules' public calls:
:class:`magdomino.faces.api.Construction` (placements in the placement language, checked),
:func:`magdomino.games.tower.candidates.enumerate_placements` (every legal spot, as ``rank``
and ``whatif`` list them), :func:`magdomino.physics.statics_screen.sure_verdict_of` (does
each stand, fall, or can the statics not tell), :func:`~magdomino.studies.statics_engine.judge_poses`
(the tilt margin of each that stands) and :func:`magdomino.studies.risk_scale.risk_class`
(the class on the project's one risk scale), :func:`magdomino.studies.simulation.try_placement` (one placement in
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
from magdomino.faces.lab.motion import Motion, Recorder, verdict_words
from magdomino.games.tower.candidates import enumerate_placements
from magdomino.maths.poses import quaternion_yaw, wrap_angle
from magdomino.model.presets import DEFAULT_PRESET
from magdomino.model.tiles import parse_tile
from magdomino.physics.motion import NoClearMotion
from magdomino.physics.statics_screen import sure_verdict_of
from magdomino.studies.engines import check_structure_settled
from magdomino.studies.odds import estimate_odds, wilson_interval
from magdomino.studies.risk_scale import RISK_COLOURS, risk_class, risk_words
from magdomino.studies.scenario import scenario_from_dict
from magdomino.studies.simulation import settle_structure, try_placement
from magdomino.studies.statics_engine import judge_poses, nominal_structure, with_placement
from magdomino.wording import tile_text

LAB = "lab"
"""Where an error of the lab comes from (the one-line InputError's source)."""

RULES = ("any", "defi", "quinconce")

PENDING_COLOUR = "#b0b0b0"
"""A spot's colour while the statics judges it."""

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
    answer : {"stands", "falls", "unsure"} or None
        The statics' sure answer at rest (None: not yet judged, or a pose it cannot model).
    margin_deg : float or None
        The statics' tilt margin, degrees.
    risk : str or None
        The class on the project's risk scale (:func:`magdomino.studies.risk_scale.risk_class`);
        None while it is being judged.
    p_collapse, ci95, shift_share, trials : float, (float, float), float, int or None
        Filled by a ranking (:meth:`LabTower.rank`): the odds then decide the class.
    """

    index: int
    text: str
    pips: tuple[int, int]
    pos_mm: tuple[float, float, float]
    yaw_deg: float
    answer: str | None = None
    margin_deg: float | None = None
    risk: str | None = None
    placement: object = field(repr=False, default=None)
    p_collapse: float | None = None
    ci95: tuple[float, float] | None = None
    shift_share: float | None = None
    trials: int | None = None

    @property
    def colour(self) -> str:
        return PENDING_COLOUR if self.risk is None else RISK_COLOURS[self.risk]

    def words(self) -> str:
        """Its class and what the class rests on, in the scale's wording."""
        if self.risk is None:
            return "judging..."
        words = risk_words(self.risk, margin_deg=self.margin_deg, p_collapse=self.p_collapse, ci95=self.ci95, trials=self.trials)
        return words + ("" if self.shift_share is None else f", shifted {self.shift_share:.0%}")

    def label(self) -> str:
        """The text and its risk, as the panel shows them."""
        return f"{self.text} ({self.words()})"


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

    def load_text(self, text, name: str = "uploaded.toml") -> None:
        """A scenario file's contents (text, or bytes as uploaded) as the new base (its preset and
        magnets too; its what-ifs ignored). All or nothing: a file refused changes nothing."""
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(name, "", "a scenario file: TOML text in UTF-8, got bytes that are not text") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(name, "", f"not a TOML file ({exc})") from None
        sc = scenario_from_dict(data, source=name)
        trial = self._copy()
        trial.preset, trial.magnets = sc.preset, sc.magnets
        trial.start([sc.describe(pl) for pl in sc.structure])
        self.__dict__.update(trial.__dict__)

    def set_preset(self, preset, magnets: bool | None = None) -> None:
        """Another preset (or magnets on/off): the tower is rebuilt from its placements, each
        run again under the new physics. All or nothing: when the new preset is refused, or a
        placement does not stand under it, the tower stays as it was and the error says why."""
        trial = self._copy()
        trial.preset = preset
        if magnets is not None:
            trial.magnets = bool(magnets)
        Construction(["0-0 at (0, 0) mm"], preset=trial.preset, magnets=trial.magnets)  # checks the preset
        if len(trial):
            what = f"magnets {'on' if trial.magnets else 'off'}" if trial.preset == self.preset else "preset"
            trial._replay(len(trial), what)
        self.__dict__.update(trial.__dict__)

    def _copy(self) -> LabTower:
        """A copy whose lists are its own (the poses are never changed in place)."""
        t = LabTower.__new__(LabTower)
        t.__dict__.update(self.__dict__)
        t.base, t.placed, t.history = list(self.base), list(self.placed), list(self.history)
        return t

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
                     placement=c.placement) for c in candidates]
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
        """The statics' sure answer of each ghost (and with ``margins`` its tilt margin), and
        its class: a standing spot stays unclassed (None) until its margin is known."""
        sc, poses = at
        synthetic = replace(sc, what_if=tuple(g.placement for g in ghosts))
        try:
            judge_poses(sc, *poses, "structure", placed=False, margin=False)
        except InputError:  # the statics cannot model this structure: every spot unsure
            for g in ghosts:
                g.answer, g.risk = None, "unsure"
            return
        for i, g in enumerate(ghosts):
            try:
                P, Q = with_placement(synthetic, poses, i)
                if g.answer is None:
                    g.answer = sure_verdict_of(sc.preset, P, Q, placed=True, magnets=sc.magnets)[0]
                if margins and g.answer == "stands":
                    g.margin_deg = judge_poses(synthetic, P, Q, f"candidate {i}", placed=True).margin
            except InputError:  # this pose only
                g.answer, g.risk = None, "unsure"
                continue
            if margins or g.answer != "stands":
                g.risk = risk_class(g.answer, g.margin_deg)

    def motion(self, ghost: Ghost, live: list | None = None) -> Motion:
        """Make the placement in a fresh PyBullet world from the tower's poses; the motion as recorded.

        ``live``: a list that receives each frame as it is recorded, ``(time s, positions (k, 3) m,
        quaternions (k, 4))`` (k grows by one when the placed tile comes), so that a caller in
        another thread can show the motion while it is being simulated. The tower is not
        changed (:meth:`keep` adds a placement that did not collapse)."""
        sc = self.scenario()
        recorder = Recorder(live)
        start = time.perf_counter()
        try:
            verdict = try_placement(sc, self.poses, ghost.placement, world_hook=recorder)
        except NoClearMotion as exc:
            raise InputError(LAB, "placement", f"{ghost.text}: no clear motion ({exc})") from None
        n = len(sc.structure) + 1
        p, q = recorder.arrays(n)
        return Motion([pl.pips for pl in sc.structure] + [tuple(ghost.pips)], np.asarray(recorder.times), p, q, verdict,
                      recorder.verdict_frame, recorder.end, time.perf_counter() - start, recorder.hand_frames, recorder.still,
                      recorder.final_velocities)

    def keep(self, ghost: Ghost, motion: Motion) -> bool:
        """Add the placement if it did not collapse (the tower is then its poses at the verdict). Returns whether added."""
        if not motion.stands:
            return False
        self._add(ghost.text, ghost.placement, motion.end)
        return True

    def _add(self, text: str, placement, end) -> None:
        """Add a placement made (``end``: the poses at its verdict). The tower's tile is
        recorded as its text reads back: where the text's reading turns the tile by half a
        turn from the pose it was made at (the tile written the other way round, or a
        double whose halves the text names the other way), the same tile is recorded turned
        by half a turn (a box's half turn is the same box), so that later texts ("on #k
        half h") mean the same halves to the lab and to a scenario file."""
        positions, quats = (np.array(a, dtype=float) for a in end)
        read = Construction(self.texts + [text], preset=self.preset, magnets=self.magnets).scenario
        shown = read.structure[-1]
        _, nominal = nominal_structure(read)
        turned = abs(wrap_angle(quaternion_yaw(nominal[-1]) - math.radians(placement.yaw_deg))) > math.pi / 2
        as_shown = replace(placement, pips=tuple(shown.pips), yaw_deg=(placement.yaw_deg + (180.0 if turned else 0.0)) % 360.0)
        if turned:
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
        return Ghost(-1, text, tuple(pl.pips), tuple(float(v) for v in p), float(pl.yaw_deg), placement=pl)

    def undo(self) -> None:
        """Take the last tile back: the tower is again as it stood before that placement (its
        poses then, kept; nothing is run again); the base's last tile goes with a tower that has
        no placement on it (the rest of the base settled again)."""
        if self.placed:
            self.__dict__.update(self.without_last().__dict__)
        elif len(self.base) > 1:
            self.start(self.base[:-1])
        else:
            self.reset()

    def _replay(self, n: int, what: str) -> None:
        """Rebuild the first ``n`` tiles: the base settled, then each placement run again
        (an InputError naming ``what`` when one does not stand)."""
        placed = self.placed[: n - len(self.base)] if n > len(self.base) else []
        try:
            self.start(self.base[:n])
        except InputError as exc:
            raise InputError(LAB, what, f"a tower whose first tiles stand; {exc.expected}; the tower is kept as it was") from None
        for text, pl, _ in placed:
            recorder = Recorder(watch=False)
            verdict = try_placement(self.scenario(), self.poses, pl, world_hook=recorder)
            if not verdict.stands:
                raise InputError(LAB, what, f"a tower that stands; {text} {verdict_words(verdict, self.pips + [pl.pips])} "
                                 "under it; the tower is kept as it was")
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
            g.trials = r.trials - r.errors - r.undecided
            g.risk = risk_class(g.answer, g.margin_deg, p_collapse=g.p_collapse)
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
    ghost = Ghost(-1, text, tuple(placement.pips), (0.0, 0.0, 0.0), 0.0, placement=placement)
    return tower.motion(ghost, live)
