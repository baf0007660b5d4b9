"""20 sur 20 (:mod:`magdomino.games.vingt.game`) as the OpenSpiel game ``magdomino_vingt``.

Registered by :func:`magdomino.games.openspiel.games.register_all` beside the other rules
(this module only holds what differs: 20 sur 20's moves lay several tiles at once).
Parameters: ``players`` (2, 3 or 4; default 2) and ``target`` (0: one round, as
``VingtGame(target=None)``; T > 0: rounds until someone's total reaches T).

Chance, information and resampling follow the other games
(:mod:`magdomino.games.openspiel.games`): a round's deal is dealt tile by tile (each
outcome the index of one of the 54 tiles, uniform over the tiles not yet dealt), the racks
only, five per seat in seat order; every refill draw is a chance node of its own (uniform
over the stock). ``information_state_string(p)`` is p's rack and the public history (every
move; chance outcomes as ``?``). :func:`resample` deals the other racks and the stock again
at random, sizes kept.

**Action ids** (:func:`encode`). A move ``("place", d, ((x, y, p, q), ...))`` is named by

- its *anchor*: the first old half (line order) of the alignment it makes, given as its
  rank among the table's half cells sorted by key (a table holds at most 108 halves);
  rank :data:`FIRST` on the empty table, where the first move always lies along row 0
  from (0, 0) (:func:`~magdomino.games.vingt.moves.first_moves`);
- ``d``, the number ``k`` of tiles (1..5) and the number ``b`` of them before the anchor;
- which rack tiles go on the k slots in line order: the slots' indices in the mover's
  sorted rack (a ranked arrangement of k of :data:`~magdomino.games.vingt.moves.MAX_TILES`)
  and, per slot, whether the tile lies high pips first (a double never does).

Why this is enough: a later move's alignment is one unbroken run through the new tiles
and at least one old stretch (:func:`~magdomino.games.vingt.moves.legal_moves`), so the
b tiles before the anchor lie end to end just before it, and the others fill, two cells
each, the first empty cells met walking on from the anchor. :func:`layout` rebuilds the
slots from (anchor, d, b, k) and the public table, and :func:`encode` refuses a move that
is not that rebuilt layout; so an id and the state give back one move only (distinct
legal moves get distinct ids), and :func:`decode` needs no search.
Meaning and hidden information: the anchor and the slots are public; the tiles are named
by the mover's own rack, which is fixed within an information set of the mover (its
information state string starts with that rack, and OpenSpiel's ISMCTS keys its nodes by
the mover's information state string), so at every search node an id means one move.
An id names a *rack slot*, not a tile of the set, on purpose: naming the tiles of the set
directly (54 tiles x 2 ways x up to five slots) does not fit pyspiel's 32-bit
``num_distinct_actions``; this space has 109 x 2 x 34,820 + 2 ids (7.6 million, as big
as the tower rules' one). PASS and STOP are the last two ids.
"""

from __future__ import annotations

import json
from math import perm

import numpy as np

from magdomino.errors import InputError
from magdomino.games.vingt.game import PASS, RACK, STOP, TILES, VingtGame
from magdomino.games.vingt.moves import MAX_TILES, STEPS, cell, key

FIRST = 108
"""Anchor rank of the first move (empty table); ranks 0..107 are the table's halves."""
ANCHORS = FIRST + 1
_BLOCKS = [(k + 1) * perm(MAX_TILES, k) * 2**k for k in range(1, MAX_TILES + 1)]
_OFFSET = [0] + list(np.cumsum(_BLOCKS[:-1]).tolist())
ARRANGEMENTS = sum(_BLOCKS)
"""Ids per (anchor, d): for k tiles, (b in 0..k) x arrangements of k rack slots x ways round."""
PLACEMENTS = ANCHORS * 2 * ARRANGEMENTS
PASS_ID = PLACEMENTS
STOP_ID = PLACEMENTS + 1
NUM_ACTIONS = PLACEMENTS + 2
_WALK = 256  # cells walked from an anchor at most (an alignment is < 40 cells long)


def parameters() -> dict:
    """The pyspiel parameters of ``magdomino_vingt`` and their defaults."""
    return {"players": 2, "target": 0}


def package_game(params: dict):
    """The package's :class:`~magdomino.games.vingt.game.VingtGame` for pyspiel ``params``."""
    p = {**parameters(), **params}
    return VingtGame(p["players"], 0, target=p["target"] or None)


# -- action ids ---------------------------------------------------------------------------------


def _halves(inner) -> dict:
    """``{key: rank}`` of the table's half cells sorted by key (markers excluded)."""
    return {k: i for i, k in enumerate(sorted(k for k, v in inner.occ.items() if v >= 0))}


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


