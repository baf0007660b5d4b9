"""Calibrate a preset from home measurements: frictions, the magnets' strength, restitution.

The measurements (:mod:`magdomino.model.measurements`) and the models that turn each into a
parameter:

- **Slide on the table**: a tile alone on a surface of the table's material tilted slowly
  until it slides. Coulomb: ``μ_table = tan θ`` (no magnet acts on a lone tile).
- **Slide on a tile**: a tile laid *across* the middle of another that is held on the tilted
  surface (across, the magnets barely act: they sit 17 mm apart sideways, and what is left of
  their force, normal to the faces, is counted). Coulomb with the magnets' normal force ``F``
  (positive: pushing the tiles apart): ``μ_tile = sin θ / (cos θ - F / m g)``. The statics
  (:func:`magdomino.physics.statics.judge`'s tilt margin) predicts the angle back.
- **Overhang**: a tile resting on another, pushed slowly out along its length until it tips;
  ``s`` is how far its end passed the lower tile's end (or side, laid across). Statics: the
  smallest magnet strength ``k²`` (the layout's J times ``k``) that holds the tile at ``s``
  is one parametric LP (:meth:`magdomino.physics.equilibrium.Equilibrium.solve`: gravity plus
  ``λ`` times the magnet wrenches, ``λ`` minimised). Gravity scales with the mass and the
  magnet wrenches with ``k²``, and the equilibrium is homogeneous in the loads, so only
  ``k² / m`` matters: ``k = sqrt(λ_min(s) m / m_ref)``. The fitted preset's largest overhang
  is root-found in ``s`` (``scipy.optimize.brentq`` on ``λ_min(s) = k² m_ref / m``). Only the
  tipping is measured: the pushing finger keeps the magnets from pulling the tile back, so
  the tile-on-tile contact here holds any sideways force (:data:`HOLD_MU`; the dynamics'
  round trip puts a frictionless stop there, and agrees within 0.2 mm).
- **Load**: a tile overhanging by ``s``, weights on its far end until it tips: the same LP
  with the load (at the far end's top, on the centre line) among the loads.
- **Bounce**: a tile dropped flat from ``h`` onto the table rebounds to ``r``: the coefficient
  of restitution ``e = sqrt(r / h)`` (speed after / before, energy ``m g h`` each way). The
  preset's ``restitution`` is that ``e``. PyBullet only approximates it: a tile dropped from
  100 mm with restitution 0.5 rebounds with ``e`` 0.49, with 0.4 with ``e`` 0.44
  (:func:`magdomino.studies.calibrate_dynamics.rebound_mm`), so a bounce calibrates the
  pictures of a drop, not the verdicts (placements are released at rest).

**Intervals** (95 %): Monte Carlo over the measurements. Each draw takes every reading plus
a Gaussian instrument error (the file's ``[uncertainty]``), resamples each measurement's
readings with replacement (their spread), and refits: the frictions in closed form, ``k``
by least squares over the overhangs and loads on the statics' curves ``λ_min(s)`` and
``λ_min(load)`` (computed once on a grid: with the contact holding sideways they do not
depend on the tiles' friction; the table's enters, under the lower tile). The interval is
the 2.5-97.5 % quantiles of the draws. The tile size is taken as measured (a ruler's
0.5 mm on 48 mm moves the overhang's lever by about 1 %).

**Spread** written to the preset (``[spread]``, the odds' noise defaults for this set):
the relative standard deviation of the parameter over the single readings (each reading
refitted alone), or, with one reading, of the Monte Carlo draws.

**Agreement**: each measurement is *inside* when the fitted preset's prediction lies within
two σ of its mean reading, σ the instrument's uncertainty and the readings' spread together
(``hypot``). Overhangs and loads that need different magnets are reported as a conflict:
each one's own fit, and the compromise.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np

# The statics (contact polygons, the LP) is imported where a fit uses it: this module loads
# with every command (the command line's calibrate), the statics adds ~0.1 s to that.
from magdomino.maths.poses import yaw_quaternion
from magdomino.model.measurements import Measurements, Reading
from magdomino.model.presets import LIMITS, Preset
from magdomino.physics.contact_polygons import find_contacts
from magdomino.physics.equilibrium import Equilibrium
from magdomino.physics.margins import LOAD_CAP
from magdomino.physics.statics import judge, magnet_wrenches

DRAWS = 400
"""Monte Carlo draws of the measurements (about a second in all)."""
GRID = 48
"""Points of each statics curve (overhang from half the tile's length to its length)."""
LAMBDA_GRID = 2001
"""Points of the grid of magnet factors ``λ`` on which the Monte Carlo's fits are found."""
LAMBDA_CAP = 1e4
"""Largest magnet factor ``k²`` searched (``k`` 100: beyond any magnet)."""
HOLD_MU = 100.0
"""Friction of the tile-on-tile contact in the overhang and load set-ups: any sideways force
(what is measured is the tipping; a tile slid back by its magnets is held)."""
TOLERANCE_SIGMAS = 2.0
"""A prediction within this many σ of the mean reading is inside its uncertainty."""


@dataclass(frozen=True)
class Parameter:
    """One fitted parameter with its 95 % interval.

    Attributes
    ----------
    name : str
        ``"table friction"``, ``"tile friction"``, ``"polarization"``, ``"restitution"``.
    key : str
        The preset key it sets.
    value, low, high : float
        Fit and 95 % interval (``polarization`` in T: the layout's largest magnet's J times ``k``).
    rel_sigma : float
        Spread of the set (relative σ), written to the preset's ``[spread]``.
    measured : bool
        False: not measured, the layout preset's value kept.
    """

    name: str
    key: str
    value: float
    low: float
    high: float
    unit: str
    rel_sigma: float
    measured: bool = True

    def to_dict(self) -> dict:
        r = lambda v: None if v is None or not math.isfinite(v) else round(float(v), 6)  # noqa: E731
        return {"name": self.name, "key": self.key, "value": r(self.value), "low": r(self.low), "high": r(self.high),
                "unit": self.unit, "rel_sigma": r(self.rel_sigma), "measured": self.measured}


@dataclass(frozen=True)
class Row:
    """One measurement against the fitted preset (file units)."""

    key: str
    what: str
    unit: str
    readings: int
    mean: float
    sigma: float
    predicted: float
    inside: bool
    alone: str = ""  # what this measurement alone says of the magnets (overhangs, loads)

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("key", "what", "unit", "readings", "inside", "alone")}
        out.update({k: round(float(getattr(self, k)), 4) if math.isfinite(getattr(self, k)) else None
                    for k in ("mean", "sigma", "predicted")})
        return out


