"""Contact polygons between flat tiles and with the table, for :mod:`magdomino.physics.statics`.

Every tile must lie flat (its z axis within :data:`TILT_TOLERANCE_DEG` of the vertical, either
way up); it is then taken as exactly flat at its centre's height and yaw. A tile's bottom face
touches the table (z = 0) or a tile's top face when their heights differ by less than
:data:`GAP_TOLERANCE_M`; the contact polygon is the intersection of the two footprints
(:func:`clip_convex`, Sutherland-Hodgman on convex polygons, numpy only). End and side faces
touch when antiparallel (within :data:`SIDE_ANGLE_DEG`), within :data:`SIDE_GAP_M` and
overlapping; the contact is the overlap rectangle in the vertical plane.

:func:`proved_in_cones` shows, for many contacts at once, that a wrench lies in a contact's
friction cone by building the vertex forces (the statics' shortcut before its fits).

Units: m; angles in degrees at the boundary (tolerances, messages).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import cross3
from magdomino.maths.poses import quaternion_matrices

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


# -- geometry -----------------------------------------------------------------------------


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
    R = quaternion_matrices(np.asarray(quaternions, float).reshape(-1, 4))  # columns: body axes
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
    subject, clip : array_like, shape (k, 2)
        Vertices, counter-clockwise.

    Returns
    -------
    ndarray, shape (m, 2)
        The intersection's vertices, counter-clockwise (m = 0 when they do not overlap).
    """
    poly = _clip(np.asarray(subject, float).tolist(), np.asarray(clip, float).tolist())
    return np.array(poly) if poly else np.zeros((0, 2))


def _clip(out: list, clip: list) -> list:
    """:func:`clip_convex` on lists of [x, y] (plain floats: a few µs, not numpy's overhead)."""
    m = len(clip)
    for e in range(m):
        if not out:
            return []
        (ax, ay), (bx, by) = clip[e], clip[(e + 1) % m]
        ex, ey = bx - ax, by - ay
        pts = out
        out = []
        side = [ex * (p[1] - ay) - ey * (p[0] - ax) for p in pts]  # >= 0: inside (left)
        k_last = len(pts) - 1
        for k in range(len(pts)):
            p = pts[k]
            q = pts[0] if k == k_last else pts[k + 1]
            sp = side[k]
            sq = side[0] if k == k_last else side[k + 1]
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    # Clipping a corner exactly on an edge repeats vertices; drop repeats.
    out = [p for k, p in enumerate(out) if abs(p[0] - out[k - 1][0]) + abs(p[1] - out[k - 1][1]) > 1e-9]
    return out if len(out) >= 3 else []


def _width(poly: list) -> float:
    """Width (m) of a polygon (list of [x, y]): its area over its longest chord (the
    thickness of a sliver; a little less than the short side of a rectangle)."""
    if len(poly) < 3:
        return 0.0
    area2 = abs(sum(poly[k - 1][0] * p[1] - p[0] * poly[k - 1][1] for k, p in enumerate(poly)))
    chord = max(math.hypot(p[0] - q[0], p[1] - q[1]) for p in poly for q in poly)
    return area2 / (2 * chord)


def _thin(poly: list) -> bool:
    """Is a polygon narrower than MIN_CONTACT_M?"""
    return _width(poly) < MIN_CONTACT_M


