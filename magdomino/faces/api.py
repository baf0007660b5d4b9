"""The Python face: what ``import magdomino as md`` gives a script or a notebook.

Millimetres and degrees throughout; SI stays inside. A :class:`Construction` is built tile by
tile in the placement language (:mod:`magdomino.studies.placement_language`) and checked as a
scenario file is (the same one-line :class:`~magdomino.errors.InputError`, naming the
argument); it simulates, tries what-ifs, estimates odds, ranks every legal spot for a tile,
sweeps a parameter and draws itself. Results print as short tables, show themselves in a
notebook (``_repr_html_``: the picture with tiles and halves labelled, the table) and convert
to rows (``to_rows()``, or ``to_dataframe()`` when pandas is installed).

Runs stay in this process unless ``jobs=2`` or more asks for worker processes (so a plain
script needs no ``if __name__ == "__main__"`` guard; with ``jobs`` > 1 a script needs it, a
notebook does not).
"""

from __future__ import annotations

import html
import json
from dataclasses import replace
from pathlib import Path

from magdomino.errors import InputError
from magdomino.faces.notebook import (  # noqa: F401 - Picture and Result are the face's too
    Picture,
    Result,
    View3D,
    construction_png,
    figure_png,
    html_table,
    png_bytes,
    simulation_picture,
)
from magdomino.model.presets import DEFAULT_PRESET, Preset, load_preset, preset_names, with_overrides, write_preset
from magdomino.model.tiles import parse_tile
from magdomino.studies.scenario import load_scenario, scenario_from_dict
from magdomino.wording import counted, tile_text, winners

# The studies, games, renderer and plots are imported by the call that runs them: md.Construction(...)
# loads the scenario and preset modules only.

PYTHON = "arguments"
"""Where an error in a call comes from (the argument is named as the key)."""


# -- presets ------------------------------------------------------------------------------


def preset(name=DEFAULT_PRESET, **overrides):
    """A checked preset by name or path, with overrides in file units.

    ``md.preset("standard", magnets_scale=1.2)`` scales every magnet's polarisation;
    ``md.preset("standard", **{"tile.friction": 0.4, "tile.magnets.polarization_T": 1.0})``
    sets any key of the preset file (a key under ``tile.magnets`` applies to every magnet).
    The result is checked as a preset file is (InputError naming the key).
    """
    base = name if isinstance(name, Preset) else load_preset(name)
    return with_overrides(base, overrides, PYTHON) if overrides else base


def calibrate(measurements, *, draws=None, seed=0):
    """Fit a preset to home measurements (a file's path or its data as a dict): a
    :class:`~magdomino.faces.calibration.Calibration` (table, ``.save(path)``, HTML)."""
    from magdomino.faces.calibration import calibrate as fit

    return fit(measurements, draws=draws, seed=seed)


def presets() -> list[str]:
    """The bundled presets' names."""
    return preset_names()


def engines() -> list[str]:
    """The engines a study can be judged by (``engine=``)."""
    from magdomino.studies.engines import engine_names

    return engine_names()


# -- constructions ------------------------------------------------------------------------


