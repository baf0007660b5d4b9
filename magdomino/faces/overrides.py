"""Preset overrides on the command line: ``--magnets-scale X`` and ``--preset-set KEY=VALUE``.

One helper for every command that loads a preset (``play``, ``tournament``, ``odds``,
``whatif``, ``sweep``, ``simulate``, ``study``), going through the same
:func:`magdomino.model.presets.with_overrides` as the Python face's ``md.preset(name,
magnets_scale=..., **{"tile.friction": ...})``:

- ``--magnets-scale X`` multiplies every magnet's polarisation (applied last);
- ``--preset-set KEY=VALUE`` (repeatable) sets any key of the preset file, in its units
  (``tile.friction=0.4``, ``tile.magnets.polarization_T=1.0``: a key under ``tile.magnets``
  sets every magnet; ``collapse.max_tilt_deg=15``). VALUE is read as a TOML value (``0.4``,
  ``true``, ``"mesh"``, ``[48, 24, 8]``), so a value means what it would mean in the file.

The overridden preset is checked as a preset file is; a bad key or value is one line naming
the flag and the key (exit status 2). JSON documents record the overrides
(``preset_overrides``, ``{key: value}`` in the order given) and the resulting preset's
description (``preset_description``, which says what was overridden).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from magdomino.errors import InputError
from magdomino.model.presets import load_preset, resolve_preset_path, with_overrides
from magdomino.studies.scenario import with_preset

SOURCE = "command line"

_TOML_HINT = 'a TOML value (a number such as 0.4, true/false, "text" or [1, 2, 3])'


PRESET_DEFAULT_HELP = "default: toy, the design study's choice; standard: 0.6 T magnets"
"""What ``--preset`` says of the default (:data:`magdomino.model.presets.DEFAULT_PRESET`), in every command's help."""


def add_preset_overrides(p, what: str = "the preset", scenario: bool = False) -> None:
    """Add ``--magnets-scale`` and ``--preset-set`` to the parser ``p``; with ``scenario``
    (a command that reads a scenario file) also ``--preset NAME|FILE``, which replaces the
    scenario's preset before the overrides apply."""
    group = p.add_argument_group(f"preset overrides (change {what}, checked as a preset file is)")
    if scenario:
        group.add_argument("--preset", metavar="NAME|FILE", default=None,
                           help="use this preset instead of the scenario's: a bundled name or a preset .toml "
                                "(such as the one magdomino calibrate writes)")
    group.add_argument("--magnets-scale", metavar="X", default=None,
                       help="multiply every magnet's polarisation by X (e.g. 1.1), as md.preset(..., magnets_scale=X)")
    group.add_argument("--preset-set", action="append", default=[], metavar="KEY=VALUE",
                       help="set a preset key in its file units, repeatable: tile.friction=0.4, tile.mass_g=12, "
                            "tile.magnets.polarization_T=1.0 (every magnet), collapse.max_tilt_deg=15")


