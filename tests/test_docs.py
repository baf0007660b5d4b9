"""Docs that cannot rot: every Python block of the README and every code cell of the tutorial
notebook runs here, against the installed package, as a reader would run them.

The README's blocks run in order in one fresh interpreter (a plain script: no ``__main__``
guard), from the repository's root (they open ``scenarios/...``) in a scratch copy of the
files they write. The notebook's cells run in order in one namespace, as Jupyter runs them:
an interpreter whose ``__main__`` is not a file; a cell's last expression is shown the way
Jupyter shows it (``_repr_html_``, else ``_repr_png_``, else ``repr``), so a result that
cannot show itself fails here. A block that should not run says so with ``<!-- no-test -->``
on the line above it (none does today).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TUTORIAL = ROOT / "docs" / "tutorial.ipynb"


def python_blocks(markdown: str) -> list[str]:
    """The ```python blocks of a Markdown text, in order (those marked no-test left out)."""
    blocks = []
    for m in re.finditer(r"(<!-- no-test -->\n)?```python\n(.*?)```", markdown, re.S):
        if not m.group(1):
            blocks.append(m.group(2))
    return blocks


NOTEBOOK_RUNNER = r'''
import ast, json, sys
cells = json.load(sys.stdin)
ns = {"__name__": "__main__"}
for k, source in enumerate(cells):
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, f"<cell {k}>", "exec"), ns)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), f"<cell {k}>", "eval"), ns)
        if value is None:
            continue
        for method in ("_repr_html_", "_repr_png_"):
            if hasattr(value, method):
                shown = getattr(value, method)()
                assert shown, f"cell {k}: {method} gave nothing"
                print(f"cell {k}: {method} {len(shown)}")
                break
        else:
            print(f"cell {k}: {repr(value)[:200]}")
'''


def test_the_readme_python_blocks_run(tmp_path):
    blocks = python_blocks(README.read_text())
    assert blocks, "the README shows no Python"
    work = tmp_path / "work"
    shutil.copytree(ROOT / "scenarios", work / "scenarios")
    code = "\n".join(f"# -- README block {k}\n{b}" for k, b in enumerate(blocks))
    (work / "readme.py").write_text(code)
    r = subprocess.run([sys.executable, "readme.py"], cwd=work, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]


def test_the_first_readme_example_answers_does_it_stand_in_twelve_lines_with_one_import():
    first = python_blocks(README.read_text())[0]
    lines = [line for line in first.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert len(lines) <= 12, first
    assert [line for line in lines if line.startswith(("import ", "from "))] == ["import magdomino as md"]
    assert ".simulate(" in first and "3-1" in first


def test_the_first_readme_example_prints_what_the_readme_shows():
    """The README's printed output of its first example, re-run: every line it shows (up to a
    ``...`` it elides) begins a printed line, in order, so the ranking's first row is ``.best``."""
    text = README.read_text()
    first = python_blocks(text)[0]
    shown = text.split(first, 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    r = subprocess.run([sys.executable, "-c", first], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    printed = [line.rstrip() for line in r.stdout.splitlines()]
    at = 0
    for line in shown.splitlines():
        want = line.split("...", 1)[0].rstrip()
        if not want.strip():
            continue
        while at < len(printed) and not printed[at].startswith(want):
            at += 1
        assert at < len(printed), f"the README shows {want!r}; printed:\n" + "\n".join(printed)


def test_the_tutorial_notebook_runs_and_every_result_shows_itself(tmp_path):
    cells = ["".join(c["source"]) for c in json.loads(TUTORIAL.read_text())["cells"] if c["cell_type"] == "code"]
    assert len(cells) >= 5
    work = tmp_path / "work"
    shutil.copytree(ROOT / "scenarios", work / "scenarios")
    r = subprocess.run([sys.executable, "-c", NOTEBOOK_RUNNER], input=json.dumps(cells), cwd=work, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    shown = [line for line in r.stdout.splitlines() if line.startswith("cell ")]
    assert sum("_repr_html_" in line for line in shown) >= 4, shown


def test_the_notebook_runner_fails_on_a_cell_that_fails():
    r = subprocess.run([sys.executable, "-c", NOTEBOOK_RUNNER], input=json.dumps(["x = 1", "1 / 0"]), capture_output=True, text=True)
    assert r.returncode != 0 and "ZeroDivisionError" in r.stderr


@pytest.mark.parametrize("text, expected", [
    ("```python\na = 1\n```\n<!-- no-test -->\n```python\nb = 2\n```\n", ["a = 1\n"]),
    ("no code", []),
])
def test_blocks_are_found(text, expected):
    assert python_blocks(text) == expected


def test_the_tutorial_runs_in_a_real_jupyter_kernel(tmp_path):
    # What a reader's Jupyter does (nbclient and ipykernel, the test extras): the runner above
    # cannot see what only a kernel needs (plotly's figures wanted nbformat in the kernel).
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(TUTORIAL, as_version=4)
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = [o for o in outputs if o.output_type in ("execute_result", "display_data")]
    assert sum("text/html" in o.data for o in shown) >= 5
    assert any("application/vnd.plotly.v1+json" in o.data for o in shown)  # the 3D view
