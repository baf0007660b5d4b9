"""Compact action ids, the same in every state and in every program face (PettingZoo, OpenSpiel).

A learning agent reads a fixed-size vector of action ids; an id must mean one move whatever
the position, and a move named two ways must have one id. This module numbers the moves of
the tower rules and of the chain games; 20 sur 20's moves, which lay several tiles, are
numbered by :mod:`magdomino.games.vingt_codec`.

**Tower rules** (traditional, Défi, En quinconce): a placement is said as the placement
language says it (:mod:`magdomino.studies.placement_language`), ``"3-1 on #2 (3-3) half 1,
across left"``: the tile, the *anchor* (the tile of the construction it attaches to, named
by its pips: a tile is in the construction at most once, so its pips name it in every
state), the anchor's half, the direction of the tile's other half, and the relation::

    id = (((tile * 28 + anchor) * 2 + half) * 4 + direction) * 3 + relation

with ``tile`` and ``anchor`` indices in :data:`~magdomino.model.tiles.ALL_TILES`,
``direction`` in :data:`DIRECTIONS` (outward, back, across left, across right) and
``relation`` in :data:`RELATIONS` (on, beneath, after): 28 × 28 × 2 × 4 × 3 = 18,816 ids.
Then the 28 first placements (the double that starts a construction, by its index), then
draw and pass: :data:`TOWER_ACTIONS` = 18,846 ids.

The half is the anchor's half as its own text numbers it (a double's half 0 is the one
that meets its parent, as the language says). One pose, one id: a tile on top of (or slid
beneath) its anchor with its other half ``back`` lies over (under) the anchor's other half
too, so it can be named from either half; its id is the lowest half's (half 0, back). A
tile placed ``after`` its anchor lies in line, outward (direction 0). The tile's own
matching half is the one whose pips the anchor's half shows (a double matches with either;
the rules' grid names its pose one way, :func:`magdomino.games.tower.grid.canonical`).

**Chain games** (Le Matador, Le jeu des échanges), over a set of ``T`` tiles::

    start tile                      0 .. T-1
    line end tile half              T + (end * T + tile) * 2 + half   (the half touching the end)
    cross end tile shown            5T + (end * T + tile) * 3 + shown (0: none said, 1: tile[0], 2: tile[1])
    place end                       11T + end (0 left, 1 right, 2 centre)
    exchange seat                   11T + 3 + seat (0..5)
    swap, draw, pass                11T + 9, +10, +11

so :func:`chain_actions` ``(T)`` = 11 T + 12 (320 for the double six, 617 for the double nine).
"""

from __future__ import annotations

from magdomino.games.actions import Action
from magdomino.maths.geometry import DIRS, GridPose
from magdomino.model.tiles import ALL_TILES, TILE_INDEX

RELATIONS = ("on", "beneath", "after")
"""A placement's relation to its anchor, in id order (the placement language's words)."""
DIRECTIONS = ("outward", "back", "across left", "across right")
"""Where the tile's other half points from the anchor's half, in id order (the language's words)."""
_ACROSS = {2: 3, 3: 2}
TOWER_PLACEMENTS = 28 * 28 * 2 * len(DIRECTIONS) * len(RELATIONS)
"""Ids of the placements that attach to a tile of the construction (18,816)."""
TOWER_STARTS = TOWER_PLACEMENTS
"""First id of the 28 first placements (a construction's starting double, by tile index)."""
TOWER_DRAW = TOWER_STARTS + 28
TOWER_PASS = TOWER_DRAW + 1
TOWER_ACTIONS = TOWER_PASS + 1
"""Size of the tower rules' action space (18,846)."""


def namings(pose: GridPose, tile, ppose: GridPose, ppips, relation: int):
    """Each way ``(own half, anchor's grid half, direction)`` the tile at ``pose`` meets the
    anchor at ``ppose`` with matching pips: own half first, then the anchor's half."""
    return _namings(pose.squares(), tile, ppose.squares(), ppose.d, ppips, relation)


