"""md.game / md.resume (a game driven move by move) and md.play's seats and default physics."""

import pytest

import magdomino as md
from magdomino.faces import api, api_game


def test_md_game_plays_move_by_move_with_a_construction():
    g = md.game("defi", seats=["me", "greedy", "random"], physics="none", seed=1)
    assert g.my_turn and g.legal() and g.hand
    happened = g.play(0)
    assert happened.placements and happened.placements[0]["player"] == 0
    c = g.construction
    assert isinstance(c, md.Construction) and len(c.tiles) == len(g.placements())
    assert g.construction is c  # built again only when the construction changes
    assert "<pre>" in g._repr_html_()
    assert md.game("matador", ["me", "greedy"]).construction is None


def test_md_game_saves_and_resumes(tmp_path):
    g = md.game("quinconce", seats="me,careful", physics="statics", seed=2)
    g.play(0)
    g.play(len(g.legal()) - 1)
    path = g.save(tmp_path / "saved.json")
    again = md.resume(path)
    assert isinstance(again, api_game.Game)
    def moves(events):  # a verdict's wall time differs from run to run
        return [(e["type"], e["player"], e.get("tile"), e.get("placement"), (e.get("verdict") or {}).get("collapsed"))
                for e in events]

    assert moves(again.events) == moves(g.events) and again.legal() == g.legal()
    assert again.record["physics"] == "statics"
    with pytest.raises(md.InputError, match="saved.txt"):
        (tmp_path / "saved.txt").write_text("{")
        md.resume(tmp_path / "saved.txt")


def test_md_game_refuses_physics_for_a_game_without_one():
    with pytest.raises(md.InputError, match="physics: only with traditional, defi or quinconce"):
        md.game("vingt", ["me", "greedy"], physics="statics")


def test_md_play_takes_seats_and_player_alike():
    a = md.play("traditional", seats=["greedy", "random", "greedy"], seed=3)
    b = md.play("traditional", 3, player=["greedy", "random", "greedy"], seed=3)
    assert a.record == b.record and a.record["physics"] == "none"
    assert md.play("matador", seats="greedy,random", seed=1).record["player_kinds"] == ["greedy", "random"]
    assert md.play("vingt", 2, seed=1).winners is not None
    for bad, said in ((dict(seats=["greedy"], player="greedy"), "not both"), (dict(seats=["me", "greedy"]), "md.game"),
                      (dict(players=3, seats=["greedy", "greedy"]), "one per player")):
        with pytest.raises(md.InputError, match=said):
            md.play("traditional", **bad)


def test_md_play_and_magdomino_play_share_one_default_physics(monkeypatch):
    made = []
    monkeypatch.setattr("magdomino.faces.api.make_adjudicator", lambda physics, preset, magnets: made.append(physics) or None)
    options = {}
    api.game_physics("defi", None, "toy", True, options)
    api.game_physics("traditional", None, "toy", True, {})
    assert made == ["dynamics"] and options == {"max_placements": 300}


def test_a_short_pybullet_game_move_by_move():
    """The one PyBullet-judged smoke test: two moves of a Défi game, each placement judged."""
    g = md.game("defi", seats=["me", "greedy"], physics="pybullet", seed=1, max_placements=6)
    for _ in range(2):
        if not g.over:
            happened = g.play(0)
    assert happened.verdicts
    assert g.record["physics"] == "dynamics"  # "pybullet" is its deprecated spelling
    g.close()
