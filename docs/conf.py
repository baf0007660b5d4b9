"""Sphinx configuration of magdomino's documentation site (built by ``scripts/docs``).

Sphinx with MyST-NB and the PyData theme (the Contributing page says why). The build is
strict: ``scripts/docs`` runs Sphinx nitpicky with every warning an error, so a broken
internal link, an unresolved cross-reference or a notebook that raises fails it. Nothing is
fetched while building (no intersphinx). Executed notebooks are cached by jupyter-cache under
a directory named by a hash of the package's code and the bundled scenarios, so a notebook
runs again when it or the code it calls changes, and never otherwise.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from sphinx.ext.napoleon import docstring
from sphinx.util.nodes import make_refnode

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import magdomino  # noqa: E402

project = "magdomino"
author = "the magdomino authors"
copyright = "the magdomino authors, MIT licence"
release = magdomino.__version__
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md", "api/_templates/**"]
templates_path = ["api/_templates"]

# -- MyST and notebooks -------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3


def _code_key() -> str:
    """A hash of everything a notebook's results depend on besides the notebook itself."""
    digest = hashlib.sha256()
    for folder in ("magdomino", "scenarios"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".toml"):
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


nb_execution_mode = os.environ.get("MAGDOMINO_DOCS_EXECUTE", "cache")
nb_execution_cache_path = str(ROOT / "build" / ".jupyter_cache" / _code_key())
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_in_temp = True    # the files a notebook writes (a GIF, a preset) stay out of docs/
nb_merge_streams = True
nb_output_stderr = "remove"     # progress bars and warnings on stderr are not part of a page

# -- Changelog: every commit, from git (the page's highlights are written by hand) ---------


def _commits() -> None:
    out = ROOT / "build" / "changelog_commits.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        log = subprocess.run(["git", "log", "--no-merges", "--date=short", "--format=%ad%x09%h%x09%s"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        log = ""
    lines, day = [], None
    for row in log.splitlines():
        date, commit, subject = row.split("\t", 2)
        if date != day:
            lines += ["", f"### {date}", ""]
            day = date
        subject = subject.replace("`", "'").replace("*", "\\*").replace("<", "&lt;")
        lines.append(f"- `{commit}` {subject}")
    text = "\n".join(lines) + "\n" if lines else "(no git history in this copy)\n"
    if not out.is_file() or out.read_text() != text:
        out.write_text(text)


_commits()

# -- API reference --------------------------------------------------------------------------
# autosummary writes a page per module into api/generated and never removes one: a module
# renamed or gone would keep its page (and fail the strict build). Those pages go (only
# those: a build running beside this one keeps every page it reads).
for _page in (Path(__file__).parent / "api" / "generated").glob("magdomino*.rst"):
    try:
        _gone = importlib.util.find_spec(_page.stem) is None
    except ModuleNotFoundError:  # its package is gone too
        _gone = True
    if _gone:
        _page.unlink(missing_ok=True)
autosummary_generate = True
autosummary_imported_members = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "undoc-members": True, "ignore-module-all": True}

napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_param = False
napoleon_use_rtype = False
napoleon_use_ivar = False
# An attribute's type is free text (shapes and units: "ndarray, shape (n, 3), m"), as a
# parameter's is: rendered as written, not parsed into cross-references.
napoleon_custom_sections = [("Attributes", "params_style"), ("Fields", "params_style")]

# Third-party names the docstrings mention as types: without intersphinx (nothing is fetched
# while building) they cannot resolve, and they are not ours to document.
nitpick_ignore_regex = [
    ("py:.*", r"(numpy|np|scipy|pybullet|trimesh|matplotlib|plotly|pandas|pd|dask|distributed|pyspiel|"
              r"open_spiel|pettingzoo|gymnasium|nicegui|PIL|imageio|concurrent|collections|typing|pathlib|"
              r"json|argparse|io|os|subprocess|multiprocessing|tomllib|dataclasses|enum|abc|random)(\..*)?"),
]


def _lookup(path: str):
    """The object a dotted path names in the code (a module, then attributes), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return None
        return obj
    return None


_MISSING = object()


def _in_code(target: str, module: str, cls: str):
    """What a reference names in the code, tried as written, then from the referring class
    and module and the packages above it; _MISSING when it names nothing."""
    places = [target]
    if module:
        if cls:
            places.append(f"{module}.{cls}.{target}")
        parts = module.split(".")
        places += [".".join(parts[:n] + [target]) for n in range(len(parts), 0, -1)]
    for place in places:
        obj = _lookup(place)
        if obj is not None:
            return obj
    # A helper named from another module of the package (a module docstring that speaks of
    # its package's private helpers): found where the package defines it.
    head, _, rest = target.partition(".")
    for name, mod in sorted(sys.modules.items()):
        if name.startswith("magdomino.") and mod is not None and head in vars(mod):
            obj = _lookup(f"{name}.{target}")
            if obj is not None:
                return obj
    return _MISSING


def _short_names(app, env, node, contnode):
    """Resolve the Python references the domain could not.

    Docstrings name objects as a reader of the module would: by a short name
    (``InputError``, ``Action.sort_key``), or where a package re-exports them
    (``magdomino.maths.magnets.TileMagnets``). Among the documented objects whose name ends
    with the reference, the one nearest the referring module wins (the longest common package
    path; a tie stays unresolved); else the object the name finds in the code links to where
    it is documented. A module constant without a docstring of its own (``DRAW``,
    ``OVERLAP_TOLERANCE_M``) is not documented: a reference to it that names something in
    the code is shown as code without a link. A name the code does not have stays
    unresolved, and the build fails on it.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip(".~")
    if not target:
        return None
    domain = env.get_domain("py")

    def link(name):
        obj = domain.objects[name]
        return make_refnode(app.builder, node["refdoc"], obj.docname, obj.node_id, contnode, name)

    module = node.get("py:module") or ""
    here = module.split(".")

    def nearness(name):
        parts = name.split(".")
        n = 0
        while n < min(len(parts), len(here)) and parts[n] == here[n]:
            n += 1
        return n

    suffix = "." + target
    found = [name for name in domain.objects if name.endswith(suffix) or name == target]
    if found:
        best = max(nearness(name) for name in found)
        found = [name for name in found if nearness(name) == best]
        if len(found) == 1:
            return link(found[0])
    obj = _in_code(target, module, node.get("py:class") or "")
    if obj is _MISSING:
        return None
    real = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
    if real in domain.objects:
        return link(real)
    if getattr(obj, "__name__", None) in domain.objects:      # a module
        return link(obj.__name__)
    return contnode


def _prose_attribute_docstrings():
    """A constant's or an attribute's docstring is prose: napoleon would read the words
    before its first colon as a type ("Tilt margins (degrees) under which...: ...")."""
    docstring.GoogleDocstring._parse_attribute_docstring = lambda self: self._consume_to_end()


_prose_attribute_docstrings()


def setup(app):
    app.connect("missing-reference", _short_names)


# -- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "magdomino"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_end": ["navbar-icon-links"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_show_sourcelink = False
html_copy_source = False
suppress_warnings = ["mystnb.unknown_mime_type"]
