"""20 sur 20's moves as compact action ids: a move of several tiles taken in one-tile sub-steps.

A move of 20 sur 20 (:mod:`magdomino.games.vingt.game`) lays one to five tiles of the
mover's rack at once: ``("place", d, ((x, y, p, q), ...))``. Numbering whole moves takes
millions of ids (every arrangement of rack tiles), so a program face
(:mod:`magdomino.games.pettingzoo`, :mod:`magdomino.games.openspiel.vingt`) lets the same
seat choose a move in sub-steps, one id each (:class:`VingtTurn`): first its *frame*, then
its tiles one by one in line order. The move is played once its last tile is chosen; no
chance event and no other seat comes between the sub-steps. Like the tower rules' ids
(:mod:`magdomino.games.codec`), an id names tiles by their pips, so it means the same in
every state.

**The frame** names where the move lies:

- its *anchor*: the first old half (line order) of the alignment it makes, named by the
  tile of the table it belongs to and which of its halves (the one at the tile's first cell,
  0, or the other, 1): ``anchor = tile * 2 + half`` with ``tile`` an index in
  :data:`~magdomino.games.vingt.game.TILES` (54 tiles); :data:`FIRST` (108) on the empty
  table, where the first move always lies along row 0 from (0, 0)
  (:func:`~magdomino.games.vingt.moves.first_moves`);
- ``d`` (0 along x, 1 along y), the number ``k`` of tiles (1..5) and the number ``b`` of
  them before the anchor::

    frame id = (anchor * 2 + d) * 20 + (k - 1) * (k + 2) / 2 + b        (0 .. 4,359)

  Why this is enough: a later move's alignment is one unbroken run through the new tiles
  and at least one old stretch (:func:`~magdomino.games.vingt.moves.legal_moves`), so the b
  tiles before the anchor lie end to end just before it, and the others fill, two cells
  each, the first empty cells met walking on from the anchor: :func:`layout` rebuilds the
  k slots from the frame and the public table.

**A tile** for the next slot: the tile (its index in ``TILES``) and whether it lies high
pips first (a double never does)::

    tile id = 4,360 + tile * 2 + high_first                          (4,360 .. 4,467)

then :data:`PASS_ID` 4,468 and :data:`STOP_ID` 4,469 (whole moves): :data:`NUM_ACTIONS` =
4,470. A whole move is one sequence of ids (:func:`parts` refuses a move that is not the
layout its frame gives), and no move's sequence starts another's (the frame says how many
tiles follow).
"""

from __future__ import annotations

from magdomino.games.vingt.game import TILES
from magdomino.games.vingt.moves import MAX_TILES, STEPS, key
from magdomino.wording import tile_text

_TILE_INDEX = {t: i for i, t in enumerate(TILES)}
FIRST = 2 * len(TILES)
"""The anchor of the first move (empty table); anchors 0..107 are the halves of the 54 tiles."""
ANCHORS = FIRST + 1
SHAPES = MAX_TILES * (MAX_TILES + 3) // 2
"""(k, b) pairs of a frame: k tiles (1..5), b of them before the anchor (0..k): 20."""
FRAMES = ANCHORS * 2 * SHAPES
"""Frame ids (4,360)."""
TILE_IDS = 2 * len(TILES)
PASS_ID = FRAMES + TILE_IDS
STOP_ID = PASS_ID + 1
NUM_ACTIONS = STOP_ID + 1
"""Size of 20 sur 20's action space (4,470)."""
_WALK = 256  # cells walked from an anchor at most (an alignment is < 40 cells long)


def halves(inner) -> dict:
    """``{key: anchor}`` of the table's half cells: ``tile * 2 + half`` (module docstring)."""
    out = {}
    for t, x, y, d, _, _, _ in inner.tiles:
        first = key(x, y)
        out[first] = 2 * _TILE_INDEX[t]
        out[first + STEPS[d]] = 2 * _TILE_INDEX[t] + 1
    return out


def layout(occ: dict, anchor, d: int, b: int, k: int) -> list | None:
    """First-cell keys of the k slots of a move with ``b`` tiles before ``anchor`` (a key;
    None: the first move, along row 0 from (0, 0)); None if the table leaves no such slots."""
    if anchor is None:
        return [key(2 * i, 0) for i in range(k)] if d == 0 and b == 0 else None
    step = STEPS[d]
    firsts = [anchor - 2 * (b - i) * step for i in range(b)]
    j = anchor
    for _ in range(_WALK):
        if len(firsts) == k:
            return firsts
        v = occ.get(j)
        if v is None:
            firsts.append(j)  # an empty cell: the next tile starts here
            j += 2 * step
        elif v < 0:
            return None  # a marker ends every run
        else:
            j += step
    return None


def frame_id(anchor: int, d: int, k: int, b: int) -> int:
    return (anchor * 2 + d) * SHAPES + (k - 1) * (k + 2) // 2 + b


