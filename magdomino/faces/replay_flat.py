"""The replay of a table game's record (Le Matador, Le jeu des échanges, 20 sur 20): the
table after each move, drawn by :mod:`magdomino.faces.tables`.

A record keeps the table of its last deal (round) only, each tile with the order it was
placed in; so the frames are the last deal's moves, the table built up tile by tile, the
record's own final table last (its open ends, SUN and RAIN boxes, markers)."""

from __future__ import annotations

import numpy as np

from magdomino.faces import frames
from magdomino.faces.tables import chain_table_figure, vingt_table_figure
from magdomino.games.chain.record import event_line
from magdomino.games.family import VINGT, family_of
from magdomino.wording import counted, tile_text, winners


def _picture(table_figure, final: dict, title: str, width: int, height: int) -> np.ndarray:
    """The table drawn in memory (what its PNG file would hold), shrunk to fit (width, height)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(table_figure(final, title))
    canvas.draw()
    im = Image.fromarray(np.asarray(canvas.buffer_rgba())).convert("RGB")
    im.thumbnail((width, height), Image.Resampling.LANCZOS)
    return np.asarray(im, dtype=np.uint8)


def _chain_steps(record: dict):
    """(event, partial final) after each place of the last deal, then the record's final."""
    final = record["final"]
    events = record["events"]
    last = max((k for k, e in enumerate(events) if e.get("type") == "deal"), default=0)
    table = sorted(final["table"], key=lambda t: t.get("order", 0))
    placed = 0
    # Le Matador's hands follow from the deal, the places and the draws; Le jeu des
    # échanges' exchanges move tiles between hands: its partial tables show no hands.
    hands = [list(map(tuple, h)) for h in events[last].get("hands", [])] if record["rule"] == "matador" else None
    for ev in events[last:]:
        if hands is not None and ev.get("type") == "draw" and ev.get("to") in (None, "hand"):
            hands[ev["player"]].append(tuple(ev["tile"]))
        if ev.get("type") != "place":
            continue
        if hands is not None and tuple(ev["tile"]) in hands[ev["player"]]:
            hands[ev["player"]].remove(tuple(ev["tile"]))
        placed += 1
        shown = [t for t in final["table"] if t.get("order", 0) < placed]
        if not shown or placed >= len(table):
            continue
        ends = [[shown[0]["halves"][0], "open"], [shown[-1]["halves"][1], "open"]]
        partial = {"table": shown, "ends": ends, "hands": [sorted(h) for h in hands] if hands else [],
                   "stock": [None] * ev.get("stock_size", 0)}
        for key in ("target", "variant"):
            if key in final:
                partial[key] = final[key]
        yield ev, partial
    yield (events[-1] if events else {}), final


def _vingt_steps(record: dict):
    final = record["final"]
    events = record["events"]
    last = max((k for k, e in enumerate(events) if e.get("type") == "deal"), default=0)
    table = final["table"]
    n_seats = len(final["markers"]["placed"])
    count, markers = 0, [[] for _ in range(n_seats)]
    for ev in events[last:]:
        if ev.get("type") != "place":
            continue
        count += len(ev["tiles"])
        markers[ev["player"]].extend(ev.get("markers", []))
        if count >= len(table):
            break
        yield ev, {"table": table[:count], "markers": {"placed": [list(m) for m in markers], "left": ev.get("markers_left", [])}}
    yield (events[-1] if events else {}), final


def _caption(record: dict, ev: dict) -> str:
    if family_of(record["rule"]) is VINGT:
        if ev.get("type") == "place":
            tiles = " ".join(tile_text((a, b)) for _, _, a, b in ev["tiles"])
            return (f"round {ev.get('round', 0) + 1}  P{ev['player']}  {tiles} along {ev['dir']}: {ev['total']}, "
                    f"{counted(len(ev['markers']), 'marker')}")
        return f"end: {winners(record.get('winners'))}; scores {record.get('scores')}"
    line = (event_line(ev) or "").strip()
    if ev.get("type") == "place":
        return f"deal {ev.get('deal', 0) + 1}  {line}"
    return line or f"end: {winners(record.get('winners'))}"


def replay_table(record: dict, width: int, height: int, rep):
    """Fill ``rep`` with one frame per move of the last deal (the table after it)."""
    import matplotlib

    matplotlib.use("Agg")
    vingt = family_of(record["rule"]) is VINGT
    table_figure = vingt_table_figure if vingt else chain_table_figure
    steps = _vingt_steps(record) if vingt else _chain_steps(record)
    title = f"{record['rule']}, {record['players']} players, seed {record.get('seed')}"
    picture_h = height - frames.strip_height(height)
    sizes_key = "rack_sizes" if vingt else "hand_sizes"
    for ev, final in steps:
        picture = _picture(table_figure, final, title, width, picture_h)
        hands = ev.get(sizes_key) or [len(h) for h in record["final"].get("hands", [])]
        lines = [_caption(record, ev), f"{len(final['table'])} tiles on the table"]
        rep.frames.append(frames.compose(picture, lines, list(hands), width, height))
        rep.captions.append(" | ".join(lines))
        rep.durations_ms.append(frames.HOLD_MS * 2)
        if ev.get("type") == "place":
            rep.placements.append({"deal": ev.get("deal", ev.get("round", 0)), "player": ev["player"],
                                   "tile": ev.get("tile"), "collapsed": False, "hand_sizes": list(hands),
                                   "construction_size": len(final["table"]), "levels": 1})
    return rep
