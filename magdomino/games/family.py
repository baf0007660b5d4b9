"""The game families as the program faces read them: tower, chain and 20 sur 20.

Every face (the session :mod:`magdomino.games.session` and the faces on it: ``md.play``,
``md.game``, ``magdomino play``, the terminal, replays and reports; the program faces
:mod:`magdomino.games.pettingzoo`, :mod:`magdomino.games.openspiel.games`; tournaments)
asks a game's family, never the rule's name, for what differs between the games: its rules,
the tiles of the set, the hands and scores, whether a deal has been made, whether physics
can judge it and judges it by default, the runaway guards, the default seat, the record, its
log lines and its saved options, a whole game played to its record, whether the game ended
abandoned, the seat's choice as action ids (:meth:`Family.turn`), a move's text and the
observation a network reads (:meth:`Family.observe`). :func:`family_of` finds a rule's
family; a seventh game joins a family here (or brings one): ``docs/howto/layers.md`` says
what else it touches.

**Placement limit.** The rules have no placement cap, but a deal judged by physics can
collapse for ever; every face gives a tower game judged by physics the runaway guard
``max_placements`` = :data:`PLACEMENT_GUARD` unless told otherwise (a deal that reaches it
ends abandoned, not scored).

**Observations** (:class:`Observation`): one flat ``float32`` vector per seat, its pieces
(named views, shapes below) laid end to end in this order. Rows indexed by seat list the
observing seat first, then the seats after it in play order; ``T`` is the number of tiles
of the game's set (tower rules 28, matador and echanges their set's, 20 sur 20 54) and
``N`` the number of players.

- every game: ``hand`` ``(T,)`` (1 for each tile the seat holds, in the set's order);
  ``hand_sizes`` ``(N,)``; ``stock`` ``(1,)`` (tiles in the stock); ``scores`` ``(N,)``
  (the match totals as the game counts them: tower rules pips left, lower is better;
  matador and 20 sur 20 points, higher is better; echanges SUN minus RAIN, the same for
  every seat);
- tower rules: ``construction`` ``(28, 10)``, one row per tile of the set: in the
  construction (0/1), its placement number, its grid square x, y and level, its direction
  one-hot (+x, −x, +y, −y), an extremity (0/1); ``modes`` ``(N,)`` (1: the seat owes a
  placement on top, En quinconce); ``progress`` ``(3,)`` (deal number, placements this deal,
  collapses);
- matador, echanges: ``table`` ``(T, 5)``, one row per tile of the set: on the table
  (0/1), its position from the left end, the pips its left and right halves show, laid
  across (0/1); ``ends`` ``(2, 2)`` (per end the value it shows, −1 none, and 0 open or 1
  closed by a crossed matador); echanges also ``hands`` ``(N, T)`` (every hand: face up in
  this game), ``boxes`` ``(2,)`` (tiles on SUN, on RAIN), ``phase`` ``(4,)`` (one-hot:
  play, exchange, draw, swapped);
- 20 sur 20: ``table`` ``(160, 4)`` (the occupied cells sorted by position: present, x, y,
  value: a half's pips, −1 − seat for a seat's marker); ``markers_left`` ``(N,)``;
  ``pending`` ``(5,)`` (the move being chosen in sub-steps, :mod:`magdomino.games.vingt_codec`:
  a frame chosen (0/1), d, k, b, tiles chosen so far) and ``pending_tiles`` ``(T,)`` (1 for
  each tile chosen so far).
"""

from __future__ import annotations

import numpy as np

from magdomino.checks import check_seed
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games import codec, vingt_codec
from magdomino.games.chain.echanges import EchangesGame
from magdomino.games.chain.matador import MatadorGame
from magdomino.games.chain.players import make_echanges_player, make_matador_player
from magdomino.games.core import ABANDONED, FAMILIES, register_family, register_game, register_rule
from magdomino.games.core import family_of as family_of
from magdomino.games.core import judged_rules as judged_rules
from magdomino.games.move_texts import chain_move_text, tower_move_text, vingt_move_text
from magdomino.games.picture import board_picture
from magdomino.games.players import register_players
from magdomino.games.tower import players as tower_players
from magdomino.games.tower.rules import Defi, Quinconce, Traditional
from magdomino.games.vingt import players as vingt_players
from magdomino.games.vingt.game import VingtGame
from magdomino.maths.geometry import GridPose
from magdomino.model.tiles import ALL_TILES, TILE_SETS

