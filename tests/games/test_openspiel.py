"""The package's games as OpenSpiel games (magdomino.games.openspiel.games) and the ismcts player."""

import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from magdomino.faces.cli import main  # noqa: E402
from magdomino.games import Game, make_game  # noqa: E402
from magdomino.games.openspiel import games as og  # noqa: E402
from magdomino.model.tiles import ALL_TILES  # noqa: E402

CASES = [
    ("traditional", {"players": 2}),
    ("traditional", {"players": 4, "kids": True}),
    ("defi", {"players": 2}),
    ("defi", {"players": 3, "variant": "extremities"}),
    ("quinconce", {"players": 2}),
    ("quinconce", {"players": 4}),
    ("matador", {"players": 2}),
    ("matador", {"players": 3, "variant": "strategic", "deals": 2}),
    ("matador", {"players": 5, "set": 9}),
    ("echanges", {"players": 3}),
    ("echanges", {"players": 4}),
    ("vingt", {"players": 2}),
    ("vingt", {"players": 3, "target": 15}),
    ("vingt", {"players": 4}),
]


@pytest.mark.parametrize("rule,params", CASES)
def test_every_game_passes_openspiels_random_simulation_test(rule, params):
    game = og.load_game(rule, params)
    assert game.get_type().short_name == f"magdomino_{rule}"
    assert game.num_players() == params["players"]
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_a_copied_state_does_not_carry_the_action_cache():
    # OpenSpiel copies a Python state by pickling its __dict__ at every step of a random
    # simulation; copies that carried the game's action cache grew with every move played.
    import copy
    import pickle

    state = og.load_game("quinconce", {"players": 2}).new_initial_state()
    state.inner.game._cache.update({("filler", i): None for i in range(100_000)})
    assert len(pickle.dumps(state.inner)) < 50_000  # the cache alone pickles to megabytes
    twin = copy.deepcopy(state)
    assert len(twin.inner.game._cache) < 1000 and twin.inner is not state.inner
    assert twin.history() == state.history() and str(twin) == str(state)
    state.apply_action(state.legal_actions()[0])  # the copy does not follow the original
    assert twin.history() != state.history()


def test_register_all_is_idempotent_and_loads_by_name():
    og.register_all()
    og.register_all()
    game = pyspiel.load_game("magdomino_defi", {"players": 3, "variant": "extremities"})
    assert game.num_players() == 3
    assert set(og.parameters("defi")) == set(game.get_type().parameter_specification)


def _deal(state, rng):
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(actions, p=probs)))


def _decision_states(game, rng, games):
    """Play ``games`` games at random (chance by its odds, moves uniformly among the legal
    ids), yielding each state where a player is to move before its move is applied."""
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _deal(state, rng)
                continue
            yield state
            ids = state.legal_actions()
            state.apply_action(ids[int(rng.integers(len(ids)))])


def test_the_deal_is_uniform_over_the_tiles_left_and_lands_in_seat_order():
    game = og.load_game("traditional", {"players": 3})
    state = game.new_initial_state()
    picks = []
    for k in range(28):
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 28 - k  # a tile is dealt once
        assert all(abs(p - 1 / (28 - k)) < 1e-12 for _, p in outcomes)
        assert not set(picks) & {a for a, _ in outcomes}
        # lowest index first, then the highest left: any order is a valid deal
        choice = outcomes[0][0] if k % 2 else outcomes[-1][0]
        picks.append(choice)
        state.apply_action(choice)
        if k < 27:
            assert state.is_chance_node()
    if state.is_chance_node():  # a one-colour hand: dealt again, as the package does
        assert state.chance_outcomes()[0][1] == pytest.approx(1 / 28)
        return
    tiles = [ALL_TILES[i] for i in picks]
    assert state.inner.hands == [sorted(tiles[0:6]), sorted(tiles[6:12]), sorted(tiles[12:18])]
    assert state.inner.stock[::-1] == tiles[18:]  # drawn in the order dealt


def test_matador_draws_are_chance_nodes_over_the_stock():
    game = og.load_game("matador", {"players": 2})
    rng = np.random.default_rng(3)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if state.inner.due != "deal":
                    stock = sorted(ALL_TILES.index(t) for t in state.inner.stock)
                    assert [a for a, _ in outcomes] == stock
                    before = len(state.inner.stock)
                    state.apply_action(outcomes[0][0])
                    assert len(state.inner.stock) == before - 1
                    continue
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        assert sum(state.returns()) == pytest.approx(1.0)  # ties share one win


