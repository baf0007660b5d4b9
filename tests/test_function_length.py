"""No function longer than a reader can hold: at most :data:`MAX_LINES` lines, or a reason at its top.

A function is measured from its ``def`` line to its last line (docstring included). A longer
one says why on a comment line right after its signature, before its docstring::

    def settle(world, watched, ...) -> Verdict:
        # long: the step loop and its criteria share one state ...
        \"\"\"Step ``world`` until ...\"\"\"

(``docs/contributing.md``, "Style"). Ruff counts statements, not lines, so this is a test.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("magdomino", "scripts", "validation", "tests")
MAX_LINES = 80
MARKER = "# long:"


def long_functions(source: str, max_lines: int = MAX_LINES) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function of ``source`` over ``max_lines`` lines
    without a ``# long: <reason>`` line between its ``def`` and its first statement."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = node.end_lineno - node.lineno + 1
        head = lines[node.lineno - 1:node.body[0].lineno - 1]  # the signature and the comment lines after it
        reason = any(line.strip().startswith(MARKER) and line.strip()[len(MARKER):].strip() for line in head)
        if length > max_lines and not reason:
            found.append((node.name, node.lineno, length))
    return found


def test_no_function_over_80_lines_without_a_reason_at_its_top():
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            for name, line, length in long_functions(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT)}:{line} {name}: {length} lines")
    assert found == []


BODY = "    x = 1\n" * 4


@pytest.mark.parametrize("source, expected", [
    (f"def f():\n{BODY}", [("f", 1, 5)]),
    (f"def f():\n    # long: one loop's shared state\n{BODY}", []),
    (f"def f():\n    # long:\n{BODY}", [("f", 1, 6)]),  # a marker without its reason
    (f"def f():\n    \"\"\"Doc.\"\"\"\n    # long: after the docstring is too late\n{BODY}", [("f", 1, 7)]),
    (f"class C:\n    def m(\n        self,\n    ):\n        # long: why\n{BODY.replace('    ', '        ')}", []),
])
def test_the_rule_finds_a_long_function_and_reads_its_reason(source, expected):
    assert long_functions(source, max_lines=4) == expected