PLACEMENT_GUARD = 300
"""``max_placements`` of a tower game judged by physics in every face unless given."""
VINGT_CELLS = 160
"""Rows of 20 sur 20's ``table``: 54 tiles of two halves and at most 45 markers fit."""
_PHASES = ("play", "exchange", "draw", "swapped")


class Observation:
    """A flat ``float32`` tensor and named views of its pieces (OpenSpiel's observer layout).

    Parameters
    ----------
    pieces : list of (name, shape)
    """

    def __init__(self, pieces):
        sizes = [int(np.prod(shape)) for _, shape in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict = {}
        start = 0
        for (name, shape), size in zip(pieces, sizes):
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size


class WholeTurn:
    """A seat's choice when one id is one whole move (the tower and chain families):
    ``ids`` maps each legal id to its move; :meth:`choose` returns the move."""

    __slots__ = ("ids",)

    def __init__(self, ids: dict):
        self.ids = ids

    def choose(self, action_id: int):
        try:
            return self.ids[int(action_id)]
        except KeyError:
            raise ValueError(f"action id {action_id} is not legal here") from None

    def pending(self) -> tuple:
        return ()

    def copy(self) -> WholeTurn:
        return self  # never changed once made: its moves are immutable values

    def __deepcopy__(self, memo) -> WholeTurn:
        return self


class Family:
    """What a face needs of a family of games (one object per family, stateless).

    The session finds it by :func:`~magdomino.games.core.family_of` (registered there at the
    end of this module): this module imports the games' records, which import the session."""

    name = ""
    games: dict = {}
    """Its games by rule name: the class :func:`~magdomino.games.core.make_game` makes (a
    :class:`~magdomino.games.core.Rule` object for the tower rules, played by the core's
    :class:`~magdomino.games.core.Game`)."""
    players: dict = {}
    """Each rule's ``make_player(kind, seed)`` (:func:`~magdomino.games.players.players_of`)."""
    rules: tuple = ()
    """Its rules' names, in the order the faces list them."""
    builds = False
    """Its games build a construction in the placement language (an ``md.Construction``)."""
    judged = False
    """Its games can be judged by physics."""
    judged_by_default: tuple = ()
    """Its rules that physics judges when no physics is named (:meth:`default_physics`)."""
    guard = None
    """``max_placements`` of its games when judged by physics (the runaway guard), else None."""
    max_actions = 1_000_000
    """The session's runaway guard on a game's number of actions (an adjudicator collapsing every time)."""
    deals_key = "deals"
    """The key of a record's (:meth:`play`) per-deal results."""

    def register(self) -> None:
        """Make its games, players and itself known to the core's registries
        (:func:`~magdomino.games.core.make_game`, :func:`~magdomino.games.players.players_of`,
        :func:`~magdomino.games.core.family_of`)."""
        for rule, game in self.games.items():
            register_game(rule, game)
            register_players(self.players[rule], rule)
        register_family(self)

    def default_physics(self, rule: str) -> str:
        """The physics a game of ``rule`` is judged by when none is named, in every face:
        ``"dynamics"`` (PyBullet's world) for the rules of :attr:`judged_by_default`, ``"none"``
        otherwise."""
        return "dynamics" if rule in self.judged_by_default else "none"

    def default_seat(self, game) -> str:
        """Every seat's player kind in ``game`` when none is named."""
        return "random"

    def record(self, game, state, kinds: list, events: list) -> dict:
        """The JSON record of ``game`` at ``state`` played by the seats ``kinds`` (names), with the log ``events``."""
        raise NotImplementedError

    def event_lines(self, event: dict, game) -> list:
        """One event of the log as the game's record prints it (a deal: its hands too)."""
        raise NotImplementedError

    def saved_options(self, record: dict, adjudicator, source: str) -> dict:
        """The game options a saved record (:meth:`record`) was played with (InputError naming
        ``source`` and the key when one is not what the record writes)."""
        return dict(record.get("options") or {})

    def play(self, rule: str, players: int, seed: int, seats, options: dict, adjudicator=None) -> dict:
        """A whole game of ``rule`` played by the player kinds ``seats`` (a list, one kind, or
        None: :meth:`default_seat`), as its JSON record."""
        raise NotImplementedError

    def format_record(self, record: dict) -> str:
        """A record as the game's log prints it."""
        raise NotImplementedError

    def check_record(self, record: dict, source: str) -> dict:
        """``record`` if it is one of this family's records (its keys as :meth:`record`
        writes them); InputError naming ``source`` and the key otherwise."""
        raise NotImplementedError

    def placements(self, events: list) -> list:
        """The current construction's tiles in the placement language after ``events``; [] without one."""
        return []

    def match_scores(self, state) -> list:
        """The match totals per seat as the record's ``scores`` (module docstring)."""
        return list(state.totals)

    def tiles(self, game) -> tuple:
        """The tiles of ``game``'s set, in the order of the observations' rows."""
        raise NotImplementedError

    def action_size(self, game) -> int:
        raise NotImplementedError

    def has_deal(self, state) -> bool:
        """A deal has been made (a state before its first deal holds no hands)."""
        return state.deal_no >= 0 and bool(state.hands)

    def hands(self, state) -> list:
        return state.hands

    def scores(self, state) -> list:
        return self.match_scores(state)

    def truncated(self, state) -> bool:
        """The game ended abandoned by the runaway guard (not scored)."""
        return False

    def turn(self, state):
        """The seat to move's choice as ids: a :class:`WholeTurn` or a
        :class:`~magdomino.games.vingt_codec.VingtTurn`."""
        raise NotImplementedError

    def id_texts(self, state, turn) -> dict:
        """``{id: text}`` of the legal ids of ``turn``, the choice at ``state``."""
        return {i: self.text(state, move) for i, move in sorted(turn.ids.items())}

    def text(self, state, move, long: bool = False) -> str:
        """A legal move of ``state`` as the game's log writes it; with ``long`` the longer text
        that tells apart two moves that read alike."""
        raise NotImplementedError

    def pieces(self, game) -> list:
        """``[(name, shape)]`` of the observation (module docstring)."""
        t, n = len(self.tiles(game)), game.players
        return [("hand", (t,)), ("hand_sizes", (n,)), ("stock", (1,)), ("scores", (n,))]

    def observe(self, state, seat: int, turn, views: dict) -> None:
        """Fill ``views`` (an :class:`Observation`'s ``dict``, zeroed) for ``seat``."""
        n = state.game.players
        order = [(seat + i) % n for i in range(n)]
        if not self.has_deal(state):
            return
        index = {tile: i for i, tile in enumerate(self.tiles(state.game))}
        hands = self.hands(state)
        for tile in hands[seat]:
            views["hand"][index[tuple(tile)]] = 1
        views["hand_sizes"][:] = [len(hands[s]) for s in order]
        views["stock"][0] = len(state.stock)
        totals = self.scores(state)
        views["scores"][:] = [totals[s] for s in order]
        self._observe(state, order, index, turn, views)

    def _observe(self, state, order: list, index: dict, turn, views: dict) -> None:
        pass

    def picture(self, state) -> np.ndarray:
        """The board seen from above, an ``(H, W, 3)`` ``uint8`` array (:mod:`magdomino.games.picture`)."""
        return board_picture(self._tiles_seen(state) if self.has_deal(state) else [])

    def _tiles_seen(self, state) -> list:
        raise NotImplementedError


class TowerFamily(Family):
    """Traditional, Défi, En quinconce: the tower rules of :mod:`magdomino.games.tower`."""

    name = "tower"
    games = {"traditional": Traditional(), "defi": Defi(), "quinconce": Quinconce()}
    players = dict.fromkeys(games, tower_players.make_player)
    rules = tuple(games)
    builds = True
    judged = True
    judged_by_default = ("defi", "quinconce")
    """Their collapses are the game; the traditional rule has none."""
    guard = PLACEMENT_GUARD
    max_actions = 200_000

    def register(self) -> None:
        """As :meth:`Family.register`, its rules played by the core's :class:`~magdomino.games.core.Game`."""
        for rule, game in self.games.items():
            register_rule(game)
            register_players(self.players[rule], rule)
        register_family(self)

    def default_seat(self, game) -> str:
        """``careful`` in a game whose collapses physics judges (random seats rebuild a Défi
        tower dozens of times a deal, so a newcomer's first game would be abandoned by the
        runaway guard), ``random`` elsewhere."""
        return "careful" if not game.trivial and getattr(game.rulebook, "can_collapse", False) else "random"

    def record(self, game, state, kinds, events) -> dict:
        from magdomino.games.record import tower_record

        return tower_record(game, state, kinds, events)

    def event_lines(self, event, game) -> list:
        from magdomino.games.record import event_lines

        return event_lines(event)

    def saved_options(self, record, adjudicator, source) -> dict:
        from magdomino.games.record import game_options

        options = game_options(record, adjudicator, source)
        options["deals"] = (record.get("session") or {}).get("deals", 1)
        return options

    def play(self, rule, players, seed, seats, options, adjudicator=None) -> dict:
        from magdomino.games.record import play_game

        return play_game(rule, players, seed=seed, physics=adjudicator, player_kinds=seats, **options)

    def format_record(self, record) -> str:
        from magdomino.games.record import format_record

        return format_record(record)

    def check_record(self, record, source) -> dict:
        from magdomino.games.record import check_construction, check_events

        check_seed(record.get("seed"), source=source)
        check_construction(record, source)
        check_events(record, source)
        return record

    def placements(self, events) -> list:
        """The placements since the last deal, collapse or new start."""
        out = []
        for ev in reversed(events):
            if ev["type"] in ("deal", "collapse"):
                break
            if ev["type"] == "place":
                out.append(ev["placement"])
                if ev.get("start") or ev.get("restart"):
                    break
        return out[::-1]

    def tiles(self, game) -> tuple:
        return ALL_TILES

    def action_size(self, game) -> int:
        return codec.TOWER_ACTIONS

    def has_deal(self, state) -> bool:
        return state.deal_no >= 0

    def match_scores(self, state) -> list:
        return list(state.scores())

    def truncated(self, state) -> bool:
        return bool(state.results) and state.results[-1]["reason"] == ABANDONED

    def turn(self, state) -> WholeTurn:
        return WholeTurn(codec.tower_ids(state))

    def text(self, state, move, long=False) -> str:
        """The placement language (:mod:`magdomino.studies.placement_language`), or draw, pass."""
        return tower_move_text(state, move, long)

    def pieces(self, game) -> list:
        n = game.players
        return super().pieces(game) + [("construction", (28, 10)), ("modes", (n,)), ("progress", (3,))]

    def _observe(self, state, order, index, turn, views) -> None:
        rows = views["construction"]
        grid = state.grid
        if grid is not None and len(grid.degree) == len(state.placed):
            ends = {n for n, k in enumerate(grid.degree) if k <= 1}
        else:  # traditional without a grid: the chain's two end tiles
            ends = {state.ends[2], state.ends[5]} if state.ends else set()
        for number, a in enumerate(state.placed):
            row = rows[index[a.tile]]
            row[:5] = (1, number, a.x, a.y, a.level)
            row[5 + a.d] = 1
            row[9] = number in ends
        owed = state.owed  # only En quinconce's modes change: the other rules' stay "flat"
        views["modes"][:] = [owed[s] == "tower" for s in order]
        views["progress"][:] = (max(state.deal_no, 0), state.placements, state.collapses)

    def _tiles_seen(self, state) -> list:
        out = []
        for a in state.placed:
            s0, s1 = GridPose(a.x, a.y, a.level, a.d).squares()
            out.append((((s0[0], s0[1], a.tile[0]), (s1[0], s1[1], a.tile[1])), a.level))
        return out


class ChainFamily(Family):
    """Le Matador and Le jeu des échanges (:mod:`magdomino.games.chain`)."""

    name = "chain"
    games = {"matador": MatadorGame, "echanges": EchangesGame}
    players = {"matador": make_matador_player, "echanges": make_echanges_player}
    rules = tuple(games)

    def text(self, state, move, long=False) -> str:
        return chain_move_text(state, move, long)

    def record(self, game, state, kinds, events) -> dict:
        from magdomino.games.chain.record import chain_record

        return chain_record(game, state, kinds, events)

    def event_lines(self, event, game) -> list:
        from magdomino.games.chain.record import event_line

        return [line for line in [event_line(event)] if line]

    def play(self, rule, players, seed, seats, options, adjudicator=None) -> dict:
        from magdomino.games.chain.record import play_chain

        return play_chain(rule, players, seed, options, seats)

    def format_record(self, record) -> str:
        from magdomino.games.chain.record import format_chain_record

        return format_chain_record(record)

    def check_record(self, record, source) -> dict:
        from magdomino.games.chain.record import check_chain_record

        return check_chain_record(record, source)

    def tiles(self, game) -> tuple:
        return tuple(game.tiles)

    def action_size(self, game) -> int:
        return codec.chain_actions(len(game.tiles))

    def scores(self, state) -> list:
        if state.game.rule == "echanges":
            return [len(state.sun) - len(state.rain)] * state.game.players
        return state.totals

    def turn(self, state) -> WholeTurn:
        return WholeTurn(codec.chain_ids(state))

    def pieces(self, game) -> list:
        t, n = len(game.tiles), game.players
        out = super().pieces(game) + [("table", (t, 5)), ("ends", (2, 2))]
        if game.rule == "echanges":
            out += [("hands", (n, t)), ("boxes", (2,)), ("phase", (len(_PHASES),))]
        return out

    def _observe(self, state, order, index, turn, views) -> None:
        rows = views["table"]
        for i, lay in enumerate(state.table):
            left, right = lay["halves"]
            rows[index[tuple(lay["tile"])]] = (1, i, left, right, int(bool(lay.get("crossed"))))
        ends = views["ends"]
        ends[:] = -1
        for k, (value, kind) in enumerate((state.ends or [])[:2]):
            ends[k] = (-1 if value is None else value, 0 if kind == "open" else 1)
        if state.game.rule == "echanges":
            for row, s in enumerate(order):
                for tile in state.hands[s]:
                    views["hands"][row, index[tuple(tile)]] = 1
            views["boxes"][:] = (len(state.sun), len(state.rain))
            if state.phase in _PHASES:
                views["phase"][_PHASES.index(state.phase)] = 1

    def _tiles_seen(self, state) -> list:
        return [(((2 * i, 0, lay["halves"][0]), (2 * i + 1, 0, lay["halves"][1])), 0) for i, lay in enumerate(state.table)]


class VingtFamily(Family):
    """20 sur 20 (:mod:`magdomino.games.vingt`): moves chosen in one-tile sub-steps."""

    name = "vingt"
    games = {"vingt": VingtGame}
    players = {"vingt": vingt_players.make_player}
    rules = tuple(games)
    deals_key = "rounds"

    def text(self, state, move, long=False) -> str:
        return vingt_move_text(state, move, long)

    def record(self, game, state, kinds, events) -> dict:
        from magdomino.games.vingt.game import vingt_record

        return vingt_record(game, state, kinds, events)

    def event_lines(self, event, game) -> list:
        from magdomino.games.vingt.game import event_line

        return [line for line in [event_line(event)] if line]

    def saved_options(self, record, adjudicator, source) -> dict:
        return {"target": record.get("target")}

    def play(self, rule, players, seed, seats, options, adjudicator=None) -> dict:
        from magdomino.games.vingt.game import play_vingt

        return play_vingt(players, seed, player_kinds=seats, **options)

    def format_record(self, record) -> str:
        from magdomino.games.vingt.game import format_record

        return format_record(record)

    def check_record(self, record, source) -> dict:
        from magdomino.games.vingt.game import check_record

        return check_record(record, source)

    def tiles(self, game) -> tuple:
        from magdomino.games.vingt.game import TILES

        return tuple(TILES)

    def action_size(self, game) -> int:
        return vingt_codec.NUM_ACTIONS

    def has_deal(self, state) -> bool:
        return state.round_no >= 0

    def hands(self, state) -> list:
        return state.racks

    def turn(self, state) -> vingt_codec.VingtTurn:
        return vingt_codec.VingtTurn(state)

    def id_texts(self, state, turn) -> dict:
        """What each legal id of a sub-step chooses (:func:`~magdomino.games.vingt_codec.id_text`)."""
        return {i: vingt_codec.id_text(i) for i in turn.ids}

    def pieces(self, game) -> list:
        return super().pieces(game) + [("table", (VINGT_CELLS, 4)), ("markers_left", (game.players,)),
                                       ("pending", (5,)), ("pending_tiles", (len(self.tiles(game)),))]

    def _observe(self, state, order, index, turn, views) -> None:
        from magdomino.games.vingt.moves import cell

        rows = views["table"]
        for i, k in enumerate(sorted(state.occ)):
            x, y = cell(k)
            rows[i] = (1, x, y, state.occ[k])
        views["markers_left"][:] = [state.markers_left[s] for s in order]
        pending = turn.pending() if turn is not None else ()
        if pending:
            (_, d, k, b), tiles = pending
            views["pending"][:] = (1, d, k, b, len(tiles))
            for t in tiles:
                views["pending_tiles"][(t - vingt_codec.FRAMES) // 2] = 1

    def _tiles_seen(self, state) -> list:
        from magdomino.games.vingt.moves import cell

        return [(((*cell(k), v), (*cell(k), v)), 0) for k, v in state.occ.items()]


TOWER = TowerFamily()
CHAIN = ChainFamily()
VINGT = VingtFamily()
for _family in (TOWER, VINGT, CHAIN):  # the order the faces list the games in
    _family.register()
RULES = tuple(rule for f in FAMILIES.values() for rule in f.rules)
"""Every game a face offers, by family."""


def chain_set_size(options: dict) -> int:
    """Tiles of the set a chain game's ``set`` option names (default the double six)."""
    top = options.get("set", 6)
    if top not in TILE_SETS:
        raise InputError(ARGUMENTS, "set", f"one of {', '.join(map(str, sorted(TILE_SETS)))}, got {top!r}")
    return len(TILE_SETS[top].tiles)