@pytest.mark.parametrize("rule,players", [("traditional", 3), ("defi", 2), ("quinconce", 3), ("matador", 2), ("echanges", 3)])
def test_action_ids_are_the_shared_compact_ids_and_round_trip_on_random_states(rule, players):
    from magdomino.games import codec

    game = og.load_game(rule, {"players": players})
    index = {tile: i for i, tile in enumerate(game.tiles)}
    rng = np.random.default_rng(7)
    checked = 0
    for state in _decision_states(game, rng, 3):
        inner = state.inner.legal_actions()
        ids = state.legal_actions()
        assert len(set(ids)) == len(inner) == len(ids)  # one id per action, none shared
        assert all(0 <= i < game.num_distinct_actions() for i in ids)
        for a in inner:
            i = codec.chain_id(index, a) if rule in og.CHAIN_RULES else codec.tower_id(state.inner.placed, a)
            assert state.decode(i) == a
            checked += 1
    assert checked > 30
    assert game.num_distinct_actions() == (codec.TOWER_ACTIONS if rule in og.CORE_RULES else codec.chain_actions(28))


@pytest.mark.parametrize("rule,params", [("defi", {"players": 2}), ("matador", {"players": 3}), ("vingt", {"players": 2})])
def test_openspiels_rl_environment_plays_the_games_on_their_tensors(rule, params):
    from open_spiel.python import rl_environment

    game = og.load_game(rule, params)
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=3))
    size = game.information_state_tensor_size()
    assert size == game.observation_tensor_size() > 100
    rng = np.random.default_rng(0)
    ts = env.reset()
    steps = 0
    while not ts.last():
        seat = ts.observations["current_player"]
        tensor = np.asarray(ts.observations["info_state"][seat])
        assert tensor.shape == (size,) and tensor.any()
        legal = ts.observations["legal_actions"][seat]
        ts = env.step([int(rng.choice(legal))])
        steps += 1
    assert steps > 5 and sum(ts.rewards) == pytest.approx(1.0)


@pytest.mark.parametrize("rule", ["defi", "matador", "vingt"])
def test_games_and_states_pickle_as_openspiels_own_python_games_do(rule):
    import pickle

    game = og.load_game(rule, {"players": 3})
    assert pickle.loads(pickle.dumps(game)).num_players() == 3
    state = game.new_initial_state()
    _deal(state, np.random.default_rng(1))
    state.apply_action(state.legal_actions()[-1])
    twin = pickle.loads(pickle.dumps(state))
    assert twin.history() == state.history() and str(twin) == str(state)
    assert twin.legal_actions() == state.legal_actions()


def test_the_tensor_holds_the_movers_hand_and_every_seats_count():
    from magdomino.games.family import TOWER, Observation

    game = og.load_game("quinconce", {"players": 2})
    state = game.new_initial_state()
    _deal(state, np.random.default_rng(2))
    for _ in range(3):
        state.apply_action(state.legal_actions()[-1])
        _deal(state, np.random.default_rng(2))
    seat = state.current_player()
    views = Observation(TOWER.pieces(state.inner.game))
    views.tensor[:] = state.observation_tensor(seat)
    assert state.information_state_tensor(seat) == state.observation_tensor(seat)
    hand = [ALL_TILES[i] for i in np.flatnonzero(views.dict["hand"])]
    assert hand == sorted(state.inner.hands[seat])
    assert views.dict["hand_sizes"].tolist() == [len(state.inner.hands[(seat + k) % 2]) for k in range(2)]
    assert views.dict["construction"][:, 0].sum() == len(state.inner.placed)
    owed = state.inner.owed
    assert views.dict["modes"].tolist() == [owed[(seat + k) % 2] == "tower" for k in range(2)]


def test_a_seat_sees_its_hand_and_the_public_history_only():
    game = og.load_game("defi", {"players": 3})
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    _deal(state, rng)
    for _ in range(4):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[0])
        _deal(state, rng)
    seat = state.current_player()
    text = state.information_state_string(seat)
    assert str(sorted(state.inner.hands[seat])) in text
    other = (seat + 1) % 3
    sample = og.resample(state, seat, np.random.RandomState(5))
    assert sample.information_state_string(seat) == text
    assert sample.inner.hands[seat] == state.inner.hands[seat]
    assert [len(h) for h in sample.inner.hands] == [len(h) for h in state.inner.hands]
    hidden = sorted(t for s in range(3) if s != seat for t in state.inner.hands[s]) + sorted(state.inner.stock)
    hidden_after = sorted(t for s in range(3) if s != seat for t in sample.inner.hands[s]) + sorted(sample.inner.stock)
    assert sorted(hidden) == sorted(hidden_after)  # the same tiles, dealt again
    samples = [og.resample(state, seat, np.random.RandomState(k)).inner.hands[other] for k in range(10)]
    assert any(h != state.inner.hands[other] for h in samples)


