"""Actions: small immutable values with a stable sort key.

A placement is an :class:`Action` of kind ``"place"``: the tile ``(low, high)``, its grid
pose (half 0, which always shows ``tile[0]``, at square ``(x, y, level)``, half 1 next to it
in direction ``d``; see :mod:`magdomino.maths.geometry`), the mode (``"flat"`` at table level or
``"tower"`` on top), the motion (``"drop"``: put down from above; ``"slide"``: pushed in
along the table in direction ``slide``), the parent (construction number of the tile it
attaches to; None for the first tile) and ``start`` (the forced double that starts a
construction). ``DRAW`` and ``PASS`` are the only actions when nothing can be placed;
``DEAL`` (or a scripted :class:`Deal`) is the chance action at a chance node.

Order of legal actions: :attr:`Action.sort_key`, i.e. by tile (the order of
:data:`magdomino.model.tiles.ALL_TILES`), then flat before tower, level, x, y, d, drop before
slide, slide direction, parent.
"""

from __future__ import annotations

from dataclasses import dataclass

from magdomino.errors import InputError
from magdomino.maths.geometry import DIR_NAMES, GridPose
from magdomino.model.tiles import TILE_INDEX, Tile
from magdomino.wording import tile_text

_MODE_RANK = {"flat": 0, "tower": 1, "": 2}
_MOTION_RANK = {"drop": 0, "slide": 1, "": 2}


@dataclass(frozen=True, slots=True)
class Action:
    """One move: a placement (``kind="place"``), ``"draw"`` or ``"pass"``.

    Fields
    ------
    kind : "place" | "draw" | "pass"
    tile : (int, int) or None
        ``(low, high)``; half 0 shows ``tile[0]``.
    x, y, level, d : int
        Grid pose of half 0 and direction index to half 1 (0 +x, 1 −x, 2 +y, 3 −y).
    mode : "flat" | "tower"
    motion : "drop" | "slide"
    slide : int or None
        Direction index in which a sliding tile moves along the table (it comes in from the
        opposite side, from beyond the construction; see
        :meth:`magdomino.games.tower.grid.Grid.slide_direction`). None for a drop.
    parent : int or None
        Construction number (0 = first tile of the current construction) of the tile this
        one rests on, touches end to end, or slides under.
    start : bool
        The forced double that starts a construction (at the deal or after a collapse).
    """

    kind: str
    tile: Tile | None = None
    x: int = 0
    y: int = 0
    level: int = 0
    d: int = 0
    mode: str = ""
    motion: str = ""
    slide: int | None = None
    parent: int | None = None
    start: bool = False

    @property
    def grid(self) -> GridPose:
        return GridPose(self.x, self.y, self.level, self.d)

    @property
    def sort_key(self) -> tuple:
        if self.kind != "place":
            return (99, self.kind)
        return (
            TILE_INDEX[self.tile],
            _MODE_RANK[self.mode],
            self.level,
            self.x,
            self.y,
            self.d,
            _MOTION_RANK[self.motion],
            -1 if self.slide is None else self.slide,
            -1 if self.parent is None else self.parent,
        )

    def to_json(self) -> dict:
        if self.kind != "place":
            return {"kind": self.kind}
        out = {
            "kind": "place",
            "tile": list(self.tile),
            "pose": [self.x, self.y, self.level, self.d],
            "mode": self.mode,
            "motion": self.motion,
            "parent": self.parent,
        }
        if self.slide is not None:
            out["slide"] = self.slide
        if self.start:
            out["start"] = True
        return out

    @staticmethod
    def from_json(data: dict) -> Action:
        kind = data.get("kind")
        if kind == "draw":
            return DRAW
        if kind == "pass":
            return PASS
        if kind == "deal":
            return Deal.from_json(data)
        if kind != "place":
            raise InputError("action", "kind", f"one of place, draw, pass, deal, got {kind!r}")
        x, y, level, d = data["pose"]
        return Action(
            "place",
            (int(data["tile"][0]), int(data["tile"][1])),
            int(x),
            int(y),
            int(level),
            int(d),
            data["mode"],
            data["motion"],
            data.get("slide"),
            data.get("parent"),
            bool(data.get("start", False)),
        )

    def __str__(self) -> str:
        if self.kind != "place":
            return self.kind
        where = f"({self.x},{self.y},L{self.level}){DIR_NAMES[self.d]}"
        extra = f" slide{DIR_NAMES[self.slide]}" if self.motion == "slide" else ""
        on = "" if self.parent is None else f" on #{self.parent}"
        return f"{tile_text(self.tile)} {self.mode} {where}{extra}{on}{' start' if self.start else ''}"


@dataclass(frozen=True, slots=True)
class Deal:
    """The chance action of a deal.

    ``tiles=None`` (the constant :data:`DEAL`) shuffles with the state's seeded generator.
    A scripted deal gives all 28 tiles: the hands in seat order (7 each for 2 players, 6
    otherwise), then the stock in drawing order (the first listed is drawn first). A
    scripted deal is taken as given (no re-deal of a single-colour hand).
    """

    tiles: tuple[Tile, ...] | None = None
    kind: str = "deal"

    @staticmethod
    def of(hands, stock=()) -> Deal:
        tiles = [tuple(sorted(t)) for h in hands for t in h] + [tuple(sorted(t)) for t in stock]
        return Deal(tuple(tiles))

    @property
    def sort_key(self) -> tuple:
        return (98, "deal")

    def to_json(self) -> dict:
        out: dict = {"kind": "deal"}
        if self.tiles is not None:
            out["tiles"] = [list(t) for t in self.tiles]
        return out

    @staticmethod
    def from_json(data: dict) -> Deal:
        tiles = data.get("tiles")
        return DEAL if tiles is None else Deal(tuple((int(a), int(b)) for a, b in tiles))

    def __str__(self) -> str:
        return "deal" if self.tiles is None else "deal(scripted)"


DRAW = Action("draw")
"""Draw a tile from the stock (a tower rule's only action when nothing can be placed and the stock is not empty)."""
PASS = Action("pass")
"""Pass (a tower rule's only action when nothing can be placed and the stock is empty)."""
DEAL = Deal()
"""The chance action that shuffles and deals from the state's own random stream."""

# The chain games (Matador, Échanges) and 20 sur 20 spell their actions as plain tuples
# ("kind", ...), which OpenSpiel and the JSON records carry as they are; their fixed actions:
TUPLE_DEAL = ("deal",)
"""A tuple game's chance action that shuffles and deals from the state's own random stream."""
TUPLE_DRAW = ("draw",)
"""A tuple game's draw: Matador's choice to draw, or the chance action that takes the top tile."""
TUPLE_PASS = ("pass",)
"""A tuple game's pass."""
TUPLE_STOP = ("stop",)
"""20 sur 20: end a series of single-tile moves."""
TUPLE_SWAP = ("swap",)
"""Échanges: the tile in hand fits nowhere, so it goes under the stock for its top tile."""
