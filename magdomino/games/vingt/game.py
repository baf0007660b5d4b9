"""20 sur 20 (Fernand Nathan): lines of dominoes worth exactly twenty, closed by "20" markers.

The rules are those of ``docs/rules/index.md`` ("20 sur 20"), on a square grid (see :mod:`magdomino.games.vingt.moves`
for the table, the runs and the legal-move generator). The State API is the one of the
other games: ``make_game("vingt", players, seed, options)`` (a :class:`VingtGame`) → ``new_initial_state()`` → a
:class:`VingtState` starting at a chance node; ``current_player()`` is a seat,
:data:`CHANCE` or :data:`TERMINAL`; ``legal_actions()`` is a tuple in a stable order;
``apply_action``; ``is_terminal``; ``returns``; ``clone``; ``to_json``/``from_json``.

Actions are tuples: a move ``("place", d, ((x, y, p, q), ...))`` (see
:mod:`magdomino.games.vingt.moves`), :data:`PASS`, :data:`STOP` (end a series of
single-tile moves), and the chance actions :data:`DEAL` and :data:`DRAW`. Chance events
(the deal and every refill draw) all come from the state's one seeded
``numpy.random.Generator``: the deal shuffles the 54 tiles, a draw takes the next tile of
that shuffled stock. Scripted chance actions: ``("deal", tiles)`` (racks in seat order,
five each, then the stock in drawing order) and ``("draw", tile)``.

Choices made where the leaflet is silent (what players at the table would expect):

- **Who starts**: seat 0 in the first round, then the seat to the left of the last
  round's starter (each round passes the start to the left).
- **The first move** lies along row 0 from cell (0, 0): on the empty table every place and
  direction is alike, so only the arrangement of the tiles is a choice.
- **A player who can move must move** (the leaflet only lets a player pass when no twenty
  can be made). A series of single-tile moves may be stopped at any time (:data:`STOP`):
  "il a le droit de rejouer" is a right, not a duty; when no single-tile move is left the
  turn ends by itself.
- **Too few markers**: the markers go on the alignment's ends in order (the low end, left
  or bottom, first); it never matters, since the player has then placed every marker and
  wins at once.
- **Blocked round**: a full round of passes ends the round even if the stock is not empty
  (a player only draws after a move, so nothing could change any more); the fewest
  markers left wins, ties shared.
- **Round points**: a round's single winner scores the markers left to the opponents
  minus their own; tied winners each score the markers left to the players not tied
  minus their own; when everybody ties nobody scores.
- **Competition**: option ``target`` (None: one round). Rounds go on until, after a round,
  someone's total reaches the target; the highest total then wins (ties shared).
  ``returns()`` gives each winner ``1/len(winners)`` and the others 0.

Players: :mod:`magdomino.games.vingt.players` (random, greedy, lookahead, ismcts);
:func:`play_vingt` plays a match into a JSON record (``magdomino play --rule vingt``), drawn
by :func:`magdomino.faces.tables.vingt_figure`.
"""

from __future__ import annotations

import json

import numpy as np

from magdomino.checks import check_count, check_seed
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.actions import TUPLE_DEAL as DEAL
from magdomino.games.actions import TUPLE_DRAW as DRAW
from magdomino.games.actions import TUPLE_PASS as PASS
from magdomino.games.actions import TUPLE_STOP as STOP
from magdomino.games.core import CHANCE, TERMINAL, IllegalActionError, TurnState
from magdomino.games.session import GameSession
from magdomino.games.vingt.moves import (
    MAX_TILES,
    STEPS,
    alignment,
    cell,
    closing_cells,
    key,
    legal_moves,
)
from magdomino.model.tiles import double_set
from magdomino.version import __version__
from magdomino.wording import counted, tile_text, winners

