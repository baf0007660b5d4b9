"""Magnet field, force and torque: point dipoles and finite-size magnets split into cells.

Three layers, in the style of magpylib, all SI (m, A·m², T, N, N·m):

1. **Raw** (arrays in, arrays out, no checks): point dipoles (:mod:`.dipole`:
   :func:`dipole_field`, :func:`dipole_pair_force_torque`, :func:`dipole_force_torque`,
   :func:`dipole_field_pairs`), quadrature rules and the clearance bound that picks them
   (:mod:`.quadrature`: :func:`rule_nodes`, :func:`cell_rule`, :func:`clearance_bound`)
   and the finite model's cell sums (:mod:`.finite`).
2. **Checked** (:mod:`.magnet`): :class:`Magnet`, :func:`force_between` and
   :func:`energy_between` for one pair of magnets (bad arguments raise
   :class:`~magdomino.errors.InputError`).
3. **Batch** (:mod:`.batch`): :class:`TileMagnets`, the total force and torque on every
   tile of a construction, and (:mod:`.cache`) :class:`CachedWrenches`, which the physics
   world calls before each step.

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
400, 576, 784, 1280, 1944 cells for a Ø6×2 mm disc at levels 1 to 9) and
``max(2, round(1 + k d_i / max(d)))`` nodes along side ``d_i`` of a cuboid.
A Gauss rule's error falls geometrically with the ratio of node spacing to the gap between
the bodies, so the level is picked from ``γ = g / L``: ``g`` a lower bound of the clearance
(:func:`clearance_bound`: separating axes along the line of centres and both magnet axes) and
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
``Σ_ij w_i w_j d(j) r_ij^-(3+2k) c(i)`` with a few per-cell monomials c, d (:func:`cells_moments`).
Only ``r⁻³, r⁻⁵, r⁻⁷`` are computed per cell pair; both sums are batched matrix products.
The batch's wrenches use the same sums written out directly, compiled (numba, float64,
:func:`~magdomino.maths.magnets.finite.rules_wrench`: one call for every magnet pair, where
the array operations of the moment sums cost more than the arithmetic for the few pairs a
moving construction recomputes); tests hold the two equal to 1e-9. The moment sums remain
for the raw and checked functions and for the fields of free magnets (levels 0-2 in
float32 there, millimetre units inside so nothing underflows; relative rounding ~1e-5).
"""

from magdomino.maths.magnets.batch import (
    BATCH_MAX_LEVEL,
    CUTOFF_Q,
    F32_MAX_LEVEL,
    FREE_ITERATIONS,
    NEAR_Q,
    TileMagnets,
)
from magdomino.maths.magnets.cache import (
    SHIFT_SENSITIVITY,
    TURN_SENSITIVITY,
    UPDATE_REF_DISTANCE,
    CachedWrenches,
)
from magdomino.maths.magnets.dipole import (
    MU0,
    dipole_field,
    dipole_field_pairs,
    dipole_force_torque,
    dipole_pair_force_torque,
)
from magdomino.maths.magnets.magnet import MODELS, Magnet, energy_between, force_between
from magdomino.maths.magnets.quadrature import (
    AUTO_LEVELS,
    SHAPES,
    auto_level,
    bounding_radius,
    cell_rule,
    clearance,
    clearance_bound,
    rule_nodes,
    volume,
)

__all__ = [
    "AUTO_LEVELS", "BATCH_MAX_LEVEL", "CUTOFF_Q", "F32_MAX_LEVEL", "FREE_ITERATIONS", "MODELS", "MU0", "NEAR_Q",
    "SHAPES", "SHIFT_SENSITIVITY", "TURN_SENSITIVITY", "UPDATE_REF_DISTANCE",
    "CachedWrenches", "Magnet", "TileMagnets", "auto_level", "bounding_radius", "cell_rule", "clearance",
    "clearance_bound", "dipole_field", "dipole_field_pairs", "dipole_force_torque", "dipole_pair_force_torque",
    "energy_between", "force_between", "rule_nodes", "volume",
]
