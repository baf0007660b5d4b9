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
  ``n + μ d_k`` (inscribed in Coulomb's cone; ``μ`` the preset's ``tile.friction``, the
  contact's μ; its weakest directions, between the edges, hold ``cos(π/K)`` of ``μ``).
- **Equilibrium** of every movable tile (6 equations: force, and torque about its centre
  divided by the tile length so every row is in tile weights): ``A α = -w`` with ``α >= 0``
  the pyramid-edge weights. Feasible (HiGHS, ``scipy.optimize.linprog``): it stands.
- **Margin** (:func:`judge` with ``margin=True``): the largest tilt of the table that the
  structure survives, in degrees, worst of :data:`TILT_DIRECTIONS` downhill directions
  (each a parametric LP: the largest lateral load factor ``λ``, tilt ``atan λ``; with
  magnets, whose wrenches do not scale with gravity, refined on the worst direction by the
  fixed point ``θ = atan2(λ(cos θ), cos θ)``). Negative for a structure that does not
  stand: minus the smallest tilt that would make it stand. Also, when a placed tile is
  named, ``load_factor``: the largest factor on that tile's weight the structure survives
  (a ratio; :data:`LOAD_CAP` means "at least that").

Where it disagrees with the dynamics (:func:`magdomino.physics.verdict.settle`)
------------------------------------------------------------------------------
The statics judges the *rest pose* of a placement; the dynamics drops the tile from above
and watches what happens. The classes of disagreement seen in ``scripts/bench_statics.py``:

1. **Impacts of a drop**: a placement that can stand may be knocked over by its own
   landing (a drop of 1-2 mm onto a balanced overhang, a tall stack rocking). Statics:
   stands; dynamics: collapsed.
2. **Pushes** (collapse criterion ``shift``): a landing or a magnet snap may slide a tile
   of the construction by more than ``max_shift_mm`` without anything falling. Statics
   judges equilibrium, not displacement: stands; dynamics: collapsed.
3. **Magnets pulling a tile into place**: a placement whose rest pose cannot stand may be
   drawn by the magnets into a nearby pose that can (a tile snapping back over its
   support). Statics: falls; dynamics: stood.
4. **Marginal balance**: within a fraction of a millimetre of the tipping point the
   dynamics' contact penetration and settle rule decide; the statics is exact for the
   rigid geometry. Either way.
5. **Static indeterminacy**: the LP asks whether *some* set of contact forces holds the
   tiles (the lower-bound theorem for rigid blocks with associated friction); with
   friction the actual forces depend on the history, so a structure that needs wedged,
   prestressed contacts (side faces pressed together) may be declared standing though the
   dynamics never builds that prestress. Statics: stands; dynamics: collapsed.

Units: SI inside (m, N, N·m), degrees for reported angles.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from magdomino.errors import InputError
from magdomino.model.presets import Preset

TILT_TOLERANCE_DEG = 1.0
"""A tile whose z axis is further than this from the vertical is not lying flat: the statics
cannot judge it (:class:`~magdomino.errors.InputError`). Tiles within it are taken as flat
(1° over a 48 mm tile is 0.84 mm, below :data:`GAP_TOLERANCE_M`)."""

GAP_TOLERANCE_M = 1.0e-3
"""Faces whose heights differ by less than this touch (a settled stack interpenetrates by
micrometres; a tilt within :data:`TILT_TOLERANCE_DEG` moves a face end by < 0.84 mm; layers
are a tile thickness, 8 mm, apart)."""

SIDE_GAP_M = 0.3e-3
"""End or side faces closer than this (and antiparallel within :data:`SIDE_ANGLE_DEG`) touch."""

SIDE_ANGLE_DEG = 2.0

MIN_CONTACT_M = 0.1e-3
"""Contact polygons narrower than this (edge on edge, corner on face) are left out: a line
or point contact carries no moment across it and a rigid block resting on it is
marginal anyway."""

FRICTION_DIRECTIONS = 8
TILT_DIRECTIONS = 8
LATERAL_CAP = 10.0
"""Largest lateral load factor searched (a tilt of 84°)."""
LOAD_CAP = 100.0


@dataclass(frozen=True)
class Contact:
    """A contact polygon between two bodies.

    Attributes
    ----------
    a, b : int
        Bodies: ``a`` pushes on ``b`` along ``normal``. ``a = -1`` is the table.
    points : ndarray, shape (k, 3), m
        Vertices of the contact polygon (world frame).
    normal : ndarray, shape (3,)
        Unit normal, from ``a`` into ``b``.
    kind : str
        ``"table"``, ``"stack"`` (bottom face on top face) or ``"side"``.
    """

    a: int
    b: int
    points: np.ndarray
    normal: np.ndarray
    kind: str

    @property
    def area(self) -> float:
        """Area of the contact polygon (m²)."""
        p = self.points
        if len(p) < 3:
            return 0.0
        cross = np.cross(p[1:-1] - p[0], p[2:] - p[0])
        return float(np.linalg.norm(cross.sum(axis=0)) / 2)


@dataclass
class StaticVerdict:
    """The statics' answer for one set of poses.

    Attributes
    ----------
    stands : bool
        Contact forces exist that hold every movable tile in equilibrium.
    margin : float or None, degrees
        Largest table tilt survived (worst downhill direction); negative: minus the smallest
        tilt that would make it stand (``-LATERAL_CAP`` as an angle if none does). None when
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

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("margin", "tilt_direction_deg", "load_factor", "wall_time_s"):
            if d[k] is not None:
                d[k] = round(float(d[k]), 6)
        d["collapsed"] = not self.stands
        return d


# -- geometry -----------------------------------------------------------------------------


def _axes(quaternions: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of quaternions (n, 4) x, y, z, w (columns: body axes)."""
    x, y, z, w = np.asarray(quaternions, float).T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], -1),
            np.stack([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)], -1),
            np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        axis=-1,
    )


