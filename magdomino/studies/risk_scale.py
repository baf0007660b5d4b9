"""The project's one risk scale: what is known about a spot (the statics' answer and tilt
margin, the odds when they have run) as one of four classes, with one wording.

==========  ===========================================================================
class       meaning
==========  ===========================================================================
``safe``    the statics is sure it stands, with a tilt margin of at least
            :data:`SAFE_MARGIN_DEG`; or, with odds, p(collapse) under :data:`SAFE_P`
``tight``   the statics is sure it stands, with a smaller margin (or one not measured):
            a real hand's unsteadiness may bring it down; or, with odds, p(collapse)
            under :data:`FALLS_P`
``unsure``  the statics cannot tell (:func:`magdomino.physics.statics_screen.sure_verdict`:
            a margin near zero, a structure that carries the tile's weight but maybe not
            its landing, a pose it cannot model): only a simulation can say
``falls``   the statics is sure it falls; or, with odds, p(collapse) of at least
            :data:`FALLS_P`
==========  ===========================================================================

Every face that shows a risk uses :func:`risk_class` and :func:`risk_words`: the lab's spot
list and ghosts, its Play hints, the terminal's ``--hints`` and ``simulate --engine
statics``'s table. A spot classed ``safe`` by the statics never collapsed in PyBullet on the
statics' toy validation sets (``assets/validation/statics_toy_*.json``), and ``unsure`` is exactly the
statics' own unsure share there (``tests/studies/test_risk_scale.py`` checks both).
"""

from __future__ import annotations

import math

from magdomino.physics.statics_adjudicator import SAFE_MARGIN_DEG as SEAT_SAFE_MARGIN_DEG
from magdomino.physics.statics_adjudicator import STANDING_MAX, UNKNOWN_RISK

RISK_CLASSES = ("safe", "tight", "unsure", "falls")
"""The classes, safest first."""

SAFE_MARGIN_DEG = 15.0
"""A sure-standing spot's tilt margin (degrees) from which it is ``safe``: three times the
5° that one σ of the default hand's aim changes a margin by
(:data:`magdomino.studies.whatif.SCREEN_BAND_DEG`)."""

SAFE_P = 0.1
"""With odds: p(collapse) under this is ``safe``."""

FALLS_P = 0.5
"""With odds: p(collapse) of at least this ``falls`` (a coin that lands on collapse more often than not)."""

RISK_COLOURS = {"safe": "#00c2d1", "tight": "#7b5a3c", "unsure": "#8c8c8c", "falls": "#141414"}
"""A class's colour in pictures and pages: cyan, brown, grey and black, none of the bundled
presets' tile colours (red, orange, yellow, green, blue, purple, pink), so that a marked
spot is never taken for a tile."""

RISK_SYMBOLS = {"safe": "✓", "tight": "!", "unsure": "?", "falls": "✗"}
"""A class as one character, for terminals and legends."""


def risk_class(answer: str | None = None, margin_deg: float | None = None, *, p_collapse: float | None = None) -> str:
    """The class of a spot.

    Parameters
    ----------
    answer : {"stands", "falls", "unsure"} or None
        The statics' sure answer (:func:`magdomino.physics.statics_screen.sure_verdict`);
        None: the statics cannot model the pose (``unsure``).
    margin_deg : float or None
        The statics' tilt margin, degrees (None: not measured).
    p_collapse : float or None
        The odds' p(collapse) when they have run: they measure what the classes are about
        (a real hand's placement) and decide alone.

    Returns
    -------
    str
        One of :data:`RISK_CLASSES`.
    """
    if p_collapse is not None and not math.isnan(p_collapse):
        return "safe" if p_collapse < SAFE_P else "tight" if p_collapse < FALLS_P else "falls"
    if answer not in ("stands", "falls"):
        return "unsure"
    if answer == "falls":
        return "falls"
    return "safe" if margin_deg is not None and margin_deg >= SAFE_MARGIN_DEG else "tight"


def seat_risk_class(risk: float | None) -> str:
    """The class of a seat's risk (:meth:`magdomino.games.session.GameSession.risks`, from
    :func:`magdomino.physics.statics_adjudicator.statics_risk`): 1 falls, the unknown risk
    unsure, a standing one safe when its margin term says at least :data:`SAFE_MARGIN_DEG`."""
    if risk is None or math.isnan(risk):
        return "unsure"
    if risk >= 1.0:
        return "falls"
    if risk >= UNKNOWN_RISK:
        return "unsure"
    # statics_risk = STANDING_MAX * (1 - margin / SEAT_SAFE_MARGIN_DEG) when the margin decides it
    margin = SEAT_SAFE_MARGIN_DEG * (1.0 - risk / STANDING_MAX) if risk < STANDING_MAX else None
    return risk_class("stands", margin)


def risk_words(cls: str, *, margin_deg: float | None = None, p_collapse: float | None = None, ci95=None,
               trials: int | None = None) -> str:
    """A class and what it rests on, in the words every face prints: ``"safe, margin 19.8°"``,
    ``"unsure (only a simulation can tell)"``, ``"tight, p(collapse) 0.20 [0.06, 0.51] of 10"``."""
    if p_collapse is not None and not math.isnan(p_collapse):
        ci = "" if ci95 is None else f" [{ci95[0]:.2f}, {ci95[1]:.2f}]"
        of = "" if trials is None else f" of {trials}"
        return f"{cls}, p(collapse) {p_collapse:.2f}{ci}{of}"
    if cls == "unsure":
        return "unsure (only a simulation can tell)"
    if cls == "falls" or margin_deg is None:
        return cls
    return f"{cls}, margin {margin_deg:.1f}°"
