"""The placement language: one way to say where a tile goes, printed and read everywhere.

Whatever the project prints about a placement (``simulate``'s table, ``odds``, ``whatif``'s
candidates, the report, the labels of pictures, the Python face) is written in this grammar,
and a scenario file (``place = "..."``) or the Python face reads it back as the same placement.

Grammar (spaces and case as shown; ``#N`` is a tile of the construction, numbered in the
order they were placed, #0 first; a tile is written matching half first)::

    3-1 on #2 half 1                  on top: 3-1's 3 over tile 2's half 1, parallel, outward
    3-1 on #2 (3-3) half 1, across left   the lower tile's pips (as shown) may be given: checked
    3-1 on #2 half 1, back            over the lower tile's other half
    3-1 on #2 half 1, turned 45 deg   any other turn from outward (counter-clockwise, degrees)
    3-1 beneath #1 half 1, outward    slid along the table under tile 1's half 1 (En quinconce)
    3-1 after #4 half 0               end to end on the table, touching tile 4's half 0
    3-1 at (36, -12) mm, yaw 90       a free pose: centre x, y (or x, y, z) in mm; yaw in degrees

followed by any of these clauses, each after a comma: ``drop 2 mm`` (release height above
rest), ``slid from (60, 0) mm`` (a slide starting there, from the rest pose), ``fixed`` (a
structure tile that never moves; a structure tile, built at rest, reads the motion clauses and
takes no motion from them, so a game's log reads back as a structure). A tile's half 0 is the
half its text writes first, a double's too: ``1-1 on #3 half 0`` puts the double's half 0 on
tile 3, and a later ``on #4 half 0`` names that square. ``outward`` is the default direction and ``across left`` /
``across right`` are left and right of the lower tile's half 0 → half 1 axis (as the rules'
candidates say). Clauses the what-if ranking prints for information are read and checked or
ignored: ``bridging to #3, #4`` (which other tiles it rests on), ``in line`` (end to end).
Numbers are written with ten significant digits, so a pose read from a file comes back as it was.

:func:`parse_placement` turns a text into the table a scenario file would hold (so a text goes
through exactly the checks of a file); :func:`format_placement` writes a
:class:`~magdomino.studies.scenario.Placement` back, from the two heads every placement text
starts with (:func:`tied_text`, :func:`free_text`), which the games' grid placements use too.
"""

from __future__ import annotations

import re

from magdomino.errors import InputError
from magdomino.wording import tile_text

TIED = ("on", "beneath", "after")
"""The scenario keys that tie a placement to an earlier tile: on top of it, slid beneath it, end to end after it."""

RELATIONS = {"on": "on", "beneath": "beneath", "slid beneath": "beneath", "after": "after", "end to end with": "after"}
"""The words that tie a placement to a tile of the construction, and the relation each means."""

TURNS = {"outward": 0.0, "back": 180.0, "across left": 90.0, "across right": -90.0}
"""Turn from outward (degrees, counter-clockwise) of each direction, for a tile on half 1; on
half 0 (whose outward is the lower tile's -x) left and right swap sides."""

DEFAULT_DROP_MM = 1.0
"""Release height above rest of a placement that does not say (mm)."""

EXAMPLE = "'3-1 on #2 half 1, across left', '3-1 beneath #1 half 1', '3-1 after #4 half 0' or '3-1 at (36, -12) mm, yaw 90'"

_NUMBER = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"
_TIED = re.compile(r"^(?P<a>\d+)-(?P<b>\d+) (?P<rel>on|beneath|slid beneath|after|end to end with) #(?P<tile>\d+)"
                   r"(?: \((?P<pa>\d+)-(?P<pb>\d+)\))? half (?P<half>\d+)$")
_FREE = re.compile(rf"^(?P<a>\d+)-(?P<b>\d+) at \((?P<xyz>{_NUMBER}(?:, ?{_NUMBER}){{1,2}})\) mm$")
_CLAUSES = [
    (re.compile(rf"^turned (?P<v>{_NUMBER}) deg$"), "turn"),
    (re.compile(rf"^yaw (?P<v>{_NUMBER})(?: deg)?$"), "yaw"),
    (re.compile(rf"^drop (?P<v>{_NUMBER}) mm$"), "drop"),
    (re.compile(rf"^slid from \((?P<x>{_NUMBER}), ?(?P<y>{_NUMBER})\) mm$"), "slide"),
    (re.compile(r"^bridging to (?P<v>#\d+(?:, #\d+)*)$"), "bridging"),
    (re.compile(r"^(?P<v>outward|back|across left|across right)$"), "direction"),
    (re.compile(r"^fixed$"), "fixed"),
    (re.compile(r"^in line$"), "in line"),
]


