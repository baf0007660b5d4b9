"""Raw layer: the finite model, point dipoles at the cells of quadrature rules, summed as
moment sums over the cells of both magnets (see the package docstring, "How the finite
model is computed"), and the same sums written out directly and compiled for the batch
(:func:`rules_wrench`). Arrays in, arrays out, no checks; SI units at the interface."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from magdomino.maths.magnets.dipole import MU0_OVER_4PI, cross3


def _combination_matrix():
    """The sparse linear map from the moment sums T (see :func:`cells_moments`) to the 24
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
    for axis in range(3):  # 14-16: Σ q × p / r⁵
        _, m, n = eps[axis]
        combos.append([(1, (0, 1 + m, 1, 0, 1 + n)), (-1, (0, 1 + n, 1, 0, 1 + m))])
    for axis in range(3):  # 17-19: Σ q × (α β p-part) / r⁷, i.e. ε q_m g_n
        _, m, n = eps[axis]
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


def cells_moments(pa, wa, ua, pb, wb, ub, work=None):
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


def pairs_field(S, ua):
    """Σ_j w_j B_a(q_j) (T·A·m²) from :func:`cells_moments` (divide by Σ w_j for the mean)."""
    return MU0_OVER_4PI * (3.0 * S[:, 20:23] - S[:, 23:24] * ua)


def _pairs_wrench(S, ua, ub, cb):
    """Stage 2 of the finite model: force on b and torque on b about ``cb``.

    ``S`` from :func:`cells_moments`; ``ua``, ``ub`` (P, 3) unit directions; ``cb`` (P, 3)
    m, b's centre relative to a's. With ``r = q_j - p_i``, ``α = ua·r``, ``β = ub·r``:
    ``F = 3 μ0/4π Σ_ij w_i w_j [(α ub + β ua + (ua·ub) r) / r⁵ - 5 α β r / r⁷]``,
    ``τ = Σ_j (q_j - cb) × F_j + ub × Σ_j w_j B_a(q_j)``.
    """
    ab = np.einsum("pc,pc->p", ua, ub)[:, None]
    F = (3 * MU0_OVER_4PI) * (S[:, 0:1] * ub + S[:, 1:2] * ua + ab * S[:, 2:5] - 5.0 * S[:, 5:8])
    qxF = (3 * MU0_OVER_4PI) * (cross3(S[:, 8:11], ub) + cross3(S[:, 11:14], ua) - ab * S[:, 14:17] + 5.0 * S[:, 17:20])
    torque = qxF - cross3(cb, F) + cross3(ub, pairs_field(S, ua))
    return F, torque


def cells_wrench(pa, wa, ua, pb, wb, ub, cb):
    """Finite-model force on b from a and torque on b about ``cb`` for P pairs.

    ``pa (P,Na,3)``, ``pb (P,Nb,3)`` m relative to a's centre; ``wa (P,Na)``, ``wb (P,Nb)``
    A·m²; ``ua``, ``ub`` (P,3) unit directions; ``cb (P,3)`` m. Returns (P,3) N, (P,3) N·m.
    """
    return _pairs_wrench(cells_moments(pa, wa, ua, pb, wb, ub), ua, ub, cb)


# -- the same sums, compiled and direct (fixed magnets of a batch) ---------------------------

_FASTMATH = {"reassoc", "contract"}  # sums may be reordered and vectorised; no other licence


@njit("void(intp[::1], intp[::1], intp[::1], float64[:, :, ::1], float64[:, :, ::1], float64[:, ::1], float64[:, ::1], "
      "float64[:, ::1], float64[:, :, :, ::1], float64[:, :, ::1], intp[::1], float64[:, ::1], float64[:, ::1])",
      cache=True, nogil=True, fastmath=_FASTMATH)
