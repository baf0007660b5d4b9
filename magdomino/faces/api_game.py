"""The Python face of a game driven move by move: ``md.game`` and ``md.resume``.

::

    import magdomino as md

    g = md.game("defi", seats=["me", "careful", "careful"], physics="statics", seed=1)
    while not g.over:
        print(g.hand, g.legal()[:5])
        print(g.play(0))        # my move (by index or as printed), then the others' replies
    print(g.winners, g.scores)

The object is a :class:`~magdomino.games.session.GameSession` (every query and move is
documented there) with what the Python face adds: :attr:`Game.construction`, the tower
rules' current construction as an ``md.Construction`` (simulate it, rank a tile on it,
draw it), the physics built by name from a preset, and a notebook view. Every seat named
``"me"`` is the caller's (two people can share a screen); a game is saved with
:meth:`~magdomino.games.session.GameSession.save` and picked up again with :func:`resume`.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from magdomino.errors import InputError
from magdomino.faces.api import Construction, game_physics, make_adjudicator
from magdomino.games.family import RULES, family_of
from magdomino.games.session import GameSession
from magdomino.model.presets import DEFAULT_PRESET
from magdomino.wording import tile_text, winners


class Game(GameSession):
    """A game driven move by move (:class:`~magdomino.games.session.GameSession`), with the
    tower rules' construction as an ``md.Construction``. Made by :func:`game` and :func:`resume`."""

    preset = DEFAULT_PRESET
    magnets = True
    _built = None

    @property
    def construction(self):
        """The tower rules' current construction as an ``md.Construction`` in the placement
        language (the grid's poses, with the game's preset and magnets); None for the other
        games. Built again only when the construction has changed."""
        if not self.family.builds:
            return None
        texts = self.placements()
        if self._built is None or self._built[0] != texts:
            self._built = (texts, Construction(texts, preset=self.preset, magnets=self.magnets))
        return self._built[1]

    def _repr_html_(self) -> str:
        who = "over, " + winners(self.winners) if self.over else f"seat {self.turn} to play"
        rows = "".join(f"<li>{html.escape(t)}</li>" for t in self.legal()[:20])
        log = html.escape("\n".join(self.lines()[-12:]))
        return (f"<div><b>{html.escape(self.rule)}</b>, seats {html.escape(', '.join(self.seats))}, seed {self.seed}: "
                f"{who}<pre>{log}</pre><div>hand: {html.escape(' '.join(tile_text(t) for t in self.hand))}</div>"
                f"<ol start=0>{rows}</ol></div>")


def game(rule: str, seats=None, *, players: int | None = None, seed: int = 0, physics: str | None = None,
         preset=DEFAULT_PRESET, magnets: bool = True, **options) -> Game:
    """A game of ``rule`` driven move by move, run up to the first turn of a seat of yours.

    Parameters
    ----------
    rule : "traditional" | "defi" | "quinconce" | "vingt" | "matador" | "echanges"
    seats : list or str, optional
        One per seat: ``"me"`` (yours), a player kind of the rule (``"careful"``,
        ``"greedy"``, ...), or a player object (``choose(state)``, the player protocol of
        :mod:`magdomino.games.session`); default ``["me", <the rule's default kind>]``.
    players : int, optional
        The number of seats (a seat list of another length is refused).
    physics : str, optional
        ``"none"``, ``"statics"``, ``"dynamics"`` (the tower rules; ``"pybullet"``: its deprecated spelling); default
        as ``magdomino play``: PyBullet for Défi and En quinconce, none otherwise. Judged
        games get the runaway guard ``max_placements`` =
        :data:`~magdomino.games.family.PLACEMENT_GUARD` (300, as in every face) unless given.
    preset, magnets
        The physics' preset and magnets.
    **options
        The game's options (``variant``, ``kids``, ``deals``, ``max_placements``, ``target``, ``set``...).
    """
    adjudicator = game_physics(rule, physics, preset, magnets, options)
    try:
        made = Game(rule, seats, players=players, seed=seed, physics=adjudicator, own_physics=True, **options)
    except BaseException:
        if adjudicator is not None and hasattr(adjudicator, "close"):
            adjudicator.close()
        raise
    return _dressed(made, adjudicator, preset, magnets)


def _dressed(made: Game, adjudicator, preset, magnets: bool) -> Game:
    if adjudicator is not None:
        made.preset = getattr(adjudicator, "preset", None) or preset
        made.magnets = getattr(adjudicator, "magnets", magnets)
    return made


def resume(record, *, seats=None, physics: str | None = None, preset=None, magnets: bool | None = None) -> Game:
    """A saved game (a record from ``g.save(path)`` or ``magdomino play`` with a human seat:
    its path or the dict) played again from its seed and continued to your next turn.

    ``seats`` default to the record's; ``physics``, ``preset`` and ``magnets`` to the record's
    (the same physics gives the same verdicts; the other seats must choose as recorded)."""
    source = "record"
    if isinstance(record, (str, Path)):
        source = str(record)
        try:
            record = json.loads(Path(record).read_text())
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(source, "", f"a saved game's JSON record ({type(exc).__name__})") from None
    if not isinstance(record, dict):
        raise InputError(source, "", f"a saved game's JSON record, got {type(record).__name__}")
    physics = physics if physics is not None else record.get("physics") or "none"
    preset = preset if preset is not None else record.get("preset") or DEFAULT_PRESET
    magnets = magnets if magnets is not None else record.get("magnets") is not False
    adjudicator = None
    rule = record.get("rule")
    if physics != "none" and rule in RULES and family_of(rule).judged:
        adjudicator = make_adjudicator(physics, preset, magnets)
    try:
        made = Game.resume(record, seats=seats, physics=adjudicator, own_physics=True, source=source)
    except BaseException:
        if adjudicator is not None and hasattr(adjudicator, "close"):
            adjudicator.close()
        raise
    return _dressed(made, adjudicator, preset, magnets)
