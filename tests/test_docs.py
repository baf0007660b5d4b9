"""Docs that cannot rot: every Python block of the README and of every documentation page,
and every code cell of every notebook under ``docs/``, runs here against the installed
package, as a reader would run them; a page with a broken link or reference fails the
build (``scripts/docs``'s strictness, tried on tiny pages); the built site has no broken
internal link (slow: it builds the site); every console run of ``magdomino`` on the pages
prints what the page shows, its clock figures matched loosely (a block marked
``<!-- console: not run -->`` says in the page why it cannot run; ``slow`` ones run with the
slow tests; ``after CMD; CMD`` runs the commands that write the files a block reads).

A page's blocks run in order in one fresh interpreter (a plain script: no ``__main__``
guard), from a scratch copy of the repository's ``scenarios/`` and ``docs/`` (they open
``scenarios/...``), so the files they write land there. A notebook's cells run in order in
one namespace, as Jupyter runs them: an interpreter whose ``__main__`` is not a file; a
cell's last expression is shown the way Jupyter shows it (``_repr_html_``, else
``_repr_png_``, else ``_repr_mimebundle_``, else ``repr``), so a result that has those
methods but shows nothing through them fails here. A block
that should not run says so with ``<!-- no-test -->`` on the line above it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
TUTORIAL = DOCS / "tutorials" / "three-questions.ipynb"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "generated" not in p.parts)
NOTEBOOKS = sorted(DOCS.rglob("*.ipynb"))


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
        methods = [m for m in ("_repr_html_", "_repr_png_", "_repr_mimebundle_") if hasattr(value, m)]
        for method in methods:
            shown = getattr(value, method)()
            if shown:
                print(f"cell {k}: {method} {len(shown)}")
                break
        else:
            assert not methods, f"cell {k}: {', '.join(methods)} gave nothing"
            print(f"cell {k}: {repr(value)[:200]}")
'''


def scratch(tmp_path) -> Path:
    """A scratch copy of what the examples open: scenarios/ and docs/."""
    work = tmp_path / "work"
    shutil.copytree(ROOT / "scenarios", work / "scenarios")
    shutil.copytree(DOCS, work / "docs", ignore=shutil.ignore_patterns("generated", "_build"))
    return work


def run_blocks(blocks: list[str], work: Path, name: str) -> None:
    code = "\n".join(f"# -- {name} block {k}\n{b}" for k, b in enumerate(blocks))
    (work / "blocks.py").write_text(code)
    r = subprocess.run([sys.executable, "blocks.py"], cwd=work, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]


def test_the_readme_python_blocks_run(tmp_path):
    blocks = python_blocks(README.read_text())
    assert blocks, "the README shows no Python"
    run_blocks(blocks, scratch(tmp_path), "README")


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p.read_text())],
                         ids=lambda p: str(p.relative_to(DOCS)))
def test_every_python_block_of_the_docs_runs(page, tmp_path):
    run_blocks(python_blocks(page.read_text()), scratch(tmp_path), str(page.relative_to(DOCS)))


def test_the_docs_show_python_and_notebooks():
    # The parametrized tests above and below run something.
    assert len([p for p in PAGES if python_blocks(p.read_text())]) >= 8
    assert len(NOTEBOOKS) >= 5 and TUTORIAL in NOTEBOOKS


def notebook_cells(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def run_notebook(path: Path, tmp_path) -> list[str]:
    """Run a notebook's cells in its own folder of a scratch copy; the lines saying how each
    cell's last value showed itself."""
    work = scratch(tmp_path)
    folder = work / path.parent.relative_to(ROOT)
    r = subprocess.run([sys.executable, "-c", NOTEBOOK_RUNNER], input=json.dumps(notebook_cells(path)), cwd=folder,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return [line for line in r.stdout.splitlines() if line.startswith("cell ")]


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n != TUTORIAL], ids=lambda p: p.stem)
def test_every_notebook_runs_and_its_results_show_themselves(notebook, tmp_path):
    shown = run_notebook(notebook, tmp_path)
    assert shown, "a tutorial shows nothing"


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


