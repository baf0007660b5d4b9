"""Rule 2, Défi magnétique (tower): tiles on top, matching halves superposed.

A tile goes on top of a tile of the construction that shows a half with the same pips,
the two halves superposed; every square it covers must match and no covered square is
covered again (:class:`magdomino.games.tower.grid.Grid`). Orientation (the game's options):
by default the second tile of a construction lies parallel to the first
(``second_parallel``, the leaflet's tip) and later tiles parallel or perpendicular;
``parallel_only`` makes every tower placement parallel. The "extremities" variant places
only where **every** tile the new one rests on (touches end to end, slides under) has at
most one neighbour in the tree of placements (each placement attaches to the
lowest-numbered matching tile it rests on): no bridging from an extremity onto a middle
tile.
A collapse sends every tile of the construction back to the placer's hand (the core).
"""

from __future__ import annotations

from magdomino.games.actions import Action
from magdomino.maths.geometry import GridPose


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
