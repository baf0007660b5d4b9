"""Every legal placement of one tile on a settled structure: the rules' side of a what-if.

:func:`enumerate_placements` maps a settled structure onto the rules' grid
(:func:`structure_grid`) and lists the placements the rules allow for a tile, each as a
:class:`Candidate` with the physical placement that aims at it.
:func:`magdomino.studies.whatif.rank_placements` ranks candidates it is given by their odds;
``magdomino whatif`` wires the two (the study layer knows no rules).

From the settled structure to the rules' grid
---------------------------------------------
Legality is the rules' business (:class:`magdomino.games.tower.grid.Grid`), so the settled structure
is mapped onto the rules' square grid, and the Grid enumerates the placements:

- the grid's frame is structure tile 0 as it settled: its half 0 is square ``(0, 0)`` and its
  half 0 → half 1 axis is ``+x``;
- every structure tile's settled pose goes to the nearest :class:`~magdomino.maths.geometry.GridPose`
  (heading to the nearest quarter turn, level from its height); its pips as shown are the
  squares' pips;
- a tile that does not sit on the grid (its centre more than :data:`POSITION_TOLERANCE` grid
  units, i.e. 6 mm for the standard tile, from the grid pose; heading more than
  :data:`YAW_TOLERANCE_DEG` off; height more than :data:`LEVEL_TOLERANCE` thicknesses off a
  level; tilted more than :data:`TILT_TOLERANCE_DEG`) is refused with one clear line: the
  rules' matching ("one square exactly over the other") has no meaning for it. The bridge
  of ``scenarios/bridge.toml`` (a 12 mm gap, half a square) is such a construction; the
  curated zigzags, staircases and cantilevers (a few mm off) are on the grid.
- each structure tile's parent in the placement tree (for extremities) is its ``on`` tile,
  else the lowest-numbered earlier tile it rests on, lies under, or touches side by side at
  its level; none for a tile with no such neighbour.

A candidate's physical pose is then taken relative to where its parent tile really settled
(:func:`magdomino.maths.geometry.relative_pose` on the grid, :func:`~magdomino.maths.geometry.compose_pose`
on the parent's settled pose), exactly as the rules' physics adjudicator does
(:mod:`magdomino.physics.pybullet_adjudicator`), so a tile that settled 2 mm off its square gets a candidate
2 mm off too. Tower and end-to-end candidates are drops (``drop_mm`` from the odds noise);
slide-beneath candidates are pushed along the table from :data:`SLIDE_START_MM` away, in the
direction :meth:`Grid.slide_direction` chose.

Which placements (``rule``)
---------------------------
``"any"`` (default): every placement geometry of the tower rules: on top of any tile, end to
end with any table tile, slid beneath any tile at level 1. ``"defi"``: on top of any tile
(Défi magnétique has no flat placements). ``"quinconce"``: on extremities only, both modes
("en hauteur" on top, "à plat" end to end or beneath; a scenario does not say which mode is
owed, so both are listed and each candidate says its mode; as in the rules, every tile a
candidate rests on, touches end to end or slides under must be an extremity). Orientation
follows the rules' defaults: ``second_parallel`` (default True, the leaflet's tip) keeps the
tower placements on a structure of one tile parallel to it; ``parallel_only`` (default
False) keeps every tower placement parallel. Like the rules, one pose is one candidate,
whatever the number of ways to reach it.

An end-to-end candidate touches its neighbour exactly; the hand's miss towards that
neighbour is stopped by the contact, as a real hand is stopped by the neighbour's end
(:func:`magdomino.studies.simulation.try_placement`), so the odds are not spoiled by tiles started
inside each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from magdomino.checks import check_choice
from magdomino.errors import InputError
from magdomino.games.codec import namings
from magdomino.games.tower.grid import Grid
from magdomino.maths.geometry import (
    DIR_NAMES,
    DIRS,
    SLIDE_START_MM,  # how far away a slid candidate starts
    GridPose,
    compose_pose,
    physical_pose,
    relative_pose,
)
from magdomino.maths.poses import quaternion_yaw, tilt_angles, wrap_angle
from magdomino.studies.aiming import target_pose
from magdomino.studies.placement_language import tied_text
from magdomino.studies.scenario import Placement, Scenario
from magdomino.studies.whatif import check_tile
from magdomino.wording import tile_text

RULES = ("any", "defi", "quinconce")
POSITION_TOLERANCE = 0.25
"""Largest distance (in grid units, half a tile length) of a settled tile from its grid pose."""
YAW_TOLERANCE_DEG = 10.0
LEVEL_TOLERANCE = 0.3
"""Largest height error of a settled tile, in tile thicknesses."""
TILT_TOLERANCE_DEG = 10.0



# -- the structure on the grid ------------------------------------------------------------


@dataclass(frozen=True)
class GridFrame:
    """The rules' grid laid on the world: square (0, 0) at ``origin`` (m), +x at ``yaw`` (rad)."""

    origin: np.ndarray
    yaw: float
    unit: float

    def to_grid(self, xy) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        d = np.asarray(xy, dtype=float)[:2] - self.origin
        return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1]]) / self.unit

    def to_world(self, xy_m) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        x, y = xy_m[0], xy_m[1]
        return self.origin + np.array([c * x - s * y, s * x + c * y])