def test_the_notebook_runner_fails_on_a_cell_that_fails():
    r = subprocess.run([sys.executable, "-c", NOTEBOOK_RUNNER], input=json.dumps(["x = 1", "1 / 0"]), capture_output=True, text=True)
    assert r.returncode != 0 and "ZeroDivisionError" in r.stderr


@pytest.mark.parametrize("text, expected", [
    ("```python\na = 1\n```\n<!-- no-test -->\n```python\nb = 2\n```\n", ["a = 1\n"]),
    ("no code", []),
])
def test_blocks_are_found(text, expected):
    assert python_blocks(text) == expected


def test_the_tutorial_runs_in_a_real_jupyter_kernel_and_every_result_shows_itself(tmp_path):
    # What a reader's Jupyter does (nbclient and ipykernel, the test extras): the runner above
    # cannot see what only a kernel needs (plotly's figures wanted nbformat in the kernel).
    import nbformat
    from nbclient import NotebookClient

    assert len(notebook_cells(TUTORIAL)) >= 5
    notebook = nbformat.read(TUTORIAL, as_version=4)
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # A rich display that raised shows as a warning with its traceback, the plain text instead.
    streams = "".join(o.text for o in outputs if o.output_type == "stream")
    assert "Traceback" not in streams and "FormatterWarning" not in streams, streams[-2000:]
    shown = [o for o in outputs if o.output_type in ("execute_result", "display_data")]
    assert sum("text/html" in o.data for o in shown) >= 5
    assert any("application/vnd.plotly.v1+json" in o.data for o in shown)  # the 3D view


# -- The build's strictness, on tiny pages ----------------------------------------------------

TINY_CONF = """
import runpy
globals().update({k: v for k, v in runpy.run_path(%r).items() if not k.startswith("__")})
templates_path = []
html_static_path = []
exclude_patterns = []
"""


def docs_flags() -> list[str]:
    """The sphinx-build flags scripts/docs uses (nitpicky, warnings as errors)."""
    line = [text for text in (ROOT / "scripts" / "docs").read_text().splitlines() if "sphinx" in text and "exec" in text][0]
    flags = [w for w in line.split() if w.startswith("-") and w not in ("-m", "-b")]
    assert {"-n", "-W"} <= set(flags), line
    return flags


def tiny_build(tmp_path, page: str, name: str = "page.md"):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(TINY_CONF % str(DOCS / "conf.py"))
    (src / "index.md").write_text("# Tiny\n\n```{{toctree}}\n{}\n```\n".format(name.rsplit(".", 1)[0]))
    (src / name).write_text(page)
    env = {**os.environ, "MAGDOMINO_DOCS_EXECUTE": "force"}
    return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", *docs_flags(), str(src), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600, env=env)


GOOD = "# Page\n\nSee {doc}`index`, [the index](index.md) and {func}`magdomino.faces.api.play`.\n"


@pytest.mark.parametrize("page, says", [
    ("# Page\n\nSee [a page that is not there](missing.md).\n", "missing.md"),
    ("# Page\n\nSee {doc}`missing`.\n", "missing"),
    ("# Page\n\nSee [a heading that is not there](index.md#nowhere).\n", "nowhere"),
    ("# Page\n\nSee {func}`magdomino.faces.api.no_such_thing`.\n", "no_such_thing"),
], ids=["markdown link", "doc role", "anchor", "python reference"])
def test_a_page_with_a_broken_link_fails_the_build(tmp_path, page, says):
    r = tiny_build(tmp_path, page)
    assert r.returncode != 0 and says in r.stderr, r.stderr[-3000:]


def test_a_page_whose_links_all_resolve_builds(tmp_path):
    r = tiny_build(tmp_path, GOOD)
    assert r.returncode == 0, r.stderr[-3000:]