def _game_with(rule, players, agents, seed):
    state = make_game(rule, players, seed).new_initial_state()
    moves = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
            continue
        legal = state.legal_actions()
        a = agents[state.current_player()].choose(state)
        assert a in legal
        moves.append(a)
        state.apply_action(a)
    return moves, state.returns()


@pytest.mark.parametrize("rule,players", [("matador", 2), ("defi", 2), ("traditional", 3)])
def test_ismcts_plays_legal_moves_and_is_deterministic_for_a_seed(rule, players):
    from magdomino.games.tower import players as kinds

    def agents(seed):
        return [og.ISMCTSPlayer(seed, max_simulations=20)] + [kinds.make_player("random", 9)] * (players - 1)

    first = _game_with(rule, players, agents(4), 2)
    again = _game_with(rule, players, agents(4), 2)
    assert first == again
    assert len(first[0]) > 3


def test_ismcts_is_a_player_kind_everywhere():
    from magdomino.games.chain.players import make_echanges_player, make_matador_player
    from magdomino.games.tower.players import make_player
    from magdomino.games.vingt import players as vingt

    for make in (make_player, make_matador_player, make_echanges_player, vingt.make_player):
        assert make("ismcts", 3).kind == "ismcts"


def test_play_ismcts_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    assert main(["play", "--rule", "matador", "--players", "2", "--player", "ismcts"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--player" in err[0] and "pip install 'magdomino[openspiel]'" in err[0]


def test_tower_games_with_the_statics_pass_the_random_simulation_test():
    pytest.importorskip("magdomino.physics.statics_adjudicator")
    game = og.load_game("defi", {"players": 2, "physics": "statics", "max_placements": 15})
    assert game.new_initial_state().inner.game.adjudicator.name == "statics"
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_ismcts_sits_at_a_seat_in_a_statics_tower_game():
    statics = pytest.importorskip("magdomino.physics.statics_adjudicator")
    game = Game("defi", 2, 1, adjudicator=statics.StaticsAdjudicator("standard"), max_placements=12)
    state = game.new_initial_state()
    bot = og.ISMCTSPlayer(2, max_simulations=10)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
            continue
        legal = state.legal_actions()
        a = bot.choose(state) if state.current_player() == 0 else legal[0]
        assert a in legal
        state.apply_action(a)
    assert state.placements <= 12 or state.abandoned() == 1


# -- 20 sur 20 (magdomino.games.openspiel.vingt) --------------------------------------------------


def _vingt_state(rack, players=2):
    """A pyspiel 20 sur 20 state at seat 0 on a table of one tile, 3-4 on (0, 0)-(1, 0)."""
    from magdomino.games.vingt.game import VingtGame, VingtState

    inner = VingtState.position(VingtGame(players, 0), [(0, 0, 0, 3, 4)], [rack, [(5, 5)]], stock=[(6, 6)])
    return og.from_package_state(inner)


def test_vingt_action_ids_follow_the_documented_enumeration():
    from magdomino.games import vingt_codec as vc
    from magdomino.games.vingt.game import TILES

    state = _vingt_state([(4, 9), (1, 2), (3, 7)])
    legal = state.inner.legal_actions()
    # by hand: anchor = the 3 of 3-4, the half at its first cell (0, 0): 2 * index(3-4) + 0; d = 0;
    # frame id = (anchor * 2 + d) * 20 + (k - 1) * (k + 2) / 2 + b; then per tile
    # 4,360 + 2 * index(tile) + (high pips first)
    anchor = 2 * TILES.index((3, 4))
    frame = (anchor * 2 + 0) * 20

    def tile(t, high=0):
        return 4360 + 2 * TILES.index(t) + high

    hand = {
        ("place", 0, ((2, 0, 4, 9),)): (frame + 0, tile((4, 9))),
        ("place", 0, ((2, 0, 9, 4),)): (frame + 0, tile((4, 9), 1)),
        ("place", 0, ((-2, 0, 4, 9),)): (frame + 1, tile((4, 9))),
        ("place", 0, ((-2, 0, 9, 4),)): (frame + 1, tile((4, 9), 1)),
        ("place", 0, ((2, 0, 1, 2), (4, 0, 3, 7))): (frame + 2, tile((1, 2)), tile((3, 7))),
        ("place", 0, ((2, 0, 3, 7), (4, 0, 1, 2))): (frame + 2, tile((3, 7)), tile((1, 2))),
        ("place", 0, ((2, 0, 7, 3), (4, 0, 2, 1))): (frame + 2, tile((3, 7), 1), tile((1, 2), 1)),
    }
    for move, expected in hand.items():
        assert move in legal
        assert vc.parts(state.inner, move) == expected
        step = state.clone()
        for i in expected[:-1]:
            assert i in step.legal_actions() and step.decode(i) is None  # a sub-step
            step.apply_action(i)
        assert step.current_player() == 0 and step.decode(expected[-1]) == move
    assert state.get_game().num_distinct_actions() == vc.NUM_ACTIONS == 4470
    assert vc.PASS_ID == vc.NUM_ACTIONS - 2


def test_vingt_moves_lie_in_one_run_with_an_old_half_as_the_ids_assume():
    from magdomino.games.vingt.moves import STEPS, alignment, key

    state = _vingt_state([(4, 9), (1, 2), (3, 7), (2, 8), (5, 6)])
    moves = [m for m in state.inner.legal_actions() if m[0] == "place"]
    assert len(moves) > 10
    for move in moves:
        occ = dict(state.inner.occ)
        new = set()
        for x, y, p, q in move[2]:
            occ[key(x, y)] = p
            occ[key(x, y) + STEPS[move[1]]] = q
            new |= {key(x, y), key(x, y) + STEPS[move[1]]}
        keys, total = alignment(occ, move)
        assert total == 20 and new <= set(keys) and set(keys) - new


@pytest.mark.parametrize("players", [2, 3, 4])
def test_vingt_action_ids_are_distinct_round_trip_and_ignore_hidden_tiles(players):
    from magdomino.games import vingt_codec as vc

    game = og.load_game("vingt", {"players": players})
    rng = np.random.default_rng(players)
    checked = multi = 0
    for state in _decision_states(game, rng, 4):
        ids = state.legal_actions()
        assert all(0 <= i < game.num_distinct_actions() for i in ids)
        seat = state.current_player()
        other = og.resample(state, seat, np.random.RandomState(len(ids)))
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.legal_actions() == ids  # the same information set: the same ids
        if state.turn.chosen:
            continue  # a sub-step: its move was checked at its first step
        inner = state.inner.legal_actions()
        ways = vc.move_ids(state.inner)
        assert len(ways) == len(inner) and sorted(ways.values()) == sorted(inner)  # one way per move
        for chosen, move in list(ways.items())[:40]:  # ... and the ids choose it, here and in the resampled state
            for twin in (state.clone(), other.clone()):
                for i in chosen[:-1]:
                    twin.apply_action(i)
                assert twin.decode(chosen[-1]) == move
        checked += len(inner)
        multi += sum(1 for a in inner if a[0] == "place" and len(a[2]) > 1)
    assert checked > 100 and multi > 10
    assert state.is_terminal()  # the last game played out (states are mutated in place)
    with pytest.raises(ValueError):
        state.decode(0)  # a terminal state has no legal move


def test_vingt_resampling_deals_the_hidden_tiles_again():
    game = og.load_game("vingt", {"players": 3})
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    _deal(state, rng)
    seat = state.current_player()
    text = state.information_state_string(seat)
    assert str(sorted(state.inner.racks[seat])) in text
    hidden = sorted(t for s in range(3) if s != seat for t in state.inner.racks[s]) + sorted(state.inner.stock)
    samples = [og.resample(state, seat, np.random.RandomState(k)).inner for k in range(5)]
    for s in samples:
        assert s.racks[seat] == state.inner.racks[seat]
        assert [len(r) for r in s.racks] == [len(r) for r in state.inner.racks]
        assert sorted(sorted(t for i in range(3) if i != seat for t in s.racks[i]) + sorted(s.stock)) == sorted(hidden)
    assert any(s.racks[(seat + 1) % 3] != state.inner.racks[(seat + 1) % 3] for s in samples)


def test_ismcts_plays_a_whole_vingt_game():
    from magdomino.games.vingt.game import VingtGame
    from magdomino.games.vingt.players import make_player

    def play(seed):
        state = VingtGame(2, 3).new_initial_state()
        agents = [og.ISMCTSPlayer(seed, max_simulations=15), make_player("greedy", 1)]
        mine = []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.legal_actions()[0])
                continue
            a = agents[state.current_player()].choose(state)
            assert a in state.legal_actions()
            if state.current_player() == 0:
                mine.append(a)
            state.apply_action(a)
        return mine, state.returns()

    first = play(4)
    assert sum(1 for a in first[0] if a[0] == "place") >= 3
    assert sum(first[1]) == pytest.approx(1.0)
    assert play(4) == first  # deterministic for a seed
