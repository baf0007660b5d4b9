"""The shared core of the Magnetic Domino rules: :class:`Game`, :class:`TurnState` and the registries.

Each tower rule is an object of :mod:`~magdomino.games.tower.rules` (traditional, Défi,
En quinconce) holding its legality and its consequences as a :class:`Rule`; this core
(with :class:`~magdomino.games.tower.state.State`) deals, draws, passes, scores, asks the
adjudicator and keeps the record. Adding a rule = one :class:`Rule` + one
:func:`register_rule` line in :mod:`magdomino.games`. A game with a state of its own
(20 sur 20, the chain games) is registered with :func:`register_game`;
:func:`make_game` makes a match of any of them. :func:`family_of` finds a game's family
(:mod:`magdomino.games.family`).

In the spirit of OpenSpiel: ``Game(rule, players, seed, options)`` →
``game.new_initial_state()`` → a :class:`~magdomino.games.tower.state.State` that starts at
a chance node (the deal).
``current_player()`` is a seat (0, 1, …), :data:`CHANCE` or :data:`TERMINAL`;
``legal_actions()`` lists the actions in :attr:`Action.sort_key` order (a single
:data:`DRAW` or :data:`PASS` when nothing can be placed; the single forced double when a
construction starts); ``apply_action`` plays one. At a chance node the only action is
:data:`DEAL`, which shuffles with the state's own ``numpy.random.Generator`` (seeded from
the game's seed, carried by the state so clones and JSON copies continue identically), or
a scripted :class:`Deal`. Drawing takes the next tile of the shuffled, face-down stock, so
every chance event comes from that one seeded stream.

Choices made where the leaflets are silent (a family at the table would expect these; the
documentation's rules, ``docs/rules/index.md``, say the same):

- **Who starts** a deal or a new construction: the highest double in any hand; with no
  double in any hand, the highest tile by pip total (ties: higher top half). The starting
  tile is forced and lies flat at grid square (0, 0), half 0 towards −x.
- **Traditional** chain: a straight line along x on the grid; both ends of the first tile
  are open (so with a double start a matching tile has two placements, left and right).
- **Orientation** (the leaflet's tip): ``second_parallel`` (on by default): the
  second tile of a construction (a tower placement on a construction of one tile) lies
  parallel to the first; later tower placements may lie parallel or perpendicular.
  ``parallel_only`` (off by default) makes every tower placement parallel.
- **Extremities** (Défi variant, quinconce): **every** tile the new tile rests on, touches
  end to end (at its level, in line) or slides under must be an extremity
  (:meth:`~magdomino.games.tower.grid.Grid.contacts`); the placement attaches to one parent in
  the tree, the lowest-numbered tile it rests on / touches end to end / slides under with
  matching pips. Placements with the same tile and pose are one action.
- **Quinconce**: the tower mode places on top of an extremity (the orientation options
  apply as in Défi); the flat mode places end to end against a table-level extremity (in
  line) or slides under an extremity lying at level 1. A new construction after a collapse
  is a new start: every seat's mode resets exactly as at the deal (all "flat"; the
  restarting double is the restarter's flat placement, so 3–4 players: the next tile goes
  on top; 2 players: the restarter owes "tower", the other player "flat").
- **Collapse**: the first tile of a construction never collapses; an adjudicator error is
  recorded and never counted as a collapse; the traditional rule has no collapse.
- **Scores**: per deal, winners 0 and every other player their pips (kids: tiles) in hand;
  a blocked deal's winners are those with the fewest pips (kids: tiles), ties shared.
  ``scores()`` are the match totals; ``winners()`` are the deal's winners for a one-deal
  match, else the seats with the lowest total (ties shared); ``returns()`` gives each
  winner ``1/len(winners)`` and the others 0.
- **No placement cap in the rules.** ``max_placements`` is a runaway guard for simulations
  (physics games can collapse for ever): a deal that reaches it ends **abandoned** (reason
  :data:`ABANDONED`): it is not scored (no winners, every seat's score 0 for that deal, so
  nobody's pips count), the record says so, and a match goes on with its next deal. A
  match whose every deal was abandoned has no winners.
- The deal after a blocked, won or abandoned deal starts by the same rule (highest double).
- **Deal**: a hand of a single colour makes the whole deal be shuffled again from the same
  stream; with a one-colour palette that rule cannot hold and is skipped. A scripted
  :class:`Deal` is taken as given.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Protocol

from magdomino.checks import check_choice, check_count, check_seed
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.actions import Action
from magdomino.maths import geometry as geo
from magdomino.model.tiles import ALL_TILES, colour_of
from magdomino.physics.adjudicator import make_adjudicator

CHANCE = -1
TERMINAL = -4
VARIANTS = (None, "extremities")
ABANDONED = "abandoned"
"""The end reason of a deal stopped by the runaway guard (``max_placements``): not scored."""
STATE_FORMAT = "magdomino.state/1"

class IllegalActionError(ValueError):
    """An action that is not in ``legal_actions()`` was applied."""


class TurnState:
    """The OpenSpiel-like queries every game's State shares (a mixin: the State keeps
    ``game``, ``current`` (a seat, :data:`CHANCE` or :data:`TERMINAL`) and ``_legal``, the
    cached legal actions, and computes them in ``_compute_legal``)."""

    __slots__ = ()

    def current_player(self) -> int:
        return self.current

    def is_chance_node(self) -> bool:
        return self.current == CHANCE

    def is_terminal(self) -> bool:
        return self.current == TERMINAL

    def num_players(self) -> int:
        return self.game.players

    def legal_actions(self, player: int | None = None) -> tuple:
        """Legal actions in the game's stable order (a tuple; empty for another seat)."""
        if player is not None and player != self.current:
            return ()
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal


