"""The tower rules' players (traditional, Défi, En quinconce): anything with
``choose(state) -> action`` (:mod:`magdomino.games.players`; :class:`RandomPlayer` is there).

:class:`GreedyPlayer` places the heaviest tile (largest pip total), ties broken by the
stable order of ``legal_actions()``. A physics-aware player only needs the same method.

The physics-aware players ask the game's adjudicator (``state.game.adjudicator``) to
``assess`` their candidate placements (``state.placement_view(action)`` of each; risk in
[0, 1], 0 safest, scale in :mod:`magdomino.physics.adjudicator`):
:class:`CarefulPlayer` plays the safest placement (ties to the heaviest tile, then the
stable order of legal actions); :class:`BoldPlayer` the heaviest tile whose risk is at most
its threshold (default :data:`BOLD_THRESHOLD` = 0.3), else the safest. Both draw or pass
only when no placement is legal, and both play as :class:`GreedyPlayer` when there is
nothing to assess: an adjudicator without ``assess``, or a game that is not a tower game
(traditional, matador, échanges, vingt: no collapse). Their decisions are deterministic
(the adjudicators' assessments are). Neither leads the construction into one state more than
:data:`REPEATS` times in a deal while it has another move (:class:`Repeats`).

Each judges only what its choice depends on, and chooses as if it had judged everything:
where the adjudicator has ``assess_first`` (:mod:`magdomino.physics.adjudicator`), the
candidates are judged heaviest first until enough stand for sure (careful: its
:data:`LOOKAHEAD`; bold: one), and careful weighs the trap share of its next candidate only
while that candidate can still win (:meth:`CarefulPlayer._least_trapped`).
"""

from __future__ import annotations

import copy

from magdomino.checks import check_choice
from magdomino.games.players import RandomPlayer, optional_player
from magdomino.model.tiles import ALL_TILES
from magdomino.physics.adjudicator import NoPhysics

PLAYER_KINDS = ("random", "greedy", "careful", "bold")
BOLD_THRESHOLD = 0.3
"""Default risk a :class:`BoldPlayer` accepts for a heavier tile (0.3: below the statics'
"unknown" 0.5 and its "stands but barely" 0.45, above a comfortably standing pose)."""


class GreedyPlayer:
    """The heaviest tile first (pip total); ties by the stable order of legal actions."""

    kind = "greedy"

    def __init__(self, seed=None):
        pass

    def choose(self, state):
        legal = state.legal_actions()
        best = legal[0]
        if len(legal) == 1 or best.kind != "place":
            return best
        weight = sum(best.tile)
        for a in legal[1:]:
            w = a.tile[0] + a.tile[1]
            if w > weight:
                best, weight = a, w
        return best


def _weight(action) -> int:
    return action.tile[0] + action.tile[1]


def _candidates(state):
    """``(places, adjudicator)``: the legal placements, heaviest first (stable: adjudicators
    measure margins of the first candidates they see), and the adjudicator that weighs them;
    ``(legal, None)`` when there is nothing to weigh (no placement, a single one, no
    ``assess``, not a tower game)."""
    legal = state.legal_actions()
    places = [a for a in legal if a.kind == "place"]
    if not places:
        return legal, None
    game = getattr(state, "game", None)
    rulebook = getattr(game, "rulebook", None)
    adjudicator = getattr(game, "adjudicator", None)
    if (len(places) == 1 or getattr(adjudicator, "assess", None) is None or not getattr(rulebook, "can_collapse", False)
            or not hasattr(state, "placement_view")):
        return places, None
    return sorted(places, key=lambda a: -_weight(a)), adjudicator


def _risks(adjudicator, state, places, enough: int | None) -> list:
    """The risk of each of ``places``: every one (``enough`` None, or an adjudicator without
    ``assess_first``), or in order until ``enough`` poses stand for sure, None after (the
    protocol in :mod:`magdomino.physics.adjudicator`: a None is at least
    :data:`~magdomino.physics.statics_adjudicator.STANDING_MAX` and never among the
    ``enough`` safest)."""
    views = [state.placement_view(a) for a in places]
    first = getattr(adjudicator, "assess_first", None)
    if enough is None or first is None:
        return [float(r) for r in adjudicator.assess(views)]
    return [None if r is None else float(r) for r in first(views, enough)]


def _heaviest(actions):
    """The heaviest tile, ties by the stable order of ``actions``."""
    best = actions[0]
    for a in actions[1:]:
        if _weight(a) > _weight(best):
            best = a
    return best


def _safest(places, risks):
    """The lowest risk, ties to the heaviest tile, then the stable order (a None risk, not
    judged, is never the lowest: :func:`_risks`)."""
    low = min(r for r in risks if r is not None)
    return _heaviest([a for a, r in zip(places, risks) if r == low])


LOOKAHEAD = 4
"""How many of its safest standing placements a :class:`CarefulPlayer` also weighs by the
construction they leave (:func:`trap_share`)."""
TRAP_WEIGHT = 0.5
"""Risk added per unit of :func:`trap_share` (a construction that only traps: 0.5, more
than any standing placement's own risk, 0.45 at most)."""


