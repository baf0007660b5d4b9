"""The game a script drives move by move (magdomino.games.session.GameSession)."""

import json

import pytest

from magdomino.errors import InputError
from magdomino.games import make_game, play_game
from magdomino.games.chain.record import play_chain
from magdomino.games.session import GameSession, default_physics
from magdomino.games.vingt.game import play_vingt

SEATS = {
    "traditional": ["me", "greedy", "random"],
    "defi": ["me", "greedy"],
    "quinconce": ["random", "me", "me"],
    "matador": ["me", "greedy"],
    "echanges": ["me", "planner", "random"],
    "vingt": ["greedy", "me"],
}


def _finish(g: GameSession, pick=lambda g, n: 0) -> int:
    moves = 0
    while not g.over:
        g.play(pick(g, moves))
        moves += 1
    return moves


@pytest.mark.parametrize("rule", list(SEATS))
def test_a_whole_game_move_by_move_matches_the_record_of_the_same_choices(rule):
    g = GameSession(rule, SEATS[rule], seed=3)
    assert g.my_turn and g.turn in g.mine
    texts = g.legal()
    assert texts and len(set(texts)) == len(texts)
    _finish(g, lambda g, n: g.legal()[-1] if n % 2 else n % len(g.legal()))
    assert g.over and g.turn is None and g.legal() == []
    record = g.record
    assert record["rule"] == rule and record["session"]["over"] is True
    assert record["player_kinds"] == SEATS[rule]
    assert record["scores"] == g.scores and record["winners"] == g.winners


@pytest.mark.parametrize("rule", list(SEATS))
def test_a_move_by_text_or_index_and_an_illegal_one_changes_nothing(rule):
    g = GameSession(rule, SEATS[rule], seed=5)
    texts = g.legal()
    before = (list(g.events), g.legal(), g.hand)
    for bad in ("nonsense", len(texts), -1, 2.5):
        with pytest.raises(InputError):
            g.play(bad)
    assert (list(g.events), g.legal(), g.hand) == before
    twin = GameSession(rule, SEATS[rule], seed=5)
    a = g.play(texts[-1].upper())
    b = twin.play(len(texts) - 1)
    assert a.events == b.events and a.lines == b.lines
    assert a.events[0]["player"] in g.mine


def test_what_happened_names_the_placements_draws_and_the_end():
    g = GameSession("matador", ["me", "greedy"], seed=1)
    seen = []
    while not g.over:
        seen.append(g.play(0))
    last = seen[-1]
    assert last.over and last.ends and last.winners == g.winners
    assert any(h.placements for h in seen)
    assert "\n".join(str(h) for h in seen if len(h)).count("places") == sum(len(h.placements) for h in seen)


def test_collapses_and_verdicts_are_reported_under_a_scripted_physics():
    from magdomino.physics.adjudicator import ScriptedAdjudicator

    g = GameSession("defi", ["me", "greedy"], seed=2, physics=ScriptedAdjudicator(collapse_on={2, 3}))
    seen = []
    while not g.over and len(seen) < 12:
        seen.append(g.play(0))
    assert sum(len(h.collapses) for h in seen) >= 1


def test_bots_only_is_play_game():
    for rule, kinds in (("defi", ["greedy", "random"]), ("traditional", ["random", "random", "greedy"])):
        g = GameSession(rule, kinds, seed=4)
        assert g.over and g.mine == ()
        assert g.record["events"] == play_game(rule, len(kinds), seed=4, player_kinds=kinds)["events"]
    assert GameSession("matador", ["random", "greedy"], seed=2).record["events"] == play_chain(
        "matador", 2, 2, {}, ["random", "greedy"])["events"]
    assert GameSession("vingt", ["random", "greedy"], seed=2).record["events"] == play_vingt(
        2, 2, None, ["random", "greedy"])["events"]


def test_the_same_seed_and_seats_give_the_same_game_whoever_drives():
    """A seat driven by the caller with the moves its kind would choose: the same game."""
    bots = GameSession("quinconce", ["greedy", "random", "greedy"], seed=8)
    g = GameSession("quinconce", ["me", "random", "me"], seed=8)
    from magdomino.games.tower.players import GreedyPlayer

    greedy = GreedyPlayer()
    while not g.over:
        g.play(greedy.choose(g.state))
    assert g.record["events"] == bots.record["events"]


