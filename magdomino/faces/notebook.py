"""What a notebook shows: pictures, 3D views and tables that show themselves, in Jupyter and
in a saved notebook read elsewhere.

A :class:`Picture` is a PNG (``_repr_png_``; ``html()`` for a page). A :class:`View3D` is an
interactive plotly figure offered in three forms at once (``_repr_mimebundle_``): plotly's
own (Jupyter draws it), HTML carrying plotly.js (what a saved notebook shows outside Jupyter:
nbviewer, an HTML export, an editor's preview) and, where a static renderer (kaleido) is
installed, a PNG. :func:`figure_png` draws one of the command line's figures into a
:class:`Picture`. Nothing heavy is imported here until used.
"""

from __future__ import annotations

import base64
import html
import io
import tempfile
from pathlib import Path

import numpy as np

from magdomino.optional import require
from magdomino.studies.aiming import structure_poses
from magdomino.wording import as_words, counted, probability

# faces.plots (matplotlib) and faces.view3d (plotly) are imported when a picture or a 3D view is made.


class Picture:
    """A PNG picture: shows itself in a notebook, ``save(path)`` writes it."""

    def __init__(self, png: bytes):
        self.png = png

    def _repr_png_(self) -> bytes:
        return self.png

    def html(self) -> str:
        return f'<img src="data:image/png;base64,{base64.b64encode(self.png).decode()}"/>'

    def save(self, path) -> Path:
        path = Path(path)
        path.write_bytes(self.png)
        return path



PROBABILITY_COLUMNS = {"p(collapse)", "shift share"}
"""Columns that hold a probability: shown with three decimals, as the command line shows them."""


def table_cell(value, header: str = "") -> str:
    """A table cell as text: a probability with three decimals, a boolean as a word, ``-`` for None."""
    if value is None:
        return "-"
    if header in PROBABILITY_COLUMNS and isinstance(value, (int, float)) and not isinstance(value, bool):
        return probability(value)
    return str(as_words(value))


def html_table(header, rows, caption: str = "") -> str:
    """An HTML table: ``header`` (column names), ``rows`` (lists of cells, escaped here) and a caption (HTML)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class Result:
    """A result of the Python face as rows, a DataFrame, a text table and an HTML table (a picture above it
    when it has one), from its ``_header`` (column names), ``_rows()`` and ``_title``."""

    _title = ""

    def to_rows(self) -> list[dict]:
        """One dict per row, keyed by the column names."""
        return [dict(zip(self._header, row)) for row in self._rows()]

    def to_dataframe(self):
        """The rows as a pandas DataFrame (:meth:`to_rows` needs no pandas)."""
        pandas = require("pandas", "a DataFrame", key="to_dataframe")
        return pandas.DataFrame(self.to_rows())

    def __repr__(self) -> str:
        rows = [[table_cell(v, h) for v, h in zip(row, self._header)] for row in self._rows()]
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(self._header)]
        lines = [self._title, "  " + "  ".join(h.ljust(w) for h, w in zip(self._header, widths))]
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        picture = self.figure()
        cells = [[table_cell(v, h) for v, h in zip(r, self._header)] for r in self._rows()]
        table = html_table(self._header, cells, html.escape(self._title))
        return (picture.html() if picture is not None else "") + table

    def figure(self) -> Picture | None:
        """The result's picture (the command line's ``--plot``), or None when it has none."""
        return None

    def plot(self, path=None) -> Picture | None:
        """The result's picture, as the command line's ``--plot`` draws it; written to ``path`` when given."""
        picture = self.figure()
        if picture is not None and path is not None:
            picture.save(path)
        return picture


def png_bytes(image) -> bytes:
    """An image array (height, width, 3 or 4) as PNG bytes."""
    from matplotlib.image import imsave

    buffer = io.BytesIO()
    imsave(buffer, image, format="png")
    return buffer.getvalue()


def construction_png(sc, poses) -> bytes:
    """Side and top views of the structure (nominal or ``poses``), each tile and half labelled."""
    from magdomino.faces.plots import construction_figure
    if poses is None:
        used = structure_poses(sc, np.asarray(sc.preset.tile.size, float))
        poses = (np.array([p for p, _ in used]), np.array([q for _, q in used]))
    buffer = io.BytesIO()
    construction_figure(poses[0], poses[1], [pl.pips for pl in sc.structure], sc.preset, buffer, title=sc.name, labels=True)
    return buffer.getvalue()


class View3D:
    """An interactive 3D view (:mod:`magdomino.faces.view3d`) that shows itself wherever a
    notebook is read: plotly's own output in Jupyter, HTML with plotly.js inline elsewhere,
    and a PNG where kaleido is installed. Anything else is the plotly figure's
    (``view.data``, ``view.write_html(...)``); ``figure`` is the figure itself."""

    def __init__(self, figure):
        self.figure = figure

    def __getattr__(self, name):
        if name.startswith("_"):  # how it shows itself is its own (not the figure's _ipython_display_); no recursion
            raise AttributeError(name)
        return getattr(self.figure, name)

    def html(self) -> str:
        """An HTML fragment that draws the view anywhere, offline (plotly.js inline)."""
        from magdomino.faces.view3d import figure_html

        return figure_html(self.figure)

    def png(self) -> bytes | None:
        """A still picture of the view, or None when no static renderer (kaleido) is installed."""
        try:
            return self.figure.to_image(format="png")
        except Exception:  # noqa: BLE001 - kaleido missing or unable to run: no still picture
            return None

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = {"application/vnd.plotly.v1+json": self.figure.to_plotly_json(), "text/html": self.html(),
                  "text/plain": f"<3D view: {self.figure.layout.title.text or 'construction'}>"}
        png = self.png()
        if png is not None:
            bundle["image/png"] = base64.b64encode(png).decode("ascii")
        return bundle


def figure_png(draw, document: dict) -> Picture:
    """One of the command line's figures (``draw(document, path)``, as
    :func:`magdomino.faces.plots.odds_figure`) as a :class:`Picture`."""
    with tempfile.TemporaryDirectory(prefix="magdomino-figure-") as tmp:
        path = Path(tmp) / "figure.png"
        draw(document, path)
        return Picture(path.read_bytes())


def simulation_picture(result, name: str) -> Picture:
    """What ``magdomino simulate --plot`` draws, for a simulation (``result``: a
    :class:`~magdomino.studies.simulation.SimulationResult`, its traces recorded): side and top
    views of the structure (as it settled, or as it fell) and each what-if's largest shift and
    tilt over time (an engine where nothing moves judges at rest: the panels say so)."""
    from magdomino.faces.plots import simulation_figure, structure_outcome, what_ifs_not_tried
    sc = result.scenario
    traces = [(f"what-if {i}: {sc.describe(w)}: {v.reason}", series)
              for i, (w, v, series) in enumerate(zip(sc.what_if, result.what_if, result.traces)) if v is not None and series]
    if not sc.what_if:
        no_traces = "no what-if"
    elif any(v is None for v in result.what_if):
        no_traces = f"what-ifs {what_ifs_not_tried(result.structure)}"
    else:
        no_traces = f"what-ifs judged at rest by {result.engine}: nothing moves (see the table)"
    title = f"{name}: {counted(len(sc.structure), 'tile')}, structure {structure_outcome(result.structure)}"
    pips = [pl.pips for pl in sc.structure]
    return figure_png(lambda _, path: simulation_figure(*result.settled_poses, pips, sc.preset, traces, path,
                                                        thresholds=result.structure.thresholds,
                                                        title=title, structure=result.structure, no_traces=no_traces), {})