def _squares(a: Action) -> tuple:
    """The squares of an action's halves, as :meth:`~magdomino.maths.geometry.GridPose.squares`."""
    dx, dy = DIRS[a.d]
    return (a.x, a.y, a.level), (a.x + dx, a.y + dy, a.level)


def _namings(mine, tile, theirs, anchor_d: int, ppips, relation: int):
    """:func:`namings` of the halves' squares ``mine`` and ``theirs``, the anchor's direction ``anchor_d``."""
    ax, ay = DIRS[anchor_d]
    for h in (0, 1):
        for k in (0, 1):
            if tile[h] != ppips[k]:
                continue
            m, s = mine[h], theirs[k]
            out = (ax, ay) if k == 1 else (-ax, -ay)  # away from the anchor's other half
            if relation == 2:
                if m[2] == s[2] and (m[0] - s[0], m[1] - s[1]) == out:
                    yield h, k, 0
                continue
            if (m[0], m[1]) != (s[0], s[1]):
                continue
            o = mine[1 - h]
            v = (o[0] - m[0], o[1] - m[1])
            if v == out:
                yield h, k, 0
            elif v == (-out[0], -out[1]):
                yield h, k, 1
            else:
                yield h, k, 2 if ax * v[1] - ay * v[0] > 0 else 3


def _relation(level: int, anchor_level: int) -> int:
    return 0 if level > anchor_level else (1 if level < anchor_level else 2)


def _text_half_swapped(placed, anchor: Action) -> bool:
    """Whether the anchor's text numbers its halves the other way from the grid: a double
    whose grid half 1 is the one that meets its own parent."""
    if anchor.tile[0] != anchor.tile[1] or anchor.parent is None:
        return False
    below = placed[anchor.parent]
    rel = _relation(anchor.level, below.level)
    own = next(_namings(_squares(anchor), anchor.tile, _squares(below), below.d, below.tile, rel))[0]
    return own == 1


def tower_fields(placed, action: Action) -> tuple[int, int, int, int, int]:
    """``(tile, anchor, half, direction, relation)`` of a placement that attaches to tile
    number ``action.parent`` of the construction ``placed`` (the placements so far, by number);
    indices as in the module docstring."""
    anchor = placed[action.parent]
    rel = _relation(action.level, anchor.level)
    _, half, direction = next(_namings(_squares(action), action.tile, _squares(anchor), anchor.d, anchor.tile, rel))
    if _text_half_swapped(placed, anchor):
        half = 1 - half
        direction = _ACROSS.get(direction, direction)
    if direction == 1 and rel != 2:  # over (under) both halves: named from half 0
        half = 0
    return TILE_INDEX[action.tile], TILE_INDEX[anchor.tile], half, direction, rel


def tower_id(placed, action: Action) -> int:
    """The id of a tower rule's action (draw, pass, a first placement or a placement on the
    construction ``placed``)."""
    if action.kind == "draw":
        return TOWER_DRAW
    if action.kind == "pass":
        return TOWER_PASS
    if action.parent is None:
        return TOWER_STARTS + TILE_INDEX[action.tile]
    return id_of_fields(*tower_fields(placed, action))


def id_of_fields(tile: int, anchor: int, half: int, direction: int, relation: int) -> int:
    """The id of a placement said by its fields (module docstring)."""
    return (((tile * 28 + anchor) * 2 + half) * 4 + direction) * 3 + relation