def flat_footprints(positions, quaternions, size, tilt_tolerance_deg: float = TILT_TOLERANCE_DEG):
    """Each tile's footprint as a flat rectangle, after checking that it lies flat.

    Parameters
    ----------
    positions : array_like, shape (n, 3), m
    quaternions : array_like, shape (n, 4), x, y, z, w
    size : array_like, shape (3,), m
        Tile length, width, thickness.

    Returns
    -------
    corners : ndarray, shape (n, 4, 2), m
        Footprint corners, counter-clockwise.
    yaw : ndarray, shape (n,), rad
        Heading of each tile's long axis.

    Raises
    ------
    InputError
        "statics cannot judge this: tile N is tilted by X°" for a tile beyond the tolerance.
    """
    P = np.asarray(positions, float).reshape(-1, 3)
    R = _axes(np.asarray(quaternions, float).reshape(-1, 4))
    if not (np.all(np.isfinite(P)) and np.all(np.isfinite(R))):
        bad = int(np.nonzero(~(np.isfinite(P).all(1) & np.isfinite(R).all((1, 2))))[0][0])
        raise InputError("poses", f"tile {bad}", "a finite position and orientation (statics cannot judge a removed tile)")
    tilt = np.degrees(np.arccos(np.clip(np.abs(R[:, 2, 2]), 0.0, 1.0)))
    over = np.nonzero(tilt > tilt_tolerance_deg)[0]
    if len(over):
        i = int(over[np.argmax(tilt[over])])
        raise InputError(
            "poses", f"tile {i}",
            f"statics cannot judge this: tile {i} is tilted by {tilt[i]:.1f}° "
            f"(it models tiles lying flat within {tilt_tolerance_deg:g}°)",
        )
    yaw = np.arctan2(R[:, 1, 0], R[:, 0, 0])
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (np.asarray(size[:2], float) / 2)
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], 1)  # (n, 2, 2)
    corners = P[:, None, :2] + np.einsum("nij,kj->nki", rot, half)
    return corners, yaw


