"""Whole games as JSON records, for ``magdomino play``: :func:`play_game`, :func:`format_record`.

The record is a contract::

    {"version", "seed", "rule", "players", "winners": [seat, ...], "scores": [per seat],
     "events": [...], "final": {"hands": [[[a, b], ...], ...], "stock": [...],
     "construction": [...]}, ...}

- ``players`` is the number of seats; ``player_kinds`` names each seat's player.
- ``scores`` are the match totals (one deal: that deal's scores): winners of a deal write
  0, the others their pips in hand (kids: tiles). ``winners`` are the deal's winners for a
  one-deal match, else the seats with the lowest total (ties shared).
- ``deals``: one entry per deal, ``{"deal", "winners", "scores", "reason"}`` (reason
  ``"domino"``: someone placed all their tiles; ``"blocked"``: a full round of passes;
  ``"abandoned"``: the runaway guard ``max_placements`` stopped the deal: no winners,
  every score 0, not scored). ``abandoned`` counts the abandoned deals; a one-deal match
  that was abandoned has ``winners == []``.
- ``parallel_only`` and ``second_parallel``: the orientation options of the tower rules
  (``docs/rules/index.md``: by default only the second tile of a construction must lie parallel).
- ``events``: every event has ``type`` (``deal``, ``place``, ``draw``, ``pass``,
  ``collapse``, ``restart``, ``end``), ``player``, ``deal`` (0-based), ``hand_sizes``,
  ``stock_size`` and ``construction_size`` (after the event). ``deal`` has ``hands`` and
  its ``player`` is the seat that starts; ``place`` has ``tile``, ``mode`` (flat/tower),
  ``motion``, ``slide`` (for a slide), ``pose`` ``[x, y, level, d]``, ``parent``,
  ``start: true`` on a deal's first tile, ``restart: true`` on the first tile after a
  collapse, and with physics the ``verdict`` (and ``error`` if the physics failed);
  ``draw`` has the drawn ``tile``; ``collapse`` has the ``tiles`` the player takes back;
  ``restart`` has the double that starts the new construction; ``end`` has ``reason``,
  ``winners``, the deal's ``scores`` and the match ``totals`` so far (an abandoned deal's
  ``end`` also has ``abandoned: true`` and ``max_placements``; its ``player`` placed last).
- ``final``: hands, stock (the last is drawn next) and construction (placements of the
  current construction in order: tile, pose, mode, motion, parent) when the match ended.
"""

from __future__ import annotations

from magdomino.checks import is_whole
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.actions import DEAL, Action
from magdomino.games.core import CHANCE, TERMINAL, Game
from magdomino.games.session import GameSession, default_player
from magdomino.games.tower.grid import Grid
from magdomino.games.tower.state import placement_text
from magdomino.maths.geometry import DIR_NAMES
from magdomino.physics.adjudicator import Outcome
from magdomino.version import __version__
from magdomino.wording import tile_text, winners

RECORD_VERSION = 2
"""The tower records' format. Format 1 named the halves of a tile placed on a double as the rules'
grid numbers them, which is not always the half the double's own text writes first; format 2
names them as the placement language reads them. Format 1 texts are rewritten on load
(:func:`upgrade_placement_texts`); the recorded grid poses, which every replay uses, are unchanged."""

JUDGED_IN_PYBULLET = ("dynamics", "pybullet")
"""A record's ``physics`` when PyBullet's world judged the game (``"pybullet"``: the name
records had before each engine had one)."""


def play_game(
    rule: str,
    players: int,
    seed: int = 0,
    physics=None,
    variant: str | None = None,
    kids: bool = False,
    deals: int = 1,
    player_kinds=None,
    parallel_only: bool = False,
    colours=None,
    max_placements: int | None = None,
    second_parallel: bool = True,
) -> dict:
    """Play a whole match and return its JSON record (see the module docstring).

    Parameters
    ----------
    physics : None, ``"none"`` or an adjudicator object (``start``/``place``)
    parallel_only, second_parallel : bool
        The tower rules' orientation options (:class:`~magdomino.games.core.Game`).
    max_placements : int or None
        The runaway guard: a deal with this many placements (collapses included) ends
        abandoned, not scored.
    player_kinds : sequence of ``"random"`` / ``"greedy"`` (or player objects), one per
        seat, or one name for all seats; default :func:`default_player` at every seat.
        Random players are seeded from ``numpy.random.SeedSequence(seed).spawn(players)``.
    """
    options = dict(
        variant=variant, kids=kids, deals=deals, adjudicator=physics, parallel_only=parallel_only,
        second_parallel=second_parallel, max_placements=max_placements,
    )
    if colours is not None:
        options["colours"] = colours
    game = Game(rule, players, seed, options)
    n = game.players
    if player_kinds is None:
        player_kinds = (default_player(game),) * n
    elif isinstance(player_kinds, str):
        player_kinds = (player_kinds,) * n
    player_kinds = tuple(player_kinds)
    if len(player_kinds) != n:
        raise InputError(ARGUMENTS, "player_kinds", f"one player kind per seat ({n}), got {len(player_kinds)}")
    return GameSession.of_game(game, player_kinds, key="player_kinds").record


