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

from magdomino.errors import InputError

SOURCE = "command line"

_TOML_HINT = 'a TOML value (a number such as 0.4, true/false, "text" or [1, 2, 3])'


PRESET_DEFAULT_HELP = "default: toy, the design study's choice; standard: 0.6 T magnets"
"""What ``--preset`` says of the default (:data:`magdomino.model.presets.DEFAULT_PRESET`), in every command's help."""


def add_preset_overrides(p, what: str = "the preset") -> None:
    """Add ``--magnets-scale`` and ``--preset-set`` to the parser ``p``."""
    group = p.add_argument_group(f"preset overrides (change {what}, checked as a preset file is)")
    group.add_argument("--magnets-scale", metavar="X", default=None,
                       help="multiply every magnet's polarisation by X (e.g. 1.1), as md.preset(..., magnets_scale=X)")
    group.add_argument("--preset-set", action="append", default=[], metavar="KEY=VALUE",
                       help="set a preset key in its file units, repeatable: tile.friction=0.4, tile.mass_g=12, "
                            "tile.magnets.polarization_T=1.0 (every magnet), collapse.max_tilt_deg=15")


def parse_toml_value(text: str, flag: str):
    """``text`` read as the value of a TOML key (``"0.4"`` → 0.4, ``"true"`` → True)."""
    import tomllib

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
    from magdomino.model.presets import with_overrides

    if not overrides:
        return preset
    try:
        return with_overrides(preset, overrides, SOURCE)
    except InputError as exc:
        raise InputError(SOURCE, override_flag(exc.key, overrides), exc.expected) from None


def overridden_scenario(scenario, args):
    """``scenario`` with the flags' overrides applied to its preset (itself when none)."""
    from magdomino.studies.scenario import with_preset

    overrides = preset_overrides(args)
    if not overrides:
        return scenario
    return with_preset(scenario, check_overrides(scenario.preset, overrides))


def record_overrides(document: dict, args, preset=None) -> dict:
    """``document`` with ``preset_overrides`` (and, when ``preset`` is given,
    ``preset_description``) when the flags asked for any. Returns the document."""
    overrides = preset_overrides(args)
    if overrides:
        document["preset_overrides"] = overrides
        if preset is not None:
            document["preset_description"] = preset.description
    return document


def refuse_without_physics(args, physics: str) -> None:
    """Overrides with no physics would change nothing: refused, never ignored."""
    if physics == "none" and preset_overrides(args):
        flag = "--magnets-scale" if getattr(args, "magnets_scale", None) is not None else "--preset-set"
        raise InputError(SOURCE, flag, "only with a --physics engine (without physics the preset changes nothing)")
