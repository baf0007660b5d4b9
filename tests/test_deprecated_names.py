"""Old import paths keep working for one version, with a DeprecationWarning naming the new one."""

from __future__ import annotations

import importlib

import pytest

MOVED = [
    ("magdomino.physics.placement", "magdomino.physics.motion", "clear_motion"),
    ("magdomino.studies.placements", "magdomino.studies.placement_language", "parse_placement"),
]


@pytest.mark.parametrize("old, new, name", MOVED, ids=[m[0] for m in MOVED])
def test_an_old_module_path_warns_and_gives_the_new_modules_object(old, new, name):
    with pytest.warns(DeprecationWarning, match=new):
        got = getattr(importlib.import_module(old), name)
    assert got is getattr(importlib.import_module(new), name)


def test_an_odds_results_old_scenario_attribute_warns_and_gives_its_name():
    from magdomino.studies.odds import OddsResult

    result = OddsResult("demo", 1, "standard", True, [48.0, 24.0, 8.0], {}, (0.0, 0.0), [])
    with pytest.warns(DeprecationWarning, match="OddsResult.name"):
        assert result.scenario == "demo" == result.name


def test_the_settle_loop_imported_from_the_verdicts_module_warns_and_is_the_settle_modules():
    from magdomino.physics import settle as settle_module
    from magdomino.physics import verdict

    with pytest.warns(DeprecationWarning, match="magdomino.physics.settle"):
        assert verdict.settle is settle_module.settle
