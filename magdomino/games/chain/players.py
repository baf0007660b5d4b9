"""The chain games' players: anything with ``choose(state) -> action``
(:mod:`magdomino.games.players`; :class:`RandomPlayer` is there).

Le Matador (:func:`make_matador_player`): ``random``, ``greedy``
(:class:`MatadorGreedyPlayer`: the heaviest tile first, never a bluff; it draws only when it
must). Le jeu des échanges (:func:`make_echanges_player`): ``random``; ``greedy``
(:class:`EchangesGreedyPlayer`: the exchange with the best immediate outcome: SUN, then
nothing, then RAIN; the first placement); ``planner`` (:class:`PlannerPlayer`: each placement
and exchange is scored by its immediate outcome, then by whether the next player, in turn,
will have an exchange that lets their own next player place: one more turn ahead, so SUN
stays ahead of RAIN; the hidden stock and the tile P will draw are never looked at). Both
take ``ismcts`` too (OpenSpiel's, imported on use: :func:`~magdomino.games.players.optional_player`).
"""

from __future__ import annotations

from magdomino.checks import check_choice
from magdomino.games.chain.echanges import ends_after, fits, judge
from magdomino.games.players import RandomPlayer, optional_player


class MatadorGreedyPlayer:
    """The heaviest tile first (a tile in line before a crossed one of the same weight);
    draws or passes only when nothing can be placed (it never bluffs)."""

    kind = "greedy"

    def __init__(self, seed=None):
        pass

    def choose(self, state):
        legal = state.legal_actions()
        places = [a for a in legal if a[0] in ("start", "line", "cross")]
        if not places:
            return legal[0]
        return max(places, key=lambda a: (sum(a[2] if a[0] != "start" else a[1]), a[0] == "line"))


class EchangesGreedyPlayer:
    """The exchange with the best immediate outcome (SUN, nothing, RAIN; ties: the first);
    otherwise the first legal action."""

    kind = "greedy"

    def __init__(self, seed=None):
        pass

    def choose(self, state):
        legal = state.legal_actions()
        if state.phase != "exchange" or len(legal) == 1:
            return legal[0]
        n = state.next_seat(state.current)
        return max(legal, key=lambda a: judge(state.ends, state.hands[n][0], state.hands[a[1]][0]))


class PlannerPlayer:
    """Placement and exchange chosen together: first the immediate outcome of the best
    exchange after each placement, then one more turn ahead (module docstring). Ties: the
    first in the order of the legal actions."""

    kind = "planner"

    def __init__(self, seed=None):
        pass

    def choose(self, state):
        legal = state.legal_actions()
        if len(legal) == 1 and state.phase != "exchange":
            return legal[0]
        if state.phase == "exchange":
            return max(legal, key=lambda a: self._exchange_value(state, state.ends, a[1]))
        p = state.current
        tile = state.hands[p][0]
        return max(legal, key=lambda a: self._best_exchange(state, ends_after(state.ends, tile, a[1]), p))

    def _best_exchange(self, state, ends, p) -> tuple:
        n = state.next_seat(p)
        others = [x for x in range(state.game.players) if x not in (p, n)]
        return max(self._exchange_value(state, ends, x, p) for x in others)

    def _exchange_value(self, state, ends, x, p=None) -> tuple:
        """(immediate outcome, the next player's best outcome one turn later)."""
        p = state.current if p is None else p
        hands = [h[0] if h else None for h in state.hands]
        n = state.next_seat(p)
        now = judge(ends, hands[n], hands[x])
        hands[n], hands[x] = hands[x], hands[n]
        hands[p] = None  # P draws a hidden tile after the exchange
        return now, self._next_turn_value(state, ends, hands, n)

    @staticmethod
    def _next_turn_value(state, ends, hands, n) -> int:
        """What N's best exchange could score after N places (0 if N cannot place or only
        hidden tiles could help)."""
        where = fits(hands[n], ends)
        if not where:
            return 0
        n2 = state.next_seat(n)
        values = [
            judge(ends_after(ends, hands[n], end), hands[n2], hands[x])
            for end in where
            for x in range(state.game.players)
            if x not in (n, n2) and hands[x] is not None
        ]
        return max(values) if values else 0


def make_matador_player(kind: str, seed=0):
    """A Matador player by name: ``random`` (seeded) or ``greedy``."""
    player = optional_player(kind, seed)  # ismcts: OpenSpiel's, imported on use
    if player is not None:
        return player
    makers = {"random": RandomPlayer, "greedy": MatadorGreedyPlayer}
    return makers[check_choice(kind, "player_kinds", tuple(makers))](seed)


def make_echanges_player(kind: str, seed=0):
    """An échanges player by name: ``random`` (seeded), ``greedy`` or ``planner``."""
    player = optional_player(kind, seed)  # ismcts: OpenSpiel's, imported on use
    if player is not None:
        return player
    makers = {"random": RandomPlayer, "greedy": EchangesGreedyPlayer, "planner": PlannerPlayer}
    return makers[check_choice(kind, "player_kinds", tuple(makers))](seed)