RULE = "vingt"
STATE_FORMAT = "magdomino.vingt/1"
TILE_SET = double_set(9, without=[(0, 0)])
TILES = TILE_SET.tiles
"""The 54 tiles: the double-nine set without the double blank, in a fixed order."""
MARKERS = {2: 22, 3: 15, 4: 11}
RACK = MAX_TILES
_TILE_SET = frozenset(TILES)


class VingtGame:
    """One match's settings.

    Parameters
    ----------
    players : 2, 3 or 4
    seed : int >= 0
        Seeds the state's chance stream (``numpy.random.default_rng(seed)``).
    options : dict, optional (or keyword arguments)
        ``target`` (None: one round; an int > 0: rounds until someone's total reaches it).
    """

    rule = RULE

    def __init__(self, players: int, seed: int = 0, options: dict | None = None, **kwargs):
        opts = dict(options or {})
        opts.update(kwargs)
        players = check_count(players, "players", minimum=min(MARKERS), maximum=max(MARKERS))
        seed = check_seed(seed)
        target = opts.pop("target", None)
        if target is not None:
            target = check_count(target, "target", minimum=1)
        if opts:
            raise InputError("options", sorted(opts)[0], "a known option of 20 sur 20: target")
        self.players = int(players)
        self.seed = int(seed)
        self.target = None if target is None else int(target)
        self.markers = MARKERS[self.players]

    def new_initial_state(self) -> VingtState:
        return VingtState(self)

    def to_json(self) -> dict:
        return {"rule": RULE, "players": self.players, "seed": self.seed, "target": self.target}

    @staticmethod
    def from_json(data: dict) -> VingtGame:
        if not isinstance(data, dict) or data.get("rule") != RULE:
            raise InputError("state", "game.rule", f"{RULE!r}, got {data.get('rule') if isinstance(data, dict) else data!r}")
        return VingtGame(data["players"], data["seed"], target=data.get("target"))

    def __repr__(self) -> str:
        extra = f", target={self.target}" if self.target is not None else ""
        return f"VingtGame({self.players}, seed={self.seed}{extra})"


