"""One list of physics names in every face that plays a game: none, dynamics, statics (and
pybullet, dynamics's old name); the hybrid, which judges odds trials, is refused in one line."""

import pytest

import magdomino as md
from magdomino.errors import InputError
from magdomino.faces.cli import main
from magdomino.games.tournament import physics_names


def test_the_games_physics_names():
    assert physics_names() == ("none", "dynamics", "statics", "pybullet")
    assert physics_names(deprecated=False) == ("none", "dynamics", "statics")


@pytest.mark.parametrize("argv", [
    ["play", "--rule", "defi", "--players", "2", "--seed", "1", "--physics", "hybrid", "--json", "-"],
    ["play", "--rule", "defi", "--seats", "human,careful", "--physics", "hybrid"],
    ["tournament", "--rule", "defi", "--seats", "careful,random", "--deals", "1", "--physics", "hybrid"],
    ["study", "--rule", "defi", "--seats", "careful,random", "--deals", "1", "--vary", "magnets_scale=1",
     "--physics", "hybrid"],
])
def test_the_command_line_refuses_hybrid_in_one_line(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--physics" in captured.err and "'hybrid'" in captured.err and "'statics'" in captured.err
    assert captured.err.count("\n") == 1


@pytest.mark.parametrize("make", [
    lambda: md.game("defi", physics="hybrid"),
    lambda: md.play("defi", 2, physics="hybrid"),
])
def test_the_python_face_refuses_hybrid_naming_the_values(make):
    with pytest.raises(InputError, match=r"physics: one of none, dynamics, statics \(pybullet: dynamics's old name\); "
                                         r"hybrid judges odds trials, not games; got 'hybrid'"):
        make()


def test_the_old_name_still_plays_as_dynamics():
    g = md.game("defi", ["me", "careful"], physics="pybullet", seed=1)
    try:
        assert g.record["physics"] == "dynamics"
    finally:
        g.close()
