"""Scenario files: a structure, what-if placements and noise, in TOML; and running them.

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
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import footprints_overlap
from magdomino.maths.poses import box_corners, quaternion_yaw, top_face_height, yaw_quaternion
from magdomino.model.presets import Preset, check_number, load_preset, read_toml
from magdomino.model.tiles import tile
from magdomino.physics.placement import CLEAR_TOLERANCE_M, Drop, NoClearMotion, Slide, build, clear_motion, place
from magdomino.physics.verdict import Verdict, settle
from magdomino.physics.world import World
from magdomino.studies.placements import DEFAULT_DROP_MM, TIED, expand_place, format_placement

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
SLIDE_START_MM = 60.0
"""How far along the table a placement ``beneath`` a tile starts its slide when it does not say."""
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
        """This placement in the placement language (:mod:`magdomino.studies.placements`);
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
    preset_ref = data.get("preset", "standard")
    if not isinstance(preset_ref, str):
        raise InputError(source, "preset", "expected a preset name or a path to a preset file")
    try:
        preset = load_preset(preset_ref, relative_to=base)
    except InputError as exc:
        if exc.key == "preset":  # not found: say so in this file's terms
            raise InputError(source, "preset", exc.expected) from None
        raise  # a bad preset file: its own name and key
    magnets = data.get("magnets", True)
    if not isinstance(magnets, bool):
        raise InputError(source, "magnets", "expected true or false")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(source, "seed", "expected a whole number >= 0")

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
    for index, placement in enumerate(scenario.what_if):
        rest, yaw, motion = aim_placement(scenario, nominal, placement, size)
        if isinstance(motion, Slide):  # it ends on the table: beneath tiles, never inside one
            check_clear(rest, yaw, poses, size, scenario.source, f"what_if[{index}].slide_mm", "would end")


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
    if "place" in entry:  # the placement language: the table it stands for, then the same checks
        entry = expand_place(entry, source, key, [pl.pips for pl in used], allowed)
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
            raise InputError(source, f"{key}.pips", f"expected each tile once; {pips[0]}-{pips[1]} is already structure[{j}]")
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
            raise InputError(source, f"{key}.{relation}.tile", f"expected the index of an earlier structure tile (0..{earlier - 1}), got {t!r}")
        if isinstance(h, bool) or not isinstance(h, int) or h not in (0, 1):
            raise InputError(source, f"{key}.{relation}.half", f"expected 0 or 1, got {h!r}")
        below = used[t].pips[h]
        if below not in pips:
            how = {"on": "lie on", "beneath": "lie beneath", "after": "touch"}[relation]
            raise InputError(
                source, f"{key}.{relation}", f"expected a tile with a half of {below} pips to {how} tile {t}'s half {h}; {pips[0]}-{pips[1]} has none"
            )
        on = (t, h)
    yaw = check_number(source, f"{key}.yaw_deg", entry.get("yaw_deg", 0.0), minimum=-YAW_LIMIT_DEG, maximum=YAW_LIMIT_DEG)
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


# -- poses --------------------------------------------------------------------------------


def target_pose(placement: Placement, poses: list[tuple[np.ndarray, np.ndarray]], pips_shown, size: np.ndarray):
    """Rest pose (position (3,) m, yaw rad) of a placement, given the poses before it.

    Parameters
    ----------
    placement : Placement
    poses : list of (position (3,), quaternion (4,))
        Poses of the tiles already there (index = structure index).
    pips_shown : list of (int, int)
        The pips of those tiles as shown (half 0, half 1).
    size : ndarray, shape (3,), m
    """
    length, _, thick = size
    if placement.on is not None:
        t, h = placement.on
        p_t, q_t = poses[t]
        yaw_t = quaternion_yaw(q_t)
        axis_t = np.array([math.cos(yaw_t), math.sin(yaw_t)])
        outward = axis_t if h == 1 else -axis_t
        anchor = np.asarray(p_t[:2]) + outward * length / 4
        if placement.relation == "after":  # the matching half one half-length further, in line
            anchor = anchor + outward * length / 2
        value = pips_shown[t][h]
        k = 0 if placement.pips[0] == value else 1
        turn = math.radians(placement.yaw_deg)
        c, s = math.cos(turn), math.sin(turn)
        u = np.array([c * outward[0] - s * outward[1], s * outward[0] + c * outward[1]])
        centre = anchor + u * length / 4
        yaw = math.atan2(u[1], u[0]) if k == 0 else math.atan2(-u[1], -u[0])
        if placement.relation != "on":  # beneath it or beside it: on the level of the tile it is tied to
            level = p_t[2] - thick if placement.relation == "beneath" else p_t[2]
            return np.array([centre[0], centre[1], max(level, thick / 2)]), yaw
    else:
        centre = np.array(placement.pos_mm[:2]) / 1000
        yaw = math.radians(placement.yaw_deg)
    if placement.pos_mm is not None and len(placement.pos_mm) == 3:
        z = placement.pos_mm[2] / 1000
    else:
        centre, face = rest_pose(centre, yaw, poses, size)
        z = face + thick / 2
    return np.array([centre[0], centre[1], z]), yaw


