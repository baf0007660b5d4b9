"""Physical presets: tile size and mass, friction, magnets, solver settings, thresholds.

A preset is a TOML file (``magdomino/model/preset_files/NAME.toml`` or any path). Its schema is a
contract that users write against::

    name = "standard"
    description = "..."
    [tile]
    size_mm = [48, 24, 8]          # length, width, thickness (required)
    mass_g = 10                    # required
    friction = 0.5                 # optional: every contact's μ (tile on tile)
    table_friction = 0.4           # optional: tile on table (default: friction)
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
    [spread]                       # optional: the set's own spread (σ), the odds' noise defaults
    polarization_rel_sigma = 0.05  # (see magdomino.studies.trials; written by ``calibrate``)
    [solver]                       # optional, see SOLVER_DEFAULTS
    [collapse]                     # optional, see COLLAPSE_DEFAULTS

Colours: tile number ``i`` (in the order of :func:`magdomino.model.tiles.all_tiles`) gets
``colours[i % len(colours)]``; the default palette has seven colours, so each hand holds
several. A colour is a name from :data:`magdomino.model.tiles.COLOUR_RGB` or a ``"#rrggbb"`` string.

Every value is checked on load; a bad one raises :class:`~magdomino.errors.InputError`
naming the file and the key. Values are converted to SI once, here.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from magdomino.checks import FileChecks, check_number  # noqa: F401 - check_number is used by scenarios
from magdomino.errors import ARGUMENTS, InputError
from magdomino.model.settings import COLLAPSE_DEFAULTS, SOLVER_DEFAULTS, CollapseSettings, SolverSettings  # noqa: F401 - re-exported
from magdomino.model.tiles import COLOUR_RGB, DEFAULT_COLOURS, colour_rgb  # noqa: F401 - re-exported: presets name colours

if TYPE_CHECKING:  # annotations only: the magnet model loads numba
    from magdomino.maths.magnets import TileMagnets

PRESET_DIR = Path(__file__).resolve().parent / "preset_files"

DEFAULT_PRESET = "toy"
"""The preset used when none is named (games, scenarios without ``preset``, the API): the
toy the design study chose so that Défi plays as the leaflet tells it (its file says how).
``"standard"`` (J = 0.6 T, the default before) keeps its name."""


SPREAD_KEYS = {
    "polarization_rel_sigma": "relative sigma of the magnets' polarisation",
    "friction_rel_sigma": "relative sigma of the friction coefficients",
    "mass_rel_sigma": "relative sigma of the tile mass",
}
"""Keys of a preset's optional ``[spread]``: how much the tiles of this set differ (σ in [0, 1]),
the odds' noise defaults for this preset (a scenario's ``[noise]`` still wins)."""

TILE_DEFAULTS = {"friction": 0.5, "restitution": 0.0, "collision": "box"}
"""Optional ``[tile]`` keys. Friction 0.5 is a typical value for lacquered wood or ABS on
itself (0.3-0.6); restitution 0 because the tiles do not bounce noticeably."""

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
    table_friction: float | None = None  # tile on table; None: ``friction``, as every contact

    @property
    def table_mu(self) -> float:
        """Friction coefficient of a tile on the table (``table_friction``, else ``friction``)."""
        return self.friction if self.table_friction is None else self.table_friction


@dataclass(frozen=True)
class Preset:
    """A loaded, checked preset. ``source`` is the file it came from."""

    name: str
    description: str
    tile: TileSpec
    solver: SolverSettings
    collapse: CollapseSettings
    source: str = ""
    spread: dict = field(default_factory=dict)  # [spread]: relative σ of the set, by noise key

    @property
    def size_mm(self) -> list[float]:
        return [float(v) * 1000 for v in self.tile.size]

    def tile_magnets(self) -> TileMagnets:
        """The tile's magnets as the magnet model computes them, made once per preset object
        (the statics asks for them at every placement it judges: making them costs about as
        much as one evaluation of their forces). Not pickled: a worker makes its own."""
        made = self.__dict__.get("_tile_magnets")
        if made is None:
            from magdomino.maths.magnets import TileMagnets  # noqa: PLC0415 - numba kernels (~0.4 s): only where magnets are computed

            made = TileMagnets.from_specs(self.tile.magnets, model=self.solver.magnet_model)
            object.__setattr__(self, "_tile_magnets", made)
        return made

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_tile_magnets"}

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
                **({} if t.table_friction is None else {"table_friction": t.table_friction}),
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
            **({"spread": dict(self.spread)} if self.spread else {}),
            "solver": self.solver.to_file(),
            "collapse": self.collapse.to_file(),
        }

    def with_settings(self, **values: Any) -> Preset:
        """A copy with some ``[solver]`` or ``[collapse]`` values replaced, given by their file
        keys and units (``time_step_s=1/2000``, ``max_shift_mm=3``); values are not checked."""
        solver, collapse = self.solver.to_file(), self.collapse.to_file()
        for k, v in values.items():
            if k not in solver and k not in collapse:
                raise KeyError(f"{k!r} is not a [solver] or [collapse] key")
            (solver if k in solver else collapse)[k] = v
        return replace(self, solver=SolverSettings.from_file(solver), collapse=CollapseSettings.from_file(collapse))

    def with_changes(self, **changes: Any) -> Preset:
        """A copy with some fields replaced (used by studies that vary parameters)."""
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
    import tomllib  # noqa: PLC0415 - here, not at the top: a trial's worker gets its preset pickled and never reads one (~10 ms)

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


def _tile_colours(c: FileChecks, tile: dict[str, Any]) -> tuple[str, ...]:
    """``tile.colours`` checked (colour names or '#rrggbb'), or the default colours."""
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
    return colours


def _tile_magnets(c: FileChecks, tile: dict[str, Any], size: np.ndarray) -> list[MagnetSpec]:
    """``tile.magnets`` checked and in SI: each magnet wholly inside the tile (``size``, m) and none overlapping another."""
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
    return magnets


def _solver_table(c: FileChecks, data: dict[str, Any]) -> dict[str, Any]:
    """The ``[solver]`` table checked, over :data:`SOLVER_DEFAULTS` (file keys and units)."""
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
                solver[k] = c.bounded(table, f"solver.{k}", k, *LIMITS[f"solver.{k}"], integer=f"solver.{k}" in _INTEGER_KEYS,
                                      zero=k == "gravity_m_s2")
    return solver


def _collapse_table(c: FileChecks, data: dict[str, Any]) -> dict[str, Any]:
    """The ``[collapse]`` table checked, over :data:`COLLAPSE_DEFAULTS` (file keys and units); the hold shorter than the time limit."""
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
            c.fail("collapse.settle_hold_s",
                   f"a hold shorter than collapse.time_limit_s ({collapse['time_limit_s']:g} s), or nothing could ever settle")
    return collapse


def preset_from_dict(data: dict[str, Any], source: str = "<preset>") -> Preset:
    """Check TOML-shaped preset data and convert it to SI.

    Parameters
    ----------
    data : dict
        As read from a preset file.
    source : str
        Named in error messages.
    """
    c = FileChecks(source)
    c.keys(data, "", required={"name", "tile"}, optional={"description", "spread", "solver", "collapse"})
    name = c.string(data, "name")
    description = c.string(data, "description") if "description" in data else ""

    tile = c.table(data, "tile")
    c.keys(
        tile,
        "tile",
        required={"size_mm", "mass_g"},
        optional={"friction", "table_friction", "restitution", "collision", "colours", "magnets"},
    )
    size = np.array(c.vector(tile, "tile.size_mm", "size_mm", 3, minimum=LIMITS["size_mm"][0], maximum=LIMITS["size_mm"][1])) / 1000
    mass = c.number(tile, "tile.mass_g", "mass_g", positive=True, maximum=LIMITS["mass_g"][1]) / 1000
    friction = c.number(
        tile, "tile.friction", "friction", minimum=0.0, maximum=LIMITS["friction"][1], default=TILE_DEFAULTS["friction"]
    )
    table_friction = None
    if "table_friction" in tile:
        table_friction = c.number(tile, "tile.table_friction", "table_friction", minimum=0.0, maximum=LIMITS["friction"][1])
        if friction == 0 and table_friction != 0:
            # PyBullet gives a contact the product of its bodies' coefficients: a tile of
            # zero friction makes every contact frictionless.
            c.fail("tile.table_friction", "0 when tile.friction is 0 (a contact's friction is the product of its bodies')")
    restitution = c.number(
        tile, "tile.restitution", "restitution", minimum=0.0, maximum=1.0, default=TILE_DEFAULTS["restitution"]
    )
    collision = c.choice(tile, "tile.collision", "collision", ("box", "mesh"), TILE_DEFAULTS["collision"])
    colours = _tile_colours(c, tile)
    magnets = _tile_magnets(c, tile, size)

    spread = {}
    if "spread" in data:
        table = c.table(data, "spread")
        c.keys(table, "spread", required=set(), optional=set(SPREAD_KEYS))
        spread = {k: c.number(table, f"spread.{k}", k, minimum=0.0, maximum=1.0) for k in SPREAD_KEYS if k in table}
    solver = _solver_table(c, data)
    collapse = _collapse_table(c, data)
    steps = collapse["time_limit_s"] / solver["time_step_s"]
    if steps > MAX_STEPS:
        key = "collapse.time_limit_s" if "time_limit_s" in data.get("collapse", {}) else "solver.time_step_s"
        c.fail(
            key,
            f"at most {MAX_STEPS:,} steps per settle (collapse.time_limit_s / solver.time_step_s), got "
            f"{collapse['time_limit_s']:g} s / {solver['time_step_s']:g} s = {steps:,.0f}",
        )

    spec = TileSpec(size, mass, friction, restitution, collision, colours, tuple(magnets), table_friction)
    return Preset(name, description, spec, SolverSettings.from_file(solver), CollapseSettings.from_file(collapse), source, spread)


def with_overrides(preset: Preset, overrides: dict[str, Any], source: str = ARGUMENTS) -> Preset:
    """``preset`` with values replaced by their file keys and units, checked as a file is.

    Keys: ``"tile.friction"``, ``"solver.time_step_s"``, ``"collapse.max_tilt_deg"``, ...; a
    key under ``tile.magnets`` (``"tile.magnets.polarization_T"``) sets it on every magnet;
    ``magnets_scale`` multiplies every magnet's polarisation. A wrong key or value raises
    InputError naming the key (``source``: where the overrides come from). The result keeps
    the preset's name; its description ends with what was overridden
    (``... [overridden: magnets_scale = 1.1]``), which documents and records carry.
    """
    data = preset.to_dict()
    if overrides:
        said = ", ".join(f"{k} = {json.dumps(v) if isinstance(v, str) else v}" for k, v in overrides.items())
        data["description"] = f"{data['description'].rstrip()} [overridden: {said}]".strip()
    for key, value in overrides.items():
        if key == "magnets_scale":  # applied last, to the polarisations the other keys set
            continue
        path = key.split(".")
        if path[:2] == ["tile", "magnets"] and len(path) == 3:
            if not data["tile"]["magnets"]:
                raise InputError(source, key, f"expected a preset with magnets ({preset.name} has none)")
            for m in data["tile"]["magnets"]:
                m[path[2]] = value  # an unknown key is refused by the check below
            continue
        table = data
        for part in path[:-1]:
            table = table.get(part) if isinstance(table, dict) else None
        known = path[-1] in table if isinstance(table, dict) else False
        known = known or path[0] in ("solver", "collapse") or path in (["tile", "table_friction"], ["spread", path[-1]])
        if path[0] == "spread" and len(path) == 2 and "spread" not in data:
            table = data["spread"] = {}
        if not isinstance(table, dict) or len(path) < 2 or not known:
            raise InputError(source, key, "expected a preset key such as tile.friction, tile.table_friction, tile.mass_g, "
                                          "tile.magnets.polarization_T, "
                                          "spread.friction_rel_sigma, solver.time_step_s, collapse.max_tilt_deg or magnets_scale")
        table[path[-1]] = value
    if "magnets_scale" in overrides:
        scale = check_number(source, "magnets_scale", overrides["magnets_scale"], minimum=0.0, maximum=10.0)
        if not data["tile"]["magnets"]:
            raise InputError(source, "magnets_scale", f"expected a preset with magnets ({preset.name} has none)")
        for m in data["tile"]["magnets"]:
            m["polarization_T"] = m["polarization_T"] * float(scale)
    try:
        return preset_from_dict(data, preset.source or source)
    except InputError as exc:
        raise InputError(source, exc.key, exc.expected) from None


def write_preset(preset: Preset, path: str | Path) -> Path:
    """Write ``preset`` as a preset file (TOML), loadable wherever a preset is."""

    def value(v) -> str:
        return "[" + ", ".join(value(x) for x in v) + "]" if isinstance(v, list) else json.dumps(v)

    data = preset.to_dict()
    lines = [f"name = {value(data['name'])}", f"description = {value(data['description'])}", "", "[tile]"]
    lines += [f"{k} = {value(v)}" for k, v in data["tile"].items() if k != "magnets" and v is not None]
    for m in data["tile"]["magnets"]:
        lines += ["", "[[tile.magnets]]"] + [f"{k} = {value(v)}" for k, v in m.items()]
    for table in ("spread", "solver", "collapse"):
        if table not in data:
            continue
        lines += ["", f"[{table}]"] + [f"{k} = {value(v)}" for k, v in data[table].items() if v is not None]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)
