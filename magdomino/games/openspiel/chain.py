"""Le Matador and Le jeu des échanges as the OpenSpiel games ``magdomino_matador`` and
``magdomino_echanges`` (:mod:`magdomino.games.openspiel.games` says what every game here
shares).

- **Parameters**: matador ``players`` (2-4; 2-6 with a larger set), ``set`` (6-9),
  ``variant`` (``""`` or ``"strategic"``), ``deals``, ``target`` (0: none); echanges
  ``players`` (3-6), ``set``, ``variant``.
- **Chance**: a deal deals the hands only, tile by tile; each draw is a chance node of its
  own (uniform over the stock).
- **Resampling** keeps Le Matador's starter's hand before the start (the starter is known
  to hold the best tile).
"""

from __future__ import annotations

from magdomino.games.core import make_game
from magdomino.games.openspiel.games import MagdominoGame, MagdominoState, deal_hidden_again, game_type, public_snapshot


class ChainSpielState(MagdominoState):
    """A pyspiel state shadowing a chain game's state (:mod:`magdomino.games.chain`)."""

    def _chance_kind(self):
        s = self.inner
        if s.current_player() != -1:
            return None
        return "deal" if s.due == "deal" else "draw"

    def _deal_size(self) -> int:
        return self.inner.game.players * self.inner._hand_size()

    def _finish_deal(self, order: list) -> None:
        rest = sorted(set(self.tiles) - set(order))
        self.inner.apply_action(("deal", tuple(order) + tuple(rest)))

    def resample(self, player, rng):
        inner = self.inner
        fixed = ()
        if self.rule == "matador" and inner.hands and not inner.table and inner.current_player() >= 0:
            fixed = (inner.starter,)  # the starter is known to hold the best tile
        return deal_hidden_again(self, player, rng, fixed_seats=fixed)


class ChainSpielGame(MagdominoGame):
    """A chain game's pyspiel game (module docstring)."""

    STATE = ChainSpielState

    def package_game(self, params: dict):
        opts = {"set": params["set"]}
        if params.get("variant"):
            opts["variant"] = params["variant"]
        for key in ("deals", "target"):
            if params.get(key):
                opts[key] = params[key]
        return make_game(self.RULE, params["players"], 0, opts)


class MatadorGame(ChainSpielGame):
    RULE = "matador"
    PARAMETERS = {"players": 2, "set": 6, "variant": "", "deals": 1, "target": 0}
    GAME_TYPE = game_type(RULE, PARAMETERS)


class EchangesGame(ChainSpielGame):
    RULE = "echanges"
    PARAMETERS = {"players": 3, "set": 6, "variant": ""}
    GAME_TYPE = game_type(RULE, PARAMETERS)


GAME_CLASSES = {c.RULE: c for c in (MatadorGame, EchangesGame)}


def params_of(g) -> dict:
    """The pyspiel parameters of the package game ``g``."""
    o = g.options()
    out = {"players": g.players, "set": o["set"], "variant": o["variant"] or ""}
    if g.rule == "matador":
        out.update(deals=o["deals"], target=o["target"] or 0)
    return out


def from_package_state(state, physics: bool = False) -> ChainSpielState:
    """:func:`magdomino.games.openspiel.games.from_package_state` of a chain game's state."""
    g = state.game
    pgame = GAME_CLASSES[g.rule](params_of(g), _package=g)
    return ChainSpielState(pgame, state.clone(), [public_snapshot(state)])