def tower_record(game, state, kinds: list, events: list) -> dict:
    """The JSON record (module docstring) of a tower match at ``state`` (its end, or where it
    stands), played by the seats ``kinds`` (names), with the log ``events``."""
    adj = game.adjudicator
    preset = getattr(adj, "preset", None)
    preset = getattr(preset, "name", preset)
    return {
        "version": __version__,
        "record_version": RECORD_VERSION,
        "seed": game.seed,
        "rule": game.rule,
        "players": game.players,
        "player_kinds": list(kinds),
        "variant": game.variant,
        "kids": game.kids,
        "parallel_only": game.parallel_only,
        "second_parallel": game.second_parallel,
        "max_placements": game.max_placements,
        "physics": getattr(adj, "name", type(adj).__name__),
        "preset": preset,
        # What a replay needs to repeat the physics exactly (faces/replay.py).
        "magnets": getattr(adj, "magnets", None),
        "drop_mm": None if getattr(adj, "drop", None) is None else round(adj.drop * 1000, 9),
        "slide_start_mm": None if getattr(adj, "slide_start", None) is None else round(adj.slide_start * 1000, 9),
        "tile_size_mm": [round(v * 1000, 6) for v in game.tile_size],
        "winners": state.winners(),
        "scores": state.scores(),
        "deals": [dict(r) for r in state.results],
        "abandoned": state.abandoned(),
        "collapses": sum(1 for e in events if e["type"] == "collapse"),
        "events": list(events),
        "final": {
            "hands": [[[a, b] for a, b in h] for h in state.hands],
            "stock": [[a, b] for a, b in state.stock],
            "construction": [
                {k: v for k, v in a.to_json().items() if k != "kind"} for a in state.placed
            ],
        },
    }


def check_construction(record: dict, source: str) -> None:
    """A tower record's ``final.construction``: placements of double-six tiles on the grid
    (``tile`` [a, b], pips 0..6; ``pose`` [x, y, level, d], whole numbers); InputError
    naming the first one amiss."""
    final = record.get("final")
    construction = final.get("construction") if isinstance(final, dict) else None
    if not isinstance(construction, list):
        raise InputError(source, "final.construction", f"the final construction (a list), got {construction!r}"[:200])
    for i, pl in enumerate(construction):
        tile, pose = (pl.get("tile"), pl.get("pose")) if isinstance(pl, dict) else (None, None)
        ok = (isinstance(tile, list) and len(tile) == 2 and isinstance(pose, list) and len(pose) == 4
              and all(is_whole(v) for v in [*tile, *pose])
              and all(0 <= v <= 6 for v in tile))
        if not ok:
            raise InputError(source, f"final.construction[{i}]", "a placement with 'tile' [a, b] (pips 0..6) and 'pose' [x, y, level, d]")


class RecordedVerdicts:
    """An adjudicator that gives a record's verdicts back in order: the rules replay the
    record exactly as it was judged, with no physics (:func:`check_events`)."""

    name = "recorded"

    def __init__(self, place_events: list):
        self.recorded = list(place_events)

    def start(self, construction) -> None:
        pass

    def place(self, view, action):
        rec = self.recorded.pop(0) if self.recorded else {}
        verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else {}
        return Outcome(collapsed=verdict.get("collapsed") is True, verdict=verdict or None, error=rec.get("error"))


def recorded_verdicts(record: dict, moves: list) -> RecordedVerdicts | None:
    """The verdicts a judged record (physics other than none) gives back; None without physics."""
    if record.get("physics", "none") in (None, "none"):
        return None
    return RecordedVerdicts([e for e in moves if e.get("type") == "place"])


