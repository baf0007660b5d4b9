"""Rule 3, En quinconce (staggered): "en hauteur" and "à plat" in turn, on extremities.

The starting double is flat; the next placement must be on top ("tower"), the next flat,
and so on; drawing is not playing, so the mode switches only when a tile is placed. Flat
means end to end against a table-level extremity (in line), or slid beneath an extremity
lying at level 1 (a motion in the physics: it can push). Tower placements go on top of an
extremity (the orientation options apply as in Défi). Every tile the new one rests on,
touches end to end or slides under must be an extremity. With two players each keeps
their own mode (both start flat; the starting double counts as the first player's flat
placement). A new construction after a collapse is a new start (RULES.md): every mode
resets exactly as at the deal, so the restarting double is the restarter's flat placement
(3-4 players: the next tile goes on top; 2 players: the restarter owes "tower", the other
player "flat", whatever they owed before the collapse).
"""

from __future__ import annotations

from magdomino.games.actions import Action
from magdomino.games.tower.rules import legal_on_grid
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
        """A new construction is a new start: every seat owes "flat" again, as at the deal
        (the restarting double then flips the restarter's mode, or everyone's at 3-4)."""
        state.owed = ["flat"] * state.game.players
