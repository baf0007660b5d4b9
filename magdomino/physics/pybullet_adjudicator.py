"""The ``pybullet`` adjudicator: placements really happen in a :class:`~magdomino.physics.world.World`.

The construction persists across turns: one world per construction, tiles added as they are
placed, never rebuilt. Each placement is a motion:

- a tower placement (and a flat end-to-end one) is a drop: the tile is released with zero
  speed ``drop_mm`` above its rest pose, or lower where a tile above leaves less room (a flat
  placement under an overhang, in a slot one tile thick: released at its rest pose, never
  inside the tile above; :func:`~magdomino.physics.motion.clear_motion`);
- a slide-beneath placement starts on the table ``slide_start_mm`` away and is pushed along
  the table into place (it can push the construction).

The rest pose is taken relative to where the parent tile actually is now (it may have
settled a little off the nominal grid), from :attr:`PlacementView.relative_pose`. Then
:func:`~magdomino.physics.settle.settle` judges the construction as it was before the placement
(the tiles must not move) and the placed tile (it must not fall off).

A numerical blow-up gives an error verdict, never a collapse; the rules keep the placement,
so the world, whose poses are then garbage, is rebuilt from the construction's grid poses.
A placement with no clear motion is another matter: the construction has drifted off the
rules' grid (tiles pushed without falling) until a neighbour lies where the tile should go,
and no hand could start it there. Spawning it inside the neighbour would let the engine push
them apart; it is not a move at all (an ``unplayable`` outcome whose error names the
neighbour), the world is left exactly as it was, and the seat chooses again.
"""

from __future__ import annotations

import numpy as np

from magdomino.maths.geometry import compose_pose, physical_pose
from magdomino.maths.poses import quaternion_yaw, yaw_quaternion
from magdomino.model.presets import DEFAULT_PRESET, Preset, load_preset
from magdomino.physics.adjudicator import ConstructionInfo, Outcome, PlacementView
from magdomino.physics.motion import Drop, NoClearMotion, Slide, build, clear_motion, place
from magdomino.physics.settle import settle
from magdomino.physics.statics_adjudicator import pose_risks, prepare, view_risks
from magdomino.physics.verdict import Verdict
from magdomino.physics.world import World
from magdomino.wording import tile_text

COMFORTABLE_RISK = 0.2
"""A candidate whose statics risk is at most this (a tilt margin of at least 11° and a load
factor of at least 2.1, :func:`~magdomino.physics.statics_adjudicator.statics_risk`) is not
previewed: the dynamics overturns the statics where margins are small (the statics
docstring: of the drops that fell where the statics said "stands", 11 of 15 had a margin
under 5°, 13 of 15 a load factor under 1.8)."""


