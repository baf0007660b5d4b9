"""The ``[solver]`` and ``[collapse]`` tables of a preset: their defaults (with why) and their SI form.

:mod:`magdomino.model.presets` checks them on load and re-exports these names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

SOLVER_DEFAULTS = {
    "time_step_s": 1 / 2000,
    "iterations": 30,
    "gravity_m_s2": 9.81,
    "magnet_model": "finite",
    "magnet_update_mm": 0.01,
    "magnet_update_deg": 0.05,
    "magnet_linear_mm": 0.2,
    "magnet_linear_deg": 1.0,
    "magnet_idle_steps": 6,
    "contact_erp": 0.4,
    "friction_anchor": True,
}
"""Optional ``[solver]`` keys.

- ``time_step_s``, ``iterations``: PyBullet's fixed time step and solver iterations. At
  PyBullet's defaults (1/240 s, 50 iterations) an aligned stack of 15 tiles falls by
  itself. Measured on an aligned 28-tile stack over 5 s (largest displacement of a tile):
  1/2000 s x 100 iterations 1.09 mm, x 200 iterations 1.16 mm; 1/3000 s x 50: 0.58 mm;
  1/4000 s x 30: 0.78 mm; 1/4000 s x 50: 0.42 mm (0.19 mm sideways, the rest is the
  stack settling into its contacts). With contact ERP 0.4 and friction anchors (the
  defaults), magnets off / on: 1/2500 s x 30 0.39 / 0.46 mm, x 25 0.41 / 0.43, x 20
  0.42 / 0.52; 1/2000 s x 30 0.44 / 0.45, x 25 0.53 / 0.46, x 40 0.40 / 0.42; 1/1750 s x 35
  0.54 / 0.45; 1/1250 s x 50 0.58 / 0.58, x 80 0.50 / 0.45. The default, 1/2000 s x 30, is
  the cheapest setting measured within 0.5 mm whose verdicts on the validation set are
  those of half the time step; ``scripts/bench`` reports ``aligned28_drift_mm``.
- ``magnet_model``: ``"finite"`` (near pairs split into cells) or ``"dipole"``.
- ``magnet_update_mm``, ``magnet_update_deg``: a tile pair's magnet wrench is recomputed when
  the pose of one tile in the other's frame has moved (magnets of the pair, up to the turn
  times their lever) more than ``magnet_update_mm`` × (the pair's magnet distance / 8 mm) or
  turned more than ``magnet_update_deg`` since its last computation; common motions cost
  nothing. Error: < 5 · mm / 8 + 2 · rad of the coaxial force scale, 0.8 % at the defaults
  (``magdomino.maths.magnets.CachedWrenches``).
- ``magnet_linear_mm``, ``magnet_linear_deg``: between those thresholds and these (scaled
  alike), a pair's wrench follows its Jacobian (forward differences taken with each
  computation) instead of being recomputed: a sliding or falling tile costs a computation
  every 0.2 mm instead of every 0.01 mm. The remainder, < 10 (mm / 8)² + 0.05 %, is 0.68 % of the
  coaxial force scale at the defaults, within the bound above. Equal to the thresholds
  above: no first-order band.
- ``magnet_idle_steps``: while no tile pair needed recomputing at the last check (a
  construction at rest), poses are read and checked only every this many steps (3 ms at
  the defaults), the same wrenches applied meanwhile, as sub-steps of one PyBullet call; any
  motion makes every step checked again (see
  :meth:`magdomino.physics.world.World._apply_magnets`). 6: a resting 28-tile tower steps
  at 1.12-1.16 times the cost of the bare engine (4: 1.16, in the same run).
"""

COLLAPSE_DEFAULTS = {
    "max_shift_mm": 5.0,
    "max_tilt_deg": 10.0,
    "max_drop_mm": 5.0,
    "count_shifts": False,
    "settle_speed_mm_s": 2.0,
    "settle_spin_deg_s": 5.0,
    "settle_hold_s": 0.1,
    "time_limit_s": 3.0,
}
"""Optional ``[collapse]`` keys.

