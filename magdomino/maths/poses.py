"""Poses of rigid bodies: quaternions, rotation matrices, yaw and tilt, box corners, angles.

One module for every part of the package that turns a pose into numbers.

Conventions
-----------
- Quaternions are ``(x, y, z, w)`` (scalar last), as PyBullet and
  ``scipy.spatial.transform.Rotation.from_quat``; they turn body coordinates into world
  coordinates: ``world = R @ body + position``.
- Angles are in radians. :func:`wrap_angle` maps to ``(-π, π]``, the range of ``atan2``.
- A tile is a box of ``size = (length, width, thickness)`` (m) centred on its position.

Only numpy: ``import magdomino`` stays light.
"""

from __future__ import annotations

import math

import numpy as np

CORNER_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
"""(8, 3): the corners of the box ``[-1, 1]³``, x slowest."""


def _pose_map() -> np.ndarray:
    """(16, 12): the outer product of a unit quaternion (x, y, z, w) with itself, flattened,
    times this map is its rotation matrix as the first three columns of a 3×4 pose (one
    matrix product for a whole batch)."""
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


_POSE_MAP = _pose_map()


def pose_matrices(positions, quaternions, out=None) -> np.ndarray:
    """Poses ``[R | x]`` of n bodies.

    Parameters
    ----------
    positions : array-like, shape (n, 3) or (3,), m
    quaternions : array-like, shape (n, 4)
        Unit quaternions (x, y, z, w); not normalised here (PyBullet's are unit to
        rounding). Use :func:`quaternion_matrices` for arbitrary ones.
    out : ndarray, shape (n, 3, 4), C-contiguous, optional
        Where to write (the per-step magnet cache reuses one).

    Returns
    -------
    ndarray, shape (n, 3, 4)
        Columns 0-2 the rotation matrix, column 3 the position.
    """
    q = np.asarray(quaternions, float)
    n = len(q)
    if out is None:
        out = np.empty((n, 3, 4))
    elif not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    np.matmul((q[:, :, None] * q[:, None, :]).reshape(n, 16), _POSE_MAP, out=out.reshape(n, 12))
    out[:, :, 3] = positions
    return out


def quaternion_matrices(quaternions) -> np.ndarray:
    """Rotation matrices of quaternions (x, y, z, w), normalised first.

    Parameters
    ----------
    quaternions : array-like, shape (..., 4)
        Non-zero.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``R`` with ``world = R @ body``.
    """
    q = np.asarray(quaternions, float)
    flat = q.reshape(-1, 4)
    flat = flat / np.linalg.norm(flat, axis=1)[:, None]
    return pose_matrices(0.0, flat)[:, :, :3].reshape(q.shape[:-1] + (3, 3))


def yaw_quaternion(yaw: float) -> np.ndarray:
    """Quaternion (x, y, z, w) of a turn by ``yaw`` radians about the vertical, shape (4,)."""
    return np.array([0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)])


def quaternion_yaw(q) -> float:
    """Yaw (rad, in ``(-π, π]``) of a quaternion (x, y, z, w): the heading of the body's x axis."""
    x, y, z, w = q
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def tilt_angles(quaternions: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Angle (rad, in ``[0, π]``) between each body's z axis and its reference z axis.

    Parameters
    ----------
    quaternions, reference : ndarray, shape (n, 4), x, y, z, w

    Returns
    -------
    ndarray, shape (n,)
    """
    return tilts_from(quaternions, z_axes(reference))


def tilts_from(quaternions, z_reference) -> np.ndarray:
    """:func:`tilt_angles` against reference z axes (n, 3) already computed (a settle checks
    the same references many times)."""
    return np.arccos(np.clip(np.einsum("ij,ij->i", z_axes(quaternions), z_reference), -1.0, 1.0))


def z_axes(quaternions) -> np.ndarray:
    """Unit z axes (n, 3) of bodies with orientations ``quaternions`` (n, 4), x, y, z, w
    (normalised here): the third column of each rotation matrix."""
    q = np.asarray(quaternions, float)
    x, y, z, w = q.T
    out = np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), w * w - x * x - y * y + z * z], axis=1)
    return out / np.einsum("ij,ij->i", q, q)[:, None]


def rotation_angles(quaternions: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Total rotation angle (rad, in ``[0, π]``) from each reference orientation.

    Parameters
    ----------
    quaternions, reference : ndarray, shape (n, 4), x, y, z, w; unit

    Returns
    -------
    ndarray, shape (n,)
    """
    dots = np.abs(np.sum(quaternions * reference, axis=1))
    return 2 * np.arccos(np.clip(dots, -1.0, 1.0))


def box_corners(positions, quaternions, size) -> np.ndarray:
    """The 8 corners of boxes of ``size`` centred at ``positions``, turned by ``quaternions``.

    Parameters
    ----------
    positions : array-like, shape (..., 3), m
    quaternions : array-like, shape (..., 4), x, y, z, w
    size : array-like, shape (3,), m
        Full side lengths.

    Returns
    -------
    ndarray, shape (..., 8, 3), m
        In the order of :data:`CORNER_SIGNS`.
    """
    R = quaternion_matrices(quaternions)
    local = CORNER_SIGNS * (np.asarray(size, dtype=float) / 2)
    return np.asarray(positions, dtype=float)[..., None, :] + local @ np.swapaxes(R, -1, -2)


def top_face_height(positions, quaternions, size):
    """Height (m) of the highest corner of boxes at these poses (see :func:`box_corners`):
    a float for one box, shape (...,) for many."""
    top = box_corners(positions, quaternions, size)[..., 2].max(axis=-1)
    return float(top) if top.ndim == 0 else top


def wrap_angle(angle: float) -> float:
    """``angle`` (rad) plus a multiple of 2π, in ``(-π, π]``."""
    a = math.fmod(angle + math.pi, 2 * math.pi)
    if a <= 0:
        a += 2 * math.pi
    return a - math.pi
