"""Batch layer: the magnet force and torque on every tile of a construction
(:class:`TileMagnets`), called by the physics world before each step."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.magnets.dipole import MU0, cross3, dipole_field_pairs
from magdomino.maths.magnets.finite import cells_moments, pairs_field, rules_wrench
from magdomino.maths.magnets.magnet import Magnet, check_model_cells
from magdomino.maths.magnets.quadrature import (
    Sizes,
    auto_level,
    bounding_radius,
    cell_rule,
    clearance_bound,
    level_for_cells,
    magnet_sizes,
    rotation_z_to,
    rule_nodes,
    volume,
)
from magdomino.maths.poses import quaternion_matrices

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
"""Finite-model levels up to this one run the field sums of free magnets in float32 (relative
rounding ~1e-5 at γ >= 0.6); finer levels, used only for close pairs, in float64."""

FREE_ITERATIONS = 3
"""Fixed-point iterations for the directions of free magnets that see each other."""


class Rule(NamedTuple):
    """The cells of every magnet of a tile at one level, padded with zero-moment cells to a
    common count c."""

    offsets: np.ndarray
    """(k, c, 3) m: cell offsets about each magnet's centre, tile frame."""
    moments: np.ndarray
    """(k, c) A·m², float64."""
    moments_sums: np.ndarray
    """(k, c) A·m² in the dtype the field sums of free magnets run in (float32 up to
    ``F32_MAX_LEVEL``)."""


class PairGroup(NamedTuple):
    """The magnet pairs of one rule level, with their cells, for the fields of free magnets
    (:meth:`TileMagnets._free_groups`; positions relative to magnet a's centre, world axes)."""

    sel: np.ndarray
    """(p,) indices into the magnet-pair arrays."""
    cells_a: np.ndarray | None
    """(p, c, 3) m, a's cells about a's centre; None: point dipoles (and so the rest)."""
    cells_b: np.ndarray | None
    """(p, c, 3) m, b's cells relative to a's centre."""
    rule: Rule | None
    offsets_b: np.ndarray | None
    """(p, c, 3) m, b's cells about b's centre."""


class FreeCells(NamedTuple):
    """Cells of one batch of (source, destination) magnet pairs for :meth:`TileMagnets._align_free`."""

    src: np.ndarray
    """(p, c, 3) m, source cells relative to the source's centre."""
    dst: np.ndarray
    """(p, c, 3) m, destination cells relative to the source's centre."""
    src_moments: np.ndarray
    dst_moments: np.ndarray
    """(p, c) A·m², in the dtype of the cell sums."""
    dst_total: np.ndarray
    """(p,) the destination's cell moments summed (float64), to turn a sum into a mean."""


class FreePiece(NamedTuple):
    """Every (source, destination) direction of one level whose destination is free."""

    src_k: np.ndarray
    dst_k: np.ndarray
    """(p,) magnet kinds (index in the tile)."""
    src_id: np.ndarray
    dst_id: np.ndarray
    """(p,) magnet ids (tile × k + kind)."""
    r: np.ndarray
    """(p, 3) m, destination centre minus source centre."""
    cells: FreeCells | None
    """None: point dipoles."""