class Rule(Protocol):
    """What a rule provides to the core (one object per rule, stateless; the tower rules':
    :mod:`magdomino.games.tower.rules`).

    ``name``; ``state_class`` (the class of the positions its games start from:
    ``state_class(game)``, the tower rules' :class:`~magdomino.games.tower.state.State`;
    so this core never imports it); ``uses_grid`` (the construction lives on the rules' square grid);
    ``can_collapse`` (a physics collapse has a consequence); ``variants`` (the names the
    game's ``variant`` option may take); ``always_extremities`` (placements only on
    extremities); ``own_modes_at_two`` (with two players each keeps their own mode); ``mode(state, player)`` (the
    mode the player must place in); ``legal(state, hand, mode)`` (the placements, in the
    rules' action order); ``placed(state, player, action, number)`` (what a placement
    changes besides the hand: open ends, the grid, modes); ``restart(state)`` (when a new
    construction starts after a collapse); ``state`` is a position of ``state_class``.
    """

    name: str
    state_class: type
    uses_grid: bool
    can_collapse: bool
    variants: tuple
    always_extremities: bool
    own_modes_at_two: bool

    def mode(self, state, player: int) -> str: ...

    def legal(self, state, hand: list, mode: str) -> list: ...

    def placed(self, state, player: int, action: Action, number: int) -> None: ...

    def restart(self, state) -> None: ...


RULES: dict[str, Rule] = {}
"""The registered rules, by name (:func:`register_rule`)."""


def register_rule(rule: Rule) -> None:
    """Make ``Game(rule.name, ...)`` play ``rule``."""
    RULES[rule.name] = rule


class OwnGame(Protocol):
    """What a game with a state of its own provides (:class:`~magdomino.games.vingt.game.VingtGame`,
    the chain games' :class:`~magdomino.games.chain.core.ChainGame`): the settings of one match,
    made by ``game_class(players, seed, options)``."""

    rule: str
    players: int
    seed: int

    def new_initial_state(self): ...

    def to_json(self) -> dict: ...


GAMES: dict[str, Callable[..., OwnGame]] = {}
"""Games with a state of their own (not a :class:`Rule` of this core), by name: the class
that :func:`make_game` makes (:func:`register_game`)."""


def register_game(name: str, game_class: Callable[..., OwnGame]) -> None:
    """Make ``make_game(name, players, seed, options)`` return ``game_class(players, seed, options)``."""
    GAMES[name] = game_class


FAMILIES: dict = {}
"""The game families by name, the objects of :mod:`magdomino.games.family` (registered there):
what every face asks about a game, here so that the session and the games' records reach them
without importing the family module (which imports the records)."""


