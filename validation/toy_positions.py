"""Game positions of the default preset as scenarios: what users of the odds ask.

A **position** is a tower of a seeded game and the next placement a seat made on it, rebuilt
as a scenario in the placement language (:mod:`magdomino.studies.placement_language`): the
construction's tiles as its ``structure``, the placement as its one ``what_if``. The games
are those of ``validation/statics_toy_validation.py`` (its :func:`game_positions`, every
distinct position kept): 2-player Défi and En quinconce, random seats, judged by the
statics while they are played, on the default preset (``toy``). Every placement on a
construction of at least one tile is a position; none is filtered out.

:func:`position_set` returns the positions as JSON-ready dicts (``id``, ``rule``, ``seed``,
``structure`` and ``what_if`` texts), so that another checkout of the code can rebuild the
same scenarios (:func:`scenario_of`).

    .venv/bin/python -m validation.toy_positions --out /tmp/positions.json   # the bench's set
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from validation import statics_toy_validation

PRESET = "toy"
GAMES = (("defi", range(9100, 9102)), ("quinconce", range(9200, 9202)))
"""(rule, game seeds) of the bench's set: seeds no threshold was chosen on."""
HELD_OUT = (("defi", range(9300, 9302)), ("quinconce", range(9400, 9402)))
"""Other games of the same kinds, to check thresholds chosen on :data:`GAMES`."""
QUICK = (("defi", range(9100, 9101)), ("quinconce", range(9200, 9201)))
ALL_POSITIONS = 10_000
"""Positions kept per game: more than a game has (every distinct position is kept)."""


def placement_texts(view) -> tuple[list[str], str]:
    """The construction of ``view`` (a :class:`~magdomino.physics.adjudicator.PlacementView`)
    and its placement in the placement language, as the games' log writes them."""
    from magdomino.games.actions import Action
    from magdomino.games.tower.state import placement_text

    def action(tile, grid, parent, mode, motion, slide=None):
        return Action("place", tuple(tile), grid.x, grid.y, grid.level, grid.d, mode, motion, slide, parent)

    placed = [action(t.tile, t.grid, t.parent, t.mode, t.motion) for t in view.construction]
    texts = [placement_text(placed, None, a, k, view.tile_size) for k, a in enumerate(placed)]
    parent = None if view.parent is None else view.parent.number
    what_if = placement_text(placed, None, action(view.tile, view.grid, parent, view.mode, view.motion, view.slide),
                             len(placed), view.tile_size)
    return texts, what_if


def position_set(games=GAMES, seats: str = "random") -> list[dict]:
    """Every distinct position of the seeded games ``games`` ((rule, seeds) pairs), in order."""
    return [position for position, _ in position_views(games, seats)]


def position_views(games=GAMES, seats: str = "random") -> list[tuple[dict, object]]:
    """:func:`position_set`'s positions, each with the
    :class:`~magdomino.physics.adjudicator.PlacementView` the game's judge saw."""
    from magdomino.model.presets import load_preset

    preset = load_preset(PRESET)
    out = []
    for rule, seeds in games:
        for seed in seeds:
            for k, view in enumerate(statics_toy_validation.game_positions(preset, rule, seats, "statics", seed, ALL_POSITIONS)):
                structure, what_if = placement_texts(view)
                out.append(({"id": f"{rule}/{seats}/{seed}/{k}", "rule": rule, "seed": seed, "structure": structure,
                             "what_if": what_if}, view))
    return out


def is_slide(position: dict) -> bool:
    """Whether a position's what-if slides its tile in ("beneath": En quinconce's placement
    at table level, a motion along the table), rather than dropping it."""
    return " beneath " in position["what_if"]


def scenario_of(position: dict, preset: str = PRESET):
    """The scenario of one position of :func:`position_set` (named by its id)."""
    from magdomino.studies.scenario import scenario_from_dict

    data = {"name": position["id"].replace("/", "-"), "preset": preset, "structure": list(position["structure"]),
            "what_if": [position["what_if"]]}
    return scenario_from_dict(data, source=position["id"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--set", choices=("bench", "held-out", "quick"), default="bench")
    args = parser.parse_args(argv)
    games = {"bench": GAMES, "held-out": HELD_OUT, "quick": QUICK}[args.set]
    rows = position_set(games)
    Path(args.out).write_text(json.dumps(rows, indent=0) + "\n")
    print(f"{len(rows)} positions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
