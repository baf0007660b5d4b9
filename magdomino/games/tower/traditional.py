"""Rule 1, traditional (flat): one chain with two open ends, matching halves touching.

The chain is a straight line along x on the rules' grid; both ends of the first tile are
open (a double start leaves a matching tile two placements, left and right). Doubles go in
line. No collapse: the verdict of a physics adjudicator is only recorded.
"""

from __future__ import annotations

from magdomino.games.actions import Action


class Traditional:
    """The traditional rule's legality and consequences (see :class:`magdomino.games.core.Rule`)."""

    name = "traditional"
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
