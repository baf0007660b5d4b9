"""20 sur 20 (:mod:`magdomino.games.vingt.game`) as the OpenSpiel game ``magdomino_vingt``.

Registered by :func:`magdomino.games.openspiel.games.register_all` beside the other rules
(this module only holds what differs: 20 sur 20's chance events, deal and resampling).
Parameters: ``players`` (2, 3 or 4; default 2) and ``target`` (0: one round, as
``VingtGame(target=None)``; T > 0: rounds until someone's total reaches T).

Chance, information and resampling follow the other games
(:mod:`magdomino.games.openspiel.games`): a round's deal is dealt tile by tile (each
outcome the index of one of the 54 tiles, uniform over the tiles not yet dealt), the racks
only, five per seat in seat order; every refill draw is a chance node of its own (uniform
over the stock). ``information_state_string(p)`` is p's rack and the public history (every
move and sub-step; chance outcomes as ``?``). :func:`resample` deals the other racks and
the stock again at random, sizes kept.

**Action ids**: :mod:`magdomino.games.vingt_codec` (4,470 ids): a move of several tiles is
chosen in sub-steps by the same player, its frame (anchor, a half of a tile on the public
table; direction; number of tiles; how many before the anchor) and then its tiles one by one
(each named by its pips and which way round it lies), so an id means the same in every
state.
"""

from __future__ import annotations

from magdomino.errors import InputError
from magdomino.games.openspiel.games import MagdominoGame, MagdominoState, game_type, public_snapshot
from magdomino.games.vingt.game import RACK, VingtGame
from magdomino.wording import tile_text


class VingtSpielState(MagdominoState):
    """A pyspiel state shadowing a :class:`~magdomino.games.vingt.game.VingtState` (``inner``):
    the other games' state with 20 sur 20's own chance kinds, deal size and texts."""

    def _chance_kind(self):
        s = self.inner
        if s.current != -1:
            return None
        return "draw" if s.refill >= 0 else "deal"

    def _deal_size(self) -> int:
        return self.inner.game.players * RACK

    def _finish_deal(self, order: list) -> None:
        rest = sorted(set(self.tiles) - set(order))
        self.inner.apply_action(("deal", tuple(order) + tuple(rest)))

    @staticmethod
    def action_text(a) -> str:
        if a[0] != "place":
            return a[0]
        return f"place {'xy'[a[1]]} " + " ".join(f"{x},{y}:{tile_text((p, q))}" for x, y, p, q in a[2])

    def __str__(self):
        if self._chance_kind() == "deal":
            return f"dealing: {[self.tiles[i] for i in self.dealt]}"
        s = self.inner
        return f"round {s.round_no} seat {s.current} racks {s.racks} table {s.table()} markers {s.markers_placed}"


class VingtSpielGame(MagdominoGame):
    """``magdomino_vingt`` (module docstring)."""

    RULE = "vingt"
    PARAMETERS = {"players": 2, "target": 0}
    GAME_TYPE = game_type(RULE, PARAMETERS, "Magdomino 20 sur 20")
    STATE = VingtSpielState
    UTILITY = (0.0, 1.0)

    def package_game(self, params: dict) -> VingtGame:
        return VingtGame(params["players"], 0, target=params["target"] or None)

    def max_length(self) -> int:
        # a round is < 800 actions (54 tiles placed, each in two sub-steps or more, a stop or
        # a draw after each, passes); a competition's length has no bound in the rules (rounds
        # can score nothing): this is nominal, and OpenSpiel only reads it
        return 2000 * (1 + (self.package.target or 0))


GAME_CLASSES = {"vingt": VingtSpielGame}


def resample(state, player: int, rng):
    """:func:`magdomino.games.openspiel.games.resample`: the other racks and the stock dealt
    again (sizes kept; what a pass revealed about a rack is ignored, as for the other games)."""
    return state.resample(player, rng)


def from_package_state(state, physics: bool = False) -> VingtSpielState:
    """A pyspiel state for a package :class:`~magdomino.games.vingt.game.VingtState` at a seat's
    turn: its public part (the table, markers, scores, rack sizes) opens the public history."""
    if state.current < 0:
        raise InputError("openspiel", "state", f"a 20 sur 20 state at a seat's turn, got current={state.current}")
    pgame = VingtSpielGame({"players": state.game.players, "target": state.game.target or 0}, _package=state.game)
    return VingtSpielState(pgame, state.clone(), [public_snapshot(state, "racks")])