class Construction:
    """A structure of tiles, built in the placement language, and what-ifs to try on it.

    Parameters
    ----------
    tiles : iterable of str
        Placements, in order (``"6-6 at (0, 0) mm"``, ``"6-3 on #0 half 1"``, ...).
    preset : str or Preset
        Name, path or :func:`preset` (default ``"toy"``, :data:`~magdomino.model.presets.DEFAULT_PRESET`).
    magnets : bool
    seed : int
        The seed of odds and rankings.
    name : str
    noise : dict, optional
        The hand's and the set's noise (keys of a scenario's ``[noise]``).
    """

    def __init__(self, tiles=(), *, preset=DEFAULT_PRESET, magnets: bool = True, seed: int = 0, name: str = "construction",
                 noise: dict | None = None):
        self._preset, self.magnets, self.seed, self.name = preset, magnets, seed, name
        if noise is not None and not isinstance(noise, dict):
            raise InputError(PYTHON, "noise", f"expected a table (a dict such as {{'pos_sigma_mm': 0.5}}), got {noise!r}")
        self.noise = dict(noise or {})
        self.tiles: list[str] = []
        self.what_ifs: list[str] = []
        self._scenario = None
        for t in _texts(tiles, "tiles"):
            self.add(t)

    # building

    def add(self, placement: str) -> Construction:
        """Add a tile (checked at once: a wrong one is refused and not added). Returns self."""
        self.tiles.append(placement)
        try:
            self._scenario = self.with_what_ifs([])
        except InputError:
            self.tiles.pop()
            raise
        return self

    @classmethod
    def load(cls, path) -> Construction:
        """A scenario file as a construction (its what-ifs kept in ``what_ifs``)."""
        sc = load_scenario(path)
        made = cls.__new__(cls)
        made._preset, made.magnets, made.seed, made.name, made.noise = sc.preset, sc.magnets, sc.seed, sc.name, dict(sc.noise)
        made.tiles = [sc.describe(pl) for pl in sc.structure]
        made.what_ifs = [sc.describe(w) for w in sc.what_if]
        made._scenario = replace(sc, what_if=())
        return made

    def save(self, path, what_ifs=None) -> Path:
        """Write this construction and ``what_ifs`` (default: the ones it was loaded with) as a
        scenario file (TOML); a preset that is not a bundled one goes into a preset file beside it."""
        path = Path(path)
        bundled = isinstance(self._preset, str) and self._preset in preset_names()
        name = self._preset if bundled else self._preset_file(path)
        what_ifs = self.what_ifs if what_ifs is None else what_ifs
        lines = [f"name = {_toml(self.name)}", f"preset = {_toml(name)}", f"magnets = {str(self.magnets).lower()}",
                 f"seed = {self.seed}", ""]
        for t in self.tiles:
            lines += ["[[structure]]", f"place = {_toml(t)}", ""]
        for w in _texts(what_ifs):
            lines += ["[[what_if]]", f"place = {_toml(w)}", ""]
        if self.noise:
            lines += ["[noise]"] + [f"{k} = {_toml(v)}" for k, v in self.noise.items()] + [""]
        try:
            path.write_text("\n".join(lines))
        except OSError as exc:
            raise InputError(PYTHON, "path", f"cannot write {path}: {exc.strerror or exc}") from None
        return path

    def _preset_file(self, path: Path) -> str:
        out = path.with_name(path.stem + "-preset.toml")
        try:
            write_preset(self.scenario.preset, out)
        except OSError as exc:
            raise InputError(PYTHON, "path", f"cannot write {out}: {exc.strerror or exc}") from None
        return out.name

    @property
    def scenario(self):
        """The checked :class:`~magdomino.studies.scenario.Scenario` (no what-ifs)."""
        return self._scenario if self._scenario is not None else self.with_what_ifs([])  # no tile: says so

    def with_what_ifs(self, what_ifs):
        """The scenario with these what-ifs (placement texts), checked as a file is."""
        if not self.tiles:
            raise InputError(PYTHON, "tiles", "expected at least one tile: add one, like '6-6 at (0, 0) mm'")
        data = {"name": self.name, "magnets": self.magnets, "seed": self.seed, "structure": list(self.tiles),
                "what_if": list(_texts(what_ifs)), "noise": self.noise, "preset": self._preset}
        return scenario_from_dict(data, source=PYTHON)  # a Preset object is checked against as a named one is

    # studying

    def simulate(self, *what_ifs: str, engine="dynamics") -> Simulation:
        """Settle the structure (does it stand?), then try each what-if alone on it."""
        from magdomino.studies.engines import get_engine

        sc = self.with_what_ifs(what_ifs)
        chosen = get_engine(engine, source=PYTHON)
        return Simulation(chosen.simulate(sc, trace=chosen.moves), self)

    def odds(self, *what_ifs: str, trials: int = 100, seed: int | None = None, jobs: int | None = None, engine="hybrid",
             noise: dict | None = None, progress: bool = True, **settings) -> Odds:
        """How likely a real hand's placement (each what-if; the structure when none) brings it down."""
        from magdomino.studies.odds import estimate_odds

        sc = self.with_what_ifs(what_ifs)
        result = estimate_odds(sc, trials, seed=seed, jobs=jobs, engine=engine, noise=noise, progress=progress,
                               **executor_settings(jobs, settings))
        return Odds(result, sc)

    def rank(self, tile, *, trials: int = 20, rule: str = "any", seed: int | None = None, jobs: int | None = None,
             screen: int | None = None, parallel_only: bool = False, second_parallel: bool = True, progress: bool = True,
             **settings) -> Ranking:
        """Every legal placement of ``tile`` ("3-1" or (3, 1)) on the settled structure, safest first."""
        from magdomino.games.tower.candidates import enumerate_placements
        from magdomino.studies.whatif import rank_placements

        typed, tile = tile, _tile(tile)
        ranked = rank_placements(self.scenario, tile, trials, candidates=enumerate_placements, rule=rule, seed=seed, jobs=jobs,
                                 screen=screen, parallel_only=parallel_only, second_parallel=second_parallel,
                                 progress=progress, **executor_settings(jobs, settings))
        from magdomino.studies.whatif import whatif_document

        document = whatif_document(self.scenario, tile, ranked, seed=seed, rule=rule, parallel_only=parallel_only,
                                   second_parallel=second_parallel, screen=screen, engine=settings.get("engine", "hybrid"))
        return Ranking(ranked, typed if isinstance(typed, str) else tile_text(tile), document)

    def sweep(self, param: str, values, *what_ifs: str, trials: int = 50, seed: int | None = None, jobs: int | None = None,
              progress: bool = True, **settings):
        """Odds as a function of one parameter (``pos_sigma_mm``, ``polarization_scale``, ...): a :class:`Sweep`."""
        from magdomino.studies.sweeps import sweep

        sc = self.with_what_ifs(what_ifs)
        return Sweep(sweep(sc, param, values, trials, seed=seed, jobs=jobs, progress=progress, **executor_settings(jobs, settings)))

    def picture(self, *, settled: bool = True) -> Picture:
        """Side and top views of the structure with every tile (#N) and half labelled: as it
        settled (or as placed); a what-if's end is :meth:`render` or :meth:`view3d`'s."""
        sc = self.scenario
        poses = None
        if settled:
            from magdomino.studies.simulation import settle_structure

            _, poses = settle_structure(sc)
        return Picture(construction_png(sc, poses))

    def view3d(self, what_if: str | None = None, *, labels: bool = True):
        """An interactive 3D view (rotate, zoom): the settled structure, or a what-if's
        outcome at rest (where the tiles ended, faint where the ones that moved were, and a
        slider through the motion). A :class:`View3D`: it shows itself in a notebook, and
        in a saved notebook read outside Jupyter (HTML with plotly.js; a PNG too where a
        static renderer is installed). Needs ``pip install 'magdomino[view]'``."""
        from magdomino.faces.view3d import construction_figure3d, outcome_figure3d, what_if_motion
        from magdomino.studies.engines import get_engine

        sc = self.with_what_ifs([what_if] if what_if else [])
        settled = get_engine("dynamics").starting_structure(sc, before="a 3D view")
        pips = [pl.pips for pl in sc.structure]
        if what_if is None:
            return View3D(construction_figure3d(*settled, pips, sc.preset, title=self.name, labels=labels))
        after, motion, _ = what_if_motion(sc, 0, settled=settled)
        return View3D(outcome_figure3d((pips, *settled), after, sc.preset, title=f"{self.name}: {sc.describe(sc.what_if[0])}",
                                       labels=labels, motion=motion))

    def render(self, what_if: str | None = None, size=(800, 600)) -> Picture:
        """A photo-like picture from PyBullet's renderer (the structure settled, or a what-if's end)."""
        from magdomino.faces.render import render_image

        sc = self.with_what_ifs([what_if] if what_if else [])
        image, _ = render_image(sc, width=size[0], height=size[1], what_if=0 if what_if else None)
        return Picture(png_bytes(image))

    def __repr__(self) -> str:
        preset = self._scenario.preset.name if self._scenario else getattr(self._preset, "name", self._preset)
        lines = [f"Construction {self.name!r}: {counted(len(self.tiles), 'tile')}, preset {preset}, "
                 f"magnets {'on' if self.magnets else 'off'}"]
        lines += [f"  #{i}  {t}" for i, t in enumerate(self.tiles)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = [[f"#{i}", t] for i, t in enumerate(self.tiles)]
        picture = self.picture(settled=False) if self._scenario else None
        return (picture.html() if picture else "") + html_table(["tile", "placement"], rows, html.escape(repr(self).splitlines()[0]))


def load(path) -> Construction:
    """A scenario file as a :class:`Construction` (its what-ifs in ``.what_ifs``)."""
    return Construction.load(path)


# -- results ------------------------------------------------------------------------------


class Simulation(Result):
    """A simulation: the structure's verdict and each what-if's (``verdicts``; ``result`` the library's)."""

    _header = ["", "placement", "verdict", "reason", "max shift (mm)", "max tilt (deg)", "margin (deg)", "engine"]

    def __init__(self, result, construction: Construction):
        self.result, self.construction = result, construction
        self._title = f"{construction.name}: {counted(len(result.scenario.structure), 'tile')}, engine {result.engine}"

    @property
    def stands(self) -> bool:
        """The structure stood (nothing fell, nothing failed)."""
        return self.result.structure.stands

    @property
    def verdicts(self) -> list:
        """The structure's :class:`~magdomino.physics.verdict.Verdict`, then each what-if's (None: not tried)."""
        return [self.result.structure, *self.result.what_if]

    def _rows(self):
        sc = self.result.scenario
        labels = [("structure", counted(len(sc.structure), "tile"))] + [(f"what-if {i}", sc.describe(w)) for i, w in enumerate(sc.what_if)]
        rows = []
        for (label, where), v in zip(labels, self.verdicts):
            if v is None:
                rows.append([label, where, "not tried", "the structure did not stand", None, None, None, self.result.engine])
            else:
                word = ("error" if v.error else "COLLAPSED" if v.collapsed else "stood, SHIFTED" if v.shifted
                        else "unsure" if v.unsure else "stood")  # unsure: the statics cannot tell (the one risk scale)
                rows.append([label, where, word, v.error or v.reason, _round(v.max_shift_mm, 2), _round(v.max_tilt_deg, 1),
                             _round(v.margin_deg, 1), v.engine])
        return rows

    def to_dict(self) -> dict:
        return self.result.to_dict()

    def figure(self) -> Picture:
        """The command line's ``simulate --plot``: the structure, each what-if's shift and tilt over time."""
        return simulation_picture(self.result, self.construction.name)


class Odds(Result):
    """Odds of collapse per what-if (``results``: the library's :class:`~magdomino.studies.odds.WhatIfOdds`)."""

    _header = ["", "placement", "trials", "collapses", "p(collapse)", "95 % interval", "shifted", "errors"]

    def __init__(self, result, scenario):
        self.result, self.scenario = result, scenario
        self._title = f"{result.name}: odds of collapse, seed {result.seed}, engine {result.engine}"

    @property
    def results(self) -> list:
        return self.result.results

    def _rows(self):
        return [["structure" if r.what_if is None else f"what-if {r.what_if}", r.placement, r.trials, r.collapses, _round(r.p_collapse, 3),
                 f"[{r.ci95[0]:.3f}, {r.ci95[1]:.3f}]", r.shifts, r.errors] for r in self.results]

    def to_dict(self) -> dict:
        return self.result.to_dict()

    def figure(self) -> Picture:
        """The command line's ``odds --plot``: each p(collapse) with its 95 % interval."""
        from magdomino.faces.plots import odds_figure

        return figure_png(odds_figure, self.to_dict())


class Ranking(Result):
    """Every legal placement of a tile, safest first (``ranked``: the library's RankedPlacement)."""

    _header = ["rank", "placement", "p(collapse)", "95 % interval", "shift share", "median shift (mm)", "trials", "engine"]

    def __init__(self, ranked, tile: str, document: dict | None = None):
        self.ranked, self.tile, self.document = ranked, tile, document
        self._title = f"where to put {tile}: {len(ranked)} legal placements, safest first"

    @property
    def best(self) -> str:
        """The safest placement, in the placement language (paste it into ``simulate`` or a file)."""
        return self.ranked[0].candidate.describe()

    def _rows(self):
        rows = []
        for k, r in enumerate(self.ranked, 1):
            ci = r.ci95
            rows.append([k, r.candidate.describe(), _round(r.p_collapse, 3), None if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]",
                         _round(getattr(r, "shift_share", None), 3), _round(getattr(r, "median_shift_mm", None), 2), r.trials, r.engine])
        return rows

    def to_dict(self) -> dict | None:
        """The JSON document of ``magdomino whatif`` (None for a ranking made without one)."""
        return self.document

    def figure(self) -> Picture | None:
        """The command line's ``whatif --plot``: every placement, safest first, with its interval."""
        from magdomino.faces.plots import whatif_figure

        return None if self.document is None else figure_png(whatif_figure, self.document)


