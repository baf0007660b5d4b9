"""A verdict's tilt margin and load factor, from the equilibrium's parametric problems.

:func:`fill_margins` asks :meth:`~magdomino.physics.equilibrium.Equilibrium.solve` for the
largest (standing) or smallest (falling) sideways load of each of :data:`TILT_DIRECTIONS`
directions, turns the worst into a tilt of the table (with magnets, whose pull does not scale
with gravity, by following the LP's boundary), and for a placed tile the
largest factor of its weight the structure carries. What these figures mean is described in
:mod:`magdomino.physics.statics`.
"""

from __future__ import annotations

import math

import numpy as np

TILT_DIRECTIONS = 8
LATERAL_CAP = 10.0
"""Largest lateral load factor searched (a tilt of 84°)."""
LOAD_CAP = 100.0
"""Largest load factor searched."""


def _lateral_factor(eq, w_grav, w_mag, direction, n, cos_scale, stands):
    """Largest (standing) or smallest (not standing) lateral load factor along ``direction``
    with the vertical gravity scaled by ``cos_scale``; None when none in [0, LATERAL_CAP]."""
    lat = np.zeros((n, 3))
    lat[:, :2] = direction
    e = eq.load(lat, np.zeros((n, 3)))
    ok, lam = eq.solve(cos_scale * w_grav + w_mag, extra=e, objective=-1.0 if stands else 1.0, bounds=(0.0, LATERAL_CAP))
    return lam if ok else None


def _true_tilt(eq, w_grav, w_mag, direction, n, lam, stands) -> float:
    """The tilt (rad) along ``direction`` at which the structure starts (or stops) standing,
    gravity keeping its magnitude: the circle ``(cos θ, sin θ)`` meets the LP's parametric
    boundary ``s = λ(c)`` (lateral factor ``λ`` at vertical gravity scaled by ``c``). ``λ(c)``
    is piecewise linear in ``c`` (one optimal basis per piece): a secant through two points
    of the same piece meets the circle exactly, so this converges in one or two steps."""
    c0, s0 = 1.0, lam
    theta = math.atan(lam)
    c1 = math.cos(theta)
    s1 = _lateral_factor(eq, w_grav, w_mag, direction, n, c1, stands)
    for _ in range(8):
        if s1 is None or abs(c1 - c0) < 1e-12:
            break
        slope = (s1 - s0) / (c1 - c0)
        offset = s1 - slope * c1
        theta = math.atan(slope) + math.asin(max(-1.0, min(1.0, offset / math.hypot(1.0, slope))))
        c2 = math.cos(theta)
        s2 = _lateral_factor(eq, w_grav, w_mag, direction, n, c2, stands)
        if s2 is None or abs(s2 - math.sin(theta)) < 1e-9:
            break
        c0, s0, c1, s1 = c1, s1, c2, s2
    return theta


def fill_margins(verdict, eq, w_grav, w_mag, n, placed, movable):
    """Fill the tilt margin (and load factor) of ``verdict``: see the module docstring."""
    stands = verdict.stands
    found = []
    for k in range(TILT_DIRECTIONS):
        phi = 2 * math.pi * k / TILT_DIRECTIONS
        d = np.array([math.cos(phi), math.sin(phi)])
        lam = _lateral_factor(eq, w_grav, w_mag, d, n, 1.0, stands)
        if lam is not None:
            found.append((math.atan(lam), phi, d, lam))
    if not found:  # no tilt saves it (or, standing, the solver failed on every direction: no margin)
        verdict.margin = 0.0 if stands else -math.degrees(math.atan(LATERAL_CAP))
    else:
        found.sort(key=lambda f: f[0])
        theta, phi = found[0][0], found[0][1]
        if verdict.magnets:
            # Magnets do not scale with gravity: the true tilt of the pseudo-static worst
            # direction (there gravity grows with the lateral load), then of every other
            # direction that does not survive (stands) or is not saved (falls) at that tilt.
            theta = _true_tilt(eq, w_grav, w_mag, found[0][2], n, found[0][3], stands)
            for _, phi_k, d, lam in found[1:]:
                lat = np.zeros((n, 3))
                lat[:, :2] = d * math.sin(theta)
                ok = eq.stands(math.cos(theta) * w_grav + w_mag + eq.load(lat, np.zeros((n, 3))))
                if ok != stands:
                    theta_k = _true_tilt(eq, w_grav, w_mag, d, n, lam, stands)
                    if theta_k < theta:
                        theta, phi = theta_k, phi_k
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
