"""The package's six games as PettingZoo AEC environments, written as PettingZoo's classic games are.

Optional: needs the ``pettingzoo`` extra (``pip install 'magdomino[pettingzoo]'``), which
this module imports; ``md.env`` without it raises an :class:`~magdomino.errors.InputError`
saying how to install it (``import magdomino`` never imports PettingZoo).

Example
-------
>>> from magdomino.games.pettingzoo import env
>>> e = env("defi", players=3, physics="statics", seed=1)
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = e.action_space(agent).sample(obs["action_mask"])
...     e.step(action)

:func:`env` is the ``raw_env`` of the game's family in PettingZoo's ``OrderEnforcingWrapper``:
one module per family, as PettingZoo writes one per game
(:mod:`~magdomino.games.pettingzoo.tower`, :mod:`~magdomino.games.pettingzoo.chain`,
:mod:`~magdomino.games.pettingzoo.vingt`, each with its module-level ``raw_env`` class and
its ``env`` function; what they share: :mod:`~magdomino.games.pettingzoo.core`). An
environment pickles (``EzPickle``: it is made again from its arguments), so vectorised and
subprocess wrappers can copy it.

**Agents.** ``player_0`` … ``player_{n-1}``, the game's seats; ``agent_selection`` is the
seat to move. Chance events (the deal, draws) are played by the environment between two
agents' steps, from the game's own seeded stream.

**Seeds.** ``reset(seed=s)`` plays the game with seed ``s`` (the same deal as
``magdomino play --seed s``); ``reset()`` without a seed plays the seed given at creation
the first time, then the previous game's seed + 1. Sampling from an action space is seeded
by the caller (``env.action_space(agent).seed(...)``), as in Gymnasium.

**Physics.** The tower rules (``traditional``, ``defi``, ``quinconce``) are judged by the
physics chosen at creation: ``"none"`` (rules only: nothing collapses, the default),
``"statics"`` (the agents' judge,
:class:`~magdomino.physics.training_adjudicator.TrainingAdjudicator`: the statics alone,
never PyBullet, unsure placements decided by a load rule, answers remembered by the
construction's shape) or ``"dynamics"`` (PyBullet, the engine of
:mod:`magdomino.studies.engines`), with the preset ``preset``, magnets on unless
``magnets=False``. Judged games get the runaway guard
``max_placements`` = :data:`~magdomino.games.family.PLACEMENT_GUARD` (300, as in every face)
unless the option is given: a deal that reaches it is abandoned (not scored). The other
games take ``physics="none"`` only.

**Actions.** ``Discrete(n)``, the compact ids of :mod:`magdomino.games.codec` (the tower
rules: 18,846; matador and echanges 11 T + 12, 320 with the double six) and
:mod:`magdomino.games.vingt_codec` (20 sur 20: 4,470, a move of several tiles chosen in
one-tile sub-steps by the same agent), the same ids as the OpenSpiel face's. The legal ids
are ``observation["action_mask"] == 1`` (``int8``, a ``MultiBinary(n)`` space, all zero for
an agent whose turn it is not). A step with an id that is not legal raises
:class:`~magdomino.errors.InputError` and leaves the game unchanged. ``info["moves"]`` (the
agent to move's) maps each legal id to the move as the game's log writes it: the tower
rules in the placement language (:mod:`magdomino.studies.placement_language`, ``"3-1 on
#2 (3-3) half 1, across left"``); a 20 sur 20 sub-step's id to the frame or tile it
chooses. The texts are written when first read (a learning agent reads the mask only), so
read them before the next step.

**Observations.** ``{"observation": ndarray, "action_mask": ndarray}`` as PettingZoo's
classic games give them: ``observation`` a ``float32`` ``Box`` vector, the observing
agent's view laid out by :mod:`magdomino.games.family` (hand, construction or table, stock,
hand sizes, scores, modes owed …; the same tensor as the OpenSpiel face's
``observation_tensor``). ``env.unwrapped.observation_pieces(agent)`` gives its named views.

**Rendering.** ``render_mode="ansi"`` (``render()`` returns the position as text),
``"human"`` (prints it after every step) or ``"rgb_array"`` (the board seen from above,
:mod:`magdomino.games.picture`); ``render()`` without a render mode warns, as PettingZoo's
games do, and returns None.

**Rewards** are 0 until the end, then the game's returns (``state.returns()``: each winner
``1/len(winners)``, the others 0; echanges: +1 or −1 for everyone). The match ends with
every agent terminated, or truncated when the runaway guard abandoned its last deal.
"""

from __future__ import annotations

from magdomino.checks import check_choice
from magdomino.games.family import RULES, family_of
from magdomino.games.pettingzoo.core import MagdominoEnv, action_size

__all__ = ["MagdominoEnv", "action_size", "env"]


def env(rule: str = "defi", players: int = 2, physics: str = "none", seed: int = 0, *,
        render_mode: str | None = None, preset=None, magnets: bool = True, **options):
    """One of the games as a PettingZoo AEC environment (module docstring).

    Parameters
    ----------
    rule : "traditional" | "defi" | "quinconce" | "matador" | "echanges" | "vingt"
    players : int
        The seats (``player_0`` …): 2-4 (matador with a larger set: 2-6; echanges: 3-6).
    physics : "none" | "statics" | "dynamics" (``"pybullet"``: its deprecated spelling)
        Who judges the tower rules' placements; the other games take ``"none"`` only.
    seed : int
        The seed of the first ``reset()`` without one.
    render_mode : None | "ansi" | "human" | "rgb_array"
        ``render()`` returns the position as text (``"ansi"``), prints it after every step
        (``"human"``) or returns the board as an RGB array (``"rgb_array"``).
    preset : str or Preset, optional
        The preset physics judges with (default :data:`magdomino.model.presets.DEFAULT_PRESET`).
    magnets : bool
        Magnets on in physics.
    **options
        The game's options (:class:`magdomino.games.core.Game`: ``variant``, ``kids``,
        ``deals``, ``max_placements`` …; matador: ``set``, ``variant``, ``deals``,
        ``target``; vingt: ``target``).

    Returns
    -------
    pettingzoo.AECEnv
        The ``raw_env`` of the game's family in PettingZoo's ``OrderEnforcingWrapper``; call
        ``reset()`` before the first step.
    """
    check_choice(rule, "rule", RULES)
    from importlib import import_module

    family = import_module(f"magdomino.games.pettingzoo.{family_of(rule).name}")
    return family.env(rule, players, physics, seed, render_mode=render_mode, preset=preset, magnets=magnets, **options)
