"""Home measurements of one's own set, read and checked (the file of ``magdomino calibrate``).

The format (lengths in mm, angles in degrees, masses in g; a value is one number or a list
of repeated readings)::

    name = "our set"
    magnet_layout = "standard"      # a preset (name or file): its magnets' positions, shape
                                    # and size are kept, their polarisation is fitted
    [tile]
    size_mm = [48, 24, 8]           # ruler
    mass_g = 10.2                   # kitchen scale (weigh ten tiles, divide by ten)

    [[slide]]                       # a tile on a surface tilted slowly until it slides
    on = "table"                    # "table": on the table's material; "tile": laid across
    angle_deg = [26, 28, 27]        #   the middle of another tile held on the surface

    [[overhang]]                    # a tile resting on another, pushed slowly out along its
    direction = "along"             # length until it tips: how far its end had passed the
    overhang_mm = [27.0, 27.5]      # lower tile's end ("across": laid across, past its side)

    [[load]]                        # optional: a tile overhanging (along) by overhang_mm,
    overhang_mm = 20                # weights added on its far end until it tips
    load_g = 6.5

    [[bounce]]                      # optional: dropped flat from height_mm onto the table
    height_mm = 100
    rebound_mm = 8

    [uncertainty]                   # optional; these are the defaults
    length_mm = 0.5
    angle_deg = 1.0
    mass_g = 0.1

:func:`load_measurements` checks every value (one :class:`~magdomino.errors.InputError`
naming the file and the key); the fit is :mod:`magdomino.studies.calibrate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from magdomino.checks import FileChecks, check_number
from magdomino.errors import InputError
from magdomino.model.presets import LIMITS, Preset, load_preset, read_toml, with_overrides

UNCERTAINTY_DEFAULTS = {"length_mm": 0.5, "angle_deg": 1.0, "mass_g": 0.1}
"""The tools' resolution: a ruler ±0.5 mm, a protractor (or a phone's level) ±1°, a kitchen
scale ±0.1 g. Taken as one standard deviation of each reading's error."""

MAX_READINGS = 1000
"""More repeated readings of one measurement than anyone takes: a typing mistake."""


@dataclass(frozen=True)
class Reading:
    """Repeated readings of one measurement (file units: mm, degrees, g).

    Attributes
    ----------
    kind : {"slide", "overhang", "load", "bounce"}
    key : str
        Where it is in the file, e.g. ``"overhang[1]"``.
    values : ndarray, shape (r,)
        The readings: slide angle (deg), overhang (mm), load (g), rebound (mm).
    uncertainty : float
        One reading's instrument σ (same unit).
    on : str
        Slide: ``"table"`` or ``"tile"``; overhang: ``"along"`` or ``"across"``; load:
        ``"along"``; bounce: ``"table"``.
    at : float or None
        Load: the overhang (mm) where the load was hung; bounce: the drop height (mm).
    """

    kind: str
    key: str
    values: np.ndarray
    uncertainty: float
    on: str
    at: float | None = None

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @cached_property
    def sigma(self) -> float:
        """σ of one reading: the instrument's and the readings' spread together."""
        spread = float(np.std(self.values, ddof=1)) if len(self.values) > 1 else 0.0
        return float(np.hypot(self.uncertainty, spread))


@dataclass(frozen=True)
class Measurements:
    """A checked measurement file.

    Attributes
    ----------
    name, source : str
    layout : Preset
        The named magnet layout (its magnets' positions, shape, size and relative J kept).
    size_mm : ndarray, shape (3,)
        Mean tile size (length, width, thickness).
    mass_g : ndarray, shape (r,)
        Mass readings of one tile.
    readings : tuple of Reading
        Slides, overhangs, loads and bounces in file order.
    uncertainty : dict
        ``length_mm``, ``angle_deg``, ``mass_g``.
    """

    name: str
    source: str
    layout: Preset
    size_mm: np.ndarray
    mass_g: np.ndarray
    readings: tuple[Reading, ...]
    uncertainty: dict

    def of(self, kind: str, on: str | None = None) -> list[Reading]:
        """The readings of one kind (and one surface or direction)."""
        return [r for r in self.readings if r.kind == kind and (on is None or r.on == on)]

    def base_preset(self) -> Preset:
        """The layout preset with the measured size and mean mass (J, friction as the layout's)."""
        return with_overrides(
            self.layout, {"tile.size_mm": [float(v) for v in self.size_mm], "tile.mass_g": float(np.mean(self.mass_g))}, self.source
        )


