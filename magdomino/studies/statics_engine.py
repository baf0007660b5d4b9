"""The statics as an engine (:class:`StaticsEngine`, ``--engine statics``): ``simulate``,
odds trials, and the margins of what-if screening.

:mod:`magdomino.physics.statics` answers "can these poses stand?" by a linear program in a
few milliseconds. As an engine (:mod:`magdomino.studies.engines`):

- ``simulate``: the structure is judged at its **nominal poses**
  (:func:`magdomino.studies.scenario.structure_poses`: each tile where the file puts it,
  resting on those below; nothing is settled), and each what-if at its **rest pose** on them
  (:func:`magdomino.studies.scenario.aim_placement`: no drop, no slide; a slid tile is judged
  where the slide ends), with the tilt margin and the placed tile's load factor, as the
  common :class:`~magdomino.physics.verdict.Verdict`, graded as the games' statics grades
  its answers (:func:`graded`: ``unsure`` near a tipping point or under a landing it may not
  carry; a tie, no tilt margin at all, falls).
- odds trials (:func:`statics_chunk`): the **same noise model and the same random numbers**
  as the dynamic trials (trial ``i`` of both engines draws through
  :func:`magdomino.studies.trials.trial_draws`), each a static check of the perturbed rest
  pose. The release height is drawn (so the streams stay aligned) but not used: the statics
  has no drop. Every varied quantity is used: the hand's miss, each magnet's polarisation,
  the friction (the μ of every contact) and the mass (the weight against the magnets). The
  what-ifs are tried on the nominal structure, which must stand by the statics
  (:meth:`StaticsEngine.starting_structure`). A trial the statics refuses (tiles inside each
  other after the noise, a tile inside the table) is an **error**, counted in ``errors`` and
  left out of the odds, never a collapse.
- screening (:func:`candidate_margins`, used by ``magdomino whatif --screen K``): each
  candidate's verdict at rest, whose tilt margin ranks it.

The trials of one chunk are judged together (:func:`batch_stands`, the idea of
:func:`magdomino.physics.statics.judge_many`, with each trial's own friction, mass and
magnets): contacts and magnet fields found once for the chunk, each trial then judged by
parts: thousands of trials per second on small structures.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from magdomino.checks import check_count
from magdomino.errors import ARGUMENTS, InputError
from magdomino.maths.magnets import TileMagnets
from magdomino.maths.poses import yaw_quaternion
from magdomino.physics.contact_polygons import Contact, find_contacts
from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator
from magdomino.physics.statics import BATCH_SPACING_M, Equilibrium, judge
from magdomino.physics.statics_adjudicator import StaticsAdjudicator
from magdomino.physics.statics_screen import sure_verdict_of
from magdomino.studies.aiming import aim_placement, structure_poses
from magdomino.studies.engines import Engine
from magdomino.studies.scenario import Scenario
from magdomino.studies.simulation import SimulationResult
from magdomino.studies.trial_record import error_outcome, hand_draws, rest_outcome, trial_record
from magdomino.studies.trials import trial_draws

STATICS_CHUNK = 100
"""Trials per batch (and per chunk of work shipped to a worker). A batch's fixed costs
(magnet model calls, finding contacts) are paid once per chunk."""


def check_screen(screen) -> int | None:
    if screen is None:
        return None
    return check_count(screen, "screen", minimum=1)


# -- poses and one judgement --------------------------------------------------------------


def nominal_structure(scenario: Scenario) -> tuple[np.ndarray, np.ndarray]:
    """The structure's nominal poses: positions (n, 3) m, quaternions (n, 4)."""
    used = structure_poses(scenario, np.asarray(scenario.preset.tile.size, float))
    return np.array([p for p, _ in used]), np.array([q for _, q in used])


def fixed_tiles(scenario: Scenario, placed: bool) -> np.ndarray:
    """Which tiles of the scenario are fixed (bool (n,)), the placed tile last (never fixed) when ``placed``."""
    return np.array([pl.fixed for pl in scenario.structure] + ([False] if placed else []), bool)