def clip_convex(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """Intersection of two convex polygons (Sutherland-Hodgman).

    Parameters
    ----------
    subject, clip : ndarray, shape (k, 2)
        Vertices, counter-clockwise.

    Returns
    -------
    ndarray, shape (m, 2)
        The intersection's vertices, counter-clockwise (m = 0 when they do not overlap).
    """
    out = [tuple(p) for p in subject]
    m = len(clip)
    for e in range(m):
        if not out:
            break
        a, b = clip[e], clip[(e + 1) % m]
        ex, ey = b[0] - a[0], b[1] - a[1]
        pts = out
        out = []
        side = [ex * (p[1] - a[1]) - ey * (p[0] - a[0]) for p in pts]  # >= 0: inside (left)
        for k in range(len(pts)):
            p, q = pts[k], pts[(k + 1) % len(pts)]
            sp, sq = side[k], side[(k + 1) % len(pts)]
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    if len(out) < 3:
        return np.zeros((0, 2))
    poly = np.array(out)
    # Clipping a corner exactly on an edge repeats vertices; drop repeats.
    keep = np.linalg.norm(poly - np.roll(poly, 1, axis=0), axis=1) > 1e-9
    return poly[keep] if keep.sum() >= 3 else np.zeros((0, 2))


def _thin(poly: np.ndarray) -> bool:
    """Is a polygon (k, 2) narrower than MIN_CONTACT_M (twice its area over its longest chord)?"""
    if len(poly) < 3:
        return True
    area = 0.5 * abs(np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1]))
    chord = np.max(np.linalg.norm(poly[:, None] - poly[None], axis=2))
    return area < MIN_CONTACT_M * chord / 2


def find_contacts(positions, quaternions, size, *, fixed=None) -> list[Contact]:
    """Contact polygons between flat tiles, and between tiles and the table (z = 0).

    Parameters
    ----------
    positions : array_like, shape (n, 3), m
    quaternions : array_like, shape (n, 4), x, y, z, w
    size : array_like, shape (3,), m
    fixed : array_like of bool, shape (n,), or None
        Fixed tiles (contacts between two fixed tiles are left out).

    Returns
    -------
    list of Contact
    """
    P = np.asarray(positions, float).reshape(-1, 3)
    n = len(P)
    size = np.asarray(size, float)
    corners, yaw = flat_footprints(P, quaternions, size)
    fixed = np.zeros(n, bool) if fixed is None else np.asarray(fixed, bool)
    t = size[2]
    bottom = P[:, 2] - t / 2
    top = P[:, 2] + t / 2
    up = np.array([0.0, 0.0, 1.0])
    contacts: list[Contact] = []
    for i in np.nonzero((bottom < GAP_TOLERANCE_M) & ~fixed)[0]:
        pts = np.column_stack([corners[i], np.zeros(4)])
        contacts.append(Contact(-1, int(i), pts, up, "table"))
    reach = float(np.hypot(size[0], size[1])) + SIDE_GAP_M
    dxy = np.linalg.norm(P[:, None, :2] - P[None, :, :2], axis=2)
    dz = P[None, :, 2] - P[:, None, 2]  # dz[i, j] = z_j - z_i
    near = (dxy < reach) & ~(fixed[:, None] & fixed[None, :])
    np.fill_diagonal(near, False)
    # j on i: j's bottom within the gap tolerance of i's top.
    for i, j in zip(*np.nonzero(near & (np.abs(dz - t) < GAP_TOLERANCE_M))):
        poly = clip_convex(corners[j], corners[i])
        if _thin(poly):
            continue
        z = 0.5 * (top[i] + bottom[j])
        contacts.append(Contact(int(i), int(j), np.column_stack([poly, np.full(len(poly), z)]), up, "stack"))
    # Side by side or end to end: the z ranges overlap by more than the gap tolerance.
    cos_tol = math.cos(math.radians(SIDE_ANGLE_DEG))
    for i, j in zip(*np.nonzero(np.triu(near & (np.abs(dz) < t - GAP_TOLERANCE_M), 1))):
        contacts.extend(_side_contacts(int(i), int(j), corners, top, bottom, cos_tol))
    return contacts


