"""A notebook run headless, as nbclient (what ``jupyter execute`` and the documentation
build use) runs it: its saved outputs hold, for each result, the table and the command
line's picture in HTML; for the 3D view plotly's output and the HTML fallback (plotly.js
inline: read outside Jupyter it still draws); and each progress bar as one clean closing
line, never a widget's first state (``0%| | 0/50``)."""

import base64
import re

import pytest
from conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    'import magdomino as md\n'
    'tower = md.Construction(["6-6 at (0, 0) mm", "6-3 on #0 half 1", "3-3 on #1 half 1, back"], preset="standard")',
    'tower.odds("3-1 on #2 half 1", trials=20, engine="statics")',
    'tower.rank("3-1", trials=4, engine="statics")',
    'tower.sweep("pos_sigma_mm", [0.5, 1.0], "3-1 on #2 half 1", trials=4, engine="statics")',
    'tower.simulate("3-1 on #2 half 1", "3-1 on #2 half 0")',
    'tower.view3d()',
]


def _outputs(cell, kind):
    return [o for o in cell.outputs if o.output_type == kind]


def _text(o) -> str:
    if o.output_type == "stream":
        return o.text
    return o.get("data", {}).get("text/plain", "")


@pytest.fixture(scope="module")
def notebook():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    return nb


def test_every_result_shows_its_table_and_its_picture_in_the_saved_notebook(notebook):
    for index in (1, 2, 3, 4):
        (result,) = _outputs(notebook.cells[index], "execute_result")
        page = result.data["text/html"]
        assert "<table>" in page, index
        pictures = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
        assert len(pictures) == 1 and base64.b64decode(pictures[0]).startswith(b"\x89PNG"), index


def test_the_3d_view_has_an_html_fallback_with_plotlyjs_in_the_saved_notebook(notebook):
    pytest.importorskip("plotly")
    (result,) = _outputs(notebook.cells[5], "execute_result")
    assert "application/vnd.plotly.v1+json" in result.data
    page = result.data["text/html"]
    assert "Plotly.newPlot" in page and re.search(r"plotly\.js v\d+", page)  # draws without Jupyter's plotly renderer
    try:
        import kaleido  # noqa: F401
    except ImportError:
        assert "image/png" not in result.data
    else:
        assert base64.b64decode(result.data["image/png"]).startswith(b"\x89PNG")


def test_progress_bars_leave_one_clean_closing_line(notebook):
    for index, runs, total in ((1, 1, 20), (2, 1, None), (3, 2, 4)):  # the sweep: one run per value
        cell = notebook.cells[index]
        texts = [_text(o) for o in cell.outputs if o.output_type in ("stream", "display_data")]
        assert not [t for t in texts if "%|" in t or "| 0/" in t], texts
        lines = [t for o in _outputs(cell, "display_data") for t in [_text(o)] if "trials" in t]
        assert len(lines) == runs, lines
        for line in lines:
            assert re.fullmatch(r"'?(\d+)/(\d+) trials, \d+\.\d s(; .*)?'?", line), line
            done, of = map(int, re.match(r"'?(\d+)/(\d+)", line).groups())
            assert done == of and (total is None or of == total), line