@dataclass
class CalibrationResult:
    """What :func:`calibrate` found: the preset, the parameters, the table, the conflicts."""

    measurements: Measurements
    preset: Preset
    parameters: list[Parameter]
    rows: list[Row]
    conflicts: list[str] = field(default_factory=list)
    draws: int = DRAWS
    seed: int = 0
    wall_time_s: float = 0.0

    def parameter(self, name: str) -> Parameter:
        return next(p for p in self.parameters if p.name == name)

    def to_dict(self) -> dict:
        return {
            "measurements": self.measurements.source, "name": self.measurements.name,
            "magnet_layout": self.measurements.layout.name, "draws": self.draws, "seed": self.seed,
            "parameters": [p.to_dict() for p in self.parameters], "rows": [r.to_dict() for r in self.rows],
            "conflicts": list(self.conflicts), "preset": self.preset.to_dict(), "wall_time_s": round(self.wall_time_s, 3),
        }


# -- the set-ups, as poses ------------------------------------------------------------------


def overhang_poses(size, overhang: float, direction: str = "along") -> tuple[np.ndarray, np.ndarray]:
    """The lower tile on the table and the upper one overhanging it.

    Parameters
    ----------
    size : array_like, shape (3,), m
    overhang : float, m
        How far the upper tile's end passes the lower tile's end (``"along"``, parallel) or
        side (``"across"``, turned 90°), towards +x (along) or +y (across).

    Returns
    -------
    positions : ndarray, shape (2, 3), m
    quaternions : ndarray, shape (2, 4)
    """
    L, W, t = (float(v) for v in size)
    if direction == "along":
        upper, yaw = (overhang, 0.0, 1.5 * t), 0.0
    else:
        upper, yaw = (0.0, W / 2 + overhang - L / 2, 1.5 * t), math.pi / 2
    return np.array([(0.0, 0.0, t / 2), upper]), np.array([yaw_quaternion(0.0), yaw_quaternion(yaw)])