def _side_contacts(i, j, corners, top, bottom, cos_tol) -> list[Contact]:
    out = []
    zlo, zhi = max(bottom[i], bottom[j]), min(top[i], top[j])
    for ea in range(4):
        a0, a1 = corners[i][ea], corners[i][(ea + 1) % 4]
        u = (a1 - a0) / np.linalg.norm(a1 - a0)
        na = np.array([u[1], -u[0]])  # outward normal of a counter-clockwise polygon's edge
        for eb in range(4):
            b0, b1 = corners[j][eb], corners[j][(eb + 1) % 4]
            v = (b1 - b0) / np.linalg.norm(b1 - b0)
            nb = np.array([v[1], -v[0]])
            if na @ nb > -cos_tol:
                continue
            gap = 0.5 * ((b0 - a0) @ na + (b1 - a0) @ na)
            if abs(gap) > SIDE_GAP_M:
                continue
            sa = sorted((0.0, (a1 - a0) @ u))
            sb = sorted(((b0 - a0) @ u, (b1 - a0) @ u))
            lo, hi = max(sa[0], sb[0]), min(sa[1], sb[1])
            if hi - lo < MIN_CONTACT_M:
                continue
            mid = a0 + na * gap / 2
            seg = [mid + lo * u, mid + hi * u]
            pts = np.array([[*seg[0], zlo], [*seg[1], zlo], [*seg[1], zhi], [*seg[0], zhi]])
            out.append(Contact(i, j, pts, np.array([na[0], na[1], 0.0]), "side"))
    return out


# -- the linear program -------------------------------------------------------------------


_MAGNETS: dict[int, tuple] = {}


def _solver(preset: Preset, attribute: str, key: str):
    """A solver setting, from the preset's SolverSettings (SI) or its older dict of file keys."""
    solver = preset.solver
    return solver[key] if isinstance(solver, dict) else getattr(solver, attribute)


def _tile_magnets(preset: Preset):
    """One TileMagnets per preset object (built as the world builds it)."""
    entry = _MAGNETS.get(id(preset))
    if entry is None or entry[0] is not preset:
        from magdomino.maths.magnets import TileMagnets

        if len(_MAGNETS) > 16:
            _MAGNETS.clear()
        entry = (preset, TileMagnets.from_specs(preset.tile.magnets, model=_solver(preset, "magnet_model", "magnet_model")))
        _MAGNETS[id(preset)] = entry
    return entry[1]


def magnet_wrenches(preset: Preset, positions, quaternions) -> tuple[np.ndarray, np.ndarray]:
    """Magnet force (n, 3) N and torque about each tile's centre (n, 3) N·m at these poses."""
    P = np.asarray(positions, float).reshape(-1, 3)
    if not preset.tile.magnets or len(P) < 2:
        return np.zeros((len(P), 3)), np.zeros((len(P), 3))
    return _tile_magnets(preset).wrenches(P, np.asarray(quaternions, float).reshape(-1, 4))


