"""The statics adjudicator against PyBullet on game positions (``validation/statics_toy_validation.py``).

A **position** is what an adjudicator sees of one placement in a game: the construction
before it (every tile's grid pose) and the placement (a
:class:`~magdomino.physics.adjudicator.PlacementView`). Positions are taken from the game
states themselves, never from printed placement texts, and kept as JSON
(:func:`view_to_dict`, :func:`view_from_dict`).

Each position is judged twice, without noise:

- **statics** (:func:`judge_statics`): the construction alone at its grid poses (the
  "tower") and the construction plus the tile at its rest pose (the "placement"), each
  ``"stands"``, ``"falls"`` or ``"unsure"``
  (:func:`~magdomino.physics.statics_screen.sure_verdict`), with the rigid answer, the tilt
  margin and the placed tile's load factor;
- **PyBullet** (:func:`judge_pybullet`): the construction spawned at its grid poses and
  settled (does it stand by itself?), then, when it stood, the tile placed on the settled
  construction as the PyBullet adjudicator places it in a game (a 1 mm drop or a slide).

:func:`agreement` sums up a list of judged positions.
"""

from __future__ import annotations

import time

from magdomino.maths.geometry import GridPose
from magdomino.physics.adjudicator import PlacedTile, PlacementView


def _placed_to_list(t: PlacedTile) -> list:
    return [t.number, list(t.tile), t.tile_index, t.grid.to_list(), t.parent, t.mode, t.motion]


def _placed_from_list(x) -> PlacedTile:
    number, tile, index, grid, parent, mode, motion = x
    return PlacedTile(int(number), tuple(tile), int(index), GridPose(*grid), parent, mode, motion)


def view_to_dict(view: PlacementView) -> dict:
    """A JSON-ready copy of ``view`` (lengths in m, angles in rad, as the view holds them)."""
    (centre, yaw) = view.pose
    return {
        "number": view.number, "deal": view.deal, "player": view.player, "tile": list(view.tile),
        "tile_index": view.tile_index, "grid": view.grid.to_list(), "pose": [[float(v) for v in centre], float(yaw)],
        "mode": view.mode, "motion": view.motion, "slide": view.slide,
        "slide_vector": None if view.slide_vector is None else list(view.slide_vector),
        "parent": None if view.parent is None else _placed_to_list(view.parent),
        "relative_pose": None if view.relative_pose is None else [[float(v) for v in view.relative_pose[0]], float(view.relative_pose[1])],
        "supports": list(view.supports), "construction": [_placed_to_list(t) for t in view.construction],
        "first": view.first, "tile_size": list(view.tile_size), "rule": view.rule,
    }


def view_from_dict(d: dict) -> PlacementView:
    """The :class:`PlacementView` of :func:`view_to_dict`."""
    rel = d["relative_pose"]
    return PlacementView(
        number=d["number"], deal=d["deal"], player=d["player"], tile=tuple(d["tile"]), tile_index=d["tile_index"],
        grid=GridPose(*d["grid"]), pose=(tuple(d["pose"][0]), d["pose"][1]), mode=d["mode"], motion=d["motion"],
        slide=d["slide"], slide_vector=None if d["slide_vector"] is None else tuple(d["slide_vector"]),
        parent=None if d["parent"] is None else _placed_from_list(d["parent"]),
        relative_pose=None if rel is None else (tuple(rel[0]), rel[1]), supports=tuple(d["supports"]),
        construction=tuple(_placed_from_list(t) for t in d["construction"]), first=d["first"],
        tile_size=tuple(d["tile_size"]), rule=d["rule"],
    )


def judge_statics(adjudicator, view: PlacementView) -> dict:
    """The statics' answers on one position: ``tower`` and ``placement``, each a dict with
    ``verdict`` ("stands", "falls", "unsure" or "refused"), ``rigid`` (the plain equilibrium
    check at rest), ``margin_deg`` and, for the placement, ``load_factor``; ``time_s``.

    ``adjudicator``: a :class:`~magdomino.physics.statics_adjudicator.StaticsAdjudicator`
    (its preset and magnets)."""
    start = time.perf_counter()
    out = {"tower": adjudicator.tower_answer(view.construction), "placement": adjudicator.answer(view)}
    out["time_s"] = time.perf_counter() - start
    return out


def judge_pybullet(adjudicator, view: PlacementView) -> dict:
    """PyBullet's answers on one position (no noise): ``tower`` (the construction at its grid
    poses, settled: ``collapsed``, ``reason``, ``culprit``, ``max_tilt_deg``, ``error``) and
    ``placement`` (the same fields of the placement's verdict on the settled construction, or
    None when the construction did not stand); ``time_s``.

    ``adjudicator``: a :class:`~magdomino.physics.pybullet_adjudicator.PybulletAdjudicator`."""
    start = time.perf_counter()
    tower, outcome = adjudicator.judge_view(view)

    def fields(v: dict) -> dict:
        return {"collapsed": bool(v.get("collapsed")), "reason": v.get("reason"), "culprit": v.get("culprit"),
                "max_tilt_deg": None if v.get("max_tilt_deg") is None else round(float(v["max_tilt_deg"]), 3),
                "error": v.get("error"), "settled": v.get("settled")}

    out = {"tower": fields(tower.to_dict()), "placement": None if outcome is None else fields(outcome.verdict)}
    out["time_s"] = time.perf_counter() - start
    return out


def _pyb_state(answer: dict | None) -> str | None:
    """``"falls"``, ``"stands"`` or None (no answer: an error, not settled, not tried)."""
    if answer is None or answer.get("error"):
        return None
    if answer["collapsed"]:
        return "falls"
    return "stands" if answer.get("settled", True) is not False else None


def agreement(rows: list[dict]) -> dict:
    """Counts over judged positions (rows with ``statics`` and ``pybullet``), for towers and
    for placements: ``judged`` (PyBullet gave an answer), ``sure`` (the statics did not say
    unsure), ``agree`` (of the sure ones), ``unsure``, ``sure_stands_fell`` (the statics sure it
    stands, PyBullet fell), ``sure_falls_stood``, and the rigid check's own agreement
    (``rigid_agree``: the plain equilibrium check, unsure or not)."""
    out = {}
    for part in ("tower", "placement"):
        c = {"judged": 0, "sure": 0, "agree": 0, "unsure": 0, "refused": 0, "sure_stands_fell": 0, "sure_falls_stood": 0,
             "rigid_agree": 0}
        for r in rows:
            ref = _pyb_state(r["pybullet"][part])
            if ref is None:
                continue
            s = r["statics"][part]
            c["judged"] += 1
            rigid = s.get("rigid")
            c["rigid_agree"] += int(rigid is not None and (rigid == (ref == "stands")))
            v = s["verdict"]
            if v in ("unsure", "refused"):
                c[v] += 1
                continue
            c["sure"] += 1
            c["agree"] += int(v == ref)
            c["sure_stands_fell"] += int(v == "stands" and ref == "falls")
            c["sure_falls_stood"] += int(v == "falls" and ref == "stands")
        out[part] = c
    return out


def position_key(view: PlacementView) -> tuple:
    """What makes two positions the same for the physics: the construction's tiles and grid
    poses and the placed tile's grid pose and motion (pips on the tiles do not matter to the
    statics; they are kept so that colours and records match)."""
    return (tuple((t.tile, t.grid.to_list().__repr__()) for t in view.construction), view.tile, repr(view.grid.to_list()),
            view.motion, view.slide_vector)

