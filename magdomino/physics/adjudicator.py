"""The adjudicator interface: what decides whether a placement makes the construction fall.

The rules call an adjudicator for every placement, including the double that starts a
construction. The physical construction persists between calls: :meth:`Adjudicator.start`
announces a new, empty construction (a new deal, or after a collapse), then each
:meth:`Adjudicator.place` adds one tile to it and returns an :class:`Outcome`.

A physics adjudicator (PyBullet, written elsewhere) receives in the :class:`PlacementView`
everything it needs: the tile and its index in :data:`magdomino.model.tiles.ALL_TILES`, its grid
pose and its physical pose, the motion (drop, or slide and its direction), the mode, the
parent tile with its grid pose and the pose relative to it (so it can place the tile
relative to where the parent actually settled), the tiles right below it, and the whole
construction so far (number, tile, index, grid pose, parent, mode of every tile).

How the rules use an :class:`Outcome`:

- ``collapsed=True``: the construction fell (tower rules: the placer takes every tile of the
  construction back). The first tile of a construction never collapses it, whatever the
  outcome says (a tile alone on the table cannot fall), and the traditional rule has no
  collapse: there the verdict is only recorded.
- ``error`` set: the physics could not judge (numerical blow-up); never counted as a
  collapse, the placement stands and the error is recorded.
- ``unplayable=True`` (with ``error`` saying why): the placement cannot be made at all (no
  motion starts clear of the construction: a neighbour lies where the tile goes). It is not a
  move: the adjudicator leaves its construction exactly as it was, and the rules give the
  tile back to the seat, which chooses again without that placement.
- ``verdict``: a JSON-ready dict recorded in the game record's ``place`` event.
- ``unsure``: the adjudicator could not be sure (the statics; :class:`Outcome`): its
  ``collapsed`` stands, the verdict says ``"unsure": true``.

Optional risk assessment, for players that weigh their candidates
(:class:`magdomino.games.tower.players.CarefulPlayer`, ``BoldPlayer``): ``assess(views) -> list[float]``
takes the :class:`PlacementView` of each candidate placement on the current construction
(``State.placement_view(action)``; nothing is placed) and returns one risk per view in
[0, 1], 0 the safest. The scale, shared by every adjudicator
(:func:`magdomino.physics.statics_adjudicator.statics_risk`):

- 1: the statics says the construction plus the tile falls, at rest or in an unstable
  balance (no tilt margin at all), or a dynamic preview fell;
- 0.5 (``UNKNOWN_RISK``): the statics cannot judge this pose (a tilted tile...), or is
  unsure of it (:func:`magdomino.physics.statics_screen.sure_verdict`): unknown, never taken
  as safe;
- below 0.5 when the statics says it stands: ``0.45 * max(tilt term, load term)`` with tilt
  term ``clip(1 - margin / 20°, 0, 1)`` (the table tilt it survives) and load term
  ``clip((3 - load factor) / 2, 0, 1)`` (how many times its weight the placed tile could
  be: near 1, a drop's impact may be too much), so 0 means at least 20° of margin and
  three times its weight; a dynamic preview that stands halves it;
- 0 for the first tile of a construction (it cannot fall).

``assess`` must leave the construction, and so the verdicts of later placements, exactly as
they were. :class:`NoPhysics` has no information: every risk is 0.

Optional too, for a player that only needs its few safest candidates: ``assess_first(views,
enough) -> list[float | None]`` judges the views in order (the player's preference first)
until ``enough`` distinct poses have a risk of at most 0.45 (they stand for sure) and gives
``assess``'s risk of each view judged, None after. A view left None would get at least 0.45
from ``assess``, and comes after ``enough`` views judged at most 0.45: so the ``enough``
lowest risks, ties to the earlier view, are among those judged. The statics and PyBullet
adjudicators have it; a player falls back on ``assess`` where it is missing.

Adjudicators here: :class:`NoPhysics` (``none``: never collapses; marked ``trivial`` so the
rules skip building views for it) and :class:`ScriptedAdjudicator` (collapses on given
placement numbers, for tests). Adjudicators are shared by cloned states: a stateful
(physics) adjudicator follows one line of play only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from magdomino.errors import InputError
from magdomino.maths.geometry import GridPose
from magdomino.model.tiles import Tile


@dataclass(frozen=True)
class Outcome:
    """What an adjudicator says about one placement.

    ``unsure``: the adjudicator could not be sure of ``collapsed`` (the statics near a tipping
    point or under a landing it may not carry: :mod:`magdomino.physics.statics_adjudicator`);
    ``collapsed`` is then its best answer, or the answer of the engine it asked. A game takes
    ``collapsed`` as it is; the verdict records ``unsure``.
    """

    collapsed: bool = False
    verdict: dict | None = None
    error: str | None = None
    unsure: bool = False
    unplayable: bool = False


@dataclass(frozen=True)
class PlacedTile:
    """One tile of the construction as the adjudicator sees it."""

    number: int  # 0 = the first tile of this construction
    tile: Tile  # (low, high); half 0 shows tile[0]
    tile_index: int  # position in ALL_TILES (0..27)
    grid: GridPose
    parent: int | None
    mode: str  # "flat" or "tower"
    motion: str  # "drop" or "slide"


@dataclass(frozen=True)
class ConstructionInfo:
    """Passed to :meth:`Adjudicator.start`: a new, empty construction begins."""

    deal: int  # 0-based deal number in the match
    cause: str  # "deal" (new deal) or "collapse"
    tile_size: tuple[float, float, float]  # m


@dataclass(frozen=True)
class PlacementView:
    """Everything about one placement, for the adjudicator.

    ``pose`` is ``(centre (x, y, z) m, yaw rad)`` of the new tile on the grid's nominal
    layout (:func:`magdomino.maths.geometry.physical_pose` at ``tile_size``). ``relative_pose`` is
    ``(offset (x, y, z) m, yaw rad)`` of the new tile in its parent's frame
    (:func:`magdomino.maths.geometry.relative_pose`), None for the first tile. ``slide_vector`` is
    the unit grid vector of the slide motion, None for a drop.
    """

    number: int  # placements in this deal so far, this one included (the first is 1)
    deal: int  # 0-based deal number in the match
    player: int
    tile: Tile
    tile_index: int
    grid: GridPose
    pose: tuple[tuple[float, float, float], float]
    mode: str
    motion: str
    slide: int | None
    slide_vector: tuple[int, int] | None
    parent: PlacedTile | None
    relative_pose: tuple[tuple[float, float, float], float] | None
    supports: tuple[int, ...]  # construction numbers of the tiles right below
    construction: tuple[PlacedTile, ...]  # before this placement
    first: bool  # the first tile of a construction (start or restart)
    tile_size: tuple[float, float, float]
    rule: str


@runtime_checkable
class Adjudicator(Protocol):
    """Resolves placements. ``name`` is recorded; ``tile_size`` (m) is optional."""

    name: str

    def start(self, construction: ConstructionInfo) -> None:
        """A new, empty construction (new deal, or after a collapse)."""

    def place(self, state_view: PlacementView, action) -> Outcome:
        """Add the tile to the construction and say whether it fell."""


class NoPhysics:
    """The ``none`` adjudicator: pure rules, nothing ever collapses."""

    name = "none"
    trivial = True  # the rules do not even call it

    def start(self, construction: ConstructionInfo) -> None:
        return None

    def place(self, state_view: PlacementView, action) -> Outcome:
        return Outcome(False)

    def assess(self, views) -> list[float]:
        """No physics, no information: every candidate's risk is 0."""
        return [0.0] * len(views)