def register_family(family) -> None:
    """Make :func:`family_of` find ``family`` (a :class:`~magdomino.games.family.Family`) for its rules."""
    FAMILIES[family.name] = family


def family_of(rule: str):
    """The :class:`~magdomino.games.family.Family` of ``rule`` (InputError naming ``rule`` when no family has it)."""
    families = FAMILIES.values()
    check_choice(rule, "rule", tuple(r for f in families for r in f.rules))
    return next(f for f in families if rule in f.rules)


def judged_rules() -> str:
    """The rules physics can judge, as an error names them (``traditional, defi or quinconce``)."""
    rules = [rule for f in FAMILIES.values() if f.judged for rule in f.rules]
    return ", ".join(rules[:-1]) + " or " + rules[-1]


def make_game(rule: str, players: int, seed: int = 0, options: dict | None = None, **kwargs) -> Game | OwnGame:
    """A match of any registered game: a :class:`Game` for a rule of this core (:data:`RULES`),
    else an instance of the game's own class (:data:`GAMES`: vingt, matador, echanges).

    Raises
    ------
    InputError
        ``rule`` is neither (naming ``rule``), or a setting is wrong.
    """
    if rule in GAMES:
        return GAMES[rule](players, seed, options, **kwargs)
    return Game(rule, players, seed, options, **kwargs)


def _default_colours():
    # imported on use: the presets bring the magnet maths (numba, ~0.8 s), which importing the games does without
    from magdomino.model.presets import DEFAULT_COLOURS

    return list(DEFAULT_COLOURS)


