import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args, cwd=None):
    """Run ``python -m magdomino ARGS`` in a subprocess; returns CompletedProcess (text)."""
    return subprocess.run(
        [sys.executable, "-m", "magdomino", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=600,
    )


@pytest.fixture
def cli():
    return run_cli


def pytest_collection_modifyitems(items):
    # The tests marked slow (a minute each: whole games in the browser, the docs site, the
    # validation set) run first, so that the workers share them instead of one worker
    # finishing them after the rest (the suite's last minute was those few tests alone).
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
