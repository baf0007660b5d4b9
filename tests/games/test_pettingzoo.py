"""The games as PettingZoo AEC environments (magdomino.games.pettingzoo): PettingZoo's own API
and seed tests on all six games (the tower rules judged by the statics), the observations'
fields, seeds, rewards, rendering, pickling, bad input, and one short game judged by PyBullet.

The tests skip when PettingZoo is not installed (``scripts/test`` installs it: the ``test``
extra includes the ``pettingzoo`` extra), except those about its absence."""

from __future__ import annotations

import copy
import importlib.util
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.games.core import make_game
from magdomino.games.family import family_of

# PettingZoo's own test module imports its connect_four_v3 through its deprecated
# pettingzoo.classic shim when pygame is installed (the test extra brings it for the bench).
pytestmark = pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
needs_pettingzoo = pytest.mark.skipif(importlib.util.find_spec("pettingzoo") is None, reason="pettingzoo is not installed")
if importlib.util.find_spec("pettingzoo") is not None:
    from magdomino.games import pettingzoo as pz

# (rule, players, physics): every game, the tower rules judged by the statics
GAMES = [
    ("traditional", 2, "statics"),
    ("defi", 3, "statics"),
    ("quinconce", 2, "statics"),
    ("matador", 2, "none"),
    ("echanges", 3, "none"),
    ("vingt", 2, "none"),
]
SIZES = {"traditional": 18_846, "defi": 18_846, "quinconce": 18_846, "matador": 320, "echanges": 320, "vingt": 4_470}
ID = [g[0] for g in GAMES]
# api_test's advice about a {"observation", "action_mask"} dict, the classic games' observation,
# which PettingZoo 1.27 excuses for them by name only (its env_obs_dicts and env_obs_space lists);
# PettingZoo's pull request 1391 drops both warnings: with a release that has it, none is allowed
ADVICE = ("Observation is not a NumPy array",
          "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete")


def play_out(env, seed: int, choose=None) -> dict:
    """Play one game from reset(seed=seed), each move sampled from the mask (seeded); the
    accumulated rewards by agent."""
    env.reset(seed=seed)
    for i, a in enumerate(env.possible_agents):
        env.action_space(a).seed(seed + i)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = choose(env, agent, obs) if choose else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
    return total


@needs_pettingzoo
@pytest.mark.parametrize("rule, players, physics", GAMES, ids=ID)
def test_pettingzoo_api_test_passes(rule, players, physics):
    from pettingzoo.test import api_test

    env = pz.env(rule, players=players, physics=physics, seed=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=1000)
    # the module, not the function pettingzoo.test names the same
    allowed = set(ADVICE) if hasattr(importlib.import_module("pettingzoo.test.api_test"), "env_obs_dicts") else set()
    assert {str(w.message) for w in caught} <= allowed
    assert env.action_space("player_0").n == SIZES[rule] == pz.action_size(rule)


@needs_pettingzoo
@pytest.mark.parametrize("rule, players, physics", [g if g[0] != "defi" else ("defi", 3, "none") for g in GAMES], ids=ID)
def test_pettingzoo_seed_test_passes(rule, players, physics):
    # Défi by the rules only: its random games under the statics collapse some twenty times
    from pettingzoo.test import seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(lambda: pz.env(rule, players=players, physics=physics), num_cycles=1000)


@needs_pettingzoo
@pytest.mark.parametrize("rule, players, physics", [(r, n, "none") for r, n, _ in GAMES], ids=ID)
def test_observations_keep_their_shapes_and_tell_the_observers_hand_and_legal_moves(rule, players, physics):
    env = pz.env(rule, players=players, physics=physics)
    space = env.observation_space("player_0")
    env.reset(seed=7)
    state = env.position
    tiles = family_of(rule).tiles(state.game)
    steps = 0
    while env.agents and steps < 60:
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        obs, _, terminated, truncated, info = env.last()
        assert space.contains(obs) and set(obs) == {"observation", "action_mask"}
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        if terminated or truncated:
            env.step(None)
            continue
        views = env.unwrapped.observation_pieces(agent)
        hand = state.racks[seat] if rule == "vingt" else state.hands[seat]
        assert sorted(tiles[i] for i in np.flatnonzero(views["hand"])) == sorted(tuple(t) for t in hand)
        assert views["hand_sizes"][0] == len(hand)
        assert views["stock"][0] == len(state.stock)
        ids = np.flatnonzero(obs["action_mask"])
        assert sorted(info["moves"]) == ids.tolist()
        if rule != "vingt":  # 20 sur 20's ids choose a move in sub-steps
            assert len(ids) == len(state.legal_actions())
        other = env.possible_agents[(seat + 1) % players]
        assert not env.observe(other)["action_mask"].any()  # not their turn
        env.step(int(ids[steps % len(ids)]))
        steps += 1
    assert steps > 5