def across_poses(size) -> tuple[np.ndarray, np.ndarray]:
    """The tile-on-tile slide set-up: the upper tile across the middle of the lower one."""
    return overhang_poses(size, (float(size[0]) - float(size[1])) / 2, "across")


class _Statics:
    """The statics of the measurement set-ups for one preset (its mass is ``m_ref``)."""

    def __init__(self, preset: Preset):
        self.preset = preset
        self.size = np.asarray(preset.tile.size, float)
        self.weight = float(preset.tile.mass) * float(preset.solver.gravity)

    def _system(self, P, Q, load_point=None):
        t = self.preset.tile
        # Only tipping is measured: a tile the magnets pull back is held (the pushing finger
        # stops it), so the tile-on-tile contact takes any sideways force (HOLD_MU).
        eq = Equilibrium(P, find_contacts(P, Q, self.size), np.ones(2, bool), HOLD_MU, float(self.size[0]), t.table_mu)
        down = np.zeros((2, 3))
        down[:, 2] = -1.0
        w_grav = eq.load(down, np.zeros((2, 3)))
        mf, mt = magnet_wrenches(self.preset, P, Q)
        w_mag = eq.load(mf / self.weight, mt / self.weight)
        w_load = np.zeros_like(w_grav)
        if load_point is not None:  # a unit weight (one tile weight) hung at load_point on the upper tile
            f = np.array([[0, 0, 0], [0, 0, -1.0]])
            torque = np.zeros((2, 3))
            torque[1] = np.cross(np.asarray(load_point) - P[1], f[1])
            w_load = eq.load(f, torque)
        return eq, w_grav, w_mag, w_load

    def lambda_min(self, overhang: float, direction: str = "along", rho: float = 0.0) -> float:
        """Smallest magnet factor ``k²`` (times the layout's J², at this preset's mass) that
        holds the upper tile at ``overhang`` (m) with ``rho`` tile weights on its far end:
        0 when it stands without magnets, inf when no strength holds it."""
        P, Q = overhang_poses(self.size, overhang, direction)
        far = (P[1, 0] + self.size[0] / 2, 0.0, P[1, 2] + self.size[2] / 2)
        eq, w_grav, w_mag, w_load = self._system(P, Q, far if rho else None)
        base = w_grav + rho * w_load
        if eq.stands(base):
            return 0.0
        ok, lam = eq.solve(base, extra=w_mag, objective=1.0, bounds=(0.0, LAMBDA_CAP))
        return float(lam) if ok else math.inf

    def largest_load(self, overhang: float, k2: float) -> float:
        """Largest load (tile weights) on the far end at ``overhang`` (m) with magnets ``k²``."""
        P, Q = overhang_poses(self.size, overhang, "along")
        far = (P[1, 0] + self.size[0] / 2, 0.0, P[1, 2] + self.size[2] / 2)
        eq, w_grav, w_mag, w_load = self._system(P, Q, far)
        ok, lam = eq.solve(w_grav + k2 * w_mag, extra=w_load, objective=-1.0, bounds=(0.0, LOAD_CAP))
        return float(lam) if ok else 0.0

    def largest_overhang(self, k2: float, direction: str = "along") -> float:
        """Largest overhang (m) held with magnets ``k²``: root-found (brentq) in the overhang."""
        from scipy.optimize import brentq  # noqa: PLC0415 - scipy.optimize: ~0.2 s to import

        L = float(self.size[0])
        lo, hi = L / 2 - 1e-4, L - 1e-4
        if self.lambda_min(hi, direction) <= k2:
            return hi
        if self.lambda_min(lo, direction) > k2:
            return lo
        return float(brentq(lambda s: self.lambda_min(s, direction) - k2 - 1e-12, lo, hi, xtol=1e-6))

    def normal_magnet_ratio(self) -> float:
        """The magnets' force on the upper tile of the across set-up, along the normal (up:
        apart), in its weights."""
        P, Q = across_poses(self.size)
        mf, _ = magnet_wrenches(self.preset, P, Q)
        return float(mf[1, 2]) / self.weight

    def slide_angle(self, on: str) -> float:
        """The statics' tilt margin (degrees) of the slide set-up (the lower tile held)."""
        t = float(self.size[2])
        if on == "table":
            return float(judge(self.preset, [(0, 0, t / 2)], [yaw_quaternion(0.0)], placed=0).margin)
        P, Q = across_poses(self.size)
        return float(judge(self.preset, P, Q, placed=1, fixed=[True, False]).margin)