def rest_height(centre, yaw, poses, size) -> float:
    """Height (m) of the highest top face under a tile's footprint, 0 for the table: the face a
    tile lowered flat at ``centre`` (x, y, m), heading ``yaw``, meets first.

    Every tile whose footprint overlaps this one's counts, however little (beyond touching:
    :data:`CONTACT_SLACK_M`), so a tile resting there is clear of all of them. (It used to
    forgive :data:`OVERLAP_TOLERANCE_M` of overlap, which let a tile rest up to a millimetre
    inside a neighbour.) :func:`rest_pose`, which the file poses use, first moves a footprint
    that only grazes a neighbour out of it, as a hand stops at contact.
    """
    top = 0.0
    for p, q in poses:
        if footprints_overlap(centre, yaw, p[:2], quaternion_yaw(q), size, CONTACT_SLACK_M):
            top = max(top, top_face_height(p, q, size))
    return top


def rest_pose(centre, yaw, poses, size, floor: float = 0.0) -> tuple[np.ndarray, float]:
    """Where a tile put down flat at ``centre`` (x, y, m), heading ``yaw``, comes to rest:
    (centre (2,) m, height of the face under it m). Always clear of every tile of ``poses``.

    It rests on the highest top face among the tiles its footprint overlaps by more than the
    overlap tolerance (each footprint shrunk by :data:`OVERLAP_TOLERANCE_M`), or on the table,
    or at ``floor`` if that is higher (a hand's release height). A footprint that overlaps a
    tile at that level by less, a neighbour it should lie against (end to end, side by side)
    off by the rounding of a typed position or by a settled structure's drift, is not lifted
    on top of that tile, hanging from a sliver of it: it is moved out of the neighbour until
    they touch (at most 2 × :data:`OVERLAP_TOLERANCE_M`), as a hand is stopped by the
    neighbour's end. Where that does not make room (a slot narrower than the tile), it rests
    where it was aimed, on top of the tiles it would be inside.

    Parameters
    ----------
    centre : array_like, shape (2,) or (3,), m
    yaw : float, rad
    poses : list of (position (3,), quaternion (4,))
    size : ndarray, shape (3,), m
    floor : float, m
    """
    thick = size[2]
    aimed = np.asarray(centre, dtype=float)[:2]
    boxes = [(np.asarray(p, dtype=float), np.asarray(q, dtype=float)) for p, q in poses]
    spans = [(float(z.min()), float(z.max())) for z in (box_corners(p, q, size)[:, 2] for p, q in boxes)]
    here = aimed.copy()
    for _ in range(8):
        face = floor
        for (p, q), (_, top) in zip(boxes, spans):
            if footprints_overlap(here, yaw, p[:2], quaternion_yaw(q), size, OVERLAP_TOLERANCE_M):
                face = max(face, top)
        grazed = [
            (p, q) for (p, q), (bottom, top) in zip(boxes, spans)
            if bottom < face + thick - CLEAR_TOLERANCE_M and top > face + CLEAR_TOLERANCE_M
            and footprints_overlap(here, yaw, p[:2], quaternion_yaw(q), size, CONTACT_SLACK_M)
        ]
        if not grazed:
            return here, face
        p, q = grazed[0]
        here = here + _out_of(here, yaw, p[:2], quaternion_yaw(q), size)
        if np.linalg.norm(here - aimed) > 2 * OVERLAP_TOLERANCE_M + 1e-9:
            break
    # No room beside: on top of whatever its footprint overlaps at the level it would take.
    face = floor
    while True:
        tops = [
            top for (p, q), (bottom, top) in zip(boxes, spans)
            if bottom < face + thick - CLEAR_TOLERANCE_M and top > face + CLEAR_TOLERANCE_M
            and footprints_overlap(aimed, yaw, p[:2], quaternion_yaw(q), size, CONTACT_SLACK_M)
        ]
        if not tops:
            return aimed, face
        face = max(tops)