def parse_toml_value(text: str, flag: str):
    """``text`` read as the value of a TOML key (``"0.4"`` → 0.4, ``"true"`` → True)."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        raise InputError(SOURCE, flag, f"expected {_TOML_HINT}, got {text!r}") from None


def preset_overrides(args) -> dict:
    """The overrides the flags of ``args`` ask for, ``{key: value}`` in the order given
    (``magnets_scale`` last); InputError (naming the flag) on a malformed one."""
    overrides: dict = {}
    for item in getattr(args, "preset_set", None) or []:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", key):
            raise InputError(SOURCE, "--preset-set", f"expected KEY=VALUE such as tile.friction=0.4, got {item!r}")
        flag = f"--preset-set {key}"
        if key == "magnets_scale":
            raise InputError(SOURCE, flag, "expected a preset file key; the scale is --magnets-scale X")
        if key in overrides:
            raise InputError(SOURCE, flag, "expected each key once (given twice)")
        overrides[key] = parse_toml_value(text.strip(), flag)
    scale = getattr(args, "magnets_scale", None)
    if scale is not None:
        value = parse_toml_value(str(scale).strip(), "--magnets-scale")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(SOURCE, "--magnets-scale", f"expected a number, got {scale!r}")
        overrides["magnets_scale"] = value
    return overrides


def override_flag(key: str, overrides: dict) -> str:
    """The flag (and key) that set ``key``, as an error about the overridden preset names it
    (``tile.magnets[1].polarization_T`` was set by ``--preset-set tile.magnets.polarization_T``)."""
    if key == "magnets_scale":
        return "--magnets-scale"
    general = re.sub(r"\[\d+\]", "", key)
    for given in overrides:
        if given in (key, general):
            return f"--preset-set {given}"
    if general.startswith("tile.magnets.") and "magnets_scale" in overrides and general.endswith("polarization_T"):
        return "--magnets-scale"
    return f"--preset-set {key}" if overrides else key


def check_overrides(preset, overrides: dict):
    """``preset`` with ``overrides`` (:func:`~magdomino.model.presets.with_overrides`: its
    description says what was overridden); InputError naming the flag and the key."""
    if not overrides:
        return preset
    try:
        return with_overrides(preset, overrides, SOURCE)
    except InputError as exc:
        raise InputError(SOURCE, override_flag(exc.key, overrides), exc.expected) from None


def chosen_preset(args):
    """The preset ``--preset`` names (None when not given); InputError naming the flag when
    there is no such preset, one naming the file and key when the file is wrong."""
    given = getattr(args, "preset", None)
    if given is None:
        return None
    try:
        return load_preset(given)
    except InputError as exc:
        if exc.key != "preset":  # a bad preset file: its own name and key
            raise
        raise InputError(SOURCE, "--preset", exc.expected) from None


def preset_file(args) -> str | None:
    """What ``--preset`` named, as a JSON document records it (``preset_file``): a bundled
    name as given, a file as its absolute path (so a report finds it from any folder)."""
    given = getattr(args, "preset", None)
    if given is None:
        return None
    text = str(given)
    if not (text.endswith(".toml") or "/" in text or "\\" in text):
        return text
    return str(resolve_preset_path(text).resolve())


def overridden_scenario(scenario, args):
    """``scenario`` with the preset ``--preset`` names (when given), then the flags'
    overrides, applied (itself when neither)."""
    chosen = chosen_preset(args)
    if chosen is not None:
        scenario = with_preset(scenario, chosen)
    overrides = preset_overrides(args)
    if not overrides:
        return scenario
    return with_preset(scenario, check_overrides(scenario.preset, overrides))


def preset_words(scenario, args) -> str:
    """How a command's header names the preset it ran: ``preset standard``, or, chosen by
    ``--preset``, ``preset our set (--preset my_set.toml, instead of the scenario's)``."""
    given = getattr(args, "preset", None)
    text = f"preset {scenario.preset.name}"
    return text if given is None else f"{text} (--preset {given}, instead of the scenario's)"


def record_overrides(document: dict, args, preset=None, scenario=None) -> dict:
    """``document`` with ``preset_overrides`` (and, when ``preset`` is given,
    ``preset_description``) when the flags asked for any; with ``scenario`` (a run of a
    scenario file), ``preset_file`` when ``--preset`` chose the preset and ``scenario_file``
    (the file's absolute path). Returns the document."""
    overrides = preset_overrides(args)
    if overrides:
        document["preset_overrides"] = overrides
        if preset is not None:
            document["preset_description"] = preset.description
    if scenario is None:  # a game's record: its preset is in the record already
        return document
    chosen = preset_file(args)
    if chosen is not None:
        document["preset_file"] = chosen
    if Path(scenario.source).is_file():
        document["scenario_file"] = str(Path(scenario.source).resolve())
    return document


def refuse_without_physics(args, physics: str) -> None:
    """Overrides with no physics would change nothing: refused, never ignored."""
    if physics == "none" and preset_overrides(args):
        flag = "--magnets-scale" if getattr(args, "magnets_scale", None) is not None else "--preset-set"
        raise InputError(SOURCE, flag, "only with a --physics engine (without physics the preset changes nothing)")
