"""One Monte Carlo trial of the odds: a hand that is not perfect, tiles that are not all alike.

A trial places the tile again (or spawns the structure again) in a fresh world with the
noise below, and records the verdict (:func:`run_trial`, run in the workers by
:mod:`magdomino.studies.odds`).

Noise model
-----------
Set in the scenario's ``[noise]`` table (keys checked by :func:`magdomino.studies.scenario.check_noise`)
and overridable from Python or the command line; unset keys take the preset's ``[spread]``
(a calibrated set's own σ, see :mod:`magdomino.studies.calibrate`), else :data:`NOISE_DEFAULTS`.

``pos_sigma_mm`` (1.0)
    Position error of the hand, a Gaussian σ along x and, independently, along y.
    For scale: Battaglia, Hamrick & Tenenbaum (2013, PNAS, "Simulation as an engine of
    physical scene understanding") perturbed block positions by about a fifth of a block's
    width and called a block fallen when it moved more than a quarter width. That models a
    person *judging a picture* of a tower. Here a hand *places* a small tile it holds, looking
    at it from close, on a target it can feel: deliberate, slow finger placement ends within
    about a millimetre. 1 mm is 1/24 of the tile's width; the collapse threshold
    (``max_shift_mm``, 5 mm, about a fifth of the width) keeps Battaglia's scale of "fallen".
``yaw_sigma_deg`` (2.0)
    Heading error, Gaussian σ. 2° moves the tile's ends (24 mm from the centre) by 0.84 mm,
    the same size as the position error.
``drop_mm`` ([0, 2])
    Release height above rest, uniform in [low, high]: a tile let go just above its rest,
    from touching (0) to a visible gap (2 mm). It replaces the what-if's own ``drop_mm``.
``polarization_rel_sigma`` (0.05)
    Relative σ of each magnet's polarisation J: a grade such as N35 spans 1.17-1.21 T
    (±1.7 %), and a magnet's pull also depends on its seating in the cavity and on ageing;
    5 % covers both.
``friction_rel_sigma`` (0.10)
    Relative σ of the friction coefficients (one factor on the tiles' and the table's):
    friction of nominally identical surfaces
    varies by 10-20 % with wear, dust and humidity.
``mass_rel_sigma`` (0.02)
    Relative σ of the tile mass: about 0.2 g on a 10 g moulded or wooden tile.

Relative factors are ``1 + σ z`` (z standard normal), clipped to at least
:data:`MIN_FACTOR` so that a mass, a friction or a polarisation never turns negative. The
preset describes one tile type, so a trial draws one factor per magnet of that tile (applied
to every tile), one friction factor and one mass factor. Position, yaw and drop noise apply
to the placed tile of a what-if. With no what-if, position and yaw noise apply to every
tile of the structure (each spawned where the hand put it, resting on the noisy tiles
below) and the structure is settled; **drop noise does not apply** there: the tiles are
spawned all at once, each at rest on those below (or at its file height), and none is
dropped. Every trial draws every number whatever the σ, in a fixed order, so trial ``i``
sees the same standard normals for any noise setting (a sweep over a σ uses common random
numbers and gives a smooth curve).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from magdomino.errors import ARGUMENTS
from magdomino.model.presets import Preset
from magdomino.physics.settle import settle
from magdomino.physics.verdict import Verdict
from magdomino.physics.world import SlideShortcuts, World
from magdomino.studies.aiming import structure_poses
from magdomino.studies.scenario import Scenario, check_noise
from magdomino.studies.simulation import build_structure, try_placement
from magdomino.studies.trial_record import TrialRecord, error_outcome, hand_draws, trial_record, verdict_outcome

NOISE_DEFAULTS: dict[str, Any] = {
    "pos_sigma_mm": 1.0,
    "yaw_sigma_deg": 2.0,
    "drop_mm": [0.0, 2.0],
    "polarization_rel_sigma": 0.05,
    "friction_rel_sigma": 0.10,
    "mass_rel_sigma": 0.02,
}
"""Noise of a careful human hand and of a set of tiles (rationale in the module docstring)."""

MIN_FACTOR = 1e-3
"""Smallest relative factor of a mass, friction or polarisation (clipping keeps them positive)."""

# -- noise --------------------------------------------------------------------------------


def resolve_noise(scenario: Scenario, overrides: dict | None = None) -> dict[str, Any]:
    """The noise of a run: defaults, then the preset's ``[spread]``, then the scenario's
    ``[noise]``, then ``overrides``."""
    noise = {k: (list(v) if isinstance(v, list) else v) for k, v in NOISE_DEFAULTS.items()}
    noise.update(getattr(scenario.preset, "spread", None) or {})
    noise.update(scenario.noise)
    if overrides:
        noise.update(check_noise(dict(overrides), ARGUMENTS, key="noise"))
    return noise


def varied_preset(preset: Preset, polarization: np.ndarray, friction: float, mass: float) -> Preset:
    """A copy of ``preset`` with each magnet's J, the friction (the table's too) and the mass multiplied."""
    tile = preset.tile
    magnets = tuple(replace(m, polarization=m.polarization * float(f)) for m, f in zip(tile.magnets, polarization))
    table = None if tile.table_friction is None else tile.table_friction * friction
    return preset.with_changes(
        tile=replace(tile, magnets=magnets, friction=tile.friction * friction, mass=tile.mass * mass, table_friction=table)
    )


def _factors(rng: np.random.Generator, n_magnets: int, noise: dict) -> tuple[np.ndarray, float, float]:
    z = rng.standard_normal(n_magnets + 2)
    pol = np.maximum(1 + noise["polarization_rel_sigma"] * z[:n_magnets], MIN_FACTOR)
    friction = max(1 + noise["friction_rel_sigma"] * float(z[n_magnets]), MIN_FACTOR)
    mass = max(1 + noise["mass_rel_sigma"] * float(z[n_magnets + 1]), MIN_FACTOR)
    return pol, friction, mass


def trial_stream(seed: int, trial: int) -> np.random.Generator:
    """The random stream of trial ``trial``: child ``trial`` of ``SeedSequence(seed).spawn``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(trial,)))