def encode(inner, move, halves: dict | None = None) -> int:
    """The id of ``move`` (a legal action of the package state ``inner``); module docstring."""
    if move[0] == "pass":
        return PASS_ID
    if move[0] == "stop":
        return STOP_ID
    occ = inner.occ
    d, placed = move[1], move[2]
    k = len(placed)
    step = STEPS[d]
    keys = [key(x, y) for x, y, _, _ in placed]
    if not occ:
        anchor, rank, b = None, FIRST, 0
    else:
        halves = _halves(inner) if halves is None else halves
        new = {c for k0 in keys for c in (k0, k0 + step)}
        anchor = None
        j = keys[0] - step
        while occ.get(j, -1) >= 0:  # an old stretch just before the first tile starts the run
            anchor = j
            j -= step
        if anchor is None:
            j = keys[0]
            for _ in range(_WALK):
                if j in new:
                    j += step
                elif occ.get(j, -1) >= 0:
                    anchor = j
                    break
                else:
                    break
        if anchor is None:
            raise ValueError(f"{move}: no old half in its alignment")
        rank = halves[anchor]
        b = sum(1 for c in keys if c < anchor)  # keys grow along the line (d's step is > 0)
    if layout(occ, anchor, d, b, k) != keys:
        raise ValueError(f"{move} is not the layout its anchor gives")
    rack = inner.racks[inner.current]
    used: list = []
    arr = 0
    flips = 0
    for j, (_, _, p, q) in enumerate(placed):
        slot = rack.index((p, q) if p <= q else (q, p))
        arr = arr * (MAX_TILES - j) + slot - sum(1 for u in used if u < slot)
        used.append(slot)
        flips |= (p > q) << j
    inner_id = (b * perm(MAX_TILES, k) + arr) * 2**k + flips
    return (rank * 2 + d) * ARRANGEMENTS + _OFFSET[k - 1] + inner_id


def decode(inner, action: int, halves: dict | None = None):
    """The legal move of ``inner`` with id ``action`` (ValueError if there is none)."""
    legal = inner.legal_actions()
    if action in (PASS_ID, STOP_ID):
        move = PASS if action == PASS_ID else STOP
        if move in legal:
            return move
        raise ValueError(f"action id {action} is not legal here")
    if not 0 <= action < PLACEMENTS:
        raise ValueError(f"action id {action} is outside 0..{NUM_ACTIONS - 1}")
    head, rest = divmod(int(action), ARRANGEMENTS)
    rank, d = divmod(head, 2)
    k = max(i + 1 for i in range(MAX_TILES) if _OFFSET[i] <= rest)
    rest -= _OFFSET[k - 1]
    rest, flips = divmod(rest, 2**k)
    b, arr = divmod(rest, perm(MAX_TILES, k))
    digits = []
    for j in reversed(range(k)):
        arr, digit = divmod(arr, MAX_TILES - j)
        digits.append(digit)
    digits.reverse()
    free = list(range(MAX_TILES))
    slots = [free.pop(digit) for digit in digits]
    if rank == FIRST:
        anchor = None
    else:
        halves = _halves(inner) if halves is None else halves
        by_rank = {r: c for c, r in halves.items()}
        if rank not in by_rank:
            raise ValueError(f"action id {action}: no half of rank {rank} on the table")
        anchor = by_rank[rank]
    firsts = layout(inner.occ, anchor, d, b, k)
    rack = inner.racks[inner.current] if inner.current >= 0 else []
    if firsts is None or max(slots) >= len(rack):
        raise ValueError(f"action id {action} is not legal here")
    placed = []
    for j, (c, slot) in enumerate(zip(firsts, slots)):
        lo, hi = rack[slot]
        p, q = (hi, lo) if flips >> j & 1 else (lo, hi)
        placed.append((*cell(c), p, q))
    move = ("place", d, tuple(placed))
    if move not in legal:
        raise ValueError(f"action id {action} ({move}) is not legal here")
    return move


# -- the pyspiel game ---------------------------------------------------------------------------


def game_type(pyspiel):
    return pyspiel.GameType(
        short_name="magdomino_vingt",
        long_name="Magdomino 20 sur 20",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification=parameters(),
    )


