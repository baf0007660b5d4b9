"""The tower lab's speed (``scripts/bench --only lab``): does it feel direct?

On towers of 4, 8 and 12 tiles (built by the lab's own calls, each time the safest tile on
top: the first tile with a spot the statics calls safe), for the next tile:

- ``lab_ghosts_s_N``: from choosing a tile to its coloured ghosts
  (:meth:`magdomino.faces.lab.tower.LabTower.ghosts` without margins: every legal spot,
  coloured by whether the statics says it stands at rest), and ``lab_ghosts_own_share_N``:
  the lab's own part of it, (lab - engine) / engine, where the engine is the calls it makes
  (the rules' enumeration, :func:`~magdomino.games.tower.candidates.enumerate_placements`,
  and a static check of each spot, :func:`~magdomino.studies.statics_engine.judge_poses`)
  timed alone. Goal: ≤ 0.3 s and a share ≤ 0.5. ``lab_margins_s_N`` (and its own share
  against :func:`~magdomino.studies.statics_engine.candidate_margins`): the same with the
  tilt margins, which the page adds in the background (the risk classes).
- ``lab_first_frame_s_N``: from choosing a spot to the first frame of its motion (the
  world built, the tile aimed; the browser shows each frame as the world records it, so the
  motion starts before its simulation ends). Goal: ≤ 0.5 s. ``lab_motion_s_N``: the whole
  recorded motion (:meth:`~magdomino.faces.lab.tower.LabTower.motion`) and
  ``lab_motion_own_share_N`` its part beyond :func:`~magdomino.studies.simulation.try_placement`
  alone (the same placement without the recording), on a spot that stands. Goal: share ≤ 0.5.
  ``lab_fall_*_N``: the same for a spot the statics calls safe but that falls in PyBullet,
  when the search meets one (a fall is filmed to its end, up to
  :data:`~magdomino.faces.lab.tower.FALL_TAIL_S` after the verdict: the lab's own cost).
- ``lab_first_odds_s_N``: from asking the odds to the first estimate with its interval (the
  first round of :data:`magdomino.faces.lab.build.ODDS_ROUNDS`, hybrid, one worker). Goal ≤ 1 s.

- ``play_round_statics_s`` and ``play_round_pybullet_s``: a round of the Play mode, what
  the lab does on a move: ``g.play(k)`` on ``md.game("defi", seats=["me", "careful",
  "careful"], physics=...)`` (:mod:`magdomino.faces.lab.play`), judged by the statics
  ("statics (fast)", which asks PyBullet where it is unsure) or by PyBullet ("dynamics"):
  the person's move and the two careful seats' replies. The person plays what the hints
  put first (the lowest risk of :meth:`~magdomino.games.session.GameSession.risks`, the
  first listed on a tie), so the games are the ones a person following the hints plays.
  Medians over the rounds of seeded games (:data:`PLAY_SEEDS`, at most
  :data:`PLAY_ROUNDS` rounds each). Goals: ≤ 1.5 s and ≤ 3 s on 2 cores. Beside them, for
  each judge: ``play_deal_s_*`` (``md.game`` itself: the deal and the seats' moves up to
  the person's first turn; median over the seeds after a warm-up game), ``play_hints_s_*``
  (the hints of a turn, timed apart: the lab lists them after the round),
  ``play_round_cpu_s_*`` (the median round's processor time: what the machine's other
  work changes least), ``play_seats_share_*`` (the careful seats' decisions over the
  rounds' whole time: the rest is the physics' verdicts and the rules) and
  ``play_rounds_*`` (how many rounds the medians are of). ``play_load_average_1min``: the
  machine's load before the games, for context.

Each figure is the median of a few repeats, after a warm-up (the compiled kernels loaded).

Measured on the 2-core machine shared with other work (load about 5), towers of 4 / 8 / 12
tiles: ghosts 0.040 / 0.051 / 0.061 s (own share 0.03 / -0.02 / -0.04), their margins 0.19 /
0.29 / 0.47 s, first frame 0.002 / 0.002 / 0.003 s, whole motion 0.06 / 0.09 / 0.10 s (own
share 0.27 / 0.01 / -0.07), first odds estimate 0.33 / 0.08 / 0.52 s. Under heavier load
(about 8) the same run gave up to 3x these.

The Play rounds (31 under the statics, 35 under PyBullet), at load 2.0: median 0.23 s
(processor 0.23 s) and 0.41 s (0.31 s), the careful seats 0.96 and 0.68 of the rounds'
time; a deal 0.016 and 0.029 s after the warm-up game (a cold process pays about 2.5 s of
imports first, the magnets' compiled kernels most), the hints 0.15 and 0.10 s. At load
4.5 to 10 a round's wall time was 1.5 to 3x its processor time.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import replace


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _grow(tower, size: int) -> None:
    """Add tiles, each the first (in set order) that has a safe spot on top, until ``size``."""
    from magdomino.model.tiles import ALL_TILES

    while len(tower) < size:
        for t in ALL_TILES:
            if t in tower.used():
                continue
            ghosts = [g for g in tower.ghosts(t) if g.risk == "safe" and " on #" in g.text]
            if not ghosts:
                continue
            g = max(ghosts, key=lambda g: g.margin_deg)
            if tower.keep(g, tower.motion(g)):
                break
        else:
            raise RuntimeError(f"no safe tile to add at {len(tower)} tiles")


def _next(tower):
    """The next tile to ask about (one with a spot on top that the statics says stands, and
    PyBullet too: the widest margin first),
    that spot, and a spot that falls in PyBullet if one was met on the way (or None)."""
    from magdomino.model.tiles import ALL_TILES

    falls = None
    for t in ALL_TILES:
        if t in tower.used():
            continue
        for g in sorted((g for g in tower.ghosts(t) if g.margin_deg is not None and g.margin_deg > 0 and " on #" in g.text),
                        key=lambda g: -g.margin_deg):
            if tower.motion(g).stands:
                return t, g, falls
            falls = falls or g
    raise RuntimeError("no next tile")


class _Stamped(list):
    """A list that notes when its first item came."""

    first = None

    def append(self, item) -> None:
        if self.first is None:
            self.first = time.perf_counter()
        super().append(item)


def _first_frame(tower, ghost) -> float:
    """Seconds from asking for the motion to its first recorded frame (the browser shows
    frames as they are recorded)."""
    frames = _Stamped()
    start = time.perf_counter()
    tower.motion(ghost, frames)
    return frames.first - start


PLAY_SEEDS = (1, 2, 3, 4, 5, 6)
"""The seeds of the Play games timed (two of them with ``--quick``)."""
PLAY_ROUNDS = 10
"""At most this many rounds are timed per game."""
PLAY_JUDGES = {"statics": "statics", "pybullet": "dynamics"}
"""Figure name -> the ``physics`` the lab's judge menu passes to ``md.game``."""


