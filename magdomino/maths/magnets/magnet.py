"""Checked layer: one pair of magnets (:class:`Magnet`, :func:`force_between`,
:func:`energy_between`) on top of the raw layer; bad arguments raise
:class:`~magdomino.errors.InputError`."""

from __future__ import annotations

import math

import numpy as np

from magdomino.checks import check_choice, check_count
from magdomino.errors import InputError
from magdomino.maths.magnets.dipole import MU0, dipole_field, dipole_pair_force_torque
from magdomino.maths.magnets.finite import cells_wrench
from magdomino.maths.magnets.quadrature import (
    SHAPES,
    auto_level,
    bounding_radius,
    cell_rule,
    clearance,
    level_for_cells,
    rule_nodes,
    volume,
)

MODELS = ("finite", "dipole")


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
    F, T = cells_wrench((pa - origin)[None], wa[None], ua[None], (pb - origin)[None], wb[None], ub[None], (b.position - origin)[None])
    return F[0], T[0]


def _check_pair(src, a, b, model, cells):
    for key, m in (("a", a), ("b", b)):
        if not isinstance(m, Magnet):
            raise InputError(src, key, "a magdomino.maths.magnets.Magnet")
    check_model_cells(src, model, cells)


def check_model_cells(src, model, cells):
    """Raise :class:`InputError` (naming ``src``) for an unknown model or a bad ``cells``."""
    check_choice(model, "model", MODELS, source=src)
    if cells is not None:
        check_count(cells, "cells", minimum=1, source=src)


def _pair_levels_checked(a, b, model, cells):
    if model == "dipole":
        return 0, 0
    if cells is None:
        gamma = clearance(a, b) / max(a.dimensions + b.dimensions)
        level = int(max(auto_level(gamma, a.shape), auto_level(gamma, b.shape)))
        return level, level
    return level_for_cells(a.shape, a.dimensions, int(cells)), level_for_cells(b.shape, b.dimensions, int(cells))


def energy_between(a: Magnet, b: Magnet, model: str = "finite", *, cells: int | None = None) -> float:
    """Interaction energy ``U = -Σ m_b·B_a`` of two magnets (J), with the same cells as
    :func:`force_between` (so that its force is ``-∇U`` with respect to b's position)."""
    _check_pair("energy_between", a, b, model, cells)
    la, lb = _pair_levels_checked(a, b, model, cells)
    pa, ma = a.cells(la)
    pb, mb = b.cells(lb)
    B = dipole_field(pb - a.position, pa - a.position, ma)
    return float(-np.einsum("jc,jc->", mb, B))