_SHARED_RULES: dict = {}
"""Rules of :meth:`TileMagnets._rule` by (magnets, level), shared between instances: the one
process-wide cache of the magnet model, kept because it pays (making a level's rules took
~2 ms of each world's first magnet computation, and an odds trial makes a world) and safe
because it is a memo: a rule is a pure function of its key, read-only once made (a race
makes the same rule twice)."""


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
    54 level-2 pairs (8 mm), 306 level-1 pairs (16-38 mm) and 184 dipole pairs (38-51 mm).
    The cell sums of every magnet pair run in one compiled call
    (:func:`~magdomino.maths.magnets.finite.rules_wrench`); free magnets add up to
    ``FREE_ITERATIONS`` field evaluations. An instance keeps work arrays: use one per
    thread. Stepping worlds use :class:`CachedWrenches`, which recomputes only the tile
    pairs whose relative pose moved (:meth:`pair_wrenches`; a few pairs with their
    Jacobians cost ~0.3 ms, most of it the array operations around the compiled sums).
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
        check_model_cells(src, model, cells)
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
        self.frames = np.array([rotation_z_to(a) for a in A]).reshape(k, 3, 3)
        self.reach = float(np.max(np.linalg.norm(P, axis=1) + rho)) if k else 0.0
        self._sizes = np.array([max(d) for d in dims])
        self._rules: dict[int, Rule] = {}
        self._stack = None  # every rule up to the finest used yet, padded (see _stacked_rules)
        self._any_cuboid = any(sh == "cuboid" for sh in shapes)
        self._work: dict = {}  # work arrays reused between calls (one TileMagnets per thread)
        self._expand: dict = {}  # magnet-pair index arrays per number of tile pairs
        self._uniform = k > 0 and all(sh == shapes[0] and d == dims[0] for sh, d in zip(shapes, dims))
        self._ka = np.repeat(np.arange(k), k)
        self._kb = np.tile(np.arange(k), k)
        self._size = magnet_sizes(shapes, dims)
        self._fixed_level = None
        if cells is not None:
            self._fixed_level = [level_for_cells(sh, d, int(cells)) for sh, d in zip(shapes, dims)]
        fixed = tuple(self._fixed_level) if self._fixed_level is not None else None
        self._rules_key = (tuple(shapes), tuple(dims), J.tobytes(), A.tobytes(), k, fixed)

    @classmethod
    def from_specs(cls, specs, **kwargs) -> TileMagnets:
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
        moments (k, c) A·m² at ``level``, padded with zero-moment cells to a common c.

        Shared (read-only) by every instance of the same magnets: a world builds its own
        TileMagnets, and making the rules (Gauss-Legendre nodes among them) took ~2 ms of
        each world's first magnet computation."""
        if level not in self._rules:
            key = (self._rules_key, level)
            rule = _SHARED_RULES.get(key)
            if rule is None:
                rule = _SHARED_RULES[key] = self._make_rule(level)
            self._rules[level] = rule
        return self._rules[level]

    def _stacked_rules(self, top: int):
        """Every rule up to level ``top`` in one padded array, for :func:`rules_wrench`:
        offsets (top + 1, k, c, 3) m, moments (top + 1, k, c) A·m², cells per level
        (shared by the instances of the same magnets, as the rules are)."""
        stack = self._stack
        if stack is None or len(stack[2]) <= top:
            key = (self._rules_key, "stack", top)
            stack = _SHARED_RULES.get(key)
            if stack is None:
                rules = [self._rule(lv) for lv in range(top + 1)]
                c = max(rule.offsets.shape[1] for rule in rules)
                offsets = np.zeros((top + 1, self.k, c, 3))
                moments = np.zeros((top + 1, self.k, c))
                for lv, rule in enumerate(rules):
                    offsets[lv, :, : rule.offsets.shape[1]] = rule.offsets
                    moments[lv, :, : rule.moments.shape[1]] = rule.moments
                stack = _SHARED_RULES[key] = (offsets, moments, np.array([rule.offsets.shape[1] for rule in rules], np.intp))
            self._stack = stack
        return stack

    def _make_rule(self, level: int) -> Rule:
        offs, wts = [], []
        for i in range(self.k):
            lv = level
            if self._fixed_level is not None and level > 0:
                lv = self._fixed_level[i]
            o, w = cell_rule(self.shapes[i], self.dimensions[i], rule_nodes(self.shapes[i], self.dimensions[i], lv))
            offs.append(o @ self.frames[i].T)
            wts.append(w * self.moments[i])
        c = max(len(w) for w in wts)
        offsets = np.zeros((self.k, c, 3))
        W = np.zeros((self.k, c))
        for i, (o, w) in enumerate(zip(offs, wts)):
            offsets[i, : len(w)] = o
            W[i, : len(w)] = w
        # float32 halves the cost; its rounding grows with (distance / gap)³ through the
        # expanded sums, so the fine rules of close pairs (level >= 3) stay in float64.
        rule = Rule(offsets, W, W.astype(np.float32) if level <= F32_MAX_LEVEL else W)
        for a in rule:
            a.flags.writeable = False
        return rule

    def _pair_levels(self, R, ti, tj, ka, kb, u, dist, Ua, Ub):
        """Rule level of each magnet pair (0 = dipole), from the clearance bound."""
        if self.model == "dipole":
            return np.zeros(len(dist), np.intp)
        if self._fixed_level is not None:
            lv = np.ones(len(dist), np.intp)
        else:
            # Per-magnet sizes: scalars when all the magnets are alike (fewer gathers).
            size = self._size
            one = self._uniform
            if one:
                sa = sb = Sizes(size.cyl_radius[0], size.half_z[0], size.enc_radius[0])
            else:
                sa = Sizes(size.cyl_radius[ka], size.half_z[ka], size.enc_radius[ka])
                sb = Sizes(size.cyl_radius[kb], size.half_z[kb], size.enc_radius[kb])
            frames = None
            if self._any_cuboid:
                sa, sb = sa._replace(half=size.half[ka]), sb._replace(half=size.half[kb])
                frames = ((R[ti], self.frames[ka]), (R[tj], self.frames[kb]))
            g = clearance_bound(dist, u, Ua, Ub, sa, sb, frames)
            if one:
                lv = auto_level(g / self._sizes[0], self.shapes[0])
            else:
                gamma = g / np.maximum(self._sizes[ka], self._sizes[kb])
                lv_cyl = auto_level(gamma, "cylinder")
                lv_cub = auto_level(gamma, "cuboid")
                cyl = size.cyl_radius > 0
                lv = np.maximum(np.where(cyl[ka], lv_cyl, lv_cub), np.where(cyl[kb], lv_cyl, lv_cub))
        lv = np.minimum(lv, BATCH_MAX_LEVEL)
        lv[dist >= self.near] = 0
        return lv

    def wrenches(self, positions, quaternions, active=None, involving=None):
        """Magnet force and torque on every tile from all the other tiles' magnets.

        Parameters
        ----------
        positions : array-like, shape (n, 3), m
            Tile centres (centres of mass) in the world.
        quaternions : array-like, shape (n, 4)
            Tile orientations, x, y, z, w (PyBullet and scipy order).
        active : array-like of bool, shape (n,), or None
            Inactive tiles neither feel nor make forces. None: all active.
        involving : array-like of bool, shape (n,), or None
            Only the pairs with at least one of these tiles (e.g. a tile added to structures
            whose own wrenches are known: the rest add up pair by pair). None: every pair.

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
        if involving is not None:
            inv = np.asarray(involving, bool)
            keep = inv[ti] | inv[tj]
            ti, tj = ti[keep], tj[keep]
        if len(ti) == 0:
            return np.zeros((n, 3)), np.zeros((n, 3))
        R = quaternion_matrices(np.asarray(quaternions, float).reshape(-1, 4))
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
        R = quaternion_matrices(np.asarray(quaternions, float).reshape(-1, 4))
        return self._pairs(X, R, np.asarray(ti, np.intp).reshape(-1), np.asarray(tj, np.intp).reshape(-1))

    def _pairs(self, X, R, ti_t, tj_t, tied: int = 1):
        """:meth:`pair_wrenches` with rotation matrices ``R`` (n, 3, 3).

        ``tied`` > 1: the tile pairs come in runs of ``tied`` (the same pair at nearby
        poses, for finite differences) whose magnet pairs all take the first pose's choices
        (within the cutoff or not, rule level): the differences then measure the motion,
        never a change of rule.
        """
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
        within = dist < self.cutoff
        if tied > 1:
            within = np.repeat(within.reshape(-1, tied, k * k)[:, :1], tied, axis=1).ravel()
        keep = np.nonzero(within)[0]
        if len(keep) == 0:
            return Fj, Tj, Ti, gap
        if len(keep) < len(ti):
            pid, ti, tj, ka, kb, Ca, r, dist = pid[keep], ti[keep], tj[keep], ka[keep], kb[keep], Ca[keep], r[keep], dist[keep]
        AW = np.matmul(R, self.axes.T).transpose(0, 2, 1)  # magnet axes in the world (n, k, 3)
        Ua = AW[ti, ka]
        Ub = AW[tj, kb]
        levels = self._pair_levels(R, ti, tj, ka, kb, r / dist[:, None], dist, Ua, Ub)
        if tied > 1:  # each magnet pair takes the level of its run's first pose
            full = np.zeros(npairs * k * k, levels.dtype)
            full[keep] = levels
            levels = full[keep - (pid % tied) * (k * k)]
        if self.free.any():  # their directions first, from the field of all the others
            Ua, Ub = self._align_free(n, R, ti, tj, ka, kb, r, levels, Ua, Ub)
        # One compiled call over every magnet pair (point dipoles are the one-cell rule of
        # level 0), direct sums in float64.
        Fb = np.empty((len(ti), 3))
        Tb = np.empty((len(ti), 3))
        rules_wrench(levels.astype(np.intp, copy=False), ka, kb, R[ti], R[tj], r, Ua, Ub,
                      *self._stacked_rules(int(levels.max())), Fb, Tb)
        # Action and reaction, angular momentum: τ_a = -τ_b - r × F_b (each about its own
        # magnet centre); then about the tile centres.
        Ta = -Tb - cross3(r, Fb)
        Tb += cross3(Ca + r - X[tj], Fb)
        Ta -= cross3(Ca - X[ti], Fb)
        vals = np.concatenate([Fb, Tb, Ta], axis=1)  # (p, 9)
        idx = pid[:, None] * 9 + np.arange(9)
        out = np.bincount(idx.ravel(), vals.ravel(), minlength=9 * npairs).reshape(npairs, 9)
        return out[:, 0:3], out[:, 3:6], out[:, 6:9], gap

    def _free_groups(self, n, R, ti, tj, ka, kb, r, levels) -> list[PairGroup]:
        """The magnet pairs by rule level, with their cells (world axes), for :meth:`_align_free`."""
        k = self.k
        groups: list[PairGroup] = []
        uniq = np.unique(levels) if len(levels) > 64 else sorted(set(levels.tolist()))
        for lv in uniq:
            sel = np.nonzero(levels == lv)[0] if len(uniq) > 1 else np.arange(len(levels))
            if lv == 0:
                groups.append(PairGroup(sel, None, None, None, None))
                continue
            rule = self._rule(int(lv))
            offsets = rule.offsets
            c = offsets.shape[1]
            if 2 * len(sel) < n * k:  # few pairs: turn only their magnets' cells
                pa = np.matmul(offsets[ka[sel]], R[ti[sel]].transpose(0, 2, 1))
                ob = np.matmul(offsets[kb[sel]], R[tj[sel]].transpose(0, 2, 1))  # b's cells about b's centre
                # Round-off residues (~1e-19 m) would multiply into subnormal float32
                # numbers, which are very slow: make them exact zeros (1 pm is far below any effect).
                pa[np.abs(pa) < 1e-12] = 0.0
                ob[np.abs(ob) < 1e-12] = 0.0
            else:  # every tile's cells once
                Ow = np.matmul(offsets.reshape(1, k * c, 3), R.transpose(0, 2, 1)).reshape(n, k, c, 3)
                Ow[np.abs(Ow) < 1e-12] = 0.0
                pa = Ow[ti[sel], ka[sel]]
                ob = Ow[tj[sel], kb[sel]]
            groups.append(PairGroup(sel, pa, ob + r[sel][:, None, :], rule, ob))
        return groups

    def _align_free(self, n, R, ti, tj, ka, kb, r, levels, Ua, Ub):
        """Directions of the free magnets: Jacobi fixed point of m̂ = B̄ / |B̄| (B̄ the mean
        field of all the other tiles' magnets over the magnet's cells)."""
        groups = self._free_groups(n, R, ti, tj, ka, kb, r, levels)
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
        pieces: list[FreePiece] = []
        for sel, pa, pb, rule, ob in groups:
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
                pieces.append(FreePiece(src_k, dst_k, src_id, dst_id, rr, None))
                continue
            W, W32 = rule.moments, rule.moments_sums
            dt = W32.dtype
            src_p = np.concatenate([pa[fwd], ob[bwd]]).astype(dt)
            dst_p = np.concatenate([pb[fwd], pa[bwd] - r[s_b][:, None, :]]).astype(dt)
            pieces.append(FreePiece(src_k, dst_k, src_id, dst_id, rr,
                                    FreeCells(src_p, dst_p, W32[src_k], W32[dst_k], W[dst_k].sum(axis=1))))
        for _ in range(FREE_ITERATIONS):
            Bsum = np.zeros((n * k, 3))
            for src_k, _dst_k, src_id, dst_id, rr, cells in pieces:
                src_u = dirs[src_id]
                if cells is None:
                    Bm = dipole_field_pairs(rr, src_u * self.moments[src_k, None])
                else:
                    T = cells_moments(cells.src, cells.src_moments, src_u, cells.dst, cells.dst_moments, dirs[dst_id], self._work)
                    Bm = pairs_field(T, src_u) / cells.dst_total[:, None]
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


def _accumulate(n, ti, tj, Fj, Tj, Ti):
    """Per-tile sums (n, 6) of force and torque from per-tile-pair contributions."""
    vals = np.concatenate([np.concatenate([Fj, Tj], axis=1), np.concatenate([-Fj, Ti], axis=1)])
    idx = np.concatenate([tj, ti])[:, None] * 6 + np.arange(6)
    return np.bincount(idx.ravel(), vals.ravel(), minlength=6 * n).reshape(n, 6)
