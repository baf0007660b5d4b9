"""The physics world: tiles with magnets on a table, stepped by PyBullet.

A :class:`World` owns one ``BulletClient`` (DIRECT by default, GUI on request), never the
global ``pybullet`` connection, so that many worlds can live in one process. Tiles are box
primitives for collision (stable contacts), or the tile mesh's convex hull when the preset
says ``collision = "mesh"``; the trimesh tile mesh is their visual shape when visuals are on
(GUI, renders).

Magnets: PyBullet clears external forces after every ``stepSimulation``, so the magnet
wrench of every tile is applied before each step (force at the centre of mass plus torque,
both in the world frame). They come from :class:`magdomino.maths.magnets.CachedWrenches`: a tile
pair is recomputed only when its relative pose has moved on by more than
``solver.magnet_update_mm`` (scaled with the pair's distance) or ``solver.magnet_update_deg``
since its last computation; a construction drifting or leaning as a whole recomputes nothing
(stated error bound there). A resting tower costs a pose read and a wrench per tile per step.

Units: SI inside (m, kg, s, rad). Poses are ``(position (3,), quaternion (4,) x, y, z, w)``.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
from dataclasses import dataclass

import numpy as np

from magdomino.errors import ARGUMENTS, InputError
from magdomino.maths.geometry import box_separations
from magdomino.maths.poses import quaternion_matrices, yaw_quaternion
from magdomino.model.presets import Preset
from magdomino.model.tiles import colour_of, colour_rgb, tile, tile_mesh, tile_uv_mesh
from magdomino.physics.connections import connect, engine_key, give_back, take_client


@dataclass(frozen=True)
class SlideShortcuts:
    """Cheaper steps through a slide (:meth:`World.slide`), each validated against the whole
    motion where it is used (:mod:`magdomino.studies.hybrid_engine`).

    ``approach_gap`` (m): the part of the motion where the tile is farther than this from
    every tile is not stepped. ``push_iterations``: the solver iterations while the hand
    pushes (the preset's again once it lets go).
    """

    approach_gap: float | None = None
    push_iterations: int | None = None


@dataclass
class TileBody:
    """One tile in the world."""

    body: int
    pips: tuple[int, int]  # as shown: half 0 (−x), half 1 (+x)
    fixed: bool = False


class World:
    """A table with tiles and magnets, stepped at the preset's fixed time step.

    Parameters
    ----------
    preset : Preset
        Tile size, mass, friction, magnets, solver settings.
    magnets : bool
        False switches every magnet off.
    gui : bool
        Open PyBullet's GUI instead of the headless DIRECT mode.
    visuals : bool or None
        Give tiles their coloured, pipped mesh as visual shape (needed for GUI and renders;
        costs about 20 ms per tile). None: only with the GUI.

    Examples
    --------
    >>> world = World(load_preset("standard"))
    >>> a = world.add_tile((6, 6), position=(0, 0, 0.004))
    >>> world.step(1000)
    """

    def __init__(self, preset: Preset, *, magnets: bool = True, gui: bool = False, visuals: bool | None = None):
        if gui and sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            # PyBullet's GUI would exit the process from C without a word.
            raise InputError(ARGUMENTS, "gui", "a display for PyBullet's window (DISPLAY is not set); drop {gui} to run headless")
        solver = preset.solver
        # Worlds with visual meshes (GUI, renders) keep their own connection.
        self._pool_key = None if gui or visuals else engine_key(solver)
        reused = None if self._pool_key is None else take_client(self._pool_key)
        table = None
        if reused is not None:
            import pybullet  # noqa: PLC0415 - imported with its C banner silenced by connections.connect, which ran first

            self.client, table = reused
        else:
            self.client, pybullet = connect(gui)
        self.preset = preset
        self.gui = gui
        self.visuals = gui if visuals is None else visuals
        self._pb = pybullet
        self.time_step = solver.time_step
        self.client.setPhysicsEngineParameter(
            fixedTimeStep=self.time_step,
            numSolverIterations=solver.iterations,
            numSubSteps=0,
            deterministicOverlappingPairs=1,
            # None: the engine's own default (the settings of earlier versions, for comparisons)
            **({} if solver.contact_erp is None else {"contactERP": solver.contact_erp}),
        )
        self.client.setGravity(0, 0, -solver.gravity)
        tile_spec = preset.tile
        self.size = np.asarray(tile_spec.size, dtype=float)
        self.mass = float(tile_spec.mass)
        self.friction = float(tile_spec.friction)
        # PyBullet gives a contact the product of its two bodies' friction coefficients
        # (btManifoldResult::calculateCombinedFriction). Every contact here is tile on tile
        # or tile on table, so every body gets √μ and every contact has the preset's μ.
        self.body_friction = math.sqrt(self.friction)
        # The table's own μ (tile.table_friction): its body gets μ_table / √μ, so a tile on it
        # has μ_table (the same √μ when it is the tiles' μ: bit for bit as before).
        self.table_friction = float(tile_spec.table_mu)
        self.table_body_friction = (
            self.body_friction if self.table_friction == self.friction or self.friction == 0 else self.table_friction / self.body_friction
        )
        self.restitution = float(tile_spec.restitution)
        self._served = 1 if table is None else table[1] + 1  # worlds on this connection since its reset
        self.table = (table[0] if table is not None
                      else self.client.createMultiBody(0, self.client.createCollisionShape(pybullet.GEOM_PLANE)))
        self.client.changeDynamics(
            self.table, -1, lateralFriction=self.table_body_friction, restitution=self.restitution,
            frictionAnchor=int(solver.friction_anchor),
        )
        self._collision_shape = self._make_collision_shape()
        self._rounded_shape = None
        self.tiles: list[TileBody] = []
        self.time = 0.0
        self.steps = 0
        self.magnets_on = bool(magnets) and len(tile_spec.magnets) > 0
        self._magnets = None
        self._cache = None
        if self.magnets_on:
            from magdomino.maths.magnets import CachedWrenches, TileMagnets  # noqa: PLC0415 - numba kernels: loaded by worlds with magnets only

            self._magnets = TileMagnets.from_specs(tile_spec.magnets, model=solver.magnet_model)
            self._cache = CachedWrenches(
                self._magnets, solver.magnet_update, solver.magnet_update_angle,
                linear=(solver.magnet_linear, solver.magnet_linear_angle),
            )
        self._tiles_changed = True  # tiles were added, removed or moved by hand: reset the magnet cache
        self._live = []  # bodies of the tiles in the world
        self._applied = None  # (index in _live, body) of the tiles that get a wrench
        self._pushed = []  # (body, force, at, torque) applied before each step
        self._idle_steps = solver.magnet_idle_steps
        self._substeps = 1  # time steps per stepSimulation call (see _advance)
        self._idle_left = 0
        self.magnet_checks = 0  # pose reads and cache checks so far
        # At rest between two checks: every coordinate moved less than the pair threshold, and
        # every quaternion component less than the turn threshold (|dq| ~ turn / 2).
        self._rest_shift = solver.magnet_update
        self._rest_quat = solver.magnet_update_angle / 2

    # -- building ---------------------------------------------------------------------

    def _make_collision_shape(self, hull: bool = False) -> int:
        pb = self._pb
        if hull or self.preset.tile.collision == "mesh":
            # Vertices only: PyBullet makes a convex hull of them (with indices it would be a
            # concave triangle mesh, which does not collide when dynamic).
            hull = tile_mesh((0, 0), self.size).convex_hull
            return self.client.createCollisionShape(pb.GEOM_MESH, vertices=hull.vertices.tolist())
        return self.client.createCollisionShape(pb.GEOM_BOX, halfExtents=(self.size / 2).tolist())

    def _make_visual_shape(self, pips: tuple[int, int]) -> int:
        if not self.visuals:
            return -1
        # A UV-mapped mesh in the tile's colour; renders put the pips on with a texture
        # (magdomino.model.tiles.tile_texture, applied by magdomino.faces.render after the body exists).
        colour = colour_rgb(colour_of(tile(*pips), self.preset.tile.colours)) or (0.8, 0.2, 0.2)
        vertices, indices, uvs, normals = tile_uv_mesh(pips, self.size)
        return self.client.createVisualShape(
            self._pb.GEOM_MESH,
            vertices=vertices.tolist(),
            indices=indices.tolist(),
            uvs=uvs.tolist(),
            normals=normals.tolist(),
            rgbaColor=[*colour, 1.0],
        )

    def add_tile(
        self,
        pips: tuple[int, int],
        position,
        yaw: float = 0.0,
        *,
        orientation=None,
        fixed: bool = False,
        velocity=None,
        rounded: bool = False,
    ) -> int:
        """Put a tile into the world at rest (or with ``velocity``), return its index.

        Parameters
        ----------
        pips : (int, int)
            Pips of half 0 (−x) and half 1 (+x), as shown.
        position : array_like, shape (3,), m
            Centre of the tile.
        yaw : float, rad
            Heading of the tile's x axis (ignored when ``orientation`` is given).
        orientation : array_like, shape (4,), optional
            Quaternion x, y, z, w.
        fixed : bool
            A static body (mass 0): it never moves but still carries magnets.
        rounded : bool
            Collide as the tile mesh's convex hull (rounded edges) whatever the preset says;
            a slid tile needs it (see :meth:`slide`).
        """
        q = yaw_quaternion(yaw) if orientation is None else np.asarray(orientation, dtype=float)
        shape = self._collision_shape
        if rounded and self.preset.tile.collision != "mesh":
            if self._rounded_shape is None:
                self._rounded_shape = self._make_collision_shape(hull=True)
            shape = self._rounded_shape
        body = self.client.createMultiBody(
            0.0 if fixed else self.mass,
            shape,
            self._make_visual_shape(tuple(pips)),
            list(map(float, position)),
            list(map(float, q)),
        )
        self.client.changeDynamics(
            body,
            -1,
            lateralFriction=self.body_friction,
            restitution=self.restitution,
            rollingFriction=0.0,
            spinningFriction=0.0,
            linearDamping=0.0,
            angularDamping=0.0,
            frictionAnchor=int(self.preset.solver.friction_anchor),
        )
        if self.preset.tile.collision == "mesh" or rounded:
            # Bullet pads convex hulls with a margin (about 1 mm here, an eighth of the
            # tile's thickness): tiles would float on it. The hull is exact: no padding.
            self.client.changeDynamics(body, -1, collisionMargin=0.0)
        if velocity is not None:
            self.client.resetBaseVelocity(body, list(map(float, velocity)), [0.0, 0.0, 0.0])
        self.tiles.append(TileBody(body, (int(pips[0]), int(pips[1])), fixed))
        self._tiles_changed = True
        return len(self.tiles) - 1

    # -- reading ----------------------------------------------------------------------

    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions (n, 3) m and quaternions (n, 4) of all tiles (NaN for removed ones)."""
        n = len(self.tiles)
        positions = np.full((n, 3), np.nan)
        quats = np.full((n, 4), np.nan)
        get = self.client.getBasePositionAndOrientation
        for i, t in enumerate(self.tiles):
            if t.body >= 0:
                p, q = get(t.body)
                positions[i] = p
                quats[i] = q
        return positions, quats

    def velocities(self) -> tuple[np.ndarray, np.ndarray]:
        """Linear (n, 3) m/s and angular (n, 3) rad/s velocities (zero for removed tiles)."""
        n = len(self.tiles)
        lin = np.zeros((n, 3))
        ang = np.zeros((n, 3))
        get = self.client.getBaseVelocity
        for i, t in enumerate(self.tiles):
            if t.body >= 0:
                v, w = get(t.body)
                lin[i] = v
                ang[i] = w
        return lin, ang

    def touches_table(self) -> np.ndarray:
        """Which tiles touch the table, as of the last step or :meth:`detect_contacts`, shape (n,) bool."""
        out = np.zeros(len(self.tiles), dtype=bool)
        for i, t in enumerate(self.tiles):
            if t.body >= 0 and self.client.getContactPoints(bodyA=t.body, bodyB=self.table):
                out[i] = True
        return out

    def tile_touches_table(self, index: int) -> bool:
        """Does tile ``index`` touch the table (as of the last step or :meth:`detect_contacts`)?"""
        return bool(self.client.getContactPoints(bodyA=self.tiles[index].body, bodyB=self.table))

    def detect_contacts(self) -> None:
        """Bring the contact points up to date with the poses now (no step taken)."""
        self.client.performCollisionDetection()

    # -- stepping ---------------------------------------------------------------------

    @property
    def magnet_updates(self) -> int:
        """How many steps recomputed some magnet wrenches (see :class:`CachedWrenches`)."""
        return self._cache.updates if self._cache is not None else 0

    def _apply_magnets(self) -> None:
        """Apply the magnet wrenches before a step, recomputing the tile pairs whose relative
        pose has moved on (:class:`magdomino.maths.magnets.CachedWrenches`: error bound there).

        While the last check found nothing to recompute (a construction at rest), the poses
        are read and checked again only every ``solver.magnet_idle_steps`` steps, and the
        same world-frame wrenches are applied meanwhile. At rest means: nothing needed
        recomputing and no tile moved by ``magnet_update_mm`` or turned by
        ``magnet_update_deg`` since the check before; so a tower toppling as a whole (which
        recomputes nothing) is checked every step. A tile at rest that is set moving is
        noticed within that many steps (3 ms at the defaults), in which it moves by at most
        g t² / 2 = 44 µm if it dropped freely, by a few micrometres as it starts to tip: the
        wrenches it feels are those of the cache's bound plus that motion's share.
        """
        if self._idle_left > 0 and self._applied is not None and not self._tiles_changed:
            self._idle_left -= 1
            self._push_wrenches()
            return
        cache = self._cache
        self.magnet_checks += 1
        if self._tiles_changed:  # tiles added, removed or teleported: start afresh
            cache.reset()
            self._applied = None
            self._live = [t.body for t in self.tiles if t.body >= 0]
            self._tiles_changed = False
        pb = self._pb
        cid = self.client._client
        live = self._live
        get = pb.getBasePositionAndOrientation
        poses = [get(b, cid) for b in live]
        m = len(live)
        flat = np.fromiter(itertools.chain.from_iterable(p + q for p, q in poses), float, 7 * m).reshape(m, 7)
        forces, torques = cache.update_poses(flat)
        if cache.last or self._applied is None:
            # Only the tiles that move and feel something (exact zeros: out of every
            # magnet's reach) need calls.
            fixed = {t.body for t in self.tiles if t.fixed}
            nonzero = np.any(forces != 0, axis=1) | np.any(torques != 0, axis=1)
            self._applied = [(k, b) for k, b in enumerate(live) if b not in fixed and nonzero[k]]
        # Idle only at rest: nothing recomputed, and no tile moved or turned by a threshold
        # since the last check (a tower toppling as a whole recomputes nothing, yet moves).
        at_rest = not cache.last and cache.motion_shift < self._rest_shift and cache.motion_turn < self._rest_quat
        self._idle_left = self._idle_steps - 1 if at_rest else 0
        fl = forces.tolist()
        tl = torques.tolist()
        self._pushed = [(b, fl[k], poses[k][0], tl[k]) for k, b in self._applied]
        self._push_wrenches()

    def _push_wrenches(self) -> None:
        pb = self._pb
        cid = self.client._client
        force = pb.applyExternalForce
        torque = pb.applyExternalTorque
        world = pb.WORLD_FRAME
        for b, f, at, t in self._pushed:
            force(b, -1, f, at, world, cid)
            torque(b, -1, t, world, cid)

    on_step = None
    """Optional ``callable(world)``, called after every ``on_step_every`` steps (renders use it
    to record frames); None (the default) costs nothing."""
    on_step_every = 1

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed time steps, magnets applied before each."""
        if self.on_step is not None:  # in chunks that end where the hook is due
            every = max(1, int(self.on_step_every))
            while n > 0:
                k = min(n, every - self.steps % every)
                self._advance(k)
                n -= k
                if self.steps % every == 0:
                    self.on_step(self)
            return
        self._advance(n)

    def _advance(self, n: int) -> None:
        stepper = self.client.stepSimulation
        if not self.magnets_on:
            for _ in range(n):
                stepper()
        else:
            left = n
            while left > 0:
                self._apply_magnets()
                # The wrenches just applied hold for the idle steps that follow (a construction
                # at rest): take them as sub-steps of one call. PyBullet keeps external forces
                # over the sub-steps of a stepSimulation and clears them after (tested), so the
                # tiles feel the same wrenches in one call instead of several, each with its
                # force and torque calls. Only the lever of each force differs, by the tile's
                # motion within the idle window (micrometres): poses then differ from single
                # steps by micrometres, verdicts not (validation cases, tested).
                k = min(left, 1 + self._idle_left)
                self._idle_left -= k - 1
                self._set_substeps(k)
                stepper()
                left -= k
        self.steps += n
        self.time += n * self.time_step

    def _set_substeps(self, k: int) -> None:
        """Make one ``stepSimulation`` advance ``k`` fixed time steps."""
        if k != self._substeps:
            if k == 1:
                self.client.setPhysicsEngineParameter(fixedTimeStep=self.time_step, numSubSteps=0)
            else:
                self.client.setPhysicsEngineParameter(fixedTimeStep=k * self.time_step, numSubSteps=k)
            self._substeps = k

    # -- placements as motions ----------------------------------------------------------

    def drop(self, pips, rest_position, yaw: float = 0.0, drop_height: float = 0.002, orientation=None) -> int:
        """Release a tile with zero speed ``drop_height`` (m) above its rest position.

        Returns the new tile's index; step the world (or call
        :func:`magdomino.physics.settle.settle`) to see what happens.
        """
        start = np.asarray(rest_position, dtype=float) + [0.0, 0.0, float(drop_height)]
        return self.add_tile(pips, start, yaw, orientation=orientation)

    def slide(
        self,
        pips,
        rest_position,
        yaw: float = 0.0,
        *,
        start_offset=(0.06, 0.0),
        speed: float = 0.05,
        max_force: float = 0.5,
        clearance: float = 0.0,
        shortcuts: SlideShortcuts | None = None,
    ) -> int:
        """Push a tile along the table into ``rest_position`` from ``start_offset`` away.

        The tile starts at rest on the table at ``rest_position + start_offset`` (x, y, m)
        and a hand (a constraint with at most ``max_force`` newtons) moves it at ``speed``
        (m/s) in a straight line to the target, then lets go. The hand is a motion, not a
        teleport: whatever the tile meets on its way is pushed.

        The slid tile collides with its rounded edges (the mesh's convex hull): an
        overhang rests exactly at a tile's height, and the real tiles' rounded edges are
        what let one wedge under it, lifting it by a hair, instead of butting into its end.

        ``shortcuts`` (:class:`SlideShortcuts`), none by default:

        - ``approach_gap`` (m): the part of the motion where the tile is farther than this
          from every tile (box separation, :func:`~magdomino.maths.geometry.box_separations`,
          a lower bound on the distance) is not stepped: the tile starts at the last point
          of the hand's path before it first comes that close, already moving with the
          hand. Over that part nothing touches the tile but the table and the hand, which
          is much stronger than the table's friction, so it goes where the hand goes; the
          magnets reach across the gap with forces far below what moves a tile at rest.
        - ``push_iterations``: the solver's iterations while the hand pushes.

        Returns the new tile's index. The world has been stepped through the motion.
        """
        pb = self._pb
        target = np.asarray(rest_position, dtype=float).copy()
        offset = np.asarray(list(start_offset) + [0.0], dtype=float)[:3]
        start = target + offset + [0.0, 0.0, clearance]
        end = target + [0.0, 0.0, clearance]
        distance = float(np.linalg.norm(offset))
        steps = max(1, int(math.ceil(distance / speed / self.time_step)))
        shortcuts = shortcuts or SlideShortcuts()
        gap = shortcuts.approach_gap
        first = 0 if gap is None else self._approach_skipped(start, end, yaw, steps, gap)
        begin = start + (end - start) * (first / steps)
        velocity = None if first == 0 else (end - start) / (steps * self.time_step)
        index = self.add_tile(pips, begin, yaw, rounded=True, velocity=velocity)
        body = self.tiles[index].body
        q = yaw_quaternion(yaw).tolist()
        hand = self.client.createConstraint(body, -1, -1, -1, pb.JOINT_FIXED, [0, 0, 0], [0, 0, 0], begin.tolist(), [0, 0, 0, 1], q)
        if shortcuts.push_iterations is not None:
            self.client.setPhysicsEngineParameter(numSolverIterations=int(shortcuts.push_iterations))
        try:
            for k in range(first + 1, steps + 1):
                along = start + (end - start) * (k / steps)
                self.client.changeConstraint(hand, along.tolist(), q, maxForce=max_force)
                self.step(1)
        finally:
            if shortcuts.push_iterations is not None:
                self.client.setPhysicsEngineParameter(numSolverIterations=self.preset.solver.iterations)
        self.client.removeConstraint(hand)
        return index

    def _approach_skipped(self, start, end, yaw: float, steps: int, gap: float) -> int:
        """How many of a slide's ``steps`` hand steps (from ``start`` to ``end``, m) keep the
        tile at least ``gap`` (m) from every tile now in the world: the steps before the first
        one that comes closer (checked every millimetre of path), less one millimetre as a
        margin; all but the last millimetres when none comes closer; 0 in an empty world."""
        positions, quats = self.poses()
        there = np.isfinite(positions).all(axis=1)
        if not there.any():
            return 0
        per_mm = max(1, int(round(steps / max(float(np.linalg.norm(end - start)) * 1000, 1e-9))))  # hand steps per mm of path
        ks = np.arange(0, steps + 1, per_mm)
        centres = start + (end - start) * (ks / steps)[:, None]
        boxes_p, boxes_r = positions[there], quaternion_matrices(quats[there])
        m, k = len(ks), len(boxes_p)
        R = np.broadcast_to(quaternion_matrices(yaw_quaternion(yaw)), (m * k, 3, 3))
        separation = box_separations(np.repeat(centres, k, axis=0), R, np.tile(boxes_p, (m, 1)), np.tile(boxes_r, (m, 1, 1)),
                                     self.size / 2).reshape(m, k).min(axis=1)
        close = np.flatnonzero(separation < gap)
        last = close[0] if len(close) else len(ks)  # never that close: the whole path is clear
        return int(ks[last - 2]) if last >= 2 else 0

    on_close = None
    """Optional ``callable(world)``, called once when the world is about to close, while it can
    still be stepped (renders use it to film what happens after the verdict)."""

    def close(self) -> None:
        """Disconnect from the physics server (the world is unusable afterwards)."""
        hook, self.on_close = self.on_close, None
        if hook is not None and getattr(self, "client", None) is not None:
            hook(self)
        client, self.client = getattr(self, "client", None), None
        if client is not None:
            try:
                # A closed world's connection serves the next one (see magdomino.physics.connections.POOL_SIZE); a world
                # built on it is the same as on a new one, bit for bit (tested).
                if self._pool_key is None or not give_back(self._pool_key, client, self._leave_table(client)):
                    client.disconnect()
            except Exception:  # already gone
                pass

    def _leave_table(self, client) -> tuple[int, int] | None:
        """Remove the tiles, newest first (Bullet's arrays then shrink from their ends, back to
        what they were before the tiles came); the table's body and the worlds this
        connection has served, or None when anything but the table is still there (made by
        other code)."""
        for t in reversed(self.tiles):
            if t.body >= 0:
                client.removeBody(t.body)
        if client.getNumBodies() != 1 or client.getNumConstraints() != 0:
            return None
        return self.table, self._served

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):  # BulletClient also disconnects on deletion; be explicit
        try:
            self.close()
        except Exception:
            pass
