"""Write the validation set of placements (tests/data/validation_set.json).

Sources (see :mod:`magdomino.studies.validation`):

- every bundled scenario: its structure settling, and each what-if on the settled structure;
- the statics families of the tests: staircases of 2, 3, 4 tiles 1.5 mm inside and beyond
  the critical step, spawned as structures (magnets off), and the magnet-held cantilever
  at overhangs around its critical one (magnets on);
- real games: every placement of physics-adjudicated Défi and En quinconce games with
  random players, magnets on and off (the structure as it stood before, the placement as
  the adjudicator aimed it);
- random structures: stacks of 2 to 5 tiles with random steps and turns, settled, then a
  random placement on the top tile.

Every placement starts clear of every tile (:func:`magdomino.physics.motion.clear_motion`:
a drop into a slot under an overhang is released no higher than the room above it). A game
placement with no clear motion (a construction drifted off the grid until a neighbour lies
where the tile goes: the adjudicator does not judge it, see
:mod:`magdomino.physics.pybullet_adjudicator`) is not a case; :func:`starts_clear` checks
every case again. Knife-edge placements are left out too: their verdict changes when the
placement moves by half a millimetre (:func:`magdomino.studies.validation.robust`).

A structure is recorded as it settled at the reference settings used when the set was made
(the settings are not part of a case: the cases are the inputs). Run:
``.venv/bin/python -m validation.make_validation_set [--seed S] [--random N] [--games N]``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from magdomino.model.presets import load_preset
from magdomino.physics.motion import Drop, NoClearMotion, build, clear_motion
from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator
from magdomino.physics.settle import settle
from magdomino.physics.world import World
from magdomino.studies.aiming import aim_placement
from magdomino.studies.scenario import load_scenario
from magdomino.studies.simulation import settle_structure
from magdomino.studies.validation import Case, robust, save_cases
from validation import ROOT

L, H = 0.048, 0.008


def _yaw_q(yaw: float) -> np.ndarray:
    return np.array([0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)])


def scenario_cases() -> list[Case]:
    cases = []
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        sc = load_scenario(path)
        tiles0 = []
        used = None
        from magdomino.studies.aiming import structure_poses

        used = structure_poses(sc, np.asarray(sc.preset.tile.size))
        tiles0 = tuple((pl.pips, p, q, pl.fixed) for pl, (p, q) in zip(sc.structure, used))
        cases.append(Case(f"{sc.name}/structure", f"scenario {path.name}", sc.preset.name, sc.magnets, tiles0, None))
        verdict, settled = settle_structure(sc)
        if verdict.collapsed or verdict.error or not verdict.settled:
            continue
        tiles = tuple((pl.pips, settled[0][i], settled[1][i], pl.fixed) for i, pl in enumerate(sc.structure))
        for k, placement in enumerate(sc.what_if):
            rest, yaw, motion = aim_placement(sc, settled, placement, np.asarray(sc.preset.tile.size))
            cases.append(
                Case(f"{sc.name}/what-if {k}", f"scenario {path.name}", sc.preset.name, sc.magnets, tiles,
                     (placement.pips, rest, yaw, motion))
            )
    return cases


def statics_cases() -> list[Case]:
    cases = []
    for n in (2, 3, 4):
        for margin_mm in (-1.5, 1.5):
            step = (L / 2 + margin_mm / 1000) * 2 / n
            tiles = tuple(((i % 7, (i + 1) % 7), np.array([i * step, 0.0, H / 2 + i * H]), _yaw_q(0.0), False) for i in range(n))
            cases.append(Case(f"staircase n={n} margin {margin_mm:+} mm", "statics family", "plain", False, tiles, None))
    for beyond_mm in (1.5, 2.5, 4.5, 5.5):
        tiles = (
            ((0, 0), np.array([0.0, 0.0, H / 2]), _yaw_q(0.0), False),
            ((0, 1), np.array([L / 2 + beyond_mm / 1000, 0.0, 1.5 * H]), _yaw_q(0.0), False),
        )
        cases.append(Case(f"cantilever {beyond_mm} mm beyond", "statics family", "standard", True, tiles, None))
    return cases


class _Recorder(PybulletAdjudicator):
    """A PyBullet adjudicator that records every placement it judges as a case (numbered by
    the placements on a construction, the first tile of each left out: ``#k``)."""

    def __init__(self, label: str, **kwargs):
        super().__init__(**kwargs)
        self.label = label
        self.cases: list[Case] = []
        self.seen = 0
        self.no_clear_motion: list[str] = []

    def place(self, view, action):
        if self.world is not None and self._bodies:
            positions, quats = self.world.poses()
            tiles = tuple((self.world.tiles[b].pips, positions[b], quats[b], False) for b in self._bodies)
            name = f"{self.label} #{self.seen}"
            self.seen += 1
            try:
                rest, yaw, motion = self.aim(view)
            except NoClearMotion:
                self.no_clear_motion.append(name)
            else:
                self.cases.append(Case(name, self.label, self.preset.name, self.magnets, tiles, (view.tile, rest, yaw, motion)))
        return super().place(view, action)


def game_cases(games: int, seed: int) -> list[Case]:
    from magdomino.games import play_game

    cases = []
    blocked = []
    rules = [("defi", 2), ("defi", 4), ("quinconce", 3), ("defi", 3)]
    for g in range(games):
        rule, players = rules[g % len(rules)]
        magnets = g % 2 == 0
        label = f"game {rule} {players}p seed {seed + g} magnets {'on' if magnets else 'off'}"
        recorder = _Recorder(label, preset="standard", magnets=magnets)
        play_game(rule, players=players, seed=seed + g, physics=recorder, max_placements=30)
        recorder.close()
        cases += recorder.cases
        blocked += recorder.no_clear_motion
    print(f"left out {len(blocked)} game placements with no clear motion (not judged): {', '.join(blocked)}", flush=True)
    return cases


def random_cases(n: int, seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = []
    preset = load_preset("standard")
    while len(cases) < n:
        magnets = bool(rng.integers(2))
        k = int(rng.integers(2, 6))
        x, yaw = 0.0, 0.0
        nominal = []
        for level in range(k):
            if level:
                x += float(rng.uniform(-0.018, 0.018))
                yaw = float(rng.choice([0.0, math.pi / 2])) if rng.random() < 0.3 else yaw
            pips = (int(rng.integers(7)), int(rng.integers(7)))
            nominal.append((pips, np.array([x, 0.0, H / 2 + level * H]), _yaw_q(yaw), False))
        with World(preset, magnets=magnets) as world:
            build(world, nominal)
            verdict = settle(world, list(range(k)))
            if verdict.collapsed or verdict.error or not verdict.settled:
                continue
            positions, quats = world.poses()
        tiles = tuple((pips, positions[i], quats[i], False) for i, (pips, *_rest) in enumerate(nominal))
        top = positions[-1]
        top_yaw = 2 * math.atan2(quats[-1][2], quats[-1][3])
        turn = top_yaw + float(rng.choice([0.0, math.pi / 2]))
        along = float(rng.uniform(-0.024, 0.024))
        rest = np.array([top[0] + along * math.cos(top_yaw), top[1] + along * math.sin(top_yaw), top[2] + H])
        placement = ((int(rng.integers(7)), int(rng.integers(7))), rest, turn, Drop(float(rng.uniform(0.0, 0.002))))
        cases.append(Case(f"random #{len(cases)}", f"random stack of {k}, seed {seed}", "standard", magnets, tiles, placement))
    return cases


TILE_SIZE = np.array([L, 0.024, H])  # starts_clear's default size (m), made once as a default argument was


def starts_clear(case: Case, size=TILE_SIZE) -> bool:
    """Does the placement start clear of every tile, as its motion says? (A hand cannot start
    a tile inside another; :func:`~magdomino.physics.motion.clear_motion` is what every
    placement goes through, and it would lower a drop released above the room under an
    overhang: such a case would not replay as written.)"""
    if case.placement is None:
        return True
    _, rest, yaw, motion = case.placement
    try:
        return clear_motion(rest, yaw, motion, [(p, q) for _, p, q, _ in case.tiles], size) == motion
    except NoClearMotion:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--random", type=int, default=150)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--out", default=str(ROOT / "tests" / "data" / "validation_set.json"))
    args = parser.parse_args()
    cases = scenario_cases() + statics_cases()
    print(f"scenarios and statics families: {len(cases)} cases", flush=True)
    games = game_cases(args.games, args.seed)
    print(f"games: {len(games)} cases", flush=True)
    rand = random_cases(args.random, args.seed)
    print(f"random structures: {len(rand)} cases", flush=True)
    every = cases + games + rand
    kept = [c for c in every if starts_clear(c)]
    print(f"left out {len(every) - len(kept)} placements that would not start clear of the tiles", flush=True)
    presets = {name: load_preset(name) for name in {c.preset for c in kept}}
    is_robust = [robust(c, presets[c.preset]) for c in kept]
    edge = [c for c, ok in zip(kept, is_robust) if not ok]
    kept = [c for c, ok in zip(kept, is_robust) if ok]
    print(f"left out {len(edge)} knife-edge placements (verdict changes with a 0.5 mm move): "
          f"{', '.join(c.name for c in edge)}", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_cases(args.out, kept)
    print(f"{len(kept)} cases -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
