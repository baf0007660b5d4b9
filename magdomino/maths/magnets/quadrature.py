"""Raw layer: quadrature rules of the finite model, their levels and the clearance bound
that picks them (arrays in, arrays out, no checks; SI units)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.polynomial.legendre import leggauss as roots_legendre  # scipy.special costs 0.2 s to import

SHAPES = ("cylinder", "cuboid")

AUTO_LEVELS: dict[str, tuple[tuple[float, int], ...]] = {
    "cylinder": ((0.1, 9), (0.15, 7), (0.2, 5), (0.4, 3), (1.6, 2)),
    "cuboid": ((0.2, 9), (0.3, 7), (0.4, 5), (0.6, 3), (2.0, 2)),
}
"""Per shape, ``(γ_max, level)``: the finite-model rule used when ``γ = g / L < γ_max``
(first match); beyond the last entry, level 1. ``g`` is the clearance bound of
:func:`clearance_bound` and ``L`` the largest dimension of the two magnets; a pair uses the
finer of its two magnets' levels. Calibrated so that the force and torque err < 1 % (of
the force's magnitude, torque against force × L) down to γ = 0.1 for cylinders and
γ = 0.15 for cuboids (package docstring)."""


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


def level_for_cells(shape, dimensions, cells: int) -> int:
    """The coarsest level whose rule has at least ``cells`` cells."""
    level = 0
    while level < 40:
        if math.prod(rule_nodes(shape, dimensions, level)) >= cells:
            return level
        level += 1
    return level


class Sizes(NamedTuple):
    """What :func:`clearance_bound` needs of magnets' shapes: scalars (all alike) or arrays
    of shape (P,) per pair, m."""

    cyl_radius: np.ndarray | float
    """Cylinder radius; 0 for a cuboid."""
    half_z: np.ndarray | float
    """Half the extent along the magnetisation axis (support along its own axis)."""
    enc_radius: np.ndarray | float
    """Radius of the cylinder about the axis that holds the magnet (a cuboid's half diagonal)."""
    half: np.ndarray | None = None
    """Half sides (P, 3) in the magnet's frame (cylinder: (0, 0, h/2)); needed for cuboids."""


def magnet_sizes(shapes: Sequence[str], dimensions: Sequence[Sequence[float]]) -> Sizes:
    """:class:`Sizes` arrays of shape (k,) (half: (k, 3)) of k magnets."""
    cyl = [sh == "cylinder" for sh in shapes]
    half = np.array([(0.0, 0.0, d[1] / 2) if c else tuple(x / 2 for x in d) for d, c in zip(dimensions, cyl)]).reshape(-1, 3)
    return Sizes(
        cyl_radius=np.array([d[0] / 2 if c else 0.0 for d, c in zip(dimensions, cyl)]),
        half_z=half[:, 2],
        enc_radius=np.array([d[0] / 2 if c else math.hypot(d[0], d[1]) / 2 for d, c in zip(dimensions, cyl)]),
        half=half,
    )


def clearance_bound(dist, u, axis_a, axis_b, size_a: Sizes, size_b: Sizes, frames=None):
    """A lower bound of the gap between the magnets of P pairs, by separating axes.

    Along a unit vector n the gap is at least ``|r·n| - h_a(n) - h_b(n)`` (h: support
    functions); the best of n = the line of centres (exact supports), a's axis and b's axis
    (there a cuboid is bounded by its enclosing cylinder about its axis). Exact for coaxial,
    stacked parallel and side-by-side pairs of cylinders; negative when it cannot prove a gap.

    Parameters
    ----------
    dist : ndarray, shape (P,), m
        Centre distances (> 0).
    u : ndarray, shape (P, 3)
        Unit vectors from a's centre to b's.
    axis_a, axis_b : ndarray, shape (P, 3)
        Unit magnetisation axes in the world.
    size_a, size_b : Sizes
        Per pair (or scalars when all the magnets are alike).
    frames : None or ((tile_a, magnet_a), (tile_b, magnet_b))
        None when no magnet is a cuboid. Else, per side, rotations (P, 3, 3) whose product
        ``tile @ magnet`` is the magnet's frame in the world (columns x, y, z = axis).

    Returns
    -------
    ndarray, shape (P,), m
    """
    pr_a = np.abs(np.einsum("pc,pc->p", u, axis_a))  # |u·axis|
    pr_b = np.abs(np.einsum("pc,pc->p", u, axis_b))
    g = dist.copy()
    for i, (pr, s) in enumerate(((pr_a, size_a), (pr_b, size_b))):
        cz = np.minimum(pr, 1.0)
        g -= s.cyl_radius * np.sqrt(1.0 - cz * cz) + s.half_z * cz
        if frames is not None:  # a cuboid's exact support: Σ |u·e_j| half_j
            tile, magnet = frames[i]
            ul = np.matmul(u[:, None, :], tile)[:, 0, :]
            proj = np.abs(np.matmul(ul[:, None, :], magnet)[:, 0, :])  # |u·e| (magnet frame)
            cub = s.cyl_radius == 0
            g -= np.where(cub, np.einsum("pc,pc->p", proj, s.half) - s.half[..., 2] * cz, 0.0)
    c_ab = np.minimum(np.abs(np.einsum("pc,pc->p", axis_a, axis_b)), 1.0)
    s_ab = np.sqrt(1.0 - c_ab * c_ab)
    for pr, own, other in ((pr_a, size_a, size_b), (pr_b, size_b, size_a)):
        gap = pr * dist - own.half_z - other.enc_radius * s_ab - other.half_z * c_ab
        g = np.maximum(g, gap)
    return g


def clearance(a, b) -> float:
    """:func:`clearance_bound` of two :class:`~magdomino.maths.magnets.Magnet` (m);
    ``-inf`` for coincident centres."""
    r = b.position - a.position
    d = float(np.linalg.norm(r))
    if d == 0:
        return -math.inf
    sa, sb = (magnet_sizes([m.shape], [m.dimensions]) for m in (a, b))
    frames = None
    if "cuboid" in (a.shape, b.shape):
        frames = ((np.eye(3)[None], a._R[None]), (np.eye(3)[None], b._R[None]))
    g = clearance_bound(np.array([d]), (r / d)[None], a._R[None, :, 2], b._R[None, :, 2], sa, sb, frames)
    return float(g[0])


def rotation_z_to(axis) -> np.ndarray:
    """The smallest rotation matrix taking +z to the unit vector ``axis``."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    c = a[2]
    if c < -1 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    v = np.array([-a[1], a[0], 0.0])  # z × a
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx / (1 + c)
