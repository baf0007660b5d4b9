"""Quasi-static stability: rigid-block equilibrium of tiles with magnets, as a linear program.

Does a structure stand? The masonry engineer's answer (limit analysis of rigid blocks, e.g.
Livesley 1978; Gilbert & Melbourne 1994): the tiles are rigid, their contacts unilateral
with Coulomb friction; the structure *can* stand when there are contact forces that keep
every tile in equilibrium under its loads. Here the loads are gravity and, new, the magnet
wrenches of :class:`magdomino.maths.magnets.TileMagnets` at the given poses (the magnets of
each tile pair act equally and oppositely, so the sum of all wrenches is zero to rounding).

The model
---------
- **Contacts** are found geometrically from the poses (:func:`find_contacts`). Every tile
  must lie flat (its z axis within :data:`TILT_TOLERANCE_DEG` of the vertical, either way
  up): it is then taken as exactly flat at its centre's height and yaw ("within a
  tolerance for slightly tilted ones"; exact for flat tiles). A tile's bottom face touches
  the table, or a tile's top face, when the heights differ by less than
  :data:`GAP_TOLERANCE_M`; the contact polygon is the intersection of the two footprints
  (convex polygon clipping). End faces and side faces touch when they are antiparallel,
  within :data:`SIDE_GAP_M` of each other and overlap; the contact is the overlap
  rectangle in the vertical plane.
- **Forces** act at the vertices of each contact polygon (a polygon's vertices span every
  statically admissible pressure distribution on it: exact for rigid blocks). At each
  vertex the force lies in a friction pyramid of :data:`FRICTION_DIRECTIONS` edges
  ``n + μ d_k`` (inscribed in Coulomb's cone; ``μ`` the preset's ``tile.friction``, or
  ``tile.table_friction`` for a contact with the table; its weakest directions, between the edges, hold ``cos(π/K)`` of ``μ``).
  Side faces (end to end, side by side) push without friction: see class 5 below.
- **Equilibrium** of every movable tile (6 equations: force, and torque about its centre
  divided by the tile length so every row is in tile weights): ``A α = -w`` with ``α >= 0``
  the pyramid-edge weights. Feasible (HiGHS, straight through ``highspy``): it stands.
- **Margin** (:func:`judge` with ``margin=True``): the largest tilt of the table that the
  structure survives, in degrees, worst of :data:`TILT_DIRECTIONS` downhill directions
  (each a parametric LP: the largest lateral load factor ``λ``, tilt ``atan λ``; with
  magnets, whose wrenches do not scale with gravity, the true tilt ``s = λ(c)`` on the
  circle ``c = cos θ, s = sin θ`` by secants of the piecewise-linear ``λ(c)``, on the
  pseudo-static worst direction and on any other that fails at its tilt). Negative for a structure that does not
  stand: minus the smallest tilt that would make it stand. Also, when a placed tile is
  named, ``load_factor``: the largest factor on that tile's weight the structure survives
  (a ratio; :data:`LOAD_CAP` means "at least that").

Where it disagrees with the dynamics (:func:`magdomino.physics.settle.settle`)
-------------------------------------------------------------------------------
The statics judges the *rest pose* of a placement; the dynamics drops the tile from 1 mm
above it and watches what happens. Measured by ``scripts/bench_statics.py`` (full run,
dynamics of commit bd49d76: contact μ = the preset's μ, falls apart from pushes, 1/2500 s
× 30 iterations) on 500 placements on 163 random settled structures of 2-7 tiles (magnets
on for half): 484 agree (96.8 %; 468 of the 481 whose dynamic verdict does not change
under ±0.5 mm moves, 97.3 %). All 16 disagreements were "statics: stands, dynamics:
collapsed"; 15 of them stood in the dynamics too when the tile was released at rest in its
rest pose (no drop). (The dynamics changed during the day; earlier runs of the same bench
found 10 and 12 disagreements, of the same two classes.) The classes:

1. **Impacts of a drop** (15 of 16, 11 of them with magnets): a placement that can stand
   is knocked over by its own landing, the magnets speeding the tile up as it comes down.
   Most had a small margin (tilt margin under 5° in 11 of 15, load factor under 1.3 in 9
   and under 1.8 in 13 of 15: the structure below carries the tile's weight but not the
   impulse of its landing). Statics: stands; dynamics: collapsed. The load factor flags
   the risk.
2. **Pushes**: a landing or a magnet snap may slide a tile of the construction by more
   than ``max_shift_mm`` without anything falling. Statics judges equilibrium, not
   displacement: stands. The verdict reports such a shift apart and calls it a collapse
   only with ``collapse.count_shifts``; compared here with ``collapsed``. (Not seen.)
3. **Magnets pulling a tile into place**: a placement whose rest pose cannot stand may be
   drawn by the magnets into a nearby pose that can (a tile snapping back over its
   support). Statics: falls; dynamics: stood. (Not seen.)
4. **Marginal balance** (1 of 16: a tile's centre of mass 0.01 mm inside its support's
   edge, a tilt margin of 0.16°, no magnets, fell in the dynamics even released at rest):
   within a fraction of a millimetre of the tipping point the dynamics' contact
   penetration, its manifold of at most four points per contact and the settle rule
   decide; the statics is exact for the rigid geometry. Either way.
5. **Static indeterminacy**: the LP asks whether *some* set of contact forces holds the
   tiles (the lower-bound theorem for rigid blocks with associated friction); with
   friction the actual forces depend on the history, so a structure that needs wedged,
   prestressed contacts may be declared standing though the dynamics never builds that
   prestress. Seen in Défi games: a tile tipping over its support's edge, its far end
   against a neighbour's end face, "held" by friction on that face (the neighbour pressed
   sideways, friction under both balancing the push); the dynamics, and a hand's torque
   balance, tip it. Side faces therefore carry no friction here: they can push a tile
   (one leaning on a neighbour is held), never hold it by rubbing. This is conservative
   where magnets genuinely press side faces together (parallel magnets side by side repel,
   so rarely). Test: ``test_a_side_face_cannot_wedge_a_tipping_tile``.

How sure an answer is: :mod:`magdomino.physics.statics_screen` asks the same question under
stressed loads and grades the answer **stands**, **falls** or **unsure**: a tie (class 4 at a
margin of exactly zero, which the grid's half-tile steps often make) falls; a margin within
2° of zero either way, or a placed tile its structure does not carry at twice its weight (class
1: the landing), is unsure. On positions of seeded games on the default toy preset its sure
answers are PyBullet's (``validation/statics_toy_validation.py``,
``docs/validation/statics_toy.md``); the games' statics adjudicator and the statics engine's
``simulate`` answer so.

Cost (``scripts/bench_statics.py``). The yes/no answer is found by parts
(:meth:`Equilibrium.stands`): each contact that alone joins a set of tiles to the ground (a
tower's every tile-on-tile contact) carries that set's resultant, checked against its
contact's cone by a 6-row non-negative least squares; only tiles joined in cycles (a tile on
two supports, tiles side by side) need an LP, one small one per group. On a settled 28-tile
tower that is 3-5 ms from nothing (:func:`judge`: contacts and magnets of all 29 tiles) and
about 2.5 ms on a :class:`Structure` prepared once (its own contacts and magnet wrenches
kept; the candidate's added), 0.006-0.011 of the placement's dynamic verdict (0.3-0.4 s);
with the margin (10-20 parametric LPs of the whole structure, each started from the
optimal basis of the one before on one HiGHS model: :meth:`Equilibrium.solve`) about 50 ms
(170 ms with a fresh ``scipy.optimize.linprog`` per LP, the same margins). Perturbed
rest poses of one placement on a small structure: about 690 checks per second one by one,
4500 through :func:`judge_many` (the batch's contacts found once, each trial by parts).

Poses the statics cannot model raise :class:`~magdomino.errors.InputError` ("statics cannot
judge this: ..."), never a verdict: a tile tilted beyond the tolerance, two tiles inside
each other (their footprints overlapping by more than ``SIDE_GAP_M`` at the same height),
a tile inside the table.

Units: SI inside (m, N, N·m), degrees for reported angles.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from magdomino.errors import InputError
from magdomino.model.presets import Preset
from magdomino.physics.contact_polygons import (  # noqa: F401  (re-exported: the statics API)
    GAP_TOLERANCE_M,
    SIDE_GAP_M,
    TILT_TOLERANCE_DEG,
    Contact,
    clip_convex,
    find_contacts,
    flat_footprints,
)
from magdomino.physics.equilibrium import (  # noqa: F401  (re-exported: the statics API)
    CONE_RESIDUAL,
    FRICTION_DIRECTIONS,
    Equilibrium,
)
from magdomino.physics.margins import LATERAL_CAP, LOAD_CAP, TILT_DIRECTIONS, fill_margins  # noqa: F401  (re-exported)
from magdomino.physics.verdict import Verdict


@dataclass
class StaticVerdict:
    """The statics' answer for one set of poses.

    Attributes
    ----------
    stands : bool
        Contact forces exist that hold every movable tile in equilibrium.
    margin : float or None, degrees
        Largest table tilt survived (worst downhill direction); negative: minus the smallest
        tilt that would make it stand (-atan(LATERAL_CAP) = -84.3° if none does). None when
        not asked for.
    margin_unit : str
        ``"deg"``.
    tilt_direction_deg : float or None
        The worst downhill direction, from the x axis (degrees).
    load_factor : float or None
        Largest factor on the placed tile's weight that still stands (ratio; None without a
        placed tile or a margin; ``LOAD_CAP`` means at least that; 0 when it does not stand).
    tiles, contacts : int
        Number of tiles and of contact polygons.
    magnets : bool
        Whether magnet wrenches were included.
    wall_time_s : float
    engine : str
        ``"statics"``.
    details : dict
        ``lp_rows``, ``lp_columns``: the size of the equilibrium LP.
    """

    stands: bool
    margin: float | None
    tiles: int
    contacts: int
    magnets: bool
    wall_time_s: float
    tilt_direction_deg: float | None = None
    load_factor: float | None = None
    margin_unit: str = "deg"
    engine: str = "statics"
    details: dict = field(default_factory=dict)

    @property
    def collapsed(self) -> bool:
        """The opposite of :attr:`stands` (the dynamic verdict's word)."""
        return not self.stands

    def verdict(self):
        """This answer as the one :class:`~magdomino.physics.verdict.Verdict` every engine
        returns: ``collapsed`` when it does not stand (reason ``"falls"``), the margins
        filled in, what only a simulation knows (settling, shifts, tilts, times) None."""
        return Verdict(
            collapsed=not self.stands, reason="stood" if self.stands else "falls", settled=None, max_shift_mm=None,
            max_tilt_deg=None, sim_time_s=None, wall_time_s=self.wall_time_s, moved_tiles=None, thresholds=None,
            shifted=None, margin_deg=self.margin, tilt_direction_deg=self.tilt_direction_deg,
            load_factor=self.load_factor, contacts=self.contacts, engine="statics",
        )

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("margin", "tilt_direction_deg", "load_factor", "wall_time_s"):
            if d[k] is not None:
                d[k] = round(float(d[k]), 6)
        d["collapsed"] = not self.stands
        return d


# -- the linear program -------------------------------------------------------------------


def magnet_wrenches(preset: Preset, positions, quaternions) -> tuple[np.ndarray, np.ndarray]:
    """Magnet force (n, 3) N and torque about each tile's centre (n, 3) N·m at these poses."""
    P = np.asarray(positions, float).reshape(-1, 3)
    if not preset.tile.magnets or len(P) < 2:
        return np.zeros((len(P), 3)), np.zeros((len(P), 3))
    return preset.tile_magnets().wrenches(P, np.asarray(quaternions, float).reshape(-1, 4))


def judge(
    preset: Preset,
    positions,
    quaternions,
    placed: int | None = None,
    magnets: bool = True,
    *,
    fixed=None,
    margin: bool = True,
) -> StaticVerdict:
    """Does a structure stand? Rigid-block equilibrium with friction and magnets, as an LP.

    Parameters
    ----------
    preset : Preset
        Tile size, mass, friction (tile on tile; on the table ``tile.table_mu``), magnets, gravity.
    positions : array_like, shape (n, 3), m
        Tile centres, e.g. a settled structure's poses plus a candidate at its rest pose.
    quaternions : array_like, shape (n, 4), x, y, z, w
    placed : int or None
        The candidate tile (for :attr:`StaticVerdict.load_factor`).
    magnets : bool
        Include the magnet wrenches (False: gravity and contacts only).
    fixed : array_like of bool, shape (n,), or None
        Tiles that never move (supports; scenario ``fixed = true``).
    margin : bool
        Also compute the tilt margin and the load factor (10-20 more LPs); False for the
        yes/no answer only (one LP).

    Returns
    -------
    StaticVerdict

    Raises
    ------
    InputError
        A pose it cannot model, one line: "statics cannot judge this: tile N is tilted by
        X°" (not lying flat), "... tiles I and J overlap by X mm", "... tile N is X mm inside
        the table"; also poses and flags of different lengths, ``placed`` out of range.
    """
    start = time.perf_counter()
    P = np.asarray(positions, float).reshape(-1, 3)
    Q = np.asarray(quaternions, float).reshape(-1, 4)
    n = len(P)
    size = np.asarray(preset.tile.size, float)
    fixed = np.zeros(n, bool) if fixed is None else np.asarray(fixed, bool).reshape(-1)
    if len(Q) != n or len(fixed) != n:
        raise InputError("poses", "quaternions", f"one quaternion and one fixed flag per position ({n})")
    if placed is not None and not 0 <= int(placed) < n:
        raise InputError("poses", "placed", f"a tile index in 0..{n - 1}, got {placed}")
    contacts = find_contacts(P, Q, size, fixed=fixed)
    use_magnets = bool(magnets) and len(preset.tile.magnets) > 0
    if use_magnets:
        mf, mt = magnet_wrenches(preset, P, Q)
    else:
        mf, mt = np.zeros((n, 3)), np.zeros((n, 3))
    return _judge(preset, P, contacts, fixed, mf, mt, use_magnets, placed, margin, start)


def _judge(preset, P, contacts, fixed, mf, mt, use_magnets, placed, margin, start) -> StaticVerdict:
    """:func:`judge` once the contacts and the magnet wrenches (N, N·m) are known."""
    n = len(P)
    movable = ~fixed
    weight = float(preset.tile.mass) * float(preset.solver.gravity)
    eq = Equilibrium(P, contacts, movable, float(preset.tile.friction), float(preset.tile.size[0]), preset.tile.table_mu)
    down = np.zeros((n, 3))
    down[:, 2] = -1.0
    zero = np.zeros((n, 3))
    w_mag = eq.load(mf / weight, mt / weight)
    w_grav = eq.load(down, zero)
    stands = eq.stands(w_grav + w_mag)
    verdict = StaticVerdict(stands, None, n, len(contacts), use_magnets, 0.0, details={"lp_rows": 6 * eq.m, "lp_columns": eq.k})
    if margin and eq.m > 0:
        fill_margins(verdict, eq, w_grav, w_mag, n, placed, movable)
    verdict.wall_time_s = time.perf_counter() - start
    return verdict


class Structure:
    """A structure prepared for many static checks of one more tile on it.

    What a check of a candidate placement shares with every other candidate on the same
    structure is computed once here: the contacts between the structure's own tiles and
    their magnet wrenches on each other. :meth:`judge` then adds only the candidate's
    contacts and magnet pairs; its verdict is the one :func:`judge` gives for the structure
    plus the candidate (the same contacts, the same pair wrenches summed in another order).
    With free magnets (which line up with the field of every pair at once) the magnets are
    computed whole each time.

    Parameters
    ----------
    preset : Preset
    positions : array_like, shape (n, 3), m
    quaternions : array_like, shape (n, 4), x, y, z, w
    magnets : bool
    fixed : array_like of bool, shape (n,), or None

    Raises
    ------
    InputError
        As :func:`judge`, for a structure it cannot model.
    """

    def __init__(self, preset: Preset, positions, quaternions, magnets: bool = True, *, fixed=None):
        self.preset = preset
        self.P = np.asarray(positions, float).reshape(-1, 3)
        self.Q = np.asarray(quaternions, float).reshape(-1, 4)
        n = len(self.P)
        self.fixed = np.zeros(n, bool) if fixed is None else np.asarray(fixed, bool).reshape(-1)
        if len(self.Q) != n or len(self.fixed) != n:
            raise InputError("poses", "quaternions", f"one quaternion and one fixed flag per position ({n})")
        self.size = np.asarray(preset.tile.size, float)
        self.contacts = find_contacts(self.P, self.Q, self.size, fixed=self.fixed)
        self.use_magnets = bool(magnets) and len(preset.tile.magnets) > 0
        self._free = self.use_magnets and bool(np.any(preset.tile_magnets().free))
        if self.use_magnets and not self._free:
            self.mf, self.mt = magnet_wrenches(preset, self.P, self.Q)
        else:
            self.mf, self.mt = np.zeros((n, 3)), np.zeros((n, 3))

    def _with(self, position, quaternion, fixed: bool = False):
        """The structure plus one tile: positions (n+1, 3), quaternions (n+1, 4), fixed flags,
        contacts, magnet forces and torques (n+1, 3) with every pair."""
        n = len(self.P)
        P = np.vstack([self.P, np.asarray(position, float).reshape(1, 3)])
        Q = np.vstack([self.Q, np.asarray(quaternion, float).reshape(1, 4)])
        all_fixed = np.append(self.fixed, bool(fixed))
        contacts = self.contacts + find_contacts(P, Q, self.size, fixed=all_fixed, tile=n)
        mf = np.vstack([self.mf, np.zeros((1, 3))])
        mt = np.vstack([self.mt, np.zeros((1, 3))])
        if self._free:
            mf, mt = magnet_wrenches(self.preset, P, Q)
        elif self.use_magnets and n:
            tm = self.preset.tile_magnets()
            ti, tj = tm.tile_pairs(P)
            others = ti[tj == n]  # the structure's tiles within reach of the candidate (i < j = n)
            if len(others):
                Fj, Tj, Ti, _ = tm.pair_wrenches(others, np.full(len(others), n), P, Q)
                mf[n] += Fj.sum(axis=0)
                mt[n] += Tj.sum(axis=0)
                mf[others] -= Fj
                mt[others] += Ti
        return P, Q, all_fixed, contacts, mf, mt

    def judge(self, position, quaternion, *, margin: bool = False, fixed: bool = False) -> StaticVerdict:
        """:func:`judge` of the structure plus one tile at ``position`` (3,) m,
        ``quaternion`` (4,), the new tile being ``placed`` (the last index)."""
        start = time.perf_counter()
        P, _, all_fixed, contacts, mf, mt = self._with(position, quaternion, fixed)
        return _judge(self.preset, P, contacts, all_fixed, mf, mt, self.use_magnets, len(self.P), margin, start)

    def with_tile(self, position, quaternion):
        """The structure plus one tile at ``position`` (3,) m, ``quaternion`` (4,), as
        :meth:`judge` sees it: positions (n+1, 3) m, quaternions (n+1, 4), contacts, and the
        magnet wrenches (force N, torque about each centre N·m; shape (n+1, 6)) with every
        pair and without the new tile's pairs (:class:`magdomino.physics.statics_screen.Stressed`
        takes them)."""
        P, Q, _, contacts, mf, mt = self._with(position, quaternion)
        rest = np.vstack([np.hstack([self.mf, self.mt]), np.zeros((1, 6))])
        if self._free:  # free magnets turn with the whole field: the structure's own field without the tile
            rest[:-1] = np.hstack(magnet_wrenches(self.preset, self.P, self.Q))
        return P, Q, contacts, np.hstack([mf, mt]), rest


BATCH_SPACING_M = 1.0
"""Trials of :func:`judge_many` are laid side by side this far apart: beyond every contact
(a tile's diagonal) and every magnet pair's cutoff (about 5 cm), so they cannot interact."""

def judge_many(preset: Preset, positions, quaternions, magnets: bool = True, *, fixed=None) -> np.ndarray:
    """Does each of many structures stand? The yes/no of :func:`judge`, for many trials at once.

    The trials (e.g. perturbed rest poses of one placement, as a Monte Carlo study draws them)
    are laid side by side, :data:`BATCH_SPACING_M` apart, their contacts found and their
    equations assembled once, and each trial is judged by parts
    (:meth:`~magdomino.physics.equilibrium.Equilibrium.stands_each`), as :func:`judge` judges
    one: a contact that alone carries a trial's tiles above it is a 6-row least-squares fit,
    only tiles joined in cycles need an LP of their group.

    Parameters
    ----------
    preset : Preset
    positions : array_like, shape (B, n, 3), m
        B trials of n tiles each.
    quaternions : array_like, shape (B, n, 4), x, y, z, w
    magnets : bool
    fixed : array_like of bool, shape (n,), or None
        The same fixed tiles in every trial.

    Returns
    -------
    ndarray of bool, shape (B,)

    Raises
    ------
    InputError
        As :func:`judge`, naming the trial.
    """
    P = np.asarray(positions, float)
    Q = np.asarray(quaternions, float)
    if P.ndim != 3 or P.shape[2] != 3 or Q.shape != P.shape[:2] + (4,):
        raise InputError("poses", "positions", "arrays of shape (trials, tiles, 3) and (trials, tiles, 4)")
    B, n = P.shape[:2]
    if B == 0 or n == 0:
        return np.ones(B, bool)
    fixed = np.zeros(n, bool) if fixed is None else np.asarray(fixed, bool).reshape(-1)
    shifted = P + np.arange(B)[:, None, None] * np.array([BATCH_SPACING_M, 0.0, 0.0])
    flat_p, flat_q = shifted.reshape(-1, 3), Q.reshape(-1, 4)
    all_fixed = np.tile(fixed, B)
    size = np.asarray(preset.tile.size, float)
    try:
        contacts = find_contacts(flat_p, flat_q, size, fixed=all_fixed)
    except InputError:
        for b in range(B):  # name the trial (only on the way to the error)
            try:
                find_contacts(P[b], Q[b], size, fixed=fixed)
            except InputError as exc:
                raise InputError(exc.source, f"trial {b}: {exc.key}", exc.expected) from None
        raise
    movable = ~all_fixed
    weight = float(preset.tile.mass) * float(preset.solver.gravity)
    eq = Equilibrium(flat_p, contacts, movable, float(preset.tile.friction), float(size[0]), preset.tile.table_mu)
    if eq.m == 0:
        return np.ones(B, bool)
    down = np.zeros((B * n, 3))
    down[:, 2] = -1.0
    w = eq.load(down, np.zeros((B * n, 3)))
    if magnets and len(preset.tile.magnets) > 0:
        mf, mt = magnet_wrenches(preset, flat_p, flat_q)
        w = w + eq.load(mf / weight, mt / weight)
    return eq.structures_stand(w, np.flatnonzero(movable) // n, B)