def _scale_magnets(preset: Preset, k: float) -> Preset:
    tile = preset.tile
    return preset.with_changes(tile=replace(tile, magnets=tuple(replace(m, polarization=m.polarization * k) for m in tile.magnets)))


def _mu_tile(theta_deg, f_apart):
    th = np.radians(theta_deg)
    return np.sin(th) / np.maximum(np.cos(th) - f_apart, 1e-9)


class _Curves:
    """``λ_min`` of every overhang and load measurement on a grid, for the Monte Carlo."""

    def __init__(self, statics: _Statics, readings: list[Reading], mass_g: float):
        L = float(statics.size[0])
        self.s = np.linspace(L / 2, L - 1e-4, GRID)
        self.mass_g = mass_g
        self.over = {}
        self.loads = {}
        for r in readings:
            if r.kind == "overhang" and r.on not in self.over:
                lam = np.array([statics.lambda_min(s, r.on) for s in self.s])
                self.over[r.on] = np.maximum.accumulate(lam)
            elif r.kind == "load":
                top = max(3 * float(r.values.max()), 1.0) / mass_g
                rho = np.linspace(0, top, GRID)
                lam = np.array([statics.lambda_min(r.at / 1000, "along", x) for x in rho])
                self.loads[r.key] = (rho, np.maximum.accumulate(lam))

    def lam_of(self, r: Reading, value):
        """``λ_min`` needed by reading(s) ``value`` (mm or g) of measurement ``r``, at mass ``mass_g``."""
        if r.kind == "overhang":
            return np.interp(np.asarray(value) / 1000, self.s, self.over[r.on])
        rho, lam = self.loads[r.key]
        return np.interp(np.asarray(value) / self.mass_g, rho, lam)

    def predict(self, r: Reading, lam_target: float) -> float:
        """What ``r`` measures (mm, g) for magnets ``λ`` (the inverse of :meth:`lam_of`)."""
        if r.kind == "overhang":
            x, y = self.over[r.on], self.s * 1000
        else:
            x, y = self.loads[r.key][1], self.loads[r.key][0] * self.mass_g
        finite = np.isfinite(x)
        x, y = x[finite], y[finite]
        if len(x) == 0:  # no magnet strength holds it anywhere on the grid
            return math.nan
        # the largest value whose λ_min is within the target (flat stretches: the far end)
        i = np.searchsorted(x, lam_target, side="right")
        if i == 0:
            return float(y[0])
        if i >= len(x):
            return float(y[-1])
        return float(np.interp(lam_target, x[i - 1 : i + 1], y[i - 1 : i + 1]))


class _Fitter:
    """Least-squares magnets ``λ`` of the overhang and load measurements (each one's mean
    against the statics' prediction, in its σ), for many draws at once: the predictions on a
    fine grid of ``λ``, the best grid point refined by a parabola through its neighbours."""

    def __init__(self, curves: _Curves, groups: list[Reading], lam_max: float):
        self.curves, self.groups = curves, groups
        self.sigma = np.array([r.sigma for r in groups])
        finite = [float(np.max(c[np.isfinite(c)], initial=0.0)) for c in [*curves.over.values(), *(v[1] for v in curves.loads.values())]]
        top = min(max(finite, default=lam_max) * 1.2 + 1e-9, lam_max)
        self.lam = np.linspace(0.0, top, LAMBDA_GRID)
        self.pred = np.nan_to_num(np.array([[curves.predict(r, x) for r in groups] for x in self.lam]), nan=0.0)  # (Λ, G)

    def fit(self, means: np.ndarray) -> np.ndarray:
        """``λ`` (D,) of measurement means (D, G) in file units (one measurement: its own
        ``λ_min``, exactly)."""
        means = np.atleast_2d(means)
        if len(self.groups) == 1:
            return np.minimum(self.curves.lam_of(self.groups[0], means[:, 0]), self.lam[-1])
        cost = (((means[:, None, :] - self.pred[None]) / self.sigma) ** 2).sum(axis=2)  # (D, Λ)
        i = np.clip(np.argmin(cost, axis=1), 1, len(self.lam) - 2)
        rows = np.arange(len(means))
        c0, c1, c2 = cost[rows, i - 1], cost[rows, i], cost[rows, i + 1]
        curvature = c0 - 2 * c1 + c2
        shift = np.where(curvature > 0, 0.5 * (c0 - c2) / np.where(curvature > 0, curvature, 1.0), 0.0)
        step = self.lam[1] - self.lam[0]
        return np.clip(self.lam[i] + np.clip(shift, -1, 1) * step, 0.0, self.lam[-1])