def turn_of(direction: str, half: int) -> float:
    """``yaw_deg`` of a relational placement (turn from outward) for a named direction."""
    turn = TURNS[direction]
    return -turn if half == 0 and abs(turn) == 90.0 else turn


def direction_of(turn_deg: float, half: int) -> str | None:
    """The named direction of a turn from outward on ``half`` (None: not a named one)."""
    turn = (float(turn_deg) + 180.0) % 360.0 - 180.0
    for name in TURNS:
        want = (turn_of(name, half) + 180.0) % 360.0 - 180.0
        if abs(turn - want) < 1e-6 or (name == "back" and abs(abs(turn) - 180.0) < 1e-6):
            return name
    return None


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text and "e" not in text else value


def _split(text: str) -> list[str]:
    """The comma-separated parts of ``text``, commas inside parentheses and in "across, left"
    and "bridging to #3, #4" kept within their part."""
    text = re.sub(r"\s+", " ", text.strip())
    text = re.sub(r"across, (left|right)", r"across \1", text)
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    merged: list[str] = []
    for part in parts:  # "#4" after "bridging to #3": the same clause
        if merged and re.fullmatch(r"#\d+", part) and merged[-1].startswith("bridging to"):
            merged[-1] += ", " + part
        else:
            merged.append(part)
    return merged


def parse_placement(text, source: str, key: str) -> dict:
    """The scenario table (``pips``, ``on``/``beneath``/``after`` or ``pos_mm``, ``yaw_deg``,
    ``drop_mm``, ``slide_mm``, ``fixed``) that ``text`` says; InputError naming ``key`` when it
    is not in the grammar. The table is then checked as a file's is (tiles, indices, matching
    halves): a ``(a-b)`` given for the lower tile comes back as ``_parent_pips`` to be checked.
    """
    if not isinstance(text, str):
        raise InputError(source, key, f"expected a placement as text, like {EXAMPLE}; got {text!r}")
    parts = _split(text)
    head, clauses = parts[0], parts[1:]
    entry: dict = {}
    m = _TIED.match(head)
    if m:
        relation = RELATIONS[m["rel"]]
        half = int(m["half"])
        entry[relation] = {"tile": int(m["tile"]), "half": half}
        if m["pa"] is not None:
            entry["_parent_pips"] = [int(m["pa"]), int(m["pb"])]
    else:
        m = _FREE.match(head)
        if not m:
            raise InputError(source, key, f"expected a placement like {EXAMPLE}; got {text!r}")
        relation, half = None, None
        entry["pos_mm"] = [_number(v.strip()) for v in m["xyz"].split(",")]
    entry["pips"] = [int(m["a"]), int(m["b"])]
    seen: set = set()
    for clause in clauses:
        for pattern, what in _CLAUSES:  # noqa: B007 (what is read below, after the break)
            found = pattern.match(clause)
            if found:
                break
        else:
            raise InputError(source, key, f"expected clauses such as 'across left', 'turned 45 deg', 'drop 2 mm', "
                                          f"'slid from (60, 0) mm' or 'fixed' after the tile; {clause!r} is none ({text!r})")
        if what in seen:
            raise InputError(source, key, f"expected {what!r} once, got it twice in {text!r}")
        seen.add(what)
        if what in ("turn", "direction") and relation is None or what == "yaw" and relation is not None:
            raise InputError(source, key, f"expected {'a yaw' if relation is None else 'a direction or a turn'} "
                                          f"for a placement {'at a pose' if relation is None else 'on a tile'}; got {clause!r}")
        if what == "direction":
            entry["yaw_deg"] = turn_of(found["v"], half)
        elif what in ("turn", "yaw"):
            entry["yaw_deg"] = _number(found["v"])
        elif what == "drop":
            entry["drop_mm"] = _number(found["v"])
        elif what == "slide":
            entry["slide_mm"] = [_number(found["x"]), _number(found["y"])]
        elif what == "fixed":
            entry["fixed"] = True
    if "turn" in seen and "direction" in seen:
        raise InputError(source, key, f"expected a direction or a turn, not both, in {text!r}")
    return entry


