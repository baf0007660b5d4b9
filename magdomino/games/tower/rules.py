"""The three tower rules' legality and consequences, one :class:`~magdomino.games.core.Rule`
object each (registered in :mod:`magdomino.games`); the core
(:class:`~magdomino.games.core.Game`, :class:`~magdomino.games.tower.state.State`) deals,
draws, passes, scores and asks the adjudicator.

**Rule 1, traditional** (:class:`Traditional`, flat): one chain with two open ends, matching
halves touching. The chain is a straight line along x on the rules' grid; both ends of the
first tile are open (a double start leaves a matching tile two placements, left and right).
Doubles go in line. No collapse: the verdict of a physics adjudicator is only recorded.

**Rule 2, Défi magnétique** (:class:`Defi`, tower): tiles on top, matching halves
superposed. A tile goes on top of a tile of the construction that shows a half with the same
pips, the two halves superposed; every square it covers must match and no covered square is
covered again (:class:`magdomino.games.tower.grid.Grid`). Orientation (the game's options):
by default the second tile of a construction lies parallel to the first
(``second_parallel``, the leaflet's tip) and later tiles parallel or perpendicular;
``parallel_only`` makes every tower placement parallel. The "extremities" variant places
only where **every** tile the new one rests on (touches end to end, slides under) has at
most one neighbour in the tree of placements (each placement attaches to the lowest-numbered
matching tile it rests on): no bridging from an extremity onto a middle tile. A collapse
sends every tile of the construction back to the placer's hand (the core).

**Rule 3, En quinconce** (:class:`Quinconce`, staggered): "en hauteur" and "à plat" in turn,
on extremities. The starting double is flat; the next placement must be on top ("tower"),
the next flat, and so on; drawing is not playing, so the mode switches only when a tile is
placed. Flat means end to end against a table-level extremity (in line), or slid beneath an
extremity lying at level 1 (a motion in the physics: it can push). Tower placements go on
top of an extremity (the orientation options apply as in Défi). Every tile the new one rests
on, touches end to end or slides under must be an extremity. With two players each keeps
their own mode (both start flat; the starting double counts as the first player's flat
placement). A new construction after a collapse is a new start (``docs/rules/index.md``): every mode resets
exactly as at the deal, so the restarting double is the restarter's flat placement (3-4
players: the next tile goes on top; 2 players: the restarter owes "tower", the other player
"flat", whatever they owed before the collapse).
"""

from __future__ import annotations

from magdomino.games.actions import Action
from magdomino.games.tower.state import State
from magdomino.maths.geometry import GridPose


class Traditional:
    """The traditional rule's legality and consequences (see :class:`magdomino.games.core.Rule`)."""

    name = "traditional"
    state_class = State
    uses_grid = False
    can_collapse = False
    variants = ()
    always_extremities = False
    own_modes_at_two = False

    def mode(self, state, player: int) -> str:
        return "flat"

    def legal(self, state, hand, mode: str) -> list:
        lo_x, lo_p, lo_n, hi_x, hi_p, hi_n = state.ends
        cache = state.game._cache
        out = []
        for t in hand:
            a, b = t
            if a == lo_p or b == lo_p:
                key = (t, 0, lo_x, lo_p, lo_n)
                act = cache.get(key)
                if act is None:
                    x, d = (lo_x - 1, 1) if (a == lo_p and a != b) else (lo_x - 2, 0)
                    act = cache[key] = Action("place", t, x, 0, 0, d, "flat", "drop", None, lo_n)
                out.append(act)
            if a == hi_p or b == hi_p:
                key = (t, 1, hi_x, hi_p, hi_n)
                act = cache.get(key)
                if act is None:
                    x, d = (hi_x + 1, 0) if a == hi_p else (hi_x + 2, 1)
                    act = cache[key] = Action("place", t, x, 0, 0, d, "flat", "drop", None, hi_n)
                out.append(act)
        return out

    def placed(self, state, player: int, action: Action, number: int) -> None:
        """Move the open end the tile was placed at (the first tile opens both)."""
        ends = state.ends
        a, b = action.tile
        if ends is None:
            state.ends = [0, a, 0, 1, b, 0]
        elif action.x < ends[0]:  # left end
            ends[0] = action.x if action.d == 0 else action.x - 1
            ends[1] = a if action.d == 0 else b
            ends[2] = number
        else:
            ends[3] = action.x if action.d == 1 else action.x + 1
            ends[4] = a if action.d == 1 else b
            ends[5] = number
        if state.grid is not None:  # built for an adjudicator's view: keep it current
            state.grid.add(action.grid, action.tile, action.parent)

    def restart(self, state) -> None:
        """Nothing to reset: the traditional rule has no collapse, so no new construction."""