def trap_share(state, action, statics, stop=None) -> float:
    """Of the tiles the current player cannot see (neither in its hand nor in the
    construction), the share that the next player could place only so that the tower falls,
    after ``action``: a tile is a trap when it has legal placements and the statics
    (``statics``: a :class:`~magdomino.physics.statics_adjudicator.StaticsAdjudicator`, the
    grid's nominal poses) condemns every one. A pose it cannot judge is no trap.

    Rules only (a copy of the state on a copy of the game with no physics); the next
    player's hand is not looked at, only which tiles exist. 0 when ``action`` ends the deal.
    Each tile's placements are judged until one stands, each pose once. ``stop(share)``
    (optional, true from some share up) ends the count early: the share returned then is
    the count so far, at most the whole one, with ``stop`` true of it.
    """
    rules_only = copy.copy(state.game)
    rules_only.adjudicator = NoPhysics()
    rules_only.trivial = True
    after = state.clone()
    after.game = rules_only
    me = state.current
    after.apply_action(action)
    if after.is_terminal() or after.is_chance_node() or not after.placed:
        return 0.0
    seen = set(after.hands[me]) | {a.tile for a in after.placed}
    unseen = [t for t in ALL_TILES if t not in seen]
    by_tile: dict = {}
    for a in rules_only.rulebook.legal(after, unseen, after.mode(after.current)):
        if a.kind == "place":
            by_tile.setdefault(a.tile, []).append(a.grid)
    if not by_tile:
        return 0.0
    structure = statics.structure(after.placed_tiles())
    standing: dict = {}  # grid pose -> not condemned
    traps = 0
    for grids in by_tile.values():
        for grid in grids:
            if grid not in standing:
                standing[grid] = statics.stands(structure, grid) is not False
            if standing[grid]:
                break
        else:
            traps += 1
            if stop is not None and stop(traps / len(unseen)):
                break
    return traps / len(unseen)


REPEATS = 2
"""How many times a seat leads the construction into one state before it prefers another move."""


class Repeats:
    """The constructions a seat's own moves have led to in this deal, counted: a careful seat
    that sees its move about to repeat one it has made :data:`REPEATS` times chooses another
    move when one exists, so that two seats cannot replay one collapse for ever."""

    def __init__(self):
        self.seen: dict = {}

    @staticmethod
    def key(state, action) -> tuple:
        """The construction ``action`` would lead to (the deal, every tile and its grid pose)."""
        placed = tuple((a.tile, a.x, a.y, a.level, a.d) for a in state.placed)
        return (state.deal_no, placed, (action.tile, action.x, action.y, action.level, action.d))

    def fresh(self, state, places: list) -> list[bool]:
        """For each of ``places``: not yet made :data:`REPEATS` times from this construction."""
        return [self.seen.get(self.key(state, a), 0) < REPEATS for a in places]

    def made(self, state, action) -> None:
        if action.kind == "place":
            key = self.key(state, action)
            self.seen[key] = self.seen.get(key, 0) + 1


def _kept(repeats: Repeats, state, places: list) -> list[int] | None:
    """The indices of ``places`` that ``repeats`` has not seen too often, or None when every
    one is kept: none is fresh, all are, or the position is not a tower game's."""
    if not hasattr(state, "placed"):  # a position that is not a tower game's: nothing to compare
        return None
    fresh = repeats.fresh(state, places)
    if any(fresh) and not all(fresh):
        return [k for k, f in enumerate(fresh) if f]
    return None


def _weighed(repeats: Repeats, adjudicator, state, places: list, enough: int | None) -> tuple[list, list]:
    """``places`` and their risks (:func:`_risks`), without the moves ``repeats`` has seen too
    often unless every move has been. When some are left out, every risk is judged: the
    adjudicator measures margins of the first poses it sees, left out or not, and a player's
    choice stays what judging them all gives."""
    kept = _kept(repeats, state, places)
    risks = _risks(adjudicator, state, places, enough if kept is None else None)
    if kept is None:
        return places, risks
    return [places[k] for k in kept], [risks[k] for k in kept]


def _standing_max() -> float:
    """:data:`~magdomino.physics.statics_adjudicator.STANDING_MAX`, imported on use (the
    statics brings numba and scipy, which rules-only players do without)."""
    from magdomino.physics.statics_adjudicator import STANDING_MAX  # noqa: PLC0415 - on use: the statics brings numba and scipy

    return STANDING_MAX