class VingtState(TurnState):
    """A position in a match (see the module docstring).

    Read-only attributes: ``racks`` (sorted tile lists per seat), ``stock`` (the last is
    drawn next), ``occ`` (the table, :mod:`magdomino.games.vingt.moves`), ``tiles``
    (placed tiles: ``(tile, x, y, d, p, q, seat)``), ``markers_left``, ``markers_placed``
    (cells per seat), ``round_no`` (0-based), ``results`` (one dict per finished round),
    ``totals`` (competition points), ``log`` (set it to a list to receive events).
    """

    __slots__ = (
        "game", "rng", "round_no", "results", "totals", "racks", "stock", "occ", "tiles",
        "markers_left", "markers_placed", "current", "replay", "passes", "refill", "starter",
        "turn_markers", "_legal", "log",
    )

    @classmethod
    def _blank(cls, game):
        """A position with only its game set, for a copy to fill in (``clone``, ``from_json``)."""
        s = cls.__new__(cls)
        s.game = game
        return s

    def __init__(self, game: VingtGame):
        self.game = game
        n = game.players
        self.rng = np.random.default_rng(game.seed)
        self.round_no = -1
        self.results: list[dict] = []
        self.totals = [0] * n
        self.racks: list[list] = [[] for _ in range(n)]
        self.stock: list = []
        self.occ: dict = {}
        self.tiles: list = []
        self.markers_left = [game.markers] * n
        self.markers_placed: list[list] = [[] for _ in range(n)]
        self.current = CHANCE
        self.replay = False
        self.passes = 0
        self.refill = -1
        self.starter = -1
        self.turn_markers = 0
        self._legal = None
        self.log: list | None = None

    # -- queries ------------------------------------------------------------------------------

    def _compute_legal(self) -> tuple:
        """Legal actions in a stable order (moves sorted; STOP last in a replay)."""
        cur = self.current
        if cur == TERMINAL:
            return ()
        if cur == CHANCE:
            return (DRAW,) if self.refill >= 0 else (DEAL,)
        rack = self.racks[cur]
        if self.replay:
            return tuple(legal_moves(self.occ, rack, False, 1)) + (STOP,)
        moves = legal_moves(self.occ, rack, not self.occ)
        return tuple(moves) if moves else (PASS,)

    # -- applying actions ---------------------------------------------------------------------

    def apply_action(self, action) -> None:
        """Apply a legal action (:class:`IllegalActionError` otherwise)."""
        legal = self.legal_actions()
        if action not in legal:
            scripted = self.current == CHANCE and isinstance(action, tuple) and len(action) == 2 and action[0] == legal[0][0]
            if not scripted:
                raise IllegalActionError(f"{action} is not legal here ({len(legal)} legal actions)")
        self._legal = None
        kind = action[0]
        if kind == "place":
            self._place(action)
        elif kind == "stop":
            self._event({"type": "stop", "player": self.current})
            self._end_turn()
        elif kind == "pass":
            cur = self.current
            self.passes += 1
            self._event({"type": "pass", "player": cur})
            if self.passes >= self.game.players:
                left = self.markers_left
                low = min(left)
                self._end_round([s for s, m in enumerate(left) if m == low], "blocked")
            else:
                self._end_turn()
        elif kind == "draw":
            self._draw(None if len(action) == 1 else tuple(action[1]))
        else:
            self._deal(None if len(action) == 1 else action[1])

    def _deal(self, tiles) -> None:
        g = self.game
        n = g.players
        if tiles is None:
            order = self.rng.permutation(len(TILES))
            tiles = [TILES[i] for i in order]
        else:
            tiles = [tuple(sorted(t)) for t in tiles]
            if sorted(tiles) != sorted(TILES):
                raise InputError("deal", "tiles", "each of the 54 tiles (double-nine without 0-0) exactly once")
        self.round_no += 1
        self.racks = [sorted(tiles[i * RACK : (i + 1) * RACK]) for i in range(n)]
        self.stock = tiles[n * RACK :][::-1]
        self.occ = {}
        self.tiles = []
        self.markers_left = [g.markers] * n
        self.markers_placed = [[] for _ in range(n)]
        self.replay = False
        self.passes = 0
        self.refill = -1
        self.starter = (self.starter + 1) % n
        self.current = self.starter
        self._event({"type": "deal", "player": self.current, "round": self.round_no, "racks": [list(map(list, r)) for r in self.racks]})

    def _draw(self, tile) -> None:
        seat = self.refill
        if tile is None:
            t = self.stock.pop()
        else:
            if tile not in self.stock:
                raise IllegalActionError(f"draw {tile}: not in the stock")
            self.stock.remove(tile)
            t = tile
        rack = self.racks[seat]
        rack.append(t)
        rack.sort()
        self._event({"type": "draw", "player": seat, "tile": list(t)})
        if len(rack) >= RACK or not self.stock:
            self.refill = -1
            self.current = (seat + 1) % self.game.players

    def _place(self, move) -> None:
        cur = self.current
        occ = self.occ
        rack = self.racks[cur]
        d = move[1]
        placed = move[2]
        for x, y, p, q in placed:
            t = (p, q) if p <= q else (q, p)
            rack.remove(t)
            k = key(x, y)
            occ[k] = p
            occ[k + STEPS[d]] = q
            self.tiles.append((t, x, y, d, p, q, cur))
        keys, total = alignment(occ, move)
        need = closing_cells(occ, keys, STEPS[d])
        put = need[: self.markers_left[cur]]
        for k in put:
            occ[k] = -1 - cur
            self.markers_placed[cur].append(cell(k))
        self.markers_left[cur] -= len(put)
        self.turn_markers += len(put)
        self.passes = 0
        if self.log is not None:
            self._event(
                {
                    "type": "place", "player": cur, "dir": "xy"[d],
                    "tiles": [[x, y, p, q] for x, y, p, q in placed],
                    "alignment": [list(cell(k)) for k in keys], "total": total,
                    "markers": [list(cell(k)) for k in put], "replay": self.replay,
                }
            )
        if self.markers_left[cur] == 0:
            self._end_round([cur], "markers")
            return
        if len(placed) == 1 and rack:
            singles = legal_moves(occ, rack, False, 1)
            if singles:
                self.replay = True
                self._legal = tuple(singles) + (STOP,)
                return
        self._end_turn()

    def _end_turn(self) -> None:
        cur = self.current
        self.replay = False
        self.turn_markers = 0
        if len(self.racks[cur]) < RACK and self.stock:
            self.refill = cur
            self.current = CHANCE
        else:
            self.current = (cur + 1) % self.game.players

    def _end_round(self, winners: list[int], reason: str) -> None:
        g = self.game
        left = self.markers_left
        others = sum(m for s, m in enumerate(left) if s not in winners)
        points = [0] * g.players
        if len(winners) < g.players:
            for w in winners:
                points[w] = others - left[w]
        for s in range(g.players):
            self.totals[s] += points[s]
        self.results.append(
            {"round": self.round_no, "winners": list(winners), "points": points, "markers_left": list(left), "reason": reason}
        )
        self.replay = False
        self.refill = -1
        done = g.target is None or max(self.totals) >= g.target
        self.current = TERMINAL if done else CHANCE
        self._event({"type": "end", "player": winners[0], "reason": reason, "winners": list(winners), "points": points,
                     "totals": list(self.totals)})

    def _event(self, ev: dict) -> None:
        if self.log is None:
            return
        ev["round"] = self.round_no
        ev["rack_sizes"] = [len(r) for r in self.racks]
        ev["stock_size"] = len(self.stock)
        ev["markers_left"] = list(self.markers_left)
        self.log.append(ev)

    # -- outcome ------------------------------------------------------------------------------

    def winners(self) -> list[int]:
        """The winning seats once the match is over (else [])."""
        if self.current != TERMINAL:
            return []
        if self.game.target is None:
            return list(self.results[-1]["winners"])
        top = max(self.totals)
        return [s for s, v in enumerate(self.totals) if v == top]

    def returns(self) -> list[float]:
        w = self.winners()
        return [1.0 / len(w) if s in w else 0.0 for s in range(self.game.players)]

    def table(self) -> list[dict]:
        """Every placed tile with its cells: ``{"tile", "cells": [[x, y], [x, y]], "pips", "seat"}``."""
        out = []
        for t, x, y, d, p, q, seat in self.tiles:
            other = [x + 1, y] if d == 0 else [x, y + 1]
            out.append({"tile": list(t), "cells": [[x, y], other], "pips": [p, q], "seat": seat})
        return out

    def final(self) -> dict:
        """What a record's ``final`` holds: racks (``hands``), stock, table, markers."""
        return {
            "hands": [[list(t) for t in r] for r in self.racks],
            "stock": [list(t) for t in self.stock],
            "table": self.table(),
            "markers": {
                "placed": [[list(c) for c in m] for m in self.markers_placed],
                "left": list(self.markers_left),
            },
        }

    # -- copies -------------------------------------------------------------------------------

    def clone(self) -> VingtState:
        s = VingtState._blank(self.game)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        s.rng = rng
        s.round_no = self.round_no
        s.results = [dict(r) for r in self.results]
        s.totals = list(self.totals)
        s.racks = [list(r) for r in self.racks]
        s.stock = list(self.stock)
        s.occ = dict(self.occ)
        s.tiles = list(self.tiles)
        s.markers_left = list(self.markers_left)
        s.markers_placed = [list(m) for m in self.markers_placed]
        s.current = self.current
        s.replay = self.replay
        s.passes = self.passes
        s.refill = self.refill
        s.starter = self.starter
        s.turn_markers = self.turn_markers
        s._legal = self._legal
        s.log = None
        return s

    def to_json(self) -> dict:
        """A JSON-ready dict; :meth:`from_json` restores the exact state (RNG included)."""
        return {
            "format": STATE_FORMAT,
            "game": self.game.to_json(),
            "round": self.round_no,
            "results": [dict(r) for r in self.results],
            "totals": list(self.totals),
            "racks": [[list(t) for t in r] for r in self.racks],
            "stock": [list(t) for t in self.stock],
            "tiles": [[list(t), x, y, d, p, q, seat] for t, x, y, d, p, q, seat in self.tiles],
            "markers": [[list(c) for c in m] for m in self.markers_placed],
            "markers_left": list(self.markers_left),
            "current": self.current,
            "replay": self.replay,
            "passes": self.passes,
            "refill": self.refill,
            "starter": self.starter,
            "turn_markers": self.turn_markers,
            "rng": self.rng.bit_generator.state,
        }

    def to_json_str(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)

    @staticmethod
    def from_json(data, game: VingtGame | None = None) -> VingtState:
        """Restore a state from :meth:`to_json` output (a dict or a JSON string)."""
        if isinstance(data, str):
            data = json.loads(data)
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise InputError("state", "format", f"{STATE_FORMAT!r}, got {got!r}")
        game = game or VingtGame.from_json(data["game"])
        s = VingtState._blank(game)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = data["rng"]
        s.rng = rng
        s.round_no = data["round"]
        s.results = [dict(r) for r in data["results"]]
        s.totals = list(data["totals"])
        s.racks = [[tuple(t) for t in r] for r in data["racks"]]
        s.stock = [tuple(t) for t in data["stock"]]
        s.tiles = [(tuple(t), x, y, d, p, q, seat) for t, x, y, d, p, q, seat in data["tiles"]]
        s.occ = {}
        for _, x, y, d, p, q, _ in s.tiles:
            k = key(x, y)
            s.occ[k] = p
            s.occ[k + STEPS[d]] = q
        s.markers_placed = [[tuple(c) for c in m] for m in data["markers"]]
        for seat, m in enumerate(s.markers_placed):
            for x, y in m:
                s.occ[key(x, y)] = -1 - seat
        s.markers_left = list(data["markers_left"])
        s.current = data["current"]
        s.replay = data["replay"]
        s.passes = data["passes"]
        s.refill = data["refill"]
        s.starter = data["starter"]
        s.turn_markers = data["turn_markers"]
        s._legal = None
        s.log = None
        return s

    @staticmethod
    def position(game: VingtGame, tiles, racks, stock=(), markers=None, markers_left=None, current: int = 0) -> VingtState:
        """A scripted position in round 0, ``current`` to move (for examples and tests).

        ``tiles``: ``(x, y, d, p, q)`` or ``(x, y, d, p, q, seat)``; ``racks``: tiles per
        seat; ``stock``: drawn from the end; ``markers``: cells per seat; ``markers_left``:
        per seat (default: the full allowance minus the markers placed). Every tile of the
        set must appear at most once.
        """
        s = VingtState(game)
        n = game.players
        s.round_no = 0
        s.starter = 0
        seen = []
        for t in tiles:
            x, y, d, p, q = t[:5]
            tile = (min(p, q), max(p, q))
            s.tiles.append((tile, x, y, d, p, q, t[5] if len(t) > 5 else 0))
            s.occ[key(x, y)] = p
            s.occ[key(x, y) + STEPS[d]] = q
            seen.append(tile)
        s.racks = [sorted((min(t), max(t)) for t in r) for r in racks] + [[] for _ in range(n - len(racks))]
        s.stock = [(min(t), max(t)) for t in stock]
        seen += [t for r in s.racks for t in r] + s.stock
        if len(set(seen)) != len(seen) or not set(seen) <= _TILE_SET or len(s.occ) != 2 * len(s.tiles):
            raise InputError("position", "tiles", "distinct tiles of the set on distinct cells")
        s.markers_placed = [[tuple(c) for c in m] for m in (markers or [])] + [[] for _ in range(n - len(markers or []))]
        for seat, m in enumerate(s.markers_placed):
            for x, y in m:
                s.occ[key(x, y)] = -1 - seat
        s.markers_left = list(markers_left) if markers_left is not None else [game.markers - len(m) for m in s.markers_placed]
        s.current = current
        return s

    def __repr__(self) -> str:
        return f"<VingtState {self.game!r} round={self.round_no} current={self.current} tiles={len(self.tiles)}>"


