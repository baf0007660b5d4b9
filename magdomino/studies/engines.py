"""Engines: who decides whether a construction falls.

An engine answers one question: given a settled structure and one placement (or none), did
the construction fall? Every engine returns the one :class:`~magdomino.physics.verdict.Verdict`
(the same fields and the same JSON; what only one engine knows is None elsewhere) and says
its ``name``. The studies (odds, sweeps, what-if rankings and screening), the games'
adjudicators and the command line hold an :class:`Engine` and call its methods; none of
them tests an engine's name. A new engine is one module with a class that follows the
:class:`Engine` protocol (subclass it to inherit its defaults) and one :func:`register_engine`
call (or an entry in :data:`BUILTIN_ENGINES`).

Engines here:

- ``dynamics`` (:class:`DynamicsEngine`): the PyBullet world, the reference. The structure
  is settled; a placement is a motion (a drop or a slide) followed by a settle.
- ``statics`` (:class:`magdomino.studies.statics_engine.StaticsEngine`): rigid-block
  equilibrium at rest, a linear program: exact for placements at rest, blind to impacts
  and pushes, milliseconds.
- ``hybrid`` (:class:`magdomino.studies.hybrid_engine.HybridEngine`): each odds trial judged
  by the statics where its batched tests are sure of the answer, by the dynamics' own trial
  elsewhere; a nominal run (``simulate``) and the structure are the dynamics'. It judges no
  game (:data:`TRIALS_ONLY`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from magdomino.errors import ARGUMENTS, InputError
from magdomino.physics.verdict import Verdict
from magdomino.studies.scenario import Scenario
from magdomino.studies.simulation import SimulationResult, settle_structure, simulate


@runtime_checkable
class Engine(Protocol):
    """The interface every engine implements (as the rules, adjudicators and players do, a
    protocol: subclass it for the defaults below, or write the members yourself).

    Attributes
    ----------
    name : str
        Its name in files, flags and JSON (``"dynamics"``, ``"statics"``).
    header : str
        What ``simulate`` says of how it judged.
    moves : bool
        Whether anything moves (pictures, animations and traces need it).
    trials_per_chunk : int
        Odds trials shipped to a worker at once (an LP engine batches many).
    serial_below : int
        Runs of fewer trials stay in the calling process unless workers are asked for.
    """

    name = "?"
    header = ""
    moves = False
    trials_per_chunk = 16
    serial_below = 64

    def simulate(self, scenario: Scenario, *, gui: bool = False, trace: bool = False) -> SimulationResult:
        """The structure's verdict, then each what-if tried alone on it."""
        ...

    def starting_structure(self, scenario: Scenario, before: str = "the what-ifs"):
        """The structure the what-ifs start from, (positions (n, 3) m, quaternions (n, 4));
        InputError on ``structure`` when it does not stand by this engine."""
        ...

    def run_trials(self, job, what_if: int | None, trials: list[int]) -> list[dict]:
        """The records of these odds trials (:func:`magdomino.studies.trials.run_trial`'s shape)."""
        ...

    def adjudicator(self, preset, *, magnets: bool = True):
        """The games' adjudicator judged by this engine (:mod:`magdomino.physics.adjudicator`)."""
        ...

    def __repr__(self) -> str:
        return f"<engine {self.name}>"


def check_structure_settled(scenario: Scenario, verdict: Verdict, before: str = "the what-ifs") -> None:
    """Refuse (InputError on ``structure``) a nominal structure that did not settle.

    What-ifs on a structure that collapsed, blew up or was still moving at the preset's
    ``collapse.time_limit_s`` would measure that structure's own fall, not the placement's.
    """
    if verdict.error:
        why = f"its simulation failed ({verdict.error})"
    elif verdict.collapsed:
        culprit = "" if verdict.culprit is None else f", tile {verdict.culprit}"
        why = f"it collapsed without noise ({verdict.reason}{culprit})"
    elif not verdict.settled:
        limit = scenario.preset.collapse.time_limit
        why = "it did not within time_limit_s" + ("" if limit is None else f" ({limit:g} s)")
    else:
        return
    raise InputError(scenario.source, "structure", f"expected a structure that settles before {before}; {why}")