def _out_of(c1, yaw1, c2, yaw2, size) -> np.ndarray:
    """The shortest move (x, y, m) of footprint 1 out of footprint 2, by separating axes:
    after it they touch along one axis."""
    half = np.array([size[0] / 2, size[1] / 2])

    def frame(yaw):  # rows: the footprint's long and short axes
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([[c, s], [-s, c]])

    f1, f2 = frame(yaw1), frame(yaw2)
    d = np.asarray(c2, dtype=float)[:2] - np.asarray(c1, dtype=float)[:2]
    best = None
    for axis in np.vstack([f1, f2]):
        depth = float(np.abs(f1 @ axis) @ half + np.abs(f2 @ axis) @ half) - abs(float(d @ axis))
        if best is None or depth < best[0]:
            best = (depth, axis, 1.0 if d @ axis >= 0 else -1.0)
    depth, axis, side = best
    return -side * (depth + 1e-9) * axis


# -- running ------------------------------------------------------------------------------


@dataclass
class SimulationResult:
    """Verdicts of a scenario: the structure's and one per what-if."""

    scenario: Scenario
    structure: Verdict
    what_if: list[Verdict | None]
    settled_poses: tuple[np.ndarray, np.ndarray]
    wall_time_s: float = 0.0
    traces: list = field(default_factory=list)
    engine: str = "dynamics"

    def to_dict(self) -> dict:
        """The JSON of ``simulate``: the same keys whatever the engine that judged."""
        from magdomino.version import __version__

        sc = self.scenario
        what_ifs = []
        for placement, verdict in zip(sc.what_if, self.what_if):
            entry = {"placement": sc.describe(placement)}
            if verdict is None:
                why = "did not stand" if self.structure.collapsed or self.structure.error else "did not settle"
                entry.update(collapsed=None, reason=f"not tried: the structure {why}", settled=False)
            else:
                entry.update(verdict.to_dict())
            entry["engine"] = self.engine
            what_ifs.append(entry)
        return {
            "version": __version__,
            "name": sc.name,
            "seed": sc.seed,
            "preset": sc.preset.name,
            "magnets": sc.magnets,
            "tile_size_mm": sc.preset.size_mm,
            "engine": self.engine,
            "structure": {"tiles": len(sc.structure), **self.structure.to_dict()},
            "what_if": what_ifs,
        }