class Equilibrium:
    """The equilibrium equations ``A α + w = 0`` of the movable tiles, in tile weights.

    Parameters
    ----------
    positions : ndarray, shape (n, 3), m
    contacts : list of Contact
    movable : ndarray of bool, shape (n,)
    mu : float
        Friction coefficient of every contact.
    length : float, m
        Torque rows are divided by it (so that every row is a force, in tile weights).

    Attributes
    ----------
    A : scipy.sparse matrix, shape (6 m, k)
        Columns: pyramid edges of the contact vertices, in tile weights.
    rows : ndarray of int, shape (n,)
        First row of each movable tile (-1 for fixed ones).
    """

    def __init__(self, positions, contacts, movable, mu: float, length: float):
        from scipy.sparse import csc_matrix

        n = len(positions)
        self.rows = np.full(n, -1)
        self.rows[movable] = 6 * np.arange(int(np.sum(movable)))
        self.m = int(np.sum(movable))
        self.length = length
        K = FRICTION_DIRECTIONS
        angles = 2 * np.pi * np.arange(K) / K
        if contacts:
            counts = [len(c.points) for c in contacts]
            pts = np.concatenate([c.points for c in contacts])  # (V, 3)
            nrm = np.repeat(np.array([c.normal for c in contacts]), counts, axis=0)
            body_a = np.repeat([c.a for c in contacts], counts)
            body_b = np.repeat([c.b for c in contacts], counts)
        else:
            pts = nrm = np.zeros((0, 3))
            body_a = body_b = np.zeros(0, int)
        V = len(pts)
        # Tangents: x and y for a horizontal face, the face's horizontal edge and z for a side.
        vertical = np.abs(nrm[:, 2]) > 0.5
        t1 = np.where(vertical[:, None], [1.0, 0.0, 0.0], np.column_stack([-nrm[:, 1], nrm[:, 0], np.zeros(V)]))
        t2 = np.cross(nrm, t1)
        gens = nrm[:, None, :] + mu * (np.cos(angles)[None, :, None] * t1[:, None, :] + np.sin(angles)[None, :, None] * t2[:, None, :])
        cols = np.arange(V * K).reshape(V, K)
        ri, ci, vals = [], [], []
        for body, sign in ((body_b, 1.0), (body_a, -1.0)):
            r0 = np.where(body >= 0, self.rows[np.maximum(body, 0)], -1)
            use = r0 >= 0
            if not np.any(use):
                continue
            g = gens[use] * sign  # (u, K, 3)
            lever = pts[use] - positions[body[use]]
            tq = np.cross(lever[:, None, :], g) / length
            w = np.concatenate([g, tq], axis=2)  # (u, K, 6)
            ri.append(np.broadcast_to(r0[use][:, None, None] + np.arange(6), w.shape).ravel())
            ci.append(np.broadcast_to(cols[use][:, :, None], w.shape).ravel())
            vals.append(w.ravel())
        self.k = V * K
        if ri:
            self.A = csc_matrix((np.concatenate(vals), (np.concatenate(ri), np.concatenate(ci))), shape=(6 * self.m, self.k))
        else:
            self.A = csc_matrix((6 * self.m, self.k))

    def load(self, forces, torques) -> np.ndarray:
        """Right-hand side rows (6 m,) of external forces (n, 3) and torques (n, 3), in tile weights."""
        w = np.hstack([forces, torques / self.length])[self.rows >= 0]
        return w.ravel()

    def solve(self, w: np.ndarray, extra=None, objective: float = 0.0, bounds=(0.0, None)):
        """Feasibility of ``A α + w = 0``, or with an extra column ``e`` and variable ``λ``
        (``A α + λ e + w = 0``) the optimum ``objective · λ`` (-1: maximise, +1: minimise).

        Returns (feasible, λ or None).
        """
        from scipy.optimize import linprog
        from scipy.sparse import hstack, csc_matrix

        A = self.A
        c = np.zeros(self.k)
        bnds = [(0.0, None)] * self.k
        if extra is not None:
            A = hstack([A, csc_matrix(np.asarray(extra, float).reshape(-1, 1))], format="csc")
            c = np.append(c, objective)
            bnds = bnds + [bounds]
        if A.shape[0] == 0:
            return True, (bounds[1] if objective < 0 else bounds[0]) if extra is not None else None
        # Presolve costs more than it saves on these small, dense-ish problems (~25 %).
        res = linprog(c, A_eq=A, b_eq=-w, bounds=bnds, method="highs", options={"presolve": False})
        if res.status != 0:
            return False, None
        return True, (float(res.x[-1]) if extra is not None else None)


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
        Tile size, mass, friction (every contact's μ, the table's too), magnets, gravity.
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
        Also compute the tilt margin and the load factor (about 10 more LPs); False for the
        yes/no answer only (one LP).

    Returns
    -------
    StaticVerdict

    Raises
    ------
    InputError
        A tile not lying flat: "statics cannot judge this: tile N is tilted by X°".
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
    movable = ~fixed
    weight = float(preset.tile.mass) * float(_solver(preset, "gravity", "gravity_m_s2"))
    eq = Equilibrium(P, contacts, movable, float(preset.tile.friction), float(size[0]))
    use_magnets = bool(magnets) and len(preset.tile.magnets) > 0
    if use_magnets:
        mf, mt = magnet_wrenches(preset, P, Q)
    else:
        mf, mt = np.zeros((n, 3)), np.zeros((n, 3))
    down = np.zeros((n, 3))
    down[:, 2] = -1.0
    zero = np.zeros((n, 3))
    w_mag = eq.load(mf / weight, mt / weight)
    w_grav = eq.load(down, zero)
    stands, _ = eq.solve(w_grav + w_mag)
    verdict = StaticVerdict(stands, None, n, len(contacts), use_magnets, 0.0)
    if margin and eq.m > 0:
        _margins(verdict, eq, w_grav, w_mag, n, placed, movable)
    verdict.wall_time_s = time.perf_counter() - start
    return verdict


