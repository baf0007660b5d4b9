"""Raw layer: point dipoles (arrays in, arrays out, no checks; SI units).

One formula for the field and one for the force and torque of a point dipole, shared by
the raw API (:func:`dipole_field`, :func:`dipole_force_torque`) and the batch
(:class:`~magdomino.maths.magnets.batch.TileMagnets`, which calls
:func:`dipole_pair_force_torque` and :func:`dipole_field_pairs` on (P, 3) arrays).
"""

from __future__ import annotations

import math

import numpy as np

MU0 = 4e-7 * math.pi
"""Vacuum permeability μ0 (T·m/A)."""

MU0_OVER_4PI = MU0 / (4 * math.pi)
"""μ0 / 4π = 1e-7 T·m/A, the factor of every dipole field."""

_EPS9 = np.zeros((3, 3, 3))
_EPS9[0, 1, 2] = _EPS9[1, 2, 0] = _EPS9[2, 0, 1] = 1.0
_EPS9[0, 2, 1] = _EPS9[2, 1, 0] = _EPS9[1, 0, 2] = -1.0
_EPS9 = _EPS9.reshape(3, 9).T.copy()  # (a ⊗ b) flattened @ _EPS9 = a × b


def cross3(a, b):
    """Cross product of (..., 3) arrays (faster than np.cross for small arrays)."""
    if a.ndim == 2 and a.shape == b.shape and len(a) <= 64:  # one outer product, one matmul
        return (a[:, :, None] * b[:, None, :]).reshape(len(a), 9) @ _EPS9
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def _dipole_terms(r, moments):
    """``(1/r², 1/r³, m·r, B)`` of dipoles ``moments`` at offsets ``r`` (..., 3), m; B in T."""
    ir2 = 1.0 / (r * r).sum(axis=-1)
    ir3 = ir2 * np.sqrt(ir2)
    mr = (moments * r).sum(axis=-1)
    B = (3 * MU0_OVER_4PI * mr * ir2 * ir3)[..., None] * r - (MU0_OVER_4PI * ir3)[..., None] * moments
    return ir2, ir3, mr, B


def dipole_field_pairs(r, moments):
    """Flux density of dipoles at offsets from them, pair by pair (broadcasting).

    Parameters
    ----------
    r : ndarray, shape (..., 3), m
        Field point minus dipole position. Must be non-zero.
    moments : ndarray, shape (..., 3), A·m²

    Returns
    -------
    B : ndarray, shape (..., 3), T
        ``μ0/4π (3 r (m·r)/r⁵ - m/r³)``.
    """
    return _dipole_terms(np.asarray(r, float), np.asarray(moments, float))[3]


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
        Force on b: ``3 μ0/4π [(m_a·r) m_b + (m_b·r) m_a + (m_a·m_b - 5 (m_a·r)(m_b·r)/r²) r] / r⁵``.
    torque : ndarray, shape (..., 3), N·m
        ``m_b × B_a(r_b)``, the torque on b about its own position.
    """
    r = np.asarray(r, float)
    ma = np.asarray(moments_a, float)
    mb = np.asarray(moments_b, float)
    ir2, ir3, ar, B = _dipole_terms(r, ma)
    br = (mb * r).sum(axis=-1)
    ab = (ma * mb).sum(axis=-1)
    s = (3 * MU0_OVER_4PI) * ir3 * ir2
    F = (s * ar)[..., None] * mb + (s * br)[..., None] * ma + (s * (ab - 5.0 * ar * br * ir2))[..., None] * r
    return F, cross3(mb, B)


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
        Sum of :func:`dipole_field_pairs` over the dipoles.
    """
    r = np.asarray(points, float)[:, None, :] - np.asarray(positions, float)[None, :, :]
    return dipole_field_pairs(r, np.asarray(moments, float)[None, :, :]).sum(axis=1)


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