class Sweep(Result):
    """Odds against one parameter (``result``: the library's SweepResult)."""

    _header = ["value", "placement", "trials", "p(collapse)", "95 % interval"]

    def __init__(self, result):
        self.result = result
        self._title = f"odds of collapse against {result.param}"

    def _rows(self):
        return [[v, r.placement, r.trials, _round(r.p_collapse, 3), f"[{r.ci95[0]:.3f}, {r.ci95[1]:.3f}]"]
                for v, run in zip(self.result.values, self.result.runs) for r in run.results]

    def to_dict(self) -> dict:
        return self.result.to_dict()

    def figure(self) -> Picture:
        """The command line's ``sweep --plot``: p(collapse) against the parameter, the intervals as bands."""
        from magdomino.faces.plots import sweep_figure

        return figure_png(sweep_figure, self.to_dict())


# -- games ----------------------------------------------------------------------------------


class GameRecord(Result):
    """A played game's record (``record``: the JSON document of ``magdomino play``)."""

    _header = ["event", "what"]

    def __init__(self, record: dict):
        self.record = record
        self._title = f"{record['rule']}, {record['players']} players, seed {record['seed']}: {winners(record.get('winners'))}"

    @property
    def winners(self):
        return self.record.get("winners")

    def _rows(self):
        return [[k, line] for k, line in enumerate(repr(self).splitlines())]

    def __repr__(self) -> str:
        from magdomino.games.family import family_of

        return family_of(self.record.get("rule")).format_record(self.record)

    def to_dict(self) -> dict:
        return self.record