class DynamicsEngine(Engine):
    """PyBullet: the structure settles, a placement is dropped or slid, then settles."""

    name = "dynamics"
    header = "engine dynamics"
    moves = True
    trials_per_chunk = 16
    serial_below = 64  # ~40 ms a trial: two workers gain once the trials outweigh ~1.2 s of worker start-up

    def simulate(self, scenario: Scenario, *, gui: bool = False, trace: bool = False) -> SimulationResult:
        return simulate(scenario, gui=gui, trace=trace)

    def starting_structure(self, scenario: Scenario, before: str = "the what-ifs"):
        verdict, settled = settle_structure(scenario)
        check_structure_settled(scenario, verdict, before)
        return settled

    def run_trials(self, job, what_if, trials):
        from magdomino.studies.trials import run_trial  # noqa: PLC0415 - on use: the trials bring the statics (~0.1 s), not needed at a command's start

        return [run_trial(job, what_if, i) for i in trials]

    def adjudicator(self, preset, *, magnets: bool = True):
        from magdomino.physics.pybullet_adjudicator import PybulletAdjudicator  # noqa: PLC0415 - on use, as the trials

        return PybulletAdjudicator(preset, magnets=magnets)


# -- the registry -------------------------------------------------------------------------

BUILTIN_ENGINES = {
    "dynamics": "magdomino.studies.engines:DynamicsEngine",
    "statics": "magdomino.studies.statics_engine:StaticsEngine",
    "hybrid": "magdomino.studies.hybrid_engine:HybridEngine",
}
"""Engines by name, as ``module:class`` (imported when first asked for)."""

ALIASES = {"pybullet": "dynamics"}
"""Deprecated spellings of an engine's name, accepted for one version: ``pybullet`` (the
games' ``--physics pybullet``) is the ``dynamics`` engine, PyBullet's world."""


def engine_name(name: str) -> str:
    """The one name of the engine ``name`` names (a deprecated spelling mapped to it)."""
    return ALIASES.get(name, name)


TRIALS_ONLY = ("hybrid",)
"""Engines that judge odds trials but no game. The hybrid's statics screen decides a noisy
trial only where it is sure and hands the others to PyBullet; a game's placement is judged
once, at its grid pose, by the dynamics or the statics, so ``physics="hybrid"`` would only
be the dynamics under another name: every game face refuses it (:func:`game_engine`)."""


def game_engine_names() -> list[str]:
    """The engines a game can be judged by (``physics``), aliases apart: every engine but
    :data:`TRIALS_ONLY` (an engine registered later comes by itself)."""
    return [n for n in engine_names() if n not in TRIALS_ONLY]


def game_engine(name: str, *, source: str = ARGUMENTS, key: str = "physics") -> Engine:
    """The engine a game's ``physics`` names (not ``"none"``); InputError naming the values
    ``physics`` takes otherwise."""
    if not isinstance(name, str) or engine_name(name) not in game_engine_names():
        why = "; hybrid judges odds trials, not games" if name in TRIALS_ONLY else ""
        raise InputError(source, key, f"one of none, {', '.join(game_engine_names())} "
                         f"({', '.join(f'{a}: {b}' for a, b in ALIASES.items())}'s old name){why}; got {name!r}")
    return get_engine(name, source=source, key=key)

STUDY_ENGINE = "hybrid"
"""Who judges odds trials (``odds``, ``sweep``, ``whatif``) unless told: the hybrid gives the
dynamics' verdict on 99.5 % or more of trials (``validation/hybrid_validation.py``) at a
fraction of its cost. ``simulate`` (one nominal run, watched) is the dynamics'."""

REGISTERED: dict[str, Callable[[], Engine]] = {}
"""Engines registered by :func:`register_engine` with a callable that makes one."""


def register_engine(name: str, factory: Callable[[], Engine] | str) -> None:
    """Make an engine available by ``name``: a callable returning it, or ``"module:Class"``."""
    BUILTIN_ENGINES.pop(name, None)
    REGISTERED.pop(name, None)
    if isinstance(factory, str):
        BUILTIN_ENGINES[name] = factory
    else:
        REGISTERED[name] = factory


def engine_names() -> list[str]:
    """The names :func:`get_engine` takes (aliases apart)."""
    return list(dict.fromkeys([*BUILTIN_ENGINES, *REGISTERED]))


def get_engine(engine: Engine | str | None = None, *, source: str = ARGUMENTS, key: str = "engine") -> Engine:
    """The engine ``engine`` names, made anew (engines keep no state between calls; an
    :class:`Engine` is returned as it is; None: dynamics)."""
    if isinstance(engine, Engine):
        return engine
    if engine is not None and not isinstance(engine, str):
        raise InputError(source, key, f"expected one of {', '.join(engine_names())} or an Engine, got {engine!r}")
    name = "dynamics" if engine is None else ALIASES.get(engine, engine)
    if name in REGISTERED:
        made = REGISTERED[name]()
    elif name in BUILTIN_ENGINES:
        module, cls = BUILTIN_ENGINES[name].split(":")
        made = getattr(importlib.import_module(module), cls)()
    else:
        raise InputError(source, key, f"expected one of {', '.join(engine_names())}, got {engine!r}")
    return made