- ``max_tilt_deg``, ``max_drop_mm``: a tile of the construction that tips more than
  ``max_tilt_deg`` or comes down more than ``max_drop_mm`` below its height has fallen
  (``docs/physics/assumptions.md``, "Collapse means a fall"); so has one that comes down to the table. 5 mm is far beyond any
  settling into contacts (micrometres), short of a level (the tile's thickness, 8 mm), and
  what the end of a 48 mm tile drops when it tips by about max_tilt_deg.
- ``max_shift_mm``: a tile moved farther than this without falling has *shifted* (pushed
  along the table or its support): reported, not a collapse, unless ``count_shifts`` is
  true (the reading of earlier versions, where any move beyond it was a collapse).
- ``settle_speed_mm_s``, ``settle_spin_deg_s``, ``settle_hold_s``: settled when every
  tile's net motion over a window of the hold time stays below these rates and is not
  growing from the window before (see :mod:`magdomino.physics.verdict`).
- ``time_limit_s``: simulated time after which an unsettled, uncollapsed run stops.
"""


def _file_value(x: float) -> float:
    """A value converted back to file units, without the last bit of conversion noise."""
    return round(float(x), 9)


@dataclass(frozen=True)
class SolverSettings:
    """The ``[solver]`` table in SI (see :data:`SOLVER_DEFAULTS` for what each does).

    Attributes
    ----------
    time_step : float, s
    iterations : int
    gravity : float, m/s²
    magnet_model : {"finite", "dipole"}
    magnet_update : float, m
        Relative shift of a tile pair (scaled with its distance) that recomputes its wrench.
    magnet_update_angle : float, rad
    magnet_linear, magnet_linear_angle : float, m and rad
        The first-order band's thresholds (as ``magnet_update``).
    magnet_idle_steps : int
    contact_erp : float
        Share of a contact's penetration corrected per step (PyBullet's ``contactERP``).
    friction_anchor : bool
        Resting contacts keep their anchor points (PyBullet's ``frictionAnchor``).
    """

    time_step: float
    iterations: int
    gravity: float
    magnet_model: str
    magnet_update: float
    magnet_update_angle: float
    magnet_linear: float
    magnet_linear_angle: float
    magnet_idle_steps: int
    contact_erp: float
    friction_anchor: bool

    @classmethod
    def from_file(cls, values: dict[str, Any]) -> SolverSettings:
        """From checked file values (the keys of :data:`SOLVER_DEFAULTS`, in mm and degrees)."""
        return cls(
            time_step=float(values["time_step_s"]),
            iterations=int(values["iterations"]),
            gravity=float(values["gravity_m_s2"]),
            magnet_model=str(values["magnet_model"]),
            magnet_update=float(values["magnet_update_mm"]) / 1000,
            magnet_update_angle=math.radians(float(values["magnet_update_deg"])),
            magnet_linear=float(values["magnet_linear_mm"]) / 1000,
            magnet_linear_angle=math.radians(float(values["magnet_linear_deg"])),
            magnet_idle_steps=int(values["magnet_idle_steps"]),
            contact_erp=None if values["contact_erp"] is None else float(values["contact_erp"]),
            friction_anchor=bool(values["friction_anchor"]),
        )

    def to_file(self) -> dict[str, Any]:
        """The file's keys and units (mm, degrees)."""
        return {
            "time_step_s": self.time_step,
            "iterations": self.iterations,
            "gravity_m_s2": self.gravity,
            "magnet_model": self.magnet_model,
            "magnet_update_mm": _file_value(self.magnet_update * 1000),
            "magnet_update_deg": _file_value(math.degrees(self.magnet_update_angle)),
            "magnet_linear_mm": _file_value(self.magnet_linear * 1000),
            "magnet_linear_deg": _file_value(math.degrees(self.magnet_linear_angle)),
            "magnet_idle_steps": self.magnet_idle_steps,
            "contact_erp": self.contact_erp,
            "friction_anchor": self.friction_anchor,
        }


@dataclass(frozen=True)
class CollapseSettings:
    """The ``[collapse]`` table in SI (see :data:`COLLAPSE_DEFAULTS` for what each does).

    Attributes
    ----------
    max_shift : float, m
    max_tilt : float, rad
    max_drop : float, m
    count_shifts : bool
    settle_speed : float, m/s
    settle_spin : float, rad/s
    settle_hold : float, s
    time_limit : float, s
    """

    max_shift: float
    max_tilt: float
    settle_speed: float
    settle_spin: float
    settle_hold: float
    time_limit: float
    max_drop: float
    count_shifts: bool

    @classmethod
    def from_file(cls, values: dict[str, Any]) -> CollapseSettings:
        """From checked file values (the keys of :data:`COLLAPSE_DEFAULTS`, in mm and degrees)."""
        return cls(
            max_shift=float(values["max_shift_mm"]) / 1000,
            max_tilt=math.radians(float(values["max_tilt_deg"])),
            settle_speed=float(values["settle_speed_mm_s"]) / 1000,
            settle_spin=math.radians(float(values["settle_spin_deg_s"])),
            settle_hold=float(values["settle_hold_s"]),
            time_limit=float(values["time_limit_s"]),
            max_drop=float(values["max_drop_mm"]) / 1000,
            count_shifts=bool(values["count_shifts"]),
        )

    def to_file(self) -> dict[str, Any]:
        """The file's keys and units (mm, degrees)."""
        return {
            "max_shift_mm": _file_value(self.max_shift * 1000),
            "max_tilt_deg": _file_value(math.degrees(self.max_tilt)),
            "max_drop_mm": _file_value(self.max_drop * 1000),
            "count_shifts": self.count_shifts,
            "settle_speed_mm_s": _file_value(self.settle_speed * 1000),
            "settle_spin_deg_s": _file_value(math.degrees(self.settle_spin)),
            "settle_hold_s": self.settle_hold,
            "time_limit_s": self.time_limit,
        }
