"""Physics-aware players' cost: one ``careful`` decision against one dynamic verdict, side by side.

``careful_decision_over_verdict`` is the figure that counts (goal <= 2): the wall time of one
:class:`magdomino.games.tower.players.CarefulPlayer` decision (the statics risk of the legal
placements on the settled construction, heaviest first until enough stand for sure, then a
dynamic preview of the safest in a copy of the world, :meth:`PybulletAdjudicator.assess_first`;
then the trap share left by its 4 safest while one can still win,
:func:`magdomino.games.tower.players.trap_share`) divided by the wall time of one dynamic verdict
(:meth:`PybulletAdjudicator.place` of the chosen placement in the live world), on the same
construction. The construction is a Défi game (2 players, magnets on, standard preset) played
by careful players from a seed until it holds ``TILES`` tiles (greedy players' towers collapse
every 4th tile; 6, the size the earlier figures were measured at, so that they compare); the two
are timed one right after the other on each seed's construction, and the ratio is the median
over seeds.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TILES = 6
"""Tiles in the construction a decision is timed on."""


def construction(seed: int, tiles: int = TILES):
    """``(state, adjudicator)``: a seeded physics Défi game played by careful players until the
    construction holds ``tiles`` tiles; None when the deal ends first (or after 80 placements)."""
    from magdomino.games import CHANCE, TERMINAL, Game
    from magdomino.games.tower.players import CarefulPlayer
    from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator

    adj = PybulletAdjudicator("standard")
    state = Game("defi", 2, seed, {"adjudicator": adj}).new_initial_state()
    careful = CarefulPlayer()
    while len(state.placed) < tiles:
        if state.current == TERMINAL or state.placements >= 80:
            adj.close()
            return None
        state.apply_action(state.legal_actions()[0] if state.current == CHANCE else careful.choose(state))
    return state, adj


def decision_and_verdict(state, adj) -> dict[str, float]:
    """Time one careful decision, then one dynamic verdict of the chosen placement (live world)."""
    from magdomino.games.tower.players import CarefulPlayer

    t0 = time.perf_counter()
    action = CarefulPlayer().choose(state)
    decision = time.perf_counter() - t0
    view = state.placement_view(action)
    t0 = time.perf_counter()
    adj.place(view, action)
    verdict = time.perf_counter() - t0
    candidates = sum(a.kind == "place" for a in state.legal_actions())
    return {"decision": decision, "verdict": verdict, "candidates": candidates}


def run(quick: bool = False) -> dict[str, float]:
    seeds = 2 if quick else 4
    rows = []
    seed = 0
    while len(rows) < seeds and seed < 50:
        built = construction(seed)
        seed += 1
        if built is None:
            continue
        state, adj = built
        try:
            rows.append(decision_and_verdict(state, adj))
        finally:
            adj.close()
    return {
        "careful_decision_over_verdict": statistics.median(r["decision"] / r["verdict"] for r in rows),
        "careful_decision_s": statistics.median(r["decision"] for r in rows),
        "dynamic_verdict_s": statistics.median(r["verdict"] for r in rows),
        "careful_candidates": statistics.median(r["candidates"] for r in rows),
        "careful_constructions": float(len(rows)),
    }


if __name__ == "__main__":
    for key, value in run(quick="--quick" in sys.argv).items():
        print(f"{key:<40} {value:.4g}")
