"""Scenario files: a structure, what-if placements and noise, in TOML (running them:
:mod:`magdomino.studies.simulation`).

The format (keys are a contract)::

    name = "zigzag"
    preset = "standard"          # bundled name, or a path (relative to this file)
    magnets = true               # false switches every magnet off
    seed = 1

    [[structure]]                # spawned together at these poses, then settled once
    pips = [6, 6]                # half 0 (-x), half 1 (+x), as shown
    pos_mm = [0, 0]              # x, y: resting on what is below; or x, y, z (centre)
    yaw_deg = 0
    fixed = false                # a static body (never moves, still magnetic)

    [[structure]]
    pips = [6, 3]
    on = { tile = 0, half = 1 }  # this tile's matching half superposed on tile 0's half 1

    [[what_if]]                  # each tried alone, from the settled structure
    pips = [3, 2]
    on = { tile = 1, half = 1 }
    drop_mm = 2                  # release height above rest (default 1)
    slide_mm = [60, 0]           # optional: slide in along the table from this offset

    [noise]                      # used by `magdomino odds` (see magdomino.studies.odds)
    pos_sigma_mm = 1.0
    yaw_sigma_deg = 2.0

With ``on``, the placed tile lies parallel to the tile below and extends outward (away
from that tile's centre); ``yaw_deg`` then turns it from there: 0 outward (the default),
180 back over the lower tile, 90 or -90 across it. Without ``on``, ``yaw_deg`` is the
heading of the tile's half 0 → half 1 axis from the x axis. "Resting on what is below":
the highest top face among the earlier tiles under the new tile's footprint, or the table.
A tile ``on`` a half that another tile already covers is refused (a covered half cannot be
covered again; :func:`covering_tile`), naming the covering tile to place it on instead.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from magdomino.checks import check_seed
from magdomino.errors import InputError
from magdomino.maths.poses import quaternion_matrices
from magdomino.model.presets import DEFAULT_PRESET, Preset, check_number, load_preset, read_toml
from magdomino.model.tiles import tile
from magdomino.physics.motion import Slide
from magdomino.studies.aiming import (
    aim_placement,
    check_clear,
    structure_poses,
)
from magdomino.studies.placement_language import DEFAULT_DROP_MM, TIED, expand_place, format_placement
from magdomino.wording import tile_text

NOISE_KEYS = {
    "pos_sigma_mm": "position error of the hand, sigma in mm, along x and along y",
    "yaw_sigma_deg": "heading error of the hand, sigma in degrees",
    "drop_mm": "release height above rest, as [low, high] in mm (uniform)",
    "polarization_rel_sigma": "relative sigma of the magnets' polarisation",
    "friction_rel_sigma": "relative sigma of the friction coefficient",
    "mass_rel_sigma": "relative sigma of the tile mass",
}

PLACEMENT_KEYS = {"place", "pips", "pos_mm", "yaw_deg", "on", "beneath", "after", "fixed"}
WHAT_IF_KEYS = {"place", "pips", "pos_mm", "yaw_deg", "on", "beneath", "after", "drop_mm", "slide_mm"}
POS_LIMIT_MM = 5000.0
"""Positions beyond 5 m are typing mistakes, not towers on a table."""
DROP_LIMIT_MM = 100.0
"""A hand releases a tile at most 10 cm above its rest (higher is throwing it)."""
SLIDE_LIMIT_MM = 500.0
"""A slide starts at most half a metre away (at the hand's 5 cm/s, 10 s of simulated time)."""
YAW_LIMIT_DEG = 360.0

NOISE_LIMITS = {
    "pos_sigma_mm": 50.0,
    "yaw_sigma_deg": 180.0,
    "drop_mm": DROP_LIMIT_MM,
    "polarization_rel_sigma": 1.0,
    "friction_rel_sigma": 1.0,
    "mass_rel_sigma": 1.0,
}
"""Largest value of each ``[noise]`` key: a hand that misses by more than 5 cm, or tiles that
differ by more than 100 % (sigma), are not the careful player the odds describe."""


@dataclass(frozen=True)
class Placement:
    """One tile of a structure or one what-if placement, as written in the file."""

    pips: tuple[int, int]
    pos_mm: tuple[float, ...] | None = None
    yaw_deg: float = 0.0
    on: tuple[int, int] | None = None
    fixed: bool = False
    drop_mm: float = DEFAULT_DROP_MM
    slide_mm: tuple[float, float] | None = None
    relation: str = "on"  # with ``on`` (tile, half): "on" top of it, "beneath" it, "after" it end to end

    def describe(self, shown=None) -> str:
        """This placement in the placement language (:mod:`magdomino.studies.placement_language`);
        ``shown``: the construction's pips as shown, to name the lower tile's too."""
        return format_placement(self, shown)


@dataclass(frozen=True)
class Scenario:
    """A checked scenario file."""

    name: str
    preset: Preset
    magnets: bool
    seed: int
    structure: tuple[Placement, ...]
    what_if: tuple[Placement, ...]
    noise: dict[str, Any] = field(default_factory=dict)
    source: str = "<scenario>"

    def describe(self, placement: Placement) -> str:
        """A placement of this scenario in the placement language, the lower tile's pips included."""
        return placement.describe([pl.pips for pl in self.structure])


# -- loading ------------------------------------------------------------------------------


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; InputError (file, key, expected) when it is wrong."""
    path = Path(path)
    return scenario_from_dict(read_toml(path, "scenario"), source=str(path), base=path.parent)


def scenario_from_dict(data: dict, source: str = "<scenario>", base: Path | None = None) -> Scenario:
    """Check TOML-shaped scenario data (see the module docstring)."""
    allowed = {"name", "preset", "magnets", "seed", "structure", "what_if", "noise", "description"}
    for k in data:
        if k not in allowed:
            raise InputError(source, k, f"unknown key; expected one of {', '.join(sorted(allowed))}")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str):
        raise InputError(source, "name", "expected a string")
    if not name.strip() or any(c in name for c in "/\\") or name in (".", "..") or not name.isprintable():
        # A report finds the scenario again as NAME.toml beside the others: a file name.
        raise InputError(source, "name", f"expected a name usable as a file name (no '/', not empty), got {name!r}")
    if not isinstance(data.get("description", ""), str):
        raise InputError(source, "description", "expected a string")
    preset_ref = data.get("preset", DEFAULT_PRESET)
    if not isinstance(preset_ref, (str, Preset)):
        raise InputError(source, "preset", "expected a preset name or a path to a preset file")
    try:
        preset = preset_ref if isinstance(preset_ref, Preset) else load_preset(preset_ref, relative_to=base)  # a Preset: from Python
    except InputError as exc:
        if exc.key == "preset":  # not found: say so in this file's terms
            raise InputError(source, "preset", exc.expected) from None
        raise  # a bad preset file: its own name and key
    magnets = data.get("magnets", True)
    if not isinstance(magnets, bool):
        raise InputError(source, "magnets", "expected true or false")
    seed = data.get("seed", 0)
    check_seed(seed, source=source)

    structure_raw = data.get("structure")
    if not isinstance(structure_raw, list) or not structure_raw:
        raise InputError(source, "structure", "expected at least one [[structure]] table")
    structure = []
    for i, entry in enumerate(structure_raw):
        structure.append(_placement(entry, source, f"structure[{i}]", PLACEMENT_KEYS, earlier=i, used=structure))
    what_if_raw = data.get("what_if", [])
    if not isinstance(what_if_raw, list):
        raise InputError(source, "what_if", "expected [[what_if]] tables")
    what_if = [
        _placement(entry, source, f"what_if[{i}]", WHAT_IF_KEYS, earlier=len(structure), used=structure)
        for i, entry in enumerate(what_if_raw)
    ]
    noise = check_noise(data.get("noise", {}), source)
    scenario = Scenario(name, preset, magnets, seed, tuple(structure), tuple(what_if), noise, source)
    check_scenario(scenario)
    return scenario


def check_scenario(scenario: Scenario) -> None:
    """Refuse (InputError naming the key) what no command can run: a structure tile or a
    what-if that starts inside a tile of the structure. Every command calls this (through
    :func:`load_scenario`) before any work, so that ``simulate``, ``odds``, ``sweep`` and
    ``whatif`` refuse the same files. The what-ifs are aimed at the structure as written;
    :func:`simulate` aims them again at the settled structure.
    """
    size = scenario.preset.tile.size
    poses = structure_poses(scenario, size)
    nominal = (np.array([p for p, _ in poses]), np.array([q for _, q in poses]))
    for index, placement in enumerate(scenario.structure):
        _check_free_half(scenario, placement, poses[:index], size, f"structure[{index}]")
    for index, placement in enumerate(scenario.what_if):
        _check_free_half(scenario, placement, poses, size, f"what_if[{index}]")
        rest, yaw, motion = aim_placement(scenario, nominal, placement, size)
        if isinstance(motion, Slide):  # it ends on the table: beneath tiles, never inside one
            check_clear(rest, yaw, poses, size, scenario.source, f"what_if[{index}].slide_mm", "would end")


COVER_MARGIN_M = 0.001
"""A tile covers a half when the half's centre lies under its bottom face at least 1 mm inside
its edges (a tile beside the half, touching its edge, does not cover it)."""


def covering_tile(half_of: int, half: int, poses, size) -> int | None:
    """The tile (an index into ``poses``) that lies on tile ``half_of``'s ``half``, or None.

    Parameters
    ----------
    half_of, half : int
        The tile (index into ``poses``) and its half (0 at -x, 1 at +x).
    poses : list of (position (3,) m, quaternion (4,))
        The construction's tiles, as :func:`structure_poses` gives them.
    size : array-like, shape (3,), m
        The tiles' length, width and thickness.
    """
    length, width, thickness = (float(v) for v in size)
    position, quaternion = poses[half_of]
    rotation = quaternion_matrices(np.asarray([quaternion], float))[0]
    centre = np.asarray(position, float) + rotation @ np.array([(half - 0.5) * length / 2, 0.0, thickness / 2])
    for j, (p, q) in enumerate(poses):
        if j == half_of:
            continue
        local = quaternion_matrices(np.asarray([q], float))[0].T @ (centre - np.asarray(p, float))
        inside = abs(local[0]) < length / 2 - COVER_MARGIN_M and abs(local[1]) < width / 2 - COVER_MARGIN_M
        if inside and abs(local[2] + thickness / 2) < thickness / 4:
            return j
    return None


def _check_free_half(scenario: Scenario, placement: Placement, poses, size, key: str) -> None:
    """Refuse a placement on a half another tile already covers: a covered half cannot be
    covered again (the tile would come to rest on the covering tile instead, a placement
    the file does not say); the error names both tiles and what to write instead."""
    if placement.on is None or placement.relation != "on":
        return
    t, h = placement.on
    j = covering_tile(t, h, poses, size)
    if j is None:
        return
    shown = [pl.pips for pl in scenario.structure]
    raise InputError(scenario.source, key,
                     f"expected a free half for {placement.describe(shown)!r}: #{t} ({tile_text(shown[t])}) half {h} "
                     f"is covered by #{j} ({tile_text(shown[j])}); place it on #{j} instead")


def check_noise(noise: Any, source: str, key: str = "noise") -> dict[str, Any]:
    """Check a ``[noise]`` table: known keys, non-negative values, ``drop_mm`` a range."""
    if not isinstance(noise, dict):
        raise InputError(source, key, "expected a table")
    out = {}
    for k, v in noise.items():
        if k not in NOISE_KEYS:
            raise InputError(source, f"{key}.{k}", f"unknown key; expected one of {', '.join(NOISE_KEYS)}")
        if k == "drop_mm":
            if not isinstance(v, list) or len(v) != 2:
                raise InputError(source, f"{key}.drop_mm", "expected a range [low, high] in mm")
            lo, hi = (
                check_number(source, f"{key}.drop_mm[{j}]", x, minimum=0.0, maximum=NOISE_LIMITS[k]) for j, x in enumerate(v)
            )
            if hi < lo:
                raise InputError(source, f"{key}.drop_mm", f"expected low <= high, got [{lo:g}, {hi:g}]")
            out[k] = [lo, hi]
        else:
            out[k] = check_number(source, f"{key}.{k}", v, minimum=0.0, maximum=NOISE_LIMITS[k])
    return out


def _placement(entry, source, key, allowed, earlier, used) -> Placement:
    if isinstance(entry, str):  # the placement language alone, as the Python face gives it
        entry = {"place": entry}
    if not isinstance(entry, dict):
        raise InputError(source, key, "expected a table")
    for k in entry:
        if k not in allowed:
            raise InputError(source, f"{key}.{k}", f"unknown key; expected one of {', '.join(sorted(allowed))}")
    written = entry.get("place")
    if written is not None:  # the placement language: the table it stands for, then the same checks
        entry = expand_place(entry, source, key, [pl.pips for pl in used], allowed)
    try:
        return _table_placement(entry, source, key, earlier, used)
    except InputError as exc:
        if not isinstance(written, str) or not exc.key.startswith(key + "."):
            raise
        raise InputError(source, f"{key}.place", _in_words_written(exc, key, written)) from None


_WRITTEN_AS = {"pips": "the tile", "yaw_deg": "the turn", "pos_mm": "the position", "on": "the tile below",
               "beneath": "the tile above", "after": "the tile it follows", "drop_mm": "the drop", "slide_mm": "the slide"}
"""What a table key of a placement is called when the placement was written in the placement language."""


def _in_words_written(exc: InputError, key: str, written: str) -> str:
    """An error about the table a ``place = "..."`` stands for, said about the text the user
    wrote: the text quoted, the part of it named, tiles as ``#N``."""
    part = exc.key[len(key) + 1:].split(".")[0].split("[")[0]
    expected = re.sub(r"structure\[(\d+)\]|\btile (\d+)(?='s half)", lambda m: f"#{m.group(1) or m.group(2)}", exc.expected)
    m = re.fullmatch(r"expected the index of an earlier structure tile \(0\.\.(-?\d+)\), got (.+)", expected)
    if m:
        expected = (f"expected an earlier tile, #0 to #{m.group(1)}, got #{m.group(2)}" if int(m.group(1)) >= 0
                    else "expected an earlier tile; there is none")
    expected = re.sub(r"got \[(-?\d+), (-?\d+)\]$", r"got \1-\2", expected)
    if part == "yaw_deg" and "[-" in expected:
        expected = expected.replace("a number in", "an angle in").replace("]", "] deg", 1)
    return f"{written!r}: {_WRITTEN_AS.get(part, part)}: {expected}"


def _table_placement(entry: dict, source: str, key: str, earlier: int, used) -> Placement:
    """One placement table (``pips``, ``pos_mm`` or ``on``/``beneath``/``after``, ...), checked."""
    if "pips" not in entry:
        raise InputError(source, f"{key}.pips", "missing required key (the tile, as [a, b])")
    pips_raw = entry["pips"]
    tile_ok = (
        isinstance(pips_raw, list)
        and len(pips_raw) == 2
        and all(isinstance(p, int) and not isinstance(p, bool) for p in pips_raw)
    )
    if not tile_ok or not all(0 <= p <= 6 for p in pips_raw):
        raise InputError(source, f"{key}.pips", f"expected a double-six tile as [a, b] with a, b in 0..6, got {pips_raw!r}")
    pips = (int(pips_raw[0]), int(pips_raw[1]))
    for j, other in enumerate(used):
        if tile(*other.pips) == tile(*pips):
            raise InputError(source, f"{key}.pips", f"expected each tile once; {tile_text(pips)} is already structure[{j}]")
    tied = [k for k in TIED if k in entry]
    if len(tied) + ("pos_mm" in entry) != 1:
        raise InputError(source, key, "expected exactly one of pos_mm (absolute) or on, beneath, after (relational)")
    relation = tied[0] if tied else "on"
    pos = None
    on = None
    if "pos_mm" in entry:
        value = entry["pos_mm"]
        if not isinstance(value, list) or len(value) not in (2, 3):
            raise InputError(source, f"{key}.pos_mm", "expected [x, y] or [x, y, z] in mm")
        pos = tuple(
            check_number(source, f"{key}.pos_mm[{j}]", v, minimum=-POS_LIMIT_MM, maximum=POS_LIMIT_MM) for j, v in enumerate(value)
        )
        if len(pos) == 3 and pos[2] <= 0:
            raise InputError(source, f"{key}.pos_mm[2]", "expected a centre height > 0 (above the table)")
    else:
        value = entry[relation]
        if not isinstance(value, dict) or set(value) != {"tile", "half"}:
            raise InputError(source, f"{key}.{relation}", "expected { tile = N, half = 0 or 1 }")
        t, h = value["tile"], value["half"]
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < earlier:
            raise InputError(source, f"{key}.{relation}.tile",
                             f"expected the index of an earlier structure tile (0..{earlier - 1}), got {t!r}")
        if isinstance(h, bool) or not isinstance(h, int) or h not in (0, 1):
            raise InputError(source, f"{key}.{relation}.half", f"expected 0 or 1, got {h!r}")
        below = used[t].pips[h]
        if below not in pips:
            how = {"on": "lie on", "beneath": "lie beneath", "after": "touch"}[relation]
            raise InputError(
                source, f"{key}.{relation}",
                f"expected a tile with a half of {below} pips to {how} tile {t}'s half {h}; {tile_text(pips)} has none"
            )
        on = (t, h)
    yaw = check_number(source, f"{key}.yaw_deg", entry.get("yaw_deg", 0.0), minimum=-YAW_LIMIT_DEG, maximum=YAW_LIMIT_DEG)
    if relation == "after" and on is not None and yaw % 360:
        raise InputError(source, f"{key}.yaw_deg", f"expected 0: end to end lies in line with the tile it follows, got {yaw:g}")
    fixed = entry.get("fixed", False)
    if not isinstance(fixed, bool):
        raise InputError(source, f"{key}.fixed", "expected true or false")
    drop = check_number(source, f"{key}.drop_mm", entry.get("drop_mm", DEFAULT_DROP_MM), minimum=0.0, maximum=DROP_LIMIT_MM)
    slide = None
    if "slide_mm" in entry:
        value = entry["slide_mm"]
        if not isinstance(value, list) or len(value) != 2:
            raise InputError(source, f"{key}.slide_mm", "expected [dx, dy] in mm: where the slide starts, from the target")
        slide = tuple(check_number(source, f"{key}.slide_mm[{j}]", v) for j, v in enumerate(value))
        if not 1.0 <= math.hypot(*slide) <= SLIDE_LIMIT_MM:
            raise InputError(
                source, f"{key}.slide_mm", f"expected a start 1 to {SLIDE_LIMIT_MM:g} mm from the target, got {math.hypot(*slide):g} mm"
            )
    return Placement(pips, pos, yaw, on, fixed, drop, slide, relation)


def with_preset(scenario: Scenario, preset: Preset) -> Scenario:
    return replace(scenario, preset=preset)
