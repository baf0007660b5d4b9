"""Rule 3, En quinconce (staggered): "en hauteur" and "à plat" in turn, on extremities.

The starting double is flat; the next placement must be on top ("tower"), the next flat,
and so on; drawing is not playing, so the mode switches only when a tile is placed. Flat
means end to end against a table-level extremity (in line), or slid beneath an extremity
lying at level 1 (a motion in the physics: it can push). Tower placements go on top of an
extremity (``parallel_only`` applies as in Défi). With two players each keeps their own
mode (both start flat; the starting double counts as the first player's flat placement).
A collapsing placement was a placement (every attempt is final), so it switches the mode
like any other; the restarting double then counts as a flat placement (3-4 players: the
next tile goes on top; 2 players: the restarter owes "tower", the other keeps what they
owed).
"""

from __future__ import annotations

from magdomino.games.actions import Action
from magdomino.games.defi import legal_on_grid
from magdomino.maths.geometry import GridPose

_FLIP = {"flat": "tower", "tower": "flat"}


class Quinconce:
    """En quinconce's legality and consequences (see :class:`magdomino.games.core.Rule`)."""

    name = "quinconce"
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
        """Modes carry on through a collapse (see the module docstring)."""
