"""Design studies (games/design_study.py): the metrics and their intervals against values worked out
by hand on a scripted set of deals, rounds and heights of scripted records, the grid, and the
same deals at every value."""

import math

import pytest
from scipy.optimize import brentq

from magdomino.errors import InputError
from magdomino.games.design_study import count_rounds, run_study, study_metrics, study_points, tower_height

T_975_3 = 3.182446305284263
"""Student's t, 97.5 % quantile, 3 degrees of freedom (printed tables: 3.182)."""


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """The exact interval from its definition: the p at which each binomial tail is 2.5 %."""
    def tail_up(p):  # P(X >= k)
        return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))

    def tail_down(p):  # P(X <= k)
        return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(0, k + 1))

    low = 0.0 if k == 0 else brentq(lambda p: tail_up(p) - 0.025, 1e-12, 1 - 1e-12, xtol=1e-14)
    high = 1.0 if k == n else brentq(lambda p: tail_down(p) - 0.025, 1e-12, 1 - 1e-12, xtol=1e-14)
    return low, high


def _row(seating, winners, ended, placements, rounds, collapses, height):
    shares = {"careful": 0.0, "random": 0.0}
    for w in winners:
        shares[seating[w]] += 1 / len(winners)
    return {"seating": seating, "winners": winners, "ended": ended, "placements": placements, "rounds": rounds,
            "collapses": collapses, "height": height, "win_shares": shares}


ROWS = [
    _row(["careful", "random"], [0], "natural", 10, 5, 1, 4),
    _row(["random", "careful"], [1], "natural", 12, 6, 3, 5),
    _row(["careful", "random"], [1], "natural", 8, 4, 0, 3),
    _row(["random", "careful"], [], "abandoned", 30, 15, 8, 2),
]
"""Four deals, careful against random: careful wins deals 0 and 1, random deal 2, deal 3 abandoned."""


def test_shares_have_the_exact_binomial_interval_worked_out_from_its_definition():
    m = study_metrics(ROWS, ["careful", "random"])
    assert m["completion"]["value"] == 0.75 and (m["completion"]["k"], m["completion"]["n"]) == (3, 4)
    assert m["completion"]["ci"] == pytest.approx(clopper_pearson(3, 4), abs=1e-9)
    assert m["completion"]["ci"] == pytest.approx([0.194120, 0.993690], abs=1e-6)  # k = n - 1: high = 0.975 ** (1/4)
    per = m["collapses_per_placement"]
    assert per["value"] == pytest.approx(12 / 60) and per["ci"] == pytest.approx(clopper_pearson(12, 60), abs=1e-9)
    skill = m["skill_gap"]  # over the 3 natural deals: careful won 2
    assert skill["value"] == pytest.approx(2 / 3) and skill["fair_share"] == 0.5 and skill["kind"] == "careful"
    assert skill["ci"] == pytest.approx(clopper_pearson(2, 3), abs=1e-9)
    seat = m["seat_advantage"]  # the first seat won deal 0 only
    assert seat["value"] == pytest.approx(1 / 3) and seat["fair_share"] == 0.5
    assert seat["ci"] == pytest.approx(clopper_pearson(1, 3), abs=1e-9)


def test_means_have_the_student_t_interval_worked_out_by_hand_and_never_below_zero():
    m = study_metrics(ROWS, ["careful", "random"])
    # height 4, 5, 3, 2: mean 3.5, squared deviations sum to 5, s = sqrt(5/3), sem = s/2
    half = T_975_3 * math.sqrt(5 / 3) / 2
    assert m["height"]["value"] == 3.5 and m["height"]["ci"] == pytest.approx([3.5 - half, 3.5 + half], abs=1e-9)
    assert m["height"]["ci"] == pytest.approx([1.445740, 5.554260], abs=1e-6)
    # placements 10, 12, 8, 30: mean 15, squared deviations 308; the low bound (-1.12) is raised to 0
    half = T_975_3 * math.sqrt(308 / 3) / 2
    assert m["placements"]["value"] == 15 and m["placements"]["ci"] == pytest.approx([0.0, 15 + half], abs=1e-9)
    # collapses 1, 3, 0, 8: mean 3, squared deviations 38
    assert m["collapses"]["value"] == 3 and m["collapses"]["ci"] == pytest.approx([0.0, 3 + T_975_3 * math.sqrt(38 / 3) / 2], abs=1e-9)
    assert m["rounds"]["value"] == 7.5 and m["rounds"]["n"] == 4