@pytest.mark.parametrize("rule", list(SEATS))
def test_a_saved_game_resumes_where_it_stopped(rule, tmp_path):
    g = GameSession(rule, SEATS[rule], seed=6)
    for _ in range(3):
        if not g.over:
            g.play(len(g.legal()) - 1)
    path = g.save(tmp_path / "game.json")
    again = GameSession.resume(json.loads(path.read_text()))
    assert again.events == g.events and again.legal() == g.legal() and again.turn == g.turn
    _finish(g)
    _finish(again)
    assert again.record["events"] == g.record["events"]


def test_a_record_that_cannot_resume_is_one_line():
    with pytest.raises(InputError, match="session"):
        GameSession.resume(play_game("defi", 2, seed=1))
    g = GameSession("defi", ["me", "greedy"], seed=1)
    g.play(0)
    record = g.record
    record["session"]["moves"][1] = 999
    with pytest.raises(InputError, match=r"session.moves\[1\]"):
        GameSession.resume(record)
    record = g.record
    record["session"]["seats"] = ["me", "random"]
    with pytest.raises(InputError, match="as recorded|session.moves"):
        GameSession.resume(record)


class _Heaviest:
    kind = "heaviest"

    def choose(self, state):
        moves = state.legal_actions()
        places = [m for m in moves if m.kind == "place"]
        return max(places, key=lambda m: sum(m.tile)) if places else moves[0]


def test_a_player_of_your_own_is_a_seat():
    g = GameSession("traditional", [_Heaviest(), "greedy", "me"], seed=2)
    _finish(g)
    assert g.record["player_kinds"] == ["heaviest", "greedy", "me"]


class _NoChoose:
    pass


class _WrongMove:
    def choose(self, state):
        return "6-6 somewhere"


class _BadSignature:
    def choose(self):
        return None


@pytest.mark.parametrize("player, said", [(_NoChoose(), "seat 1: a player kind or an object with choose"),
                                          (_WrongMove(), r"seat 1 \(_WrongMove\).*not one of state.legal_actions"),
                                          (_BadSignature(), r"seat 1 \(_BadSignature\).*TypeError")])
def test_a_wrong_player_object_is_one_line_naming_the_seat(player, said):
    with pytest.raises(InputError, match=said) as err:
        for seed in range(5):  # the object must get a turn
            GameSession("traditional", ["greedy", player], seed=seed)
    assert "\n" not in str(err.value)


def test_seats_are_checked_in_one_line():
    with pytest.raises(InputError, match="seats: one seat per player"):
        GameSession("defi", ["me", "greedy"], players=3)
    with pytest.raises(InputError, match="seat 1: expected one of"):
        GameSession("defi", ["me", "nobody"])
    with pytest.raises(InputError, match="physics"):
        GameSession("vingt", ["me", "greedy"], physics="statics")
    with pytest.raises(InputError, match="no move: the game is over"):
        g = GameSession("defi", ["greedy", "greedy"])
        g.play(0)


def test_defaults_and_physics_by_rule():
    g = GameSession("defi")
    assert g.seats == ("me", "random") and g.players == 2
    assert [default_physics(r) for r in ("traditional", "defi", "quinconce", "vingt")] == ["none", "dynamics", "dynamics", "none"]


def test_the_tower_construction_and_risks():
    from magdomino.model.presets import load_preset
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    g = GameSession("defi", ["me", "greedy"], seed=1)
    for _ in range(3):
        g.play(0)
    built = g.placements()
    assert built and built[0].endswith("mm")
    assert len(built) == len(g.state.placed)
    risks = g.risks(StaticsAdjudicator(load_preset("toy")))
    assert len(risks) == len(g.legal())
    assert all(r is None or 0.0 <= r <= 1.0 for r in risks)
    assert GameSession("matador", ["me", "greedy"]).risks() is None


def test_a_game_object_plays_chance_itself():
    game = make_game("echanges", 3, 1)
    g = GameSession.of_game(game, ["me", "random", "random"])
    assert g.my_turn and g.stock > 0 and len(g.hand) == 1


def test_the_start_of_several_moves_is_refused_as_such():
    g = GameSession("defi", ["me", "greedy"], seed=1)
    start = g.legal()[0].split(" half")[0]
    with pytest.raises(InputError, match="which starts 2 of them"):
        g.play(start)
    assert g.play(start + " half 0").placements


def test_the_status_is_json_ready():
    g = GameSession("vingt", ["greedy", "me"], seed=1)
    status = g.status()
    assert json.loads(json.dumps(status)) == status
    assert status["my_turn"] and status["turn"] == 1 and status["legal"] == g.legal() and len(status["hand"]) == 5
