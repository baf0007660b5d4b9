"""The Python face (``import magdomino as md``): built and checked like a file, in-process,
showing itself in a notebook."""

import subprocess
import sys
import textwrap

import pytest

import magdomino as md
from magdomino.errors import InputError

TOWER = ["6-6 at (0, 0) mm", "6-3 on #0 half 1", "3-3 on #1 half 1, back"]


def test_a_construction_is_checked_as_a_file_is_one_line_naming_the_argument():
    tower = md.Construction(TOWER)
    # errors about a placement name what was written: the text, the part of it, tiles as #N
    with pytest.raises(InputError, match=r"arguments: structure\[3\]\.place: '7-7 on #2 half 1': the tile: "
                                         r"expected a double-six tile .* got 7-7$"):
        tower.add("7-7 on #2 half 1")
    with pytest.raises(InputError, match=r"structure\[3\]\.place: '3-1 on #5 half 1': the tile below: "
                                         r"expected an earlier tile, #0 to #2, got #5$"):
        tower.add("3-1 on #5 half 1")
    with pytest.raises(InputError, match=r"structure\[3\]\.place: '6-6 on #2 half 0': the tile: "
                                         r"expected each tile once; 6-6 is already #0$"):
        tower.add("6-6 on #2 half 0")
    with pytest.raises(InputError, match=r"structure\[3\]\.place: '3-1 on #2 half 1, turned 400 deg': the turn: "
                                         r"expected an angle in \[-360, 360\] deg, got 400$"):
        tower.add("3-1 on #2 half 1, turned 400 deg")
    with pytest.raises(InputError, match=r"structure\[3\]\.place: expected a placement like"):
        tower.add("3-1 somewhere")
    assert len(tower.tiles) == 3  # nothing refused was kept
    with pytest.raises(InputError, match=r"what_if\[0\]\.place: '5-4 on #2 half 1': the tile below: expected a tile with a half of 3 pips "
                                         r"to lie on #2's half 1; 5-4 has none$"):
        tower.simulate("5-4 on #2 half 1")
    with pytest.raises(InputError, match="tiles: expected at least one tile"):
        md.Construction().simulate()
    with pytest.raises(InputError, match="engine: expected one of dynamics, statics"):
        tower.simulate(engine="mujoco")
    assert str(InputError("a", "b", "c")).count("\n") == 0


def test_simulate_answers_does_it_stand_and_what_if(tmp_path):
    tower = md.Construction(TOWER)
    result = tower.simulate("3-1 on #2 half 1", "6-4 on #0 half 0", engine="statics")
    assert result.stands
    rows = result.to_rows()
    assert [r["placement"] for r in rows] == ["3 tiles", "3-1 on #2 (3-3) half 1", "6-4 on #0 (6-6) half 0"]
    assert rows[0]["engine"] == "statics" and rows[1]["margin (deg)"] > 0
    text = repr(result)
    assert "what-if 0" in text and "3-1 on #2 (3-3) half 1" in text
    page = result._repr_html_()
    assert page.count("<img src=\"data:image/png;base64,") == 1 and "<table>" in page and "3-1 on #2 (3-3) half 1" in page


def test_results_turn_into_rows_and_a_dataframe_when_pandas_is_there():
    odds = md.Construction(TOWER).odds("3-1 on #2 half 1", trials=30, engine="statics", progress=False)
    (row,) = odds.to_rows()
    assert row["trials"] == 30 and row["placement"] == "3-1 on #2 (3-3) half 1" and 0 <= row["p(collapse)"] <= 1
    pandas = pytest.importorskip("pandas")
    assert isinstance(odds.to_dataframe(), pandas.DataFrame)