def make_classes(pyspiel, base_state, observer):
    """The Game and State classes of ``magdomino_vingt`` (built once pyspiel is importable);
    the state derives from ``base_state``, the other games' pyspiel state, and the game's
    observer is an ``observer()``, theirs (both given by
    :func:`magdomino.games.openspiel.games.register_all`, which imports this module)."""
    gtype = game_type(pyspiel)

    class VingtSpielGame(pyspiel.Game):
        """``magdomino_vingt`` (module docstring)."""

        def __init__(self, params=None, _package=None):
            params = dict(params or {})
            self.rule = "vingt"
            self.package = _package if _package is not None else package_game(params)
            self.tiles = TILES
            target = self.package.target or 0
            info = pyspiel.GameInfo(
                num_distinct_actions=NUM_ACTIONS,
                max_chance_outcomes=len(TILES),
                num_players=self.package.players,
                min_utility=0.0,
                max_utility=1.0,
                utility_sum=None,
                # a round is < 400 actions (54 tiles placed, a stop or a draw after each,
                # passes); a competition's length has no bound in the rules (rounds can
                # score nothing): this is nominal, and OpenSpiel only reads it
                max_game_length=1000 * (1 + target),
            )
            super().__init__(gtype, info, params)

        def new_initial_state(self):
            return VingtSpielState(self, self.package.new_initial_state())

        def make_py_observer(self, iig_obs_type=None, params=None):
            return observer()

    class VingtSpielState(base_state):
        """A pyspiel state shadowing a :class:`~magdomino.games.vingt.game.VingtState` (``inner``):
        the other games' state (chance, returns, clones, the public history) with 20 sur
        20's own chance kinds, deal size, action ids, texts and resampling."""

        def __init__(self, game, inner, public=None):
            super().__init__(game, inner, public)
            self._halves = None  # (table size, {key: rank}) of the last table asked about

        def halves(self) -> dict:
            n = (self.inner.round_no, len(self.inner.occ))
            if self._halves is None or self._halves[0] != n:  # a table only grows in a round
                self._halves = (n, _halves(self.inner))
            return self._halves[1]

        def _chance_kind(self):
            s = self.inner
            if s.current != -1:
                return None
            return "draw" if s.refill >= 0 else "deal"

        def _deal_size(self) -> int:
            return self.inner.game.players * RACK

        def _legal_actions(self, player):
            if player != self.inner.current:
                return []
            halves = self.halves() if self.inner.occ else None
            return sorted(encode(self.inner, a, halves) for a in self.inner.legal_actions())

        def decode(self, action: int):
            """The package action with id ``action`` (a legal one; ValueError otherwise)."""
            return decode(self.inner, int(action), self.halves() if self.inner.occ else None)

        @staticmethod
        def action_text(a) -> str:
            return _text(a)

        def info_string(self, player: int) -> str:
            rack = self.inner.racks[player] if self.inner.round_no >= 0 else []
            return f"seat {player} rack {sorted(rack)} | " + " ".join(self.public)

        def clone(self):
            c = super().clone()
            c._halves = self._halves
            return c

        def resample(self, player: int, rng: np.random.RandomState):
            return resample(self, player, rng)

        def __str__(self):
            if self._chance_kind() == "deal":
                return f"dealing: {[TILES[i] for i in self.dealt]}"
            s = self.inner
            return f"round {s.round_no} seat {s.current} racks {s.racks} table {s.table()} markers {s.markers_placed}"

    return gtype, VingtSpielGame, VingtSpielState


def _text(a) -> str:
    if a[0] != "place":
        return a[0]
    return f"place {'xy'[a[1]]} " + " ".join(f"{x},{y}:{p}-{q}" for x, y, p, q in a[2])


def resample(state, player: int, rng: np.random.RandomState):
    """A copy of ``state`` with the racks of the other seats and the stock dealt again
    (sizes kept; what a pass revealed about a rack is ignored, as for the other games)."""
    c = state.clone()
    inner = c.inner
    if state.dealt or inner.round_no < 0:
        return c
    others = [s for s in range(len(inner.racks)) if s != player]
    pool = [t for s in others for t in inner.racks[s]] + list(inner.stock)
    order = [pool[i] for i in rng.permutation(len(pool))]
    i = 0
    for s in others:
        n = len(inner.racks[s])
        inner.racks[s] = sorted(order[i : i + n])
        i += n
    inner.stock = order[i:]
    inner._legal = None
    return c


def from_package_state(state, game_class, state_class):
    """A pyspiel state for a package :class:`~magdomino.games.vingt.game.VingtState` at a seat's
    turn: its public part (the table, markers, scores, rack sizes) opens the public history."""
    if state.current < 0:
        raise InputError("openspiel", "state", f"a 20 sur 20 state at a seat's turn, got current={state.current}")
    doc = state.to_json()
    public = {k: v for k, v in doc.items() if k not in ("racks", "stock", "rng", "format", "game")}
    snapshot = json.dumps(public, sort_keys=True, default=str)
    sizes = [len(r) for r in state.racks]
    pgame = game_class({"players": state.game.players, "target": state.game.target or 0}, _package=state.game)
    return state_class(pgame, state.clone(), [f"from {snapshot} racks {sizes} stock {len(state.stock)}"])
