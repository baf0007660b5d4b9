"""`magdomino whatif` from the command line: the ranking, its JSON and plot, bad input."""

import json

import pytest
from conftest import ROOT

SC = ROOT / "scenarios"


@pytest.mark.parametrize(
    "args, message",
    [
        (["whatif_step.toml", "--tile", "1,2"], "already in the structure"),
        (["whatif_step.toml", "--tile", "7,1"], "--tile: expected a double-six tile"),
        (["whatif_step.toml", "--tile", "0,5"], "no legal placement"),
        (["bridge.toml", "--tile", "2,4"], "off the nearest grid place"),
        (["nothing.toml", "--tile", "2,4"], "no such scenario file"),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, args, message):
    r = cli("whatif", SC / args[0], *args[1:], "--trials", "1")
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_cli_ranks_writes_json_and_plot(cli, tmp_path):
    out, png = tmp_path / "w.json", tmp_path / "w.png"
    r = cli("whatif", SC / "whatif_step.toml", "--tile", "4,2", "--rule", "defi", "--parallel-only", "--trials", "2", "--jobs", "1",
            "--json", out, "--plot", png, "--engine", "dynamics")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.strip()[:3] in ("1. ", "2. ")]
    assert "bridging to #3" in lines[0] and "p = 0.000" in lines[0] and "p = 1.000" in lines[1]
    doc = json.loads(out.read_text())
    ps = [c["p_collapse"] for c in doc["candidates"]]
    assert ps == sorted(ps) and doc["tile"] == [2, 4]
    assert doc["parallel_only"] is True
    for line, c in zip(lines, doc["candidates"]):  # the "shifted" column: the share and the median shift of the JSON
        assert {"shift_share", "shift_ci95", "median_shift_mm"} <= set(c)
        assert f"shifted {c['shift_share']:.3f}, median {c['median_shift_mm']:5.1f} mm" in line
    assert png.stat().st_size > 5000


def test_a_push_is_shown_and_ranks_after_equal_odds_without_one(cli, tmp_path):
    """slide_beneath.toml, 4-2 slid beneath the overhang: across, it pushes the overhanging
    tile along in every trial, lengthwise it does not; both stand (p = 0). The table says so
    in its "shifted" column and the push ranks after, though enumerated before."""
    out, png = tmp_path / "w.json", tmp_path / "w.png"
    r = cli("whatif", SC / "slide_beneath.toml", "--tile", "4,2", "--parallel-only", "--trials", "2", "--jobs", "1",
            "--json", out, "--plot", png)
    assert r.returncode == 0, r.stderr
    rows = {line.split(". ", 1)[1].split("  ")[0]: (int(line.split(".")[0]), line) for line in r.stdout.splitlines()
            if line.strip()[:1].isdigit()}
    rank_straight, straight = rows["4-2 beneath #1 (1-4) half 1"]
    rank_across, across = rows["4-2 beneath #1 (1-4) half 1, across left"]
    assert "p = 0.000" in straight and "p = 0.000" in across
    assert "shifted 0.000, median " in straight and "shifted 1.000, median " in across
    assert rank_straight < rank_across
    doc = json.loads(out.read_text())
    by_name = {c["placement"]["description"]: c for c in doc["candidates"]}
    c = by_name["4-2 beneath #1 (1-4) half 1, across left"]
    assert c["shift_share"] == 1.0 and c["reasons"] == {"shifted": 2} and c["median_shift_mm"] > 10
    assert f"median {c['median_shift_mm']:5.1f} mm" in across
    assert len(c["shift_ci95"]) == 2 and c["shift_ci95"][1] == 1.0
    assert png.stat().st_size > 5000


def test_tower_placements_may_lie_across_by_default(cli, tmp_path):
    """RULES.md: only the second tile of a construction must lie parallel; on this 4-tile
    structure 4-2 may also go across its support (the two parallel placements and others)."""
    out = tmp_path / "w.json"
    r = cli("whatif", SC / "whatif_step.toml", "--tile", "4,2", "--rule", "defi", "--trials", "1", "--jobs", "1", "--json", out)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["parallel_only"] is False and doc["second_parallel"] is True
    across = [c for c in doc["candidates"] if c["placement"]["direction"].startswith("across")]
    assert len(doc["candidates"]) > 2 and across, [c["placement"] for c in doc["candidates"]]
    r = cli("whatif", SC / "whatif_step.toml", "--tile", "4,2", "--parallel-only", "--no-second-parallel", "--trials", "1")
    assert r.returncode == 2 and "--parallel-only" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_unwritable_outputs_are_refused_before_the_run(cli, tmp_path):
    for flag in ("--json", "--plot"):
        r = cli("whatif", SC / "whatif_step.toml", "--tile", "2,4", "--trials", "1", flag, tmp_path / "nowhere" / "w.out")
        assert r.returncode == 2 and f"{flag}: expected a file in an existing directory" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""