class _Timed:
    """A seat's player whose decisions are timed (the seconds summed in ``seconds``)."""

    def __init__(self, player):
        self.player, self.seconds = player, 0.0
        self.kind = getattr(player, "kind", None)

    def choose(self, state):
        start = time.perf_counter()
        try:
            return self.player.choose(state)
        finally:
            self.seconds += time.perf_counter() - start


def _hinted(g) -> int:
    """The move the hints put first: the lowest risk (draw and pass last), the first listed on a tie."""
    risks = g.risks() or [None] * len(g.legal())
    return min(range(len(risks)), key=lambda k: (risks[k] is None, risks[k] or 0.0, k))


def play_game(physics: str, seed: int, rounds: int) -> dict[str, list[float]]:
    """One lab Play game (Défi, you and two careful seats), its deal and up to ``rounds``
    rounds timed: ``{"deal": [s], "round": [s, ...], "cpu": [s, ...], "hints": [s, ...],
    "seats": [s, ...]}`` (``cpu``: each round's processor time; ``seats``: the careful
    seats' seconds in each round)."""
    import magdomino as md

    start = time.perf_counter()
    g = md.game("defi", seats=["me", "careful", "careful"], physics=physics, seed=seed)
    times = {"deal": [time.perf_counter() - start], "round": [], "cpu": [], "hints": [], "seats": []}
    try:
        seats = [_Timed(a) if a is not None else None for a in g.agents]
        g.agents = seats
        while not g.over and len(times["round"]) < rounds:
            start = time.perf_counter()
            k = _hinted(g)
            times["hints"].append(time.perf_counter() - start)
            before = sum(a.seconds for a in seats if a is not None)
            cpu, start = time.process_time(), time.perf_counter()
            g.play(k)
            took = time.perf_counter() - start
            times["cpu"].append(time.process_time() - cpu)
            times["round"].append(took)
            times["seats"].append(sum(a.seconds for a in seats if a is not None) - before)
    finally:
        g.close()
    return times