def structure_grid(scenario: Scenario, settled) -> tuple[Grid, GridFrame]:
    """The settled structure on the rules' grid (see the module docstring).

    Parameters
    ----------
    scenario : Scenario
    settled : (positions (n, 3) m, quaternions (n, 4))

    Returns
    -------
    grid : Grid
        Tile ``i`` of the structure is construction number ``i``.
    frame : GridFrame
    """
    positions, quats = (np.asarray(a, dtype=float) for a in settled)
    size = np.asarray(scenario.preset.tile.size, dtype=float)
    unit = size[0] / 2
    yaw0 = quaternion_yaw(quats[0])
    frame = GridFrame(positions[0][:2] - unit / 2 * np.array([math.cos(yaw0), math.sin(yaw0)]), yaw0, unit)
    upright = np.tile([0.0, 0.0, 0.0, 1.0], (len(quats), 1))
    tilts = np.degrees(tilt_angles(quats, upright))
    grid = Grid()
    for i, (pl, p, q) in enumerate(zip(scenario.structure, positions, quats)):
        key = f"structure[{i}]"
        name = tile_text(pl.pips)
        pose, why = _nearest_grid_pose(frame, size, p, q, tilts[i])
        if why is not None:
            raise InputError(
                scenario.source, key,
                f"{name} {why} of the rules' square grid (set by structure[0]); whatif needs a construction "
                "whose halves lie square over square, as the rules place them",
            )
        parent = _structure_parent(grid, pose, pl)
        try:
            grid.add(pose, pl.pips, parent)
        except ValueError:
            other = grid.cells.get(pose.squares()[0], grid.cells.get(pose.squares()[1]))[0]
            raise InputError(
                scenario.source, key, f"{name} takes the grid square of structure[{other}] (they overlap by half a tile or more)"
            ) from None
    return grid, frame


def _nearest_grid_pose(frame: GridFrame, size, p, q, tilt_deg: float) -> tuple[GridPose, str | None]:
    """The grid pose nearest to a settled tile (centre ``p`` m, quaternion ``q``), and why it
    is not on the grid (None when it is, within the tolerances)."""
    unit, thick = size[0] / 2, size[2]
    yaw = quaternion_yaw(q)
    rel = wrap_angle(yaw - frame.yaw)  # ±π alike below: k = 2, no error either way
    k = int(round(rel / (math.pi / 2))) % 4
    d = (0, 2, 1, 3)[k]
    yaw_err = abs(math.degrees(wrap_angle(rel - k * math.pi / 2)))
    half0 = p[:2] - unit / 2 * np.array([math.cos(yaw), math.sin(yaw)])
    gx, gy = np.rint(frame.to_grid(half0)).astype(int)
    level_f = p[2] / thick - 0.5
    level = int(round(level_f))
    pose = GridPose(int(gx), int(gy), level, d)
    centre, _ = physical_pose(pose, size)
    off_mm = float(np.linalg.norm(frame.to_world(centre) - p[:2])) * 1000
    why = None
    if tilt_deg > TILT_TOLERANCE_DEG:
        why = f"is tilted {tilt_deg:.1f} deg (tolerance {TILT_TOLERANCE_DEG:g})"
    elif yaw_err > YAW_TOLERANCE_DEG:
        why = f"is turned {yaw_err:.1f} deg off the grid's axes (tolerance {YAW_TOLERANCE_DEG:g})"
    elif off_mm > POSITION_TOLERANCE * unit * 1000:
        why = f"lies {off_mm:.1f} mm off the nearest grid place (tolerance {POSITION_TOLERANCE * unit * 1000:g} mm)"
    elif abs(level_f - level) > LEVEL_TOLERANCE or level < 0:
        why = f"lies {abs(level_f - level) * thick * 1000:.1f} mm off a level's height (tolerance {LEVEL_TOLERANCE * thick * 1000:g} mm)"
    return pose, why


