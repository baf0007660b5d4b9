"""The placement language: whatever the project prints about a placement reads back as the same
placement (the scenarios' tiles and what-ifs, every candidate a what-if ranking lists, every
placement of seeded tower games), and what is not in the grammar is refused in one line."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.games.record import play_game
from magdomino.games.tower.candidates import enumerate_placements
from magdomino.maths.geometry import GridPose, physical_pose
from magdomino.model.tiles import ALL_TILES, tile
from magdomino.studies.aiming import aim_placement, structure_poses
from magdomino.studies.placement_language import format_placement, parse_placement
from magdomino.studies.scenario import load_scenario, scenario_from_dict
from magdomino.studies.simulation import settle_structure

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.toml"))


def halves(pips, position, yaw, length):
    """Where each half's pips lie: [(pips, x, y), (pips, x, y)] sorted, to 1 µm."""
    axis = np.array([math.cos(yaw), math.sin(yaw)])
    ends = [np.asarray(position[:2]) - axis * length / 4, np.asarray(position[:2]) + axis * length / 4]
    return sorted((p, round(float(e[0]), 6), round(float(e[1]), 6)) for p, e in zip(pips, ends))


def same_placement(sc_a, pl_a, sc_b, pl_b, settled):
    size = np.asarray(sc_a.preset.tile.size, float)
    rest_a, yaw_a, motion_a = aim_placement(sc_a, settled, pl_a, size)
    rest_b, yaw_b, motion_b = aim_placement(sc_b, settled, pl_b, size)
    assert halves(pl_a.pips, rest_a, yaw_a, size[0]) == halves(pl_b.pips, rest_b, yaw_b, size[0])
    assert rest_a[2] == pytest.approx(rest_b[2], abs=1e-6)
    assert type(motion_a) is type(motion_b)
    for a, b in zip(np.ravel(getattr(motion_a, "start", getattr(motion_a, "height", 0.0))),
                    np.ravel(getattr(motion_b, "start", getattr(motion_b, "height", 0.0)))):
        assert a == pytest.approx(b, abs=1e-6)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_bundled_scenario_reads_back_from_its_own_words(path):
    sc = load_scenario(path)
    texts = [sc.describe(pl) for pl in sc.structure]
    again = scenario_from_dict({"preset": "standard", "magnets": sc.magnets, "structure": texts,
                                "what_if": [sc.describe(w) for w in sc.what_if]}, source="again")
    again = again.__class__(**{**again.__dict__, "preset": sc.preset})
    size = np.asarray(sc.preset.tile.size, float)
    for (p, q), (p2, q2) in zip(structure_poses(sc, size), structure_poses(again, size)):
        assert np.allclose(p, p2, atol=1e-9) and np.allclose(q, q2, atol=1e-9)
    nominal = [np.array([p for p, _ in structure_poses(sc, size)]), np.array([q for _, q in structure_poses(sc, size)])]
    for w, w2 in zip(sc.what_if, again.what_if):
        same_placement(sc, w, again, w2, nominal)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_candidate_of_a_ranking_reads_back_as_the_same_placement(path):
    sc = load_scenario(path)
    verdict, settled = settle_structure(sc)
    if verdict.collapsed or not verdict.settled:
        pytest.skip("the structure does not stand: nothing to rank on")
    used = {tile(*pl.pips) for pl in sc.structure}
    checked = 0
    values = {v for pl in sc.structure for v in pl.pips}
    for t in [t for t in ALL_TILES if t not in used and (t[0] in values or t[1] in values)]:
        try:
            candidates = enumerate_placements(sc, t, settled, rule="any", second_parallel=False)
        except InputError:  # off the rules' grid (the bridge): no candidates to print
            pytest.skip("the structure is not on the rules' grid")
        for c in candidates:
            text = c.describe()
            parsed = scenario_from_dict({"preset": "standard", "magnets": sc.magnets, "structure": [sc.describe(pl) for pl in sc.structure],
                                         "what_if": [text]}, source=text)
            parsed = parsed.__class__(**{**parsed.__dict__, "preset": sc.preset})
            same_placement(sc.__class__(**{**sc.__dict__, "what_if": (c.placement,)}), c.placement, parsed, parsed.what_if[0], settled)
            checked += 1
    assert checked > 0


def _nominal(sc):
    used = structure_poses(sc, np.asarray(sc.preset.tile.size, float))
    return np.array([p for p, _ in used]), np.array([q for _, q in used])


