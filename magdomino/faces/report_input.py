"""The inputs of ``magdomino report``: which of our JSON documents a file is, checked before
anything is drawn.

Every document the tool writes carries ``version`` (the package version that wrote it). Each
kind is recognised by the fields only it has (an explicit ``kind`` field wins):

==========  =============================================================
kind        discriminator
==========  =============================================================
tournament  ``kind == "tournament"``, or ``seats`` + ``deals`` + ``per_kind``
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

from magdomino.errors import InputError

KINDS = ("simulate", "odds", "sweep", "whatif", "play", "tournament")
"""The kinds of JSON document a report shows, in the order the page lists them."""

EXPECTED = "a JSON document written by magdomino (simulate, odds, sweep, whatif, play or tournament --json)"

TOWER_RULES = ("traditional", "defi", "quinconce")
"""The rules whose records are games.record's layout (a construction on the grid)."""

CHAIN_RULES = ("matador", "echanges")


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
        if kind in KINDS:
            return kind
        raise InputError(source, "kind", f"one of {', '.join(KINDS)}, got {kind!r}")
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
    from magdomino import __version__

    theirs, ours = _version_tuple(doc.get("version")), _version_tuple(__version__)
    if theirs is None:
        raise InputError(source, "version", f"a version number such as {__version__!r}, got {doc.get('version')!r}")
    if theirs > ours:
        raise InputError(source, "version", f"a document of magdomino {__version__} or older, got {doc['version']} "
                                            "(a newer format: update magdomino to report it)")
    if "record_version" in doc:
        from magdomino.games.record import RECORD_VERSION

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


def _interval(entry: dict, source: str, key: str, optional: bool = False) -> None:
    ci = entry.get("ci95")
    if optional and ci is None:
        return
    if not (isinstance(ci, list) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci)):
        raise InputError(source, key + ".ci95", f"a 95 % interval [low, high], got {ci!r}"[:200])
    p = entry.get("p_collapse")
    if p is not None and not isinstance(p, (int, float)):
        raise InputError(source, key + ".p_collapse", f"a probability or null, got {p!r}"[:200])
    _need(entry, "trials", int, "a whole number of trials", source, key + ".")


def _check_odds_results(results, source: str, key: str) -> None:
    if not isinstance(results, list) or not results:
        raise InputError(source, key, "a non-empty list of results")
    for i, r in enumerate(results):
        if not isinstance(r, dict):
            raise InputError(source, f"{key}[{i}]", f"an object, got {r!r}"[:200])
        _interval(r, source, f"{key}[{i}]")


def check_document(kind: str, doc: dict, source: str) -> None:
    """The fields the report reads, with their types: InputError naming the first one amiss
    (so that nothing fails half-way through drawing the page)."""
    if kind == "simulate":
        _need(doc, "structure", dict, "the structure's verdict", source)
        for i, w in enumerate(_need(doc, "what_if", list, "a list of what-if verdicts", source)):
            if not isinstance(w, dict):
                raise InputError(source, f"what_if[{i}]", f"a verdict object, got {w!r}"[:200])
    elif kind == "odds":
        _need(doc, "noise", dict, "the noise settings", source)
        _check_odds_results(doc.get("results"), source, "results")
    elif kind == "sweep":
        _need(doc, "param", str, "the swept parameter's name", source)
        _need(doc, "noise", dict, "the noise settings", source)
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
        if not (isinstance(tile, list) and len(tile) == 2 and all(isinstance(v, int) for v in tile)):
            raise InputError(source, "tile", f"a tile [a, b], got {tile!r}"[:200])
        _need(doc, "noise", dict, "the noise settings", source)
        for i, c in enumerate(doc["candidates"]):
            key = f"candidates[{i}]"
            if not isinstance(c, dict) or not isinstance(c.get("placement"), dict):
                raise InputError(source, key, "a candidate with its 'placement'")
            _need(c["placement"], "description", str, "the placement's description", source, key + ".placement.")
            if c.get("ci95") is not None:
                _interval(c, source, key)
            elif c.get("statics") is not None and not isinstance(c["statics"], dict):
                raise InputError(source, key + ".statics", "the statics' answer (an object)")
    elif kind == "play":
        _check_play(doc, source)
    elif kind == "tournament":
        _need(doc, "seats", list, "the seats' player kinds", source)
        _need(doc, "per_kind", (list, dict), "the table per player kind", source)
    for key in ("preset", "name"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise InputError(source, key, f"a name, got {doc[key]!r}"[:200])


def _check_play(doc: dict, source: str) -> None:
    rule = doc.get("rule")
    if rule == "vingt":
        from magdomino.games.vingt import check_record

        check_record(doc, source)
    elif rule in CHAIN_RULES:
        from magdomino.games.chain_record import check_chain_record

        check_chain_record(doc, source)
    elif rule in TOWER_RULES:
        final = _need(doc, "final", dict, "the final position", source)
        for i, pl in enumerate(_need(final, "construction", list, "the final construction", source, "final.")):
            ok = (isinstance(pl, dict) and isinstance(pl.get("tile"), list) and len(pl["tile"]) == 2
                  and isinstance(pl.get("pose"), list) and len(pl["pose"]) == 4
                  and all(isinstance(v, int) for v in pl["tile"] + pl["pose"]))
            if not ok:
                raise InputError(source, f"final.construction[{i}]", "a placement with 'tile' [a, b] and 'pose' [x, y, level, d]")
    else:
        raise InputError(source, "rule", f"one of {', '.join(TOWER_RULES + CHAIN_RULES + ('vingt',))}, got {rule!r}"[:200])
    scores = _need(doc, "scores", list, "the scores per seat", source)
    if not all(isinstance(s, (int, float)) for s in scores):
        raise InputError(source, "scores", f"numbers, got {scores!r}"[:200])
    _need(doc, "winners", list, "the winning seats", source)
    _need(doc, "events", list, "the game's events", source)


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