def _readings(c: FileChecks, table: dict, path: str, key: str, *, maximum: float | None = None, below: float | None = None,
              positive: bool = True) -> np.ndarray:
    """One number or a non-empty list of numbers, each > 0 (or >= 0), <= maximum, < below."""
    if key not in table:
        c.fail(f"{path}.{key}", "a value (a number, or a list of repeated readings); it is missing")
    value = table[key]
    values = value if isinstance(value, list) else [value]
    if not values:
        c.fail(f"{path}.{key}", "at least one reading; the list is empty")
    if len(values) > MAX_READINGS:
        c.fail(f"{path}.{key}", f"at most {MAX_READINGS} readings, got {len(values)}")
    out = []
    for i, v in enumerate(values):
        where = f"{path}.{key}" + (f"[{i}]" if isinstance(value, list) else "")
        if isinstance(v, str):
            c.fail(where, f"a plain number (the unit is in the key's name: {key}), got the text {v!r}")
        x = check_number(c.source, where, v, positive=positive, minimum=None if positive else 0.0, maximum=maximum)
        if below is not None and x >= below:
            c.fail(where, f"a value below {below:g}, got {x:g}")
        out.append(x)
    return np.array(out, float)


def _reading(c: FileChecks, kind: str, path: str, t: dict[str, Any], uncertainty: dict[str, float], size_mm: np.ndarray) -> Reading:
    """One ``[[slide]]``, ``[[overhang]]``, ``[[load]]`` or ``[[bounce]]`` table (``kind``), checked, as a :class:`Reading`."""
    if kind == "slide":
        c.keys(t, path, required={"on", "angle_deg"}, optional=set())
        on = c.choice(t, f"{path}.on", "on", ("table", "tile"), None)
        values = _readings(c, t, path, "angle_deg", below=90.0)
        return Reading("slide", path, values, uncertainty["angle_deg"], on)
    elif kind == "overhang":
        c.keys(t, path, required={"overhang_mm"}, optional={"direction"})
        on = c.choice(t, f"{path}.direction", "direction", ("along", "across"), "along")
        values = _readings(c, t, path, "overhang_mm", positive=False)
        _within_tile(c, path, values, size_mm)
        return Reading("overhang", path, values, uncertainty["length_mm"], on)
    elif kind == "load":
        c.keys(t, path, required={"overhang_mm", "load_g"}, optional=set())
        at = _readings(c, t, path, "overhang_mm", positive=False)
        if len(at) != 1:
            c.fail(f"{path}.overhang_mm", "one overhang (the load's readings repeat, the overhang is set)")
        _within_tile(c, path, at, size_mm)
        values = _readings(c, t, path, "load_g", maximum=LIMITS["mass_g"][1])
        return Reading("load", path, values, uncertainty["mass_g"], "along", float(at[0]))
    else:
        c.keys(t, path, required={"height_mm", "rebound_mm"}, optional=set())
        height = _readings(c, t, path, "height_mm", maximum=2000.0)
        if len(height) != 1:
            c.fail(f"{path}.height_mm", "one drop height (the rebound's readings repeat, the height is set)")
        values = _readings(c, t, path, "rebound_mm", positive=False)
        if np.any(values > height[0]):
            c.fail(f"{path}.rebound_mm", f"rebounds below the drop height ({height[0]:g} mm), got {values.max():g}")
        return Reading("bounce", path, values, uncertainty["length_mm"], "table", float(height[0]))