def expand_place(entry: dict, source: str, key: str, shown: list, allowed) -> dict:
    """A scenario entry with ``place = "..."`` as the table it stands for (other keys kept,
    such as ``drop_mm``); InputError when it also gives what the text says, or names the
    lower tile's pips wrongly (``shown``: the earlier tiles' pips as shown)."""
    parsed = parse_placement(entry["place"], source, f"{key}.place")
    parent = parsed.pop("_parent_pips", None)
    others = sorted(k for k in entry if k in {"pips", "pos_mm", "yaw_deg", *TIED, "slide_mm"} or (k != "place" and k in parsed))
    if others:
        raise InputError(source, f"{key}.{others[0]}", "expected either place = \"...\" or the keys it stands for, not both")
    said = {"drop_mm": "drop", "slide_mm": "slid from", "fixed": "fixed"}
    for k in [k for k in ("drop_mm", "slide_mm") if k in parsed and k not in allowed]:
        # how a structure tile arrived (as a game's log prints it): it is built at rest, so the
        # motion is read and has no effect there
        del parsed[k]
    for k in parsed:
        if k not in allowed:  # a what-if is never fixed
            who = "a what-if" if k == "fixed" else "a structure tile"
            raise InputError(source, f"{key}.place", f"expected no '{said.get(k, k)}' here: {who} takes none")
    tied = next((k for k in TIED if k in parsed), None)
    t = parsed[tied]["tile"] if tied else None
    if parent is not None and 0 <= t < len(shown) and parent != list(shown[t]):
        raise InputError(source, f"{key}.place", f"expected #{t} to be {tile_text(shown[t])} (as shown), "
                                                 f"as the placement says {tile_text(parent)}")
    return {**{k: v for k, v in entry.items() if k != "place"}, **parsed}


def tied_text(pips, relation: str, parent: int, half: int, parent_pips=None) -> str:
    """The head of a placement tied to tile ``parent`` of the construction: ``3-1 on #2 (3-3)
    half 1``; ``relation``: ``on``, ``beneath`` or ``after``; ``parent_pips``: the lower tile's
    pips as shown, written in brackets when given. The clauses follow it, each after a comma."""
    shown = "" if parent_pips is None else f" ({tile_text(parent_pips)})"
    return f"{tile_text(pips)} {relation} #{parent}{shown} half {half}"


def free_text(pips, pos_mm, yaw_deg: float = 0.0) -> str:
    """A placement at a free pose: ``3-1 at (36, -12) mm, yaw 90``; ``pos_mm``: its centre's
    x, y (or x, y, z), mm; ``yaw_deg``: degrees, written only when not zero."""
    text = f"{tile_text(pips)} at (" + ", ".join(_num(v) for v in pos_mm) + ") mm"
    return text + (f", yaw {_num(yaw_deg)}" if yaw_deg else "")


def format_placement(placement, shown=None) -> str:
    """``placement`` (:class:`~magdomino.studies.scenario.Placement`) in the placement language.

    The tile is written as the placement holds it (half 0 first: the order later tiles'
    ``half`` refers to). ``shown``: the pips as shown of the construction's tiles (index =
    tile number), to write the lower tile's pips too.
    """
    if placement.on is not None:
        t, h = placement.on
        text = tied_text(placement.pips, placement.relation, t, h, shown[t] if shown is not None and t < len(shown) else None)
        direction = direction_of(placement.yaw_deg, h)
        if direction is None:
            text += f", turned {_num(placement.yaw_deg)} deg"
        elif direction != "outward":
            text += f", {direction}"
    else:
        text = free_text(placement.pips, placement.pos_mm, placement.yaw_deg)
    if placement.slide_mm is not None:
        text += f", slid from ({_num(placement.slide_mm[0])}, {_num(placement.slide_mm[1])}) mm"
    if placement.drop_mm != DEFAULT_DROP_MM:
        text += f", drop {_num(placement.drop_mm)} mm"
    return text + (", fixed" if placement.fixed else "")


def _num(value: float) -> str:
    return format(float(value), ".10g")
