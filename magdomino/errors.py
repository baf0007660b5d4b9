"""The one error type for bad input, so every command reports it the same way.

An :class:`InputError` names the file, the key and what was expected; the command line
prints ``str(error)`` on one line and exits with status 2.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input from a file or the command line.

    Parameters
    ----------
    source : str
        The file (or ``"command line"``) the bad value came from.
    key : str
        Dotted path of the offending key, e.g. ``"tile.magnets[0].size_mm"``.
    expected : str
        What was expected, in words a user understands.
    """

    def __init__(self, source: str, key: str, expected: str):
        self.source = str(source)
        self.key = key
        self.expected = expected
        where = f"{self.source}: {key}" if key else self.source
        super().__init__(f"{where}: {expected}")
