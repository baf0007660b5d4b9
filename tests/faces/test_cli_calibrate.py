"""``magdomino calibrate`` and ``md.calibrate``: the example's run, the preset it
writes, and bad measurements refused in one line with exit status 2."""

import json

import pytest
from conftest import ROOT

import magdomino as md
from magdomino.faces.cli import main

EXAMPLE = ROOT / "docs" / "calibration" / "example.toml"
GOOD = """name = "t"
magnet_layout = "standard"
[tile]
size_mm = [48, 24, 8]
mass_g = 10
[[slide]]
on = "tile"
angle_deg = [25, 26]
[[overhang]]
overhang_mm = [27.5, 27.6]
"""


def test_calibrate_the_example(tmp_path, cli):
    out, doc = tmp_path / "mine.toml", tmp_path / "cal.json"
    run = cli("calibrate", EXAMPLE.relative_to(ROOT), "--out", out, "--json", doc)
    assert run.returncode == 0, run.stderr
    assert f"wrote {out}" in run.stdout
    # The how-to page shows this run's table as it is (the same seed, the same draws).
    page = (ROOT / "docs" / "howto" / "calibrate.md").read_text()
    shown = page.split("$ magdomino calibrate docs/calibration/example.toml --out my_set.toml\n", 1)[1].split("\nwrote ", 1)[0]
    assert run.stdout.split("\nwrote ", 1)[0] == shown
    data = json.loads(doc.read_text())
    assert {p["name"] for p in data["parameters"]} == {"table friction", "tile friction", "polarization", "restitution"}
    assert all(row["inside"] for row in data["rows"]) and data["conflicts"] == []
    preset = md.preset(str(out))  # loadable wherever a preset is
    assert preset.tile.table_friction == pytest.approx(data["preset"]["tile"]["table_friction"])


def test_md_calibrate_from_a_dict(tmp_path):
    import tomllib

    result = md.calibrate(tomllib.loads(GOOD), draws=50)
    assert isinstance(result, md.Calibration)
    assert [r["measurement"] for r in result.to_rows()] == ["slide[0]", "overhang[0]"]
    assert "<table>" in result._repr_html_() and "polarization" in repr(result)
    assert md.preset(str(result.save(tmp_path / "p.toml"))).tile.table_friction is None  # no table slide: the tiles' friction


BAD = [
    (GOOD.replace("mass_g = 10", "mass_g = -10"), "tile.mass_g: expected a number in (0, 1000], got -10"),
    (GOOD.replace("mass_g = 10\n", ""), "tile.mass_g: missing required key"),
    (GOOD.replace("mass_g = 10", "mass_g = []"), "tile.mass_g: expected at least one reading"),
    (GOOD.replace("[27.5, 27.6]", "[27.5, 48.5]"), "overhang[0].overhang_mm: expected an overhang shorter than the tile's length (48 mm)"),
    (GOOD.replace("[25, 26]", "[25, 90]"), "slide[0].angle_deg[1]: expected a value below 90"),
    (GOOD.replace('"standard"', '"nonesuch"'), "magnet_layout: unknown preset 'nonesuch'"),
    (GOOD.replace('"standard"', '"plain"'), "magnet_layout: expected a preset with magnets"),
    (GOOD.replace("[27.5, 27.6]", '"27.5 mm"'), "overhang[0].overhang_mm: expected a plain number (the unit is in the key's name"),
    (GOOD.replace("mass_g = 10", "mass_g = 10\ncolour = 3"), "tile.colour: unknown key"),
    (GOOD + "[uncertainty]\nruler = 1\n", "uncertainty.ruler: unknown key"),
    (GOOD.replace('on = "tile"', 'on = "floor"'), "slide[0].on: expected one of 'table', 'tile'"),
    (GOOD.replace("size_mm = [48, 24, 8]", "size_mm = [48, 24]"), "tile.size_mm: expected a list of 3"),
    (GOOD + "nonsense", "not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_bad_measurements_one_line_exit_2(tmp_path, capsys, text, message):
    path = tmp_path / "m.toml"
    path.write_text(text)
    assert main(["calibrate", str(path), "--out", str(tmp_path / "o.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"magdomino: {path}: ") and message in err, err
    assert not (tmp_path / "o.toml").exists()


def test_bad_output_refused_before_any_work(tmp_path, capsys):
    assert main(["calibrate", str(EXAMPLE), "--out", str(tmp_path / "o.txt")]) == 2
    assert "--out: expected a .toml file" in capsys.readouterr().err
