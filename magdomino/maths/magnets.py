"""Magnet field, force and torque: point dipoles and finite-size magnets split into cells.

Three layers, in the style of magpylib, all SI (m, A·m², T, N, N·m):

1. **Raw** (arrays in, arrays out, no checks): :func:`dipole_field`,
   :func:`dipole_pair_force_torque`, :func:`dipole_force_torque`, :func:`dipole_field_pairs`,
   and the quadrature rules :func:`rule_nodes`, :func:`cell_rule`.
2. **Checked**: :class:`Magnet`, :func:`force_between` and :func:`energy_between` for one
   pair of magnets (bad arguments raise :class:`~magdomino.errors.InputError`).
3. **Batch**: :class:`TileMagnets`, the total force and torque on every tile of a
   construction, called by the physics world before each step.

The finite model
----------------
A uniformly magnetised body interacts with another exactly as the double volume integral of
the point-dipole interaction over both bodies (the integrand is smooth as long as the bodies
do not overlap). The integral is evaluated with a product Gauss rule, each node being a point
dipole carrying its share of the moment ``m = J V / μ0``:

- cylinder (diameter D, height h): Gauss-Legendre in ``s = r²`` (exact for polynomials in x,
  y of the disc), the trapezoid rule in θ (spectrally exact for periodic functions) and
  Gauss-Legendre in z;
- cuboid (x, y, z): Gauss-Legendre along each side.

Rules come in *levels* (:func:`rule_nodes`): level 0 is the point dipole; level ``k >= 1``
has ``n = max(1, round(k D / M))`` nodes in ``s``, ``4n`` in θ and
``max(2, round(1 + 1.5 k h / M))`` in z for a cylinder, ``M = max(D, h)`` (8, 32, 72, 192,
400, 576, 784, 1280, 1944 cells for a Ø6×2 mm disc at levels 1 to 9) and ``max(2, round(1 + k d_i / max(d)))`` nodes along side ``d_i`` of a cuboid.
A Gauss rule's error falls geometrically with the ratio of node spacing to the gap between
the bodies, so the level is picked from ``γ = g / L``: ``g`` a lower bound of the clearance
(:func:`clearance`: separating axes along the line of centres and both magnet axes) and
``L`` the largest magnet dimension (:data:`AUTO_LEVELS`; the batch stops at level
``BATCH_MAX_LEVEL`` = 6). Worst errors of the
chosen rule against a much finer one (validated against magpylib in the tests), over
coaxial, offset, side-by-side and 30°-tilted pairs of Ø6×2 mm discs, 5×5×2 mm and 4 mm
cubes, relative to the force's magnitude (torque: to force × L):

=====================  =====================  =========================================
γ = g / L              level (cyl / cuboid)   worst error
=====================  =====================  =========================================
>= 2 (1.6 cylinders)   1 (8 cells)            < 0.7 % (~0.3 % at the 16 mm stacking pair)
0.6 - 2                2 (32 / 18-27)         < 0.8 % (0.04 % at the 8 mm stacking gap)
0.4 - 0.6              2-3                    < 0.8 %
0.2 - 0.4              3-7                    < 1 %
0.15 - 0.2             5-9                    < 1 %
< 0.15                 7-9                    cylinders < 1 % to γ = 0.1; cuboids 1-6 %
=====================  =====================  =========================================

The 1 mm face clearance of two Ø6×2 mm discs is γ = 0.17 (400 cells each, 0.3 % error).

Free magnets
------------
A magnet that turns freely in its cavity (``free=True``) settles quasi-statically with its
moment along the mean field of all the other magnets over its volume (the orientation that
minimises its energy ``-m·B̄``), so it always attracts. Its cells keep their place in the
tile; only their moment direction follows the field (exact for a ball, a small
approximation for a disc).

How the finite model is computed
--------------------------------
With ``r = q_j - p_i`` (cells i of a, j of b), ``ua·r = A_j - a_i`` and ``ub·r = B_j - b_i``
split into per-cell projections, so every sum over cell pairs that the force, the torque and
the mean field need is a linear combination of the moment sums
``Σ_ij w_i w_j d(j) r_ij^-(3+2k) c(i)`` with a few per-cell monomials c, d (:func:`_cells_moments`).
Only ``r⁻³, r⁻⁵, r⁻⁷`` are computed per cell pair; both sums are batched matrix products.
The batch runs the cell sums of levels 0-2 in float32 (millimetre units inside, so nothing
underflows; relative rounding ~1e-5) and reuses its work arrays between calls.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.special import roots_legendre

from magdomino.errors import InputError

MU0 = 4e-7 * math.pi
"""Vacuum permeability μ0 (T·m/A)."""

_K = MU0 / (4 * math.pi)  # μ0 / 4π = 1e-7

SHAPES = ("cylinder", "cuboid")
MODELS = ("finite", "dipole")

AUTO_LEVELS: dict[str, tuple[tuple[float, int], ...]] = {
    "cylinder": ((0.1, 9), (0.15, 7), (0.2, 5), (0.4, 3), (1.6, 2)),
    "cuboid": ((0.2, 9), (0.3, 7), (0.4, 5), (0.6, 3), (2.0, 2)),
}
"""Per shape, ``(γ_max, level)``: the finite-model rule used when ``γ = g / L < γ_max``
(first match); beyond the last entry, level 1. ``g`` is the clearance bound of
:func:`clearance` and ``L`` the largest dimension of the two magnets; a pair uses the finer
of its two magnets' levels. Calibrated so that the force and torque err < 1 % (of the
force's magnitude, torque against force × L) down to γ = 0.1 for cylinders and γ = 0.15
for cuboids (module docstring)."""

NEAR_Q = 12.0
"""Default ``near`` in bounding radii: beyond it the point dipole errs < 3 % of the coaxial
force at that distance, worst over orientations (37.9 mm for two Ø6×2 mm discs; measured
2.6 %)."""

CUTOFF_Q = 16.0
"""Default ``cutoff`` in bounding radii (50.6 mm for two Ø6×2 mm discs): a pair beyond it
exerts < 0.15 % of the force the same pair exerts coaxially at 8 mm (the stacking gap)."""

BATCH_MAX_LEVEL = 6
"""The finest rule :class:`TileMagnets` uses (576 cells for a Ø6×2 mm disc): a safety cap on
the cost of magnets that nearly touch (γ < 0.15 for cylinders, < 0.3 for cuboids), where
the error may then exceed 1 %. Unreachable with magnets at mid-thickness of 8 mm tiles."""

F32_MAX_LEVEL = 2
"""Finite-model levels up to this one run their cell sums in float32 in the batch (relative
rounding ~1e-5 at γ >= 0.6); finer levels, used only for close pairs, in float64."""

SMALL_BATCH = 16
"""At most this many magnet pairs of different float32 rules go through one cell-sum call
(coarser rules padded with zero-moment cells): for few pairs the fixed cost of a call
dominates, for many the padding would."""

FREE_ITERATIONS = 3
"""Fixed-point iterations for the directions of free magnets that see each other."""


# --------------------------------------------------------------------------------------
# Raw layer: point dipoles
# --------------------------------------------------------------------------------------


def dipole_pair_force_torque(r, moments_a, moments_b):
    """Force and torque on dipoles b from dipoles a, pair by pair (broadcasting).

    Parameters
    ----------
    r : ndarray, shape (..., 3), m
        Position of b minus position of a. Must be non-zero.
    moments_a, moments_b : ndarray, shape (..., 3), A·m²

    Returns
    -------
    force : ndarray, shape (..., 3), N
        Force on b.
    torque : ndarray, shape (..., 3), N·m
        ``m_b × B_a(r_b)``, the torque on b about its own position.
    """
    r = np.asarray(r, float)
    ma = np.asarray(moments_a, float)
    mb = np.asarray(moments_b, float)
    r2 = np.einsum("...i,...i->...", r, r)
    ir2 = 1.0 / r2
    ir3 = ir2 * np.sqrt(ir2)
    ar = np.einsum("...i,...i->...", ma, r)
    br = np.einsum("...i,...i->...", mb, r)
    ab = np.einsum("...i,...i->...", ma, mb)
    s = 3 * _K * ir3 * ir2
    force = s[..., None] * (
        ar[..., None] * mb + br[..., None] * ma + (ab - 5 * ar * br * ir2)[..., None] * r
    )
    B = _K * ir3[..., None] * (3 * (ar * ir2)[..., None] * r - ma)
    return force, np.cross(mb, B)


def dipole_field(points, positions, moments):
    """Magnetic flux density of many point dipoles at many points.

    Parameters
    ----------
    points : ndarray, shape (n, 3), m
        Where to evaluate B. No point may coincide with a dipole.
    positions : ndarray, shape (m, 3), m
    moments : ndarray, shape (m, 3), A·m²

    Returns
    -------
    B : ndarray, shape (n, 3), T
        Sum of ``μ0/4π (3 r (m·r)/r⁵ - m/r³)`` over the dipoles.
    """
    r = np.asarray(points, float)[:, None, :] - np.asarray(positions, float)[None, :, :]
    m = np.asarray(moments, float)[None, :, :]
    r2 = np.einsum("nmi,nmi->nm", r, r)
    ir2 = 1.0 / r2
    ir3 = ir2 * np.sqrt(ir2)
    mr = np.einsum("nmi,nmi->nm", m, r)
    return _K * (3 * (mr * ir3 * ir2)[..., None] * r - ir3[..., None] * m).sum(axis=1)


def dipole_force_torque(positions_a, moments_a, positions_b, moments_b):
    """Force and torque on each dipole b from all the dipoles a.

    Parameters
    ----------
    positions_a : ndarray, shape (na, 3), m
    moments_a : ndarray, shape (na, 3), A·m²
    positions_b : ndarray, shape (nb, 3), m
    moments_b : ndarray, shape (nb, 3), A·m²

    Returns
    -------
    force : ndarray, shape (nb, 3), N
    torque : ndarray, shape (nb, 3), N·m
        ``m_b × B`` about each dipole's own position.
    """
    r = np.asarray(positions_b, float)[None, :, :] - np.asarray(positions_a, float)[:, None, :]
    f, t = dipole_pair_force_torque(r, np.asarray(moments_a, float)[:, None, :], np.asarray(moments_b, float)[None, :, :])
    return f.sum(axis=0), t.sum(axis=0)


# --------------------------------------------------------------------------------------
# Raw layer: quadrature rules
# --------------------------------------------------------------------------------------


def rule_nodes(shape: str, dimensions: Sequence[float], level: int) -> tuple[int, int, int]:
    """Node counts of the level-``level`` rule: ``(n_s, n_θ, n_z)`` or ``(n_x, n_y, n_z)``."""
    if level <= 0:
        return (1, 1, 1)
    if shape == "cylinder":
        d, h = dimensions
        big = max(d, h)
        ns = max(1, round(level * d / big))
        return (ns, 4 * ns, max(2, round(1 + 1.5 * level * h / big)))
    big = max(dimensions)
    return tuple(max(2, round(1 + level * x / big)) for x in dimensions)


def cell_rule(shape: str, dimensions: Sequence[float], nodes: Sequence[int]):
    """Quadrature cells of a magnet in its own frame (magnetised along +z, centred at 0).

    Parameters
    ----------
    shape : {"cylinder", "cuboid"}
    dimensions : tuple of float, m
        Cylinder (diameter, height); cuboid (x, y, z).
    nodes : tuple of 3 int
        Cylinder ``(n_s, n_θ, n_z)``: Gauss-Legendre in ``s = r²``, trapezoid in θ,
        Gauss-Legendre in z. Cuboid ``(n_x, n_y, n_z)``: Gauss-Legendre on each side.
        ``(1, 1, 1)`` is the centre (the point dipole).

    Returns
    -------
    offsets : ndarray, shape (c, 3), m
    weights : ndarray, shape (c,)
        Positive, summing to 1 (the share of the moment each cell carries).
    """
    n1, n2, n3 = (int(v) for v in nodes)

    def gl(n, half):
        x, w = roots_legendre(n)
        return x * half, w / w.sum()

    if shape == "cylinder":
        d, h = dimensions
        R = d / 2
        x, ws = roots_legendre(n1)
        r = np.sqrt((x + 1) / 2) * R if n1 * n2 > 1 else np.zeros(1)
        ws = ws / ws.sum()
        th = 2 * np.pi * np.arange(n2) / n2
        z, wz = gl(n3, h / 2)
        rr, tt, zz = np.meshgrid(r, th, z, indexing="ij")
        pts = np.stack([rr * np.cos(tt), rr * np.sin(tt), zz], axis=-1).reshape(-1, 3)
        w = (ws[:, None, None] * np.full(n2, 1.0 / n2)[None, :, None] * wz[None, None, :]).ravel()
    else:
        (gx, wx), (gy, wy), (gz, wz) = (gl(n, s / 2) for n, s in zip((n1, n2, n3), dimensions))
        xx, yy, zz = np.meshgrid(gx, gy, gz, indexing="ij")
        pts = np.stack([xx, yy, zz], axis=-1).reshape(-1, 3)
        w = (wx[:, None, None] * wy[None, :, None] * wz[None, None, :]).ravel()
    pts[np.abs(pts) < 1e-9 * max(dimensions)] = 0.0  # cos(π/2) round-off: exact zeros
    return pts, w


def volume(shape: str, dimensions: Sequence[float]) -> float:
    """Volume of a magnet (m³)."""
    if shape == "cylinder":
        d, h = dimensions
        return math.pi * d * d / 4 * h
    x, y, z = dimensions
    return x * y * z


def bounding_radius(shape: str, dimensions: Sequence[float]) -> float:
    """Radius of the smallest sphere about the centre that holds the magnet (m)."""
    if shape == "cylinder":
        d, h = dimensions
        return math.hypot(d / 2, h / 2)
    return 0.5 * math.sqrt(sum(x * x for x in dimensions))


_AUTO_EDGES = {k: np.array([e for e, _ in v]) for k, v in AUTO_LEVELS.items()}
_AUTO_TABLE = {k: np.array([lv for _, lv in v] + [1]) for k, v in AUTO_LEVELS.items()}


def auto_level(gamma, shape: str = "cylinder"):
    """Finite-model level for ``γ = g / L`` and one magnet shape (:data:`AUTO_LEVELS`);
    scalar or array."""
    return _AUTO_TABLE[shape][np.searchsorted(_AUTO_EDGES[shape], gamma, side="right")]


def support(shape: str, dimensions: Sequence[float], frame, u):
    """Support function ``max over the magnet of (x - centre)·u``.

    Parameters
    ----------
    shape, dimensions : as for :class:`Magnet`
    frame : ndarray, shape (..., 3, 3)
        Columns: the magnet's x, y, z axes in the world.
    u : ndarray, shape (..., 3)
        Unit directions.

    Returns
    -------
    ndarray, shape (...), m
    """
    proj = np.abs(np.einsum("...ij,...i->...j", frame, u))  # |u·e_j|
    if shape == "cylinder":
        d, h = dimensions
        c = np.minimum(proj[..., 2], 1.0)
        return d / 2 * np.sqrt(1.0 - c * c) + h / 2 * c
    return proj @ (0.5 * np.asarray(dimensions, float))


def clearance(a: "Magnet", b: "Magnet") -> float:
    """A lower bound of the gap between two magnets (m), by separating axes: along a unit
    vector n the gap is at least ``|r·n| - h_a(n) - h_b(n)`` (h: support functions); the
    best of n = the line of centres, a's axis and b's axis. Exact for coaxial, stacked
    parallel and side-by-side pairs; negative when it cannot prove a gap."""
    r = b.position - a.position
    d = float(np.linalg.norm(r))
    if d == 0:
        return -math.inf
    best = -math.inf
    for n in (r / d, a._R[:, 2], b._R[:, 2]):
        gap = abs(float(r @ n)) - float(support(a.shape, a.dimensions, a._R, n)) - float(support(b.shape, b.dimensions, b._R, n))
        best = max(best, gap)
    return best


def _level_for_cells(shape, dimensions, cells: int) -> int:
    """The coarsest level whose rule has at least ``cells`` cells."""
    level = 0
    while level < 40:
        if math.prod(rule_nodes(shape, dimensions, level)) >= cells:
            return level
        level += 1
    return level


def _rotation_z_to(axis) -> np.ndarray:
    """The smallest rotation matrix taking +z to the unit vector ``axis``."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    c = a[2]
    if c < -1 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    v = np.array([-a[1], a[0], 0.0])  # z × a
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx / (1 + c)