@dataclass
class ScriptedAdjudicator:
    """Collapses on the given placement numbers of a deal (``PlacementView.number``; the first
    placement of a deal is 1), optionally only in given deals. Stateless, so it is safe with
    cloned states. Records every call in ``calls`` for tests (cleared by nobody)."""

    collapse_on: frozenset[int] | set[int] | tuple = ()
    deals: tuple[int, ...] | None = None
    name: str = "scripted"
    calls: list = field(default_factory=list, repr=False, compare=False)
    starts: list = field(default_factory=list, repr=False, compare=False)

    def start(self, construction: ConstructionInfo) -> None:
        self.starts.append(construction)

    def place(self, state_view: PlacementView, action) -> Outcome:
        self.calls.append(state_view)
        hit = state_view.number in set(self.collapse_on) and (self.deals is None or state_view.deal in self.deals)
        return Outcome(hit, {"scripted": True, "collapsed": hit}, None)


def make_adjudicator(physics) -> object:
    """An adjudicator from None, ``"none"`` or an object with ``start``/``place``.

    ``"pybullet"`` is built by the physics layer (not imported here); pass the object.
    """
    if physics is None or physics == "none":
        return NoPhysics()
    if isinstance(physics, str):
        raise InputError(
            "command line",
            "physics",
            f"'none' or an adjudicator object (the pybullet adjudicator is built by the physics layer), got {physics!r}",
        )
    if not (hasattr(physics, "start") and hasattr(physics, "place")):
        raise InputError("options", "adjudicator", "an object with start(construction) and place(view, action)")
    return physics
