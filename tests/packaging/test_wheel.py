"""The package works when installed from a wheel, away from the checkout (presets included)."""

import subprocess
import sys
import venv

import pytest
from conftest import ROOT


@pytest.mark.slow
def test_a_wheel_installed_elsewhere_finds_its_presets_and_simulates(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(dist.glob("magdomino-*.whl"))
    env_dir = tmp_path / "env"
    # The new environment sees this one's packages (pybullet, numpy, ...) but not the
    # editable checkout: only the wheel's magdomino is importable there.
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    site = subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    target = tmp_path / "site"
    inst = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=600,
    )
    assert inst.returncode == 0, inst.stderr[-2000:]
    python = env_dir / "bin" / "python"
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {"PYTHONPATH": f"{target}:{site}", "PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"}
    where = subprocess.run(
        [str(python), "-c", "import magdomino, sys; print(magdomino.__file__)"],
        capture_output=True, text=True, cwd=away, env=env,
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(str(target)), where.stdout  # the wheel's copy, not the checkout
    shown = subprocess.run(
        [str(python), "-m", "magdomino", "presets", "standard"], capture_output=True, text=True, cwd=away, env=env,
    )
    assert shown.returncode == 0, shown.stderr
    assert '"name": "standard"' in shown.stdout
    run = subprocess.run(
        [str(python), "-m", "magdomino", "simulate", str(ROOT / "scenarios" / "demo.toml")],
        capture_output=True, text=True, cwd=away, env=env, timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "what-if 1" in run.stdout and "COLLAPSED" in run.stdout
