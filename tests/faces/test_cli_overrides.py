"""Preset overrides on the command line (``--magnets-scale``, ``--preset-set KEY=VALUE``): each
command that loads a preset takes them, the verdicts change as the physics says they should,
the JSON records them, and a bad key or value is one line naming the flag and the key (exit 2)."""

import json

import pytest

from magdomino.faces.cli import main

CANTILEVER = "scenarios/cantilever.toml"
"""0-1 held 2.5 mm beyond 0-0's edge by its magnets alone: the statics says it stands at the
standard strength (what-if 1, a tile laid on it, tips it), falls at 0.5 x (16 deg short), and
at 0.7 x stands with a margin of 0.6 deg while what-if 1 falls by 7.6 deg."""


def _run(capsys, *args):
    status = main([str(a) for a in args])
    out = capsys.readouterr()
    return status, out.out, out.err


def _json(path):
    return json.loads(path.read_text())


def test_simulate_takes_a_magnet_scale_and_a_weaker_magnet_drops_the_cantilever(capsys, tmp_path):
    base = ["simulate", CANTILEVER, "--engine", "statics"]
    assert _run(capsys, *base, "--json", tmp_path / "one.json")[0] == 0
    assert _run(capsys, *base, "--magnets-scale", "0.5", "--json", tmp_path / "half.json")[0] == 0
    one, half = _json(tmp_path / "one.json"), _json(tmp_path / "half.json")
    assert one["structure"]["collapsed"] is False and half["structure"]["collapsed"] is True
    assert "preset_overrides" not in one
    assert half["preset_overrides"] == {"magnets_scale": 0.5} and half["preset_description"].endswith("[overridden: magnets_scale = 0.5]")


def test_simulate_takes_a_polarisation_set_on_every_magnet(capsys, tmp_path):
    # 0.6 T is the standard's J: setting it changes nothing; 0.3 T is the 0.5 x scale above.
    base = ["simulate", CANTILEVER, "--engine", "statics", "--json"]
    assert _run(capsys, *base, tmp_path / "same.json", "--preset-set", "tile.magnets.polarization_T=0.6")[0] == 0
    assert _run(capsys, *base, tmp_path / "weak.json", "--preset-set", "tile.magnets.polarization_T=0.3")[0] == 0
    assert _json(tmp_path / "same.json")["structure"]["collapsed"] is False
    weak = _json(tmp_path / "weak.json")
    assert weak["structure"]["collapsed"] is True and weak["preset_overrides"] == {"tile.magnets.polarization_T": 0.3}


def test_odds_and_sweep_take_overrides_and_a_weaker_magnet_tips_the_tile_laid_on_the_cantilever(capsys, tmp_path):
    base = ["odds", CANTILEVER, "--engine", "statics", "--trials", "20", "--what-if", "1", "--jobs", "1",
            "--pos-sigma-mm", "0", "--yaw-sigma-deg", "0", "--polarization-rel-sigma", "0", "--friction-rel-sigma", "0",
            "--mass-rel-sigma", "0", "--json"]
    assert _run(capsys, *base, tmp_path / "one.json")[0] == 0
    assert _run(capsys, *base, tmp_path / "weak.json", "--magnets-scale", "0.7")[0] == 0
    one, weak = _json(tmp_path / "one.json"), _json(tmp_path / "weak.json")
    # no noise: every trial is the nominal placement (stands at 1.0 x, falls at 0.7 x)
    assert one["results"][0]["collapses"] == 0 and weak["results"][0]["collapses"] == 20
    assert weak["preset_overrides"] == {"magnets_scale": 0.7}
    sweep = ["sweep", *base[1:-1], "--param", "pos_sigma_mm", "--values", "0", "--json"]
    assert _run(capsys, *sweep, tmp_path / "sweep.json", "--magnets-scale", "0.7")[0] == 0
    swept = _json(tmp_path / "sweep.json")
    assert swept["results"][0]["results"][0]["collapses"] == 20 and swept["preset_overrides"] == {"magnets_scale": 0.7}