def measurements_from_dict(data: dict[str, Any], source: str = "<measurements>", relative_to: Path | None = None) -> Measurements:
    """Check measurement data (as read from the TOML file) and return :class:`Measurements`."""
    c = FileChecks(source)
    c.keys(data, "", required={"magnet_layout", "tile", "slide", "overhang"},
           optional={"name", "load", "bounce", "uncertainty"})
    name = c.string(data, "name") if "name" in data else (Path(source).stem if source.endswith(".toml") else "my set")
    layout_name = data["magnet_layout"]
    if not isinstance(layout_name, str):
        c.fail("magnet_layout", "a preset name or a path to a preset file (text)")
    try:
        layout = load_preset(layout_name, relative_to)
    except InputError as exc:
        raise InputError(source, "magnet_layout", exc.expected if exc.source in ("arguments",) else f"a valid preset ({exc})") from None
    if not layout.tile.magnets:
        c.fail("magnet_layout", f"a preset with magnets (its magnets' polarisation is what is fitted); {layout.name} has none")

    uncertainty = dict(UNCERTAINTY_DEFAULTS)
    if "uncertainty" in data:
        u = c.table(data, "uncertainty")
        c.keys(u, "uncertainty", required=set(), optional=set(UNCERTAINTY_DEFAULTS))
        for k in u:
            uncertainty[k] = c.number(u, f"uncertainty.{k}", k, positive=True, maximum=100.0)

    tile = c.table(data, "tile")
    c.keys(tile, "tile", required={"size_mm", "mass_g"}, optional=set())
    size = tile["size_mm"]
    if not isinstance(size, list) or len(size) != 3:
        c.fail("tile.size_mm", "a list of 3 lengths in mm: [length, width, thickness]")
    for i, v in enumerate(size):
        if isinstance(v, (str, bool)) or not isinstance(v, (int, float)):
            c.fail(f"tile.size_mm[{i}]", f"a plain number (mm), got {v!r}")
        check_number(source, f"tile.size_mm[{i}]", v, minimum=LIMITS["size_mm"][0], maximum=LIMITS["size_mm"][1])
    size_mm = np.array(size, float)
    if not size_mm[0] >= size_mm[1]:
        c.fail("tile.size_mm", f"[length, width, thickness] with the length first (the longest side), got {list(size)}")
    mass_g = _readings(c, tile, "tile", "mass_g", maximum=LIMITS["mass_g"][1])

    readings: list[Reading] = []
    for kind in ("slide", "overhang", "load", "bounce"):
        items = data.get(kind, [])
        if not isinstance(items, list) or not all(isinstance(t, dict) for t in items):
            c.fail(kind, f"an array of tables ([[{kind}]])")
        for i, t in enumerate(items):
            path = f"{kind}[{i}]"
            readings.append(_reading(c, kind, path, t, uncertainty, size_mm))
    if not any(r.kind == "slide" and r.on == "tile" for r in readings):
        c.fail("slide", 'at least one [[slide]] with on = "tile" (the tiles\' friction)')
    if not any(r.kind == "overhang" for r in readings):
        c.fail("overhang", "at least one [[overhang]] (the magnets' strength)")
    m = Measurements(name, source, layout, size_mm, mass_g, tuple(readings), uncertainty)
    try:
        m.base_preset()
    except InputError as exc:
        raise InputError(source, "tile.size_mm", f"a tile that holds {layout.name}'s magnets ({exc.key}: {exc.expected})") from None
    return m


def _within_tile(c: FileChecks, path: str, values: np.ndarray, size_mm: np.ndarray) -> None:
    if np.any(values >= size_mm[0]):
        c.fail(f"{path}.overhang_mm", f"an overhang shorter than the tile's length ({size_mm[0]:g} mm), got {values.max():g}")


def load_measurements(path: str | Path) -> Measurements:
    """Read and check a measurement file (TOML).

    Raises
    ------
    InputError
        One line naming the file and the key: a missing or negative value, text where a
        number belongs, an overhang beyond the tile's length, an angle of 90° or more, a
        magnet layout that is not a preset, an unknown key.
    """
    path = Path(path)
    return measurements_from_dict(read_toml(path, "measurement"), str(path), path.parent)