def play_vingt(players: int, seed: int = 0, target: int | None = None, player_kinds=None) -> dict:
    """Play a whole match and return its JSON record: ``rule``, ``players``, ``seed``,
    ``target``, ``player_kinds``, ``winners``, ``scores`` (competition totals), ``rounds``
    (one result per round), ``events`` and ``final`` (see :meth:`VingtState.final`)."""
    game = VingtGame(players, seed, target=target)
    kinds = (player_kinds,) * game.players if isinstance(player_kinds, str) else tuple(player_kinds or ("random",) * game.players)
    if len(kinds) != game.players:
        raise InputError(ARGUMENTS, "player_kinds", f"one player kind per seat ({game.players}), got {len(kinds)}")
    return GameSession.of_game(game, kinds, key="player_kinds").record


def vingt_record(game, state, kinds: list, events: list) -> dict:
    """The JSON record (:func:`play_vingt`) of a match at ``state`` (its end, or where it
    stands), played by the seats ``kinds`` (names), with the log ``events``."""
    return {
        "version": __version__, "rule": RULE, "players": game.players, "seed": game.seed, "target": game.target,
        "player_kinds": list(kinds), "winners": state.winners(), "scores": list(state.totals),
        "rounds": [dict(r) for r in state.results], "events": list(events), "final": state.final(),
    }


