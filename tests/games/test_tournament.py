"""Tournaments (magdomino/games/tournament.py): seating balance, win shares, determinism,
resume, and intervals checked against independent counts and formulas."""

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from magdomino.errors import InputError
from magdomino.games.tournament import deal_seeds, run_tournament, seating


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_kind_sits_each_seat_equally_often_and_every_seating_comes_equally_often(n):
    seats = tuple("abcd"[:n])
    period = 1
    for k in range(2, n + 1):
        period *= k
    deals = 2 * period
    rows = [seating(seats, d) for d in range(deals)]
    at = Counter((kind, s) for row in rows for s, kind in enumerate(row))
    assert set(at.values()) == {deals // n} and len(at) == n * n
    # every block of n consecutive deals already balances the seats
    for start in range(0, deals, n):
        block = rows[start:start + n]
        assert all(sorted(row[s] for row in block) == sorted(seats) for s in range(n))
    # and every n! deals hold each of the n! seatings once
    assert Counter(rows) == {p: 2 for p in itertools.permutations(seats)}


def test_deal_seeds_are_the_seed_sequence_children():
    want = [int(c.generate_state(1, dtype=np.uint32)[0]) for c in np.random.SeedSequence(11).spawn(5)]
    assert deal_seeds(11, 5) == want


@pytest.mark.parametrize("rule, seats", [
    ("traditional", ["greedy", "random", "random"]),
    ("matador", ["greedy", "random"]),
    ("vingt", ["lookahead", "greedy", "random"]),
])
def test_win_shares_of_a_natural_deal_sum_to_one_and_follow_its_winners(rule, seats):
    doc = run_tournament(rule, seats, 12, seed=2, jobs=1)
    assert doc["ended"] == {"natural": 12, "abandoned": 0}
    for row in doc["per_deal"]:
        assert sum(row["win_shares"].values()) == pytest.approx(1.0)
        assert row["winners"]
        by_hand = Counter()
        for w in row["winners"]:
            by_hand[row["seating"][w]] += 1 / len(row["winners"])
        assert row["win_shares"] == pytest.approx({k: by_hand.get(k, 0.0) for k in dict.fromkeys(seats)})
    assert sum(r["wins"] for r in doc["per_kind"]) == pytest.approx(12)


def test_echanges_shares_a_team_win_between_every_seat_and_a_loss_between_none():
    doc = run_tournament("echanges", ["planner", "random", "greedy"], 9, seed=4, jobs=1)
    for row in doc["per_deal"]:
        total = sum(row["win_shares"].values())
        assert total == pytest.approx(1.0 if row["winners"] else 0.0)
        if row["winners"]:
            assert row["winners"] == [0, 1, 2]


def test_lookahead_beats_random_at_vingt_and_the_interval_is_the_exact_binomial_one_of_an_independent_count():
    doc = run_tournament("vingt", ["lookahead", "random"], 40, seed=7, jobs=1)
    rows = doc["per_deal"]
    assert [r["seating"] for r in rows[:2]] == [["lookahead", "random"], ["random", "lookahead"]]
    wins = sum(1 / len(r["winners"]) for r in rows for w in r["winners"] if r["seating"][w] == "lookahead")
    k, n = round(wins), len(rows)
    # Clopper-Pearson from the beta quantiles (not binomtest)
    low = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    row = next(r for r in doc["per_kind"] if r["kind"] == "lookahead")
    assert row["wins"] == pytest.approx(wins) and row["win_share"] == pytest.approx(wins / n)
    assert row["ci"] == pytest.approx([low, high], abs=1e-9)
    assert row["ci"][0] > 0.5  # lookahead is clearly better than random
    scores = [s for r in rows for s, who in zip(r["scores"], r["seating"]) if who == "lookahead"]
    m, sd = sum(scores) / n, float(np.std(scores, ddof=1))
    half = stats.t.ppf(0.975, n - 1) * sd / n ** 0.5
    assert row["mean_score"] == pytest.approx(m) and row["score_ci"] == pytest.approx([m - half, m + half])


def test_same_seed_gives_the_same_document_with_one_or_two_workers():
    one = run_tournament("traditional", ["greedy", "random"], 10, seed=5, jobs=1)
    two = run_tournament("traditional", ["greedy", "random"], 10, seed=5, jobs=2)
    assert json.dumps(one) == json.dumps(two)
    other = run_tournament("traditional", ["greedy", "random"], 10, seed=6, jobs=1)
    assert other["per_deal"] != one["per_deal"]


def test_resume_after_an_interrupted_run_gives_the_uninterrupted_document(tmp_path):
    whole = run_tournament("traditional", ["greedy", "random", "random"], 9, seed=3, jobs=1)
    run_tournament("traditional", ["greedy", "random", "random"], 9, seed=3, jobs=1, out_dir=tmp_path)
    log = tmp_path / "tournament.jsonl"
    lines = log.read_text().splitlines()
    assert len(lines) == 10  # a header and one line per deal
    # as an interruption leaves it: four deals written, the fifth cut short
    log.write_text("\n".join(lines[:5]) + "\n" + lines[5][:30])
    with pytest.raises(InputError, match="already holds a run"):
        run_tournament("traditional", ["greedy", "random", "random"], 9, seed=3, jobs=1, out_dir=tmp_path)
    with pytest.raises(InputError, match="differs from the stored one"):
        run_tournament("traditional", ["greedy", "random", "random"], 9, seed=4, jobs=1, out_dir=tmp_path, resume=True)
    resumed = run_tournament("traditional", ["greedy", "random", "random"], 9, seed=3, jobs=2, out_dir=tmp_path, resume=True)
    assert resumed == whole
    assert len(log.read_text().splitlines()) == 10


@pytest.mark.parametrize("kwargs, key", [
    (dict(rule="traditional", seats=["greedy", "nobody"], deals=2), "seats"),
    (dict(rule="traditional", seats=["greedy"] * 5, deals=2), "seats"),
    (dict(rule="echanges", seats=["greedy", "random"], deals=2), "seats"),
    (dict(rule="vingt", seats=["lookahead", "planner"], deals=2), "seats"),
    (dict(rule="traditional", seats=["greedy", "random"], deals=0), "deals"),
    (dict(rule="matador", seats=["greedy", "random"], deals=2, physics="pybullet"), "physics"),
])
def test_bad_tournaments_are_refused_before_anything_runs(kwargs, key):
    with pytest.raises(InputError) as err:
        run_tournament(**kwargs)
    assert err.value.key == key and "\n" not in str(err.value)


def test_a_tiny_physics_tournament_counts_collapses_and_abandons_at_the_guard():
    doc = run_tournament("defi", ["greedy", "random"], 2, seed=0, physics="pybullet", max_placements=12, jobs=1)
    assert doc["physics"] == "dynamics" and doc["preset"] == "toy"  # the engine's one name; the default preset
    for row in doc["per_deal"]:
        assert row["placements"] <= 12
        assert (row["ended"] == "abandoned") == (row["reason"] == "abandoned")
        if row["ended"] == "abandoned":
            assert row["placements"] == 12 and row["winners"] == [] and sum(row["win_shares"].values()) == 0
    assert doc["ended"]["natural"] + doc["ended"]["abandoned"] == 2


def test_the_document_counts_seats_and_says_when_leftover_deals_unbalance_them():
    doc = run_tournament("traditional", ["greedy", "random", "random"], 6, seed=1, jobs=1)
    assert doc["balanced"] and doc["seat_counts"] == {"greedy": [2, 2, 2], "random": [4, 4, 4]}
    placements = [r["placements"] for r in doc["per_deal"]]
    assert doc["placements"] == {"total": sum(placements), "mean": sum(placements) / 6, "min": min(placements), "max": max(placements)}
    assert doc["collapses"]["total"] == 0  # a flat game never collapses
    odd = run_tournament("traditional", ["greedy", "random"], 5, seed=1, jobs=1)
    assert not odd["balanced"] and odd["seat_counts"] == {"greedy": [3, 2], "random": [2, 3]}
