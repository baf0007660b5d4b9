"""The package's import graph, read with ``ast``: no cycles, no import from a lower layer to a
higher one, no module over 600 lines (the house rule).

Layers, bottom to top (docs/contributing.md, "The layers"): ``maths``, ``model``, ``physics``,
``studies``, ``games``, ``faces``. Modules at the top of the package (``errors``) sit below
them all; ``magdomino/__init__.py`` (the Python face) sits on top and may import anything.
Imports under ``if TYPE_CHECKING:`` (for annotations only, never run) are not edges. A
package's ``__init__`` that imports its children while a child imports the package is a
cycle too: the test sees it, since an import of ``magdomino.x.y`` is an edge to ``y`` and
``from magdomino.x import name`` an edge to ``x``'s ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import magdomino

ROOT = Path(magdomino.__file__).parent
LAYERS = ["maths", "model", "physics", "studies", "games", "faces"]
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports (at any depth in the file)."""
    paths = {module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for guard in [n for n in ast.walk(tree)
                      if isinstance(n, ast.If) and ast.unparse(n.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")]:
            guard.body = []  # imports for annotations only: never run
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:  # `from pkg import sub` imports the submodule sub
                    targets.add(f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) == 1:
        return len(LAYERS)  # magdomino itself: the face on top
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_checker_sees_a_cycle_and_an_upward_import():
    graph = {"magdomino.maths.a": {"magdomino.faces.b"}, "magdomino.faces.b": {"magdomino.maths.a"}, "magdomino.model.c": set()}
    assert cycles(graph) == [["magdomino.faces.b", "magdomino.maths.a"]]
    assert layer("magdomino.maths.a") < layer("magdomino.faces.b")


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_no_import_from_a_lower_layer_to_a_higher_one():
    upward = [f"{a} -> {b}" for a, targets in import_graph().items() for b in targets if layer(b) > layer(a) >= 0]
    assert upward == []


def test_no_module_over_600_lines():
    long = {module_name(p): n for p in ROOT.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_every_name_the_scripts_and_tests_import_from_the_package_exists():
    # a module moved or a name renamed must take its callers along (scripts/bench_* and validation/ run only by hand)
    import importlib
    import importlib.util

    missing = []
    for path in [*sorted((ROOT.parent / "scripts").glob("*.py")), *sorted((ROOT.parent / "validation").glob("*.py")),
                 *sorted((ROOT.parent / "tests").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("magdomino"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name) and importlib.util.find_spec(f"{node.module}.{alias.name}") is None:
                        missing.append(f"{path.name}: {node.module}.{alias.name}")
    assert missing == []


def where_things_live() -> dict[str, str]:
    """The rows of the table under "The layers" in docs/contributing.md: folder -> its text."""
    text = (ROOT.parent / "docs" / "contributing.md").read_text(encoding="utf-8")
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 2:
            folder = cells[0].split("`")[1].rstrip("/")
            rows["" if folder == "magdomino" else folder] = cells[1]
    return rows


def test_where_things_live_names_every_module_in_its_layer():
    # docs/contributing.md's table and the package tell the same story: every module is named
    # in the row of the layer (the folder) it lives in, and every module a row names exists there
    import re

    rows = where_things_live()
    assert set(rows) == {"", *LAYERS}, sorted(rows)
    unnamed, absent = [], []
    for layer_name, row in rows.items():
        folder = ROOT / layer_name if layer_name else ROOT
        files = {p.stem: p for p in folder.glob("*.py")}
        modules = {name for name, p in files.items() if name not in ("__init__", "__main__") and not _deprecated(p)}
        packages = {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()} if layer_name else set()
        named = set(re.findall(r"`([a-z_0-9]+)/?`", row))
        described = set(re.findall(r"`([a-z_0-9]+)/?` \(", row))  # a module with its job beside it
        unnamed += [f"{layer_name or 'magdomino'}: {m}" for m in sorted((modules | packages) - named)]
        absent += [f"{layer_name or 'magdomino'}: {m}" for m in sorted(described - set(files) - packages)]
    assert unnamed == [] and absent == [], (unnamed, absent)


def _deprecated(path: Path) -> bool:
    """An old module path kept for one version (it says so in its first line)."""
    return path.read_text(encoding="utf-8").startswith('"""Deprecated')