def calibrate(measurements: Measurements, *, draws: int = DRAWS, seed: int = 0) -> CalibrationResult:  # noqa: PLR0915 - long: see the reason below
    # long: the fit in its order (frictions, magnets, restitution, then the Monte Carlo intervals), each step using the ones before
    """Fit a preset to ``measurements``: frictions, the magnets' strength, restitution.

    Parameters
    ----------
    measurements : Measurements
    draws : int
        Monte Carlo draws for the intervals.
    seed : int
        Seed of the draws (one run, one answer).

    Returns
    -------
    CalibrationResult
    """
    start = time.perf_counter()
    m = measurements
    base = m.base_preset()
    mass_g = float(np.mean(m.mass_g))
    J0 = max(s.polarization for s in base.tile.magnets)
    k_max = LIMITS["polarization_T"][1] / J0
    table = m.of("slide", "table")
    tile_slides = m.of("slide", "tile")
    magnet_groups = [r for r in m.readings if r.kind in ("overhang", "load")]
    bounces = m.of("bounce")

    theta_table = np.concatenate([r.values for r in table]) if table else None
    theta_tile = np.concatenate([r.values for r in tile_slides])
    mu_table = float(np.mean(np.tan(np.radians(theta_table)))) if table else None
    mu_tile = float(np.mean(np.tan(np.radians(theta_tile))))
    # The statics curves (at the table's friction; the tile-on-tile contact of the overhang
    # holds any sideways force, HOLD_MU), then the tiles' friction at the fitted magnets.
    statics = _Statics(_with(base, mu_tile, mu_table, 1.0))
    curves = _Curves(statics, magnet_groups, mass_g)
    # A measurement no magnet up to the largest J holds says nothing of J: left out of the
    # fit, and said (see _table). With none left, the layout's J is kept.
    all_groups = magnet_groups
    magnet_groups = [r for r in all_groups if float(curves.lam_of(r, r.mean)) <= k_max**2]
    if magnet_groups:
        fitter = _Fitter(curves, magnet_groups, k_max**2)
        k2 = float(fitter.fit(np.array([[r.mean for r in magnet_groups]]))[0])
    else:
        k2 = 1.0
    f_apart1 = statics.normal_magnet_ratio()  # at k = 1
    mu_tile = float(np.mean(_mu_tile(theta_tile, f_apart1 * k2)))
    k = math.sqrt(k2)

    # Monte Carlo over the measurements.
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    u = m.uncertainty

    def draw(values, sigma):
        picked = rng.choice(values, size=len(values), replace=True)
        return picked + rng.normal(0.0, sigma, len(values))

    samples = {"table": [], "tile": [], "k": [], "e": []}
    ratios = np.array([np.mean(draw(m.mass_g, u["mass_g"])) for _ in range(draws)]) / mass_g
    means = np.array([[np.mean(np.clip(draw(r.values, r.uncertainty), 0.0, None)) for r in magnet_groups] for _ in range(draws)])
    k2_draws = fitter.fit(means) * ratios if magnet_groups else np.full(draws, math.nan)  # k² = λ m / m_ref
    for ratio, k2_d in zip(ratios, k2_draws):
        samples["k"].append(math.sqrt(max(k2_d, 0.0)))
        if table:
            samples["table"].append(float(np.mean(np.tan(np.radians(np.clip(draw(theta_table, u["angle_deg"]), 0, 89.9))))))
        th = np.clip(draw(theta_tile, u["angle_deg"]), 0, 89.9)
        samples["tile"].append(float(np.mean(_mu_tile(th, f_apart1 * (k2_d / ratio if magnet_groups else k2)))))
        if bounces:
            es = [np.sqrt(np.clip(draw(b.values, b.uncertainty), 0, None) / b.at) for b in bounces]
            samples["e"].append(float(np.mean(np.concatenate(es))))

    def interval(xs):
        return (float(np.quantile(xs, 0.025)), float(np.quantile(xs, 0.975))) if len(xs) else (math.nan, math.nan)

    def rel(single, xs, value):
        """Relative σ of the set: over single readings' refits, else over the draws."""
        if value == 0:
            return 0.0
        sd = float(np.std(single, ddof=1)) if len(single) > 1 else float(np.std(xs, ddof=1))
        return min(abs(sd / value), 1.0)

    params = []
    if table:
        params.append(Parameter("table friction", "tile.table_friction", mu_table, *interval(samples["table"]), "",
                                rel(np.tan(np.radians(theta_table)), samples["table"], mu_table)))
    params.append(Parameter("tile friction", "tile.friction", mu_tile, *interval(samples["tile"]), "",
                            rel(_mu_tile(theta_tile, f_apart1 * k2), samples["tile"], mu_tile)))
    single_k = [math.sqrt(float(curves.lam_of(r, v))) for r in magnet_groups for v in r.values if math.isfinite(float(curves.lam_of(r, v)))]
    lo_k, hi_k = interval(samples["k"])
    if magnet_groups:
        params.append(Parameter("polarization", "tile.magnets.polarization_T", k * J0, lo_k * J0, hi_k * J0, "T",
                                rel(single_k, samples["k"], k)))
    else:  # nothing measured says what J is: the layout's, its spread the odds' default
        params.append(Parameter("polarization", "tile.magnets.polarization_T", J0, math.nan, math.nan, "T", 0.05, measured=False))
    e = None
    if bounces:
        e = float(np.mean(np.concatenate([np.sqrt(b.values / b.at) for b in bounces])))
        params.append(Parameter("restitution", "tile.restitution", e, *interval(samples["e"]), "",
                                rel(np.concatenate([np.sqrt(b.values / b.at) for b in bounces]), samples["e"], e)))
    mass_rel = min(float(np.hypot(u["mass_g"], np.std(m.mass_g, ddof=1) if len(m.mass_g) > 1 else 0.0)) / mass_g, 1.0)
    spread = {"polarization_rel_sigma": params[-2 if bounces else -1].rel_sigma,
              "friction_rel_sigma": max(p.rel_sigma for p in params if "friction" in p.name),
              "mass_rel_sigma": mass_rel}
    spread = {k_: round(v, 4) for k_, v in spread.items()}

    fitted = _with(base, mu_tile, mu_table, k, restitution=e)
    fitted = replace(fitted, name=m.name, description=_description(m, params), source="", spread=spread)
    rows, conflicts = _table(fitted, m, curves, k2, J0, k_max)
    return CalibrationResult(m, fitted, params, rows, conflicts, draws, seed, time.perf_counter() - start)


