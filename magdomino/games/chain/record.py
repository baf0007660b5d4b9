"""Game records of the chain games (Le Matador, Le jeu des échanges) for the command line.

:func:`play_chain` plays a whole match with the named players into a JSON record of the
same shape as the Magnetic Domino rules' (:func:`magdomino.games.record.play_game`):
``version``, ``record_version``, ``seed``, ``rule``, ``players``, ``player_kinds``,
``variant``, ``set``, ``options``, ``winners``, ``scores``, ``returns``, ``deals`` (one
result per deal), ``events`` and ``final`` (``hands``, ``stock``, ``table``, ``ends``, and
what the game adds: ``target`` for Le Matador, ``sun`` and ``rain`` for Le jeu des
échanges). :func:`check_chain_record` accepts a saved record for drawing again.
"""

from __future__ import annotations

from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.core import FAMILIES, make_game
from magdomino.games.session import GameSession
from magdomino.version import __version__
from magdomino.wording import tile_text, winners

RECORD_VERSION = 1


def play_chain(rule: str, players: int, seed: int = 0, options: dict | None = None, player_kinds=None) -> dict:
    """Play a whole match of ``rule`` and return its JSON record (module docstring).

    Parameters
    ----------
    rule : "matador" | "echanges"
    options : dict
        The game's options (``set``, ``variant``, ``deals``, ``target``).
    player_kinds : one name for every seat, or one per seat; default all ``"random"``.
        Seeded from ``numpy.random.SeedSequence(seed).spawn(players)``.
    """
    game = make_game(rule, players, seed, dict(options or {}))
    n = game.players
    kinds = (player_kinds,) * n if isinstance(player_kinds, str) else tuple(player_kinds or ("random",) * n)
    if len(kinds) != n:
        raise InputError(ARGUMENTS, "player_kinds", f"one player kind per seat ({n}), got {len(kinds)}")
    return GameSession.of_game(game, kinds, key="player_kinds").record


def chain_record(game, state, kinds: list, events: list) -> dict:
    """The JSON record (module docstring) of a chain match at ``state`` (its end, or where it
    stands), played by the seats ``kinds`` (names), with the log ``events``."""
    return {
        "version": __version__, "record_version": RECORD_VERSION, "seed": game.seed, "rule": game.rule, "players": game.players,
        "player_kinds": list(kinds), "variant": game.variant, "set": game.top, "options": game.options(),
        "winners": state.winners(), "scores": list(state.totals), "returns": state.returns(),
        "deals": [dict(r) for r in state.results], "events": list(events), "final": state.final(),
    }


def check_chain_record(data, source: str) -> dict:
    """``data`` if it is a chain-game record (from :func:`play_chain`); InputError otherwise."""
    rules = FAMILIES["chain"].rules
    if not isinstance(data, dict) or data.get("rule") not in rules:
        got = data.get("rule") if isinstance(data, dict) else type(data).__name__
        raise InputError(source, "rule", f"a record of {' or '.join(rules)}, got {got!r}")
    final = data.get("final")
    if not isinstance(final, dict) or not all(isinstance(final.get(k), list) for k in ("hands", "stock", "table")):
        raise InputError(source, "final", "a record's final position with 'hands', 'stock' and 'table'")
    return data


def event_line(ev: dict) -> str | None:
    """The line :func:`format_chain_record` prints for one event (None: an event it does not print)."""
    kind, p = ev["type"], ev.get("player")
    side = {0: "left", 1: "right", "centre": "centre", None: ""}
    if kind == "deal":
        hands = "; ".join(f"seat {s}: " + " ".join(tile_text(t) for t in h) for s, h in enumerate(ev["hands"]))
        return f"deal {ev['deal'] + 1}: seat {p} starts ({hands})"
    if kind == "place":
        how = ev.get("how", "")
        extra = f" showing {ev['shows']}" if ev.get("shows") is not None else ""
        return f"  P{p} places {tile_text(ev['tile'])} {how} {side[ev['end']]}{extra}".rstrip()
    if kind == "draw":
        to = ev.get("to")
        return f"  P{p} draws {tile_text(ev['tile'])}" + (f" ({to})" if to not in (None, "hand") else "")
    if kind == "pass":
        return f"  P{p} passes"
    if kind == "exchange":
        return f"  P{p} exchanges seat {ev['next']}'s tile with seat {ev['with']}'s: {ev['outcome'].upper()}"
    if kind == "end" and "totals" in ev:
        return f"end of deal {ev['deal'] + 1} ({ev['reason']}): {winners(ev['winners'])}; scores {ev['scores']}, totals {ev['totals']}"
    if kind == "end":
        return f"end ({ev['reason']}): SUN {ev['sun']}, RAIN {ev['rain']}: " + ("the team wins" if ev["won"] else "the team loses")
    return None


def format_chain_record(record: dict) -> str:
    """A readable account of a record: one line per event, then the result."""
    opts = ", ".join(f"{k} {v}" for k, v in record["options"].items() if v is not None)
    lines = [f"{record['rule']}, {record['players']} players, seed {record['seed']} ({opts}; players {', '.join(record['player_kinds'])})"]
    lines += [line for line in map(event_line, record["events"]) if line is not None]
    meaning = "1: the team won, -1: it lost" if record["rule"] == "echanges" else "a win shared between the winners"
    payoffs = ", ".join(f"{r:g}" for r in record["returns"])
    lines.append(f"{winners(record['winners'])}; scores: {record['scores']}; payoff per seat ({meaning}): {payoffs}")
    return "\n".join(lines)