@pytest.mark.parametrize("text", [
    "3-1 on #2 half 1", "3-1 on #2 (3-3) half 1, across left", "3-1 on #2 half 0, across right, drop 2 mm",
    "3-1 on #2 half 1, back", "3-1 on #2 half 1, turned 30 deg", "3-1 beneath #1 half 1, slid from (0, 60) mm",
    "6-1 after #0 half 0", "3-1 at (36, -12) mm, yaw 90", "6-6 at (0, 0, 4) mm, fixed",
])
def test_the_grammar_reads_what_it_writes(text):
    from magdomino.studies.scenario import Placement

    entry = parse_placement(text, "t", "k")
    entry.pop("_parent_pips", None)
    relation = next((k for k in ("on", "beneath", "after") if k in entry), None)
    pl = Placement(tuple(entry["pips"]), tuple(entry["pos_mm"]) if "pos_mm" in entry else None, entry.get("yaw_deg", 0.0),
                   (entry[relation]["tile"], entry[relation]["half"]) if relation else None, entry.get("fixed", False),
                   entry.get("drop_mm", 1.0), tuple(entry["slide_mm"]) if "slide_mm" in entry else None, relation or "on")
    written = format_placement(pl)
    assert parse_placement(written, "t", "k") == {k: v for k, v in parse_placement(text, "t", "k").items() if k != "_parent_pips"}


@pytest.mark.parametrize("text, says", [
    ("3-1 on tile 2", "expected a placement like"),
    ("3-1 on #2 half 1, sideways", "'sideways' is none"),
    ("3-1 at (1, 2) mm, across left", "expected a yaw for a placement at a pose"),
    ("3-1 on #2 half 1, yaw 30", "expected a direction or a turn for a placement on a tile"),
    ("3-1 on #2 half 1, back, turned 30 deg", "not both"),
    ("3-1 on #2 half 1, drop 1 mm, drop 2 mm", "once"),
    (42, "expected a placement as text"),
])
def test_what_is_not_in_the_grammar_is_refused_in_one_line(text, says):
    with pytest.raises(InputError, match=says) as info:
        parse_placement(text, "my.toml", "what_if[0].place")
    assert str(info.value).startswith("my.toml: what_if[0].place: ") and "\n" not in str(info.value)


@pytest.mark.parametrize("structure, what_if, says", [
    (["6-6 at (0, 0) mm", "6-1 beneath #0 half 1"], [], r"structure\[1\]\.beneath: expected a pose clear of the other tiles"),
    (["6-6 at (0, 0) mm", "6-1 after #0 half 1, back"], [],
     r"structure\[1\]\.place: '6-1 after #0 half 1, back': the turn: expected 0: end to end lies in line"),
    (["6-6 at (0, 0) mm", "6-3 on #0 half 1", "3-1 after #1 half 1"], [], r"structure\[2\]\.after: expected a tile on its own level"),
    (["6-6 at (0, 0) mm"], ["6-1 on #0 half 1, fixed"], r"what_if\[0\]\.place: expected no 'fixed' here: a what-if takes none"),
    (["6-6 at (0, 0) mm"], [{"place": "6-1 on #0 half 1, drop 2 mm", "drop_mm": 3}], r"what_if\[0\]\.drop_mm: expected either place"),
])
def test_placements_that_mean_nothing_physical_are_refused(structure, what_if, says):
    with pytest.raises(InputError, match=says):
        scenario_from_dict({"structure": structure, "what_if": what_if}, source="s.toml")


def test_beneath_is_on_the_table_for_a_file_tile_and_a_what_if_alike():
    size = np.array([0.048, 0.024, 0.008])
    tile_ = scenario_from_dict({"structure": ["6-6 at (0, 0) mm", "6-3 on #0 half 1", "3-1 beneath #1 half 1"]}, source="s.toml")
    assert structure_poses(tile_, size)[2][0][2] == pytest.approx(size[2] / 2)
    what_if = scenario_from_dict({"structure": ["6-6 at (0, 0) mm", "6-3 on #0 half 1"], "what_if": ["3-1 beneath #1 half 1"]},
                                 source="s.toml")
    poses = structure_poses(what_if, size)
    rest, _, motion = aim_placement(what_if, (np.array([p for p, _ in poses]), np.array([q for _, q in poses])), what_if.what_if[0], size)
    assert rest[2] == pytest.approx(size[2] / 2) and rest[:2] == pytest.approx(structure_poses(tile_, size)[2][0][:2])
    assert type(motion).__name__ == "Slide"


def test_a_pose_read_from_a_file_is_written_back_to_the_digit():
    sc = scenario_from_dict({"structure": [{"pips": [6, 6], "pos_mm": [1234.5678, -0.125]}]}, source="s.toml")
    text = sc.describe(sc.structure[0])
    assert text == "6-6 at (1234.5678, -0.125) mm"
    assert scenario_from_dict({"structure": [text]}, source="t").structure == sc.structure


def _constructions(record):
    """Each construction of a tower game's record, as the list of its placement events in order
    (a construction ends at a collapse, a new deal or the end)."""
    built: list[dict] = []
    for ev in record["events"]:
        if ev["type"] in ("deal", "collapse", "end") and built:
            yield built
            built = []
        elif ev["type"] == "place":
            built.append(ev)
    if built:
        yield built