def _with(base: Preset, mu_tile: float, mu_table: float | None, k: float, restitution: float | None = None) -> Preset:
    tile = replace(base.tile, friction=float(mu_tile), table_friction=None if mu_table is None else float(mu_table))
    if restitution is not None:
        tile = replace(tile, restitution=float(min(max(restitution, 0.0), 1.0)))
    return _scale_magnets(base.with_changes(tile=tile), k)


def _description(m: Measurements, params: list[Parameter]) -> str:
    fit = "; ".join(f"{p.name} {p.value:.3g}{(' ' + p.unit) if p.unit else ''} "
                    + (f"(95 % {p.low:.3g}-{p.high:.3g})" if p.measured else "(not measured: the layout's)") for p in params)
    return (f"Calibrated by magdomino calibrate from {m.source}: the magnet layout of {m.layout.name} "
            f"(positions, shape, size kept), the measured tile size and mass; {fit}.")


def _table(fitted: Preset, m: Measurements, curves: _Curves, k2: float, J0: float, k_max: float) -> tuple[list[Row], list[str]]:
    statics = _Statics(fitted)  # k² = 1 here: the fitted magnets
    rows: list[Row] = []
    alone_k: dict[str, float] = {}
    for r in m.readings:
        if r.kind == "slide":
            what = "slide angle on the table" if r.on == "table" else "slide angle, tile across a tile"
            pred, unit = statics.slide_angle(r.on), "deg"
            alone = ""
        elif r.kind == "overhang":
            what, unit = f"largest overhang ({r.on})", "mm"
            pred = statics.largest_overhang(1.0, r.on) * 1000
            lam = float(curves.lam_of(r, r.mean))
            alone_k[r.key] = math.sqrt(lam) if math.isfinite(lam) else math.inf
            alone = _alone(alone_k[r.key], J0)
        elif r.kind == "load":
            what, unit = f"tipping load at {r.at:g} mm overhang", "g"
            pred = statics.largest_load(r.at / 1000, 1.0) * float(fitted.tile.mass) * 1000
            lam = float(curves.lam_of(r, r.mean))
            alone_k[r.key] = math.sqrt(lam) if math.isfinite(lam) else math.inf
            alone = _alone(alone_k[r.key], J0)
        else:
            what, unit = f"rebound from {r.at:g} mm", "mm"
            pred, alone = fitted.tile.restitution**2 * r.at, ""
        inside = abs(pred - r.mean) <= TOLERANCE_SIGMAS * r.sigma
        rows.append(Row(r.key, what, unit, len(r.values), r.mean, r.sigma, pred, bool(inside), alone))
    conflicts = []
    for row in rows:
        k_alone = alone_k.get(row.key)
        if k_alone is not None and k_alone > k_max:
            what = f"a tile {row.mean:g} mm out" if row.unit == "mm" else f"{row.mean:g} g at {row.what.rsplit(' at ', 1)[-1]}"
            conflicts.append(f"{row.key}: no magnet strength up to {k_max * J0:g} T holds {what} in the statics "
                             f"(left out of the fit): check the measurement, or the magnet layout")
        elif k_alone == 0 and not row.inside:
            conflicts.append(f"{row.key}: the tile tipped where it stands without magnets (the fit predicts "
                             f"{row.predicted:.3g} {row.unit}), which no attraction explains: check the measurement")
    magnet_rows = [row for row in rows if row.key in alone_k and alone_k[row.key] <= k_max]
    if len(magnet_rows) > 1 and any(not row.inside for row in magnet_rows):
        needs = ", ".join(f"{row.key} alone needs J = {_alone(alone_k[row.key], J0)[2:]}" for row in magnet_rows)
        conflicts.append(
            f"irreconcilable: no single magnet strength fits every overhang and load ({needs}); "
            f"the closest fit, J = {math.sqrt(k2) * J0:.3g} T, misses "
            + ", ".join(row.key for row in magnet_rows if not row.inside)
        )
    return rows, conflicts


