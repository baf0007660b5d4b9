"""The chain games from the command line (``magdomino play --rule matador|echanges``): the
record's contract, the table picture (and the same from a saved record), the layout that
turns corners, and bad input (one line naming the flag, exit 2)."""

import json

import pytest

from magdomino.faces.tables import ROW_UNITS, chain_layout
from magdomino.games.chain.record import play_chain


def tile_boxes(layout):
    """Each tile's rectangle (x0, x1, y0, y1) from its two half centres (unit squares)."""
    out = []
    for p in layout:
        (ax, ay), (bx, by) = p["half_centres"]
        out.append((min(ax, bx) - 0.5, max(ax, bx) + 0.5, min(ay, by) - 0.5, max(ay, by) + 0.5))
    return out


@pytest.mark.parametrize("rule, players, options", [("matador", 4, {"set": 9}), ("matador", 3, {"variant": "strategic"}),
                                                    ("echanges", 5, {})])
def test_layout_turns_corners_and_tiles_never_overlap(rule, players, options):
    for seed in range(20):
        record = play_chain(rule, players, seed, options)
        table = record["final"]["table"]
        layout = chain_layout(table)
        boxes = tile_boxes(layout)
        for i, (x0, x1, y0, y1) in enumerate(boxes):
            assert -1.5 <= x0 and x1 <= ROW_UNITS + 1.5  # within the picture's width
            for u0, u1, v0, v1 in boxes[i + 1:]:
                assert min(x1, u1) - max(x0, u0) <= 1e-9 or min(y1, v1) - max(y0, v0) <= 1e-9
        for k in range(len(layout) - 1):  # neighbours touch (a corner may leave a half-tile)
            (x0, x1, y0, y1), (u0, u1, v0, v1) = boxes[k], boxes[k + 1]
            gap_x, gap_y = max(u0 - x1, x0 - u1, 0), max(v0 - y1, y0 - v1, 0)
            assert gap_x + gap_y <= 2.0 + 1e-9, (k, boxes[k], boxes[k + 1])
            if (gap_x, gap_y) == (0, 0):  # in a straight stretch: along the same line
                assert layout[k]["along"] == layout[k + 1]["along"] or table[k]["crossed"] or table[k + 1]["crossed"]


def test_cli_plays_records_and_draws(cli, tmp_path):
    for rule, extra in (("matador", ["--players", "3", "--set", "7", "--target", "50", "--player", "greedy"]),
                        ("echanges", ["--players", "4", "--player", "planner"])):
        out, png = tmp_path / f"{rule}.json", tmp_path / f"{rule}.png"
        res = cli("play", "--rule", rule, *extra, "--seed", "3", "--json", out, "--png", png)
        assert res.returncode == 0, res.stderr
        record = json.loads(out.read_text())
        final = record["final"]
        assert {"hands", "stock", "table"} <= set(final) and record["rule"] == rule
        assert png.read_bytes()[:4] == b"\x89PNG"
        tiles = [tuple(t) for h in final["hands"] for t in h] + [tuple(t) for t in final["stock"]]
        tiles += [tuple(e["tile"]) for e in final["table"]]
        if rule == "echanges":
            assert {"sun", "rain"} <= set(final)
            tiles += [tuple(t) for t in final["sun"] + final["rain"]]
            assert record["returns"] == [1.0 if len(final["sun"]) > len(final["rain"]) else -1.0] * 4
        else:
            assert max(record["scores"]) >= 50 and len(tiles) == 36
        assert len(set(tiles)) == len(tiles)
        again = tmp_path / f"{rule}_again.png"
        res = cli("play", "--rule", rule, "--record", out, "--png", again)
        assert res.returncode == 0, res.stderr
        assert again.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--rule", "dominos", "--players", "2"], "--rule"),
        (["--rule", "matador", "--players", "5"], "--players"),
        (["--rule", "matador", "--players", "7", "--set", "9"], "--players"),
        (["--rule", "echanges", "--players", "2"], "--players"),
        (["--rule", "matador", "--players", "2", "--set", "5"], "--set"),
        (["--rule", "echanges", "--players", "3", "--set", "7"], "--set"),
        (["--rule", "echanges", "--players", "3", "--variant", "strategic"], "--variant"),
        (["--rule", "matador", "--players", "2", "--variant", "extremities"], "--variant"),
        (["--rule", "defi", "--players", "2", "--variant", "strategic"], "--variant"),
        (["--rule", "matador", "--players", "2", "--target", "0"], "--target"),
        (["--rule", "matador", "--players", "2", "--target", "-150"], "--target"),
        (["--rule", "echanges", "--players", "3", "--target", "150"], "--target"),
        (["--rule", "matador", "--players", "2", "--deals", "3", "--target", "150"], "--deals"),
        (["--rule", "matador", "--players", "2", "--player", "planner"], "--player"),
        (["--rule", "traditional", "--players", "2", "--set", "7"], "--set"),
        (["--rule", "matador", "--players", "2", "--perpendicular"], "--perpendicular"),
        (["--rule", "echanges", "--players", "3", "--physics", "pybullet"], "--physics"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(cli, args, flag):
    res = cli("play", *args)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr and flag in lines[0], lines


def test_a_record_of_another_game_is_refused(cli, tmp_path):
    other = tmp_path / "t.json"
    assert cli("play", "--rule", "traditional", "--players", "2", "--json", other).returncode == 0
    res = cli("play", "--rule", "matador", "--record", other, "--png", tmp_path / "x.png")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "rule" in res.stderr
