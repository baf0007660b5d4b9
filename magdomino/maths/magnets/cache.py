"""Magnet wrenches of a moving construction, recomputed only for the tile pairs whose
relative pose has changed (:class:`CachedWrenches`, used by the physics world)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from magdomino.maths.magnets.batch import TileMagnets
from magdomino.maths.poses import pose_matrices

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


LINEAR_SENSITIVITY = 10.0
"""Bound on the first-order remainder of one tile pair, ``|F - F_lin| / Σ F_ax(d)`` over
``(Δ / d)²`` (Δ the magnets' displacement bound as for the thresholds, d their distance):
the coaxial point dipole's own along its axis (``F ∝ d⁻⁴``: ``F''/2 = 10 F / d²``; 4 across).
Finite magnets are softer: measured 3.7 (8 mm gap), 5.1 (10 mm), 6.9 (15 mm) along the axis,
at most 4.2 over random poses 8-30 mm apart with shifts and turns up to the band."""

RECOMPUTE_EARLY = 0.5
"""A pair recomputed for another's sake when it has moved by this share of its thresholds
(band, or zero-order ones without): the fixed cost of a computation (~0.2 ms of array
operations around the compiled sums) is shared."""

LINEAR_FD_ERROR = 5e-4
"""Bound on what the forward differences add over the band, relative to ``Σ F_ax(d)``."""

FD_SHIFT = 1e-5
"""Forward-difference step (m) of a pair's Jacobian in shift: 1/800 of the 8 mm stacking gap
(truncation ~ F'' h Δ / 2 < 0.03 % of the coaxial force over the band; the rounding of the
float64 cell sums, ~1e-13 F, over h: negligible)."""

FD_TURN = 1e-3
"""Forward-difference step (rad) of a pair's Jacobian in turn (moves magnets by ~12 µm)."""

_FD_STEPS = np.array([FD_SHIFT] * 3 + [FD_TURN] * 3)


def _turns(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[[1, 0, 0], [0, c, -s], [0, s, c]], [[c, 0, s], [0, 1, 0], [-s, 0, c]], [[c, -s, 0], [s, c, 0], [0, 0, 1]]])