class Game:
    """One match's settings.

    Parameters
    ----------
    rule : "traditional" | "defi" | "quinconce"
    players : 2, 3 or 4
    seed : int
        Seeds the deal stream (``numpy.random.default_rng(seed)``).
    options : dict, optional (or keyword arguments)
        ``parallel_only`` (False: every tower placement parallel to the tile below),
        ``second_parallel`` (True: the second tile of a construction parallel to the
        first, the leaflet's tip), ``variant`` (None or ``"extremities"``, Défi only;
        quinconce always plays on extremities), ``kids`` (False: count tiles instead of
        pips), ``deals`` (1), ``adjudicator`` (None / ``"none"`` / an object with
        ``start``/``place``), ``colours`` (a preset's colour list, default
        :data:`magdomino.model.presets.DEFAULT_COLOURS`), ``tile_size`` (m; default the
        adjudicator's ``tile_size`` or the standard 48 × 24 × 8 mm), ``max_placements``
        (None: no limit; an int: the runaway guard: a deal with that many placements,
        collapses included, ends **abandoned**, reason :data:`ABANDONED`, not scored;
        physics games need it, since with magnets too weak for the players' staircases a
        deal can collapse for ever).

    Attributes
    ----------
    rule : str
        The rule's name.
    rulebook : Rule
        The rule itself (:data:`RULES` ``[rule]``): its legality and consequences.
    """

    def __new__(cls, rule=None, *args, **kwargs):
        if cls is Game and rule in GAMES:  # the old way to make a game of its own
            warnings.warn(f"Game({rule!r}, ...) is deprecated: make_game({rule!r}, ...) makes a game of its own",
                          DeprecationWarning, stacklevel=2)
            return GAMES[rule](*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, rule: str, players: int, seed: int = 0, options: dict | None = None, **kwargs):
        opts = dict(options or {})
        opts.update(kwargs)
        self.rulebook = RULES[check_choice(rule, "rule", (*RULES, *GAMES))]
        self.rule = rule
        self.players = check_count(players, "players", minimum=2, maximum=4)
        self.seed = check_seed(seed)
        self.parallel_only = bool(opts.pop("parallel_only", False))
        self.second_parallel = bool(opts.pop("second_parallel", True))
        self.variant = opts.pop("variant", None)
        if self.variant is not None:
            check_choice(self.variant, "variant", VARIANTS[1:])
        if self.variant is not None and self.variant not in self.rulebook.variants:
            raise InputError(
                ARGUMENTS,
                "variant",
                "'extremities' is a variant of the defi rule (quinconce always plays on extremities)",
            )
        self.kids = bool(opts.pop("kids", False))
        self.deals = check_count(opts.pop("deals", 1), "deals", minimum=1)
        adj = opts.pop("adjudicator", opts.pop("physics", None))
        self.adjudicator = make_adjudicator(adj)
        colours = opts.pop("colours", None)
        self.colours = _default_colours() if colours is None else list(colours)
        if not self.colours or not all(isinstance(c, str) for c in self.colours):
            raise InputError("options", "colours", f"a non-empty list of colour names, got {colours!r}")
        size = opts.pop("tile_size", None)
        if size is None:
            size = getattr(self.adjudicator, "tile_size", None)
        if size is None:
            size = geo.STANDARD_TILE_SIZE
        self.tile_size = geo.check_tile_size(size)
        limit = opts.pop("max_placements", None)
        self.max_placements = None if limit is None else check_count(limit, "max_placements", minimum=1)
        if opts:
            raise InputError(
                "options",
                sorted(opts)[0],
                "a known option: parallel_only, second_parallel, variant, kids, deals, adjudicator, colours, "
                "tile_size, max_placements",
            )
        self.hand_size = 7 if self.players == 2 else 6
        self.extremities_only = self.rulebook.always_extremities or self.variant == "extremities"
        self.per_player_modes = self.rulebook.own_modes_at_two and self.players == 2
        self.trivial = bool(getattr(self.adjudicator, "trivial", False))
        self.colour = {t: colour_of(t, self.colours) for t in ALL_TILES}  # the deal's one-colour-hand rule
        # Actions are immutable values: the rules hand out one object per placement (keyed by
        # tile and pose), made once per game. Measured: a cache shared by every game of the
        # process ran random rules-only Défi games 20-30 % faster (0.88 vs 1.13 ms a game),
        # which physics games (milliseconds a placement) never see; it is this game's own.
        self._cache = {}

    def __getstate__(self):
        # The action cache (up to 200,000 entries) is never part of a game's copy or pickle:
        # OpenSpiel copies a Python state by pickling its __dict__ at every step of a random
        # simulation, and copies that carried the cache grew with every game played before.
        return {k: v for k, v in self.__dict__.items() if k != "_cache"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._cache = {}

    @property
    def rules(self) -> Rule:
        """Deprecated name of ``rulebook`` (the :class:`Rule` object; ``rule`` is its name)."""
        warnings.warn("Game.rules is deprecated: Game.rulebook", DeprecationWarning, stacklevel=2)
        return self.rulebook

    def parallel_now(self, construction_size: int) -> bool:
        """Whether a tower placement on a construction of ``construction_size`` tiles must
        lie parallel to the tile below (``parallel_only``, or the second tile with
        ``second_parallel``)."""
        return self.parallel_only or (self.second_parallel and construction_size == 1)

    def new_initial_state(self):
        """A position at the start of the match (a chance node): the rule's ``state_class``,
        :class:`~magdomino.games.tower.state.State` for the tower rules."""
        return self.rulebook.state_class(self)

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "players": self.players,
            "seed": self.seed,
            "parallel_only": self.parallel_only,
            "second_parallel": self.second_parallel,
            "variant": self.variant,
            "kids": self.kids,
            "deals": self.deals,
            "colours": list(self.colours),
            "tile_size": list(self.tile_size),
            "max_placements": self.max_placements,
            "adjudicator": getattr(self.adjudicator, "name", type(self.adjudicator).__name__),
        }

    @staticmethod
    def from_json(data: dict, adjudicator=None) -> Game:
        return Game(
            data["rule"],
            data["players"],
            data["seed"],
            parallel_only=data["parallel_only"],
            second_parallel=data.get("second_parallel", True),
            variant=data["variant"],
            kids=data["kids"],
            deals=data["deals"],
            colours=data["colours"],
            tile_size=data["tile_size"],
            max_placements=data.get("max_placements"),
            adjudicator=adjudicator,
        )

    def __repr__(self) -> str:
        extra = "".join(
            [
                f", variant={self.variant!r}" if self.variant else "",
                ", kids=True" if self.kids else "",
                f", deals={self.deals}" if self.deals > 1 else "",
                ", parallel_only=True" if self.parallel_only else "",
                ", second_parallel=False" if not self.second_parallel else "",
            ]
        )
        return f"Game({self.rule!r}, {self.players}, seed={self.seed}{extra})"