def play(rule: str, players: int | None = None, *, seed: int = 0, physics: str | None = None, seats=None, player=None,
         preset=DEFAULT_PRESET, magnets: bool = True, **options) -> GameRecord:
    """Play a whole game; returns its record.

    ``seats``: one player kind (or player object, :mod:`magdomino.games.session`) per seat,
    or one kind for every seat (``player=`` is the same argument); default ``"careful"`` in a
    tower game judged by physics, ``"random"`` otherwise, as ``magdomino play``. ``players``:
    the number of seats (default ``len(seats)``, else 2). ``physics``: ``"none"``, or an
    engine name for the tower rules (``"statics"``, ``"dynamics"``; ``"pybullet"`` is its deprecated spelling); default as
    ``magdomino play``: PyBullet for Défi and En quinconce, none otherwise; a judged game gets
    the runaway guard ``max_placements`` = :data:`~magdomino.games.family.PLACEMENT_GUARD`
    (300, as in every face) unless given. A seat of yours (``"me"``) needs
    :func:`magdomino.game`, which plays move by move."""
    from magdomino.games.family import family_of
    from magdomino.games.session import CALLER_SEATS

    if seats is not None and player is not None:
        raise InputError(PYTHON, "seats", "seats or player (the same thing), not both")
    seats = player if seats is None else seats
    if isinstance(seats, str) and "," in seats:
        seats = [s.strip() for s in seats.split(",")]
    if not isinstance(seats, (str, type(None))):
        seats = list(seats)
        if players is not None and players != len(seats):
            raise InputError(PYTHON, "seats", f"one per player ({players}), got {len(seats)}")
        players = len(seats)
    if any(isinstance(s, str) and s in CALLER_SEATS for s in ([seats] if isinstance(seats, str) else seats or [])):
        raise InputError(PYTHON, "seats", "player kinds or objects: a seat of yours ('me') plays through md.game(...)")
    players = 2 if players is None else players
    kind = family_of(rule)
    adjudicator = game_physics(rule, physics, preset, magnets, options)
    try:
        return GameRecord(kind.play(rule, players, seed, seats, options, adjudicator))
    except InputError as exc:
        if exc.key == "player_kinds":
            raise InputError(exc.source, "seats", exc.expected) from None
        raise
    finally:
        if adjudicator is not None and hasattr(adjudicator, "close"):
            adjudicator.close()