def rebuilt_from_words(record, size) -> int:
    """Rebuild every construction of ``record`` from its printed placement texts alone, in a
    fresh scenario each, and check every tile's halves against the game's grid pose (a tile's
    pose depends only on the texts before it, so this checks every placement); placements on a
    double and each construction's last one are also read as a what-if on the tower before
    them. Returns the number of placements checked."""
    checked = 0
    for built in _constructions(record):
        texts = [ev["placement"] for ev in built]
        sc = scenario_from_dict({"preset": "standard", "structure": texts}, source=texts[-1])
        game = [physical_pose(GridPose(*ev["pose"]), size) for ev in built]
        for ev, text, (p, q), (centre, yaw) in zip(built, texts, structure_poses(sc, size), game):
            turn = 2 * math.atan2(q[2], q[3])
            assert halves(ev["tile"], p, turn, size[0]) == halves(ev["tile"], centre, yaw, size[0]), f"{text} (in {texts})"
            assert p[2] == pytest.approx(centre[2], abs=1e-9), text
            checked += 1
        for k in range(1, len(built)):
            on_double = re.search(r"\((\d)-\1\) half", texts[k])
            if on_double or k == len(built) - 1:
                what_if = scenario_from_dict({"preset": "standard", "structure": texts[:k], "what_if": [texts[k]]}, source=texts[k])
                rest, turn, _ = aim_placement(what_if, _nominal(what_if), what_if.what_if[0], size)
                centre, yaw = game[k]
                assert halves(built[k]["tile"], rest, turn, size[0]) == halves(built[k]["tile"], centre, yaw, size[0]), texts[k]
    return checked


@pytest.mark.parametrize("rule", ["defi", "quinconce"])
def test_towers_of_statics_judged_games_rebuild_from_their_printed_placements(rule):
    """12 seeded games a rule (random seats, judged by the statics alone): every tower rebuilt
    from the log's texts puts every tile where the game put it, doubles and their neighbours
    included."""
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    size = np.array([0.048, 0.024, 0.008])
    placements = doubles = 0
    for seed in range(1000, 1012):
        record = play_game(rule, 2, seed=seed, physics=StaticsAdjudicator("toy"), player_kinds="random")
        placements += rebuilt_from_words(record, size)
        doubles += sum(1 for ev in record["events"] if ev["type"] == "place" and re.search(r"\((\d)-\1\) half", ev["placement"]))
    assert placements > 100 and doubles > 20


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["defi", "quinconce"])
def test_towers_of_pybullet_judged_games_rebuild_from_their_printed_placements(rule):
    import magdomino as md

    size = np.array([0.048, 0.024, 0.008])
    placements = 0
    for seed in range(1000, 1003):
        record = md.play(rule, 2, seed=seed, physics="dynamics", player="random", max_placements=40).to_dict()
        placements += rebuilt_from_words(record, size)
    assert placements > 20


def test_a_format_1_record_reads_with_its_old_meaning():
    """Format 1 named a double's halves as the grid numbers them: loaded, its texts are rewritten
    so that they mean where the tiles went."""
    import json

    from magdomino.faces.replay import check_record
    from magdomino.physics.statics_adjudicator import StaticsAdjudicator

    record = play_game("defi", 2, seed=1000, physics=StaticsAdjudicator("toy"), player_kinds="random")
    old = json.loads(json.dumps(record))
    flipped = 0
    for ev in old["events"]:
        m = ev.get("placement") and re.search(r"\((\d)-\1\) half (\d)", ev["placement"])
        if m:  # the texts format 1 printed where the grid numbers the double's halves the other way
            swap = {"across left": "across right", "across right": "across left"}
            text = ev["placement"].replace(f"half {m[2]}", f"half {1 - int(m[2])}")
            text = re.sub(r"across (left|right)", lambda a, swap=swap: swap[a[0]], text)
            ev["placement"], flipped = text, flipped + 1
    old["record_version"] = 1
    assert flipped
    upgraded = check_record(old, "old.json")
    assert upgraded["record_version"] == 2
    words = [ev.get("placement") for ev in upgraded["events"]]
    new = [ev.get("placement") for ev in record["events"]]
    changed = sum(a != b for a, b in zip(words, [ev.get("placement") for ev in json.loads(json.dumps(record))["events"]]))
    assert changed == 0 and words == new
    assert rebuilt_from_words(upgraded, np.array([0.048, 0.024, 0.008])) > 10


def test_a_structure_tile_reads_the_motion_a_game_log_prints():
    """A game's log prints how a tile arrived ('slid from ...', 'drop ...'); as a structure tile
    (built at rest) the same text is read, the motion having no effect there."""
    plain = scenario_from_dict({"structure": ["3-3 at (0, 0) mm", "3-1 on #0 half 1", "1-2 beneath #1 half 1"]})
    moved = scenario_from_dict({"structure": ["3-3 at (0, 0) mm", "3-1 on #0 half 1",
                                              "1-2 beneath #1 half 1, slid from (0, -60) mm, drop 2 mm"]})
    size = np.array([0.048, 0.024, 0.008])
    for (p, q), (p2, q2) in zip(structure_poses(plain, size), structure_poses(moved, size)):
        assert np.allclose(p, p2) and np.allclose(q, q2)
    with pytest.raises(InputError, match="fixed"):
        scenario_from_dict({"structure": ["3-3 at (0, 0) mm"], "what_if": ["3-1 on #0 half 1, fixed"]})