_FD_TURNS = _turns(FD_TURN)[None]


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

    First-order band (``linear=(shift1, turn1)``, larger than ``shift`` and ``turn``): with
    each computation the pair's Jacobian is taken too (forward differences, the seven poses
    sharing their rule levels); a pair moved beyond ``shift``/``turn`` but within
    ``shift1``/``turn1`` (scaled alike) follows it, ``W(s0, M0) + J (Δs, ω)``, and is
    recomputed only beyond those. A sliding tile costs a computation every ``shift1``
    instead of every ``shift``. Error: the remainder, ``LINEAR_SENSITIVITY (shift1 /
    UPDATE_REF_DISTANCE)² + LINEAR_FD_ERROR`` of the scale below (0.68 % at 0.2 mm, within the zero-order bound), for
    forces and torques alike (torques measured at half of it); angular momentum is
    balanced at the pose now, Newton's third law holds exactly.

    Error bound (stated, tested in ``tests/physics/test_world_magnets.py`` against fresh
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
    one turned force), and so does the conservation of angular momentum (see
    :func:`_assemble`).

    Pairs are tracked if their magnets are within ``cutoff + margin``; when a tile's
    magnets may have moved more than ``margin / 2`` since the set was made (position change
    plus turn times ρ), or the set of active tiles changes, everything is recomputed. With
    free magnets (whose moments depend on the field of all the others) any stale pair
    makes a full recomputation.

    Cost per call: two compiled loops over the tracked pairs (:func:`_check_pairs`,
    :func:`_assemble`: a few µs for a small construction, ~10 µs for a 28-tile tower) plus
    the recomputed pairs (~0.3 ms for a few with their Jacobians, mostly the array
    operations around the compiled cell sums).
    """

    def __init__(self, magnets: TileMagnets, shift: float, turn: float, margin: float = 0.004,
                 linear: tuple[float, float] | None = None):
        self.magnets = magnets
        self.shift = float(shift)
        self.turn = float(turn)
        # First-order band (see the class docstring): off with free magnets, whose moments
        # depend on every other tile.
        self.linear = None
        if linear is not None and not magnets.free.any() and (linear[0] > self.shift or linear[1] > self.turn):
            self.linear = (max(float(linear[0]), self.shift), max(float(linear[1]), self.turn))
            self._turn_f1 = math.sqrt(8) * math.sin(self.linear[1] / 2)
        self.linear_updates = 0  # tile pairs moved by their Jacobian, summed over calls
        # Largest change of a position coordinate (m) and of a quaternion component since
        # the call before (inf after a new set): how far anything moved, for the world's idling.
        self.motion_shift = self.motion_turn = math.inf
        self.margin = float(margin)
        self.rho = float(np.max(np.linalg.norm(magnets.positions, axis=1))) if magnets.k else 0.0
        # Squared Frobenius norm of R - R' for a turn of ``turn``: 8 sin²(turn / 2); below it,
        # θ <= κ |R - R'|_F / √2 with κ = (turn / 2) / sin(turn / 2) >= 1 (θ / sin(θ / 2) grows).
        self._turn_f = math.sqrt(8) * math.sin(self.turn / 2)
        kappa = (self.turn / 2) / math.sin(self.turn / 2) if self.turn > 0 else 1.0
        # Δ = |Δs| + θ ρ <= |Δs| + κ ρ |ΔR|_F / √2
        self._turn_lever = kappa * self.rho / math.sqrt(2)
        self.updates = 0  # calls that recomputed anything
        self.pair_updates = 0  # tile pairs recomputed, summed over calls
        self.reset()

    @property
    def pairs(self) -> int:
        """How many tile pairs are tracked."""
        return self._P if self._n >= 0 else 0

    def error_bounds(self) -> tuple[float, float]:
        """``(ε_F, ε_T)`` of the class docstring (the larger of the zero-order bound and,
        with a first-order band, its remainder bound)."""
        eps_f = SHIFT_SENSITIVITY * self.shift / UPDATE_REF_DISTANCE + TURN_SENSITIVITY * self.turn
        eps_t = eps_f + self.turn
        if self.linear is not None:
            eps_1 = LINEAR_SENSITIVITY * (self.linear[0] / UPDATE_REF_DISTANCE) ** 2 + LINEAR_FD_ERROR
            eps_f, eps_t = max(eps_f, eps_1), max(eps_t, eps_1)
        return eps_f, eps_t

    def reset(self) -> None:
        """Forget everything: the next :meth:`update` recomputes all pairs."""
        self._n = -1
        self._active = None
        self._masked = False

    def _build(self, A, active):
        n = len(A)
        self._n = n
        self._active = active.copy()
        self._masked = not active.all()
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
        self.limits1 = self.limits.copy()  # the same, for the first-order band
        self.local = np.zeros((P, 3, 3))  # force on j, torque on j, torque on i; in i's frame
        # First-order band (empty, unused without): local at the last computation, its
        # Jacobian ∂ local / ∂ (s, ω) there, and which pairs have moved off it.
        self.base = np.zeros((P, 3, 3))
        self.jac = np.zeros((P, 9, 6))
        self.in_band = np.zeros(P, bool)
        self._stale = np.zeros(len(self.I), bool)
        self._used = np.zeros(len(self.I))
        self._moved = np.zeros((P, 3))
        self._recompute(A, np.arange(P), result)

    def _recompute(self, A, sel, result=None):
        ti, tj = self.I[sel], self.J[sel]
        R = np.ascontiguousarray(A[:, :, :3])
        X = np.ascontiguousarray(A[:, :, 3])
        RI = R[ti]
        M0 = np.matmul(RI.transpose(0, 2, 1), R[tj])
        s0 = np.matmul(RI.transpose(0, 2, 1), (X[tj] - X[ti])[:, :, None])[:, :, 0]
        if self.linear is not None:
            new, gap, self.jac[sel] = self._local_and_jacobian(s0, M0)
            self.base[sel] = new
            self.in_band[sel] = False
        else:
            Fj, Tj, Ti, gap = self.magnets._pairs(X, R, ti, tj) if result is None else result
            new = np.matmul(np.stack([Fj, Tj, Ti], axis=1), RI)  # v @ R_i = R_iᵀ v
        self.M0h[sel, :3, :3] = M0
        self.M0h[sel, :3, 3] = s0
        # A pair with every magnet pair beyond the cutoff has no wrench, exactly, until one
        # comes within it: it may move by the margin it has.
        beyond = gap >= self.magnets.cutoff
        thr = self.shift * gap / UPDATE_REF_DISTANCE
        self.limits[sel, 0] = np.where(beyond, np.inf, self._turn_f)
        self.limits[sel, 1] = np.where(beyond, np.maximum(thr, gap - self.magnets.cutoff), thr)
        if self.linear is not None:
            thr1 = self.linear[0] * gap / UPDATE_REF_DISTANCE
            self.limits1[sel, 0] = np.where(beyond, np.inf, self._turn_f1)
            self.limits1[sel, 1] = np.where(beyond, np.maximum(thr, gap - self.magnets.cutoff), thr1)
        self.local[sel] = new
        self.updates += 1
        self.pair_updates += len(sel)

    def _local_and_jacobian(self, s0, M0):
        """Local wrenches (p, 3, 3) of pairs with tile j at ``s0`` (p, 3), ``M0`` (p, 3, 3) in
        tile i's frame, their gaps (p,), and Jacobians (p, 9, 6) with respect to a shift of
        j (i's axes) and a turn of j about its centre (rotation vector, i's axes): forward
        differences of :data:`FD_SHIFT` and :data:`FD_TURN`, in one call whose seven poses
        per pair share their rule levels (the differences see the motion, not a rule)."""
        p = len(s0)
        Xj = np.repeat(s0[:, None, :], 7, axis=1)
        Xj[:, 1:4] += FD_SHIFT * np.eye(3)
        Rj = np.repeat(M0[:, None], 7, axis=1)
        Rj[:, 4:7] = np.matmul(_FD_TURNS, M0[:, None])
        X = np.concatenate([np.zeros((1, 3)), Xj.reshape(-1, 3)])
        R = np.concatenate([np.eye(3)[None], Rj.reshape(-1, 3, 3)])
        ti = np.zeros(7 * p, np.intp)
        tj = np.arange(1, 7 * p + 1)
        Fj, Tj, Ti, gap = self.magnets._pairs(X, R, ti, tj, tied=7)
        local = np.stack([Fj, Tj, Ti], axis=1).reshape(p, 7, 9)
        jac = (local[:, 1:] - local[:, :1]).transpose(0, 2, 1) / _FD_STEPS
        return local[:, 0].reshape(p, 3, 3), gap.reshape(p, 7)[:, 0], jac

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
            self.motion_shift = self.motion_turn = math.inf
            return np.zeros((n, 3)), np.zeros((n, 3))
        if n != self._n:
            self._buf = np.zeros((n + 1, 3, 4))  # poses [R | x]; row n: the world frame
            self._buf[n, :, :3] = np.eye(3)
        A = self._buf
        poses = np.ascontiguousarray(poses, dtype=float)
        self.last = 0
        if n != self._n or (active is None and self._masked) or (active is not None and not np.array_equal(active, self._active)):
            self._previous = poses.copy()
            self.motion_shift = self.motion_turn = math.inf
            pose_matrices(poses[:, :3], poses[:, 3:], out=A[:n])
            self._build(A[:n], np.ones(n, bool) if active is None else np.asarray(active, bool))
            self.last = self._P
        else:
            stale, moved = self._stale, self._moved
            limits1 = self.limits1 if self.linear is not None else self.limits
            band, over, self.motion_shift, self.motion_turn = _check_pairs(
                poses, self._previous, A, self.I, self.J, self.M0h, self.limits, limits1, self._turn_lever,
                self._P, self.base, self.jac, self.local, self.in_band, stale, moved, self._used)
            self.linear_updates += band
            if over:
                if stale[self._P:].any():  # a tile moved more than margin / 2: a new set
                    self._build(A[:n], self._active)
                    self.last = self._P
                else:
                    # With the stale pairs, those past half their band: they would be
                    # due soon, and one call costs little more for a few pairs than for one.
                    due = stale[: self._P] | (self._used[: self._P] > RECOMPUTE_EARLY)
                    sel = np.arange(self._P) if self.magnets.free.any() else np.nonzero(due)[0]
                    self._recompute(A[:n], sel)
                    self.last = len(sel)
                    moved[sel] = 0.0
        out = np.zeros((n, 2, 3))
        _assemble(A, self.I, self.J, self._P, self.local, self._moved, out)
        return out[:, 0], out[:, 1]


# -- per-step kernels (compiled: they run before every physics step) -------------------------


@njit("float64(float64, float64)", cache=True, nogil=True)
def _share(value, limit):
    """``value / limit``, with a zero limit (thresholds of 0: recompute on any move) giving
    inf for any motion and 0 for none (compiled code raises on a division by zero)."""
    if limit > 0.0:
        return value / limit
    return math.inf if value > 0.0 else 0.0


# Signatures given: compiled (or loaded from the cache) at import, so that a forkserver that
# preloads this module hands them ready to its workers (loading costs ~0.3 s per process).
_F1, _F2, _F3, _I1, _B1 = "float64[::1]", "float64[:, ::1]", "float64[:, :, ::1]", "intp[::1]", "boolean[::1]"


@njit(f"Tuple((intp, intp, float64, float64))({_F2}, {_F2}, {_F3}, {_I1}, {_I1}, {_F3}, {_F2}, {_F2}, float64, intp, "
      f"{_F3}, {_F3}, {_F3}, {_B1}, {_B1}, {_F2}, {_F1})",
      cache=True, nogil=True)
def _check_pairs(poses, previous, A, ti, tj, M0h, limits, limits1, turn_lever, P, base, jac, local, in_band, stale, moved, used):  # noqa: PLR0915 - long: see the reason below
    # long: one numba kernel, a single pass over the pairs; a call per phase would cost on every step
    """Fill the pose matrices ``A[:n]`` from ``poses`` (n, 7), then for every tracked row
    (pairs ``< P``, then each tile against its pose at the set's making) measure how far
    ``j`` has moved in ``i``'s frame since ``M0h``: ``D = A_j - A_i M0h`` has ``|D[:, 3]| =
    |Δs|`` and ``|D[:, :3]|_F = 2√2 sin(θ/2)``; ``Δ <= |Δs| + turn_lever |D[:, :3]|_F``.

    Rows beyond ``limits1`` are marked ``stale`` (to recompute). Pairs beyond ``limits`` or
    already in the band, and within ``limits1``, follow their Jacobian (``local`` updated,
    angular momentum balanced at the pose now, ``moved`` 0); the others keep ``local``, with
    ``moved`` = ``R_i (s - s0)`` for the moment balance of :func:`_assemble`. Without a band
    pass ``limits1 = limits``. ``used``: the share of ``limits1`` each row has moved by.
    Returns (pairs moved by their Jacobian, rows stale, largest
    change of a position coordinate and of a quaternion component since ``previous``, which
    then takes ``poses``).
    """
    n = poses.shape[0]
    shift = 0.0
    turn = 0.0
    for t in range(n):
        for a in range(7):
            change = abs(poses[t, a] - previous[t, a])
            previous[t, a] = poses[t, a]
            if a < 3:
                shift = max(shift, change)
            else:
                turn = max(turn, change)
    for t in range(n):
        x, y, z, w = poses[t, 3], poses[t, 4], poses[t, 5], poses[t, 6]
        A[t, 0, 0] = w * w + x * x - y * y - z * z
        A[t, 0, 1] = 2 * (x * y - w * z)
        A[t, 0, 2] = 2 * (x * z + w * y)
        A[t, 1, 0] = 2 * (x * y + w * z)
        A[t, 1, 1] = w * w - x * x + y * y - z * z
        A[t, 1, 2] = 2 * (y * z - w * x)
        A[t, 2, 0] = 2 * (x * z - w * y)
        A[t, 2, 1] = 2 * (y * z + w * x)
        A[t, 2, 2] = w * w - x * x - y * y + z * z
        A[t, 0, 3] = poses[t, 0]
        A[t, 1, 3] = poses[t, 1]
        A[t, 2, 3] = poses[t, 2]
    D = np.empty((3, 4))
    v = np.empty(6)
    W = np.empty((3, 3))
    band = 0
    over = 0
    for r in range(ti.shape[0]):
        i = ti[r]
        j = tj[r]
        sq_turn = 0.0
        sq_shift = 0.0
        for a in range(3):
            for b in range(4):
                acc = A[i, a, 0] * M0h[r, 0, b] + A[i, a, 1] * M0h[r, 1, b] + A[i, a, 2] * M0h[r, 2, b]
                if b == 3:  # M0h's homogeneous row (0, 0, 0, 1) adds x_i
                    acc += A[i, a, 3]
                D[a, b] = A[j, a, b] - acc
                if b == 3:
                    sq_shift += D[a, b] * D[a, b]
                else:
                    sq_turn += D[a, b] * D[a, b]
        e_turn = math.sqrt(sq_turn)
        e_shift = math.sqrt(sq_shift) + turn_lever * e_turn
        beyond = e_turn > limits[r, 0] or e_shift > limits[r, 1]
        beyond1 = e_turn > limits1[r, 0] or e_shift > limits1[r, 1]
        stale[r] = beyond1
        used[r] = max(_share(e_turn, limits1[r, 0]), _share(e_shift, limits1[r, 1]))
        if beyond1:
            over += 1
        if r >= P:
            continue
        if beyond1 or not (beyond or in_band[r]):
            for a in range(3):
                moved[r, a] = D[a, 3]
            continue
        # In the band: (Δs, ω) in i's frame. R_iᵀ D = [M - M0 | s - s0]; ω from the skew
        # part of (M - M0) M0ᵀ = M M0ᵀ - 1.
        for a in range(3):
            v[a] = A[i, 0, a] * D[0, 3] + A[i, 1, a] * D[1, 3] + A[i, 2, a] * D[2, 3]
        W[:] = 0.0
        for a in range(3):
            for b in range(3):
                dm = A[i, 0, a] * D[0, b] + A[i, 1, a] * D[1, b] + A[i, 2, a] * D[2, b]  # (M - M0)[a, b]
                for c in range(3):
                    W[a, c] += dm * M0h[r, c, b]
        v[3] = 0.5 * (W[2, 1] - W[1, 2])
        v[4] = 0.5 * (W[0, 2] - W[2, 0])
        v[5] = 0.5 * (W[1, 0] - W[0, 1])
        for q in range(9):
            acc = base[r, q // 3, q % 3]
            for c in range(6):
                acc += jac[r, q, c] * v[c]
            local[r, q // 3, q % 3] = acc
        # Σ moments about i's centre: T_i + T_j + s × F_j = 0; half the residue off each torque.
        sx = M0h[r, 0, 3] + v[0]
        sy = M0h[r, 1, 3] + v[1]
        sz = M0h[r, 2, 3] + v[2]
        fx, fy, fz = local[r, 0, 0], local[r, 0, 1], local[r, 0, 2]
        hx = 0.5 * (local[r, 2, 0] + local[r, 1, 0] + sy * fz - sz * fy)
        hy = 0.5 * (local[r, 2, 1] + local[r, 1, 1] + sz * fx - sx * fz)
        hz = 0.5 * (local[r, 2, 2] + local[r, 1, 2] + sx * fy - sy * fx)
        local[r, 1, 0] -= hx
        local[r, 1, 1] -= hy
        local[r, 1, 2] -= hz
        local[r, 2, 0] -= hx
        local[r, 2, 1] -= hy
        local[r, 2, 2] -= hz
        in_band[r] = True
        moved[r, 0] = 0.0
        moved[r, 1] = 0.0
        moved[r, 2] = 0.0
        band += 1
    return band, over, shift, turn


@njit(f"void({_F3}, {_I1}, {_I1}, intp, {_F3}, {_F2}, {_F3})", cache=True, nogil=True)
def _assemble(A, ti, tj, P, local, moved, out):
    """World wrenches ``out`` (n, 2, 3) (forces, torques about each tile's centre) from the
    pairs' ``local`` wrenches (i's frame), turned by tile i's orientation now. A pair reused
    at a shifted relative position (``moved`` = ``R_i (s - s0)``, world axes) has a net moment
    ``moved × F``: half of it comes off each tile's torque, so that ``Σ (c × F + T) = 0`` as
    for a fresh computation (within the stated torque bound, ``|Δs| |F| / 2`` per tile).
    Newton's third law holds exactly: both tiles get one turned force."""
    F = np.empty(3)
    Tj = np.empty(3)
    Ti = np.empty(3)
    for p in range(P):
        i = ti[p]
        j = tj[p]
        for a in range(3):
            F[a] = A[i, a, 0] * local[p, 0, 0] + A[i, a, 1] * local[p, 0, 1] + A[i, a, 2] * local[p, 0, 2]
            Tj[a] = A[i, a, 0] * local[p, 1, 0] + A[i, a, 1] * local[p, 1, 1] + A[i, a, 2] * local[p, 1, 2]
            Ti[a] = A[i, a, 0] * local[p, 2, 0] + A[i, a, 1] * local[p, 2, 1] + A[i, a, 2] * local[p, 2, 2]
        hx = 0.5 * (moved[p, 1] * F[2] - moved[p, 2] * F[1])
        hy = 0.5 * (moved[p, 2] * F[0] - moved[p, 0] * F[2])
        hz = 0.5 * (moved[p, 0] * F[1] - moved[p, 1] * F[0])
        for a in range(3):
            out[j, 0, a] += F[a]
            out[i, 0, a] -= F[a]
        out[j, 1, 0] += Tj[0] - hx
        out[j, 1, 1] += Tj[1] - hy
        out[j, 1, 2] += Tj[2] - hz
        out[i, 1, 0] += Ti[0] - hx
        out[i, 1, 1] += Ti[1] - hy
        out[i, 1, 2] += Ti[2] - hz
