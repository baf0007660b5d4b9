"""Bad input and interruptions from the command line: one line naming the flag or
the file and key, exit status 2, before any work; never a traceback, never a hang; SIGINT and
SIGTERM end every process of the run and leave a log that resumes to the identical result."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

STATICS = ROOT / "scenarios" / "odds_statics.toml"
ONE_TILE = 'name = "one"\npreset = "plain"\nmagnets = false\n[[structure]]\npips = [6, 6]\npos_mm = [0, 0]\n'
FAST = "[collapse]\ntime_limit_s = 0.2\nsettle_hold_s = 0.05\n"


def _preset(tmp_path, tile="mass_g = 10\n", solver="", collapse=FAST, colours="") -> Path:
    path = tmp_path / "p.toml"
    path.write_text(
        f'name = "p"\n[tile]\nsize_mm = [48, 24, 8]\n{tile}{colours}\n'
        + (f"[solver]\n{solver}\n" if solver else "")
        + collapse
    )
    return path


def _scenario(tmp_path, text: str, name="s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _refused(res, *words, timeout_note=""):
    """Exit 2, one line on stderr that holds every word, nothing on stdout, no traceback."""
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr[-2000:])
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("magdomino: "), res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def _run(*args, timeout=60, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "magdomino", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


# -- 1, 5, 8: values that pass a type check but make no physical sense ---------------------


@pytest.mark.parametrize("tile, solver, collapse, says", [
    ("mass_g = 10\n", "", "[collapse]\ntime_limit_s = 1e12\nsettle_hold_s = 1e11\n", "collapse.time_limit_s: expected a number in (0, 60]"),
    ("mass_g = 10\n", "time_step_s = 1e-9\n", FAST, "solver.time_step_s: expected a number in [1e-05,"),
    ("mass_g = 10\n", "iterations = 1e13\n", FAST, "solver.iterations: expected a whole number in [1, 1000]"),
    ("mass_g = 10\n", "time_step_s = 1e-5\n", "[collapse]\ntime_limit_s = 60\n", "at most 2,000,000 steps"),
])
def test_settings_that_would_hang_are_refused_with_the_bound(tmp_path, tile, solver, collapse, says):
    _preset(tmp_path, tile, solver, collapse)
    scenario = _scenario(tmp_path, ONE_TILE.replace('"plain"', '"p.toml"'))
    _refused(_run("simulate", scenario, timeout=30), "p.toml", says)


def test_an_absurd_mass_is_refused_not_counted_as_a_collapse(tmp_path):
    _preset(tmp_path, tile="mass_g = 1e20\n")
    scenario = _scenario(tmp_path, ONE_TILE.replace('"plain"', '"p.toml"'))
    _refused(_run("simulate", scenario), "tile.mass_g", "(0, 1000]")
    noisy = _scenario(tmp_path, ONE_TILE + "[noise]\nmass_rel_sigma = 1e300\n", "n.toml")
    _refused(_run("odds", noisy, "--trials", "2", "--jobs", "1"), "n.toml: noise.mass_rel_sigma", "[0, 1]")
    _refused(_run("odds", STATICS, "--trials", "2", "--jobs", "1", "--mass-rel-sigma", "1e300"), "--mass-rel-sigma", "[0, 1]")


def test_a_slide_from_a_kilometre_is_refused(tmp_path):
    scenario = _scenario(tmp_path, ONE_TILE + "[[what_if]]\npips = [6, 5]\npos_mm = [60, 0]\nslide_mm = [1e9, 0]\n")
    _refused(_run("simulate", scenario, timeout=30), "what_if[0].slide_mm", "500 mm")


# -- 2: every command refuses what simulate refuses -----------------------------------------

INSIDE = {
    "structure": ONE_TILE + "[[structure]]\npips = [6, 5]\npos_mm = [0, 0, 4]\n",
    "what-if": ONE_TILE + "[[what_if]]\npips = [6, 5]\npos_mm = [5, 0, 4]\n",
}


@pytest.mark.parametrize("where", sorted(INSIDE))
@pytest.mark.parametrize("command", [
    ["simulate"], ["odds", "--trials", "4", "--jobs", "1"],
    ["sweep", "--trials", "4", "--jobs", "1", "--param", "pos_sigma_mm", "--values", "1", "2"],
    ["whatif", "--tile", "1,2", "--trials", "2", "--jobs", "1"],
])
def test_every_command_refuses_a_tile_inside_another(tmp_path, where, command):
    scenario = _scenario(tmp_path, INSIDE[where])
    key = "structure[1].pos_mm" if where == "structure" else "what_if[0].pos_mm"
    _refused(_run(command[0], scenario, *command[1:]), f"s.toml: {key}", "inside structure[0]")


# -- 3, 11: smaller scenario and preset checks ---------------------------------------------


def test_a_float_half_is_one_line(tmp_path):
    scenario = _scenario(tmp_path, ONE_TILE + "[[structure]]\npips = [6, 5]\non = { tile = 0, half = 1.0 }\n")
    _refused(_run("simulate", scenario), "structure[1].on.half: expected 0 or 1, got 1.0")


def test_a_description_must_be_text(tmp_path):
    _refused(_run("simulate", _scenario(tmp_path, "description = 5\n" + ONE_TILE)), "s.toml: description")


def test_a_bad_colour_is_refused_before_the_plot(tmp_path):
    _preset(tmp_path, colours='colours = ["#-1-1-1"]\n')
    scenario = _scenario(tmp_path, ONE_TILE.replace('"plain"', '"p.toml"'))
    _refused(_run("simulate", scenario, "--plot", tmp_path / "x.png"), "tile.colours[0]")


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + ONE_TILE.encode())
    res = _run("simulate", path, "--json", "-")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["name"] == "one"


# -- 6: --jobs ------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["0", "-3"])
@pytest.mark.parametrize("extra", [[], ["--scheduler", "local"]])
def test_sweep_checks_jobs(jobs, extra):
    res = _run("sweep", STATICS, "--trials", "2", "--jobs", jobs, *extra, "--param", "pos_sigma_mm", "--values", "1", timeout=30)
    _refused(res, "--jobs", ">= 1")


def test_more_jobs_than_trials_are_capped_and_said(tmp_path):
    res = _run("odds", STATICS, "--trials", "2", "--what-if", "0", "--jobs", "999", "--json", tmp_path / "o.json")
    assert res.returncode == 0, res.stderr
    assert "999 workers asked for 2 trials; starting 2" in res.stderr


# -- 9: outputs checked before any work ----------------------------------------------------


@pytest.mark.parametrize("flag, name, says", [("--gif", "out.txt", "a .gif file"), ("--plot", "x.xyz", "a figure file")])
def test_outputs_are_checked_before_the_simulation(tmp_path, flag, name, says):
    start = time.monotonic()
    _refused(_run("simulate", ROOT / "scenarios" / "demo.toml", flag, tmp_path / name), flag, says)
    assert time.monotonic() - start < 20  # the demo's simulation alone takes longer on this machine


def test_plot_suffix_checked_for_odds_too(tmp_path):
    _refused(_run("odds", STATICS, "--trials", "2", "--plot", tmp_path / "x.xyz"), "--plot")


# -- 10: --json - ----------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["simulate", STATICS],
    ["play", "--rule", "defi", "--players", "2", "--physics", "none"],
    ["play", "--rule", "vingt", "--players", "2"],
    ["odds", STATICS, "--trials", "2", "--jobs", "1"],
    ["sweep", STATICS, "--trials", "2", "--jobs", "1", "--what-if", "0", "--param", "pos_sigma_mm", "--values", "1"],
    ["whatif", STATICS, "--tile", "6,1", "--trials", "2", "--jobs", "1"],
])
def test_json_to_stdout_is_json_alone(args):
    res = _run(*args, "--json", "-", timeout=120)
    assert res.returncode == 0, res.stderr
    json.loads(res.stdout)  # nothing else on stdout
    assert res.stderr.strip(), "the text went to stderr"


def test_presets_prints_json_alone():
    res = _run("presets", "standard")
    assert res.returncode == 0 and json.loads(res.stdout)["name"] == "standard"


# -- 11: play's preset, the flags' names, resume ---------------------------------------------


def test_play_preset_without_physics_is_refused():
    # the flat game plays without physics by default (the tower rules with pybullet)
    _refused(_run("play", "--rule", "traditional", "--players", "2", "--preset", "nosuch"), "--preset", "--physics dynamics")
    _refused(_run("play", "--rule", "defi", "--players", "2", "--physics", "none", "--preset", "nosuch"), "--preset")


def test_play_unknown_preset_is_named_as_the_flag():
    line = _refused(_run("play", "--rule", "defi", "--players", "2", "--physics", "pybullet", "--preset", "nosuch"))
    assert line.startswith("magdomino: command line: --preset: unknown preset") and "'nosuch'" in line


def test_a_reversed_drop_range_names_the_flag():
    _refused(_run("odds", STATICS, "--trials", "2", "--drop-mm", "2", "1"), "command line: --drop-mm", "low <= high")


def test_resume_with_nothing_to_resume_names_the_directory(tmp_path):
    _refused(_run("odds", STATICS, "--trials", "2", "--out-dir", tmp_path / "run", "--resume"),
             str(tmp_path / "run"), "nothing to resume")
    assert not (tmp_path / "run" / "odds.jsonl").exists()


def _log(tmp_path) -> Path:
    """A finished 6-trial run of what-if 0 (serial: no pool) and its log."""
    res = _run("odds", STATICS, "--trials", "6", "--what-if", "0", "--jobs", "1", "--out-dir", tmp_path / "run",
               "--json", tmp_path / "full.json")
    assert res.returncode == 0, res.stderr
    return tmp_path / "run" / "odds.jsonl"


def _resume(tmp_path):
    return _run("odds", STATICS, "--trials", "6", "--what-if", "0", "--jobs", "1", "--out-dir", tmp_path / "run",
                "--resume", "--json", tmp_path / "resumed.json")


def test_logs_garbage_last_line_is_dropped_and_the_trial_run_again(tmp_path):
    log = _log(tmp_path)
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-2]) + "}{ not a record\n")
    res = _resume(tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "resumed.json").read_text()) == json.loads((tmp_path / "full.json").read_text())
    assert "not a record" not in log.read_text()


def test_logs_damage_in_the_middle_is_refused_and_the_file_left_alone(tmp_path):
    log = _log(tmp_path)
    lines = log.read_text().splitlines(keepends=True)
    damaged = "".join(lines[:2]) + "garbage\n" + "".join(lines[2:])
    log.write_text(damaged)
    _refused(_resume(tmp_path), "line 3", "damaged")
    assert log.read_text() == damaged


def test_a_cut_off_header_is_refused_and_the_file_left_alone(tmp_path):
    log = _log(tmp_path)
    cut = log.read_text()[:40]
    log.write_text(cut)
    for _ in range(2):  # the first refusal must not have changed what the second reads
        _refused(_resume(tmp_path), "no header line")
        assert log.read_text() == cut


# -- 4, 7: SIGINT and SIGTERM during odds --jobs 2 -------------------------------------------


def _session_processes(sid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process in session ``sid``, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid:  # state, ppid, pgrp, session
            found.append((int(entry), fields[0]))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum, to_group, status", [
    (signal.SIGINT, True, 130),    # Ctrl-C: the terminal signals the whole foreground group
    (signal.SIGTERM, False, 143),  # kill PID: the main process alone
])
def test_an_interrupted_run_leaves_no_process_and_resumes_to_the_identical_result(tmp_path, signum, to_group, status):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "magdomino", "odds", str(STATICS), "--trials", "40", "--jobs", "2", "--out-dir", str(out)]
    log = out / "odds.jsonl"
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if log.exists() and log.read_text().count("\n") > 3:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before the signal"
        (os.killpg if to_group else os.kill)(proc.pid, signum)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == status, stderr
    assert stderr == "magdomino: interrupted\n"
    deadline = time.monotonic() + 10  # killed workers wait a moment in the zombie state for init
    while _session_processes(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session_processes(proc.pid) == []
    done = log.read_text().count("\n") - 1
    assert 0 < done < 120, "the run finished before it was interrupted"
    resumed = subprocess.run([*args, "--resume", "--json", str(tmp_path / "resumed.json")], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    whole = subprocess.run([*args[:-1], str(tmp_path / "whole"), "--json", str(tmp_path / "whole.json")], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert whole.returncode == 0, whole.stderr
    assert json.loads((tmp_path / "resumed.json").read_text()) == json.loads((tmp_path / "whole.json").read_text())


def _cmdlines(sid: int) -> list[str]:
    lines = []
    for pid, _ in _session_processes(sid):
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return lines


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interruption_while_the_workers_start_is_one_line(tmp_path, signum, status):
    """The signal reaches the whole group as soon as the forkserver exists: while it and the
    workers import their modules and a worker is half started."""
    args = [sys.executable, "-m", "magdomino", "odds", str(STATICS), "--trials", "40", "--jobs", "2", "--out-dir", str(tmp_path)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline and not any("forkserver" in c for c in _cmdlines(proc.pid)):
            time.sleep(0.005)
        os.killpg(proc.pid, signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, stderr) == (status, "magdomino: interrupted\n")
    deadline = time.monotonic() + 10
    while _session_processes(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session_processes(proc.pid) == []
