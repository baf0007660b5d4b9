"""Progress bars for long runs (odds, rankings, sweeps, tournaments, studies).

In a terminal, a tqdm bar on stderr that leaves no line behind. In a notebook (an IPython
kernel), one line of text updated in place (a display with an id) and ending as a summary,
``50/50 trials, 3.2 s``: a saved notebook holds that line, where a widget bar would leave
its first state (``0%| | 0/50``) for any reader without the widget's state.
"""

from __future__ import annotations

import sys
import time

REFRESH_S = 0.5
"""A notebook's progress line is redrawn at most this often."""


def in_notebook() -> bool:
    """Does this process run in a notebook's kernel (IPython's ZMQ shell)? IPython is only
    looked at when it is already imported."""
    if "IPython" not in sys.modules:
        return False
    from IPython import get_ipython  # noqa: PLC0415 - IPython is optional: looked at only when a notebook has already imported it

    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def progress_bar(total: int, unit: str, initial: int = 0):
    """A progress bar with tqdm's ``update(n)``, ``set_postfix_str(text, refresh=)`` and
    ``close()``: :class:`NotebookLine` in a notebook, else a tqdm bar on stderr (``leave=False``)."""
    if in_notebook():
        return NotebookLine(total, unit, initial)
    from tqdm import tqdm  # noqa: PLC0415 - on use: tqdm (~40 ms) only when a bar is drawn outside a notebook

    return tqdm(total=total, initial=initial, file=sys.stderr, unit=unit, dynamic_ncols=True, leave=False)


class NotebookLine:
    """One line of text in a notebook's output, updated in place: ``12/50 trials (24 %),
    1.1 s; what the run adds``, then, on :meth:`close`, ``50/50 trials, 3.2 s; ...``.

    Parameters
    ----------
    total : int
        How many units the run has.
    unit : str
        What one is (``"trial"``, ``"deal"``); the plural adds an s.
    initial : int
        Units already done (a resumed run).
    """

    def __init__(self, total: int, unit: str, initial: int = 0):
        from IPython.display import Pretty, display  # noqa: PLC0415 - IPython is optional: only in a notebook's kernel

        self._pretty = Pretty
        self.total, self.unit, self.n = int(total), unit, int(initial)
        self.postfix = ""
        self.start = time.monotonic()
        self.shown = self.start
        self.handle = display(Pretty(self.text()), display_id=True)

    def text(self, done: bool = False) -> str:
        """The line as it reads now (``done``: the summary)."""
        units = self.unit if self.total == 1 else self.unit + "s"
        elapsed = time.monotonic() - self.start
        share = "" if done or not self.total else f" ({100 * self.n // self.total} %)"
        return f"{self.n}/{self.total} {units}{share}, {elapsed:.1f} s" + (f"; {self.postfix}" if self.postfix else "")

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.shown >= REFRESH_S:
            self.shown = now
            self.handle.update(self._pretty(self.text()))

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.postfix = text
        if refresh:
            self.handle.update(self._pretty(self.text()))

    def close(self) -> None:
        self.handle.update(self._pretty(self.text(done=True)))