def _alone(k: float, J0: float) -> str:
    if k == 0:
        return "J any (held without magnets)"
    if not math.isfinite(k) or k * J0 > LIMITS["polarization_T"][1]:
        return "J none (no magnet holds it)"
    return f"J {k * J0:.3g} T"


def format_table(result: CalibrationResult) -> str:
    """The fit and the table of measurements against the fitted preset, as text."""
    lines = [f"calibration of {result.measurements.name!r} ({result.measurements.source}), magnet layout "
             f"{result.measurements.layout.name}, {result.draws} Monte Carlo draws",
             "", f"{'parameter':<16} {'fit':>9} {'95 % interval':>19} {'spread':>7}"]
    for p in result.parameters:
        unit = f" {p.unit}" if p.unit else ""
        if not p.measured:
            lines.append(f"{p.name:<16} {p.value:>9.4g} {'not measured':>19}    (the layout's)")
            continue
        lines.append(f"{p.name:<16} {p.value:>9.4g} {f'{p.low:.4g} - {p.high:.4g}{unit}':>19} {p.rel_sigma:>6.1%}")
    lines += ["", f"{'measurement':<12} {'what':<38} {'n':>2} {'measured':>15} {'predicted':>10}  inside  alone"]
    for r in result.rows:
        measured = f"{r.mean:.2f} ± {TOLERANCE_SIGMAS * r.sigma:.2f}"
        lines.append(f"{r.key:<12} {r.what + ' (' + r.unit + ')':<38} {r.readings:>2} {measured:>15} {r.predicted:>10.2f}  "
                     f"{'yes' if r.inside else 'NO':<6}  {r.alone}")
    lines += [""] + result.conflicts if result.conflicts else []
    return "\n".join(line.rstrip() for line in lines)