def fields_of_id(action_id: int) -> tuple:
    """``(tile, anchor, half, direction, relation)`` of a placement id (a tile of
    :data:`ALL_TILES` and the words for the rest), ``("start", tile)``, ``("draw",)`` or
    ``("pass",)``; ValueError outside ``0 .. TOWER_ACTIONS - 1``."""
    i = int(action_id)
    if not 0 <= i < TOWER_ACTIONS:
        raise ValueError(f"action id {action_id} is outside 0..{TOWER_ACTIONS - 1}")
    if i == TOWER_DRAW:
        return ("draw",)
    if i == TOWER_PASS:
        return ("pass",)
    if i >= TOWER_STARTS:
        return ("start", ALL_TILES[i - TOWER_STARTS])
    i, relation = divmod(i, len(RELATIONS))
    i, direction = divmod(i, len(DIRECTIONS))
    i, half = divmod(i, 2)
    tile, anchor = divmod(i, 28)
    return ALL_TILES[tile], ALL_TILES[anchor], half, DIRECTIONS[direction], RELATIONS[relation]


def tower_ids(state) -> dict:
    """``{id: action}`` of the legal actions of a tower rule's ``state``."""
    placed = state.placed
    return {tower_id(placed, a): a for a in state.legal_actions()}


def id_of_text(placed, text: str) -> int:
    """The id of a placement said in the placement language (as a record or ``info`` writes
    it) on the construction ``placed``; ``"draw"`` and ``"pass"`` too. The half of a tile
    over (under) both of its anchor's halves may be given either way."""
    from magdomino.errors import InputError
    from magdomino.studies.placement_language import direction_of, parse_placement

    if text in ("draw", "pass"):
        return TOWER_DRAW if text == "draw" else TOWER_PASS
    entry = parse_placement(text, "action", "text")
    tile = TILE_INDEX[tuple(sorted(entry["pips"]))]
    rel = next((r for r in range(len(RELATIONS)) if RELATIONS[r] in entry), None)
    if rel is None:
        return TOWER_STARTS + tile
    where = entry[RELATIONS[rel]]
    if not 0 <= where["tile"] < len(placed):
        raise InputError("action", "text", f"a tile #0..#{len(placed) - 1} of the construction, got {text!r}")
    half = where["half"]
    name = "outward" if rel == 2 else direction_of(entry.get("yaw_deg", 0.0), half)
    if name is None:
        raise InputError("action", "text", f"one of the directions {', '.join(DIRECTIONS)}, got {text!r}")
    direction = DIRECTIONS.index(name)
    if direction == 1 and rel != 2:
        half = 0
    return id_of_fields(tile, TILE_INDEX[placed[where["tile"]].tile], half, direction, rel)


# -- the chain games ---------------------------------------------------------------------------

_ECHANGES_ENDS = {0: 0, 1: 1, "centre": 2}
MAX_SEATS = 6
"""Most seats of a chain game (the exchange ids name one)."""


def chain_actions(ntiles: int) -> int:
    """Size of a chain game's action space over a set of ``ntiles`` tiles (module docstring)."""
    return 11 * ntiles + 3 + MAX_SEATS + 3


def chain_id(index: dict, action: tuple) -> int:
    """The id of a chain game's action; ``index`` maps each tile of the set to its index."""
    t = len(index)
    kind = action[0]
    if kind == "start":
        return index[action[1]]
    if kind == "line":
        tile = action[2]
        return t + (action[1] * t + index[tile]) * 2 + (0 if tile[0] == action[3] else 1)
    if kind == "cross":
        tile = action[2]
        shown = 0 if len(action) < 4 else (1 if action[3] == tile[0] else 2)
        return 5 * t + (action[1] * t + index[tile]) * 3 + shown
    if kind == "place":
        return 11 * t + _ECHANGES_ENDS[action[1]]
    if kind == "exchange":
        return 11 * t + 3 + int(action[1])
    rest = ("swap", "draw", "pass")
    if kind in rest and len(action) == 1:
        return 11 * t + 3 + MAX_SEATS + rest.index(kind)
    raise ValueError(f"{action!r} is not a chain game's move")


def chain_ids(state) -> dict:
    """``{id: action}`` of the legal actions of a chain game's ``state``."""
    index = {tile: i for i, tile in enumerate(state.game.tiles)}
    return {chain_id(index, a): a for a in state.legal_actions()}
