"""`magdomino presets` from the command line."""

import json

from magdomino.model.presets import preset_from_dict, preset_names


def test_preset_json_round_trips_through_the_schema(cli):
    out = cli("presets", "standard")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["collapse"]["max_shift_mm"] == 5 and data["collapse"]["max_tilt_deg"] == 10
    again = preset_from_dict(data)
    assert again.to_dict() == data


def test_listing(cli):
    out = cli("presets")
    assert out.returncode == 0
    assert [line.split()[0] for line in out.stdout.splitlines()] == preset_names()


def test_bad_files_from_the_command_line_exit_2_with_one_line(tmp_path, cli):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[tile]\nsize_mm = [48, 24, 8]\nmass_g = -3\n')
    out = cli("presets", bad)
    assert out.returncode == 2
    assert out.stderr.strip() == f"magdomino: {bad}: tile.mass_g: expected a number in (0, 1000], got -3"
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    out = cli("presets", binary)
    assert out.returncode == 2 and out.stderr.strip() == f"magdomino: {binary}: expected UTF-8 text (a TOML file); this is not text"
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    out = cli("presets", broken)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    for args in (("presets", "nosuch"), ("presets", tmp_path / "missing.toml"), ("frobnicate",)):
        out = cli(*args)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