def check_record(data, source: str) -> dict:
    """``data`` if it is a 20 sur 20 record (from :func:`play_vingt`); InputError otherwise."""
    if not isinstance(data, dict) or data.get("rule") != RULE:
        got = data.get("rule") if isinstance(data, dict) else type(data).__name__
        raise InputError(source, "rule", f"a 20 sur 20 record (rule 'vingt'), got {got!r}")
    final = data.get("final")
    if not isinstance(final, dict) or not isinstance(final.get("table"), list) or not isinstance(final.get("markers"), dict):
        raise InputError(source, "final", "a record's final position with 'table' and 'markers'")
    return data


def format_record(record: dict) -> str:
    """A readable account of a record: one line per move, pass and round end."""
    goal = "one round" if record["target"] is None else f"rounds to {record['target']} points"
    lines = [f"vingt, {record['players']} players, seed {record['seed']}, {goal} "
             f"(players {', '.join(record['player_kinds'])})"]
    lines += [line for line in map(event_line, record["events"]) if line is not None]
    lines.append(f"{winners(record['winners'])}; scores: {record['scores']}")
    return "\n".join(lines)


def event_line(ev: dict) -> str | None:
    """The line :func:`format_record` prints for one event (None: an event it does not print)."""
    kind, p = ev["type"], ev["player"]
    if kind == "deal":
        return f"round {ev['round'] + 1}: seat {p} starts"
    if kind == "place":
        tiles = " ".join(tile_text((a, b)) for _, _, a, b in ev["tiles"])
        again = " (again)" if ev["replay"] else ""
        return (f"  P{p} {tiles} along {ev['dir']} at {tuple(ev['tiles'][0][:2])}{again}: {ev['total']}, "
                f"{counted(len(ev['markers']), 'marker')}; left {ev['markers_left']}")
    if kind == "pass":
        return f"  P{p} passes"
    if kind == "end":
        return (f"end of round {ev['round'] + 1} ({ev['reason']}): {winners(ev['winners'])}; "
                f"points {ev['points']}, totals {ev['totals']}")
    return None
