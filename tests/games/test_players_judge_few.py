"""Careful and bold seats judge only the candidates their choice depends on, and choose as if
they had judged them all.

The reference is each choice by its definition: every candidate's risk by ``assess`` (an
adjudicator without ``assess_first``), and for careful every one of its lookahead's
candidates weighed with its whole trap share (the least ``risk + TRAP_WEIGHT * share``, ties
to the heavier tile, then the order of the legal actions). Seeded Défi games on the default
toy give the same records both ways, and the shortcuts were taken on the way.
"""

from __future__ import annotations

from magdomino.games.session import GameSession
from magdomino.games.tower import players
from magdomino.games.tower.players import TRAP_WEIGHT, BoldPlayer, CarefulPlayer, trap_share
from magdomino.physics.statics_adjudicator import STANDING_MAX, StaticsAdjudicator


class _AssessOnly:
    """An adjudicator that judges every candidate: ``assess`` only (``assess_first`` hidden)."""

    def __init__(self, adjudicator):
        self._adjudicator = adjudicator

    def __getattr__(self, name):
        if name == "assess_first":
            raise AttributeError(name)
        return getattr(self._adjudicator, name)


class _WeighsAll(CarefulPlayer):
    """Careful by its definition: every lookahead candidate's whole trap share, the least sum."""

    def _least_trapped(self, state, places, safest):
        statics = self._statics_of(state.game)
        return min((r + TRAP_WEIGHT * trap_share(state, places[k], statics), w, k) for r, w, k in safest)


def _record(seats, adjudicator, seed: int, placements: int) -> list:
    session = GameSession("defi", seats, seed=seed, physics=adjudicator, max_placements=placements)
    events = session.record["events"]
    for e in events:  # the clock differs between runs
        (e.get("verdict") or {}).pop("wall_time_s", None)
    return events


def test_careful_and_bold_choose_as_if_every_candidate_were_judged(monkeypatch):
    left_out, weighable, weighed = [], [], []
    lazy, least = StaticsAdjudicator.assess_first, CarefulPlayer._least_trapped
    real_share = players.trap_share

    def counted(self, views, enough):
        risks = lazy(self, views, enough)
        left_out.append(sum(r is None for r in risks))
        return risks

    def least_trapped(self, state, places, safest):
        weighable.append(len(safest))
        return least(self, state, places, safest)

    monkeypatch.setattr(StaticsAdjudicator, "assess_first", counted)
    monkeypatch.setattr(CarefulPlayer, "_least_trapped", least_trapped)
    monkeypatch.setattr(players, "trap_share", lambda *a: weighed.append(1) or real_share(*a))
    fast = _record([CarefulPlayer(), CarefulPlayer(), BoldPlayer()], StaticsAdjudicator("toy"), 3, 10)
    assert sum(n > 0 for n in left_out) >= 3  # candidates left unjudged in several decisions
    assert len(weighed) < sum(weighable)  # candidates not weighed
    judged_all = _record([_WeighsAll(), _WeighsAll(), BoldPlayer()], _AssessOnly(StaticsAdjudicator("toy")), 3, 10)
    assert sum(e["type"] == "place" for e in fast) >= 8
    assert fast == judged_all


def test_a_trap_count_stops_where_it_is_told():
    # The position of tests/games/test_players.py's trap share test: Défi, 6-6, then 0-6
    # overhanging; the traps are the unseen tiles with a 0 and no 6 (at least three).
    from magdomino.games.core import Game
    from magdomino.model.presets import load_preset

    statics = StaticsAdjudicator(load_preset("standard"), margins=0)
    state = Game("defi", 2, seed=0, adjudicator=statics).new_initial_state()
    state.apply_action(state.legal_actions()[0])  # the deal
    state.apply_action(state.legal_actions()[0])  # the 6-6
    second = next(a for a in state.legal_actions() if a.tile == (0, 6))
    whole = trap_share(state, second, statics)
    unseen = 27 - len(state.hands[state.current])
    assert whole >= 3 / unseen
    assert trap_share(state, second, statics, stop=lambda share: share > 1.5 / unseen) == 2 / unseen
    assert trap_share(state, second, statics, stop=lambda share: share > 1) == whole


def test_the_candidates_left_unjudged_would_not_be_among_the_safest():
    from magdomino.games import CHANCE, TERMINAL, Game

    adjudicator = StaticsAdjudicator("toy")
    state = Game("defi", 2, 5, {"adjudicator": adjudicator}).new_initial_state()
    careful, checked = CarefulPlayer(), 0
    while state.current != TERMINAL and state.placements < 10:
        if state.current != CHANCE and len(state.placed) > 1:
            places = sorted((a for a in state.legal_actions() if a.kind == "place"), key=lambda a: -sum(a.tile))
            views = [state.placement_view(a) for a in places]
            every = adjudicator.assess(views)
            few = adjudicator.assess_first(views, 4)
            assert [r for r in few if r is not None] == [r for r, f in zip(every, few) if f is not None]
            if None in few:
                checked += 1
                cut = few.index(None)  # each view left out comes after four judged at most STANDING_MAX
                assert sum(r <= STANDING_MAX for r in few[:cut]) >= 4
                assert min(r for r, f in zip(every, few) if f is None) >= STANDING_MAX
        state.apply_action(state.legal_actions()[0] if state.current == CHANCE else careful.choose(state))
    assert checked >= 1


def test_pybullet_leaves_unjudged_only_candidates_no_safer_than_those_judged():
    from magdomino.games import CHANCE, TERMINAL, Game
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    adjudicator = PybulletAdjudicator("toy")
    try:
        state = Game("defi", 2, 1, {"adjudicator": adjudicator}).new_initial_state()
        careful, checked = CarefulPlayer(), 0
        while state.current != TERMINAL and state.placements < 8:
            if state.current != CHANCE and len(state.placed) > 2:
                places = sorted((a for a in state.legal_actions() if a.kind == "place"), key=lambda a: -sum(a.tile))
                views = [state.placement_view(a) for a in places]
                every, few = adjudicator.assess(views), adjudicator.assess_first(views, 4)
                assert [r for r in few if r is not None] == [r for r, f in zip(every, few) if f is not None]
                if None in few:
                    checked += 1
                    assert sum(r <= STANDING_MAX for r in few[: few.index(None)]) >= 4
                    assert min(r for r, f in zip(every, few) if f is None) >= STANDING_MAX
            state.apply_action(state.legal_actions()[0] if state.current == CHANCE else careful.choose(state))
        assert checked >= 1
    finally:
        adjudicator.close()
