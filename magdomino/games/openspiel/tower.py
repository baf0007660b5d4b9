"""Traditional, Défi magnétique and En quinconce as the OpenSpiel games ``magdomino_traditional``,
``magdomino_defi`` and ``magdomino_quinconce`` (:mod:`magdomino.games.openspiel.games` says
what every game here shares).

- **Parameters**: ``players`` (2-4), ``kids``, ``deals``; Défi and En quinconce also
  ``physics`` (``"none"``: rules only, nothing collapses; ``"statics"``: the agents' judge
  :class:`~magdomino.physics.training_adjudicator.TrainingAdjudicator`, default preset,
  magnets on: the statics alone, never PyBullet, a placement it is unsure of decided by
  whether the construction carries the tile at 1.475 times its weight) and ``max_placements`` (0: the placement limit of every face,
  :data:`~magdomino.games.family.PLACEMENT_GUARD`, when judged by the statics); Défi
  ``variant`` (``""`` or ``"extremities"``).
- **Chance**: a deal deals all 28 tiles one by one (the hands in seat order, then the stock
  in drawing order, since the draws take the next stock tile), and a deal with a one-colour
  hand is dealt again, as the package's own deal does (rejection keeps the distribution
  uniform over the allowed deals).
- **Resampling** keeps a forced start (the holder of the highest double) where it is.
"""

from __future__ import annotations

from magdomino.errors import InputError
from magdomino.games.actions import Deal
from magdomino.games.core import Game, make_game
from magdomino.games.family import PLACEMENT_GUARD
from magdomino.games.openspiel.games import MagdominoGame, MagdominoState, deal_hidden_again, game_type, public_snapshot
from magdomino.games.tower.state import State
from magdomino.model.presets import DEFAULT_PRESET


def package_game(rule: str, params: dict) -> Game:
    """The package's :class:`~magdomino.games.core.Game` for pyspiel parameters ``params``
    (defaults filled in)."""
    p = dict(params)
    physics = p.pop("physics", "none")
    if physics not in ("none", "statics"):
        raise InputError("openspiel", "physics", f"'none' (rules only) or 'statics', got {physics!r}")
    opts = {"kids": p["kids"], "deals": p["deals"]}
    if p.get("variant"):
        opts["variant"] = p["variant"]
    if p.get("max_placements"):
        opts["max_placements"] = p["max_placements"]
    if physics == "statics":
        from magdomino.physics.training_adjudicator import TrainingAdjudicator  # on use: scipy's solvers

        # the agents' judge, as the PettingZoo face's: the statics alone, its unsure answers by a load rule
        opts["adjudicator"] = TrainingAdjudicator(DEFAULT_PRESET)
        # collapses can go on for ever: the runaway guard ends such a deal, not scored
        opts.setdefault("max_placements", PLACEMENT_GUARD)
    return make_game(rule, p["players"], 0, opts)


class TowerSpielState(MagdominoState):
    """A pyspiel state shadowing a tower rule's :class:`~magdomino.games.tower.state.State`."""

    def _chance_kind(self):
        return "deal" if self.inner.current_player() == -1 else None

    def _deal_size(self) -> int:
        return len(self.tiles)

    def _finish_deal(self, order: list) -> None:
        g = self.inner.game
        k = g.hand_size
        hands = [order[i * k : (i + 1) * k] for i in range(g.players)]
        if len(set(g.colours)) > 1 and any(len({g.colour[t] for t in h}) == 1 for h in hands):
            self.public.append("redeal")  # the package deals again: so does this
            return
        self.inner.apply_action(Deal(tuple(order)))

    def resample(self, player, rng):
        forced = getattr(self.inner, "forced", None)
        keep = [tuple(forced.tile)] if forced is not None and getattr(forced, "tile", None) is not None else []
        return deal_hidden_again(self, player, rng, keep=keep)


class TowerSpielGame(MagdominoGame):
    """A tower rule's pyspiel game (module docstring)."""

    STATE = TowerSpielState

    def package_game(self, params: dict) -> Game:
        return package_game(self.RULE, params)


def _judged(extra: dict) -> dict:
    return {"players": 2, **extra, "kids": False, "deals": 1, "physics": "none", "max_placements": 0}


class TraditionalGame(TowerSpielGame):
    RULE = "traditional"
    PARAMETERS = {"players": 2, "kids": False, "deals": 1}
    GAME_TYPE = game_type(RULE, PARAMETERS)


class DefiGame(TowerSpielGame):
    RULE = "defi"
    PARAMETERS = _judged({"variant": ""})
    GAME_TYPE = game_type(RULE, PARAMETERS)


class QuinconceGame(TowerSpielGame):
    RULE = "quinconce"
    PARAMETERS = _judged({})
    GAME_TYPE = game_type(RULE, PARAMETERS)


GAME_CLASSES = {c.RULE: c for c in (TraditionalGame, DefiGame, QuinconceGame)}


def params_of(g: Game) -> dict:
    """The pyspiel parameters of the package game ``g``."""
    out = {"players": g.players, "kids": g.kids, "deals": g.deals}
    if g.rule != "traditional":
        physics = "statics" if getattr(g.adjudicator, "name", "") == "statics" else "none"
        out.update(physics=physics, max_placements=g.max_placements or 0)
    if g.rule == "defi":
        out["variant"] = g.variant or ""
    return out


def from_package_state(state, physics: bool = False) -> TowerSpielState:
    """:func:`magdomino.games.openspiel.games.from_package_state` of a tower rule's state:
    searched rules-only unless ``physics`` and the statics judge it."""
    g = state.game
    inner = state.clone()
    keep = physics and getattr(g.adjudicator, "name", "") == "statics"
    if not g.trivial and not keep:  # search rules-only
        g = Game.from_json(g.to_json())
        inner = State.from_json(state.to_json(), g)
    pgame = GAME_CLASSES[g.rule](params_of(g), _package=g)
    return TowerSpielState(pgame, inner, [public_snapshot(state)])