def _structure_parent(grid: Grid, pose: GridPose, pl: Placement) -> int | None:
    if pl.on is not None:
        return pl.on[0]
    near = set(grid.supports(pose))
    for x, y, lev in pose.squares():
        above = grid.cells.get((x, y, lev + 1))
        if above is not None:
            near.add(above[0])
        for dx, dy in DIRS:
            side = grid.cells.get((x + dx, y + dy, lev))
            if side is not None:
                near.add(side[0])
    return min(near) if near else None


# -- candidates ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One legal placement of a tile, in rule terms and as a :class:`Placement`.

    Attributes
    ----------
    index : int
        Position in the enumeration order (the order of the rules' actions).
    tile : (int, int)
        ``(low, high)``; half 0 shows ``tile[0]`` (as in :mod:`magdomino.games`).
    grid : GridPose
        In the frame of :func:`structure_grid`.
    mode : "tower" | "flat"
    kind : "on top" | "end to end" | "beneath"
    motion : "drop" | "slide"
    slide : int or None
        Grid direction (index into :data:`~magdomino.maths.geometry.DIRS`) of a slide.
    parent : int
        Structure tile it rests on, touches end to end or slides under.
    parent_half : int
        The parent's half that the matching half lies on / touches / lies under.
    direction : str
        Where the other half goes, seen from the parent's half: ``"outward"`` (away from the
        parent's other half), ``"back"`` (over or under it), ``"across, left"`` /
        ``"across, right"`` (perpendicular, left or right of the parent's half 0 → half 1).
    supports : tuple of int
        Structure tiles right below it.
    placement : Placement
        Absolute pose (``pos_mm`` x, y; ``yaw_deg``), ``slide_mm`` for a slide.
    pos_mm : (float, float, float)
        The rest pose's centre, as the placement will aim at it.
    """

    index: int
    tile: tuple[int, int]
    grid: GridPose
    mode: str
    kind: str
    motion: str
    slide: int | None
    parent: int
    parent_pips: tuple[int, int]
    parent_half: int
    pips_matched: int
    direction: str
    supports: tuple[int, ...]
    placement: Placement
    pos_mm: tuple[float, float, float]

    def describe(self) -> str:
        """This candidate in the placement language (:mod:`magdomino.studies.placement_language`),
        which scenario files and the Python face read back as the same placement."""
        slide_mm = self.placement.slide_mm if self.motion == "slide" else None
        return placement_words(self.tile, self.grid, self.parent, self.parent_pips, self.kind, self.supports,
                               slide_mm=slide_mm, slide=self.slide, relation=(self.parent_half, self.pips_matched, self.direction))

    def to_dict(self) -> dict:
        pl = self.placement
        return {
            "description": self.describe(),
            "tile": list(self.tile),
            "mode": self.mode,
            "kind": self.kind,
            "motion": self.motion,
            "parent": self.parent,
            "parent_pips": list(self.parent_pips),
            "parent_half": self.parent_half,
            "pips_matched": self.pips_matched,
            "direction": self.direction,
            "supports": list(self.supports),
            "grid": {"pose": self.grid.to_list(), "direction": DIR_NAMES[self.grid.d], "level": self.grid.level},
            "slide": None if self.slide is None else DIR_NAMES[self.slide],
            "pos_mm": [round(v, 3) for v in self.pos_mm],
            "yaw_deg": round(pl.yaw_deg, 3),
            "slide_from_mm": None if pl.slide_mm is None else [round(v, 3) for v in pl.slide_mm],
        }


def enumerate_placements(
    scenario: Scenario,
    tile_pips,
    settled,
    *,
    rule: str = "any",
    parallel_only: bool = False,
    second_parallel: bool = True,
) -> list[Candidate]:
    """Every legal placement of ``tile_pips`` on the settled structure (module docstring).

    Parameters
    ----------
    scenario : Scenario
    tile_pips : (int, int) or "a,b"
    settled : (positions (n, 3), quaternions (n, 4))
        The structure as it settled (:func:`magdomino.studies.simulation.settle_structure`).
    rule : "any" | "defi" | "quinconce"
    parallel_only : bool
        Every tower placement parallel to the tile below (default False).
    second_parallel : bool
        On a structure of one tile, tower placements parallel to it (default True).

    Returns
    -------
    list of Candidate, in the rules' action order (flat before tower, level, x, y, d).
    """
    t = check_tile(scenario, tile_pips)
    check_choice(rule, "rule", RULES)
    grid, _frame = structure_grid(scenario, settled)
    parallel = parallel_only or (second_parallel and len(grid) == 1)
    order = _grid_placements(grid, t, rule, parallel)
    positions, quats = (np.asarray(a, dtype=float) for a in settled)
    size = np.asarray(scenario.preset.tile.size, dtype=float)
    world = _World(positions, quats, size, [(positions[i], quats[i]) for i in range(len(positions))],
                   [pl.pips for pl in scenario.structure])
    return [_candidate(grid, world, t, k, c) for k, c in enumerate(order)]


def _grid_placements(grid: Grid, t, rule: str, parallel_only: bool) -> list[tuple]:
    """The Grid's placements of tile ``t`` under ``rule``, one per pose, in the rules' action
    order (``parallel_only``: tower placements parallel to the tile below)."""
    a, b = t
    ends_only = rule == "quinconce"
    parents = grid.extremities() if ends_only else range(len(grid))
    found: dict[tuple, tuple] = {}
    for p in parents:
        q0, q1 = grid.pips[p]
        if a not in (q0, q1) and b not in (q0, q1):
            continue
        cands = grid.tower_placements(a, b, p, parallel_only)
        if rule != "defi":
            level = grid.poses[p].level
            if level == 0:
                cands = cands + grid.end_placements(a, b, p)
            elif level == 1:
                cands = cands + grid.slide_placements(a, b, p)
        for c in cands:
            if ends_only and not grid.only_extremities(GridPose(*c[:4])):
                continue
            found.setdefault(c[:4], c)
    return sorted(found.values(), key=lambda c: (c[2] > 0, c[2], c[0], c[1], c[3], c[5], -1 if c[6] is None else c[6], c[4]))


@dataclass(frozen=True)
class _World:
    """The settled structure as the candidates need it: poses (m, quaternions), tile size
    (m), (position, quaternion) pairs and the pips each tile shows."""

    positions: np.ndarray
    quats: np.ndarray
    size: np.ndarray
    poses: list
    shown: list


def _aim(grid: Grid, world: _World, t, pose: GridPose, parent: int, motion: str, slide) -> Placement:
    """The physical placement of a grid pose, relative to where its parent really settled."""
    ppose = grid.poses[parent]
    pyaw = quaternion_yaw(world.quats[parent])
    offset, ryaw = relative_pose(pose, ppose, world.size)
    centre, yaw = compose_pose(world.positions[parent], pyaw, offset, ryaw)
    slide_mm = None
    if motion == "slide":
        turn = pyaw - physical_pose(ppose, world.size)[1]  # grid frame -> world, at the parent
        dx, dy = DIRS[slide]
        c, s = math.cos(turn), math.sin(turn)
        slide_mm = (-(c * dx - s * dy) * SLIDE_START_MM, -(s * dx + c * dy) * SLIDE_START_MM)
    return Placement(t, pos_mm=(float(centre[0] * 1000), float(centre[1] * 1000)), yaw_deg=math.degrees(yaw), slide_mm=slide_mm)


def _candidate(grid: Grid, world: _World, t, k: int, found: tuple) -> Candidate:
    """Candidate number ``k`` from the Grid's placement tuple ``found``."""
    x, y, lev, d, parent, motion, slide = found
    pose = GridPose(x, y, lev, d)
    ppose = grid.poses[parent]
    placement = _aim(grid, world, t, pose, parent, motion, slide)
    rest, _ = target_pose(placement, world.poses, world.shown, world.size)
    if motion == "slide":
        rest[2] = world.size[2] / 2
    kind = "on top" if lev > ppose.level else ("beneath" if lev < ppose.level else "end to end")
    half, matched, direction = relation_of(pose, t, ppose, grid.pips[parent], kind)
    return Candidate(
        index=k,
        tile=t,
        grid=pose,
        mode="tower" if kind == "on top" else "flat",
        kind=kind,
        motion=motion,
        slide=slide,
        parent=parent,
        parent_pips=tuple(grid.pips[parent]),
        parent_half=half,
        pips_matched=matched,
        direction=direction,
        supports=tuple(grid.supports(pose)),
        placement=placement,
        pos_mm=tuple(float(v) * 1000 for v in rest),
    )


WORDS = {"on top": "on", "beneath": "beneath", "end to end": "after"}
"""The placement language's word for each kind of placement on the grid."""


def placement_words(tile, grid: GridPose, parent: int, parent_pips, kind: str, supports=(), *, slide_mm=None,
                    slide: int | None = None, parent_pose: GridPose | None = None, relation=None,
                    as_shown: bool = False) -> str:
    """A placement on the rules' grid in the placement language: ``"3-1 on #2 (3-3) half 1,
    across left"``, the lower tile's pips as shown; the tile with its matching half first, or
    (``as_shown``) half 0 first as it will lie, the order later placements' ``half`` refers to.

    ``relation``: (parent's half, pips matched, direction) when known, else computed from
    ``grid`` and ``parent_pose``. A slide is written ``slid from (dx, dy) mm`` (``slide_mm``,
    in the frame the placement is read in) unless it comes from where the free half points,
    as the language's ``beneath`` does by default.
    """
    half, matched, direction = relation or relation_of(grid, tile, parent_pose, parent_pips, kind)
    other = tile[1] if tile[0] == matched else tile[0]
    first, second = tile if as_shown else (matched, other)
    text = tied_text((first, second), WORDS[kind], parent, half, parent_pips)
    if kind != "end to end" and direction != "outward":
        text += ", " + direction.replace("across, ", "across ")
    also = [f"#{n}" for n in supports if n != parent]
    if kind == "on top" and also:
        text += f", bridging to {', '.join(also)}"
    if slide is not None and slide_mm is not None:
        mine = grid.squares()
        m = mine[0] if tile[0] == matched else mine[1]
        o = mine[1] if tile[0] == matched else mine[0]
        free = (o[0] - m[0], o[1] - m[1])
        if DIRS[slide] != (-free[0], -free[1]):  # not in from where its free half points
            text += f", slid from ({slide_mm[0]:g}, {slide_mm[1]:g}) mm"
    return text


def relation_of(pose: GridPose, t, ppose: GridPose, ppips, kind: str) -> tuple[int, int, str]:
    """(parent's grid half, pips matched, direction of the other half) of a placement on the grid."""
    return _match(pose, t, ppose, ppips, kind)[1:]


def matching_half(pose: GridPose, t, ppose: GridPose, ppips, kind: str) -> int:
    """Which of a placed tile's grid halves (0 or 1) meets its parent: the half its placement
    text writes first. For a double the grid's half numbering (:func:`~magdomino.games.tower.grid.canonical`)
    may put it second; the placement language numbers a double's halves from that one."""
    return _match(pose, t, ppose, ppips, kind)[0]


DIRECTION_WORDS = ("outward", "back", "across, left", "across, right")
"""The codec's directions (:data:`magdomino.games.codec.DIRECTIONS`) as a placement's text writes them."""


def _match(pose: GridPose, t, ppose: GridPose, ppips, kind: str) -> tuple[int, int, int, str]:
    """(own half, parent's half, pips matched, direction of the other half) of a placement: the
    first of the codec's namings (:func:`magdomino.games.codec.namings`), in the language's words."""
    end_to_end = kind == "end to end"
    for h, k, direction in namings(pose, t, ppose, ppips, 2 if end_to_end else 0):
        return h, k, ppips[k], "in line, outward" if end_to_end else DIRECTION_WORDS[direction]
    raise AssertionError(f"candidate {pose} of {t} does not meet its parent {ppose}")  # the Grid said it does