def structure_poses(scenario: Scenario, size: np.ndarray, deltas: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where the structure's tiles go, in file order: a list of (position (3,) m, quaternion (4,)).

    ``deltas`` (n, 3): a noisy hand's miss of each tile (dx mm, dy mm, dyaw deg); a tile
    resting on others then rests on them where they really are. A tile at an explicit
    height must start clear of the ones before it (InputError naming its key).
    """
    used: list[tuple[np.ndarray, np.ndarray]] = []
    shown = [pl.pips for pl in scenario.structure]
    for i, pl in enumerate(scenario.structure):
        position, yaw = target_pose(pl, used, shown, size)
        explicit_z = pl.pos_mm is not None and len(pl.pos_mm) == 3
        if explicit_z:
            check_clear(position, yaw, used, size, scenario.source, f"structure[{i}].pos_mm")
        if deltas is not None:
            dx, dy, dyaw = deltas[i]
            centre = position[:2] + np.array([dx, dy]) / 1000
            yaw += math.radians(dyaw)
            if explicit_z:
                position = np.array([centre[0], centre[1], position[2]])
            else:
                centre, face = rest_pose(centre, yaw, used, size)
                position = np.array([centre[0], centre[1], face + size[2] / 2])
        used.append((np.asarray(position, dtype=float), yaw_quaternion(yaw)))
    return used


def build_structure(scenario: Scenario, world: World, poses=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Spawn the structure's tiles into ``world`` (at ``poses`` (positions (n, 3), quaternions
    (n, 4)) if given, else their file poses). Returns the poses used, as a list of
    (position (3,), quaternion (4,)).
    """
    if poses is None:
        used = structure_poses(scenario, world.size)
    else:
        used = [(np.asarray(p, dtype=float), np.asarray(q, dtype=float)) for p, q in zip(poses[0], poses[1])]
    build(world, [(pl.pips, p, q, pl.fixed) for pl, (p, q) in zip(scenario.structure, used)])
    return used


OVERLAP_TOLERANCE_M = 0.0005


def check_clear(position, yaw, poses, size, source: str, key: str, starts: str = "starts") -> None:
    """InputError if a tile put at an explicit height would start inside the table or
    another tile (``starts``: the verb of the message, "would end" for a slide's end).

    Heights computed as "resting on what is below" never do; an explicit ``z`` can. Boxes
    overlapping by less than half a millimetre (contact, rounding) are let through.
    """
    thick = size[2]
    if position[2] - thick / 2 < -OVERLAP_TOLERANCE_M:
        raise InputError(
            source, key, f"expected a height >= {thick / 2 * 1000:g} mm (half the tile's thickness: it lies on the table); "
            f"it {starts} {(thick / 2 - position[2]) * 1000:.2f} mm inside the table"
        )
    for j, (p, q) in enumerate(poses):
        if abs(p[2] - position[2]) < thick - OVERLAP_TOLERANCE_M and footprints_overlap(
            position[:2], yaw, p[:2], quaternion_yaw(q), size, OVERLAP_TOLERANCE_M
        ):
            raise InputError(
                source, key, f"expected a pose clear of the other tiles; it {starts} inside structure[{j}]"
            )


def try_placement(
    scenario: Scenario,
    settled: tuple[np.ndarray, np.ndarray],
    placement: Placement,
    *,
    preset: Preset | None = None,
    offset_mm=(0.0, 0.0),
    yaw_offset_deg: float = 0.0,
    drop_mm: float | None = None,
    gui: bool = False,
    world_hook=None,
    trace: list | None = None,
) -> Verdict:
    """Try one placement alone on the settled structure in a fresh world; return its verdict.

    ``preset`` (a varied copy), ``offset_mm``, ``yaw_offset_deg`` and ``drop_mm`` let a
    study perturb the placement (see :mod:`magdomino.studies.odds`); ``world_hook(world)`` is called
    once the world is built (renders use it to record frames); ``trace`` (a list) receives
    the settle's ``(t, max shift mm, max tilt deg)`` series (see :func:`settle`).
    """
    world = World(preset or scenario.preset, magnets=scenario.magnets, gui=gui)
    try:
        build_structure(scenario, world, settled)
        rest, yaw, motion = aim_placement(scenario, settled, placement, world.size, offset_mm, yaw_offset_deg, drop_mm)
        if world_hook is not None:
            world_hook(world)
        return place(world, placement.pips, rest, yaw, motion, watched=list(range(len(scenario.structure))), trace=trace)[1]
    finally:
        world.close()


def aim_placement(
    scenario: Scenario,
    settled: tuple[np.ndarray, np.ndarray],
    placement: Placement,
    size: np.ndarray,
    offset_mm=(0.0, 0.0),
    yaw_offset_deg: float = 0.0,
    drop_mm: float | None = None,
) -> tuple[np.ndarray, float, Drop | Slide]:
    """Where a placement should come to rest on the settled structure (position (3,) m, yaw
    rad), missed by the offsets as a hand would, and the motion that gets it there, started
    clear of every tile (:func:`~magdomino.physics.placement.clear_motion`: a drop into a slot
    under an overhang is released no higher than the room above its rest pose).

    A placement with no clear motion (no room for the tile at its rest pose, a slide that
    would start inside a tile) is refused: InputError naming the what-if's key.
    """
    n = len(scenario.structure)
    poses = [(settled[0][i], settled[1][i]) for i in range(n)]
    shown = [pl.pips for pl in scenario.structure]
    rest, yaw = target_pose(placement, poses, shown, size)
    if placement.slide_mm is not None or placement.relation == "beneath":
        rest[2] = size[2] / 2  # a slide happens on the table, under whatever is above
    elif placement.pos_mm is not None and len(placement.pos_mm) == 3:
        check_clear(rest, yaw, poses, size, scenario.source, _what_if_key(scenario, placement, "pos_mm"))
    if offset_mm[0] or offset_mm[1] or yaw_offset_deg:
        rest, yaw = _missed(placement, rest, yaw, offset_mm, yaw_offset_deg, poses, size)
    slide = placement.slide_mm
    if slide is None and placement.relation == "beneath":  # in along the table, from where its free half points
        t, h = placement.on
        free = 1.0 if placement.pips[0] == shown[t][h] else -1.0  # half 1 free: +axis
        slide = (free * SLIDE_START_MM * math.cos(yaw), free * SLIDE_START_MM * math.sin(yaw))
    if slide is not None:
        motion = Slide(tuple(np.array(slide) / 1000))
    else:
        motion = Drop((placement.drop_mm if drop_mm is None else drop_mm) / 1000)
    try:
        # A drop into a slot under an overhang is released no higher than the room above it.
        return rest, yaw, clear_motion(rest, yaw, motion, poses, size)
    except NoClearMotion as exc:
        part = "slide_mm" if isinstance(motion, Slide) else ("pos_mm" if placement.pos_mm is not None else placement.relation)
        if isinstance(motion, Slide):  # one that would end inside a tile too: that is said first
            check_clear(rest, yaw, poses, size, scenario.source, _what_if_key(scenario, placement, part), "would end")
        raise InputError(
            scenario.source, _what_if_key(scenario, placement, part),
            f"expected a placement that starts clear of the tiles: {exc.phrase(f'structure[{exc.tile}]')}",
        ) from None


def _what_if_key(scenario: Scenario, placement: Placement, part: str) -> str:
    """The file key of a what-if's ``part`` (``what_if[i].part``; ``what_if.part`` for a
    placement that is not one of the file's)."""
    index = scenario.what_if.index(placement) if placement in scenario.what_if else None
    return f"what_if[{index}].{part}" if index is not None else f"what_if.{part}"


CONTACT_SLACK_M = 1e-5
"""Footprints closer than this count as touching, not overlapping (see :func:`_missed`)."""


def _missed(placement, rest, yaw, offset_mm, yaw_offset_deg, poses, size):
    """Where a hand that aims at ``rest`` and misses by the offsets puts the tile.

    The tile is released at the height it aimed for, or higher if the miss puts it over
    something higher (never inside it: :func:`rest_pose`). A hand cannot push a tile into one
    at the same height beside it either (end to end, side by side): it stops at contact, so
    the miss is shortened until the footprints only touch.
    """
    thick = size[2]
    aimed_yaw = yaw
    yaw = yaw + math.radians(yaw_offset_deg)
    miss = np.array([offset_mm[0] / 1000, offset_mm[1] / 1000, 0.0])
    beside = [(p, q) for p, q in poses if abs(p[2] - rest[2]) < 0.9 * thick]

    def blocked(step, scale=1.0):
        centre = rest[:2] + scale * step[:2]
        turn = aimed_yaw + scale * (yaw - aimed_yaw)
        return [(p, q) for p, q in beside if footprints_overlap(centre, turn, p[:2], quaternion_yaw(q), size, CONTACT_SLACK_M)]

    hit = blocked(miss)
    if hit and not blocked(miss, 0.0):
        # Into a neighbour: the part of the miss towards it is stopped by the contact, the
        # rest (sideways) stays; if that still overlaps, shorten it to where it touches.
        towards = rest[:2] - np.asarray(hit[0][0][:2], dtype=float)
        normal = towards / max(float(np.linalg.norm(towards)), 1e-12)
        into = float(miss[:2] @ normal)
        if into < 0:
            miss[:2] -= into * normal
        if blocked(miss):
            lo, hi = 0.0, 1.0  # the largest fraction of the miss that stays clear
            for _ in range(20):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if not blocked(miss, mid) else (lo, mid)
            miss *= lo
            yaw = aimed_yaw + lo * (yaw - aimed_yaw)
    out = rest + miss
    if placement.slide_mm is None and placement.relation != "beneath" and (placement.pos_mm is None or len(placement.pos_mm) == 2):
        centre, face = rest_pose(out[:2], yaw, poses, size, floor=out[2] - thick / 2)
        out = np.array([centre[0], centre[1], face + thick / 2])
    return out, yaw


def settle_structure(scenario: Scenario, *, gui: bool = False, preset: Preset | None = None, world_hook=None):
    """Spawn the structure, settle it once; return (verdict, settled poses)."""
    world = World(preset or scenario.preset, magnets=scenario.magnets, gui=gui)
    try:
        build_structure(scenario, world)
        if world_hook is not None:
            world_hook(world)
        verdict = settle(world, list(range(len(scenario.structure))))
        return verdict, world.poses()
    finally:
        world.close()


def simulate(scenario: Scenario, *, gui: bool = False, trace: bool = False) -> SimulationResult:
    """Settle the structure, then try every what-if alone from the settled structure.

    With ``trace``, ``result.traces`` holds each what-if's settle series (see :func:`settle`).
    """
    start = time.perf_counter()
    check_scenario(scenario)
    verdict, settled = settle_structure(scenario, gui=gui)
    outcomes: list[Verdict | None] = []
    traces: list[list | None] = []
    for placement in scenario.what_if:
        if verdict.collapsed or verdict.error or not verdict.settled:  # nothing to build on
            outcomes.append(None)
            traces.append(None)
        else:
            series = [] if trace else None
            outcomes.append(try_placement(scenario, settled, placement, gui=gui, trace=series))
            traces.append(series)
    return SimulationResult(scenario, verdict, outcomes, settled, time.perf_counter() - start, traces)


def with_preset(scenario: Scenario, preset: Preset) -> Scenario:
    return replace(scenario, preset=preset)