def rules_wrench(level, ka, kb, Ra, Rb, r, ua, ub, offsets, moments, counts, force, torque):
    # long: one numba kernel (direct sums over the cell pairs) with its NumPy parameter list
    """Finite-model force on magnet b and torque on b about its centre, for P magnet pairs
    whose cells are rules of their tiles (direct sums over the cell pairs).

    Parameters
    ----------
    level, ka, kb : ndarray of intp, shape (P,)
        The pair's rule level, and the magnets' kinds (index in their tiles).
    Ra, Rb : ndarray, shape (P, 3, 3)
        Orientations of a's and b's tiles (tile frame to world).
    r : ndarray, shape (P, 3), m
        b's centre minus a's centre.
    ua, ub : ndarray, shape (P, 3)
        Unit moment directions, world axes.
    offsets : ndarray, shape (L, k, c, 3), m
        Per level and magnet kind, the cell offsets about the magnet's centre (tile frame).
    moments : ndarray, shape (L, k, c), A·m²
        The cell moments (0 for padding cells).
    counts : ndarray of intp, shape (L,)
        Cells used per level (a magnet of fewer cells is padded with zero moments).
    force, torque : ndarray, shape (P, 3), N and N·m (written)

    Notes
    -----
    With ``r = q_j - p_i``, ``α = ua·r``, ``β = ub·r``: ``F = 3 μ0/4π Σ_ij w_i w_j [(α ub +
    β ua + (ua·ub) r) / r⁵ - 5 α β r / r⁷]`` and ``τ = Σ_j (q_j - c_b) × F_j + w_j ub ×
    B_a(q_j)``, ``B_a(q) = μ0/4π Σ_i w_i (3 α r / r⁵ - ua / r³)``: what
    :func:`cells_moments` and :func:`_pairs_wrench` give, summed directly in float64 (for
    the few pairs a moving construction recomputes, the ~40 array operations of those cost
    more than the arithmetic).
    """
    c = offsets.shape[2]
    # a's cells by coordinate (contiguous, so that the inner sum vectorises)
    pax = np.empty(c)
    pay = np.empty(c)
    paz = np.empty(c)
    wa = np.empty(c)
    ob = np.empty((c, 3))
    for p in range(level.shape[0]):
        lv = level[p]
        n = counts[lv]
        a_k = ka[p]
        b_k = kb[p]
        for i in range(n):  # cells in world axes: a's about a's centre, b's about b's
            ox, oy, oz = offsets[lv, a_k, i, 0], offsets[lv, a_k, i, 1], offsets[lv, a_k, i, 2]
            pax[i] = Ra[p, 0, 0] * ox + Ra[p, 0, 1] * oy + Ra[p, 0, 2] * oz
            pay[i] = Ra[p, 1, 0] * ox + Ra[p, 1, 1] * oy + Ra[p, 1, 2] * oz
            paz[i] = Ra[p, 2, 0] * ox + Ra[p, 2, 1] * oy + Ra[p, 2, 2] * oz
            wa[i] = moments[lv, a_k, i]
            for d in range(3):
                ob[i, d] = (Rb[p, d, 0] * offsets[lv, b_k, i, 0] + Rb[p, d, 1] * offsets[lv, b_k, i, 1]
                            + Rb[p, d, 2] * offsets[lv, b_k, i, 2])
        uax, uay, uaz = ua[p, 0], ua[p, 1], ua[p, 2]
        ubx, uby, ubz = ub[p, 0], ub[p, 1], ub[p, 2]
        ab = uax * ubx + uay * uby + uaz * ubz
        Fx = Fy = Fz = 0.0
        Tx = Ty = Tz = 0.0
        for j in range(n):
            wb = moments[lv, b_k, j]
            if wb == 0.0:
                continue
            qx = r[p, 0] + ob[j, 0]
            qy = r[p, 1] + ob[j, 1]
            qz = r[p, 2] + ob[j, 2]
            fx = fy = fz = 0.0  # Σ_i of the force's bracket at q_j
            bx = by = bz = 0.0  # Σ_i of the field's bracket at q_j
            for i in range(n):
                rx = qx - pax[i]
                ry = qy - pay[i]
                rz = qz - paz[i]
                inv2 = 1.0 / (rx * rx + ry * ry + rz * rz)
                inv3 = inv2 * math.sqrt(inv2)
                inv5 = inv3 * inv2
                al = uax * rx + uay * ry + uaz * rz
                be = ubx * rx + uby * ry + ubz * rz
                c1 = wa[i] * inv5
                c2 = c1 * (ab - 5.0 * al * be * inv2)
                fx += c1 * (al * ubx + be * uax) + c2 * rx
                fy += c1 * (al * uby + be * uay) + c2 * ry
                fz += c1 * (al * ubz + be * uaz) + c2 * rz
                c3 = 3.0 * c1 * al
                c4 = wa[i] * inv3
                bx += c3 * rx - c4 * uax
                by += c3 * ry - c4 * uay
                bz += c3 * rz - c4 * uaz
            s = 3.0 * MU0_OVER_4PI * wb
            fx *= s
            fy *= s
            fz *= s
            Fx += fx
            Fy += fy
            Fz += fz
            # (q_j - c_b) × F_j + w_j ub × B_a(q_j)
            Tx += ob[j, 1] * fz - ob[j, 2] * fy + MU0_OVER_4PI * wb * (uby * bz - ubz * by)
            Ty += ob[j, 2] * fx - ob[j, 0] * fz + MU0_OVER_4PI * wb * (ubz * bx - ubx * bz)
            Tz += ob[j, 0] * fy - ob[j, 1] * fx + MU0_OVER_4PI * wb * (ubx * by - uby * bx)
        force[p, 0] = Fx
        force[p, 1] = Fy
        force[p, 2] = Fz
        torque[p, 0] = Tx
        torque[p, 1] = Ty
        torque[p, 2] = Tz