def test_metrics_of_few_or_equal_deals_and_without_both_kinds():
    same = [_row(["careful", "random"], [0], "natural", 10, 5, 2, 3)] * 3
    m = study_metrics(same, ["careful", "random"])
    assert m["collapses"]["ci"] == [2.0, 2.0] and m["completion"]["ci"] == pytest.approx([clopper_pearson(3, 3)[0], 1.0])
    one = study_metrics(same[:1], ["careful", "random"])
    assert one["height"] == {"value": 3.0, "ci": [None, None], "n": 1}
    gone = study_metrics([_row(["careful", "random"], [], "abandoned", 5, 3, 5, 1)], ["careful", "random"])
    assert gone["skill_gap"]["value"] is None and gone["skill_gap"]["ci"] == [None, None] and gone["seat_advantage"]["n"] == 0
    rows = [dict(r, win_shares={"careful": r["win_shares"]["careful"], "greedy": r["win_shares"]["random"]},
                 seating=[s.replace("random", "greedy") for s in r["seating"]]) for r in ROWS]
    assert study_metrics(rows, ["careful", "greedy"])["skill_gap"] is None  # no random seat: not measured


def test_rounds_count_each_seats_turns_and_height_is_the_top_level_plus_one():
    events = [{"type": "deal", "player": 0}]
    for t, p in [("place", 0), ("place", 1), ("draw", 0), ("place", 0), ("pass", 1), ("place", 0), ("collapse", 0),
                 ("restart", 0), ("place", 1), ("end", 1)]:
        events.append({"type": t, "player": p})
    # turns: 0 | 1 | 0 (draw, place) | 1 (pass) | 0 | 1 -> 6 turns
    assert count_rounds(events, 2) == 3 and count_rounds(events, 4) == 2
    record = {"final": {"construction": [{"pose": [0, 0, 0, 0]}, {"pose": [0, 0, 1, 0]}, {"pose": [1, 0, 2, 1]}, {"pose": [0, 1, 1, 0]}]}}
    assert tower_height(record) == 3 and tower_height({"final": {"construction": []}}) == 0


def test_the_grid_takes_every_combination_the_last_key_fastest():
    assert study_points({"magnets_scale": [0.9, 1.0], "tile.friction": [0.3, 0.5]}) == [
        {"magnets_scale": 0.9, "tile.friction": 0.3}, {"magnets_scale": 0.9, "tile.friction": 0.5},
        {"magnets_scale": 1.0, "tile.friction": 0.3}, {"magnets_scale": 1.0, "tile.friction": 0.5}]


def test_every_value_plays_the_same_deals_and_stronger_magnets_collapse_less():
    doc = run_study("defi", ["random", "random"], 2, {"magnets_scale": [1, 3]}, seed=4, physics="statics", max_placements=40,
                    executor="serial", preset="standard")
    weak, strong = doc["points"]
    assert [r["seed"] for r in weak["per_deal"]] == [r["seed"] for r in strong["per_deal"]]
    assert [r["seating"] for r in weak["per_deal"]] == [r["seating"] for r in strong["per_deal"]]
    assert strong["metrics"]["collapses"]["value"] < weak["metrics"]["collapses"]["value"]
    assert weak["overrides"] == {"magnets_scale": 1} and strong["preset_description"].endswith("[overridden: magnets_scale = 3]")
    assert doc["kind"] == "study" and doc["params"] == ["magnets_scale"] and doc["metrics"][0] == "completion"


@pytest.mark.parametrize("kwargs, key", [
    (dict(vary={}), "vary"),
    (dict(vary={"tile.wobble": [1]}), "vary"),
    (dict(vary={"tile.friction": [0.3, -1]}), "vary"),
    (dict(vary={"tile.friction": [0.3, 0.3]}), "vary"),
    (dict(vary={"tile.friction": [0.3]}, preset_overrides={"tile.friction": 0.4}), "vary"),
    (dict(vary={"tile.friction": [0.3]}, physics="none"), "physics"),
    (dict(vary={"tile.friction": [0.3]}, rule="vingt"), "rule"),
    (dict(vary={"tile.friction": [0.3]}, physics="warp"), "physics"),
])
def test_a_bad_study_is_refused_before_any_deal(kwargs, key):
    args = dict(rule="defi", seats=["random", "random"], deals=2, physics="statics")
    args.update(kwargs)
    with pytest.raises(InputError) as caught:
        run_study(args.pop("rule"), args.pop("seats"), args.pop("deals"), args.pop("vary"), **args)
    assert caught.value.key == key