def test_whatif_takes_overrides_and_the_screens_margins_follow_the_magnets(capsys, tmp_path):
    base = ["whatif", CANTILEVER, "--tile", "0,5", "--trials", "1", "--screen", "1", "--jobs", "1", "--rule", "defi", "--json"]
    assert _run(capsys, *base, tmp_path / "one.json")[0] == 0
    assert _run(capsys, *base, tmp_path / "strong.json", "--magnets-scale", "1.3")[0] == 0

    def margins(doc):
        return {c["placement"]["description"]: c["statics"]["margin"] for c in doc["candidates"] if c.get("statics")}

    one, strong = _json(tmp_path / "one.json"), _json(tmp_path / "strong.json")
    assert strong["preset_overrides"] == {"magnets_scale": 1.3}
    common = margins(one).keys() & margins(strong).keys()
    assert common and any(margins(strong)[k] != margins(one)[k] for k in common)


def test_play_and_tournament_take_overrides_and_stronger_magnets_mean_fewer_collapses(capsys, tmp_path):
    play = ["play", "--rule", "defi", "--players", "2", "--physics", "statics", "--max-placements", "60", "--seed", "0",
            "--player", "random", "--preset", "standard", "--json"]
    assert _run(capsys, *play, tmp_path / "one.json")[0] == 0
    assert _run(capsys, *play, tmp_path / "strong.json", "--magnets-scale", "3")[0] == 0
    one, strong = _json(tmp_path / "one.json"), _json(tmp_path / "strong.json")
    collapses = [sum(e["type"] == "collapse" for e in d["events"]) for d in (one, strong)]
    assert collapses[1] < collapses[0], collapses
    assert strong["preset_overrides"] == {"magnets_scale": 3} and "preset_overrides" not in one
    tour = ["tournament", "--rule", "defi", "--seats", "random,random", "--deals", "2", "--physics", "statics",
            "--max-placements", "60", "--jobs", "1", "--preset", "standard", "--json"]
    assert _run(capsys, *tour, tmp_path / "t1.json")[0] == 0
    assert _run(capsys, *tour, tmp_path / "t3.json", "--magnets-scale", "3", "--preset-set", "tile.friction=0.6")[0] == 0
    t1, t3 = _json(tmp_path / "t1.json"), _json(tmp_path / "t3.json")
    assert t3["collapses"]["total"] < t1["collapses"]["total"]
    assert t1["preset_overrides"] == {} and t3["preset_overrides"] == {"tile.friction": 0.6, "magnets_scale": 3}
    assert "tile.friction = 0.6, magnets_scale = 3" in t3["preset_description"]


COMMANDS = {
    "simulate": ["simulate", CANTILEVER, "--engine", "statics"],
    "odds": ["odds", CANTILEVER, "--engine", "statics", "--trials", "2"],
    "sweep": ["sweep", CANTILEVER, "--engine", "statics", "--trials", "2", "--param", "pos_sigma_mm", "--values", "1"],
    "whatif": ["whatif", CANTILEVER, "--tile", "0,5", "--trials", "1"],
    "play": ["play", "--rule", "defi", "--players", "2", "--physics", "statics"],
    "tournament": ["tournament", "--rule", "defi", "--seats", "random,random", "--deals", "2", "--physics", "statics"],
    "study": ["study", "--rule", "defi", "--seats", "random,random", "--deals", "2", "--physics", "statics",
              "--vary", "tile.mass_g=10,12"],
}
BAD = [
    (["--preset-set", "tile.wobble=1"], "--preset-set tile.wobble", "expected a preset key"),
    (["--preset-set", "tile.friction=-1"], "--preset-set tile.friction", "[0, 5], got -1"),
    (["--preset-set", "tile.magnets.polarization_T=9"], "--preset-set tile.magnets.polarization_T", "2"),
    (["--preset-set", "tile.friction=slippery"], "--preset-set tile.friction", "a TOML value"),
    (["--preset-set", "tile.friction"], "--preset-set", "KEY=VALUE"),
    (["--preset-set", "tile.friction=0.3", "--preset-set", "tile.friction=0.4"], "--preset-set tile.friction", "once"),
    (["--magnets-scale", "strong"], "--magnets-scale", "a TOML value"),
    (["--magnets-scale", "-1"], "--magnets-scale", "[0, 10], got -1"),
]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("flags, key, says", BAD)
def test_a_bad_override_is_one_line_naming_the_flag_and_key_exit_2(command, flags, key, says, capsys, tmp_path):
    status, out, err = _run(capsys, *COMMANDS[command], *flags, "--json", tmp_path / "never.json")
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"magdomino: command line: {key}: ") and says in lines[0], lines[0]
    assert not (tmp_path / "never.json").exists() and "Traceback" not in err


