"""What a newcomer met on a first use: the plot of a structure that fell
called it settled, skipped what-ifs said "no what-if", the legend hid tiles, a tile written
1-3 in a title and 3-1 in the rows, table columns out of line, and --tile's error giving a
file's syntax.

The figures are caught as ``simulate --plot`` writes them (``plots.save``), so the tests read
their titles, texts and legend the way matplotlib laid them out."""

import json

import pytest
from conftest import ROOT

from magdomino.faces import cli, plots
from magdomino.physics.verdict import Verdict

SC = ROOT / "scenarios"

FALLS = """name = "falls"
preset = "standard"
magnets = false
seed = 1

[[structure]]
pips = [0, 0]
pos_mm = [0, 0]

[[structure]]                 # its centre 10 mm past the edge of 0-0, no magnets: it tips
pips = [0, 1]
pos_mm = [34, 0]

[[what_if]]
pips = [1, 2]
on = { tile = 1, half = 1 }
"""


def _simulate(monkeypatch, capsys, tmp_path, scenario):
    """Run ``simulate SCENARIO --plot`` in this process; (its stdout, the figure it saved)."""
    figures = []
    save = plots.save

    def keep(fig, path, *args, **kwargs):
        figures.append(fig)
        return save(fig, path, *args, **kwargs)

    monkeypatch.setattr(plots, "save", keep)
    assert cli.main(["simulate", str(scenario), "--plot", str(tmp_path / "plot.png")]) == 0
    assert len(figures) == 1
    return capsys.readouterr().out, figures[0]


def _texts(fig) -> list[str]:
    """Every title and free text of a figure."""
    out = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    for ax in fig.axes:
        out += [ax.get_title()] + [t.get_text() for t in ax.texts]
    return out


@pytest.fixture
def falls(tmp_path):
    path = tmp_path / "falls.toml"
    path.write_text(FALLS)
    return path


def test_the_plot_of_a_structure_that_fell_is_not_called_settled(monkeypatch, capsys, tmp_path, falls):
    out, fig = _simulate(monkeypatch, capsys, tmp_path, falls)
    assert "structure" in out and "COLLAPSED" in out.splitlines()[1], out
    side = fig.axes[0].get_title()
    assert "settled" not in side and side == "structure as it fell, side view", _texts(fig)
    assert "collapsed" in fig._suptitle.get_text(), fig._suptitle.get_text()
    # a structure that stood is still called settled
    assert plots.structure_state({"collapsed": False, "settled": True}) == "settled structure"
    assert plots.structure_state({"collapsed": False, "settled": False, "reason": "time limit"}) == "structure at the time limit"


def test_what_ifs_skipped_say_why(monkeypatch, capsys, tmp_path, falls):
    out, fig = _simulate(monkeypatch, capsys, tmp_path, falls)
    row = [line for line in out.splitlines() if "what-if 0" in line][0]
    assert "not tried: the structure collapsed (" in row, row
    panels = [t.get_text() for ax in fig.axes for t in ax.texts if "what-if" in t.get_text()]
    assert panels and all("not tried: the structure collapsed" in t for t in panels), _texts(fig)
    assert not any(t == "no what-if" for t in _texts(fig))


def test_the_legend_covers_no_tile(monkeypatch, capsys, tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    _, fig = _simulate(monkeypatch, capsys, tmp_path, SC / "demo.toml")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    ours = [lg for lg in legends if "tile centre of mass" in [t.get_text() for t in lg.get_texts()]]
    assert len(ours) == 1
    box = ours[0].get_window_extent(renderer)
    side, top = fig.axes[:2]
    tiles = [p.get_window_extent(renderer) for ax in (side, top) for p in ax.patches]
    assert len(tiles) == 2 * 4  # the demo's four tiles in both views
    assert not any(box.overlaps(t) for t in tiles), (box, tiles)
    assert not box.overlaps(side.get_window_extent(renderer)) and not box.overlaps(top.get_window_extent(renderer))


def _whatif_document(tile, matched):
    return {
        "name": "t", "preset": "standard", "rule": "any", "tile": list(tile), "noise": {},
        "candidates": [
            {"placement": {"description": f"{m}-{tile[0] + tile[1] - m} on #0 ({m}-{m}) half 1, outward", "pips_matched": m},
             "ci95": [0.0, 0.5], "p_collapse": 0.0, "trials": 2, "errors": 0}
            for m in matched
        ],
    }


def test_the_whatif_plot_names_the_tile_as_its_rows_do(monkeypatch, tmp_path):
    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path, *a, **k: figures.append(fig) or path)
    plots.whatif_figure(_whatif_document((1, 3), [3, 3]), tmp_path / "w.png")
    title = figures[0].axes[0].get_title()
    assert "where to put 3-1?" in title, title  # the rows: "3-1 on #0 (3-3) half 1"
    assert plots.tile_as_ranked(_whatif_document((1, 3), [1, 3, 1])) == "1-3"  # most rows
    assert plots.tile_as_ranked({"tile": [1, 3], "candidates": []}) == "1-3"