class CarefulPlayer:
    """The safest legal placement by the adjudicator's risk, ties to the heaviest tile, then
    the stable order of legal actions; as :class:`GreedyPlayer` when nothing is assessed.

    Careful about the tower too, not only its own turn: of its :data:`LOOKAHEAD` safest
    standing placements it prefers the one that leaves the fewest traps (tiles that could
    then only be placed so that the tower falls, :func:`trap_share`, judged by the statics
    at the grid's poses): risk + :data:`TRAP_WEIGHT` × trap share. A fragile tower is
    everyone's risk, its own in a few turns included.
    """

    kind = "careful"

    def __init__(self, seed=None, lookahead: int = LOOKAHEAD):
        self.lookahead = int(lookahead)
        self._statics = None
        self.repeats = Repeats()

    def choose(self, state):
        action = self._choose(state)
        if hasattr(state, "placed"):
            self.repeats.made(state, action)
        return action

    def _choose(self, state):
        places, adjudicator = _candidates(state)
        if adjudicator is None:
            return _heaviest(places) if places[0].kind == "place" else places[0]
        # Only the lookahead's safest count: the adjudicator may stop once that many poses stand for sure.
        places, risks = _weighed(self.repeats, adjudicator, state, places, max(self.lookahead, 1))
        standing = sorted((r, -_weight(a), k) for k, (a, r) in enumerate(zip(places, risks)) if r is not None and r < 1.0)
        if self.lookahead <= 0 or len(standing) < 2 or not hasattr(state, "clone"):  # nothing to weigh, or no copy to weigh it on
            return _safest(places, risks)
        return places[self._least_trapped(state, places, standing[: self.lookahead])[2]]

    def _least_trapped(self, state, places: list, safest: list) -> tuple:
        """The least ``(risk + TRAP_WEIGHT * trap share, -weight, index)`` of ``safest``
        (``(risk, -weight, index)`` of standing placements, in increasing order). A trap share
        is at least 0, so a candidate whose own ``(risk, -weight, index)`` is above the best
        so far cannot win, nor can the ones after it; and a share is counted only until it
        loses (:func:`trap_share`'s ``stop``). The result is that of weighing them all."""
        statics = self._statics_of(state.game)
        best = None
        for r, minus_weight, k in safest:
            if best is not None and (r, minus_weight, k) > best:
                break
            stop = None if best is None else (lambda share, r=r, bound=best[0]: r + TRAP_WEIGHT * share > bound)
            weighed = (r + TRAP_WEIGHT * trap_share(state, places[k], statics, stop), minus_weight, k)
            if best is None or weighed < best:
                best = weighed
        return best

    def _statics_of(self, game):
        """A yes/no statics adjudicator with the game's preset and magnets (the grid's nominal
        poses); made again when a later game's adjudicator has others."""
        adjudicator = game.adjudicator
        preset = getattr(adjudicator, "preset", None)
        magnets = getattr(adjudicator, "magnets", True)
        cached = self._statics
        if cached is None or cached[0] is not preset or cached[1] != magnets:
            # on use: the presets and the statics bring numba and scipy (~1 s), which rules-only players do without
            from magdomino.model.presets import DEFAULT_PRESET, load_preset
            from magdomino.physics.statics_adjudicator import StaticsAdjudicator

            statics = StaticsAdjudicator(preset if preset is not None else load_preset(DEFAULT_PRESET), magnets=magnets, margins=0)
            self._statics = cached = (preset, magnets, statics)
        return cached[2]


class BoldPlayer:
    """The heaviest tile whose risk is at most ``threshold`` (in [0, 1]; ties to the lower
    risk, then the stable order), else the safest placement; as :class:`GreedyPlayer` when
    nothing is assessed."""

    kind = "bold"

    def __init__(self, seed=None, threshold: float = BOLD_THRESHOLD):
        self.threshold = float(threshold)
        self.repeats = Repeats()

    def choose(self, state):
        action = self._choose(state)
        if hasattr(state, "placed"):
            self.repeats.made(state, action)
        return action

    def _choose(self, state):
        places, adjudicator = _candidates(state)
        if adjudicator is None:
            return _heaviest(places) if places[0].kind == "place" else places[0]
        # Below STANDING_MAX only the poses judged can be within the threshold: the adjudicator may stop at the first sure one.
        lazy = getattr(adjudicator, "assess_first", None) is not None and self.threshold < _standing_max()
        places, risks = _weighed(self.repeats, adjudicator, state, places, 1 if lazy else None)
        ok = [(a, r) for a, r in zip(places, risks) if r is not None and r <= self.threshold]
        if not ok:
            return _safest(places, risks)
        heavy = max(_weight(a) for a, _ in ok)
        return _safest(*zip(*[(a, r) for a, r in ok if _weight(a) == heavy]))


_MAKERS = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "careful": CarefulPlayer,
    "bold": BoldPlayer,
}
"""Player kind -> class called with the seed (``make_player``)."""


def make_player(kind: str, seed=0):
    """A player by name (:data:`PLAYER_KINDS`): ``"random"`` (seeded), ``"greedy"``,
    ``"careful"``, ``"bold"`` (deterministic; the seed is accepted and unused)."""
    player = optional_player(kind, seed)  # ismcts: OpenSpiel's, imported on use
    if player is not None:
        return player
    return _MAKERS[check_choice(kind, "player_kinds", PLAYER_KINDS)](seed)