def frame_of_id(action_id: int) -> tuple[int, int, int, int]:
    """``(anchor, d, k, b)`` of a frame id."""
    head, shape = divmod(int(action_id), SHAPES)
    anchor, d = divmod(head, 2)
    k = max(j for j in range(1, MAX_TILES + 1) if (j - 1) * (j + 2) // 2 <= shape)
    return anchor, d, k, shape - (k - 1) * (k + 2) // 2


def id_text(action_id: int) -> str:
    """What an id chooses, in words: a frame, a tile (pips in the order it lies), pass or stop."""
    if action_id == PASS_ID:
        return "pass"
    if action_id == STOP_ID:
        return "stop"
    if action_id >= FRAMES:
        tile, high = divmod(action_id - FRAMES, 2)
        pips = TILES[tile][::-1] if high else TILES[tile]
        return tile_text(pips)
    anchor, d, k, b = frame_of_id(action_id)
    tile, half = divmod(anchor, 2)
    where = "on the empty table" if anchor == FIRST else f"from {tile_text(TILES[tile])}'s half {half}"
    return f"{k} tile{'s' * (k > 1)} along {'xy'[d]} {where}, {b} before it"


def parts(inner, move, table_halves: dict | None = None) -> tuple[int, ...]:
    """The ids that choose ``move`` (a legal placement of the package state ``inner``): its
    frame, then one tile id per slot in line order (module docstring)."""
    occ = inner.occ
    d, placed = move[1], move[2]
    k = len(placed)
    step = STEPS[d]
    keys = [key(x, y) for x, y, _, _ in placed]
    if not occ:
        anchor, named, b = None, FIRST, 0
    else:
        table_halves = halves(inner) if table_halves is None else table_halves
        anchor = _anchor(occ, keys, step)
        if anchor is None:
            raise ValueError(f"{move}: no old half in its alignment")
        named = table_halves[anchor]
        b = sum(1 for c in keys if c < anchor)  # keys grow along the line (d's step is > 0)
    if layout(occ, anchor, d, b, k) != keys:
        raise ValueError(f"{move} is not the layout its anchor gives")
    tiles = [FRAMES + _TILE_INDEX[(p, q) if p <= q else (q, p)] * 2 + int(p > q) for _, _, p, q in placed]
    return (frame_id(named, d, k, b), *tiles)


def _anchor(occ: dict, keys: list, step: int):
    """The first old half of the run the new tiles (first cells ``keys``) make."""
    new = {c for k0 in keys for c in (k0, k0 + step)}
    anchor = None
    j = keys[0] - step
    while occ.get(j, -1) >= 0:  # an old stretch just before the first tile starts the run
        anchor = j
        j -= step
    if anchor is not None:
        return anchor
    j = keys[0]
    for _ in range(_WALK):
        if j in new:
            j += step
        elif occ.get(j, -1) >= 0:
            return j
        else:
            return None
    return None


def move_ids(inner) -> dict:
    """``{ids: move}``: each legal action of ``inner`` (a seat's turn) by the ids that choose
    it (one id for a pass or a stop)."""
    table = halves(inner) if inner.occ else None
    out = {}
    for move in inner.legal_actions():
        if move[0] == "pass":
            out[(PASS_ID,)] = move
        elif move[0] == "stop":
            out[(STOP_ID,)] = move
        else:
            out[parts(inner, move, table)] = move
    return out


class VingtTurn:
    """One seat's choice of a 20 sur 20 move, id by id.

    ``ids`` are the legal ids of the next sub-step (``{id: None}``: what they choose is only
    known once the move is whole); :meth:`choose` takes one and returns the move once it is
    whole (None while tiles are still to be chosen). ``chosen`` are the ids taken so far.
    """

    __slots__ = ("_moves", "chosen", "ids")

    def __init__(self, inner):
        self._moves = move_ids(inner)
        self.chosen: tuple = ()
        self.ids: dict = {}
        self._narrow()

    def _narrow(self) -> None:
        n = len(self.chosen)
        self.ids = dict.fromkeys(sorted({ids[n] for ids in self._moves if ids[:n] == self.chosen and len(ids) > n}))

    def choose(self, action_id: int):
        """Take one legal id; the whole move once chosen, else None (ValueError: not legal)."""
        if action_id not in self.ids:
            raise ValueError(f"action id {action_id} is not legal here")
        self.chosen = (*self.chosen, int(action_id))
        move = self._moves.get(self.chosen)
        if move is not None:
            return move
        self._narrow()
        return None

    def pending(self) -> tuple:
        """The frame ``(anchor, d, k, b)`` chosen and the tile ids taken since, or () before a frame."""
        if not self.chosen:
            return ()
        return (frame_of_id(self.chosen[0]), self.chosen[1:])

    def copy(self) -> VingtTurn:
        """A copy that chooses on its own (the moves, immutable values, are shared)."""
        c = VingtTurn.__new__(VingtTurn)
        c._moves, c.chosen, c.ids = self._moves, self.chosen, dict(self.ids)
        return c

    def __deepcopy__(self, memo) -> VingtTurn:
        # OpenSpiel copies a Python state's __dict__ at every step of a simulation: sharing the
        # legal moves (thousands of tuples) instead of copying them made its test 10 times faster
        return self.copy()