def test_a_notebook_that_raises_fails_the_build(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(cells=[new_markdown_cell("# A notebook"), new_code_cell("1 / 0")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    r = tiny_build(tmp_path, nbformat.writes(nb), name="broken.ipynb")
    assert r.returncode != 0 and "broken.ipynb" in r.stderr and "ExecutionError" in r.stderr, r.stderr[-3000:]


# -- The whole site ---------------------------------------------------------------------------

def broken_internal_links(site: Path) -> list[str]:
    """Every href and src of the built pages that points inside the site at a file, or at an
    id in a page, that is not there."""
    from html.parser import HTMLParser
    from urllib.parse import unquote, urlsplit

    class Links(HTMLParser):
        def __init__(self):
            super().__init__()
            self.links, self.ids = [], set()

        def handle_starttag(self, tag, attrs):
            for key, value in attrs:
                if key == "id" and value:
                    self.ids.add(value)
                if key in ("href", "src") and value and tag in ("a", "img", "link", "script"):
                    self.links.append(value)

    pages = {}
    for page in site.rglob("*.html"):
        if "_static" in page.relative_to(site).parts:
            continue                          # the theme's templates, not pages
        parser = Links()
        parser.feed(page.read_text(errors="replace"))
        pages[page.resolve()] = parser
    broken = []
    for page, parser in pages.items():
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site.resolve())}: {link}")
            elif parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{page.relative_to(site.resolve())}: {link}")
    return broken


def test_the_link_checker_finds_a_broken_link(tmp_path):
    (tmp_path / "a.html").write_text('<a href="b.html">b</a> <a href="c.html">c</a> <a href="b.html#x">x</a> '
                                     '<a href="b.html#y">y</a> <a href="https://example.org/">out</a>')
    (tmp_path / "b.html").write_text('<h1 id="x">B</h1>')
    assert broken_internal_links(tmp_path) == ["a.html: c.html", "a.html: b.html#y"]


@pytest.mark.slow
def test_the_site_builds_strictly_and_has_no_broken_internal_link(tmp_path):
    # Sphinx as scripts/docs runs it (nitpicky, warnings as errors; the test extra holds the
    # docs extra, so nothing is installed here), into a scratch output folder. The notebooks
    # are not executed here: each runs in its own test above (a second run would cost the
    # suite about a minute on a fresh clone, where no cache holds their outputs).
    out = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", *docs_flags(), "-D", "nb_execution_mode=off", str(DOCS), str(out)],
                       capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-5000:]
    assert (out / "index.html").is_file() and (out / "api" / "md.html").is_file()
    assert broken_internal_links(out) == []


def test_the_readme_fits_on_a_screen_and_its_links_lead_into_the_docs():
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    assert [link for link in local if not (ROOT / link).exists()] == []
    for command in ("scripts/demo", "scripts/test", "scripts/docs", "magdomino lab"):
        assert command in text


def console_runs(markdown: str) -> list[tuple[str, list[str]]]:
    """(command, lines shown after it) of every ```console block of a Markdown text that holds
    one command and its output (a line ``...`` stands for lines left out)."""
    return [(command, shown) for command, shown, _ in marked_console_runs(markdown)]


def marked_console_runs(markdown: str) -> list[tuple[str, list[str], str]]:
    """:func:`console_runs` with each block's mark: the comment on the line above it,
    ``<!-- console: MARK -->`` ("" without one). ``slow``: it takes more than seconds (run
    with the slow tests); ``after CMD; CMD``: the commands that write the files it reads,
    run first (``slow, after ...``: both); ``not run``: it cannot run here, and the page
    says why."""
    runs = []
    for m in re.finditer(r"(?:<!-- console: (.*?) -->\n)?```console\n(.*?)```", markdown, re.S):
        lines = m.group(2).rstrip("\n").split("\n")
        commands = [line for line in lines if line.startswith("$ ")]
        if len(commands) == 1 and lines[0].startswith("$ ") and len(lines) > 1:
            runs.append((lines[0][2:], lines[1:], m.group(1) or ""))
    return runs