class PybulletAdjudicator:
    """Decides collapses with the physics world.

    Parameters
    ----------
    preset : Preset or str
        Physical preset (name, path or loaded).
    magnets : bool
        False switches the magnets off.
    drop_mm : float
        Release height above rest for dropped tiles.
    slide_start_mm : float
        How far away a slid tile starts, along its slide direction.
    previews : int
        How many candidates :meth:`assess` also places in a copy of the world (the lowest
        statics risks; 1 keeps a careful decision within about two placements' time).
    margins : int
        How many standing candidate poses :meth:`assess` measures the tilt margin and load
        factor of (the first in the player's order; 5-50 ms each).
    """

    name = "dynamics"
    trivial = False

    def __init__(self, preset: Preset | str = DEFAULT_PRESET, *, magnets: bool = True, drop_mm: float = 1.0, slide_start_mm: float = 60.0,
                 previews: int = 1, margins: int = 1):
        self.preset = load_preset(preset) if isinstance(preset, str) else preset
        self.magnets = magnets
        self.drop = drop_mm / 1000
        self.slide_start = slide_start_mm / 1000
        self.previews = int(previews)
        self.margins = int(margins)
        self.tile_size = tuple(float(v) for v in self.preset.tile.size)
        self.world: World | None = None
        self._bodies: list[int] = []  # construction number -> world tile index

    def start(self, construction: ConstructionInfo) -> None:
        self.close()
        self.world = World(self.preset, magnets=self.magnets)
        self._bodies = []

    def place(self, view: PlacementView, action) -> Outcome:
        if self.world is None:
            self.start(ConstructionInfo(view.deal, "deal", self.tile_size))
        world = self.world
        try:
            rest, yaw, motion = self.aim(view)
        except NoClearMotion as exc:
            return self._no_clear_motion(view, exc)
        index, verdict = place(world, view.tile, rest, yaw, motion, watched=list(self._bodies))
        self._bodies.append(index)
        record = verdict.to_dict()
        # Report tiles by construction number, as the rules know them.
        number_of = {b: n for n, b in enumerate(self._bodies)}
        for moved in record["moved_tiles"]:
            moved["tile"] = number_of.get(moved["tile"], moved["tile"])
        if record["culprit"] is not None:
            record["culprit"] = number_of.get(record["culprit"], record["culprit"])
        if verdict.error:
            # The world blew up: its poses are garbage. The rules keep the placement (an
            # error is never a collapse), so rebuild the construction as the rules know it,
            # at its nominal grid poses, and go on from there.
            self._rebuild([*view.construction, view])
            record["world_rebuilt"] = True
        return Outcome(collapsed=verdict.collapsed, verdict=record, error=verdict.error)

    def _no_clear_motion(self, view: PlacementView, exc: NoClearMotion) -> Outcome:
        """The outcome of a placement the physics cannot start clear of the construction:
        unplayable, the world untouched (nothing was added to it)."""
        number = {b: n for n, b in enumerate(self._bodies)}.get(exc.tile, exc.tile)
        a, b = self.world.tiles[exc.tile].pips
        error = f"no clear motion: {exc.phrase(f'tile {number} ({tile_text((a, b))})')}"
        verdict = Verdict(collapsed=False, reason="error", settled=False, max_shift_mm=float("nan"), max_tilt_deg=float("nan"),
                          sim_time_s=0.0, wall_time_s=0.0, error=error)
        return Outcome(collapsed=False, verdict=verdict.to_dict(), error=error, unplayable=True)

    def aim(self, view: PlacementView) -> tuple[np.ndarray, float, Drop | Slide]:
        """Where the tile should come to rest (position (3,) m, yaw rad) and how it gets there,
        started clear of the construction (:func:`~magdomino.physics.motion.clear_motion`:
        a drop under an overhang is released no higher than the room above its rest pose).

        Raises
        ------
        NoClearMotion
            No motion starts clear: a tile of the construction lies where this one goes.
        """
        rest, yaw, motion = self._target(view)
        if self.world is None:
            return rest, yaw, motion
        return rest, yaw, clear_motion(rest, yaw, motion, self.world.poses(), self.world.size)

    def _target(self, view: PlacementView) -> tuple[np.ndarray, float, Drop | Slide]:
        """The rest pose (position (3,) m, yaw rad) and the motion asked for, as the rules
        place the tile, relative to where its parent actually is."""
        if view.parent is None or view.relative_pose is None:
            rest, yaw = np.asarray(view.pose[0], dtype=float), float(view.pose[1])
        else:
            positions, quats = self.world.poses()
            parent = self._bodies[view.parent.number]
            offset, rel_yaw = view.relative_pose
            rest, yaw = compose_pose(positions[parent], quaternion_yaw(quats[parent]), offset, rel_yaw)
            if view.mode == "flat":
                rest[2] = self.world.size[2] / 2  # on the table, whatever the parent's height
        if view.motion == "slide" and view.slide_vector is not None:
            return rest, yaw, Slide(tuple(-np.array(view.slide_vector, dtype=float) * self.slide_start))
        return rest, yaw, Drop(self.drop)

    def assess(self, views) -> list[float]:
        """Risk of each candidate placement on the current construction, in [0, 1] (the scale
        of :mod:`magdomino.physics.adjudicator`).

        The statics judges every distinct rest pose (:meth:`aim`, from where the tiles have
        actually settled; one prepared structure per call), with the margin and load factor
        of the first standing ones in the order of ``views`` (the player's preference first;
        :func:`~magdomino.physics.statics_adjudicator.pose_risks`). Then the
        ``previews`` lowest-risk poses the statics does not condemn (and is not comfortable
        with: risk above :data:`COMFORTABLE_RISK`) are placed for real, one at a
        time, in a COPY of the world (a fresh world built from the settled poses, never the
        live one): a preview that falls makes the risk 1, one that stands halves it. The live
        world, and so every later verdict, is left exactly as it was.
        """
        views = list(views)
        return view_risks(views, lambda todo: self._pose_risks(views, todo, None))

    def assess_first(self, views, enough: int) -> list:
        """:meth:`assess` of the views in order until ``enough`` distinct poses stand for sure
        after the previews; None for the views after (each would get at least
        :data:`~magdomino.physics.statics_adjudicator.STANDING_MAX`: the protocol in
        :mod:`magdomino.physics.adjudicator`). The statics judges until ``enough +
        previews`` poses stand for sure: the previewed poses are among them, and a preview
        that falls takes one away."""
        views = list(views)
        return view_risks(views, lambda todo: self._pose_risks(views, todo, enough + self.previews))

    def _pose_risks(self, views, todo: list, enough: int | None) -> dict:
        """Risk of each grid pose of ``views[todo]`` judged (:meth:`assess`; ``enough``: :func:`pose_risks`'s)."""
        if self.world is None:
            return {views[i].grid: 0.0 for i in todo}
        positions, quats = self.world.poses()
        bodies = list(self._bodies)
        structure = prepare(self.preset, positions[bodies], quats[bodies], self.magnets)
        first: dict = {}  # grid pose -> (first view, rest position, quaternion); the pips do not matter here
        for i in todo:
            if views[i].grid not in first:
                rest, yaw, _ = self._target(views[i])
                first[views[i].grid] = (i, rest, yaw_quaternion(yaw))
        risk = pose_risks(structure, {k: (p, q) for k, (_, p, q) in first.items()}, self.margins, enough)
        poses = {k: [r, first[k][0]] for k, r in risk.items()}  # grid pose -> [risk, first view]
        ranked = sorted((r, i, key) for key, (r, i) in poses.items() if r < 1.0)
        for r, i, key in ranked[: self.previews]:
            if r <= COMFORTABLE_RISK:  # the statics is sure enough: no preview needed
                continue
            fell = self._preview(views[i], positions[bodies], quats[bodies])
            if fell is not None:
                poses[key][0] = 1.0 if fell else r / 2
        return {k: r for k, (r, _) in poses.items()}

    def _preview(self, view: PlacementView, positions, quats) -> bool | None:
        """Whether ``view`` makes the construction fall in a fresh copy of the world at the
        settled poses (None: the copy blew up, or no motion starts clear)."""
        try:
            rest, yaw, motion = self.aim(view)
        except NoClearMotion:
            return None
        copy = World(self.preset, magnets=self.magnets)
        try:
            indices = build(copy, [(t.tile, p, q, False) for t, p, q in zip(view.construction, positions, quats)])
            # No seating step: the poses come from a settled world (and time is the budget).
            _, verdict = place(copy, view.tile, rest, yaw, motion, watched=indices)
        finally:
            copy.close()
        return None if verdict.error else bool(verdict.collapsed)

    def settle_construction(self, construction) -> Verdict:
        """A fresh world holding ``construction`` (PlacedTile) at its grid poses, settled as a
        scenario's structure is (:func:`~magdomino.physics.settle.settle`, every tile
        watched); its verdict says whether the construction stands by itself. The world is
        kept: a :meth:`place` then judges the next placement on it."""
        self.close()
        self.world = World(self.preset, magnets=self.magnets)
        self._bodies = [self.world.add_tile(t.tile, *physical_pose(t.grid, self.tile_size)) for t in construction]
        return settle(self.world, list(self._bodies))

    def judge_view(self, view: PlacementView) -> tuple[Verdict, Outcome | None]:
        """The construction of ``view`` and ``view``'s placement on it, judged from scratch:
        :meth:`settle_construction`, then :meth:`place` when it settled standing (else None).
        Stateless for the caller: the world is closed afterwards."""
        try:
            tower = self.settle_construction(view.construction)
            if tower.collapsed or tower.error or not tower.settled:
                return tower, None
            return tower, self.place(view, None)
        finally:
            self.close()

    def _rebuild(self, tiles) -> None:
        """A fresh world holding ``tiles`` (PlacedTile or PlacementView) at their grid poses."""
        self.close()
        self.world = World(self.preset, magnets=self.magnets)
        self._bodies = []
        for t in tiles:
            centre, yaw = physical_pose(t.grid, self.tile_size)
            self._bodies.append(self.world.add_tile(t.tile, centre, yaw))
        self.world.step(int(round(0.05 / self.world.time_step)))  # let the contacts seat

    def close(self) -> None:
        if self.world is not None:
            self.world.close()
            self.world = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