@needs_pettingzoo
def test_the_construction_rows_are_the_placed_tiles():
    env = pz.env("defi", players=2)
    env.reset(seed=2)
    for _ in range(6):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    views = env.unwrapped.observation_pieces(env.agent_selection)
    placed = env.position.placed
    rows = views["construction"]
    assert rows[:, 0].sum() == len(placed) > 1
    for number, a in enumerate(placed):
        row = rows[family_of("defi").tiles(env.game).index(a.tile)]
        assert tuple(row[1:5]) == (number, a.x, a.y, a.level) and row[5 + a.d] == 1 and row[5:9].sum() == 1
    assert not views["modes"].any()  # Défi owes no mode


@needs_pettingzoo
def test_info_says_the_moves_in_the_placement_language():
    from magdomino.games.codec import id_of_text

    env = pz.env("quinconce", players=2)
    env.reset(seed=4)
    said = 0
    for _ in range(12):
        obs, *_, info = env.last()
        for i, text in info["moves"].items():
            assert id_of_text(env.position.placed, text) == i
            said += " on #" in text or " after #" in text or " beneath #" in text
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert said > 10
    # the texts are written when first read (a copy reads them), so they are read before the next step
    copied = copy.deepcopy(env.last()[-1])
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    unread = env.last()[-1]
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert type(copied["moves"]) is dict and len(copied["moves"]) > 0
    with pytest.raises(InputError, match="before the next step"):
        dict(unread["moves"])


@needs_pettingzoo
def test_render_modes_and_a_warning_without_one():
    import gymnasium

    env = pz.env("defi", players=2, render_mode="rgb_array")
    env.reset(seed=1)
    for _ in range(5):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 3  # table, tiles, pips
    text = pz.env("vingt", render_mode="ansi")
    text.reset(seed=1)
    assert "round=0" in text.render()
    plain = pz.env("matador")
    plain.reset(seed=1)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert plain.render() is None
    assert gymnasium.logger.min_level <= gymnasium.logger.WARN


@needs_pettingzoo
def test_each_family_is_a_module_with_its_raw_env_and_env_as_pettingzoos_games_are():
    from magdomino.games.family import FAMILIES
    from magdomino.games.pettingzoo import chain, tower, vingt

    for module in (tower, chain, vingt):
        family = FAMILIES[module.__name__.rsplit(".", 1)[1]]
        assert module.raw_env.FAMILY is family
        for rule in family.rules:
            assert type(module.env(rule, players=3).unwrapped) is module.raw_env is type(pz.env(rule, players=3).unwrapped)
    with pytest.raises(InputError, match="one of matador, echanges, got 'defi'"):
        chain.env("defi")


@needs_pettingzoo
@pytest.mark.parametrize("rule", ["defi", "echanges", "vingt"])
def test_an_environment_pickles_and_plays_the_same(rule):
    env = pz.env(rule, players=3, seed=5)
    twin = pickle.loads(pickle.dumps(env))
    assert play_out(twin, 5) == play_out(env, 5)
    assert twin.unwrapped.position.to_json() == env.unwrapped.position.to_json()


@needs_pettingzoo
@pytest.mark.parametrize("rule, players", [("defi", 3), ("matador", 2), ("vingt", 2)])
def test_a_seed_gives_the_games_own_deal_and_the_same_game_again(rule, players):
    env = pz.env(rule, players=players, seed=11)
    env.reset()
    state = make_game(rule, players, 11).new_initial_state()
    state.apply_action(state.legal_actions()[0])  # the deal
    hands = state.racks if rule == "vingt" else state.hands
    views = env.unwrapped.observation_pieces(env.possible_agents[0])
    tiles = family_of(rule).tiles(state.game)
    assert sorted(tiles[i] for i in np.flatnonzero(views["hand"])) == sorted(tuple(t) for t in hands[0])
    first = play_out(env, 5)
    record = env.position.to_json()
    assert play_out(env, 5) == first and env.position.to_json() == record
    env.reset()  # no seed: the previous game's seed + 1
    assert env.game.seed == 6