def reproducible(command: str, mark: str = "") -> bool:
    """Every console run of ``magdomino`` the pages show, but those marked ``not run`` (which
    say why in the page): its clock figures are matched loosely (:func:`without_clock`), any
    other difference fails. A person's seat answers as the page shows."""
    return command.startswith("magdomino ") and mark != "not run"


_CLOCK = re.compile(r" *\b\d+(?:\.\d+)? ?(?:ms|µs|s)\b")


def without_clock(line: str) -> str:
    """``line`` with its times (``0.09 s wall``, ``12.4 ms``, ``total 2.46 s``) as ``<time>``."""
    return _CLOCK.sub(" <time>", line)


def seat_answers(shown: list) -> str:
    """What a person typed in a console block: the text after each prompt ``seat N> ``
    (the seat shows answers read from a pipe, so the output holds them as the page does)."""
    return "".join(m.group(1) + "\n" for line in shown if (m := re.match(r"^seat \d+> (.*)$", line)))


CONSOLE_RUNS = [pytest.param(page.relative_to(DOCS).as_posix(), command, shown, mark,
                             marks=[pytest.mark.slow] if mark.startswith("slow") else [],
                             id=f"{page.relative_to(DOCS).as_posix()}:{command.removeprefix('magdomino ')}")
                for page in PAGES for command, shown, mark in marked_console_runs(page.read_text(encoding="utf-8"))
                if reproducible(command, mark)]


def test_console_runs_are_found():
    found = {(p.values[0], p.values[1].split()[1]) for p in CONSOLE_RUNS}
    assert {("howto/presets.md", "presets"), ("howto/play.md", "play"), ("howto/simulate.md", "simulate"),
            ("howto/report.md", "report"), ("howto/terminal.md", "play")} <= found
    assert console_runs("```console\n$ magdomino presets\ntoy  x\n...\n```\n") == [("magdomino presets", ["toy  x", "..."])]
    assert console_runs("```console\n$ a\n$ b\n```\n") == []  # several commands, no output shown
    marked = "<!-- console: slow, after magdomino x --json a.json -->\n```console\n$ magdomino y a.json\nwrote\n```\n"
    assert marked_console_runs(marked) == [("magdomino y a.json", ["wrote"], "slow, after magdomino x --json a.json")]
    assert without_clock("  total 2.46 s") == without_clock("  total 10.02 s") == "  total <time>"
    assert without_clock("3 contacts, 1894.6 ms") == without_clock("3 contacts,   3.9 ms")
    assert without_clock("max shift   0.04 mm") == "max shift   0.04 mm"


def _run(command: str, cwd: Path, shown: list) -> list[str]:
    r = subprocess.run([sys.executable, "-m", "magdomino", *command.split()[1:]], cwd=cwd, capture_output=True, text=True,
                       timeout=600, input=seat_answers(shown))
    assert r.returncode == 0, f"`{command}`: {r.stderr[-2000:]}"
    return r.stdout.rstrip("\n").split("\n")


@pytest.mark.parametrize(("page", "command", "shown", "mark"), CONSOLE_RUNS)
def test_a_console_run_of_the_docs_prints_what_the_page_shows(page, command, shown, mark, tmp_path):
    # The page's lines appear in the output in order; "..." stands for any lines between. The
    # run starts where a reader stands: beside the repository's scenarios/ and docs/.
    for folder in ("scenarios", "docs"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    if "after " in mark:
        for before in mark.split("after ", 1)[1].split(";"):
            _run(before.strip(), tmp_path, [])
    printed = [without_clock(line).rstrip() for line in _run(command, tmp_path, shown)]
    at, skipping = 0, False
    for line in shown:
        if line == "...":
            skipping = True
            continue
        line = without_clock(line).rstrip()
        if skipping:
            while at < len(printed) and printed[at] != line:
                at += 1
        assert at < len(printed) and printed[at] == line, (f"{page}: `{command}` does not print {line!r} there",
                                                            printed[max(at - 2, 0):at + 3])
        at, skipping = at + 1, False