def find_contacts(positions, quaternions, size, *, fixed=None, tile: int | None = None) -> list[Contact]:
    """Contact polygons between flat tiles, and between tiles and the table (z = 0).

    Parameters
    ----------
    positions : array_like, shape (n, 3), m
    quaternions : array_like, shape (n, 4), x, y, z, w
    size : array_like, shape (3,), m
    fixed : array_like of bool, shape (n,), or None
        Fixed tiles (contacts between two fixed tiles are left out).
    tile : int or None
        Only the contacts of this tile (e.g. a candidate added to a structure whose own
        contacts are known); None: all.

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
    mine = np.ones(n, bool)
    if tile is not None:
        mine[:] = False
        mine[tile] = True
    sunk = np.nonzero((bottom < -GAP_TOLERANCE_M) & mine)[0]
    if len(sunk):
        i = int(sunk[0])
        raise InputError("poses", f"tile {i}", f"statics cannot judge this: tile {i} is {-bottom[i] * 1000:.2f} mm inside the table")
    for i in np.nonzero((bottom < GAP_TOLERANCE_M) & ~fixed & mine)[0]:
        pts = np.column_stack([corners[i], np.zeros(4)])
        contacts.append(Contact(-1, int(i), pts, up, "table"))
    reach = float(np.hypot(size[0], size[1])) + SIDE_GAP_M
    dxy = np.linalg.norm(P[:, None, :2] - P[None, :, :2], axis=2)
    dz = P[None, :, 2] - P[:, None, 2]  # dz[i, j] = z_j - z_i
    near = (dxy < reach) & ~(fixed[:, None] & fixed[None, :]) & (mine[:, None] | mine[None, :])
    np.fill_diagonal(near, False)
    cl = corners.tolist()
    # j on i: j's bottom within the gap tolerance of i's top.
    for i, j in zip(*np.nonzero(near & (np.abs(dz - t) < GAP_TOLERANCE_M))):
        poly = _clip(cl[j], cl[i])
        if _thin(poly):
            continue
        z = 0.5 * (top[i] + bottom[j])
        contacts.append(Contact(int(i), int(j), np.array([(x, y, z) for x, y in poly]), up, "stack"))
    # Side by side or end to end: the z ranges overlap by more than the gap tolerance.
    cos_tol = math.cos(math.radians(SIDE_ANGLE_DEG))
    for i, j in zip(*np.nonzero(np.triu(near & (np.abs(dz) < t - GAP_TOLERANCE_M), 1))):
        # Two tiles inside each other are no pose of rigid tiles: refuse, never judge them.
        depth = _width(_clip(cl[j], cl[i]))
        if depth > SIDE_GAP_M:
            raise InputError(
                "poses", f"tiles {i} and {j}",
                f"statics cannot judge this: tiles {i} and {j} overlap by {depth * 1000:.2f} mm (rigid tiles cannot)",
            )
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


def cone_proofs(contacts) -> list:
    """What :func:`proved_in_cones` needs of each contact (independent of the loads), grouped
    by vertex count.

    Parameters
    ----------
    contacts : list of (vertices (V, 3) m, normal (3,) of the force on the carried body,
        friction (V,), the carried body's centre (3,) m)

    Returns
    -------
    list of (indices (G,), vertices (G, V, 3), normals (G, 3), friction (G, V), centroids
    (G, 3), vertices from them (G, V, 3), their Σ|r|² (G,), pseudo-inverses (G, V, 4) of the
    normal forces' equations, centres (G, 3)), one per vertex count V >= 2
    """
    by_count: dict[int, list] = {}
    for k, item in enumerate(contacts):
        by_count.setdefault(len(item[0]), []).append((k, *item))
    out = []
    for V, items in by_count.items():
        if V < 2:
            continue
        idx = np.array([it[0] for it in items])
        P, n, mu, centre = (np.array([it[j] for it in items], float) for j in (1, 2, 3, 4))
        centroid = P.mean(axis=1)
        r = P - centroid[:, None, :]
        A = np.concatenate([np.ones((len(items), 1, V)), np.swapaxes(cross3(r, n[:, None, :]), 1, 2)], axis=1)  # (G, 4, V)
        out.append((idx, P, n, mu, centroid, r, np.einsum("gvi,gvi->g", r, r), np.linalg.pinv(A), centre))
    return out


def proved_in_cones(proofs, W, tolerance, length: float, directions: int) -> np.ndarray:
    """Contacts whose wrench ``W`` (k, 6: force, torque / ``length``, on the carried body about
    its centre, to be balanced) is shown inside their friction cones by an explicit solution
    (bool, (k,)); the others are undecided (a fit decides them).

    The contact must supply the force ``F = -W[:3]`` and the torque ``-W[3:] length``. Normal
    forces ``N_i`` at the vertices: the least-norm solution of their sum and their moments about
    the centroid; tangential forces ``F_t N_i / F_n`` (the sideways force shared as the normal
    one) plus a twist ``k n × r_i`` for the moment about the normal. When every ``N_i >= 0`` and
    ``|t_i| <= μ cos(π / directions) N_i`` (the circle inside each vertex's friction pyramid of
    ``directions`` edges), each vertex force is a non-negative combination of that vertex's
    pyramid edges; when they sum to the wrench within ``tolerance`` (k,), that is a solution.
    """
    proved = np.zeros(len(W), bool)
    inside = math.cos(math.pi / directions)
    for idx, P, n, mu, centroid, r, r2, pinv, centre in proofs:
        F = -W[idx, :3]
        tau = -W[idx, 3:] * length
        M = tau + cross3(centre - centroid, F)
        Fn = np.einsum("gi,gi->g", F, n)
        Mn = np.einsum("gi,gi->g", M, n)
        N = np.maximum(np.einsum("gvj,gj->gv", pinv, np.column_stack([Fn, M - Mn[:, None] * n])), 0.0)
        t = (N / np.where(Fn > 0, Fn, 1.0)[:, None])[:, :, None] * (F - Fn[:, None] * n)[:, None, :]
        k = (Mn - np.einsum("gvi,gi->g", cross3(r, t), n)) / np.where(r2 > 0, r2, 1.0)
        t = t + k[:, None, None] * cross3(n[:, None, :], r)  # the twist: n × r_i, in the plane
        f = N[:, :, None] * n[:, None, :] + t
        ok = (Fn > 0) & (r2 > 0) & np.all(np.linalg.norm(t, axis=2) <= inside * mu * N, axis=1)
        residual = np.hstack([f.sum(axis=1) - F, (cross3(P - centre[:, None, :], f).sum(axis=1) - tau) / length])
        proved[idx] = ok & (np.linalg.norm(residual, axis=1) <= tolerance[idx])
    return proved