def tournament(rule: str, seats, deals: int = 10, *, seed: int = 0, physics: str = "none", jobs: int | None = None,
               progress: bool = True, **options) -> dict:
    """Many deals between player kinds (``seats``: "careful,random" or a list), seats rotated: the JSON document."""
    from magdomino.games.tournament import run_tournament

    seats = seats.split(",") if isinstance(seats, str) else list(seats)
    return run_tournament(rule, seats, deals, seed=seed, physics=physics, jobs=jobs, progress=progress, **executor_settings(jobs, options))


def game_physics(rule: str, physics, preset, magnets: bool, options: dict):
    """The adjudicator of a game of ``rule`` with the Python face's defaults: ``physics`` names
    its engine (None: the rule's default, as ``magdomino play``; ``"none"``: no adjudicator, None
    returned); a judged game gets the runaway guard ``max_placements`` in ``options`` unless given."""
    from magdomino.games.family import family_of, judged_rules

    kind = family_of(rule)
    if physics is None:
        physics = kind.default_physics(rule)
    if physics in ("none",):
        return None
    if not kind.judged:
        raise InputError(PYTHON, "physics", f"only with {judged_rules()} ({rule} has no physics)")
    options.setdefault("max_placements", kind.guard)
    return make_adjudicator(physics, preset, magnets)


