"""The one answer every engine gives about a placement: :class:`Verdict`.

How PyBullet's world reaches one (the settle loop and the fall criteria) is
:mod:`magdomino.physics.settle`; the statics builds its verdicts without a world
(:mod:`magdomino.physics.statics`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

FALL_REASONS = ("tilt", "drop", "table contact", "placed tile fell")
"""The reasons of a fall (see :mod:`magdomino.physics.settle` for each criterion)."""


@dataclass
class Verdict:
    """What happened after a placement (or after spawning a structure).

    Attributes
    ----------
    collapsed : bool
        The construction fell (the criteria: :mod:`magdomino.physics.settle`).
    reason : str
        ``"stood"``, ``"shifted"`` (settled after a shift), a fall (``"tilt"``, ``"drop"``,
        ``"table contact"``, ``"placed tile fell"``), ``"shift"`` (a shift counted as a
        collapse by the preset), ``"time limit"`` (neither settled nor fallen) or ``"error"``.
    shifted : bool
        A tile moved more than ``max_shift_mm`` without falling (see :mod:`magdomino.physics.settle`).
    shifted_tile : int or None
        The tile that moved farthest, when shifted.
    settled : bool
        Every tile came to rest.
    error : str or None
        A numerical blow-up (NaN, absurd speed); such a verdict is never a collapse.
    culprit : int or None
        Index of the tile that met a collapse criterion first.
    moved_tiles : list of dict
        ``{"tile", "pips", "shift_mm", "tilt_deg"}`` for every watched or placed tile that
        moved more than a tenth of a threshold.
    max_shift_mm, max_tilt_deg : float
        Largest displacement and tilt of a watched tile from its reference.
    sim_time_s, wall_time_s : float
        Simulated and elapsed time of the settle.
    thresholds : dict
        The thresholds used (``max_shift_mm``, ``max_tilt_deg``, ``max_drop_mm``).
    margin_deg, tilt_direction_deg : float or None
        The statics' tilt margin (largest table tilt survived, degrees; negative when it
        falls) and the worst downhill direction; None from an engine that does not know.
    load_factor : float or None
        The statics' largest factor on the placed tile's weight that still stands.
    contacts : int or None
        Contact polygons the statics found.
    engine : str
        Who answered (``"dynamics"``, ``"statics"``, ...): every engine returns this one
        type, with what it does not know left None (a dynamic verdict has no margin, a
        static one no settle time, shift or tilt).
    unsure : bool or None
        The statics adjudicator could not be sure of this answer
        (:mod:`magdomino.physics.statics_adjudicator`): True on its unsure answers, and on
        the verdict of the engine it then asked; False on its sure ones; None from an
        engine that does not grade its answers.
    """

    collapsed: bool
    reason: str
    settled: bool | None
    max_shift_mm: float | None
    max_tilt_deg: float | None
    sim_time_s: float | None
    wall_time_s: float
    moved_tiles: list[dict] | None = field(default_factory=list)
    culprit: int | None = None
    error: str | None = None
    thresholds: dict | None = field(default_factory=dict)
    shifted: bool | None = False
    shifted_tile: int | None = None
    margin_deg: float | None = None
    tilt_direction_deg: float | None = None
    load_factor: float | None = None
    contacts: int | None = None
    engine: str = "dynamics"
    unsure: bool | None = None

    @property
    def stands(self) -> bool:
        """Nothing fell and nothing failed (the statics' word)."""
        return not self.collapsed and not self.error

    def to_dict(self) -> dict:
        """The verdict as JSON: the same keys whatever the engine (null where it does not know)."""
        d = asdict(self)
        for k in ("max_shift_mm", "max_tilt_deg", "sim_time_s", "wall_time_s", "margin_deg", "tilt_direction_deg", "load_factor"):
            if d[k] is not None:
                d[k] = round(float(d[k]), 6) if math.isfinite(d[k]) else None
        return d

