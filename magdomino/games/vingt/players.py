"""20 sur 20's players: anything with ``choose(state) -> action``
(:mod:`magdomino.games.players`; :class:`RandomPlayer` is there), by name :func:`make_player`.

:class:`GreedyPlayer` takes the turn placing the most markers (whole turns searched by
:func:`~magdomino.games.vingt.moves.turn_plans`) and :class:`LookaheadPlayer` also takes off
the easy twenties it leaves to the next player
(:func:`~magdomino.games.vingt.moves.easy_twenties`). Players only read the state (``occ``,
``racks``, ``tiles``, ``markers_left``, ``replay``, ``current``, ``legal_actions()``), so
this module does not import :mod:`magdomino.games.vingt.game`.
"""

from __future__ import annotations

from magdomino.checks import check_choice
from magdomino.games.players import RandomPlayer, optional_player
from magdomino.games.vingt.moves import easy_twenties, play_on, turn_plans
from magdomino.model.tiles import double_set

_ALL = double_set(9, without=[(0, 0)]).tiles  # the 20 sur 20 set (see magdomino.games.vingt.game)


class GreedyPlayer:
    """The turn that places the most markers (ties: the first in the stable order).

    It searches the whole turn (:func:`turn_plans`) and keeps to its plan while the
    series of single-tile moves goes on.
    """

    kind = "greedy"

    def __init__(self, seed=None, budget: int = 300):
        self.budget = budget
        self._plan: list = []

    def _score(self, state, plans, seat):
        return [(n + (1000 if n >= state.markers_left[seat] else 0), -i) for i, (n, _) in enumerate(plans)]

    def choose(self, state):
        legal = state.legal_actions()
        if len(legal) == 1 or legal[0][0] != "place":
            return legal[0]
        if state.replay and self._plan and self._plan[0] in legal:
            return self._plan.pop(0)
        seat = state.current
        plans = turn_plans(state.occ, state.racks[seat], not state.occ, state.replay, state.markers_left[seat], seat, self.budget)
        scores = self._score(state, plans, seat)
        best = max(range(len(plans)), key=scores.__getitem__)
        seq = plans[best][1]
        self._plan = list(seq[1:])
        return seq[0] if seq else legal[-1]  # an empty plan in a replay: stop


class LookaheadPlayer(GreedyPlayer):
    """Greedy, but among the ``top`` turns placing the most markers it takes off ``weight``
    times the markers the next player can expect from an easy twenty left on the table
    (:func:`easy_twenties`, over the tiles it cannot see)."""

    kind = "lookahead"

    def __init__(self, seed=None, budget: int = 300, top: int = 6, weight: float = 1.0):
        super().__init__(seed, budget)
        self.top = top
        self.weight = weight

    def _score(self, state, plans, seat):
        base = super()._score(state, plans, seat)
        order = sorted(range(len(plans)), key=base.__getitem__, reverse=True)[: self.top]
        seen = {t for t, *_ in state.tiles}
        seen.update(state.racks[seat])
        unseen_all = [t for t in _ALL if t not in seen]
        occ = state.occ
        out = [(-1e9, 0)] * len(plans)
        for i in order:
            n, seq = plans[i]
            if base[i][0] >= 1000:
                out[i] = base[i]
                continue
            written = []
            left = state.markers_left[seat]
            for m in seq:
                put, w = play_on(occ, m, left, seat)
                left -= put
                written += w
            try:
                danger = easy_twenties(occ, unseen_all)
            finally:
                for k in written:
                    del occ[k]
            out[i] = (n - self.weight * danger, base[i][1])
        return out


PLAYER_KINDS = ("random", "greedy", "lookahead", "ismcts")


def make_player(kind: str, seed=0):
    """A 20 sur 20 player by name: random (seeded), greedy, lookahead or ismcts (OpenSpiel's
    information-set MCTS on ``magdomino_vingt``: needs the openspiel extra, imported on use)."""
    player = optional_player(kind, seed)
    if player is not None:
        return player
    makers = {"random": RandomPlayer, "greedy": GreedyPlayer, "lookahead": LookaheadPlayer}
    return makers[check_choice(kind, "player_kinds", PLAYER_KINDS)](seed)