_EPS9 = np.zeros((3, 3, 3))
_EPS9[0, 1, 2] = _EPS9[1, 2, 0] = _EPS9[2, 0, 1] = 1.0
_EPS9[0, 2, 1] = _EPS9[2, 1, 0] = _EPS9[1, 0, 2] = -1.0
_EPS9 = _EPS9.reshape(3, 9).T.copy()  # (a ⊗ b) flattened @ _EPS9 = a × b


def _cross(a, b):
    """Cross product of (..., 3) arrays (faster than np.cross for small arrays)."""
    if a.ndim == 2 and a.shape == b.shape and len(a) <= 64:  # one outer product, one matmul
        return (a[:, :, None] * b[:, None, :]).reshape(len(a), 9) @ _EPS9
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def _combination_matrix():
    """The sparse linear map from the moment sums T (see :func:`_cells_moments`) to the 24
    sums the force, torque and field need; returns (entries of T used, matrix)."""
    def flat(mb, nb, k, ma, na):
        return (((mb * 4 + nb) * 3 + k) * 4 + ma) * 4 + na

    combos = []  # one list of (sign, index) per output column
    combos.append([(1, (1, 0, 1, 0, 0)), (-1, (0, 0, 1, 1, 0))])  # 0: Σ α / r⁵
    combos.append([(1, (2, 0, 1, 0, 0)), (-1, (0, 0, 1, 2, 0))])  # 1: Σ β / r⁵
    for c in range(1, 4):  # 2-4: Σ r / r⁵
        combos.append([(1, (0, c, 1, 0, 0)), (-1, (0, 0, 1, 0, c))])
    for c in range(1, 4):  # 5-7: Σ α β r / r⁷
        combos.append([(1, (3, c, 2, 0, 0)), (-1, (1, c, 2, 2, 0)), (-1, (2, c, 2, 1, 0)), (1, (0, c, 2, 3, 0)),
                       (-1, (3, 0, 2, 0, c)), (1, (1, 0, 2, 2, c)), (1, (2, 0, 2, 1, c)), (-1, (0, 0, 2, 3, c))])
    for c in range(1, 4):  # 8-10: Σ α q / r⁵
        combos.append([(1, (1, c, 1, 0, 0)), (-1, (0, c, 1, 1, 0))])
    for c in range(1, 4):  # 11-13: Σ β q / r⁵
        combos.append([(1, (2, c, 1, 0, 0)), (-1, (0, c, 1, 2, 0))])
    eps = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]  # (l, m, n) with ε_lmn = +1; also -1 for (l, n, m)
    for l in range(3):  # 14-16: Σ q × p / r⁵
        _, m, n = eps[l]
        combos.append([(1, (0, 1 + m, 1, 0, 1 + n)), (-1, (0, 1 + n, 1, 0, 1 + m))])
    for l in range(3):  # 17-19: Σ q × (α β p-part) / r⁷, i.e. ε q_m g_n
        _, m, n = eps[l]
        terms = []
        for sign, (mb, ma) in ((1, (3, 0)), (-1, (1, 2)), (-1, (2, 1)), (1, (0, 3))):
            terms += [(sign, (mb, 1 + m, 2, ma, 1 + n)), (-sign, (mb, 1 + n, 2, ma, 1 + m))]
        combos.append(terms)
    for c in range(1, 4):  # 20-22: Σ α r / r⁵
        combos.append([(1, (1, c, 1, 0, 0)), (-1, (0, c, 1, 1, 0)), (-1, (1, 0, 1, 0, c)), (1, (0, 0, 1, 1, c))])
    combos.append([(1, (0, 0, 0, 0, 0))])  # 23: Σ 1 / r³
    index, signs, starts = [], [], []
    for terms in combos:
        starts.append(len(index))
        for sign, ix in terms:
            index.append(flat(*ix))
            signs.append(float(sign))
    return np.array(index), np.array(signs), np.array(starts)