def game_options(record: dict, adjudicator, source: str = "record") -> dict:
    """The :class:`~magdomino.games.core.Game` options a tower record was played with
    (InputError naming the key when one is not what play writes)."""
    deals, size = record.get("deals"), record.get("tile_size_mm")
    if deals is not None and not (isinstance(deals, list) and all(isinstance(d, dict) for d in deals)):
        raise InputError(source, "deals", f"one object per deal, got {deals!r}"[:200])
    if size is not None and not (isinstance(size, list) and len(size) == 3 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < float("inf") for v in size)):
        raise InputError(source, "tile_size_mm", f"[length, width, thickness] > 0 in mm, got {size!r}"[:200])
    for key in ("kids", "parallel_only", "second_parallel"):
        if not isinstance(record.get(key, False), bool):
            raise InputError(source, key, f"true or false, got {record.get(key)!r}"[:200])
    options = dict(
        variant=record.get("variant"), kids=bool(record.get("kids")), deals=max(1, len(record.get("deals") or [1])),
        parallel_only=bool(record.get("parallel_only")), second_parallel=record.get("second_parallel", True) is not False,
        max_placements=record.get("max_placements"), adjudicator=adjudicator,
    )
    if getattr(adjudicator, "preset", None) is None and size is not None:
        options["tile_size"] = tuple(v / 1000 for v in size)
    return options


def match_event(legal, ev: dict):
    """The legal action the recorded move ``ev`` (a ``place``, ``draw`` or ``pass`` event) names, or None."""
    kind = ev.get("type")
    for a in legal:
        if a.kind != kind:
            continue
        if kind != "place":
            return a
        slide = None if a.slide is None else DIR_NAMES[a.slide]
        if (list(a.tile) == ev.get("tile") and [a.x, a.y, a.level, a.d] == ev.get("pose")
                and a.mode == ev.get("mode") and a.motion == ev.get("motion") and slide == ev.get("slide")
                and a.parent == ev.get("parent")):
            return a
    return None


def replay_moves(state, moves: list, source: str):
    """Play the recorded ``moves`` (``place``, ``draw`` and ``pass`` events) on ``state``
    to the end of the game, the deals as chance; yields ``(event, action)`` after applying
    each. InputError naming the first move that is not a legal move of the seat to play,
    or a record that ends before the game does."""
    done = 0
    while state.current != TERMINAL:
        if state.current == CHANCE:
            state.apply_action(DEAL)
            continue
        if done >= len(moves):
            raise InputError(source, "events", "the moves of a whole game (the record ends before the game does)")
        ev = moves[done]
        action = match_event(state.legal_actions(), ev)
        if action is None or ev.get("player") != state.current:
            raise InputError(source, f"events (move {done + 1})",
                             f"a legal move of seat {state.current} in the replayed game, got {ev.get('type')} {ev.get('tile', '')}"[:200])
        done += 1
        state.apply_action(action)
        yield ev, action
    if done < len(moves):
        ev = moves[done]
        raise InputError(source, f"events (move {done + 1})",
                         f"no move after the end of the game, got {ev.get('type')} {ev.get('tile', '')}"[:200])


def check_events(record: dict, source: str) -> None:
    """Replay a tower record's moves in the rules, each placement judged as recorded
    (:class:`RecordedVerdicts`): :func:`replay_moves` to the end, nothing drawn."""
    events = record.get("events")
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise InputError(source, "events", "a list of event objects")
    moves = [e for e in events if e.get("type") in ("place", "draw", "pass")]
    if record.get("record_version", 1) < 2:
        upgrade_placement_texts(record)
    adjudicator = recorded_verdicts(record, moves)
    try:
        game = Game(record["rule"], record["players"], record["seed"], game_options(record, adjudicator, source))
    except InputError as exc:
        raise InputError(source, exc.key, exc.expected) from None
    for _ in replay_moves(game.new_initial_state(), moves, source):
        pass


def upgrade_placement_texts(record: dict) -> None:
    """Rewrite, in place, the placement texts of a format-1 tower record as format 2 writes them
    (:data:`RECORD_VERSION`): the events' grid poses say where each tile went; the texts of
    tiles on a double are derived again from them. A record whose poses are inconsistent is
    left for :func:`check_events` to refuse."""
    placed: list = []
    grid = Grid()
    try:
        for ev in record["events"]:
            if ev.get("type") in ("deal", "collapse"):
                placed, grid = [], Grid()
            if ev.get("type") != "place":
                continue
            x, y, level, d = ev["pose"]
            slide = DIR_NAMES.index(ev["slide"]) if "slide" in ev else None
            action = Action("place", tuple(ev["tile"]), x, y, level, d, ev["mode"], ev["motion"], slide, ev.get("parent"))
            if ev.get("placement") and action.parent is not None and action.parent < len(placed):
                ev["placement"] = placement_text(placed, grid, action, len(placed), None)
            grid.add(action.grid, action.tile, action.parent)
            placed.append(action)
    except (KeyError, TypeError, ValueError, IndexError):
        return
    record["record_version"] = RECORD_VERSION