# -- one trial (runs in a worker) ---------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """Everything a worker needs, pickled with every chunk of trials."""

    scenario: Scenario
    settled: tuple[np.ndarray, np.ndarray] | None
    noise: dict
    seed: int
    offset_mm: tuple[float, float]
    hook: Callable | None = None
    engine: Any = None  # a magdomino.studies.engines.Engine


def run_chunk(job: Job, what_if: int | None, trials: list[int]) -> list[dict]:
    """The records of these trials, judged by the job's engine."""
    return job.engine.run_trials(job, what_if, trials)


def trial_draws(job: Job, what_if: int | None, trial: int) -> tuple[Preset, np.ndarray]:
    """The random numbers of one trial, drawn in their fixed order (the one place they are
    drawn: trial ``i`` sees the same hand and the same tiles whatever the engine).

    Returns
    -------
    preset : Preset
        ``job.scenario.preset`` with this trial's magnets, friction and mass.
    miss : ndarray
        No what-if: shape (n, 3), each structure tile's (dx mm, dy mm, dyaw deg). A what-if:
        shape (4,), the placed tile's (dx mm, dy mm, dyaw deg, drop mm), ``job.offset_mm`` included.
    """
    sc, noise = job.scenario, job.noise
    rng = trial_stream(job.seed, trial)
    n_magnets = len(sc.preset.tile.magnets)
    if what_if is None:
        z = rng.standard_normal((len(sc.structure), 3))
        preset = varied_preset(sc.preset, *_factors(rng, n_magnets, noise))
        return preset, z * [noise["pos_sigma_mm"], noise["pos_sigma_mm"], noise["yaw_sigma_deg"]]
    z = rng.standard_normal(3)
    u = rng.random()
    preset = varied_preset(sc.preset, *_factors(rng, n_magnets, noise))
    lo, hi = noise["drop_mm"]
    return preset, np.array([
        job.offset_mm[0] + noise["pos_sigma_mm"] * float(z[0]),
        job.offset_mm[1] + noise["pos_sigma_mm"] * float(z[1]),
        noise["yaw_sigma_deg"] * float(z[2]),
        lo + (hi - lo) * u,
    ])


def run_trial(job: Job, what_if: int | None, trial: int, rest_check_for: Callable | None = None,
              slide_shortcuts: SlideShortcuts | None = None) -> TrialRecord:
    """Run one trial; returns its record (never raises for a failing simulation).

    ``rest_check_for(preset)``, when given, returns the ``rest_check`` of a what-if's settle
    (:func:`~magdomino.physics.settle.settle`) for the trial's varied preset;
    ``slide_shortcuts`` makes a slid what-if's steps cheaper
    (:meth:`~magdomino.physics.world.World.slide`)."""
    sc = job.scenario
    record = trial_record(what_if, trial)
    try:
        if what_if is None:
            preset, deltas = trial_draws(job, None, trial)
            if job.hook is not None:
                job.hook(what_if, trial)
            verdict = _structure_trial(sc, preset, deltas)
        else:
            preset, miss = trial_draws(job, what_if, trial)
            dx, dy, dyaw, drop = (float(v) for v in miss)
            record.update(hand_draws(miss))
            if job.hook is not None:
                job.hook(what_if, trial)
            verdict = try_placement(
                sc, job.settled, sc.what_if[what_if], preset=preset, offset_mm=(dx, dy), yaw_offset_deg=dyaw, drop_mm=drop,
                rest_check=None if rest_check_for is None else rest_check_for(preset), slide_shortcuts=slide_shortcuts,
            )
        record.update(verdict_outcome(verdict))
    except Exception as exc:  # a trial that raises is reported as an error, never counted
        record.update(error_outcome(f"{type(exc).__name__}: {exc}"))
    return record


def _structure_trial(scenario: Scenario, preset: Preset, deltas: np.ndarray) -> Verdict:
    """Spawn the structure where a noisy hand puts it (``deltas`` (n, 3): dx mm, dy mm, dyaw deg) and settle.

    No drop: every tile is spawned at rest on the (noisy) tiles below it, or at its file height.
    """
    world = World(preset, magnets=scenario.magnets)
    try:
        used = structure_poses(scenario, world.size, deltas)
        build_structure(scenario, world, (np.array([p for p, _ in used]), np.array([q for _, q in used])))
        return settle(world, list(range(len(scenario.structure))))
    finally:
        world.close()
