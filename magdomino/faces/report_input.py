"""The inputs of ``magdomino report``: which of our JSON documents a file is, checked before
anything is drawn.

Every document the tool writes carries ``version`` (the package version that wrote it). Each
kind is recognised by the fields only it has (an explicit ``kind`` field wins):

==========  =============================================================
kind        discriminator
==========  =============================================================
tournament  ``kind == "tournament"``, or ``seats`` + ``deals`` + ``per_kind``
study       ``kind == "study"`` (written by ``magdomino study``)
whatif      ``candidates`` (a list) and ``tile``
sweep       ``param`` and ``values`` (and ``results``)
odds        ``results`` and ``noise`` (no ``param``)
simulate    ``structure`` (a dict) and ``what_if`` (a list)
play        ``rule``, ``events`` and ``final``
==========  =============================================================

A file that is none of these, or that a newer magdomino wrote (its ``version``, or a game
record's ``record_version``, above ours), is refused with one :class:`InputError` line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from magdomino.checks import check_choice
from magdomino.errors import InputError
from magdomino.faces.replay import check_record as check_replayed_record
from magdomino.games.design_study import STUDY_VERSION
from magdomino.games.family import CHAIN, RULES, VINGT, family_of
from magdomino.games.record import RECORD_VERSION
from magdomino.games.tournament import TOURNAMENT_VERSION
from magdomino.model.presets import load_preset
from magdomino.version import __version__

KINDS = ("simulate", "odds", "sweep", "whatif", "play", "tournament", "study")
"""The kinds of JSON document a report shows, in the order the page lists them."""

EXPECTED = "a JSON document written by magdomino (simulate, odds, sweep, whatif, play, tournament or study --json)"

CHAIN_TOP = 9
"""The most pips on a half the chain pictures draw (faces.tables: double-nine sets at most)."""


def _version_tuple(text) -> tuple[int, ...] | None:
    """``"0.1.0"`` → ``(0, 1, 0)``; None unless it starts with dotted whole numbers."""
    if not isinstance(text, str):
        return None
    m = re.match(r"(\d+(?:\.\d+)*)", text)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def detect_kind(doc, source: str) -> str:
    """The kind of one document (see the module table); InputError when it is none of ours."""
    if not isinstance(doc, dict):
        raise InputError(source, "", f"{EXPECTED}, got a JSON {type(doc).__name__}")
    kind = doc.get("kind")
    if kind is not None:
        return check_choice(kind, "kind", KINDS, source=source)
    if "version" not in doc:
        raise InputError(source, "version", f"{EXPECTED} (every one has a 'version'); this file has none")
    if isinstance(doc.get("seats"), list) and "deals" in doc and "per_kind" in doc:
        return "tournament"
    if isinstance(doc.get("candidates"), list) and "tile" in doc:
        return "whatif"
    if "param" in doc and "values" in doc and "results" in doc:
        return "sweep"
    if "results" in doc and "noise" in doc:
        return "odds"
    if isinstance(doc.get("structure"), dict) and isinstance(doc.get("what_if"), list):
        return "simulate"
    if "rule" in doc and "events" in doc and "final" in doc:
        return "play"
    keys = ", ".join(sorted(map(str, doc))[:6])
    raise InputError(source, "", f"{EXPECTED}, got a JSON object with none of their fields (keys: {keys})")


def check_version(doc: dict, source: str) -> None:
    """Refuse a document a newer magdomino wrote: we cannot know what its fields mean."""
    theirs, ours = _version_tuple(doc.get("version")), _version_tuple(__version__)
    if theirs is None:
        raise InputError(source, "version", f"a version number such as {__version__!r}, got {doc.get('version')!r}")
    if theirs > ours:
        raise InputError(source, "version", f"a document of magdomino {__version__} or older, got {doc['version']} "
                                            "(a newer format: update magdomino to report it)")
    if "record_version" in doc:
        rv = doc["record_version"]
        if not isinstance(rv, int) or isinstance(rv, bool):
            raise InputError(source, "record_version", f"a whole number, got {rv!r}")
        if rv > RECORD_VERSION:
            raise InputError(source, "record_version", f"a game record of format {RECORD_VERSION} or older, got {rv} "
                                                       "(a newer format: update magdomino to report it)")


def _need(doc: dict, key: str, types, what: str, source: str, prefix: str = ""):
    value = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(value, types) or isinstance(value, bool):  # JSON true is no number
        raise InputError(source, prefix + key, f"{what}, got {value!r}"[:200])
    return value


def _numbers(value, n: int) -> bool:
    """Is ``value`` a list of ``n`` numbers?"""
    return isinstance(value, list) and len(value) == n and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)


def _interval(entry: dict, source: str, key: str) -> None:
    """The odds of one what-if or candidate: trials, errors, p_collapse and its interval; the
    shift share, its interval and the median shift where given (null or absent: not known)."""
    ci = entry.get("ci95")
    if not (_numbers(ci, 2) and 0 <= ci[0] <= ci[1] <= 1):
        raise InputError(source, key + ".ci95", f"a 95 % interval [low, high], 0 <= low <= high <= 1, got {ci!r}"[:200])
    p = entry.get("p_collapse", "missing")
    if p is not None and (not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1):
        raise InputError(source, key + ".p_collapse", f"a probability in [0, 1] or null, got {p!r}"[:200])
    share, shift_ci = entry.get("shift_share"), entry.get("shift_ci95")  # optional: older documents have none
    if share is not None and (not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 <= share <= 1):
        raise InputError(source, key + ".shift_share", f"a share in [0, 1] or null, got {share!r}"[:200])
    if shift_ci is not None and not (_numbers(shift_ci, 2) and 0 <= shift_ci[0] <= shift_ci[1] <= 1):
        raise InputError(source, key + ".shift_ci95", f"null or a 95 % interval [low, high], 0 <= low <= high <= 1, got {shift_ci!r}"[:200])
    median = entry.get("median_shift_mm")
    if median is not None and (not isinstance(median, (int, float)) or isinstance(median, bool) or not 0 <= median < float("inf")):
        raise InputError(source, key + ".median_shift_mm", f"a number >= 0 or null, got {median!r}"[:200])
    trials = _need(entry, "trials", int, "a whole number of trials", source, key + ".")
    errors = _need(entry, "errors", int, "a whole number of errors", source, key + ".")
    if trials < 0 or not 0 <= errors <= trials:
        raise InputError(source, key + ".trials", f"trials >= 0 and 0 <= errors <= trials, got {trials} and {errors}")


def _check_verdict(v: dict, source: str, key: str) -> None:
    """What the page shows of a verdict: collapsed (true, false, or null: not tried), and
    the largest shift and tilt (finite numbers >= 0, or null) where given."""
    if not isinstance(v.get("collapsed"), (bool, type(None))):
        raise InputError(source, key + ".collapsed", f"true, false or null, got {v.get('collapsed')!r}"[:200])
    for k in ("max_shift_mm", "max_tilt_deg"):
        x = v.get(k)
        if x is not None and (not isinstance(x, (int, float)) or isinstance(x, bool) or not 0 <= x < float("inf")):
            raise InputError(source, f"{key}.{k}", f"a number >= 0 or null, got {x!r}"[:200])


def _check_noise(doc: dict, source: str) -> None:
    noise = _need(doc, "noise", dict, "the noise settings", source)
    for k, v in noise.items():
        ok = _numbers(v, 2) if k == "drop_mm" else isinstance(v, (int, float)) and not isinstance(v, bool)
        if not ok:
            raise InputError(source, f"noise.{k}", f"{'[low, high] in mm' if k == 'drop_mm' else 'a number'}, got {v!r}"[:200])


def _check_odds_results(results, source: str, key: str) -> None:
    if not isinstance(results, list) or not results:
        raise InputError(source, key, "a non-empty list of results")
    for i, r in enumerate(results):
        if not isinstance(r, dict):
            raise InputError(source, f"{key}[{i}]", f"an object, got {r!r}"[:200])
        _interval(r, source, f"{key}[{i}]")
        w = r.get("what_if", "missing")
        if w is not None and (not isinstance(w, int) or isinstance(w, bool) or w < 0):
            raise InputError(source, f"{key}[{i}].what_if", f"a what-if number or null (the structure), got {w!r}"[:200])


def check_document(kind: str, doc: dict, source: str) -> None:
    """The fields the report reads, with their types: InputError naming the first one amiss
    (so that nothing fails half-way through drawing the page)."""
    size = doc.get("tile_size_mm")
    if size is not None and not (_numbers(size, 3) and min(size) > 0):
        raise InputError(source, "tile_size_mm", f"[length, width, thickness] > 0 in mm, got {size!r}"[:200])
    if kind == "simulate":
        _check_verdict(_need(doc, "structure", dict, "the structure's verdict", source), source, "structure")
        for i, w in enumerate(_need(doc, "what_if", list, "a list of what-if verdicts", source)):
            if not isinstance(w, dict):
                raise InputError(source, f"what_if[{i}]", f"a verdict object, got {w!r}"[:200])
            _check_verdict(w, source, f"what_if[{i}]")
    elif kind == "odds":
        _check_noise(doc, source)
        _check_odds_results(doc.get("results"), source, "results")
    elif kind == "sweep":
        _need(doc, "param", str, "the swept parameter's name", source)
        _check_noise(doc, source)
        values = _need(doc, "values", list, "the swept values", source)
        results = _need(doc, "results", list, "one entry per swept value", source)
        if len(results) != len(values) or not values or not all(isinstance(v, (int, float)) for v in values):
            raise InputError(source, "values", f"numbers, one per entry of results ({len(results)}), got {values!r}"[:200])
        widths = set()
        for i, entry in enumerate(results):
            if not isinstance(entry, dict):
                raise InputError(source, f"results[{i}]", "an object with 'value' and 'results'")
            _check_odds_results(entry.get("results"), source, f"results[{i}].results")
            widths.add(len(entry["results"]))
        if len(widths) > 1:
            raise InputError(source, "results", "the same what-ifs at every swept value")
    elif kind == "whatif":
        tile = doc.get("tile")
        if not _tile_ok(tile, 6):
            raise InputError(source, "tile", f"a double-six tile [a, b] (pips 0..6), got {tile!r}"[:200])
        _check_noise(doc, source)
        for i, c in enumerate(doc["candidates"]):
            key = f"candidates[{i}]"
            if not isinstance(c, dict) or not isinstance(c.get("placement"), dict):
                raise InputError(source, key, "a candidate with its 'placement'")
            _check_candidate_placement(c["placement"], source, key + ".placement")
            if c.get("ci95") is not None:
                _interval(c, source, key)
            statics = c.get("statics")
            if statics is not None and not (isinstance(statics, dict) and (
                    statics.get("stands") is None or isinstance(statics.get("margin"), (int, float)))):
                raise InputError(source, key + ".statics", f"the statics' answer (stands, margin), got {statics!r}"[:200])
    elif kind == "play":
        _check_play(doc, source)
    elif kind == "tournament":
        _check_tournament(doc, source)
    elif kind == "study":
        _check_study(doc, source)
    if kind in ("odds", "sweep", "whatif"):
        _need(doc, "preset", str, "the preset's name", source)
    for key in ("preset", "name"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise InputError(source, key, f"a name, got {doc[key]!r}"[:200])


def _number_or_none(v) -> bool:
    return v is None or isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_tournament(doc: dict, source: str) -> None:
    """What the page reads of a tournament (games.tournament.run_tournament's document)."""
    tv = doc.get("tournament_version", 1)
    if not isinstance(tv, int) or isinstance(tv, bool):
        raise InputError(source, "tournament_version", f"a whole number, got {tv!r}"[:200])
    if tv > TOURNAMENT_VERSION:
        raise InputError(source, "tournament_version", f"a tournament of format {TOURNAMENT_VERSION} or older, got {tv} "
                                                       "(a newer format: update magdomino to report it)")
    seats = _need(doc, "seats", list, "the seats' player kinds", source)
    _need(doc, "seed", int, "the tournament's seed (a whole number)", source)
    _need(doc, "physics", str, "the physics the deals were played with (a name)", source)
    sense = doc.get("score_sense")
    if sense is not None and not isinstance(sense, str):
        raise InputError(source, "score_sense", f"'lower', 'higher' or null, got {sense!r}"[:200])
    if not seats or not all(isinstance(k, str) for k in seats):
        raise InputError(source, "seats", f"player kinds (names), got {seats!r}"[:200])
    _need(doc, "rule", str, "the rule's name", source)
    _need(doc, "deals", int, "a whole number of deals", source)
    ended = _need(doc, "ended", dict, "how the deals ended ('natural', 'abandoned')", source)
    for k in ("natural", "abandoned"):
        _need(ended, k, int, "a whole number of deals", source, "ended.")
    for i, row in enumerate(_need(doc, "per_kind", list, "the table per player kind", source)):
        key = f"per_kind[{i}]"
        if not isinstance(row, dict):
            raise InputError(source, key, "a row per player kind (an object)")
        _need(row, "kind", str, "a player kind", source, key + ".")
        for k in ("seats", "games"):
            _need(row, k, int, "a whole number", source, key + ".")
        for k in ("wins", "win_share", "mean_score"):
            if not _number_or_none(row.get(k, "missing")):
                raise InputError(source, f"{key}.{k}", f"a number or null, got {row.get(k)!r}"[:200])
        for k in ("ci", "score_ci"):
            ci = row.get(k)
            if not (isinstance(ci, list) and len(ci) == 2 and all(map(_number_or_none, ci))):
                raise InputError(source, f"{key}.{k}", f"a 95 % interval [low, high], got {ci!r}"[:200])
    for i, row in enumerate(_need(doc, "per_deal", list, "one row per deal", source)):
        key = f"per_deal[{i}]"
        if not isinstance(row, dict):
            raise InputError(source, key, "a row per deal (an object)")
        for k in ("deal", "placements", "collapses"):
            _need(row, k, int, "a whole number", source, key + ".")
        _need(row, "ended", str, "'natural' or 'abandoned'", source, key + ".")
        for k in ("seating", "winners", "scores"):
            _need(row, k, list, "a list", source, key + ".")


def _check_study(doc: dict, source: str) -> None:
    """What the page reads of a study (games.design_study.run_study's document)."""
    sv = _need(doc, "study_version", int, "the study format (a whole number)", source)
    if sv > STUDY_VERSION:
        raise InputError(source, "study_version", f"a study of format {STUDY_VERSION} or older, got {sv} "
                                                  "(a newer format: update magdomino to report it)")
    for k in ("rule", "physics", "preset"):
        _need(doc, k, str, "a name", source)
    for k in ("seed", "deals", "players"):
        _need(doc, k, int, "a whole number", source)
    seats = _need(doc, "seats", list, "the seats' player kinds", source)
    if not seats or not all(isinstance(k, str) for k in seats):
        raise InputError(source, "seats", f"player kinds (names), got {seats!r}"[:200])
    params = _need(doc, "params", list, "the varied preset keys", source)
    vary = _need(doc, "vary", dict, "the values of each varied key", source)
    if not params or any(not isinstance(vary.get(p), list) or not vary[p] for p in params):
        raise InputError(source, "vary", f"a list of values for each of params {params!r}"[:200])
    _need(doc, "intervals", dict, "how the intervals were computed", source)
    points = _need(doc, "points", list, "one entry per value", source)
    if not points:
        raise InputError(source, "points", "at least one point")
    for i, point in enumerate(points):
        key = f"points[{i}]"
        if not isinstance(point, dict):
            raise InputError(source, key, "a point (an object)")
        values = _need(point, "values", dict, "the point's value of each varied key", source, key + ".")
        if set(values) != set(params):
            raise InputError(source, f"{key}.values", f"a value for each of {params!r}, got {values!r}"[:200])
        for name, m in _need(point, "metrics", dict, "the point's metrics", source, key + ".").items():
            if m is None:
                continue
            ci = m.get("ci") if isinstance(m, dict) else None
            if not (_number_or_none(m.get("value", "missing")) and isinstance(ci, list) and len(ci) == 2 and all(map(_number_or_none, ci))):
                raise InputError(source, f"{key}.metrics.{name}", f"a value and a 95 % interval [low, high], got {m!r}"[:200])
        for j, row in enumerate(_need(point, "per_deal", list, "one row per deal", source, key + ".")):
            rk = f"{key}.per_deal[{j}]"
            if not isinstance(row, dict):
                raise InputError(source, rk, "a row per deal (an object)")
            for k in ("deal", "placements", "rounds", "collapses", "height"):
                _need(row, k, int, "a whole number", source, rk + ".")
            _need(row, "ended", str, "'natural' or 'abandoned'", source, rk + ".")
            for k in ("seating", "winners"):
                _need(row, k, list, "a list", source, rk + ".")


def _check_candidate_placement(pl: dict, source: str, key: str) -> None:
    """What the page shows and renders of a whatif candidate."""
    _need(pl, "description", str, "the placement's description", source, key + ".")
    pos, slide = pl.get("pos_mm"), pl.get("slide_from_mm")
    if not _numbers(pos, 3):
        raise InputError(source, key + ".pos_mm", f"[x, y, z] in mm, got {pos!r}"[:200])
    _need(pl, "yaw_deg", (int, float), "a yaw in degrees", source, key + ".")
    if slide is not None and not _numbers(slide, 2):
        raise InputError(source, key + ".slide_from_mm", f"null or [dx, dy] in mm, got {slide!r}"[:200])


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _tile_ok(t, top: int) -> bool:
    """Is ``t`` a tile [a, b] with pips 0..top (the pictures draw up to 9 pips a half)?"""
    return isinstance(t, list) and len(t) == 2 and all(_whole(v) and 0 <= v <= top for v in t)


def _tiles(final: dict, key: str, top: int, source: str) -> None:
    """``final[key]`` a list of tiles (a stock, a box)."""
    tiles = final.get(key)
    if not (isinstance(tiles, list) and all(_tile_ok(t, top) for t in tiles)):
        raise InputError(source, f"final.{key}", f"a list of tiles [a, b] with pips 0..{top}, got {tiles!r}"[:200])


def _check_chain_final(final: dict, source: str) -> None:
    """What tables.chain_figure reads of a chain game's ``final``, beyond check_chain_record's
    shape: tiles of pips 0..9 (a double-nine set at most) along the chain, the two ends, the hands, SUN and RAIN."""
    for i, entry in enumerate(final["table"]):
        key = f"final.table[{i}]"
        if not (isinstance(entry, dict) and _tile_ok(entry.get("halves"), CHAIN_TOP)
                and isinstance(entry.get("crossed"), bool) and isinstance(entry.get("side"), str)):
            raise InputError(source, key, f"a tile on the chain with 'halves' [a, b] (pips 0..9), 'crossed' "
                                          f"(true/false) and 'side', got {entry!r}"[:200])
    ends = final.get("ends")
    if not (isinstance(ends, list) and (len(ends) == 2 or not ends and not final["table"])
            and all(isinstance(e, list) and len(e) == 2 and _whole(e[0]) and 0 <= e[0] <= CHAIN_TOP
                    and isinstance(e[1], str) for e in ends)):
        raise InputError(source, "final.ends", f"the chain's two ends [[value, kind], [value, kind]] "
                                               f"(none before the first tile), got {ends!r}"[:200])
    target = final.get("target")
    if target is not None and not _whole(target):
        raise InputError(source, "final.target", f"a whole number or null, got {target!r}"[:200])
    hands = final["hands"]
    if not all(isinstance(h, list) and all(_tile_ok(t, CHAIN_TOP) for t in h) for h in hands):
        raise InputError(source, "final.hands", f"one list of tiles [a, b] (pips 0..9) per seat, got {hands!r}"[:200])
    _tiles(final, "stock", CHAIN_TOP, source)
    if "sun" in final or "rain" in final:  # Le jeu des échanges: both boxes
        _tiles(final, "sun", CHAIN_TOP, source)
        _tiles(final, "rain", CHAIN_TOP, source)


def _cell_ok(c) -> bool:
    return isinstance(c, list) and len(c) == 2 and all(_whole(v) for v in c)


def _check_vingt_final(final: dict, source: str) -> None:
    """What tables.vingt_figure reads of a 20 sur 20 ``final``, beyond vingt.check_record's
    shape: tiles on two neighbouring cells with pips 0..9, markers on cells per seat."""
    for i, t in enumerate(final["table"]):
        cells = t.get("cells") if isinstance(t, dict) else None
        ok = (isinstance(cells, list) and len(cells) == 2 and all(map(_cell_ok, cells))
              and abs(cells[0][0] - cells[1][0]) + abs(cells[0][1] - cells[1][1]) == 1 and _tile_ok(t.get("pips"), 9))
        if not ok:
            raise InputError(source, f"final.table[{i}]", f"a tile with 'cells' [[x, y], [x, y]] side by side and "
                                                          f"'pips' [a, b] (0..9), got {t!r}"[:200])
    placed = final["markers"].get("placed")
    if not (isinstance(placed, list) and all(isinstance(m, list) and all(map(_cell_ok, m)) for m in placed)):
        raise InputError(source, "final.markers.placed", f"one list of cells [x, y] per seat, got {placed!r}"[:200])


def _check_play(doc: dict, source: str) -> None:
    check_choice(doc.get("rule"), "rule", RULES, source=source)
    kind = family_of(doc["rule"])
    if kind is VINGT:
        kind.check_record(doc, source)
        _check_vingt_final(doc["final"], source)
    elif kind is CHAIN:
        kind.check_record(doc, source)
        _check_chain_final(doc["final"], source)
        if not isinstance(doc.get("options", {}), dict):  # the account lists them (format_chain_record)
            raise InputError(source, "options", f"the game's options (an object), got {doc['options']!r}"[:200])
    else:  # the tower rules' construction and moves: by the replay's check below
        if isinstance(doc.get("preset"), str):  # the final construction's tile size comes from it
            try:
                load_preset(doc["preset"])
            except InputError as exc:
                if exc.key != "preset":
                    raise
                raise InputError(source, "preset", exc.expected) from None

        _need(doc, "final", dict, "the final position", source)
    scores = _need(doc, "scores", list, "the scores per seat", source)
    if not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores):
        raise InputError(source, "scores", f"numbers, got {scores!r}"[:200])
    players = _need(doc, "players", int, "the number of players", source)
    if len(scores) != players:
        raise InputError(source, "scores", f"one score per player ({players}), got {len(scores)}")
    kinds = doc.get("player_kinds", ["random"] * players)
    if not (isinstance(kinds, list) and len(kinds) == players and all(isinstance(k, str) for k in kinds)):
        raise InputError(source, "player_kinds", f"one player kind per seat ({players}), got {kinds!r}"[:200])
    winners = _need(doc, "winners", list, "the winning seats", source)
    if not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w < players for w in winners):
        raise InputError(source, "winners", f"seats 0..{players - 1}, got {winners!r}"[:200])
    _need(doc, "events", list, "the game's events", source)
    parts = doc.get("deals", doc.get("rounds", []))
    if not (isinstance(parts, list) and all(isinstance(d, dict) for d in parts)):
        raise InputError(source, "deals", f"one object per deal, got {parts!r}"[:200])
    check_replayed_record(doc, source)  # the replay's own reading of a record


def read_result(path: str | Path) -> tuple[str, dict]:
    """Read, recognise and check one JSON document: ``(kind, document)``; InputError otherwise."""
    source = str(path)
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise InputError(source, "", f"{EXPECTED}; the file does not exist") from None
    except IsADirectoryError:
        raise InputError(source, "", f"{EXPECTED}, got a directory") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(source, "", f"{EXPECTED}, cannot read it ({getattr(exc, 'strerror', None) or type(exc).__name__})") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        raise InputError(source, "", f"{EXPECTED}, got text that is not JSON{where}") from None
    kind = detect_kind(doc, source)
    check_version(doc, source)
    check_document(kind, doc, source)
    return kind, doc