def event_lines(ev: dict) -> list[str]:
    """The lines :func:`format_record` prints for one event of a tower record (a deal: its
    hands too), in the words every game's log uses: ``deal 1: seat 1 starts``, ``P0 places
    ...``, ``draws``, ``passes``, a placement's verdict ``stands`` or ``FALLS``."""
    lines: list[str] = []
    kind = ev["type"]
    p = ev.get("player")
    state = f"hands {'/'.join(str(s) for s in ev['hand_sizes'])} stock {ev['stock_size']} built {ev['construction_size']}"
    if kind == "deal":
        lines.append(f"deal {ev['deal'] + 1}: seat {p} starts")
        for s, h in enumerate(ev["hands"]):
            lines.append(f"  seat {s}: " + " ".join(tile_text(t) for t in h))
        return lines
    if kind == "place":
        a, b = ev["tile"]
        x, y, lev, d = ev["pose"]
        where = f"({x},{y}) L{lev} {DIR_NAMES[d]}"
        how = ev["motion"] + (f" {ev['slide']}" if "slide" in ev else "")
        on = "" if ev.get("parent") is None else f" on #{ev['parent']}"
        tag = " [start]" if ev.get("start") else (" [restart]" if ev.get("restart") else "")
        verdict = ev.get("verdict")
        v = ""
        if verdict is not None:
            v = " verdict: " + ("FALLS" if verdict.get("collapsed") else "stands")
            if verdict.get("reason"):
                v += f" ({verdict['reason']})"
        if ev.get("error"):
            v += f" error: {ev['error']}"
        said = ev.get("placement")  # the placement language (records of 0.1 before it: the grid pose)
        text = f"places {said}, {ev['motion']}{tag}{v}" if said else f"places {tile_text((a, b))} {ev['mode']} {where} {how}{on}{tag}{v}"
    elif kind == "draw":
        text = f"draws {tile_text(ev['tile'])}"
    elif kind == "pass":
        text = "passes"
    elif kind == "unplayable":
        text = f"cannot place {ev['placement']} ({ev['error']}); chooses again"
    elif kind == "collapse":
        text = f"COLLAPSE: takes back {len(ev['tiles'])} tiles"
    elif kind == "restart":
        text = f"restarts a construction with {tile_text(ev['tile'])}"
    elif kind == "end":
        if ev["reason"] == "abandoned":
            lines.append(
                f"end of deal {ev['deal'] + 1}: ABANDONED by the runaway guard ({ev.get('max_placements')} "
                f"placements, --max-placements), not scored: no winner; totals {ev['totals']}"
            )
            return lines
        why = {"domino": "placed all tiles", "blocked": "blocked game"}.get(ev["reason"], ev["reason"])
        lines.append(f"end of deal {ev['deal'] + 1}: {why}; {winners(ev['winners'])}; scores {ev['scores']}; totals {ev['totals']}")
        return lines
    else:
        text = kind
    lines.append(f"  P{p} {text:<52} | {state}")
    return lines


def format_record(record: dict) -> str:
    """A readable account of a record: a header, one compact line per event, the result."""
    head = f"{record['rule']}, {record['players']} players, seed {record['seed']}"
    extras = []
    if record.get("variant"):
        extras.append(f"variant {record['variant']}")
    if record.get("kids"):
        extras.append("kids")
    if record.get("parallel_only"):
        extras.append("every tower tile parallel")
    elif record.get("second_parallel") is False:
        extras.append("second tile may be perpendicular")
    extras.append(f"physics {record.get('physics', 'none')}" + (f", preset {record['preset']}" if record.get("preset") else ""))
    if record.get("player_kinds"):
        extras.append("players " + ", ".join(record["player_kinds"]))
    n_deals = len(record.get("deals", [])) or 1
    if n_deals > 1:
        extras.insert(0, f"{n_deals} deals")
    lines = [head + " (" + "; ".join(extras) + ")"]
    for ev in record["events"]:
        lines.extend(event_lines(ev))
    tail = f"; collapses: {record['collapses']}" if record.get("collapses") else ""
    if record.get("abandoned"):
        tail += f"; abandoned deals (not scored): {record['abandoned']}"
    lines.append(f"{winners(record['winners'])}; scores: {record['scores']}{tail}")
    return "\n".join(lines)