def _lateral_factor(eq, w_grav, w_mag, direction, n, cos_scale, stands):
    """Largest (standing) or smallest (not standing) lateral load factor along ``direction``
    with the vertical gravity scaled by ``cos_scale``; None when none in [0, LATERAL_CAP]."""
    lat = np.zeros((n, 3))
    lat[:, :2] = direction
    e = eq.load(lat, np.zeros((n, 3)))
    ok, lam = eq.solve(cos_scale * w_grav + w_mag, extra=e, objective=-1.0 if stands else 1.0, bounds=(0.0, LATERAL_CAP))
    return lam if ok else None


def _margins(verdict, eq, w_grav, w_mag, n, placed, movable):
    """Fill the tilt margin (and load factor) of ``verdict``: see the module docstring."""
    stands = verdict.stands
    best = None
    for k in range(TILT_DIRECTIONS):
        phi = 2 * math.pi * k / TILT_DIRECTIONS
        d = np.array([math.cos(phi), math.sin(phi)])
        lam = _lateral_factor(eq, w_grav, w_mag, d, n, 1.0, stands)
        if lam is None:
            continue
        if best is None or lam < best[0]:
            best = (lam, phi, d)
    if best is None:
        verdict.margin = -math.degrees(math.atan(LATERAL_CAP))
    else:
        lam, phi, d = best
        theta = math.atan(lam)
        if verdict.magnets:  # magnets do not scale with gravity: the true tilt by a fixed point
            for _ in range(6):
                c = math.cos(theta)
                lam_c = _lateral_factor(eq, w_grav, w_mag, d, n, c, stands)
                if lam_c is None:
                    break
                new = math.atan2(lam_c, c)
                done = abs(new - theta) < math.radians(0.01)
                theta = new
                if done:
                    break
        verdict.margin = math.degrees(theta) if stands else -math.degrees(theta)
        verdict.tilt_direction_deg = math.degrees(phi)
    if placed is not None and movable[placed]:
        if not stands:
            verdict.load_factor = 0.0
        else:
            e = np.zeros((n, 3))
            e[placed, 2] = -1.0
            g = eq.load(e, np.zeros((n, 3)))
            ok, lam = eq.solve(w_grav - g + w_mag, extra=g, objective=-1.0, bounds=(0.0, LOAD_CAP))
            verdict.load_factor = lam if ok else 0.0
