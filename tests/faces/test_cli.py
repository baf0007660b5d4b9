"""The command line's refusals: one line, exit 2, before any long work."""

import json

import pytest
from conftest import ROOT

SC = ROOT / "scenarios"
STATICS = SC / "odds_statics.toml"


def _one_line_exit_2(r, *says):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    for text in says:
        assert text in r.stderr, r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["odds", STATICS, "--trials", "1000", "--json"],
        ["odds", STATICS, "--trials", "1000", "--plot"],
        ["sweep", STATICS, "--trials", "1000", "--param", "pos_sigma_mm", "--values", "0", "1", "--json"],
        ["simulate", STATICS, "--json"],
        ["simulate", STATICS, "--gif"],
        ["play", "--rule", "defi", "--players", "2", "--json"],
    ],
)
def test_an_output_that_cannot_be_written_is_refused_up_front(cli, args, tmp_path):
    flag = args[-1]
    r = cli(*args, tmp_path / "nonexistent" / "x.out")
    _one_line_exit_2(r, f"command line: {flag}: expected a file in an existing directory")
    assert r.stdout == ""  # nothing ran
    r = cli(*args, tmp_path)
    _one_line_exit_2(r, f"{flag}: expected a file to write, got the directory")


def test_resume_needs_out_dir(cli):
    _one_line_exit_2(cli("odds", STATICS, "--trials", "2", "--resume"), "--resume: expected --out-dir with it")
    _one_line_exit_2(cli("sweep", STATICS, "--trials", "2", "--param", "pos_sigma_mm", "--values", "1", "--resume"), "--resume")


def test_simulate_gif_refuses_a_structure_that_collapsed(cli, tmp_path):
    scenario = tmp_path / "fallen.toml"
    scenario.write_text(
        'preset = "plain"\n[[structure]]\npips = [1, 1]\npos_mm = [0, 0]\n[[structure]]\npips = [2, 2]\npos_mm = [38, 0]\n'
        '[[what_if]]\npips = [1, 3]\npos_mm = [0, 40]\n'
    )
    r = cli("simulate", scenario, "--gif", tmp_path / "f.gif", "--json", tmp_path / "f.json")
    _one_line_exit_2(r, "fallen.toml: structure: expected a structure that settles before a what-if is animated (--gif); it collapsed")
    assert "COLLAPSED" in r.stdout and json.loads((tmp_path / "f.json").read_text())["structure"]["collapsed"]
    assert not list(tmp_path.glob("f*.gif"))


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--max-placements", "0"], "command line: --max-placements: expected a whole number >= 1, got 0"),
        (["--deals", "0"], "command line: --deals: expected a whole number >= 1, got 0"),
        (["--seed", "-1"], "command line: --seed:"),
        (["--variant", "extremities"], "command line: --variant: 'extremities' is a variant of the defi rule"),
    ],
)
def test_play_names_its_flags(cli, extra, says):
    _one_line_exit_2(cli("play", "--rule", "traditional", "--players", "2", *extra), says)


def test_play_game_errors_name_the_flag(monkeypatch, capsys):
    from magdomino.errors import InputError
    from magdomino.faces import cli_games
    from magdomino.faces.cli import main

    def refuse(*a, **k):
        raise InputError("command line", "deals", "a positive number of deals, got 0")

    monkeypatch.setattr(cli_games, "play_game", refuse)
    assert main(["play", "--rule", "defi", "--players", "2", "--physics", "none"]) == 2
    assert capsys.readouterr().err == "magdomino: command line: --deals: a positive number of deals, got 0\n"


def test_play_max_placements_given_or_the_default(cli, tmp_path):
    out = tmp_path / "g.json"
    for extra, limit in ((["--max-placements", "3"], 3), ([], None)):  # no limit by default without physics
        r = cli("play", "--rule", "defi", "--players", "2", "--physics", "none", "--json", out, *extra)
        assert r.returncode == 0, r.stderr
        assert json.loads(out.read_text())["max_placements"] == limit


def test_play_tower_rules_default_to_physics_and_the_guard_abandons(cli, tmp_path):
    out = tmp_path / "g.json"
    # défi without --physics, --preset or --player: PyBullet judges the default toy, careful
    # seats play; 2 placements (the start and one more) and the runaway guard stops the deal:
    # abandoned, no winner, nothing scored
    r = cli("play", "--rule", "defi", "--players", "2", "--max-placements", "2", "--json", out)
    assert r.returncode == 0, r.stderr
    record = json.loads(out.read_text())
    assert record["physics"] == "dynamics" and record["preset"] == "toy"
    assert record["player_kinds"] == ["careful", "careful"]
    assert "preset toy; players careful, careful" in r.stdout.splitlines()[0]
    assert record["deals"] == [{"deal": 0, "winners": [], "scores": [0, 0], "reason": "abandoned"}]
    assert record["winners"] == [] and record["abandoned"] == 1
    assert "ABANDONED by the runaway guard" in r.stdout and "not scored" in r.stdout
    # the flat game needs no physics
    r = cli("play", "--rule", "traditional", "--players", "2", "--json", out)
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["physics"] == "none"
    assert json.loads(out.read_text())["player_kinds"] == ["random", "random"]  # no physics: random seats


def test_play_orientation_flags(cli, tmp_path):
    out = tmp_path / "g.json"
    for extra, expected in (([], (False, True)), (["--parallel-only"], (True, True)),
                            (["--no-second-parallel"], (False, False)), (["--perpendicular"], (False, False))):
        r = cli("play", "--rule", "quinconce", "--players", "3", "--physics", "none", "--json", out, *extra)
        assert r.returncode == 0, r.stderr
        record = json.loads(out.read_text())
        assert (record["parallel_only"], record["second_parallel"]) == expected


def test_every_command_has_help():
    """``magdomino COMMAND --help`` prints its usage for every command (argparse formats help
    strings with %: a bare percent sign would end in a traceback)."""
    import contextlib
    import io

    from magdomino.faces.cli import build_parser, main

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"simulate", "odds", "play", "tournament", "replay", "report", "whatif"} <= set(sub.choices)
    for name in [None, *sub.choices]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
            main(["--help"] if name is None else [name, "--help"])
        assert stop.value.code == 0 and "usage: magdomino" in out.getvalue(), name
