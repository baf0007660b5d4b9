"""The one error type for bad input, so every command reports it the same way.

An :class:`InputError` names the file, the key and what was expected; the command line
prints ``str(error)`` on one line and exits with status 2.

Library functions name their own arguments: ``InputError(ARGUMENTS, "trials", ...)``, and a
message may name other arguments as ``{out_dir}``. The command line maps those names to its
flags in one table (:mod:`magdomino.faces.cli`), so the library never speaks of flags.
"""

from __future__ import annotations

import re
from collections.abc import Callable

ARGUMENTS = "arguments"
"""The ``source`` of an error about a function's argument (not a file)."""

_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def _one_line(text: str) -> str:
    """``text`` with line breaks and other unprintable characters escaped (a key read from a
    file may hold any): an error stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class InputError(ValueError):
    """Bad input from a file, a function's arguments or the command line.

    Parameters
    ----------
    source : str
        The file the bad value came from, :data:`ARGUMENTS`, or ``"command line"``.
    key : str
        Dotted path of the offending key, e.g. ``"tile.magnets[0].size_mm"``.
    expected : str
        What was expected, in words a user understands; ``{name}`` names another argument.
    """

    def __init__(self, source: str, key: str, expected: str):
        self.source = str(source)
        self.key = key
        self.expected = expected
        text = _NAME.sub(lambda m: m.group(1), expected)
        where = _one_line(f"{self.source}: {key}" if key else self.source)
        super().__init__(f"{where}: {text}")

    def for_command_line(self, flag_of: Callable[[str], str]) -> InputError:
        """The same error in the command line's words: the names in the message, and the key
        of an error about an argument, mapped by ``flag_of``."""
        expected = _NAME.sub(lambda m: flag_of(m.group(1)), self.expected)
        if self.source != ARGUMENTS:
            return InputError(self.source, self.key, expected)
        return InputError("command line", flag_of(self.key) if self.key else "", expected)