def test_overrides_without_physics_or_on_a_preset_without_magnets_are_refused(capsys):
    status, _, err = _run(capsys, "play", "--rule", "defi", "--players", "2", "--physics", "none", "--magnets-scale", "2")
    assert status == 2 and "--magnets-scale" in err and "physics" in err
    status, _, err = _run(capsys, "play", "--rule", "vingt", "--players", "2", "--preset-set", "tile.friction=0.3")
    assert status == 2 and "--preset-set" in err and "vingt" in err
    status, _, err = _run(capsys, "simulate", "scenarios/odds_statics.toml", "--engine", "statics", "--magnets-scale", "2")
    assert status == 2 and err.strip() == "magdomino: command line: --magnets-scale: expected a preset with magnets (plain has none)"


def test_the_tournament_summary_says_its_overrides(capsys):
    status, out, _ = _run(capsys, "tournament", "--rule", "defi", "--seats", "random,random", "--deals", "1", "--physics",
                          "statics", "--max-placements", "10", "--jobs", "1", "--magnets-scale", "1.5")
    assert status == 0 and "(preset toy with magnets_scale = 1.5)" in out.splitlines()[0]


def test_what_calibrate_prints_works_as_printed_on_every_command_that_reads_a_scenario(capsys, tmp_path, monkeypatch):
    import re
    import shutil

    from conftest import ROOT

    monkeypatch.chdir(tmp_path)
    (tmp_path / "nc").mkdir()
    (tmp_path / "m.toml").write_text('name = "our set"\nmagnet_layout = "standard"\n[tile]\nsize_mm = [48, 24, 8]\nmass_g = 10\n'
                                     '[[slide]]\non = "tile"\nangle_deg = [25, 26]\n[[overhang]]\noverhang_mm = [27.5, 27.6]\n')
    status, out, err = _run(capsys, "calibrate", "m.toml", "--out", "nc/my_set.toml", "--draws", "10")
    assert status == 0, err
    flag = re.search(r"--preset (\S+)\)", out).group(1)
    in_file = re.search(r'preset = "([^"]+)"', out).group(1)
    assert flag == in_file == "nc/my_set.toml"
    scenario = ROOT / CANTILEVER
    runs = {
        "simulate": ["simulate", scenario, "--engine", "statics"],
        "odds": ["odds", scenario, "--trials", "4", "--engine", "statics", "--what-if", "0"],
        "sweep": ["sweep", scenario, "--trials", "4", "--engine", "statics", "--what-if", "0", "--param", "pos_sigma_mm", "--values", "1"],
        "whatif": ["whatif", scenario, "--tile", "1,1", "--trials", "2", "--engine", "statics"],
    }
    for command, args in runs.items():
        status, out, err = _run(capsys, *args, "--preset", flag, "--json", tmp_path / f"{command}.json")
        assert status == 0, (command, err)
        assert "preset our set (--preset nc/my_set.toml, instead of the scenario's)" in out, (command, out)
        doc = _json(tmp_path / f"{command}.json")
        assert doc["preset"] == "our set" and doc["preset_file"] == str(tmp_path / "nc" / "my_set.toml"), command
        assert doc["scenario_file"] == str(scenario.resolve())
    status, out, err = _run(capsys, "render", scenario, "--out", tmp_path / "c.png", "--size", "80x64", "--preset", flag)
    assert status == 0 and "--preset nc/my_set.toml" in out, err
    # and as printed in a scenario file
    copy = tmp_path / "mine.toml"
    shutil.copy(scenario, copy)
    copy.write_text(copy.read_text().replace('preset = "standard"', f'preset = "{in_file}"'))
    status, out, err = _run(capsys, "simulate", copy, "--engine", "statics")
    assert status == 0 and "preset our set," in out, err


def test_a_preset_option_that_names_no_preset_is_one_line(capsys):
    status, out, err = _run(capsys, "simulate", CANTILEVER, "--preset", "nowhere/my_set.toml")
    assert status == 2 and err.strip() == "magdomino: command line: --preset: no such preset file: nowhere/my_set.toml"