def test_the_whatif_header_names_the_tile_as_its_rows_do(cli):
    r = cli("whatif", SC / "whatif_step.toml", "--tile", "4,2", "--rule", "defi", "--parallel-only", "--trials", "1", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    rows = [line.split(". ", 1)[1] for line in r.stdout.splitlines() if line.strip()[:3] in ("1. ", "2. ")]
    assert rows and all(row.startswith("2-4 ") for row in rows), rows
    assert "  tile 2-4, rule defi" in r.stdout, r.stdout


def _verdict(reason, collapsed=True, culprit=3):
    return Verdict(collapsed=collapsed, reason=reason, settled=not collapsed, max_shift_mm=1.0, max_tilt_deg=12.0,
                   sim_time_s=0.1, wall_time_s=0.01, culprit=culprit if collapsed else None)


def test_simulate_table_columns_line_up(monkeypatch, capsys, tmp_path):
    """Descriptions and verdicts of different lengths: the verdict column and the columns
    after it start at the same character on every row."""
    from magdomino.studies.scenario import load_scenario
    from magdomino.studies.simulation import SimulationResult

    scenario = load_scenario(SC / "slide_beneath.toml")  # descriptions of 33 and 46 characters
    verdicts = [_verdict("stood", False), _verdict("placed tile fell", culprit=12)]
    result = SimulationResult(scenario, _verdict("stood", False), verdicts, (None, None))
    monkeypatch.setattr(cli, "run_simulate", lambda sc, args: (result, "engine dynamics"))
    assert cli.main(["simulate", str(SC / "slide_beneath.toml")]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  structure") or "what-if" in line]
    assert len(rows) == 3
    assert len({row.index("stood") if "stood" in row else row.index("COLLAPSED") for row in rows}) == 1, rows
    assert len({row.index("max shift") for row in rows}) == 1, rows


def test_odds_table_columns_line_up(cli, tmp_path):
    r = cli("odds", SC / "slide_beneath.toml", "--trials", "2", "--jobs", "1", "--engine", "statics", "--json", tmp_path / "o.json")
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if " p = " in line]
    labels = [p["placement"] for p in json.loads((tmp_path / "o.json").read_text())["results"] if p["placement"]]
    assert len(rows) >= 2 and max(map(len, labels)) > 34, labels  # longer than the old fixed column
    assert len({row.index(" p = ") for row in rows}) == 1, rows


def test_a_bad_tile_flag_is_answered_in_the_flags_syntax(cli):
    r = cli("whatif", SC / "whatif_step.toml", "--tile", "7,1", "--trials", "1")
    assert r.returncode == 2
    assert "--tile: expected a double-six tile as two pips 0..6 like 6,3, got '7,1'" in r.stderr, r.stderr
    assert "[6, 3]" not in r.stderr


def test_a_bad_tile_in_a_file_or_an_argument_keeps_the_list_syntax():
    from magdomino.errors import ARGUMENTS, InputError
    from magdomino.model.tiles import parse_tile

    for source in ("game.json", ARGUMENTS):
        with pytest.raises(InputError, match=r"like \[6, 3\]"):
            parse_tile([7, 1], source, "tile")
    with pytest.raises(InputError, match=r"like 6,3,"):
        parse_tile("7,1", "command line", "--tile")
