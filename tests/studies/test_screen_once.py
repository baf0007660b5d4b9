"""The statics' stress tests are defined once: the screen owns them, the hybrid engine uses them.

References: the source of both modules (an AST reading, so a constant copied back into the
hybrid engine is found even when its value is equal) and the screen's own objects.
"""

import ast
import inspect

from magdomino.physics import statics_screen
from magdomino.studies import hybrid_engine

SHARED = ("StressTest", "AT_REST", "GRIP", "TIPS", "TIPS_BARE")
"""What the screen defines and the hybrid engine only imports."""


def _module_names(module) -> tuple[set, set]:
    """The names a module assigns at its top level, and the functions and classes it defines there."""
    tree = ast.parse(inspect.getsource(module))
    assigned, defined = set(), set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        assigned |= {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
    return assigned, defined


def test_the_hybrid_engine_defines_no_test_of_the_screen_and_uses_the_screens_objects():
    assigned, defined = _module_names(hybrid_engine)
    assert not (assigned | defined) & set(SHARED)
    for name in SHARED:
        assert getattr(hybrid_engine, name) is getattr(statics_screen, name), name


def test_every_stress_test_of_both_modules_is_a_stress_test_of_six_fields():
    for module in (statics_screen, hybrid_engine):
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, tuple) and value and isinstance(value[0], tuple):
                value_tests = value
            elif name.isupper() and isinstance(value, tuple) and len(value) in (3, 5, 6):
                value_tests = (value,)
            else:
                continue
            for test in value_tests:
                if all(isinstance(x, float) for x in test):
                    assert isinstance(test, statics_screen.StressTest), (module.__name__, name)
    assert len(statics_screen.AT_REST) == 6 and statics_screen.AT_REST == (1.0, 1.0, 1.0, 0.0, 0.0, 1.0)


def test_the_screen_and_the_hybrid_share_no_function_name():
    _, screen_defined = _module_names(statics_screen)
    _, hybrid_defined = _module_names(hybrid_engine)
    assert not screen_defined & hybrid_defined