# Output column j of the 24 sums is Σ signs[m] T[index[m]] over m in [starts[j], starts[j+1]):
# a gather and a segmented sum (a dense (P, 768) @ (768, 24) product would be mostly zeros,
# and BLAS may start threads for it).
_T_INDEX, _T_SIGNS, _T_STARTS = _combination_matrix()
_T_UNITS = np.array([1e12] * 8 + [1e9] * 16)  # mm⁻⁴ and mm⁻³ to SI for the 24 sums


def _cells_moments(pa, wa, ua, pb, wb, ub, work=None):
    """Stage 1 of the finite model: moment sums over the cells of both magnets.

    Parameters
    ----------
    pa : ndarray, shape (P, Na, 3), m
        Cell positions of a, relative to a's centre (sums are expanded about that origin).
    wa : ndarray, shape (P, Na), A·m²
        Cell moments of a.
    ua : ndarray, shape (P, 3)
        Unit moment direction of a.
    pb, wb, ub : the same for b (positions relative to a's centre too).
    work : dict or None
        Work arrays kept between calls (see :func:`_buffer`); not thread-safe.

    Returns
    -------
    S : ndarray, shape (P, 24), float64
        The sums :func:`_pairs_wrench` needs, linear combinations (``_T_INDEX``, ``_T_SIGNS``) of
        ``T[p, mb, nb, k, ma, na] = Σ_j Σ_i w_j w_i d_mb(j) f_nb(j) r_ij^-(3+2k) c_ma(i) e_na(i)``
        with ``c = (1, a, b, a b)`` (``a = ua·p_i``, ``b = ub·p_i``), ``e = (1, p_i)``,
        ``d = (1, A, B, A B)`` (``A = ua·q_j``, ``B = ub·q_j``), ``f = (1, q_j)``.

    Notes
    -----
    Every force, torque and mean-field sum of the dipole-dipole interaction over the cell
    pairs is a linear combination of these entries (:func:`_pairs_wrench`), because
    ``ua·r = A - a``, ``ub·r = B - b`` and ``r = q - p``. The (P, Nb, Na) arrays are the
    only large ones; both sums are batched matrix products. The arithmetic runs in the
    dtype of ``pa``: float32 halves the cost, and its rounding (~1e-6 relative) is far
    below the model's error.
    """
    dt = pa.dtype
    P, na, _ = pa.shape
    nb = pb.shape[1]
    # Millimetres and moments of order 1 inside: products of many small factors would
    # otherwise fall to subnormal float32 values, which are slow and inaccurate.
    sa = float(np.abs(wa).max()) or 1.0
    sb = float(np.abs(wb).max()) or 1.0
    pa = pa * dt.type(1e3)
    pb = pb * dt.type(1e3)
    wa = wa * dt.type(1.0 / sa)
    wb = wb * dt.type(1.0 / sb)
    U = np.empty((P, 3, 2), dt)  # (P, 3, 2): both directions
    U[:, :, 0] = ua
    U[:, :, 1] = ub
    pr_a = np.matmul(pa, U)  # (P, Na, 2): a, b
    pr_b = np.matmul(pb, U)  # (P, Nb, 2): A, B
    # r² = |q|² - 2 q·p + |p|², one matrix product with augmented columns.
    left = _buffer(work, "left", (P, nb, 5), dt)
    left[..., :3] = pb
    left[..., 3] = 1.0
    np.einsum("pjc,pjc->pj", pb, pb, out=left[..., 4])
    right = _buffer(work, "right", (P, 5, na), dt)
    np.multiply(pa.transpose(0, 2, 1), -2.0, out=right[:, :3])
    np.einsum("pic,pic->pi", pa, pa, out=right[:, 3])
    right[:, 4] = 1.0
    ir2 = np.matmul(left, right, out=_buffer(work, "ir2", (P, nb, na), dt))
    np.reciprocal(ir2, out=ir2)
    Rk = _buffer(work, "Rk", (P, nb, 3, na), dt)  # r⁻³, r⁻⁵, r⁻⁷
    np.sqrt(ir2, out=Rk[:, :, 0])
    Rk[:, :, 0] *= ir2
    np.multiply(Rk[:, :, 0], ir2, out=Rk[:, :, 1])
    np.multiply(Rk[:, :, 1], ir2, out=Rk[:, :, 2])
    H = np.matmul(Rk.reshape(P, nb * 3, na), _features(pa, wa, pr_a, dt, work, "fa"),
                  out=_buffer(work, "H", (P, nb * 3, 16), dt))
    T = np.matmul(_features(pb, wb, pr_b, dt, work, "fb").transpose(0, 2, 1), H.reshape(P, nb, 48),
                  out=_buffer(work, "T", (P, 16, 48), dt))
    terms = T.reshape(P, 768)[:, _T_INDEX] * _T_SIGNS  # float64
    return np.add.reduceat(terms, _T_STARTS, axis=1) * (_T_UNITS * (sa * sb))


