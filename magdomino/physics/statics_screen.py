"""How sure the statics is: stressed variants of one equilibrium check, and a three-way answer.

:func:`magdomino.physics.statics.judge` says whether rigid tiles at given poses *can* stand.
A game's question is whether the construction *does* stand once the tile is dropped onto it
(PyBullet: a drop from 1 mm, magnets pulling the tile in, then a settle in which a tile
tipped by more than ``max_tilt`` is a fall). The answers part where the rigid one hangs on a
hair: a tile balanced with no tilt margin, a structure that carries the tile's weight but
not the impulse of its landing, a rest pose refused only for want of friction that the
magnets pull into line. :func:`stress_tests` asks the statics the same question under loads,
tilts and frictions that bracket those effects; :func:`sure_verdict` turns the answers into
``"stands"``, ``"falls"`` or ``"unsure"``; :func:`sure_verdict_of` runs only the tests it
needs (about ten by-parts checks on one equilibrium: tens of milliseconds on a game's towers).

A test is a :class:`StressTest`; the tests both this screen and the hybrid engine's
(:mod:`magdomino.studies.hybrid_engine`) ask are defined here once. The thresholds were
chosen on the positions of
``validation/statics_toy_validation.py`` (seeded games on the default toy preset, each position
also judged by PyBullet; ``docs/validation/statics_toy.md``).

Units: SI inside (m, N, N·m); angles in degrees in the tests.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from magdomino.model.presets import Preset
from magdomino.physics.contact_polygons import find_contacts
from magdomino.physics.equilibrium import Equilibrium
from magdomino.physics.statics import magnet_wrenches


class StressTest(NamedTuple):
    """One stressed variant of the equilibrium check (the defaults: the pose as it is).

    Attributes
    ----------
    load : float
        The placed (last) tile weighs this many times its weight.
    own : float
        The magnet forces between the placed tile and the others are this many times as strong.
    every : float
        Every magnet force is this many times as strong, on top of ``own``.
    tilt_deg : float, degrees
        The table is tilted this far: a sideways load of ``tan(tilt_deg)`` tile weights on
        every tile, gravity's vertical part unchanged.
    direction_deg : float, degrees
        The downhill direction of the tilt, from +x towards +y.
    grip : float
        Every friction coefficient (between tiles and with the table) is this many times as large.
    """

    load: float = 1.0
    own: float = 1.0
    every: float = 1.0
    tilt_deg: float = 0.0
    direction_deg: float = 0.0
    grip: float = 1.0


AT_REST = StressTest()
"""The pose as it is: the tile's weight, every magnet, no tilt, the preset's friction."""
DIRECTIONS_DEG = tuple(45.0 * k for k in range(8))
"""Downhill directions of the tilt tests (as the statics' margin searches them)."""
HAIR_DEG = 0.05
"""A structure that survives no tilt of this much in some direction has a tilt margin of
zero: a tie, the resultant of the tiles above a contact passing exactly through that
contact's edge, as the grid's half-tile steps often make it (a tile half off the one below,
its centre of mass right above that tile's end; a tower's centre of mass right above its
base tile's edge, the tiles above held to it by their magnets). Rigid blocks there stand in
an unstable balance: the first disturbance tips them. The statics says it **falls**:
PyBullet toppled every tie of the validation's toy games (``docs/validation/statics_toy.md``)
and every one of ``tests/physics/test_statics_screen.py`` (dropped 1 mm, magnets off)."""
HAIR_TILTS = tuple(StressTest(tilt_deg=HAIR_DEG, direction_deg=d) for d in DIRECTIONS_DEG)
NEAR_DEG = 2.0
"""A tilt margin within this of zero, either way, is **unsure**: a structure that survives
the hair tilts but not this one in some direction, or one that does not stand at rest but
stands with the table tilted this far in some direction. There the dynamics' contact
penetration, its four-point manifolds and the settle rule decide (the statics docstring,
class 4): on the held-out games PyBullet kept, tilted by 3°, a tile whose rest pose fell
short of standing by 0.29°."""
NEAR_TILTS = tuple(StressTest(tilt_deg=NEAR_DEG, direction_deg=d) for d in DIRECTIONS_DEG)
LANDING_LOAD = 2.0
"""A placed tile stands for sure only if the structure carries it at this many times its
weight (every magnet as it is): a load put on at once, even released at rest on its support,
momentarily loads an elastic support with twice its weight (the classical sudden-load
factor), and the magnets speed the tile up as it lands. Below it, **unsure**: on the toy's
1.2 T magnets PyBullet dropped placements whose structure carried the tile 1.2 to 1.6 times
its weight (a tile hanging half on half by its magnets, or a magnet-held cantilever below
it, rocked over by the landing) and kept others carried 1.4 to 1.99 times; none carried
twice fell."""
LANDING = StressTest(load=LANDING_LOAD)
COVER_SIDES = 3
"""Tilts of :data:`NEAR_COVER`."""
NEAR_COVER = tuple(
    StressTest(tilt_deg=math.degrees(math.atan(math.tan(math.radians(NEAR_DEG)) / math.cos(math.pi / COVER_SIDES))),
               direction_deg=90.0 + 360.0 * k / COVER_SIDES)
    for k in range(COVER_SIDES)
)
"""Three tilts (4.0° at 90°, 210°, 330°) whose sideways loads are the corners of a triangle
around every sideways load of :data:`NEAR_TILTS` and of :data:`AT_REST` (a tilt's load is
``tan(tilt)`` tile weights along its direction on every tile; the triangle's inscribed
circle has radius ``tan(NEAR_DEG)``). The loads under which an equilibrium problem is
feasible form a convex set, so a structure that stands under the three stands under
those nine: three checks instead of nine when it does (:func:`run_screen` ``cover``)."""
GRIP = 3.0
"""The friction factor of :data:`TIPS` and :data:`TIPS_BARE`."""
TIPS = StressTest(grip=GRIP)
"""A rest pose falls for sure only if it cannot stand even with every friction three times
as large (a pose refused only for want of friction is a slide that the magnets may stop:
they pull a tile into line with the magnet below)..."""
TIPS_BARE = StressTest(own=0.0, grip=GRIP)
"""... and not with the placed tile's own magnets off either (its own pull can tip it at the
aimed pose and then snap it into line). The hybrid engine's rest falls ask the same two
(:mod:`magdomino.studies.hybrid_engine`)."""


SIDE_FREE_FROM = 3
"""Side contacts from which :meth:`Stressed.stands` weighs the tiles without them first: on the
shapes of 6,000 random steps, En quinconce's (flat rows) take 0.68 of the time, Défi's 0.98
(from 1 side contact: 0.67 and 1.09, a second equilibrium costing more than it saves on few)."""


class Stressed:
    """One set of poses prepared for many :func:`stress_tests`: contacts and magnet wrenches
    found once, one equilibrium per friction factor.

    Parameters
    ----------
    preset : Preset
    positions : array_like, shape (n, 3), m
        The tiles; the last one is the placed tile when ``placed``.
    quaternions : array_like, shape (n, 4), x, y, z, w
    placed : bool
        Whether the last tile is the one being placed (a test's ``load`` and ``own`` apply
        to it); False: a structure alone (``load`` and ``own`` are ignored).
    magnets : bool
    contacts : list of Contact, optional
        The contacts of these poses, when the caller has them
        (:meth:`Stressed.on`).
    wrenches : (ndarray, ndarray), shapes (n, 6), N and N·m, optional
        The magnet force and torque on every tile (columns 0-2 force, 3-5 torque about its
        centre) with every pair, and without the placed tile's pairs, when the caller has them.

    Raises
    ------
    InputError
        A pose the statics cannot model (:func:`~magdomino.physics.contact_polygons.find_contacts`).
    """

    def __init__(self, preset: Preset, positions, quaternions, *, placed: bool = True, magnets: bool = True, contacts=None,
                 wrenches=None):
        self.preset = preset
        self.P = np.asarray(positions, float).reshape(-1, 3)
        Q = np.asarray(quaternions, float).reshape(-1, 4)
        n = len(self.P)
        self.placed = bool(placed)
        self.size = np.asarray(preset.tile.size, float)
        self.contacts = find_contacts(self.P, Q, self.size) if contacts is None else contacts
        weight = float(preset.tile.mass) * float(preset.solver.gravity)
        self.magnets = bool(magnets) and len(preset.tile.magnets) > 0 and n > 1
        self.full = self.rest = None
        if self.magnets and wrenches is not None:
            self.full, self.rest = (np.asarray(w, float) / weight for w in wrenches)
        elif self.magnets:  # (n, 6): force and torque (N·m / N = m) in tile weights
            self.full = np.hstack(magnet_wrenches(preset, self.P, Q)) / weight
            self.rest = self.full
            if self.placed:  # the pairs without the placed tile
                self.rest = np.zeros_like(self.full)
                if n > 2:
                    self.rest[:-1] = np.hstack(magnet_wrenches(preset, self.P[:-1], Q[:-1])) / weight
        self._equilibria: dict = {}

    @classmethod
    def on(cls, structure, position, quaternion) -> Stressed:
        """A :class:`~magdomino.physics.statics.Structure` (no fixed tiles) plus one placed
        tile at ``position`` (3,) m, ``quaternion`` (4,), its contacts and magnet wrenches
        reused (:meth:`~magdomino.physics.statics.Structure.with_tile`)."""
        if structure.fixed.any():
            raise ValueError("the stress tests take no fixed tiles")
        P, Q, contacts, full, rest = structure.with_tile(position, quaternion)
        return cls(structure.preset, P, Q, placed=True, magnets=structure.use_magnets, contacts=contacts, wrenches=(full, rest))

    def stands(self, test: StressTest) -> bool:
        """Whether the tiles stand under ``test``.

        With :data:`SIDE_FREE_FROM` side contacts or more (end to end, side by side), the tiles
        are first weighed without them: a balance in which the sides push nothing is a balance
        of the whole, and without them tiles that only touch at their ends are apart (a row of
        flat tiles is one coupled group with them, a tile on the table each without). When they
        stand, that is nearly always enough (all but 15 of 8,248 checks that stood, in En
        quinconce's random games); when not, the whole decides."""
        eq, w = self._equations(test)
        if eq is None:
            return True
        apart = self._side_free(test.grip)
        return bool((apart is not None and apart.stands(w)) or eq.stands(w))

    def _side_free(self, grip: float):
        """The equilibrium of friction factor ``grip`` without the side contacts (the same tiles:
        the loads of :meth:`_equations` are its loads too), or None with fewer than
        :data:`SIDE_FREE_FROM` of them."""
        key = ("side free", grip)
        if key not in self._equilibria:
            kept = [c for c in self.contacts if c.kind != "side"]
            self._equilibria[key] = None if len(self.contacts) - len(kept) < SIDE_FREE_FROM else self._equilibrium(kept, grip)
        return self._equilibria[key]

    def _equilibrium(self, contacts, grip: float) -> Equilibrium:
        """The equilibrium of these tiles, every one movable, with ``contacts`` and every friction ``grip`` times the preset's."""
        tile = self.preset.tile
        return Equilibrium(self.P, contacts, np.ones(len(self.P), bool), grip * float(tile.friction), float(self.size[0]),
                           grip * float(tile.table_mu))

    def tilts_cannot_save(self) -> bool:
        """Whether no tilt of :data:`NEAR_TILTS` makes these poses stand, shown at once: at
        rest some bridge's load lies outside its contact's cone by more than any of those
        tilts moves it (:meth:`~magdomino.physics.equilibrium.Equilibrium.fails_whatever`; a
        tilt adds the same sideways load on every tile). False says nothing."""
        eq, w = self._equations(AT_REST)
        if eq is None:
            return False
        n = len(self.P)
        changes = []
        for test in NEAR_TILTS:
            sideways = np.zeros((n, 3))
            t = math.tan(math.radians(test.tilt_deg))
            sideways[:, 0] = t * math.cos(math.radians(test.direction_deg))
            sideways[:, 1] = t * math.sin(math.radians(test.direction_deg))
            changes.append(eq.load(sideways, np.zeros((n, 3))))
        return eq.fails_whatever(w, changes)

    def _equations(self, test: StressTest):
        """The equilibrium (None without a movable tile) and its loads (in tile weights) under ``test``."""
        load, own, every, tilt, direction, grip = test
        n = len(self.P)
        eq = self._equilibria.get(grip)
        if eq is None:
            eq = self._equilibria[grip] = self._equilibrium(self.contacts, grip)
        if eq.m == 0:
            return None, None
        down = np.zeros((n, 3))
        down[:, 2] = -1.0
        if self.placed:
            down[-1, 2] = -float(load)
        if tilt:
            t = math.tan(math.radians(tilt))
            down[:, 0] = t * math.cos(math.radians(direction))
            down[:, 1] = t * math.sin(math.radians(direction))
        w = eq.load(down, np.zeros((n, 3)))
        if self.magnets:
            mag = every * (self.rest + (own if self.placed else 1.0) * (self.full - self.rest))
            w = w + eq.load(mag[:, :3], mag[:, 3:])
        return eq, w


def stress_tests(preset: Preset, positions, quaternions, tests, *, placed: bool = True, magnets: bool = True) -> dict:
    """Whether the tiles stand under each test (see the module docstring): test -> bool.

    Parameters and errors: as :class:`Stressed`; ``tests``: an iterable of :class:`StressTest`.
    """
    stressed = Stressed(preset, positions, quaternions, placed=placed, magnets=magnets)
    return {test: stressed.stands(test) for test in tests}


PLACEMENT_TESTS = (AT_REST, *HAIR_TILTS, *NEAR_TILTS, LANDING, TIPS, TIPS_BARE)
"""What :func:`sure_verdict` reads of a placement (the structure plus the placed tile)."""
TOWER_TESTS = (AT_REST, *HAIR_TILTS, *NEAR_TILTS, TIPS)
"""What :func:`sure_verdict` reads of a structure alone."""

SURE = ("stands", "falls")
"""The answers of :func:`sure_verdict` the statics is sure of (the other is ``"unsure"``)."""


def tests_needed(results: dict, *, placed: bool = True) -> tuple:
    """The tests of :func:`sure_verdict` that can still change its answer, given ``results``
    so far: AT_REST first; the tilts of :data:`NEAR_TILTS`; standing at rest, then the hair
    tilt of each direction whose near tilt failed (where the near tilt stands, so does the
    hair tilt: the loads under which an equilibrium problem is feasible form a convex set,
    and it holds the untilted load and the near tilt's) and, placed, with every near tilt
    standing, the landing; not standing at rest and no near tilt saving it, the rest-fall
    tests. Empty when the answer is known."""
    if AT_REST not in results:
        return (AT_REST,)
    if any(t not in results for t in NEAR_TILTS):
        return tuple(t for t in NEAR_TILTS if t not in results)
    if not results[AT_REST]:
        if any(results[t] for t in NEAR_TILTS):  # a small tilt saves it: unsure whatever the rest
            return ()
        return tuple(t for t in ((TIPS, TIPS_BARE) if placed else (TIPS,)) if t not in results)
    hair = tuple(h for h, t in zip(HAIR_TILTS, NEAR_TILTS) if not results[t] and h not in results)
    if hair:
        return hair
    if placed and all(results[t] for t in NEAR_TILTS) and LANDING not in results:
        return (LANDING,)
    return ()


def sure_verdict(results: dict, *, placed: bool = True) -> str:
    """``"stands"``, ``"falls"`` or ``"unsure"`` from :func:`stress_tests` results.

    Standing at rest: **falls** when some hair tilt (:data:`HAIR_TILTS`) fails (an unstable
    balance, :data:`HAIR_DEG`; one not in ``results`` counts as standing); **unsure** when
    some tilt of :data:`NEAR_TILTS` fails, or, for a placed tile, when the structure cannot
    carry it at :data:`LANDING_LOAD` times its weight; else **stands**. Not standing at rest:
    **unsure** when a tilt of :data:`NEAR_TILTS` saves it or more friction does
    (:data:`TIPS`, and for a placed tile :data:`TIPS_BARE`), else **falls**.
    """
    if results[AT_REST]:
        if not all(results.get(t, True) for t in HAIR_TILTS):  # an untried hair tilt stands (tests_needed)
            return "falls"
        if not all(results[t] for t in NEAR_TILTS) or (placed and not results[LANDING]):
            return "unsure"
        return "stands"
    if any(results[t] for t in NEAR_TILTS) or results[TIPS] or (placed and results[TIPS_BARE]):
        return "unsure"
    return "falls"


def run_screen(stressed: Stressed, results: dict | None = None, *, cover: bool = False) -> dict:
    """The results :func:`sure_verdict` needs of ``stressed`` (:func:`tests_needed`), added
    to ``results`` (those known already).

    With ``cover``, the tilts of :data:`NEAR_COVER` are tried first: when the tiles stand
    under all three, :data:`AT_REST` and every tilt of :data:`NEAR_TILTS` are entered as
    standing (implied by convexity, not checked one by one) and the three are in the
    results too. And when the tiles do not stand at rest, :meth:`Stressed.tilts_cannot_save`
    is asked before the tilts of :data:`NEAR_TILTS`: when it shows that none of them stands,
    they are entered as not standing; standing at rest, each direction's hair tilt is tried
    right after its near tilt fails, and the first that fails ends the screen (a tie falls,
    whatever the other tests). The answer of :func:`sure_verdict` is the same either way."""
    results = {} if results is None else results
    if cover and AT_REST not in results and all(stressed.stands(t) for t in NEAR_COVER):
        results.update({t: True for t in (*NEAR_COVER, AT_REST, *NEAR_TILTS)})
    while todo := tests_needed(results, placed=stressed.placed):
        if cover and todo[0] in NEAR_TILTS and results.get(AT_REST) is False and stressed.tilts_cannot_save():
            results.update({test: False for test in todo})
            continue
        if cover and todo[0] in NEAR_TILTS and results.get(AT_REST) is True:
            for near, hair in zip(NEAR_TILTS, HAIR_TILTS):  # a direction's hair tilt right after its near one
                if near not in results:
                    results[near] = stressed.stands(near)
                if not results[near] and hair not in results and not stressed.stands(hair):
                    results[hair] = False
                    return results  # a tie: it falls (sure_verdict), whatever the other tests
                if not results[near]:
                    results[hair] = True
            continue
        for test in todo:
            results[test] = stressed.stands(test)
    return results


def sure_verdict_of(preset: Preset, positions, quaternions, *, placed: bool = True, magnets: bool = True) -> tuple[str, dict]:
    """:func:`sure_verdict` of these poses, running only the tests it needs
    (:func:`tests_needed`): ``(answer, results)``.

    Parameters and errors: as :func:`stress_tests`.
    """
    stressed = Stressed(preset, positions, quaternions, placed=placed, magnets=magnets)
    results = run_screen(stressed)
    return sure_verdict(results, placed=placed), results
