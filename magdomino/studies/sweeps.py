"""Sweeps: the odds of collapse as a function of one parameter (a noise σ, the magnets'
strength, an offset of the hand), with common random numbers across the values."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from magdomino.errors import ARGUMENTS, InputError
from magdomino.model.presets import Preset
from magdomino.studies.odds import OddsResult, OddsSettings, RunLog, executor_for, jobs_for, odds_settings, run_odds
from magdomino.studies.runner import runner_for
from magdomino.studies.scenario import NOISE_KEYS, SLIDE_LIMIT_MM, Scenario, check_noise, with_preset
from magdomino.studies.trials import varied_preset

SWEEP_PARAMS = {
    **{k: v for k, v in NOISE_KEYS.items() if k != "drop_mm"},
    "polarization_scale": "factor on every magnet's polarisation J (structure and placement)",
    "offset_x_mm": "shift of every what-if placement along x, mm",
    "offset_y_mm": "shift of every what-if placement along y, mm",
}
"""Parameters :func:`sweep` can vary, with what they mean."""

SCALE_LIMIT = 10.0
"""Largest ``polarization_scale`` of a sweep (10 × 1.2 T is far past any magnet)."""


@dataclass
class SweepResult:
    """Odds as a function of one parameter."""

    param: str
    values: list[float]
    runs: list[OddsResult]

    def to_dict(self) -> dict:
        first = self.runs[0].to_dict()
        doc = {k: first[k] for k in ("version", "engine", "name", "seed", "preset", "magnets", "tile_size_mm")}
        base_noise = dict(first["noise"])
        if self.param in base_noise:
            del base_noise[self.param]
        doc.update(
            noise=base_noise,
            param=self.param,
            values=list(self.values),
            results=[
                {"value": v, "noise": run.noise, "offset_mm": list(run.offset_mm), "results": [r.to_dict() for r in run.results]}
                for v, run in zip(self.values, self.runs)
            ],
        )
        return doc


# -- sweeps -------------------------------------------------------------------------------


def scaled_polarization(preset: Preset, scale: float) -> Preset:
    """A copy of ``preset`` with every magnet's polarisation J multiplied by ``scale``."""
    return varied_preset(preset, np.full(len(preset.tile.magnets), float(scale)), 1.0, 1.0)


def sweep(
    scenario: Scenario,
    param: str,
    values,
    settings: OddsSettings | int,
    /,
    *,
    what_ifs: list[int] | None = None,
    **changes,
) -> SweepResult:
    """Odds as a function of one parameter (see :data:`SWEEP_PARAMS`).

    Every value uses the same seed, so trial ``i`` sees the same random numbers at every
    value (common random numbers: the curve's steps are the parameter's, not the dice's).
    ``polarization_scale`` also settles the structure again with the scaled magnets. With
    ``out_dir``, value ``k`` streams to ``sweep-PARAM-k.jsonl``. ``settings`` and keyword
    changes as :func:`estimate_odds`; one executor serves every value.
    """
    if param not in SWEEP_PARAMS:
        raise InputError(ARGUMENTS, "param", f"expected one of {', '.join(SWEEP_PARAMS)}, got {param!r}")
    try:
        values = [float(v) for v in values]
    except (TypeError, ValueError):
        raise InputError(ARGUMENTS, "values", "expected numbers") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(ARGUMENTS, "values", "expected one or more finite numbers")
    if not param.startswith("offset_") and any(v < 0 for v in values):
        raise InputError(ARGUMENTS, "values", f"expected values >= 0 for {param}, got {min(values):g}")
    if param.startswith("offset_") and not scenario.what_if:
        raise InputError(scenario.source, "what_if", f"expected at least one [[what_if]] to sweep {param}")
    if param == "polarization_scale" and (not scenario.magnets or not scenario.preset.tile.magnets):
        raise InputError(scenario.source, "magnets", f"expected magnets to sweep {param} (this scenario has none on)")
    if param == "polarization_scale" and max(values) > SCALE_LIMIT:
        raise InputError(ARGUMENTS, "values", f"expected factors in [0, {SCALE_LIMIT:g}] for {param}, got {max(values):g}")
    if param.startswith("offset_") and max(abs(v) for v in values) > SLIDE_LIMIT_MM:
        raise InputError(ARGUMENTS, "values", f"expected offsets within ±{SLIDE_LIMIT_MM:g} mm, got {max(values, key=abs):g}")
    if param in NOISE_KEYS:
        for v in values:  # each value as the noise table would take it, said in terms of --values
            try:
                check_noise({param: v}, ARGUMENTS)
            except InputError as exc:
                raise InputError(ARGUMENTS, "values", exc.expected + f" for {param}") from None
    run = odds_settings(settings, **changes).checked(scenario)  # checked once, before the first value
    n_what_ifs = len(what_ifs) if what_ifs is not None else max(1, len(scenario.what_if))
    runs = []
    work = run.trials * n_what_ifs * len(values)
    jobs = jobs_for(run, run.trials * n_what_ifs)
    with runner_for(executor_for(run, work, jobs), jobs, run.scheduler) as runner:
        for k, value in enumerate(values):
            sc, run_noise, offset = scenario, dict(run.noise or {}), (0.0, 0.0)
            if param == "polarization_scale":
                sc = with_preset(scenario, scaled_polarization(scenario.preset, value))
            elif param == "offset_x_mm":
                offset = (value, 0.0)
            elif param == "offset_y_mm":
                offset = (0.0, value)
            else:
                run_noise[param] = value
            runs.append(
                run_odds(
                    sc, replace(run, executor=runner, noise=run_noise), offset_mm=offset, what_ifs=what_ifs,
                    log=RunLog(f"sweep-{param}-{k:03d}.jsonl", {"param": param, "value": value}, required=k == 0),
                )
            )
    return SweepResult(param, values, runs)