@needs_pettingzoo
@pytest.mark.parametrize("rule, players", [("quinconce", 2), ("echanges", 4), ("vingt", 3)])
def test_rewards_are_the_games_returns_at_the_end(rule, players):
    env = pz.env(rule, players=players)
    seen = []

    def choose(e, agent, obs):
        seen.append(dict(e.rewards))
        return e.action_space(agent).sample(obs["action_mask"])

    total = play_out(env, 1, choose)
    assert all(v == 0 for r in seen for v in r.values())  # nothing before the end
    returns = env.position.returns()
    assert total == {f"player_{s}": returns[s] for s in range(players)}
    assert any(returns) and not env.agents


@needs_pettingzoo
def test_a_deal_stopped_by_the_runaway_guard_truncates():
    env = pz.env("defi", players=2, max_placements=3)
    ends = []

    def choose(e, agent, obs):
        return e.action_space(agent).sample(obs["action_mask"])

    env.reset(seed=0)
    while env.agents:
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            ends.append((terminated, truncated, reward))
            env.step(None)
        else:
            env.step(choose(env, env.agent_selection, obs))
    assert ends == [(False, True, 0.0)] * 2


@needs_pettingzoo
def test_an_illegal_action_is_one_line_and_changes_nothing():
    env = pz.env("matador", players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.position.to_json()
    for bad in (illegal, -1, "x", None):
        with pytest.raises(InputError) as err:
            env.step(bad)
        assert "\n" not in str(err.value) and "legal action id" in str(err.value)
    assert env.position.to_json() == before


@needs_pettingzoo
@pytest.mark.parametrize(
    "args, kwargs, words",
    [
        (("chess",), {}, "one of 'traditional'"),
        (("defi",), {"physics": "bullet"}, "'none', 'statics', 'dynamics'"),
        (("vingt",), {"physics": "statics"}, "not judged by physics"),
        (("defi",), {"players": 5}, "whole number in [2, 4]"),
        (("defi",), {"seed": -1}, "whole number >= 0"),
        (("matador",), {"set": 5}, "set"),
        (("defi",), {"render_mode": "pixels"}, "render_mode"),
    ],
)
def test_bad_arguments_are_one_line(args, kwargs, words):
    with pytest.raises(InputError) as err:
        pz.env(*args, **kwargs)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_without_the_extra_the_error_names_it():
    code = ("import sys; sys.modules['pettingzoo'] = None; import magdomino as md\n"  # as if it were not installed
            "try:\n    md.env('defi')\nexcept md.InputError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'magdomino[pettingzoo]'" in out and out.count("\n") == 1


def test_importing_magdomino_or_the_games_does_not_import_pettingzoo():
    code = ("import sys, magdomino, magdomino.games, magdomino.games.family; "
            "print(sorted(m for m in ('pettingzoo', 'gymnasium') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@needs_pettingzoo
def test_the_module_docstring_example_runs():
    example = [line.strip()[4:] for line in pz.__doc__.splitlines() if line.strip()[:4] in (">>> ", "... ")]
    namespace: dict = {}
    exec("\n".join(example), namespace)
    e = namespace["e"]
    assert not e.agents and e.position.is_terminal()


@needs_pettingzoo
def test_a_short_game_judged_by_pybullet():
    env = pz.env("quinconce", players=2, physics="pybullet", max_placements=30)
    assert type(env.unwrapped.adjudicator).__name__ == "PybulletAdjudicator"
    try:
        total = play_out(env, 0)
    finally:
        env.close()
    state = env.position
    assert state.is_terminal() and state.placements > 2
    assert total == {f"player_{s}": r for s, r in enumerate(state.returns())}


@needs_pettingzoo
def test_the_python_face_offers_the_environments():
    import magdomino as md

    e = md.env("echanges", players=3, seed=2)
    e.reset()
    assert e.possible_agents == ["player_0", "player_1", "player_2"] and e.agent_selection in e.agents