def with_placement(scenario: Scenario, structure, what_if: int, miss=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """The structure's poses plus what-if ``what_if`` at its rest pose, missed by ``miss``
    (dx mm, dy mm, dyaw deg) as the hand of :func:`aim_placement` misses; shapes (n+1, 3), (n+1, 4)."""
    size = np.asarray(scenario.preset.tile.size, float)
    rest, yaw, _ = aim_placement(scenario, structure, scenario.what_if[what_if], size, (miss[0], miss[1]), miss[2])
    return np.vstack([structure[0], rest]), np.vstack([structure[1], yaw_quaternion(yaw)])


def judge_poses(scenario: Scenario, positions, quaternions, key: str, *, placed: bool, preset=None, margin: bool = True):
    """:func:`magdomino.physics.statics.judge` of these poses; a refusal names the scenario
    file and ``key`` ("statics cannot judge this: tile N is tilted by X°", one line)."""
    try:
        return judge(
            preset or scenario.preset, positions, quaternions, placed=len(positions) - 1 if placed else None,
            magnets=scenario.magnets, fixed=fixed_tiles(scenario, placed), margin=margin,
        )
    except InputError as exc:
        raise InputError(scenario.source, key, exc.expected) from None


def graded(scenario: Scenario, answer, positions, quaternions, *, placed: bool):
    """The :class:`~magdomino.physics.verdict.Verdict` of the statics' ``answer`` (a
    :class:`~magdomino.physics.statics.StaticVerdict` of these poses) with how sure it is
    (:func:`magdomino.physics.statics_screen.sure_verdict_of`): ``unsure`` set, and a structure that
    stands only in an unstable balance (a tie: no tilt margin at all) collapsed, reason
    "falls". A scenario with fixed tiles is not graded (``unsure`` None)."""
    verdict = answer.verdict()
    if fixed_tiles(scenario, placed).any():
        return verdict
    sure, _ = sure_verdict_of(scenario.preset, positions, quaternions, placed=placed, magnets=scenario.magnets)
    verdict.unsure = sure == "unsure"
    if sure == "falls" and not verdict.collapsed:
        verdict.collapsed, verdict.reason = True, "falls"
    return verdict


# -- the engine ----------------------------------------------------------------------------


class StaticsEngine(Engine):
    """Rigid-block equilibrium at rest: nominal poses, no settle, no drop, a margin."""

    name = "statics"
    header = "engine statics (nominal poses, what-ifs at rest)"
    moves = False
    trials_per_chunk = STATICS_CHUNK
    serial_below = 2000  # ~1 ms a trial in batches

    def simulate(self, scenario: Scenario, *, gui: bool = False, trace: bool = False) -> SimulationResult:
        """Judge the structure at its nominal poses, then each what-if at its rest pose on
        them (not tried when the structure does not stand). Refusals raise InputError."""
        if gui or trace:
            raise InputError(ARGUMENTS, "gui" if gui else "trace", "nothing moves in the statics: leave it out")
        start = time.perf_counter()
        structure = nominal_structure(scenario)
        verdict = graded(scenario, judge_poses(scenario, *structure, "structure", placed=False), *structure, placed=False)
        outcomes: list = []
        for i in range(len(scenario.what_if)):
            if not verdict.stands:
                outcomes.append(None)
                continue
            poses = with_placement(scenario, structure, i)
            outcomes.append(graded(scenario, judge_poses(scenario, *poses, f"what_if[{i}]", placed=True), *poses, placed=True))
        return SimulationResult(scenario, verdict, outcomes, structure, time.perf_counter() - start, engine=self.name)

    def starting_structure(self, scenario: Scenario, before: str = "the what-ifs"):
        """The nominal structure, refused (InputError on ``structure``) unless the statics says it stands."""
        structure = nominal_structure(scenario)
        verdict = judge_poses(scenario, *structure, "structure", placed=False, margin=False)
        if not verdict.stands:
            raise InputError(scenario.source, "structure", f"expected a structure that stands before {before}; the statics says it falls")
        return structure

    def run_trials(self, job, what_if, trials):
        return statics_chunk(job, what_if, trials)

    def adjudicator(self, preset, *, magnets: bool = True):
        """A game's judge: the statics, and PyBullet where the statics is unsure (a tie within
        its margin band, a landing the structure may not carry: at most a tenth of game
        positions on the default toy, docs/validation/statics_toy.md), so a statics-judged
        game is never fooled by an unstable balance."""
        return StaticsAdjudicator(preset, magnets=magnets, fallback=PybulletAdjudicator(preset, magnets=magnets))


# -- many trials at once ------------------------------------------------------------------


def batch_stands(presets: list, positions, quaternions, magnets: bool, fixed, base=None, last_load=None,
                 wrenches=None, lateral=None) -> tuple[np.ndarray, list]:
    """Does each trial stand, each with its own preset (friction, mass, polarisations)?

    Parameters
    ----------
    presets : list of Preset, length B
        Variations of one preset (same tile size and magnet layout).
    positions : ndarray, shape (B, n, 3), m
    quaternions : ndarray, shape (B, n, 4)
    magnets : bool
    fixed : ndarray of bool, shape (n,)
    base : Preset, optional
        The preset they vary (default ``presets[0]``): the same one from call to call lets
        the magnet models be reused.
    last_load : ndarray, shape (B,), optional
        A factor on the last tile's weight in each trial (default 1): the structure must
        carry that many times the placed tile's weight (the hybrid engine's impact screen).
    wrenches : (ndarray, ndarray), shapes (B, n, 3), N and N·m, optional
        The magnet force and torque on every tile of every trial, when the caller has them
        (default: from each trial's preset, :func:`batch_magnets`).
    lateral : array_like, shape (2,), optional
        A horizontal load on every tile, in its weights (x, y): the table tilted by
        ``atan |lateral|`` towards that direction, as far as gravity goes.

    Returns
    -------
    stands : ndarray of bool, shape (B,)
    refused : list of (str or None), length B
        The statics' refusal of a trial ("statics cannot judge this: ..."), else None
        (``stands`` is then False but means nothing).
    """
    batch = TrialBatch(presets, positions, quaternions, fixed, base)
    return batch.stands(magnets=magnets, last_load=last_load, wrenches=wrenches, lateral=lateral), batch.refused


class TrialBatch:
    """B trials of one structure (one preset's variations), their contacts found once, judged
    under as many loads and frictions as asked (the hybrid's tests share them).

    Each trial is judged on its own, by parts (:meth:`~magdomino.physics.equilibrium.Equilibrium.stands_each`:
    a tower's every contact is a bridge, checked by a 6-row least-squares fit), on one
    :class:`~magdomino.physics.equilibrium.Equilibrium` of the trials laid side by side with
    each contact vertex's own friction (``tile.table_mu`` on the table, ``tile.friction``
    elsewhere, of that trial's preset). Measured on the demo's 400 hybrid trials: 0.8 s for
    every test, against 2.5 s with one residual LP over the batch per test (HiGHS, 1.3 s of
    it, and the contacts found again for each); on the hybrid validation's 64,600 trials, the
    same 53,094 decisions.

    Parameters and ``refused``: as :func:`batch_stands`.
    """

    def __init__(self, presets, positions, quaternions, fixed, base=None):
        P, Q = np.asarray(positions, float), np.asarray(quaternions, float)
        B, n = P.shape[:2]
        self.presets, self.base, self.n = list(presets), base or presets[0], n
        self.fixed = np.asarray(fixed, bool)
        self.size = np.asarray(self.presets[0].tile.size, float)
        self.refused: list = [None] * B
        try:
            self.contacts = _batch_contacts(P, Q, self.size, self.fixed)
            self.ok = np.arange(B)
        except InputError:  # find the trials the statics refuses, judge the others
            for b in range(B):
                try:
                    find_contacts(P[b], Q[b], self.size, fixed=self.fixed)
                except InputError as exc:
                    self.refused[b] = f"{exc.key}: {exc.expected}" if exc.key else exc.expected
            self.ok = np.array([b for b in range(B) if self.refused[b] is None], int)
            self.contacts = None
            if len(self.ok):
                self.contacts = find_contacts(_side_by_side(P[self.ok]).reshape(-1, 3), Q[self.ok].reshape(-1, 4), self.size,
                                              fixed=np.tile(self.fixed, len(self.ok)))
        self.B = B
        self.P, self.Q = P[self.ok], Q[self.ok]
        self.flat_p, self.flat_q = _side_by_side(self.P).reshape(-1, 3), self.Q.reshape(-1, 4)
        self.movable = ~np.tile(self.fixed, len(self.ok))
        self.trial_of_node = np.flatnonzero(self.movable) // n  # (m,): a movable tile's trial (among ok)
        self._equilibria: dict = {}
        self._magnets = None

    def equilibrium(self, grip: float = 1.0):
        """The equations of every judged trial, each contact with its trial's friction × ``grip``."""
        eq = self._equilibria.get(grip)
        if eq is None:
            contacts, n = self.contacts, self.n
            chosen = [self.presets[b] for b in self.ok]
            mu = np.array([p.tile.friction for p in chosen], float)
            table_mu = np.array([p.tile.table_mu for p in chosen], float)
            counts = [len(c.points) for c in contacts]
            trial = np.repeat([max(c.a, c.b) // n for c in contacts], counts).astype(int)
            on_table = np.repeat([c.a < 0 for c in contacts], counts).astype(bool)  # a = -1: the table
            mu_vertex = np.where(on_table, table_mu[trial], mu[trial]) if counts else np.zeros(0)
            eq = self._equilibria[grip] = Equilibrium(self.flat_p, contacts, self.movable, grip * mu_vertex, float(self.size[0]))
        return eq

    def stands(self, which=None, *, magnets: bool = True, last_load=None, wrenches=None, lateral=None, grip: float = 1.0) -> np.ndarray:
        """Does each trial stand (shape (B,); False for a refused trial or one not in ``which``)?

        ``which``: indices of the trials to judge (default all); ``last_load`` (B,),
        ``wrenches`` ((B, n, 3), (B, n, 3)) and ``lateral`` as :func:`batch_stands`; ``grip``: every
        friction coefficient that many times as large."""
        out = np.zeros(self.B, bool)
        if not len(self.ok):
            return out
        pos = np.full(self.B, -1)
        pos[self.ok] = np.arange(len(self.ok))
        asked = self.ok if which is None else np.asarray(which, int)
        asked = asked[pos[asked] >= 0]
        if not len(asked):
            return out
        eq = self.equilibrium(grip)
        if eq.m == 0:
            out[asked] = True
            return out
        B, n = len(self.ok), self.n
        down = np.zeros((B * n, 3))
        down[:, 2] = -1.0
        if last_load is not None:  # the last tile of each trial weighs that many times its weight
            down[n - 1 :: n, 2] = -np.asarray(last_load, float)[self.ok]
        if lateral is not None:
            down[:, :2] = np.asarray(lateral, float)
        w = eq.load(down, np.zeros((B * n, 3)))
        if magnets and self.base.tile.magnets:  # in tile weights
            if wrenches is None:
                if self._magnets is None:
                    self._magnets = _batch_magnets([self.presets[b] for b in self.ok], self.flat_p, self.flat_q, n, self.base)
                force, torque = self._magnets
            else:
                force = np.asarray(wrenches[0], float)[self.ok].reshape(-1, 3)
                torque = np.asarray(wrenches[1], float)[self.ok].reshape(-1, 3)
            weight = np.repeat([self.presets[b].tile.mass * self.presets[b].solver.gravity for b in self.ok], n)[:, None]
            w = w + eq.load(force / weight, torque / weight)
        check = np.zeros(B, bool)
        check[pos[asked]] = True
        out[asked] = eq.structures_stand(w, self.trial_of_node, B, check[self.trial_of_node])[pos[asked]]
        return out


def _batch_contacts(P, Q, size, fixed) -> list:
    """The contacts of B trials (P (B, n, 3), Q (B, n, 4)) laid side by side. Trials that
    differ only in their last tile (the hybrid's: one settled structure, each trial's placed
    tile) share the structure's contacts, found once and moved to each trial's place."""
    B, n = P.shape[:2]
    flat_p, flat_q, all_fixed = _side_by_side(P).reshape(-1, 3), Q.reshape(-1, 4), np.tile(fixed, B)
    if B < 2 or n < 2 or not ((P[:, :-1] == P[:1, :-1]).all() and (Q[:, :-1] == Q[:1, :-1]).all()):
        return find_contacts(flat_p, flat_q, size, fixed=all_fixed)
    own = find_contacts(P[0, :-1], Q[0, :-1], size, fixed=fixed[:-1])
    placed = find_contacts(flat_p, flat_q, size, fixed=all_fixed, tile=np.arange(B) * n + n - 1)
    moved = [Contact(c.a if c.a < 0 else c.a + b * n, c.b + b * n, c.points + [b * BATCH_SPACING_M, 0.0, 0.0], c.normal, c.kind)
             for b in range(B) for c in own]
    return moved + placed


def _side_by_side(P: np.ndarray) -> np.ndarray:
    return P + np.arange(len(P))[:, None, None] * np.array([BATCH_SPACING_M, 0.0, 0.0])


def batch_magnets(presets, positions, quaternions, base=None, *, last_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Magnet force (B, n, 3) N and torque (B, n, 3) N·m on every tile of B trials of the
    same structure (positions (B, n, 3) m, quaternions (B, n, 4)), each trial with its own
    preset's polarisations (variations of ``base``, default ``presets[0]``).

    ``last_only``: only the pairs with each trial's last tile (the placed one; the others'
    pairs add up separately: magnets that turn with the field (``free``) do not, refused)."""
    P, Q = np.asarray(positions, float), np.asarray(quaternions, float)
    B, n = P.shape[:2]
    if n < 2:
        return np.zeros((B, n, 3)), np.zeros((B, n, 3))
    base = base or presets[0]
    if last_only:
        if any(s.free for s in base.tile.magnets):
            raise ValueError("free magnets turn with the whole field: their wrenches do not add up pair by pair")
        last = np.zeros(B * n, bool)
        last[n - 1 :: n] = True
        f, t = _batch_magnets(presets, _side_by_side(P).reshape(-1, 3), Q.reshape(-1, 4), n, base, involving=last)
    elif B > 1 and (P == P[:1]).all() and (Q == Q[:1]).all():  # one pose for all (the hybrid's structure): its field once
        f, t = _batch_magnets(presets, P[0], Q[0], n, base, copies=B)
    else:
        f, t = _batch_magnets(presets, _side_by_side(P).reshape(-1, 3), Q.reshape(-1, 4), n, base)
    return f.reshape(B, n, 3), t.reshape(B, n, 3)


def _batch_magnets(presets, flat_p, flat_q, n, base, copies: int = 0, involving=None) -> tuple[np.ndarray, np.ndarray]:
    """Magnet force and torque (B n, 3) on every tile, each trial with its own polarisations
    (``copies``: the B trials share the one structure ``flat_p``, ``flat_q`` of n tiles;
    ``involving``: only the pairs with one of these tiles, bool (B n,)).

    A magnet pair's wrench is proportional to the product of its two polarisations, so with
    factors ``f_k`` on magnet ``k`` of every tile the wrench is ``Σ_k f_k² W_kk + Σ_{k<l}
    f_k f_l W_kl``, where ``W_kk`` is the wrench with only magnet ``k`` on and ``W_kl`` that
    with ``k`` and ``l`` on, minus ``W_kk`` and ``W_ll``: K(K+1)/2 calls of the magnet model
    for all the trials. Free magnets turn with the field (not bilinear): one call per trial.
    """
    specs = base.tile.magnets
    K = len(specs)
    model = base.solver.magnet_model
    B = len(presets)
    if copies and any(s.free for s in specs):  # free magnets: each trial's own field
        flat_p, flat_q, copies = _side_by_side(np.broadcast_to(flat_p, (B, n, 3))).reshape(-1, 3), np.tile(flat_q, (B, 1)), 0
    if any(s.free for s in specs):
        out = [TileMagnets.from_specs(p.tile.magnets, model=model).wrenches(flat_p[b * n : (b + 1) * n], flat_q[b * n : (b + 1) * n])
               for b, p in enumerate(presets)]
        return np.vstack([f for f, _ in out]), np.vstack([t for _, t in out])
    J0 = np.array([s.polarization for s in specs], float)
    J = np.array([[m.polarization for m in p.tile.magnets] for p in presets], float)  # (B, K)
    f = np.divide(J, J0, out=np.ones_like(J), where=J0 != 0)
    f = np.repeat(f, n, axis=0)  # (B n, K): per tile row

    def wrench(on):
        # Made at every call (0.35 ms each, K(K+1)/2 a batch of trials): the quadrature rules,
        # the costly part, are shared by every model of the same magnets (maths.magnets.batch).
        tm = TileMagnets(
            [s.position for s in specs], [s.axis for s in specs], [s.shape for s in specs],
            [s.dimensions for s in specs], J0 * on, [False] * K, model=model,
        )
        got = np.hstack(tm.wrenches(flat_p, flat_q, involving=involving))  # (B n, 6), or (n, 6) for all the copies
        return np.tile(got, (copies, 1)) if copies else got

    single = [wrench(np.eye(K)[k]) for k in range(K)]
    total = sum(f[:, k : k + 1] ** 2 * single[k] for k in range(K))
    for k in range(K):
        for other in range(k + 1, K):
            both = wrench(np.eye(K)[k] + np.eye(K)[other]) - single[k] - single[other]
            total = total + f[:, k : k + 1] * f[:, other : other + 1] * both
    return total[:, :3], total[:, 3:]


def statics_chunk(job, what_if: int | None, trials: list[int]) -> list[dict]:
    """The records of these trials (as :func:`magdomino.studies.trials.run_trial` writes
    them, ``engine`` "statics"), judged in one batch per :data:`STATICS_CHUNK` trials."""
    sc = job.scenario
    size = np.asarray(sc.preset.tile.size, float)
    records, presets, poses, judged = [], [], [], []
    for i in trials:
        record = trial_record(what_if, i, engine="statics")
        records.append(record)
        try:
            preset, miss = trial_draws(job, what_if, i)
            if what_if is None:
                used = structure_poses(sc, size, miss)
                P, Q = np.array([p for p, _ in used]), np.array([q for _, q in used])
            else:
                dx, dy, dyaw, drop = (float(v) for v in miss)
                record.update(hand_draws(miss))
                P, Q = with_placement(sc, job.settled, what_if, (dx, dy, dyaw))
            if job.hook is not None:
                job.hook(what_if, i)
        except Exception as exc:  # as a dynamic trial: an error, never counted
            record.update(error_outcome(f"{type(exc).__name__}: {exc}"))
            continue
        presets.append(preset)
        poses.append((P, Q))
        judged.append(record)
    fixed = fixed_tiles(sc, what_if is not None)
    for start in range(0, len(judged), STATICS_CHUNK):
        part = slice(start, start + STATICS_CHUNK)
        P = np.array([p for p, _ in poses[part]])
        Q = np.array([q for _, q in poses[part]])
        try:
            stands, refused = batch_stands(presets[part], P, Q, sc.magnets, fixed, sc.preset)
        except Exception as exc:  # the LP failed: every trial of the batch is an error
            for record in judged[part]:
                record.update(error_outcome(f"{type(exc).__name__}: {exc}"))
            continue
        for record, ok, why in zip(judged[part], stands, refused):
            if why is not None:
                record.update(error_outcome(why, reason="statics refused"))
            else:
                record.update(rest_outcome(bool(ok)))
    return records


# -- what-if screening --------------------------------------------------------------------


def candidate_margins(scenario: Scenario, placements, structure) -> list:
    """The statics' answer for each placement at rest on ``structure`` ((positions (n, 3),
    quaternions (n, 4)), e.g. the settled one): a :class:`~magdomino.physics.statics.StaticVerdict`,
    or ``{"stands": None, "margin": None, "refused": why}`` for a pose it cannot model.

    Raises InputError (on ``structure``) when the statics cannot model the structure itself:
    no candidate is ranked rather than a wrong one.
    """
    structure = (np.asarray(structure[0], float), np.asarray(structure[1], float))
    judge_poses(scenario, *structure, "structure", placed=False, margin=False)
    synthetic = replace(scenario, what_if=tuple(placements))
    verdicts: list = []
    for i in range(len(synthetic.what_if)):
        try:
            verdicts.append(judge_poses(synthetic, *with_placement(synthetic, structure, i), f"candidate {i}", placed=True))
        except InputError as exc:  # this pose only: the confirming engine answers for it
            verdicts.append({"stands": None, "margin": None, "refused": exc.expected})
    return verdicts
