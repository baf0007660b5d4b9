"""A game a script drives move by move: :class:`GameSession`.

One object plays any of the six games with any seats: built-in player kinds, players of
your own (the player protocol below) and seats the caller drives (``"me"``; ``"human"`` is
a seat a person drives through a face: the terminal, the lab). It knows whose turn it is,
lists the legal moves as the game's log prints them, applies a move, runs the other seats
up to the next turn of a seat the caller drives, and says what happened. ``play_game``,
``play_chain``, ``play_vingt`` (and so tournaments), the terminal seat and ``md.game``
are layers over it, and a browser face can be one: it prints nothing, reads nothing, and
every query is cheap (the legal moves' texts are computed once a position).

Example::

    from magdomino.games.session import GameSession

    g = GameSession("matador", ["me", "greedy", "random"], seed=1)
    while not g.over:
        print(g.hand, g.legal())
        print(g.play(0))          # the first legal move; the others reply
    print(g.winners, g.scores)

**Moves.** :meth:`GameSession.legal` lists the legal moves of the seat to play as text:
the placement language for the tower rules (traditional, Défi, En quinconce: ``"6-3 on #0
(6-6) half 1"``, as the record's ``placement`` prints it), the log's words for the others
(Le Matador ``"3-4 line right"``, ``"6-1 cross left"``; Le jeu des échanges ``"2-5 left"``,
``"swap"``, ``"exchange with seat 2"``; 20 sur 20 ``"3-9 8-0 along x at (0, 0)"``), and
``"draw"``, ``"pass"``, ``"stop"`` where the rules allow. :meth:`GameSession.play` takes
one of those texts (case and spacing free, the pips in brackets optional, or the start of
a single move's text), its index in ``legal()``, or one of :meth:`GameSession.actions`. A
move that is not legal raises :class:`~magdomino.errors.InputError` and changes nothing.
Under physics a placement the physics cannot make (no clear motion) is given back by the
rules: an ``unplayable`` event (:attr:`~magdomino.games.move_texts.Happened.unplayable`),
and the same seat chooses again among its other moves.

**The player protocol.** A seat is a player kind of the rule (``"random"``, ``"greedy"``,
``"careful"``, ...), a seat of the caller's (``"me"``, ``"human"``), or any object with a
``choose(state)`` method that returns one of ``state.legal_actions()``. ``state`` is the
game's position (read it, never change it): ``state.current`` is the seat to play,
``state.hands[seat]`` (20 sur 20: ``state.racks``) its tiles, ``state.legal_actions()``
the legal actions in a stable order. Ten lines make one::

    import magdomino as md

    class Heaviest:
        kind = "heaviest"                  # the name records print (else the class name)

        def choose(self, state):
            moves = state.legal_actions()  # tower actions have .kind and .tile
            places = [m for m in moves if m.kind == "place"]
            return max(places, key=lambda m: sum(m.tile)) if places else moves[0]

    md.play("traditional", seats=[Heaviest(), "greedy", "random"], seed=2)

An object without ``choose``, a ``choose`` that fails on its call, or one that returns a
move that is not legal is one :class:`~magdomino.errors.InputError` naming the seat.

**Records, saving, resuming.** :attr:`GameSession.record` is the game's JSON record, the
one ``magdomino play --json`` writes for the rule (the game so far while it goes on). A
session with seats the caller drives adds ``"session"``: the seats, the number of deals
and every move as its index in the legal moves of its turn (``"moves"``), and ``"over"``.
:meth:`GameSession.resume` plays such a record again from its seed (the other seats choose
again, and must choose as recorded; the physics judges again) and goes on from where it
stopped.

**Randomness.** As ``magdomino play``: the game's seed deals; the seats' players are seeded
from ``numpy.random.SeedSequence(seed).spawn(players)``, so the same seed and seats give
the same game, whichever seats the caller drives.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from magdomino.checks import is_whole
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.core import CHANCE, FAMILIES, TERMINAL, IllegalActionError, family_of, judged_rules, make_game
from magdomino.games.move_texts import Happened, find_move, index_of, move_texts
from magdomino.games.players import players_of

CALLER_SEATS = ("me", "human")
"""Seat names the caller drives (``"human"``: a person, through a face)."""


def default_physics(rule: str) -> str:
    """The physics a game of ``rule`` is judged by when none is named, in every face
    (:meth:`~magdomino.games.family.Family.default_physics`: PyBullet's ``"dynamics"`` for
    Défi and En quinconce, ``"none"`` otherwise)."""
    return family_of(rule).default_physics(rule)


def default_player(game) -> str:
    """Every seat's player kind in ``game`` when none is named
    (:meth:`~magdomino.games.family.Family.default_seat`)."""
    return family_of(game.rule).default_seat(game)


class GameSession:
    """One game of any rule, driven move by move (module docstring).

    Parameters
    ----------
    rule : "traditional" | "defi" | "quinconce" | "vingt" | "matador" | "echanges"
    seats : list or str, optional
        One entry per seat: a player kind of the rule, ``"me"`` / ``"human"`` (the caller's),
        or a player object (module docstring); a string is split on commas. Default:
        ``"me"`` at seat 0 and the rule's default kind (:func:`default_player`)
        at the others.
    players : int, optional
        The number of seats (default ``len(seats)``, or 2 without seats); a seat list of
        another length is refused.
    seed : int
    physics : None, ``"none"`` or an adjudicator object
        Who judges the tower rules' placements (``start``/``place``; see
        :mod:`magdomino.physics.adjudicator`); the other games take none.
    own_physics : bool
        Close the adjudicator when the game is over (or on :meth:`close`).
    **options
        The game's options (:class:`~magdomino.games.core.Game`: ``variant``, ``kids``,
        ``deals``, ``max_placements``...; 20 sur 20 ``target``; the chain games ``set``,
        ``variant``, ``deals``, ``target``).

    The game runs at once up to the first turn of a seat the caller drives (or to its end
    when there is none).
    """

    def __init__(self, rule: str, seats=None, *, players: int | None = None, seed: int = 0, physics=None,
                 own_physics: bool = False, **options):
        kind = family_of(rule)
        if isinstance(seats, str):
            seats = [s.strip() for s in seats.split(",")]
        if seats is not None:
            seats = list(seats)
            if players is not None and players != len(seats):
                raise InputError(ARGUMENTS, "seats", f"one seat per player ({players}), got {len(seats)}")
            players = len(seats)
        elif players is None:
            players = 2
        if kind.judged:
            options["adjudicator"] = physics
        elif physics not in (None, "none"):
            raise InputError(ARGUMENTS, "physics", f"only with {judged_rules()} ({rule} has no physics)")
        game = make_game(rule, players, seed, options)
        if seats is None:
            seats = ["me"] + [kind.default_seat(game)] * (game.players - 1)
        self._setup(game, seats, "seats", own_physics)
        self._advance()

    @classmethod
    def of_game(cls, game, seats, *, key: str = "seats", advance: bool = True, own_physics: bool = False) -> GameSession:
        """A session of the :class:`~magdomino.games.core.Game` ``game`` (any rule's, as
        :func:`~magdomino.games.core.make_game` makes it) with ``seats`` (one per seat);
        ``key`` names the seats in errors; ``advance=False`` runs nothing yet."""
        self = cls.__new__(cls)
        self._setup(game, list(seats), key, own_physics)
        if advance:
            self._advance()
        return self

    def _setup(self, game, seats: list, key: str, own_physics: bool) -> None:
        self.game = game
        self.rule = game.rule
        self.family = family_of(game.rule)
        """The game's :class:`~magdomino.games.family.Family`: what differs between the games."""
        n = game.players
        if len(seats) != n:
            raise InputError(ARGUMENTS, key, f"one seat per player ({n}), got {len(seats)}")
        seeds = np.random.SeedSequence(game.seed).spawn(n)
        make = players_of(game.rule)
        agents, names = [], []
        for i, s in enumerate(seats):
            if isinstance(s, str):
                if s in CALLER_SEATS:
                    agents.append(None)
                else:
                    try:
                        agents.append(make(s, seeds[i]))
                    except InputError as exc:
                        if exc.key != "player_kinds" or key == "player_kinds":
                            raise
                        raise InputError(ARGUMENTS, key, f"seat {i}: {exc.expected}, or 'me' (a seat you drive)") from None
                names.append(s)
            else:
                if not callable(getattr(s, "choose", None)):
                    raise InputError(ARGUMENTS, key, f"seat {i}: a player kind or an object with choose(state) "
                                     f"(the player protocol), got {type(s).__name__}")
                agents.append(s)
                names.append(getattr(s, "kind", None) or type(s).__name__)
        self.agents = agents
        self.seats = tuple(names)
        """Each seat's player, by name (its kind; ``"me"``/``"human"``; an object's ``kind`` or class name)."""
        self.mine = tuple(i for i, a in enumerate(agents) if a is None)
        """The seats the caller drives."""
        self.state = game.new_initial_state()
        self.events: list = []
        """Every event of the game so far (the record's ``events``)."""
        self.state.log = self.events
        self._moves: list[int] = []
        self._steps = 0
        self._legal_cache = None
        self._own = own_physics
        self._closed = False

    # -- queries ----------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def seed(self) -> int:
        return self.game.seed

    @property
    def over(self) -> bool:
        """Whether the match is over."""
        return self.state.current == TERMINAL

    @property
    def turn(self) -> int | None:
        """The seat to play (None when the game is over)."""
        cur = self.state.current
        return None if cur in (TERMINAL, CHANCE) else cur

    @property
    def my_turn(self) -> bool:
        """Whether a seat the caller drives is to play."""
        return self.turn is not None and self.agents[self.turn] is None

    def actions(self) -> tuple:
        """The legal actions of the seat to play, the game's own objects, in ``legal()``'s order."""
        if self.turn is None:
            return ()
        return self.state.legal_actions()

    def legal(self) -> list[str]:
        """The legal moves of the seat to play, as the log prints them (module docstring);
        [] when the game is over. Computed once per position."""
        if self.turn is None:
            return []
        cache = self._legal_cache
        if cache is not None and cache[0] == self._position():
            return list(cache[1])
        texts = move_texts(self.family, self.state, self.state.legal_actions())
        self._legal_cache = (self._position(), texts)
        return list(texts)

    def _position(self) -> tuple:
        return (len(self.events), self._steps)

    def hand_of(self, seat: int) -> list:
        """The tiles in ``seat``'s hand (20 sur 20: rack), sorted, as ``(a, b)`` tuples."""
        return [tuple(t) for t in self.family.hands(self.state)[seat]]

    @property
    def hand(self) -> list:
        """The hand of the caller's seat to play (else of the caller's first seat; [] with none)."""
        seat = self.turn if self.my_turn else (self.mine[0] if self.mine else None)
        return [] if seat is None else self.hand_of(seat)

    @property
    def stock(self) -> int:
        """The number of tiles in the stock."""
        return len(self.state.stock)

    @property
    def scores(self) -> list:
        """The match totals so far, per seat (the record's ``scores``: tower rules, pips left,
        lower is better; 20 sur 20 and Le Matador points, higher is better)."""
        return self.family.match_scores(self.state)

    @property
    def winners(self) -> list:
        """The winning seats once the game is over, else []."""
        return list(self.state.winners())

    def placements(self, upto: int | None = None) -> list[str]:
        """Tower rules: the current construction's tiles in the placement language, in order
        (what ``md.Construction`` takes), or the construction as it was after the first
        ``upto`` events (to show them one by one); [] for the other games."""
        return self.family.placements(self.events if upto is None else self.events[:upto])

    def status(self) -> dict:
        """What a face shows, JSON-ready: ``rule``, ``seats``, ``mine``, ``turn``,
        ``my_turn``, ``over``, ``hand`` (``[a, b]`` pairs), ``legal`` (texts), ``stock``,
        ``hand_sizes``, ``scores``, ``winners`` and ``placements`` (tower rules)."""
        return {
            "rule": self.rule, "seats": list(self.seats), "mine": list(self.mine), "turn": self.turn,
            "my_turn": self.my_turn, "over": self.over, "hand": [list(t) for t in self.hand], "legal": self.legal(),
            "stock": self.stock, "hand_sizes": [len(self.hand_of(s)) for s in range(self.players)],
            "scores": self.scores, "winners": self.winners, "placements": self.placements(),
        }

    def lines(self) -> list[str]:
        """Every event so far as the game's log prints it."""
        return [line for ev in self.events for line in self.event_lines(ev)]

    def risks(self, assessor=None) -> list:
        """Tower rules: each legal move's risk in [0, 1] by ``assessor`` (an adjudicator with
        ``assess``; default the game's), None for a draw or a pass, in ``legal()``'s order;
        None for the other games or without an assessor."""
        if not self.family.builds or self.turn is None:
            return None
        assessor = assessor if assessor is not None else self.game.adjudicator
        if getattr(assessor, "assess", None) is None:
            return None
        legal = self.state.legal_actions()
        places = [k for k, a in enumerate(legal) if a.kind == "place"]
        out: list = [None] * len(legal)
        if places:
            risks = assessor.assess([self.state.placement_view(legal[k]) for k in places])
            for k, r in zip(places, risks):
                out[k] = float(r)
        return out

    @property
    def record(self) -> dict:
        """The game's JSON record so far (module docstring)."""
        kinds = list(self.seats)
        record = self.family.record(self.game, self.state, kinds, self.events)
        if self.mine:
            record["session"] = {"seats": kinds, "deals": getattr(self.game, "deals", 1), "moves": list(self._moves),
                                 "over": self.over}
        return record

    def save(self, path) -> Path:
        """Write :attr:`record` as JSON to ``path`` (resume it with :meth:`resume`); returns the path."""
        path = Path(path)
        path.write_text(json.dumps(self.record, indent=1) + "\n")
        return path

    # -- moves ------------------------------------------------------------------------------

    def play(self, move) -> Happened:
        """Apply ``move`` for the caller's seat to play (a text of ``legal()``, its index, or
        one of ``actions()``), then the other seats' moves up to the caller's next turn (or
        the end). Returns what happened. An illegal move: InputError, nothing changed."""
        if self.over:
            raise InputError(ARGUMENTS, "move", "no move: the game is over")
        if not self.my_turn:
            raise InputError(ARGUMENTS, "move", f"no move of yours: seat {self.turn} ({self.seats[self.turn]}) plays now")
        index = find_move(self.state.legal_actions(), self.legal(), move)
        start = len(self.events)
        self._apply(index)
        self._advance()
        return self._happened(start)

    def _apply(self, index: int) -> None:
        state = self.state
        action = state.legal_actions()[index]
        if self.mine:
            self._moves.append(index)
        state.apply_action(action)
        self._steps += 1

    def _advance(self) -> None:
        """Play chance and the other seats up to a seat the caller drives, or the end."""
        state, agents = self.state, self.agents
        limit = self.family.max_actions
        while True:
            cur = state.current
            if cur == TERMINAL:
                break
            if cur == CHANCE:
                state.apply_action(state.legal_actions()[0])
            else:
                agent = agents[cur]
                if agent is None:
                    return
                action = self._choose(agent, cur)
                if self.mine:
                    self._moves.append(self._index(action))
                try:
                    state.apply_action(action)
                except IllegalActionError:
                    raise InputError(ARGUMENTS, "seats", f"seat {cur} ({self.seats[cur]}): choose(state) returned "
                                     f"{action!r}, not one of state.legal_actions()"[:300]) from None
            self._steps += 1
            if self._steps > limit:
                raise RuntimeError(f"no end after {limit} actions (an adjudicator collapsing every time?)")
        if self._own:
            self.close()

    def _choose(self, agent, seat: int):
        try:
            return agent.choose(self.state)
        except (TypeError, AttributeError) as exc:
            if type(agent).__module__.startswith("magdomino."):
                raise
            raise InputError(ARGUMENTS, "seats", f"seat {seat} ({self.seats[seat]}): a player whose choose(state) "
                             f"returns one of state.legal_actions(); it raised {type(exc).__name__}: {exc}"[:300]) from None

    def _index(self, action) -> int:
        k = index_of(self.state.legal_actions(), action)
        if k is not None:
            return k
        seat = self.state.current
        raise InputError(ARGUMENTS, "seats", f"seat {seat} ({self.seats[seat]}): choose(state) returned {action!r}, "
                         f"not one of state.legal_actions()"[:300])

    def _happened(self, start: int) -> Happened:
        events = self.events[start:]
        lines = [line for ev in events for line in self.event_lines(ev)]
        return Happened(events, lines, self.over, self.scores, self.winners)

    def run(self) -> Happened:
        """Play to the end with every seat's player (the caller's seats too: an error if any)."""
        if self.my_turn:
            raise InputError(ARGUMENTS, "seats", f"seat {self.turn} is yours: play() its moves")
        start = len(self.events)
        self._advance()
        return self._happened(start)

    # -- texts ------------------------------------------------------------------------------

    def event_lines(self, ev: dict) -> list[str]:
        """One event as the game's log prints it (a deal: its hands too)."""
        return self.family.event_lines(ev, self.game)

    # -- resuming -----------------------------------------------------------------------------

    @classmethod
    def resume(cls, record: dict, *, seats=None, physics=None, own_physics: bool = False,
               source: str = "record") -> GameSession:
        """The game of ``record`` (a record with ``"session"``, saved by a session with seats
        the caller drives), played again from its seed and continued up to the caller's next
        turn. ``seats`` default to the record's; ``physics`` judges the tower rules (give the
        record's own physics and preset for the same verdicts). InputError naming the record's
        key when it is not such a record, or when a seat's player does not choose as recorded."""
        if not isinstance(record, dict) or not isinstance(record.get("session"), dict):
            raise InputError(source, "session", "a record saved by a game with a seat of yours (md.game, "
                             "or magdomino play with a human seat)")
        saved = record["session"]
        moves = saved.get("moves")
        if not isinstance(moves, list) or not all(is_whole(m) and m >= 0 for m in moves):
            raise InputError(source, "session.moves", "a list of move indices (whole numbers >= 0)")
        rule = record.get("rule")
        try:
            kind = family_of(rule)
        except InputError:
            rules = ", ".join(r for f in FAMILIES.values() for r in f.rules)
            raise InputError(source, "rule", f"one of {rules}; got {rule!r}") from None
        try:
            options = kind.saved_options(record, physics, source)
            game = make_game(rule, record.get("players"), record.get("seed"), options)
        except InputError as exc:
            if exc.source == source:
                raise
            raise InputError(source, exc.key, exc.expected) from None
        seats = list(saved.get("seats") or []) if seats is None else seats
        if isinstance(seats, str):
            seats = [s.strip() for s in seats.split(",")]
        self = cls.of_game(game, seats, advance=False, own_physics=own_physics)
        self._replay(moves, source)
        self._advance()
        return self

    def _replay(self, moves: list, source: str) -> None:
        state = self.state
        done = 0
        while state.current != TERMINAL:
            if state.current == CHANCE:
                state.apply_action(state.legal_actions()[0])
                self._steps += 1
                continue
            if done >= len(moves):
                return
            index = moves[done]
            legal = state.legal_actions()
            if index >= len(legal):
                raise InputError(source, f"session.moves[{done}]", f"a legal move's index, 0..{len(legal) - 1}, got {index}")
            agent = self.agents[state.current]
            if agent is not None:
                chosen = self._index(self._choose(agent, state.current))
                if chosen != index:
                    raise InputError(source, f"session.moves[{done}]", f"seat {state.current} ({self.seats[state.current]}) "
                                     "to choose as recorded (the record was played with other seats, physics or version)")
            self._moves.append(index)
            state.apply_action(legal[index])
            self._steps += 1
            done += 1
        if done < len(moves):
            raise InputError(source, f"session.moves[{done}]", "no move after the end of the game")

    # -- physics ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the adjudicator when this session owns it (``own_physics``)."""
        if self._own and not self._closed:
            self._closed = True
            close = getattr(getattr(self.game, "adjudicator", None), "close", None)
            if close is not None:
                close()

    def __enter__(self) -> GameSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        who = "over" if self.over else f"seat {self.turn} to play"
        return f"<GameSession {self.rule}, seats {', '.join(self.seats)}, seed {self.seed}: {who}>"
