"""magdomino: simulate Magnetic Domino towers.

``import magdomino as md`` is the Python face (:mod:`magdomino.faces.api`), in millimetres
and degrees::

    tower = md.Construction(["6-6 at (0, 0) mm", "6-3 on #0 half 1"])
    tower.simulate("3-1 on #1 half 1")

:class:`Construction`, :func:`load`, :func:`preset`, :func:`presets`, :func:`engines`,
:func:`play`, :func:`game` (a game driven move by move), :func:`resume`, :func:`tournament`, :func:`study`, :func:`calibrate` and
:class:`InputError` are imported when first used, so
``import magdomino`` stays light. :func:`env` is a game as a PettingZoo environment
(:func:`magdomino.games.pettingzoo.env`, the ``pettingzoo`` extra).

Layers, bottom to top (a module never imports from a layer above it): ``maths``, ``model``,
``physics``, ``studies``, ``games``, ``faces`` (``docs/contributing.md``, "The layers").
"""

from magdomino.version import __version__  # noqa: F401

_FACE = ("Construction", "load", "preset", "presets", "engines", "play", "tournament", "study",
         "Simulation", "Odds", "Ranking", "Sweep", "Picture", "GameRecord", "Study", "calibrate", "Calibration",
         "game", "resume")

__all__ = ["InputError", "__version__", "env", *_FACE]


def __getattr__(name):
    if name == "Calibration":
        from magdomino.faces.calibration import Calibration

        return Calibration
    if name in ("game", "resume"):
        from magdomino.faces import api_game

        return getattr(api_game, name)
    if name in ("study", "Study"):
        from magdomino.faces import api_design_study

        return getattr(api_design_study, name)
    if name in _FACE:
        from magdomino.faces import api

        return getattr(api, name)
    if name == "env":
        from magdomino.games.pettingzoo import env

        return env
    if name == "InputError":
        from magdomino.errors import InputError

        return InputError
    raise AttributeError(f"module 'magdomino' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
