"""What-if studies: candidate placements of one tile on a settled structure, ranked by odds.

:func:`rank_placements` answers "where should I put this tile?": it settles the scenario's
structure, takes the placements the rules allow for the tile from the caller (the rules
layer enumerates them: :func:`magdomino.games.tower.candidates.enumerate_placements`; this layer
knows no rules, ``magdomino whatif`` wires the two), estimates P(collapse) of each with the
odds machinery (:func:`magdomino.studies.odds.estimate_odds`, one synthetic what-if per
candidate, one seed for all: trial ``i`` of every candidate sees the same random numbers, so
the candidates are compared under the same hands) and returns them safest first. Beside
P(collapse) each carries how often it pushed the structure (the shift share: trials where a
tile moved more than ``max_shift_mm`` without falling, not a collapse) and the median of the
trials' largest shifts; among equal odds of collapse, fewer shifts rank first, and placements
that still tie come in the order the placement language writes them (:func:`placement_order`).

A candidate is any object with ``placement`` (a :class:`~magdomino.studies.scenario.Placement`),
``index`` (its enumeration order), ``describe()`` and ``to_dict()``
(:class:`magdomino.games.tower.candidates.Candidate`). How the settled structure is mapped onto
the rules' grid, and which placements each ``rule`` lists, is documented there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from magdomino.errors import ARGUMENTS, InputError
from magdomino.model.tiles import parse_tile, tile
from magdomino.studies.odds import OddsSettings, WhatIfOdds, estimate_odds, odds_settings, resolve_noise
from magdomino.studies.scenario import Scenario
from magdomino.studies.statics_engine import candidate_margins, check_screen
from magdomino.version import __version__
from magdomino.wording import tile_text

SCREEN_BAND_DEG = 5.0
"""With ``screen``, candidates whose statics tilt margin is within this of the K-th best are
confirmed too. 5° is about what one σ of the default hand (1 mm) changes in a margin: moving
a centre of mass 1 mm towards the edge it stands over, 12 mm above that edge (a tile on a
tile), changes the tipping angle by atan(1/12) = 4.8°; and 11 of the 15 drop impacts that
the statics misses (:mod:`magdomino.physics.pybullet_adjudicator`) had a margin under 5°."""


MEDIAN_SHIFT_DECIMALS = 1
"""The ranking compares median shifts rounded to this many decimals of a millimetre (0.1 mm),
as ``magdomino whatif`` shows them: two placements that both leave the structure where it
was (medians of thousandths of a millimetre, the solver's creep) tie on it and come in
:func:`placement_order`, rather than be told apart by a difference no one sees (the hand's σ is
1 mm, ``max_shift_mm`` 5)."""


def check_tile(scenario: Scenario, tile_pips) -> tuple[int, int]:
    """The tile as ``(low, high)``, refused if it is already in the structure (each tile exists once)."""
    t = parse_tile(tile_pips, ARGUMENTS, "tile")
    for i, pl in enumerate(scenario.structure):
        if tile(*pl.pips) == t:
            raise InputError(ARGUMENTS, "tile", f"{tile_text(t)} is already in the structure (#{i}); each tile exists once")
    return t


# -- ranking ------------------------------------------------------------------------------


@dataclass
class RankedPlacement:
    """A candidate with its odds (None: judged by the statics alone, see ``--screen``) and
    the statics' verdict when it was screened (None: not screened)."""

    candidate: object  # a magdomino.games.tower.candidates.Candidate
    odds: WhatIfOdds | None
    statics: object = None
    judged_by: str = "dynamics"

    @property
    def engine(self) -> str:
        """Who answered: the odds' engine, or "statics" (screened out, no odds)."""
        return "statics" if self.odds is None else self.judged_by

    @property
    def p_collapse(self) -> float | None:
        return None if self.odds is None else self.odds.p_collapse

    @property
    def ci95(self) -> tuple[float, float] | None:
        return None if self.odds is None else self.odds.ci95

    @property
    def trials(self) -> int:
        return 0 if self.odds is None else self.odds.trials

    @property
    def shift_share(self) -> float | None:
        """Shifted trials among the counted ones (None: no odds, or an engine that does not know shifts)."""
        return None if self.odds is None else self.odds.shift_share

    @property
    def shift_ci95(self) -> tuple[float, float] | None:
        return None if self.odds is None else self.odds.shift_ci95

    @property
    def median_shift_mm(self) -> float | None:
        """Median over the counted trials of each one's largest shift, mm (None: not known)."""
        return None if self.odds is None else self.odds.median_shift_mm

    def to_dict(self) -> dict:
        o = self.odds
        screened = None if self.statics is None else (
            self.statics if isinstance(self.statics, dict) else
            {k: self.statics.to_dict()[k] for k in ("stands", "margin", "margin_unit", "load_factor", "tilt_direction_deg")}
        )
        if o is None:
            return {"placement": self.candidate.to_dict(), "engine": "statics", "statics": screened, "p_collapse": None,
                    "shift_share": None, "shift_ci95": None, "median_shift_mm": None}
        shift_ci = o.shift_ci95
        return {
            "placement": self.candidate.to_dict(),
            "engine": self.judged_by,
            "statics": screened,
            "p_collapse": o.p_collapse,
            "ci95": list(o.ci95),
            "trials": o.trials,
            "collapses": o.collapses,
            "errors": o.errors,
            "undecided": o.undecided,
            "reasons": dict(sorted(o.reasons.items())),
            "shift_share": o.shift_share,
            "shift_ci95": None if shift_ci is None else list(shift_ci),
            "median_shift_mm": o.median_shift_mm,
        }


_KIND_ORDER = {"on": 0, "beneath": 1, "after": 2}
_DIRECTION_ORDER = {"": 0, "back": 1, "across left": 2, "across right": 3}


def placement_order(candidate) -> tuple:
    """Where a candidate comes among placements that rank equal: as the placement language
    writes it, on top before beneath before end to end, then the lower tile's number, its
    half 0 before half 1, then outward, back, across left, across right (a turn by another
    angle after those), then the text itself. It depends on nothing but the placement, so
    equal candidates come in the same order whatever order they were listed in."""
    text = candidate.describe()
    m = re.search(r"\b(on|beneath|after) #(\d+)(?: \([^)]*\))? half (\d)(?:, (back|across left|across right))?", text)
    if m is None:
        return (len(_KIND_ORDER), 0, 0, len(_DIRECTION_ORDER), text)
    return (_KIND_ORDER[m.group(1)], int(m.group(2)), int(m.group(3)), _DIRECTION_ORDER[m.group(4) or ""], text)


def _rank_key(r: RankedPlacement):
    """Safest first: p(collapse); among equal p, the smaller shift share, then the smaller
    median shift (rounded as shown, :data:`MEDIAN_SHIFT_DECIMALS`); then the interval's upper end,
    then :func:`placement_order`. A value not known (None) comes after every known one.

    "Equal p" is exact equality of the two floats, no tolerance: two candidates tie only
    with the same share of collapses (``k / n``, the same rational number is the same
    float), so a shift never outranks a difference in the odds of collapse however small."""
    p, share, median = r.p_collapse, r.shift_share, r.median_shift_mm
    return (p is None, 0.0 if p is None else p, share is None, 0.0 if share is None else share,
            median is None, 0.0 if median is None else round(median, MEDIAN_SHIFT_DECIMALS), r.ci95[1], placement_order(r.candidate))


def rank_placements(
    scenario: Scenario,
    tile,
    settings: OddsSettings | int,
    /,
    *,
    candidates: Callable | list,
    rule: str = "any",
    parallel_only: bool = False,
    second_parallel: bool = True,
    settled=None,
    screen: int | None = None,
    **changes,
) -> list[RankedPlacement]:
    """Every legal placement of ``tile`` on the settled structure, safest first.

    Parameters
    ----------
    scenario : Scenario
        Its what-ifs are ignored; its ``[noise]`` applies.
    tile : (int, int) or "a,b"
        Not already in the structure.
    candidates : callable or list
        The placements to rank: a list of candidates, or
        ``candidates(scenario, tile, settled, rule=rule, parallel_only=parallel_only,
        second_parallel=second_parallel)``
        returning them (:func:`magdomino.games.tower.candidates.enumerate_placements`), called
        once the structure has settled.
    settings : OddsSettings or int
        The odds run for every candidate (a number: that many trials per candidate), with
        keyword changes, as :func:`magdomino.studies.odds.estimate_odds`. Every candidate
        uses the same seed (common random numbers).
    rule, parallel_only, second_parallel
        Which placements (passed to ``candidates`` when it is a callable): as the rules
        read them by default, every tower placement parallel or perpendicular, except on a
        structure of one tile (the leaflet's tip: the second tile parallel).
    settled : (positions, quaternions), optional
        The settled structure, if already known (the caller vouches that it settled);
        else it is settled here once, and refused unless it settles. The candidates and
        every trial start from these same poses.
    screen : int, optional
        The statics ranks every candidate by its tilt margin and the odds trials run only
        on the best ``screen`` ones and those within a band of them
        (:func:`magdomino.studies.statics_engine.candidate_margins`); the others are
        ranked after them by margin, ``engine`` "statics".

    Returns
    -------
    list of RankedPlacement, sorted by ``p_collapse``; among equal ``p_collapse`` (exactly
    equal), the one that shifts the structure less often first (``shift_share``, then
    ``median_shift_mm`` to 0.1 mm); then the interval's upper end, then :func:`placement_order`.
    """
    run = odds_settings(settings, **changes).checked(scenario)

    screen = check_screen(screen)
    check_tile(scenario, tile)
    if settled is None:
        settled = run.engine.starting_structure(scenario)
    if callable(candidates):
        candidates = candidates(scenario, tile, settled, rule=rule, parallel_only=parallel_only, second_parallel=second_parallel)
    candidates = list(candidates)
    if not candidates:
        t = tile if isinstance(tile, tuple) else parse_tile(tile)
        how = (" (parallel only)" if parallel_only
               else " (the second tile parallel; --no-second-parallel lifts it)" if second_parallel and len(scenario.structure) == 1
               else "")
        raise InputError(ARGUMENTS, "tile",
                         f"no legal placement of {tile_text(t)} on this structure under rule {rule}{how}")
    if screen is not None:
        return screen_placements(scenario, candidates, settled, run, screen)
    synthetic = replace(scenario, what_if=tuple(c.placement for c in candidates))
    result = estimate_odds(synthetic, run, settled=settled)
    ranked = [RankedPlacement(c, o, judged_by=run.engine.name) for c, o in zip(candidates, result.results)]
    return sorted(ranked, key=_rank_key)


def screen_placements(scenario: Scenario, candidates: list, settled, run: OddsSettings, screen: int) -> list[RankedPlacement]:
    """Rank candidates by the statics' tilt margin, confirm the best with the odds of ``run``.

    Confirmed: the ``screen`` candidates of largest margin, every candidate whose margin is
    within :data:`SCREEN_BAND_DEG` of the ``screen``-th, and every candidate the statics
    refuses. Returns the confirmed ones by their odds, then the others by margin (largest
    first, ``odds`` None). InputError when the statics cannot model the settled structure
    (:func:`magdomino.studies.statics_engine.candidate_margins`).
    """
    verdicts = candidate_margins(scenario, [c.placement for c in candidates], settled)
    margins = [None if isinstance(v, dict) else v.margin for v in verdicts]
    judged = sorted((m for m in margins if m is not None), reverse=True)
    bar = judged[min(screen, len(judged)) - 1] - SCREEN_BAND_DEG if judged else math.inf
    confirm = [i for i, m in enumerate(margins) if m is None or m >= bar]
    synthetic = replace(scenario, what_if=tuple(c.placement for c in candidates))
    odds = estimate_odds(synthetic, run, settled=settled, what_ifs=confirm).results if confirm else []
    confirmed = sorted((RankedPlacement(candidates[i], o, verdicts[i], run.engine.name) for i, o in zip(confirm, odds)), key=_rank_key)
    rest = [RankedPlacement(candidates[i], None, verdicts[i]) for i in range(len(candidates)) if i not in set(confirm)]
    rest.sort(key=lambda r: (-r.statics.margin, placement_order(r.candidate)))
    return confirmed + rest


def whatif_document(scenario: Scenario, tile, ranked: list[RankedPlacement], seed: int | None = None, *, rule: str = "any",
                    parallel_only: bool = False, second_parallel: bool = True, noise: dict | None = None,
                    screen: int | None = None, engine: str = "hybrid") -> dict:
    """The JSON document of a ranking: ``{"version", "seed", "preset", "tile_size_mm", "candidates", ...}``."""
    t = parse_tile(tile)
    return {
        "version": __version__,
        "name": scenario.name,
        "seed": scenario.seed if seed is None else int(seed),
        "preset": scenario.preset.name,
        "magnets": scenario.magnets,
        "tile_size_mm": scenario.preset.size_mm,
        "engine": engine if screen is None else f"statics, then {engine}",
        "screen": None if screen is None else {"best": int(screen), "band_deg": SCREEN_BAND_DEG},
        "tile": list(t),
        "rule": rule,
        "parallel_only": parallel_only,
        "second_parallel": second_parallel,
        "noise": resolve_noise(scenario, noise),
        "candidates": [r.to_dict() for r in ranked],
    }