def _buffer(work, key, shape, dt):
    """A work array of ``shape`` from the dict ``work`` (reused across calls: fresh large
    arrays cost page faults on every call), or a new one when ``work`` is None."""
    if work is None:
        return np.empty(shape, dt)
    n = math.prod(shape)
    b = work.get((key, dt))
    if b is None or b.size < n:
        b = np.empty(n + n // 4, dt)
        work[(key, dt)] = b
    return b[:n].reshape(shape)


def _features(p, w, pr, dt, work=None, key="f"):
    """``w (1, s, t, s t) ⊗ (1, p)`` per cell: (P, N, 16)."""
    P, n, _ = p.shape
    f = _buffer(work, key + "_parts", (P, n, 2, 4), dt)  # rows: (1, s, t, s t) and (1, p)
    f[..., 0, 0] = w
    np.multiply(w[..., None], pr, out=f[..., 0, 1:3])
    np.multiply(f[..., 0, 1], pr[..., 1], out=f[..., 0, 3])
    f[..., 1, 0] = 1.0
    f[..., 1, 1:] = p
    out = _buffer(work, key, (P, n, 4, 4), dt)
    np.multiply(f[..., 0, :, None], f[..., 1, None, :], out=out)
    return out.reshape(P, n, 16)


def _pairs_field(S, ua):
    """Σ_j w_j B_a(q_j) (T·A·m²) from :func:`_cells_moments` (divide by Σ w_j for the mean)."""
    return _K * (3.0 * S[:, 20:23] - S[:, 23:24] * ua)


def _pairs_wrench(S, ua, ub, cb):
    """Stage 2 of the finite model: force on b and torque on b about ``cb``.

    ``S`` from :func:`_cells_moments`; ``ua``, ``ub`` (P, 3) unit directions; ``cb`` (P, 3)
    m, b's centre relative to a's. With ``r = q_j - p_i``, ``α = ua·r``, ``β = ub·r``:
    ``F = 3 μ0/4π Σ_ij w_i w_j [(α ub + β ua + (ua·ub) r) / r⁵ - 5 α β r / r⁷]``,
    ``τ = Σ_j (q_j - cb) × F_j + ub × Σ_j w_j B_a(q_j)``.
    """
    ab = np.einsum("pc,pc->p", ua, ub)[:, None]
    F = (3 * _K) * (S[:, 0:1] * ub + S[:, 1:2] * ua + ab * S[:, 2:5] - 5.0 * S[:, 5:8])
    qxF = (3 * _K) * (_cross(S[:, 8:11], ub) + _cross(S[:, 11:14], ua) - ab * S[:, 14:17] + 5.0 * S[:, 17:20])
    torque = qxF - _cross(cb, F) + _cross(ub, _pairs_field(S, ua))
    return F, torque


def _cells_wrench(pa, wa, ua, pb, wb, ub, cb):
    """Finite-model force on b from a and torque on b about ``cb`` for P pairs.

    ``pa (P,Na,3)``, ``pb (P,Nb,3)`` m relative to a's centre; ``wa (P,Na)``, ``wb (P,Nb)``
    A·m²; ``ua``, ``ub`` (P,3) unit directions; ``cb (P,3)`` m. Returns (P,3) N, (P,3) N·m.
    """
    return _pairs_wrench(_cells_moments(pa, wa, ua, pb, wb, ub), ua, ub, cb)


# --------------------------------------------------------------------------------------
# Checked layer: one pair of magnets
# --------------------------------------------------------------------------------------


class Magnet:
    """A uniformly magnetised cylinder or cuboid, magnetised along its local z axis.

    Parameters
    ----------
    shape : {"cylinder", "cuboid"}
    dimensions : tuple of float, m
        Cylinder (diameter, height); cuboid (x, y, z) in the magnet's frame.
    polarization : float, T
        Remanent polarisation J = μ0 M (may be negative: magnetised along -z).
    position : array-like, shape (3,), m
        Centre.
    orientation : scipy.spatial.transform.Rotation or None
        Rotation from the magnet's frame to the world (None: identity).

    Raises
    ------
    InputError
        Unknown shape, wrong number of dimensions, non-positive dimension, non-finite values.
    """

    def __init__(self, shape="cylinder", dimensions=(0.006, 0.002), polarization=1.2, position=(0.0, 0.0, 0.0), orientation=None):
        src = "Magnet"
        if shape not in SHAPES:
            raise InputError(src, "shape", f"one of {', '.join(SHAPES)}, not {shape!r}")
        n = 2 if shape == "cylinder" else 3
        try:
            dims = tuple(float(x) for x in dimensions)
        except (TypeError, ValueError):
            raise InputError(src, "dimensions", f"{n} positive lengths in metres") from None
        if len(dims) != n or not all(math.isfinite(x) and x > 0 for x in dims):
            what = "(diameter, height)" if shape == "cylinder" else "(x, y, z)"
            raise InputError(src, "dimensions", f"{n} positive lengths in metres {what}, not {dimensions!r}")
        try:
            J = float(polarization)
        except (TypeError, ValueError):
            raise InputError(src, "polarization", "a number of tesla") from None
        if not math.isfinite(J):
            raise InputError(src, "polarization", "a finite number of tesla")
        pos = np.asarray(position, float)
        if pos.shape != (3,) or not np.all(np.isfinite(pos)):
            raise InputError(src, "position", "3 finite coordinates in metres")
        if orientation is None:
            R = np.eye(3)
        elif hasattr(orientation, "as_matrix"):
            R = np.asarray(orientation.as_matrix(), float)
            if R.shape != (3, 3):
                raise InputError(src, "orientation", "a single scipy Rotation")
        else:
            raise InputError(src, "orientation", "a scipy.spatial.transform.Rotation or None")
        self.shape = shape
        self.dimensions = dims
        self.polarization = J
        self.position = pos
        self.orientation = orientation
        self._R = R

    @property
    def volume(self) -> float:
        """Volume (m³)."""
        return volume(self.shape, self.dimensions)

    @property
    def moment(self) -> np.ndarray:
        """Dipole moment ``J V / μ0`` along the magnet's z axis, shape (3,), A·m²."""
        return self.polarization * self.volume / MU0 * self._R[:, 2]

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest centred sphere that holds the magnet (m)."""
        return bounding_radius(self.shape, self.dimensions)

    def cells(self, level: int = 2):
        """World positions (c, 3) m and moments (c, 3) A·m² of the level-``level`` cells."""
        off, w = cell_rule(self.shape, self.dimensions, rule_nodes(self.shape, self.dimensions, level))
        return self.position + off @ self._R.T, w[:, None] * self.moment

    def __repr__(self) -> str:
        return (f"Magnet(shape={self.shape!r}, dimensions={self.dimensions}, polarization={self.polarization}, "
                f"position={tuple(self.position.tolist())})")


def force_between(a: Magnet, b: Magnet, model: str = "finite", *, cells: int | None = None):
    """Force on magnet b from magnet a and torque on b about b's centre.

    Parameters
    ----------
    a, b : Magnet
    model : {"finite", "dipole"}
        ``"dipole"``: one point dipole per magnet. ``"finite"``: each magnet split into
        quadrature cells (see the module docstring).
    cells : int or None
        Finite model only. None (default): the rule is chosen from the distance
        (:data:`AUTO_LEVELS`; < 1 % error in force and torque down to a clearance of 0.1
        (cylinders) or 0.15 (cuboids) times the largest dimension; 0.3 % at 1 mm face
        clearance of two Ø6×2 mm discs). An int: the coarsest rule with at least this many
        cells per magnet (1 is the dipole).

    Returns
    -------
    force : ndarray, shape (3,), N
    torque : ndarray, shape (3,), N·m

    Raises
    ------
    InputError
        Unknown model, non-positive ``cells``, a or b not a Magnet.
    """
    _check_pair("force_between", a, b, model, cells)
    origin = a.position
    if model == "dipole":
        return dipole_pair_force_torque(b.position - origin, a.moment, b.moment)
    la, lb = _pair_levels_checked(a, b, model, cells)
    pa, ma = a.cells(la)
    pb, mb = b.cells(lb)
    ma_n = float(np.linalg.norm(a.moment))
    mb_n = float(np.linalg.norm(b.moment))
    ua = a.moment / ma_n if ma_n else np.array([0.0, 0.0, 1.0])
    ub = b.moment / mb_n if mb_n else np.array([0.0, 0.0, 1.0])
    wa = ma @ ua
    wb = mb @ ub
    F, T = _cells_wrench((pa - origin)[None], wa[None], ua[None], (pb - origin)[None], wb[None], ub[None], (b.position - origin)[None])
    return F[0], T[0]


def _check_pair(src, a, b, model, cells):
    for key, m in (("a", a), ("b", b)):
        if not isinstance(m, Magnet):
            raise InputError(src, key, "a magdomino.maths.magnets.Magnet")
    if model not in MODELS:
        raise InputError(src, "model", f"one of {', '.join(MODELS)}, not {model!r}")
    if cells is not None and (isinstance(cells, bool) or not isinstance(cells, (int, np.integer)) or cells < 1):
        raise InputError(src, "cells", f"a positive number of cells or None, not {cells!r}")


def _pair_levels_checked(a, b, model, cells):
    if model == "dipole":
        return 0, 0
    if cells is None:
        gamma = clearance(a, b) / max(a.dimensions + b.dimensions)
        level = int(max(auto_level(gamma, a.shape), auto_level(gamma, b.shape)))
        return level, level
    return _level_for_cells(a.shape, a.dimensions, int(cells)), _level_for_cells(b.shape, b.dimensions, int(cells))


def energy_between(a: Magnet, b: Magnet, model: str = "finite", *, cells: int | None = None) -> float:
    """Interaction energy ``U = -Σ m_b·B_a`` of two magnets (J), with the same cells as
    :func:`force_between` (so that its force is ``-∇U`` with respect to b's position)."""
    _check_pair("energy_between", a, b, model, cells)
    la, lb = _pair_levels_checked(a, b, model, cells)
    pa, ma = a.cells(la)
    pb, mb = b.cells(lb)
    B = dipole_field(pb - a.position, pa - a.position, ma)
    return float(-np.einsum("jc,jc->", mb, B))


# --------------------------------------------------------------------------------------
# Batch layer: all the tiles of a construction
# --------------------------------------------------------------------------------------


def quaternions_to_matrices(quaternions) -> np.ndarray:
    """Rotation matrices (n, 3, 3) from unit quaternions (n, 4) in x, y, z, w order."""
    q = np.asarray(quaternions, float)
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    s = 2.0 / (x * x + y * y + z * z + w * w)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    R = np.empty((len(q), 3, 3))
    R[:, 0, 0] = 1 - yy - zz
    R[:, 0, 1] = xy - wz
    R[:, 0, 2] = xz + wy
    R[:, 1, 0] = xy + wz
    R[:, 1, 1] = 1 - xx - zz
    R[:, 1, 2] = yz - wx
    R[:, 2, 0] = xz - wy
    R[:, 2, 1] = yz + wx
    R[:, 2, 2] = 1 - xx - yy
    return R


class TileMagnets:
    """The magnets of one tile type, in the tile frame (origin = tile centre = centre of mass).

    Parameters
    ----------
    positions : array-like, shape (k, 3), m
        Magnet centres in the tile frame.
    axes : array-like, shape (k, 3)
        Magnetisation directions in the tile frame (normalised here). A cuboid's own x axis
        is the tile's x axis turned by the smallest rotation that takes z to ``axis``.
    shapes : sequence of {"cylinder", "cuboid"}, length k
    dimensions : sequence of tuples, m
        Cylinder (diameter, height); cuboid (x, y, z).
    polarizations : array-like, shape (k,), T
    free : array-like of bool, shape (k,)
        The magnet turns in its cavity to follow the field (see the module docstring):
        its direction is the mean field of all the other tiles' magnets over its cells,
        found by ``FREE_ITERATIONS`` (3) Jacobi fixed-point steps starting from ``axes``.
    model : {"finite", "dipole"}
        ``"dipole"``: every pair is two point dipoles (fast, wrong at stacking distances:
        ×1.6 too strong at 8 mm for Ø6×2 mm discs).
    near : float or None, m
        Pairs of magnets whose centres are closer than this use the finite model, the
        others the point dipole. Default ``NEAR_Q`` (12) bounding radii of the largest
        magnet: 37.9 mm for Ø6×2 mm discs, where the dipole errs < 3 % of the coaxial
        force at that distance, worst over orientations (measured 2.6 %, coaxial).
    cutoff : float or None, m
        Pairs of magnets farther apart than this are skipped. Default ``CUTOFF_Q`` (16)
        bounding radii: 50.6 mm for Ø6×2 mm discs, where a pair exerts < 0.15 % of the
        force the same pair exerts coaxially at the 8 mm stacking gap (measured 0.10 %).
    cells : int or None
        None (default): each near pair gets the rule of its clearance (:data:`AUTO_LEVELS`,
        < 1 % error in force and torque; 32 cells per magnet at the 8 mm stacking gap of
        Ø6×2 mm discs, 8 cells from 16 mm on). An int: every near pair uses the coarsest rule with at
        least that many cells per magnet.

    Notes
    -----
    Every pair interaction is a sum of cell-cell dipole interactions, so Newton's third law
    and the conservation of angular momentum hold to rounding, whatever the rules (the batch
    computes each magnet pair once and applies action and reaction).

    Cost (``scripts/bench_magnets.py``): a 28-tile aligned tower of the standard preset has
    54 level-2 pairs (8 mm), 306 level-1 pairs (16-38 mm) and 184 dipole pairs (38-51 mm);
    one call takes about 2-2.5 bare PyBullet steps of the same tower. Free magnets add up
    to ``FREE_ITERATIONS`` field evaluations. An instance keeps work arrays: use one per
    thread. Stepping worlds use :class:`CachedWrenches`, which recomputes only the tile
    pairs whose relative pose moved (:meth:`pair_wrenches`; a few pairs cost a fixed
    ~0.3-0.4 ms, mostly numpy call overhead).
    """

    def __init__(self, positions, axes, shapes, dimensions, polarizations, free, *,
                 model="finite", near=None, cutoff=None, cells=None):
        src = "TileMagnets"
        P = np.asarray(positions, float).reshape(-1, 3) if len(positions) else np.zeros((0, 3))
        k = len(P)
        A = np.asarray(axes, float).reshape(-1, 3) if k else np.zeros((0, 3))
        shapes = list(shapes)
        dims = [tuple(float(x) for x in d) for d in dimensions]
        J = np.asarray(polarizations, float).reshape(-1)
        fr = np.asarray(free, bool).reshape(-1)
        if not (len(A) == len(shapes) == len(dims) == len(J) == len(fr) == k):
            raise InputError(src, "magnets", "positions, axes, shapes, dimensions, polarizations and free of one length")
        if not np.all(np.isfinite(P)) or not np.all(np.isfinite(A)) or not np.all(np.isfinite(J)):
            raise InputError(src, "magnets", "finite positions, axes and polarizations")
        norms = np.linalg.norm(A, axis=1)
        if np.any(norms == 0):
            raise InputError(src, "axes", "non-zero directions")
        A = A / norms[:, None]
        for i, (sh, d) in enumerate(zip(shapes, dims)):
            Magnet(sh, d, J[i])  # checks shape and dimensions
        if model not in MODELS:
            raise InputError(src, "model", f"one of {', '.join(MODELS)}, not {model!r}")
        if cells is not None and (isinstance(cells, bool) or not isinstance(cells, (int, np.integer)) or cells < 1):
            raise InputError(src, "cells", f"a positive number of cells or None, not {cells!r}")
        rho = np.array([bounding_radius(sh, d) for sh, d in zip(shapes, dims)])
        rmax = float(rho.max()) if k else 0.0
        near = NEAR_Q * rmax if near is None else float(near)
        cutoff = CUTOFF_Q * rmax if cutoff is None else float(cutoff)
        if not (near >= 0 and cutoff >= 0):
            raise InputError(src, "near/cutoff", "non-negative distances in metres")
        self.k = k
        self.positions = P
        self.axes = A
        self.shapes = shapes
        self.dimensions = dims
        self.polarizations = J
        self.free = fr
        self.model = model
        self.near = near
        self.cutoff = cutoff
        self.cells = cells
        self.moments = np.array([j * volume(sh, d) / MU0 for j, sh, d in zip(J, shapes, dims)])
        self.frames = np.array([_rotation_z_to(a) for a in A]).reshape(k, 3, 3)
        self.reach = float(np.max(np.linalg.norm(P, axis=1) + rho)) if k else 0.0
        self._sizes = np.array([max(d) for d in dims])
        self._rules: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._any_cuboid = any(sh == "cuboid" for sh in shapes)
        self._work: dict = {}  # work arrays reused between calls (one TileMagnets per thread)
        self._expand: dict = {}  # magnet-pair index arrays per number of tile pairs
        self._uniform = k > 0 and all(sh == shapes[0] and d == dims[0] for sh, d in zip(shapes, dims))
        self._ka = np.repeat(np.arange(k), k)
        self._kb = np.tile(np.arange(k), k)
        cyl = np.array([sh == "cylinder" for sh in shapes], bool)
        self._cyl_radius = np.array([d[0] / 2 if c else 0.0 for d, c in zip(dims, cyl)])
        self._enc_radius = np.array([d[0] / 2 if c else math.hypot(d[0], d[1]) / 2 for d, c in zip(dims, cyl)])
        self._half = np.array([(0.0, 0.0, d[1] / 2) if c else tuple(x / 2 for x in d) for d, c in zip(dims, cyl)]).reshape(k, 3)
        self._fixed_level = None
        if cells is not None:
            self._fixed_level = [_level_for_cells(sh, d, int(cells)) for sh, d in zip(shapes, dims)]

    @classmethod
    def from_specs(cls, specs, **kwargs) -> "TileMagnets":
        """Build from objects with ``.position`` (3,) m, ``.axis`` (3,), ``.shape``,
        ``.dimensions`` (m), ``.polarization`` (T), ``.free`` — e.g. the ``MagnetSpec`` of
        ``preset.tile.magnets``. Keywords pass to the constructor."""
        specs = list(specs)
        return cls(
            [s.position for s in specs], [s.axis for s in specs], [s.shape for s in specs],
            [s.dimensions for s in specs], [s.polarization for s in specs],
            [bool(getattr(s, "free", False)) for s in specs], **kwargs,
        )

    def _rule(self, level: int):
        """Cell offsets (k, c, 3) in the tile frame about each magnet's centre and cell
        moments (k, c) A·m² at ``level``, padded with zero-moment cells to a common c."""
        if level not in self._rules:
            offs, wts = [], []
            for i in range(self.k):
                lv = level
                if self._fixed_level is not None and level > 0:
                    lv = self._fixed_level[i]
                o, w = cell_rule(self.shapes[i], self.dimensions[i], rule_nodes(self.shapes[i], self.dimensions[i], lv))
                offs.append(o @ self.frames[i].T)
                wts.append(w * self.moments[i])
            c = max(len(w) for w in wts)
            O = np.zeros((self.k, c, 3))
            W = np.zeros((self.k, c))
            for i, (o, w) in enumerate(zip(offs, wts)):
                O[i, : len(w)] = o
                W[i, : len(w)] = w
            # float32 halves the cost; its rounding grows with (distance / gap)³ through the
            # expanded sums, so the fine rules of close pairs (level >= 3) stay in float64.
            self._rules[level] = (O, W, W.astype(np.float32) if level <= F32_MAX_LEVEL else W)
        return self._rules[level]

    def _pair_levels(self, R, ti, tj, ka, kb, u, dist, Ua, Ub):
        """Rule level of each magnet pair (0 = dipole), from the clearance bound."""
        if self.model == "dipole":
            return np.zeros(len(dist), np.intp)
        if self._fixed_level is not None:
            lv = np.ones(len(dist), np.intp)
        else:
            # Separating axes (see clearance): the line of centres, with exact supports ...
            pr_a = np.abs(np.einsum("pc,pc->p", u, Ua))  # |u·axis|
            pr_b = np.abs(np.einsum("pc,pc->p", u, Ub))
            # Per-magnet sizes: scalars when all the magnets are alike (fewer gathers).
            one = self._uniform
            rc_a, rc_b = (self._cyl_radius[0],) * 2 if one else (self._cyl_radius[ka], self._cyl_radius[kb])
            h_a, h_b = (self._half[0, 2],) * 2 if one else (self._half[ka, 2], self._half[kb, 2])
            enc_a, enc_b = (self._enc_radius[0],) * 2 if one else (self._enc_radius[ka], self._enc_radius[kb])
            g = dist.copy()
            for t, kk, pr, rc, h in ((ti, ka, pr_a, rc_a, h_a), (tj, kb, pr_b, rc_b, h_b)):
                cz = np.minimum(pr, 1.0)
                g -= rc * np.sqrt(1.0 - cz * cz) + h * cz
                if self._any_cuboid:
                    ul = np.matmul(u[:, None, :], R[t])[:, 0, :]  # u in the tile frame
                    proj = np.abs(np.matmul(ul[:, None, :], self.frames[kk])[:, 0, :])  # |u·e| (magnet frame)
                    cub = self._cyl_radius[kk] == 0
                    g -= np.where(cub, np.einsum("pc,pc->p", proj, self._half[kk]) - self._half[kk, 2] * cz, 0.0)
            # ... and each magnet's axis, with the enclosing cylinder of a cuboid.
            c_ab = np.minimum(np.abs(np.einsum("pc,pc->p", Ua, Ub)), 1.0)
            s_ab = np.sqrt(1.0 - c_ab * c_ab)
            for pr, h_own, enc_other, h_other in ((pr_a, h_a, enc_b, h_b), (pr_b, h_b, enc_a, h_a)):
                gap = pr * dist - h_own - enc_other * s_ab - h_other * c_ab
                g = np.maximum(g, gap)
            if one:
                lv = auto_level(g / self._sizes[0], self.shapes[0])
            else:
                gamma = g / np.maximum(self._sizes[ka], self._sizes[kb])
                lv_cyl = auto_level(gamma, "cylinder")
                lv_cub = auto_level(gamma, "cuboid")
                cyl = self._cyl_radius > 0
                lv = np.maximum(np.where(cyl[ka], lv_cyl, lv_cub), np.where(cyl[kb], lv_cyl, lv_cub))
        lv = np.minimum(lv, BATCH_MAX_LEVEL)
        lv[dist >= self.near] = 0
        return lv

    def wrenches(self, positions, quaternions, active=None):
        """Magnet force and torque on every tile from all the other tiles' magnets.

        Parameters
        ----------
        positions : array-like, shape (n, 3), m
            Tile centres (centres of mass) in the world.
        quaternions : array-like, shape (n, 4)
            Tile orientations, x, y, z, w (PyBullet and scipy order).
        active : array-like of bool, shape (n,), or None
            Inactive tiles neither feel nor make forces. None: all active.

        Returns
        -------
        forces : ndarray, shape (n, 3), N
        torques : ndarray, shape (n, 3), N·m
            About each tile's centre. Magnets of one tile do not act on their own tile.
        """
        X = np.asarray(positions, float).reshape(-1, 3)
        n = len(X)
        if n < 2 or self.k == 0:
            return np.zeros((n, 3)), np.zeros((n, 3))
        ti, tj = self.tile_pairs(X, active)
        if len(ti) == 0:
            return np.zeros((n, 3)), np.zeros((n, 3))
        R = quaternions_to_matrices(np.asarray(quaternions, float).reshape(-1, 4))
        Fj, Tj, Ti, _ = self._pairs(X, R, ti, tj)
        out = _accumulate(n, ti, tj, Fj, Tj, Ti)
        return out[:, :3].copy(), out[:, 3:].copy()

    def tile_pairs(self, positions, active=None, margin: float = 0.0):
        """Tile pairs ``(ti, tj)``, ``ti < tj``, whose centres are closer than ``cutoff + 2
        reach + margin`` (m): the only ones that may hold a magnet pair within the cutoff."""
        X = np.asarray(positions, float).reshape(-1, 3)
        D = X[:, None, :] - X[None, :, :]
        lim = self.cutoff + 2 * self.reach + margin
        close = np.einsum("ijc,ijc->ij", D, D) < lim * lim
        if active is not None:
            act = np.asarray(active, bool)
            close &= act[:, None] & act[None, :]
        return np.nonzero(np.triu(close, 1))

    def pair_wrenches(self, ti, tj, positions, quaternions):
        """The contributions of given tile pairs to the tiles' wrenches.

        Parameters
        ----------
        ti, tj : array-like of int, shape (P,)
            Tile pairs (distinct tiles; each pair once).
        positions, quaternions : as for :meth:`wrenches`

        Returns
        -------
        force_j : ndarray, shape (P, 3), N
            Force on tile ``tj`` from tile ``ti``'s magnets; the force on ``ti`` is ``-force_j``.
        torque_j, torque_i : ndarray, shape (P, 3), N·m
            Torques on ``tj`` and on ``ti``, each about its own centre.
        gap : ndarray, shape (P,), m
            The smallest magnet-centre distance of each pair (whether or not within the cutoff).

        Summed over all pairs of :meth:`tile_pairs` this is :meth:`wrenches`. Free magnets
        are aligned with the field of the given pairs only: pass all the pairs (or use
        :meth:`wrenches`) when the tiles have free magnets.
        """
        X = np.asarray(positions, float).reshape(-1, 3)
        R = quaternions_to_matrices(np.asarray(quaternions, float).reshape(-1, 4))
        return self._pairs(X, R, np.asarray(ti, np.intp).reshape(-1), np.asarray(tj, np.intp).reshape(-1))

    def _pairs(self, X, R, ti_t, tj_t):
        """:meth:`pair_wrenches` with rotation matrices ``R`` (n, 3, 3)."""
        n = len(X)
        k = self.k
        npairs = len(ti_t)
        Fj = np.zeros((npairs, 3))
        Tj = np.zeros((npairs, 3))
        Ti = np.zeros((npairs, 3))
        if npairs == 0 or k == 0:
            return Fj, Tj, Ti, np.full(npairs, np.inf)
        C = X[:, None, :] + np.matmul(R, self.positions.T).transpose(0, 2, 1)  # magnet centres (n, k, 3)
        # Magnet pairs (a in tile ti, b in tile tj), within the cutoff.
        expand = self._expand.get(npairs)
        if expand is None:
            expand = (np.repeat(np.arange(npairs), k * k), np.tile(self._ka, npairs), np.tile(self._kb, npairs))
            if npairs <= 64:  # keep the small ones (most calls of a stepping world)
                self._expand[npairs] = expand
        pid, ka, kb = expand
        ti = ti_t[pid]
        tj = tj_t[pid]
        Ca = C[ti, ka]
        r = C[tj, kb] - Ca
        dist = np.sqrt(np.einsum("pc,pc->p", r, r))
        gap = dist.reshape(npairs, k * k).min(axis=1)
        keep = np.nonzero(dist < self.cutoff)[0]
        if len(keep) == 0:
            return Fj, Tj, Ti, gap
        if len(keep) < len(ti):
            pid, ti, tj, ka, kb, Ca, r, dist = pid[keep], ti[keep], tj[keep], ka[keep], kb[keep], Ca[keep], r[keep], dist[keep]
        AW = np.matmul(R, self.axes.T).transpose(0, 2, 1)  # magnet axes in the world (n, k, 3)
        Ua = AW[ti, ka]
        Ub = AW[tj, kb]
        levels = self._pair_levels(R, ti, tj, ka, kb, r / dist[:, None], dist, Ua, Ub)
        groups = []
        uniq = np.unique(levels) if len(levels) > 64 else sorted(set(levels.tolist()))
        for lv in uniq:
            sel = np.nonzero(levels == lv)[0] if len(uniq) > 1 else np.arange(len(levels))
            if lv == 0:
                groups.append((sel, None, None, None, None, None))
                continue
            O, W, W32 = self._rule(int(lv))
            c = O.shape[1]
            if 2 * len(sel) < n * k:  # few pairs: turn only their magnets' cells
                pa = np.matmul(O[ka[sel]], R[ti[sel]].transpose(0, 2, 1))
                ob = np.matmul(O[kb[sel]], R[tj[sel]].transpose(0, 2, 1))  # b's cells about b's centre
                # Round-off residues (~1e-19 m) would multiply into subnormal float32
                # numbers, which are very slow: make them exact zeros (1 pm is far below any effect).
                pa[np.abs(pa) < 1e-12] = 0.0
                ob[np.abs(ob) < 1e-12] = 0.0
            else:  # every tile's cells once
                Ow = np.matmul(O.reshape(1, k * c, 3), R.transpose(0, 2, 1)).reshape(n, k, c, 3)
                Ow[np.abs(Ow) < 1e-12] = 0.0
                pa = Ow[ti[sel], ka[sel]]
                ob = Ow[tj[sel], kb[sel]]
            groups.append((sel, pa, ob + r[sel][:, None, :] if self.free.any() else None, W, W32, ob))
        if self.free.any():
            Ua, Ub = self._align_free(n, ti, tj, ka, kb, r, groups, Ua, Ub)
        Fb = np.empty((len(ti), 3))
        Tb = np.empty((len(ti), 3))
        Ts, sels = [], []
        cell_groups = [g for g in groups if g[1] is not None]
        small = [g for g in cell_groups if g[4].dtype == np.float32]
        dipoles = [g for g in groups if g[1] is None]
        if small and dipoles and sum(len(g[0]) for g in small + dipoles) <= SMALL_BATCH and not self.free.any():
            # ... and point dipoles as one-cell rules (the same dipole-dipole sums).
            _, W0, W0_32 = self._rule(0)
            sel0 = dipoles[0][0]
            zero = np.zeros((len(sel0), 1, 3))
            small.append((sel0, zero, None, W0, W0_32, zero))
            groups = [g for g in groups if g[1] is not None]
        if len(small) > 1 and sum(len(g[0]) for g in small) <= SMALL_BATCH:
            # Few float32 pairs of several rules: one call, the coarser rules padded with
            # zero-moment cells (which add exact zeros): the fixed cost of a call dominates.
            c = max(g[1].shape[1] for g in small)
            m = sum(len(g[0]) for g in small)
            sel = np.concatenate([g[0] for g in small])
            pa = np.zeros((m, c, 3), np.float32)
            pb = np.zeros((m, c, 3), np.float32)
            wa = np.zeros((m, c), np.float32)
            wb = np.zeros((m, c), np.float32)
            at = 0
            for g in small:
                g_sel, g_pa, g_ob, g_w = g[0], g[1], g[5], g[4]
                e, cc = at + len(g_sel), g_pa.shape[1]
                pa[at:e, :cc] = g_pa
                pb[at:e] = r[g_sel][:, None, :]  # padded b cells at b's centre: none coincide
                pb[at:e, :cc] += g_ob
                wa[at:e, :cc] = g_w[ka[g_sel]]
                wb[at:e, :cc] = g_w[kb[g_sel]]
                at = e
            Ts.append(_cells_moments(pa, wa, Ua[sel], pb, wb, Ub[sel], self._work))
            sels.append(sel)
            cell_groups = [g for g in cell_groups if g[4].dtype != np.float32]
        for sel, pa, pb, W, W32, _ in groups:
            if pa is None:  # point dipoles
                Fb[sel], Tb[sel] = _dipole_pairs(r[sel], Ua[sel] * self.moments[ka[sel], None], Ub[sel] * self.moments[kb[sel], None])
        for sel, pa, pb, W, W32, ob in cell_groups:
            if pb is None:
                pb = ob + r[sel][:, None, :]  # b's cells relative to a's centre
            dt = W32.dtype
            Ts.append(_cells_moments(pa.astype(dt), W32[ka[sel]], Ua[sel], pb.astype(dt), W32[kb[sel]], Ub[sel], self._work))
            sels.append(sel)
        if sels:
            sel = np.concatenate(sels) if len(sels) > 1 else sels[0]
            Fb[sel], Tb[sel] = _pairs_wrench(np.concatenate(Ts) if len(Ts) > 1 else Ts[0], Ua[sel], Ub[sel], r[sel])
        # Action and reaction, angular momentum: τ_a = -τ_b - r × F_b (each about its own
        # magnet centre); then about the tile centres.
        Ta = -Tb - _cross(r, Fb)
        Tb += _cross(Ca + r - X[tj], Fb)
        Ta -= _cross(Ca - X[ti], Fb)
        vals = np.concatenate([Fb, Tb, Ta], axis=1)  # (p, 9)
        idx = pid[:, None] * 9 + np.arange(9)
        out = np.bincount(idx.ravel(), vals.ravel(), minlength=9 * npairs).reshape(npairs, 9)
        return out[:, 0:3], out[:, 3:6], out[:, 6:9], gap

    def _align_free(self, n, ti, tj, ka, kb, r, groups, Ua, Ub):
        """Directions of the free magnets: Jacobi fixed point of m̂ = B̄ / |B̄| (B̄ the mean
        field of all the other tiles' magnets over the magnet's cells)."""
        k = self.k
        ia = ti * k + ka
        ib = tj * k + kb
        dirs = np.zeros((n * k, 3))
        dirs[ia] = Ua
        dirs[ib] = Ub
        is_free = np.tile(self.free, n)
        sign = np.tile(np.where(self.moments < 0, -1.0, 1.0), n)  # the moment is sign × |m| × axis
        # Per level, every (source, destination) direction whose destination is free, both
        # directions of a pair in one batch: source and destination cells relative to the
        # source's centre, magnet kinds and magnet ids.
        pieces = []
        for sel, pa, pb, W, W32, ob in groups:
            fwd = np.nonzero(self.free[kb[sel]])[0]  # a -> b
            bwd = np.nonzero(self.free[ka[sel]])[0]  # b -> a
            if len(fwd) + len(bwd) == 0:
                continue
            s_f, s_b = sel[fwd], sel[bwd]
            src_k = np.concatenate([ka[s_f], kb[s_b]])
            dst_k = np.concatenate([kb[s_f], ka[s_b]])
            src_id = np.concatenate([ia[s_f], ib[s_b]])
            dst_id = np.concatenate([ib[s_f], ia[s_b]])
            rr = np.concatenate([r[s_f], -r[s_b]])
            if pa is None:  # point dipoles
                pieces.append((src_k, dst_k, src_id, dst_id, rr, None))
                continue
            dt = W32.dtype
            src_p = np.concatenate([pa[fwd], ob[bwd]]).astype(dt)
            dst_p = np.concatenate([pb[fwd], pa[bwd] - r[s_b][:, None, :]]).astype(dt)
            pieces.append((src_k, dst_k, src_id, dst_id, rr, (src_p, dst_p, W32[src_k], W32[dst_k], W[dst_k].sum(axis=1))))
        for _ in range(FREE_ITERATIONS):
            Bsum = np.zeros((n * k, 3))
            for src_k, dst_k, src_id, dst_id, rr, cells in pieces:
                src_u = dirs[src_id]
                if cells is None:
                    Bm = dipole_field_pairs(rr, src_u * self.moments[src_k, None])
                else:
                    src_p, dst_p, src_w, dst_w, dst_wsum = cells
                    T = _cells_moments(src_p, src_w, src_u, dst_p, dst_w, dirs[dst_id], self._work)
                    Bm = _pairs_field(T, src_u) / dst_wsum[:, None]
                for cc in range(3):
                    Bsum[:, cc] += np.bincount(dst_id, Bm[:, cc], n * k)
            norm = np.linalg.norm(Bsum, axis=1)
            upd = is_free & (norm > 0)
            new = dirs.copy()
            new[upd] = Bsum[upd] * (sign[upd] / norm[upd])[:, None]
            done = np.allclose(new, dirs, rtol=0, atol=1e-6)
            dirs = new
            if done:
                break
        return dirs[ia], dirs[ib]


UPDATE_REF_DISTANCE = 0.008
"""The magnet-centre distance (m) at which :class:`CachedWrenches` allows its full ``shift``:
a pair of magnets ``d`` apart may move ``shift · d / UPDATE_REF_DISTANCE`` relative to each
other before it is recomputed (the same relative force error at every distance)."""

SHIFT_SENSITIVITY = 5.0
"""Bound on ``|∂F/∂x| · d / F_ax(d)`` for one magnet pair (``F_ax(d) = 6 μ0/4π m_a m_b / d⁴``,
the coaxial dipole force at the centre distance d): measured worst 4.4 (Ø6×2 mm discs, 8 mm,
finite model), 3.2-3.9 from 10 to 50 mm, over offsets and tilts."""

TURN_SENSITIVITY = 2.0
"""Bound on ``|∂F/∂θ| / F_ax(d)`` for one magnet pair turned about its centre: measured worst
1.4 (8 mm), 0.75-1.0 beyond."""


def _pose_matrix_map() -> np.ndarray:
    """(16, 12): the outer product of a unit quaternion (x, y, z, w) with itself, flattened,
    times this map is its rotation matrix as the first three columns of a 3×4 pose."""
    K = np.zeros((16, 12))
    x, y, z, w = range(4)
    terms = {
        (0, 0): [(1, w, w), (1, x, x), (-1, y, y), (-1, z, z)], (0, 1): [(2, x, y), (-2, w, z)], (0, 2): [(2, x, z), (2, w, y)],
        (1, 0): [(2, x, y), (2, w, z)], (1, 1): [(1, w, w), (-1, x, x), (1, y, y), (-1, z, z)], (1, 2): [(2, y, z), (-2, w, x)],
        (2, 0): [(2, x, z), (-2, w, y)], (2, 1): [(2, y, z), (2, w, x)], (2, 2): [(1, w, w), (-1, x, x), (-1, y, y), (1, z, z)],
    }
    for (a, b), ts in terms.items():
        for coef, i, j in ts:
            K[i * 4 + j, a * 4 + b] += coef
    return K


_POSE_MAP = _pose_matrix_map()


def pose_matrices(positions, quaternions) -> np.ndarray:
    """Poses (n, 3, 4) ``[R | x]`` from positions (n, 3) and unit quaternions (n, 4), x, y,
    z, w (a cheaper :func:`quaternions_to_matrices` for the per-step checks; assumes unit
    norm, as PyBullet's are to rounding)."""
    q = np.asarray(quaternions, float)
    n = len(q)
    A = ((q[:, :, None] * q[:, None, :]).reshape(n, 16) @ _POSE_MAP).reshape(n, 3, 4)
    A[:, :, 3] = positions
    return A


class CachedWrenches:
    """Magnet wrenches of a moving construction, recomputed only for the tile pairs whose
    relative pose has changed.

    A pair's wrench depends only on the pose of one tile in the other's frame; in the world
    it turns with them. The cache keeps, per tile pair ``(i, j)`` (``i < j``), its force and
    torques in tile i's frame as of its last computation, with ``s0 = R_iᵀ (x_j - x_i)`` and
    ``M0 = R_iᵀ R_j`` then; at every :meth:`update` it turns them by tile i's current
    orientation and recomputes the pairs whose relative pose has moved on:

    - relative turn ``θ`` (angle between ``R_iᵀ R_j`` and ``M0``) > ``turn``, or
    - magnet displacement bound ``Δ = |R_iᵀ (x_j - x_i) - s0| + θ ρ`` (ρ: the largest
      distance of a magnet centre from its tile's centre) > ``shift · g / UPDATE_REF_DISTANCE``,
      g the pair's smallest magnet-centre distance at its last computation; or, for a pair
      with all its magnets beyond the cutoff (no wrench, whatever the turn), > ``g - cutoff``
      if that is more.

    A common motion of the two tiles (a tower drifting or leaning as a whole) changes nothing.

    Error bound (stated, tested in ``tests/test_world_magnets.py`` against fresh
    computations): each tile pair's cached force differs from a fresh computation with the
    same rules by at most ``ε_F Σ F_ax(d)`` and its torques (about each tile's centre) by
    ``ε_T Σ F_ax(d) (ρ + d)``, sums over its magnet pairs at distance d (``F_ax`` as in
    :data:`SHIFT_SENSITIVITY`), with ``ε_F = SHIFT_SENSITIVITY · shift / UPDATE_REF_DISTANCE
    + TURN_SENSITIVITY · turn`` and ``ε_T = ε_F + turn`` (:meth:`error_bounds`; 0.80 % and
    0.89 % for 0.01 mm and 0.05°). Why: every magnet pair moves by ``Δ <= shift · d /
    UPDATE_REF_DISTANCE`` relative to the other and turns by ``θ <= turn``, and its force
    changes by at most ``|∂F/∂x| Δ + |∂F/∂θ| θ`` (the measured sensitivities); the
    torque about a tile's centre adds the lever (<= ρ) times that and the turned lever,
    and the magnet's own torque changes by < ``(1.4 Δ / d + 0.7 θ) F_ax d`` (measured, as the
    sensitivities). Shifts of 0.01 mm are 0.55 % of the force at the 8 mm stacking gap,
    as before this cache; the model's own error there is 0.04 %. Beyond the bound: when a
    move takes a magnet pair across a rule-level boundary, ``near`` or the cutoff, the
    difference also holds the stated errors of both rules (the model is discontinuous
    there by at most those). Newton's third law holds exactly (both tiles of a pair get
    one turned force); angular momentum to ``|Δs| |F|``, as with any cached force.

    Pairs are tracked if their magnets are within ``cutoff + margin``; when a tile's
    magnets may have moved more than ``margin / 2`` since the set was made (position change
    plus turn times ρ), or the set of active tiles changes, everything is recomputed. With
    free magnets (whose moments depend on the field of all the others) any stale pair
    makes a full recomputation.

    Cost per call: ~15 numpy operations on arrays of the tracked pairs (~45 µs for a
    28-tile tower) plus the recomputed pairs (~0.3-0.4 ms for a few).
    """

    def __init__(self, magnets: "TileMagnets", shift: float, turn: float, margin: float = 0.004):
        self.magnets = magnets
        self.shift = float(shift)
        self.turn = float(turn)
        self.margin = float(margin)
        self.rho = float(np.max(np.linalg.norm(magnets.positions, axis=1))) if magnets.k else 0.0
        # Squared Frobenius norm of R - R' for a turn of ``turn``: 8 sin²(turn / 2); below it,
        # θ <= κ |R - R'|_F / √2 with κ = (turn / 2) / sin(turn / 2) >= 1 (θ / sin(θ / 2) grows).
        self._turn_f = math.sqrt(8) * math.sin(self.turn / 2)
        kappa = (self.turn / 2) / math.sin(self.turn / 2) if self.turn > 0 else 1.0
        self._sum_map = np.zeros((12, 2))
        self._sum_map[[0, 1, 2, 4, 5, 6, 8, 9, 10], 0] = 1.0
        self._sum_map[[3, 7, 11], 1] = 1.0
        # (|ΔR|_F, |Δs|) -> (|ΔR|_F, Δ = |Δs| + θ ρ)
        self._delta_map = np.array([[1.0, kappa * self.rho / math.sqrt(2)], [0.0, 1.0]])
        self.updates = 0  # calls that recomputed anything
        self.pair_updates = 0  # tile pairs recomputed, summed over calls
        self.reset()

    @property
    def pairs(self) -> int:
        """How many tile pairs are tracked."""
        return self._P if self._n >= 0 else 0

    def error_bounds(self) -> tuple[float, float]:
        """``(ε_F, ε_T)`` of the class docstring."""
        eps_f = SHIFT_SENSITIVITY * self.shift / UPDATE_REF_DISTANCE + TURN_SENSITIVITY * self.turn
        return eps_f, eps_f + self.turn

    def reset(self) -> None:
        """Forget everything: the next :meth:`update` recomputes all pairs."""
        self._n = -1
        self._active = None

    def _build(self, A, active):
        n = len(A)
        self._n = n
        self._active = active.copy()
        X = np.ascontiguousarray(A[:, :, 3])
        ti, tj = self.magnets.tile_pairs(X, active, self.margin)
        # Tracked: the pairs with magnets within cutoff + margin (while no magnet moves by
        # margin / 2, the others stay beyond the cutoff: exactly no wrench).
        result = self.magnets._pairs(X, np.ascontiguousarray(A[:, :, :3]), ti, tj)
        keep = np.nonzero(result[3] < self.magnets.cutoff + self.margin)[0]
        ti, tj = ti[keep], tj[keep]
        result = tuple(v[keep] for v in result)
        P = len(ti)
        # Rows P.. of the checks are the tiles against their poses now (tile n of the
        # pose buffer is the world frame): one that moves more than margin / 2 remakes the set.
        live = np.nonzero(active)[0]
        self.I = np.concatenate([ti, np.full(len(live), n)])
        self.J = np.concatenate([tj, live])
        self._P = P
        self.M0h = np.zeros((len(self.I), 4, 4))
        self.M0h[:, 3, 3] = 1.0
        self.M0h[P:, :3] = A[live]
        self.limits = np.zeros((len(self.I), 2))  # relative turn (|ΔR|_F), displacement Δ
        self.limits[P:] = (np.inf, self.margin / 2)
        self.local = np.zeros((P, 3, 3))  # force on j, torque on j, torque on i; in i's frame
        m = len(self.I)
        self._work = (np.empty((m, 3, 4)), np.empty((m, 3, 4)), np.empty((m, 2)), np.empty((m, 2)), np.empty((m, 2), bool))
        self._recompute(A, np.arange(P), result)

    def _recompute(self, A, sel, result=None):
        I, J = self.I[sel], self.J[sel]
        R = np.ascontiguousarray(A[:, :, :3])
        X = np.ascontiguousarray(A[:, :, 3])
        Fj, Tj, Ti, gap = self.magnets._pairs(X, R, I, J) if result is None else result
        RI = R[I]
        full = len(sel) == self._P
        old = self.local[sel]
        new = np.matmul(np.stack([Fj, Tj, Ti], axis=1), RI)  # v @ R_i = R_iᵀ v
        self.local[sel] = new
        self.M0h[sel, :3, :3] = np.matmul(RI.transpose(0, 2, 1), R[J])
        self.M0h[sel, :3, 3] = np.matmul(RI.transpose(0, 2, 1), (X[J] - X[I])[:, :, None])[:, :, 0]
        # A pair with every magnet pair beyond the cutoff has no wrench, exactly, until one
        # comes within it: it may move by the margin it has.
        beyond = gap >= self.magnets.cutoff
        thr = self.shift * gap / UPDATE_REF_DISTANCE
        self.limits[sel, 0] = np.where(beyond, np.inf, self._turn_f)
        self.limits[sel, 1] = np.where(beyond, np.maximum(thr, gap - self.magnets.cutoff), thr)
        # Gt[(u, 0 | 1), (i, b)]: over the pairs of tile i, the force (0) or torque (1) on
        # tile u, component b in i's frame; world wrenches are Gt @ [R_i columns]. Updated
        # by the change of the recomputed pairs' contributions.
        n = self._n
        b = np.arange(3)
        ci = (I * 3)[:, None] + b
        idx = np.concatenate([(J * 2)[:, None] * (3 * n) + ci, (J * 2 + 1)[:, None] * (3 * n) + ci,
                              (I * 2)[:, None] * (3 * n) + ci, (I * 2 + 1)[:, None] * (3 * n) + ci]).ravel()
        if full:
            self._Gt = np.zeros((2 * n, 3 * n))
            old = 0.0
        change = new - old
        vals = np.concatenate([change[:, 0], change[:, 1], -change[:, 0], change[:, 2]]).ravel()
        self._Gt += np.bincount(idx, vals, minlength=6 * n * n).reshape(2 * n, 3 * n)
        self.updates += 1
        self.pair_updates += len(sel)

    def update(self, positions, quaternions, active=None):
        """Forces (n, 3) N and torques (n, 3) N·m on every tile (as
        :meth:`TileMagnets.wrenches`, within the class's error bound), recomputing the
        pairs that moved. ``self.last`` is the number of tile pairs recomputed."""
        X = np.asarray(positions, float).reshape(-1, 3)
        Q = np.asarray(quaternions, float).reshape(-1, 4)
        return self.update_poses(np.concatenate([X, Q], axis=1), active)

    def update_poses(self, poses, active=None):
        """:meth:`update` from poses (n, 7): position (m), quaternion (x, y, z, w)."""
        n = len(poses)
        if n < 2 or self.magnets.k == 0:
            self.last = 0
            return np.zeros((n, 3)), np.zeros((n, 3))
        if n != self._n:
            self._buf = np.zeros((n + 1, 3, 4))  # poses [R | x]; row n: the world frame
            self._buf[n, :, :3] = np.eye(3)
            self._qq = np.empty((n, 4, 4))
        A = self._buf
        q = poses[:, 3:]
        np.multiply(q[:, :, None], q[:, None, :], out=self._qq)
        np.matmul(self._qq.reshape(n, 16), _POSE_MAP, out=A[:n].reshape(n, 12))
        A[:n, :, 3] = poses[:, :3]
        self.last = 0
        if n != self._n or active is not None and not np.array_equal(active, self._active):
            self._build(A[:n], np.ones(n, bool) if active is None else np.asarray(active, bool))
            self.last = self._P
        else:
            # The pose of j in i's frame against M0h, in the world: D = A_j - A_i M0h has
            # |D[:, 3]| = |Δs| and |D[:, :3]|_F = 2√2 sin(θ/2) (θ the relative turn); Δ is
            # bounded by |Δs| + κ ρ |D[:, :3]|_F / √2. Work arrays from _build.
            AJ, AM, sq, E, over = self._work
            np.take(A, self.J, axis=0, out=AJ)
            np.matmul(A.take(self.I, axis=0), self.M0h, out=AM)
            np.subtract(AJ, AM, out=AJ)
            np.multiply(AJ, AJ, out=AJ)
            np.matmul(AJ.reshape(-1, 12), self._sum_map, out=sq)
            np.sqrt(sq, out=sq)
            np.matmul(sq, self._delta_map, out=E)
            np.greater(E, self.limits, out=over)
            if over.any():
                stale = over.any(axis=1)
                if stale[self._P:].any():  # a tile moved more than margin / 2: a new set
                    self._build(A[:n], self._active)
                    self.last = self._P
                else:
                    sel = np.arange(self._P) if self.magnets.free.any() else np.nonzero(stale)[0]
                    self._recompute(A[:n], sel)
                    self.last = len(sel)
        out = (self._Gt @ A[:n, :, :3].transpose(0, 2, 1).reshape(3 * n, 3)).reshape(n, 2, 3)
        return out[:, 0], out[:, 1]


def _accumulate(n, ti, tj, Fj, Tj, Ti):
    """Per-tile sums (n, 6) of force and torque from per-tile-pair contributions."""
    vals = np.concatenate([np.concatenate([Fj, Tj], axis=1), np.concatenate([-Fj, Ti], axis=1)])
    idx = np.concatenate([tj, ti])[:, None] * 6 + np.arange(6)
    return np.bincount(idx.ravel(), vals.ravel(), minlength=6 * n).reshape(n, 6)


def _dipole_pairs(r, ma, mb):
    """:func:`dipole_pair_force_torque` for (P, 3) arrays, with fewer numpy calls."""
    r2 = (r * r).sum(axis=1)
    ir2 = 1.0 / r2
    ir3 = ir2 * np.sqrt(ir2)
    ar = (ma * r).sum(axis=1)
    br = (mb * r).sum(axis=1)
    ab = (ma * mb).sum(axis=1)
    s = (3 * _K) * ir3 * ir2
    F = (s * ar)[:, None] * mb + (s * br)[:, None] * ma + (s * (ab - 5.0 * ar * br * ir2))[:, None] * r
    B = (3 * _K * ar * ir2 * ir3)[:, None] * r - (_K * ir3)[:, None] * ma
    return F, _cross(mb, B)


def dipole_field_pairs(r, moments):
    """B (..., 3) T at offsets r (..., 3) m from dipoles with ``moments`` (..., 3) A·m²."""
    r2 = np.einsum("...i,...i->...", r, r)
    ir2 = 1.0 / r2
    ir3 = ir2 * np.sqrt(ir2)
    mr = np.einsum("...i,...i->...", moments, r)
    return _K * ir3[..., None] * (3 * (mr * ir2)[..., None] * r - moments)