def make_adjudicator(physics, preset_name, magnets):
    """The adjudicator of the engine named ``physics`` (one that judges games: error naming
    ``physics`` otherwise), on a preset given by name or object."""
    from magdomino.studies.engines import game_engine

    engine = game_engine(physics, source=PYTHON, key="physics")
    chosen = preset_name if not isinstance(preset_name, str) else preset(preset_name)
    return engine.adjudicator(chosen, magnets=magnets)


# -- helpers --------------------------------------------------------------------------------


def executor_settings(jobs, settings: dict) -> dict:
    """A study's ``settings`` with the serial executor unless worker processes are asked for
    (``jobs`` > 1, or an executor): a large run started from a script without a ``__main__``
    guard would stop in its workers."""
    if "executor" not in settings and "scheduler" not in settings and jobs in (None, 1):
        settings = {**settings, "executor": "serial"}
    return settings


def _texts(placements, key: str = "what_ifs") -> list:
    """Placement texts from one text, several, or a list of them (one level)."""
    if isinstance(placements, str):
        return [placements]
    try:
        items = list(placements)
    except TypeError:
        raise InputError(PYTHON, key, f"expected placements as text, like '6-6 at (0, 0) mm', got {placements!r}") from None
    flat = [t for item in items for t in (item if isinstance(item, (list, tuple)) else [item])]
    bad = [t for t in flat if not isinstance(t, str)]
    if bad:
        raise InputError(PYTHON, key, f"expected placements as text, like '3-1 on #2 half 1', got {bad[0]!r}")
    return flat


def _tile(tile) -> tuple[int, int]:
    if isinstance(tile, str) and "-" in tile:
        tile = tile.replace("-", ",")
    return parse_tile(tile, PYTHON, "tile")


def _toml(value) -> str:
    return json.dumps(value)  # a JSON string, number or list of numbers is valid TOML


def _round(value, digits: int):
    return None if value is None else round(float(value), digits) + 0.0