def play_figures(quick: bool = False) -> dict[str, float]:
    """The Play mode's figures (the module docstring)."""
    seeds = PLAY_SEEDS[:2] if quick else PLAY_SEEDS
    out = {"play_load_average_1min": os.getloadavg()[0]}
    for name, physics in PLAY_JUDGES.items():
        play_game(physics, seeds[0], 1)  # warm-up: the engines' imports and compiled kernels loaded
        games = [play_game(physics, seed, PLAY_ROUNDS) for seed in seeds]
        rounds = [t for g in games for t in g["round"]]
        out[f"play_round_{name}_s"] = statistics.median(rounds)
        out[f"play_round_cpu_s_{name}"] = statistics.median(t for g in games for t in g["cpu"])
        out[f"play_deal_s_{name}"] = statistics.median(g["deal"][0] for g in games)
        out[f"play_hints_s_{name}"] = statistics.median(t for g in games for t in g["hints"])
        out[f"play_seats_share_{name}"] = sum(t for g in games for t in g["seats"]) / sum(rounds)
        out[f"play_rounds_{name}"] = float(len(rounds))
    return out


def run(quick: bool = False) -> dict[str, float]:
    from magdomino.faces.lab.build import ODDS_ROUNDS
    from magdomino.faces.lab.tower import LabTower
    from magdomino.games.tower.candidates import enumerate_placements
    from magdomino.studies.simulation import try_placement
    from magdomino.studies.statics_engine import candidate_margins, judge_poses, with_placement

    repeats = 2 if quick else 5
    sizes = (4, 8) if quick else (4, 8, 12)
    tower = LabTower()
    tower.first((6, 6))
    out: dict[str, float] = {}
    for size in sizes:
        _grow(tower, size)
        tile, ghost, falls = _next(tower)
        sc, poses = tower.scenario(), tower.poses

        # Each closure below is timed within this iteration: its defaults bind this size's values.
        def engine_ghosts(sc=sc, tile=tile, poses=poses):
            cands = enumerate_placements(sc, tile, poses, rule="any")
            synthetic = replace(sc, what_if=tuple(c.placement for c in cands))
            for i in range(len(cands)):
                judge_poses(synthetic, *with_placement(synthetic, poses, i), "candidate", placed=True, margin=False)

        def engine_margins(sc=sc, tile=tile, poses=poses):
            cands = enumerate_placements(sc, tile, poses, rule="any")
            candidate_margins(sc, [c.placement for c in cands], poses)

        engine_ghosts()  # warm
        lab = _median_time(lambda tile=tile: tower.ghosts(tile, margins=False), repeats)
        engine = _median_time(engine_ghosts, repeats)
        out[f"lab_ghosts_s_{size}"] = lab
        out[f"lab_ghosts_own_share_{size}"] = (lab - engine) / engine
        lab = _median_time(lambda tile=tile: tower.ghosts(tile), repeats)
        engine = _median_time(engine_margins, repeats)
        out[f"lab_margins_s_{size}"] = lab
        out[f"lab_margins_own_share_{size}"] = (lab - engine) / engine
        lab = _median_time(lambda ghost=ghost: tower.motion(ghost), repeats)
        engine = _median_time(lambda sc=sc, poses=poses, ghost=ghost: try_placement(sc, poses, ghost.placement), repeats)
        out[f"lab_first_frame_s_{size}"] = statistics.median(_first_frame(tower, ghost) for _ in range(repeats))
        out[f"lab_motion_s_{size}"] = lab
        out[f"lab_motion_own_share_{size}"] = (lab - engine) / engine
        if falls is not None:  # a fall is filmed to its end: the tail after the verdict is the lab's own cost
            out[f"lab_fall_motion_s_{size}"] = _median_time(lambda falls=falls: tower.motion(falls), repeats)
            out[f"lab_fall_first_frame_s_{size}"] = statistics.median(_first_frame(tower, falls) for _ in range(repeats))

        def first_odds(ghost=ghost):
            next(tower.odds_rounds(ghost, rounds=ODDS_ROUNDS[:1]))

        out[f"lab_first_odds_s_{size}"] = _median_time(first_odds, max(2, repeats // 2))
    out.update(play_figures(quick))
    return out
