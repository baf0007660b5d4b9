"""Physical presets: tile size and mass, friction, magnets, solver settings, thresholds.

A preset is a TOML file (``magdomino/model/preset_files/NAME.toml`` or any path). Its schema is a
contract that users write against::

    name = "standard"
    description = "..."
    [tile]
    size_mm = [48, 24, 8]          # length, width, thickness (required)
    mass_g = 10                    # required
    friction = 0.5                 # optional
    restitution = 0.0              # optional
    collision = "box"              # optional: "box" (default) or "mesh" (convex hull)
    colours = ["red", ...]         # optional
    [[tile.magnets]]               # any number, in the tile frame
    pos_mm = [-12, 0, 0]
    shape = "cylinder"             # or "cuboid"
    size_mm = [6, 2]               # cylinder: diameter, height; cuboid: x, y, z
    polarization_T = 1.2
    axis = [0, 0, 1]               # magnetisation direction in the tile frame
    free = false                   # the magnet turns in its cavity to follow the field
    [solver]                       # optional, see SOLVER_DEFAULTS
    [collapse]                     # optional, see COLLAPSE_DEFAULTS

Colours: tile number ``i`` (in the order of :func:`magdomino.model.tiles.all_tiles`) gets
``colours[i % len(colours)]``; the default palette has seven colours, so each hand holds
several. A colour is a name from :data:`COLOUR_RGB` or a ``"#rrggbb"`` string.

Every value is checked on load; a bad one raises :class:`~magdomino.errors.InputError`
naming the file and the key. Values are converted to SI once, here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from magdomino.errors import ARGUMENTS, InputError
from magdomino.model.checks import _Checker, check_number  # noqa: F401 - check_number is used by scenarios

PRESET_DIR = Path(__file__).resolve().parent / "preset_files"

COLOUR_RGB: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.16, 0.16),
    "orange": (0.95, 0.55, 0.10),
    "yellow": (0.96, 0.85, 0.15),
    "green": (0.20, 0.65, 0.25),
    "blue": (0.15, 0.40, 0.85),
    "purple": (0.55, 0.25, 0.70),
    "pink": (0.95, 0.50, 0.70),
    "white": (0.95, 0.95, 0.92),
    "black": (0.10, 0.10, 0.10),
    "grey": (0.55, 0.55, 0.55),
    "brown": (0.55, 0.35, 0.18),
    "cyan": (0.15, 0.75, 0.80),
}
DEFAULT_COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "pink"]

TILE_DEFAULTS = {"friction": 0.5, "restitution": 0.0, "collision": "box"}
"""Optional ``[tile]`` keys. Friction 0.5 is a typical value for lacquered wood or ABS on
itself (0.3-0.6); restitution 0 because the tiles do not bounce noticeably."""

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
  (DESIGN.md, "collapse"); so has one that comes down to the table. 5 mm is far beyond any
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

SHAPES = {"cylinder": 2, "cuboid": 3}

LIMITS: dict[str, tuple[float, float]] = {
    "size_mm": (1.0, 500.0),
    "mass_g": (0.0, 1000.0),
    "friction": (0.0, 5.0),
    "polarization_T": (0.0, 2.0),
    "solver.time_step_s": (1e-5, 1 / 240),
    "solver.iterations": (1, 1000),
    "solver.magnet_idle_steps": (1, 1000),
    "solver.gravity_m_s2": (0.0, 100.0),
    "solver.magnet_update_mm": (0.0, 10.0),
    "solver.magnet_update_deg": (0.0, 45.0),
    "solver.magnet_linear_mm": (0.0, 10.0),
    "solver.magnet_linear_deg": (0.0, 45.0),
    "solver.contact_erp": (0.0, 1.0),
    "collapse.max_shift_mm": (0.0, 1000.0),
    "collapse.max_tilt_deg": (0.0, 180.0),
    "collapse.max_drop_mm": (0.0, 1000.0),
    "collapse.settle_speed_mm_s": (0.0, 1000.0),
    "collapse.settle_spin_deg_s": (0.0, 3600.0),
    "collapse.settle_hold_s": (0.0, 60.0),
    "collapse.time_limit_s": (0.0, 60.0),
}
"""What makes physical sense, as (low, high) in file units; a bound of 0 is exclusive (the
value must be > 0) except for gravity (0: no gravity), every other bound inclusive. A tile of 1 mm to half a metre and at most a
kilogram, friction up to 5 (rubber on rubber is about 1-2), NdFeB magnets below 1.5 T; a
time step from 10 µs to PyBullet's default 1/240 s (beyond it these small tiles tunnel and
topple); at most a minute of simulated time per settle."""

MAX_STEPS = 2_000_000
"""Most solver steps in one settle (``time_limit_s / time_step_s``): a run always ends (2e6
steps of a small structure take a few minutes)."""

_INTEGER_KEYS = {"solver.iterations", "solver.magnet_idle_steps"}


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
    def from_file(cls, values: dict[str, Any]) -> "SolverSettings":
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
    def from_file(cls, values: dict[str, Any]) -> "CollapseSettings":
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


@dataclass(frozen=True)
class MagnetSpec:
    """One magnet in a tile, in the tile frame, SI units.

    Attributes
    ----------
    position : ndarray, shape (3,), m
        Centre of the magnet in the tile frame (origin at the tile's centre).
    shape : {"cylinder", "cuboid"}
    dimensions : tuple of float, m
        Cylinder: (diameter, height); cuboid: (x, y, z), in the magnet's own frame whose
        z axis is ``axis``.
    polarization : float, T
        Remanent polarisation J (= μ0 M).
    axis : ndarray, shape (3,)
        Unit magnetisation direction in the tile frame.
    free : bool
        The magnet turns in its cavity to line up with the local field.
    """

    position: np.ndarray
    shape: str
    dimensions: tuple[float, ...]
    polarization: float
    axis: np.ndarray
    free: bool = False

    @property
    def volume(self) -> float:
        """Magnet volume (m³)."""
        if self.shape == "cylinder":
            d, h = self.dimensions
            return math.pi * d * d / 4 * h
        x, y, z = self.dimensions
        return x * y * z

    @property
    def moment(self) -> float:
        """Magnitude of the dipole moment, m = J V / μ0 (A·m²)."""
        return self.polarization * self.volume / (4e-7 * math.pi)


@dataclass(frozen=True)
class TileSpec:
    """The physical tile: a box with magnets inside. SI units."""

    size: np.ndarray  # (3,) m: length, width, thickness
    mass: float  # kg
    friction: float
    restitution: float
    collision: str
    colours: tuple[str, ...]
    magnets: tuple[MagnetSpec, ...]


@dataclass(frozen=True)
class Preset:
    """A loaded, checked preset. ``source`` is the file it came from."""

    name: str
    description: str
    tile: TileSpec
    solver: SolverSettings
    collapse: CollapseSettings
    source: str = ""

    @property
    def size_mm(self) -> list[float]:
        return [float(v) * 1000 for v in self.tile.size]

    def to_dict(self) -> dict[str, Any]:
        """The preset as TOML-shaped data (mm, g, degrees) with every default filled in."""
        t = self.tile
        return {
            "name": self.name,
            "description": self.description,
            "tile": {
                "size_mm": _mm(t.size),
                "mass_g": round(t.mass * 1000, 9),
                "friction": t.friction,
                "restitution": t.restitution,
                "collision": t.collision,
                "colours": list(t.colours),
                "magnets": [
                    {
                        "pos_mm": _mm(m.position),
                        "shape": m.shape,
                        "size_mm": _mm(m.dimensions),
                        "polarization_T": m.polarization,
                        "axis": [round(float(v), 12) for v in m.axis],
                        "free": m.free,
                    }
                    for m in t.magnets
                ],
            },
            "solver": self.solver.to_file(),
            "collapse": self.collapse.to_file(),
        }

    def with_settings(self, **values: Any) -> "Preset":
        """A copy with some ``[solver]`` or ``[collapse]`` values replaced, given by their file
        keys and units (``time_step_s=1/2000``, ``max_shift_mm=3``); values are not checked."""
        from dataclasses import replace

        solver, collapse = self.solver.to_file(), self.collapse.to_file()
        for k, v in values.items():
            if k not in solver and k not in collapse:
                raise KeyError(f"{k!r} is not a [solver] or [collapse] key")
            (solver if k in solver else collapse)[k] = v
        return replace(self, solver=SolverSettings.from_file(solver), collapse=CollapseSettings.from_file(collapse))

    def with_changes(self, **changes: Any) -> "Preset":
        """A copy with some fields replaced (used by studies that vary parameters)."""
        from dataclasses import replace

        return replace(self, **changes)


def _mm(values) -> list[float]:
    return [round(float(v) * 1000, 9) for v in values]


def _magnet_half_extent(m: MagnetSpec) -> np.ndarray:
    """Half extents (m, shape (3,)) in the tile frame of a box holding the magnet."""
    if m.shape == "cylinder":
        d, h = m.dimensions
        local = np.array([d / 2, d / 2, h / 2])
    else:
        local = np.array(m.dimensions) / 2
    # The magnet's z axis is m.axis; a box around it in any turn: bound by the largest half size.
    if np.allclose(np.abs(m.axis), [0, 0, 1]):
        return local
    return np.full(3, float(np.linalg.norm(local)))


def preset_names() -> list[str]:
    """Names of the bundled presets, sorted."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def resolve_preset_path(name_or_path: str | Path, relative_to: Path | None = None) -> Path:
    """Find a preset: a bundled name (``"standard"``) or a path to a TOML file.

    A relative path is looked up beside ``relative_to`` (the scenario file naming it) first.
    """
    text = str(name_or_path)
    looks_like_path = text.endswith(".toml") or "/" in text or "\\" in text
    if not looks_like_path:
        path = PRESET_DIR / f"{text}.toml"
        if path.is_file():
            return path
        raise InputError(
            ARGUMENTS, "preset", f"unknown preset {text!r}; expected one of {', '.join(preset_names())} or a path to a .toml file"
        )
    path = Path(text).expanduser()
    if not path.is_absolute() and relative_to is not None and (relative_to / path).is_file():
        return relative_to / path
    if path.is_file():
        return path
    raise InputError(ARGUMENTS, "preset", f"no such preset file: {text}")


def load_preset(name_or_path: str | Path, relative_to: Path | None = None) -> Preset:
    """Load and check a preset by bundled name or path.

    Raises
    ------
    InputError
        Unknown name, missing file, TOML syntax error, or any bad key.
    """
    path = resolve_preset_path(name_or_path, relative_to)
    return preset_from_dict(read_toml(path, "preset"), source=str(path))


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """The data of a TOML file; InputError naming the file when it cannot be read as one."""
    import tomllib  # here, not at the top: a trial's worker gets its preset pickled and never reads one (~10 ms)

    try:
        # utf-8-sig: a byte-order mark, as some editors write, is not part of the TOML.
        return tomllib.loads(Path(path).read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise InputError(str(path), "", f"no such {what} file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), "", f"not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise InputError(str(path), "", "expected UTF-8 text (a TOML file); this is not text") from None
    except OSError as exc:
        raise InputError(str(path), "", f"cannot read ({exc.strerror})") from None


def preset_from_dict(data: dict[str, Any], source: str = "<preset>") -> Preset:
    """Check TOML-shaped preset data and convert it to SI.

    Parameters
    ----------
    data : dict
        As read from a preset file.
    source : str
        Named in error messages.
    """
    c = _Checker(source)
    c.keys(data, "", required={"name", "tile"}, optional={"description", "solver", "collapse"})
    name = c.string(data, "name")
    description = c.string(data, "description") if "description" in data else ""

    tile = c.table(data, "tile")
    c.keys(
        tile,
        "tile",
        required={"size_mm", "mass_g"},
        optional={"friction", "restitution", "collision", "colours", "magnets"},
    )
    size = np.array(c.vector(tile, "tile.size_mm", "size_mm", 3, minimum=LIMITS["size_mm"][0], maximum=LIMITS["size_mm"][1])) / 1000
    mass = c.number(tile, "tile.mass_g", "mass_g", positive=True, maximum=LIMITS["mass_g"][1]) / 1000
    friction = c.number(
        tile, "tile.friction", "friction", minimum=0.0, maximum=LIMITS["friction"][1], default=TILE_DEFAULTS["friction"]
    )
    restitution = c.number(
        tile, "tile.restitution", "restitution", minimum=0.0, maximum=1.0, default=TILE_DEFAULTS["restitution"]
    )
    collision = c.choice(tile, "tile.collision", "collision", ("box", "mesh"), TILE_DEFAULTS["collision"])
    colours = tuple(DEFAULT_COLOURS)
    if "colours" in tile:
        value = tile["colours"]
        if not isinstance(value, list) or not value:
            c.fail("tile.colours", "a non-empty list of colour names or '#rrggbb' strings")
        for i, colour in enumerate(value):
            if colour_rgb(colour) is None:
                c.fail(
                    f"tile.colours[{i}]",
                    f"a colour name ({', '.join(COLOUR_RGB)}) or a '#rrggbb' string, got {colour!r}",
                )
        colours = tuple(value)

    magnets_raw = tile.get("magnets", [])
    if not isinstance(magnets_raw, list):
        c.fail("tile.magnets", "an array of tables ([[tile.magnets]])")
    magnets = []
    for i, m in enumerate(magnets_raw):
        key = f"tile.magnets[{i}]"
        if not isinstance(m, dict):
            c.fail(key, "a table with pos_mm, shape, size_mm, polarization_T, axis")
        c.keys(m, key, required={"pos_mm", "shape", "size_mm", "polarization_T"}, optional={"axis", "free"})
        pos = np.array(c.vector(m, f"{key}.pos_mm", "pos_mm", 3)) / 1000
        shape = c.choice(m, f"{key}.shape", "shape", tuple(SHAPES), None)
        dims = tuple(
            v / 1000 for v in c.vector(m, f"{key}.size_mm", "size_mm", SHAPES[shape], positive=True, maximum=LIMITS["size_mm"][1])
        )
        polarization = c.number(m, f"{key}.polarization_T", "polarization_T", minimum=0.0, maximum=LIMITS["polarization_T"][1])
        axis = np.array(c.vector(m, f"{key}.axis", "axis", 3, default=[0.0, 0.0, 1.0]))
        norm = math.hypot(*axis)  # never overflows (a 1e300 component is refused, not warned about)
        if not np.isfinite(norm) or norm < 1e-9:
            c.fail(f"{key}.axis", "a non-zero direction [x, y, z]")
        free = c.boolean(m, f"{key}.free", "free", default=False)
        magnets.append(MagnetSpec(pos, shape, dims, polarization, axis / norm, free))
    for i, m in enumerate(magnets):
        reach = _magnet_half_extent(m)
        if np.any(np.abs(m.position) > size / 2 + 1e-12):
            c.fail(f"tile.magnets[{i}].pos_mm", "a position inside the tile (|x|, |y|, |z| at most half the tile's size)")
        if np.any(np.abs(m.position) + reach > size / 2 + 1e-9):
            c.fail(f"tile.magnets[{i}]", "a magnet wholly inside the tile (centre +- its half size within half the tile's size)")
        for j in range(i):
            if np.all(np.abs(m.position - magnets[j].position) < reach + _magnet_half_extent(magnets[j]) - 1e-9):
                c.fail(f"tile.magnets[{i}]", f"magnets that do not overlap; it overlaps tile.magnets[{j}]")

    solver = dict(SOLVER_DEFAULTS)
    if "solver" in data:
        table = c.table(data, "solver")
        c.keys(table, "solver", required=set(), optional=set(SOLVER_DEFAULTS))
        for k in table:
            if k == "magnet_model":
                solver[k] = c.choice(table, "solver.magnet_model", k, ("finite", "dipole"), None)
            elif k == "friction_anchor":
                solver[k] = c.boolean(table, f"solver.{k}", k, default=True)
            else:
                solver[k] = c.bounded(table, f"solver.{k}", k, *LIMITS[f"solver.{k}"], integer=f"solver.{k}" in _INTEGER_KEYS, zero=k == "gravity_m_s2")
    collapse = dict(COLLAPSE_DEFAULTS)
    if "collapse" in data:
        table = c.table(data, "collapse")
        c.keys(table, "collapse", required=set(), optional=set(COLLAPSE_DEFAULTS))
        for k in table:
            if k == "count_shifts":
                collapse[k] = c.boolean(table, f"collapse.{k}", k, default=False)
            else:
                collapse[k] = c.bounded(table, f"collapse.{k}", k, *LIMITS[f"collapse.{k}"], integer=f"collapse.{k}" in _INTEGER_KEYS)
        if collapse["settle_hold_s"] >= collapse["time_limit_s"]:
            c.fail("collapse.settle_hold_s", f"a hold shorter than collapse.time_limit_s ({collapse['time_limit_s']:g} s), or nothing could ever settle")
    steps = collapse["time_limit_s"] / solver["time_step_s"]
    if steps > MAX_STEPS:
        key = "collapse.time_limit_s" if "time_limit_s" in data.get("collapse", {}) else "solver.time_step_s"
        c.fail(
            key,
            f"at most {MAX_STEPS:,} steps per settle (collapse.time_limit_s / solver.time_step_s), got "
            f"{collapse['time_limit_s']:g} s / {solver['time_step_s']:g} s = {steps:,.0f}",
        )

    spec = TileSpec(size, mass, friction, restitution, collision, colours, tuple(magnets))
    return Preset(name, description, spec, SolverSettings.from_file(solver), CollapseSettings.from_file(collapse), source)


def colour_rgb(colour: Any) -> tuple[float, float, float] | None:
    """RGB in [0, 1] for a colour name or ``"#rrggbb"``; None when not a colour."""
    if not isinstance(colour, str):
        return None
    if colour in COLOUR_RGB:
        return COLOUR_RGB[colour]
    # Exactly six hex digits: int(..., 16) alone would take "#-1-1-1" or "# 1 2 3".
    if len(colour) == 7 and colour[0] == "#" and all(ch in "0123456789abcdefABCDEF" for ch in colour[1:]):
        return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]
    return None