def test_a_plain_script_runs_odds_and_rankings_without_a_main_guard(tmp_path):
    # In-process unless asked: no worker re-imports the script (it would stop with a
    # message about the __main__ guard).
    script = tmp_path / "plain.py"
    script.write_text(textwrap.dedent("""
        import magdomino as md
        tower = md.Construction(["6-6 at (0, 0) mm", "6-3 on #0 half 1"])
        print(tower.odds("3-1 on #1 half 1", trials=3, progress=False).to_rows()[0]["trials"])
        print(len(tower.rank("3-1", trials=2, rule="defi", progress=False).to_rows()) > 0)
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3", "True"]


def test_save_and_load_round_trip(tmp_path):
    tower = md.Construction(TOWER, seed=3, name="mine", noise={"pos_sigma_mm": 0.5})
    path = tower.save(tmp_path / "mine.toml", what_ifs=["3-1 on #2 half 1, across left"])
    again = md.load(path)
    assert again.tiles == [tower.scenario.describe(pl) for pl in tower.scenario.structure]
    assert again.what_ifs == ["3-1 on #2 (3-3) half 1, across left"]
    assert (again.seed, again.name, again.noise) == (3, "mine", {"pos_sigma_mm": 0.5})
    assert again.scenario.structure == tower.scenario.structure


def test_presets_with_overrides_are_checked_like_a_file():
    base = md.preset("standard")
    strong = md.preset("standard", magnets_scale=1.5)
    assert [m.polarization for m in strong.tile.magnets] == pytest.approx([1.5 * m.polarization for m in base.tile.magnets])
    slippery = md.preset("standard", **{"tile.friction": 0.3, "tile.magnets.polarization_T": 1.0})
    assert slippery.tile.friction == 0.3 and {m.polarization for m in slippery.tile.magnets} == {1.0}
    with pytest.raises(InputError, match=r"tile\.friction"):
        md.preset("standard", **{"tile.friction": -1})
    with pytest.raises(InputError, match=r"tile\.wobble"):
        md.preset("standard", **{"tile.wobble": 1})
    tower = md.Construction(TOWER[:2], preset=strong)
    assert tower.scenario.preset.tile.magnets[0].polarization == strong.tile.magnets[0].polarization
    assert "standard" in md.presets() and "statics" in md.engines()


def test_a_game_from_python():
    record = md.play("defi", 2, seed=1, physics="statics", player="random", max_placements=12)
    assert record.to_dict()["rule"] == "defi" and "winners" in repr(record).lower() or record.winners is not None
    with pytest.raises(InputError, match="physics: one of none, dynamics, statics"):
        md.play("defi", 2, physics="lego")


def test_import_magdomino_stays_light():
    code = "import sys, magdomino; heavy = [m for m in ('numpy', 'pybullet', 'scipy', 'matplotlib') if m in sys.modules]; print(heavy)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "[]", r.stdout + r.stderr


def test_the_3d_view_of_a_construction_and_of_a_what_if():
    pytest.importorskip("plotly")
    tower = md.Construction(TOWER)
    fig = tower.view3d()
    tiles = [t for t in fig.data if t.type == "mesh3d" and t.name != "table"]
    assert [t.name for t in tiles] == ["#0 6-6", "#1 6-3", "#2 3-3"]
    outcome = tower.view3d("3-1 on #2 half 1")
    assert any("(placed)" in (t.hovertext or "") or "(placed)" in (t.name or "") for t in outcome.data if t.type == "mesh3d")


@pytest.mark.parametrize("call, says", [
    (lambda: md.Construction(42), "tiles: expected placements as text"),
    (lambda: md.Construction([42]), "tiles: expected placements as text"),
    (lambda: md.Construction(TOWER, noise="x"), "noise: expected a table"),
    (lambda: md.Construction(TOWER).odds("3-1 on #2 half 1", trials=2, bogus=1), "bogus: unknown setting"),
    (lambda: md.Construction(TOWER).simulate(engine=[1]), "engine: expected one of"),
    (lambda: md.Construction(TOWER).save("/nonexistent/dir/x.toml"), "path: cannot write /nonexistent/dir/x.toml"),
    (lambda: md.preset("plain", magnets_scale=2), "magnets_scale: expected a preset with magnets"),
])
def test_bad_calls_are_one_line_never_a_traceback(call, says):
    with pytest.raises(InputError, match=says):
        call()


def test_a_preset_object_is_what_the_checks_use():
    big = md.preset("standard", **{"tile.size_mm": [96, 48, 16]})
    tower = md.Construction(["6-6 at (0, 0) mm"], preset=big)
    with pytest.raises(InputError, match=r"structure\[1\]\.pos_mm"):  # inside the big tile, not the standard one
        tower.add("3-1 at (60, 0, 8) mm")


def test_saving_keeps_what_was_loaded_and_what_ifs_belong_to_each_construction(tmp_path):
    mine = md.preset("standard", magnets_scale=1.1)
    path = md.Construction(TOWER, preset=mine).save(tmp_path / "a.toml", what_ifs=["3-1 on #2 half 1"])
    loaded = md.load(path)
    assert loaded.scenario.preset.tile.magnets[0].polarization == pytest.approx(mine.tile.magnets[0].polarization)
    again = loaded.save(tmp_path / "b.toml")  # the loaded what-ifs come along
    assert md.load(again).what_ifs == loaded.what_ifs == ["3-1 on #2 (3-3) half 1"]
    assert md.Construction(TOWER).what_ifs == [] and md.Construction(TOWER).what_ifs is not md.Construction(TOWER).what_ifs


def test_simulate_takes_a_list_of_what_ifs_too():
    tower = md.Construction(TOWER)
    assert len(tower.simulate(["3-1 on #2 half 1", "3-1 on #2 half 0"], engine="statics").verdicts) == 3


def test_magnets_scale_applies_to_the_polarisation_the_other_keys_set_whatever_their_order():
    a = md.preset("standard", magnets_scale=2, **{"tile.magnets.polarization_T": 1.0})
    b = md.preset("standard", **{"tile.magnets.polarization_T": 1.0, "magnets_scale": 2})
    assert {m.polarization for m in a.tile.magnets} == {m.polarization for m in b.tile.magnets} == {2.0}