def legal_on_grid(state, hand, mode: str) -> list:
    """Every placement of a tile of ``hand`` on the construction's grid in ``mode``
    ("tower": on top; "flat": end to end at table level, or slid beneath a level-1 tile),
    one action per tile and pose, in the rules' action order. On extremities
    (``extremities_only``) every tile the pose meets must be an extremity
    (:meth:`~magdomino.games.tower.grid.Grid.only_extremities`)."""
    g = state.game
    grid = state.grid
    if g.extremities_only:
        parents = [n for n, k in enumerate(grid.degree) if k <= 1]
    else:
        parents = range(len(grid.poses))
    cache = g._cache
    seen: dict = {}
    gpips = grid.pips
    gposes = grid.poses
    parallel = g.parallel_now(len(gposes))
    ends_only = g.extremities_only
    for t in hand:
        a, b = t
        for p in parents:
            q0, q1 = gpips[p]
            if a != q0 and a != q1 and b != q0 and b != q1:
                continue
            if mode == "tower":
                cands = grid.tower_placements(a, b, p, parallel)
            else:
                level = gposes[p].level
                if level == 0:
                    cands = grid.end_placements(a, b, p)
                elif level == 1:
                    cands = grid.slide_placements(a, b, p)
                else:
                    continue
            for x, y, lev, d, parent, motion, slide in cands:
                key = (t, x, y, lev, d)
                if key in seen:
                    continue
                if ends_only and not grid.only_extremities(GridPose(x, y, lev, d)):
                    continue
                ckey = (t, x, y, lev, d, mode, motion, slide, parent)
                act = cache.get(ckey)
                if act is None:
                    act = cache[ckey] = Action("place", t, x, y, lev, d, mode, motion, slide, parent)
                seen[key] = act
    if len(cache) > 200_000:
        cache.clear()
    return sorted(seen.values(), key=_sort_key)


def _sort_key(a: Action):
    return a.sort_key


class Defi:
    """Défi magnétique's legality and consequences (see :class:`magdomino.games.core.Rule`)."""

    name = "defi"
    state_class = State
    uses_grid = True
    can_collapse = True
    variants = ("extremities",)
    always_extremities = False
    own_modes_at_two = False

    def mode(self, state, player: int) -> str:
        return "tower"

    def legal(self, state, hand, mode: str) -> list:
        return legal_on_grid(state, hand, mode)

    def placed(self, state, player: int, action: Action, number: int) -> None:
        state.grid.add(GridPose(action.x, action.y, action.level, action.d), action.tile, action.parent)

    def restart(self, state) -> None:
        """A new construction owes nothing: every tower placement is a tower placement."""


_FLIP = {"flat": "tower", "tower": "flat"}


class Quinconce:
    """En quinconce's legality and consequences (see :class:`magdomino.games.core.Rule`)."""

    name = "quinconce"
    state_class = State
    uses_grid = True
    can_collapse = True
    variants = ()
    always_extremities = True
    own_modes_at_two = True

    def mode(self, state, player: int) -> str:
        return state.owed[player if player >= 0 else 0]

    def legal(self, state, hand, mode: str) -> list:
        return legal_on_grid(state, hand, mode)

    def placed(self, state, player: int, action: Action, number: int) -> None:
        state.grid.add(GridPose(action.x, action.y, action.level, action.d), action.tile, action.parent)
        nxt = _FLIP[action.mode]
        if state.game.per_player_modes:
            state.owed[player] = nxt
        else:
            state.owed = [nxt] * state.game.players

    def restart(self, state) -> None:
        """A new construction is a new start: every seat owes "flat" again, as at the deal
        (the restarting double then flips the restarter's mode, or everyone's at 3-4)."""
        state.owed = ["flat"] * state.game.players
