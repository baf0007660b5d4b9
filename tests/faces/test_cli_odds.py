"""`magdomino odds` and `magdomino sweep` from the command line: documents, bad input as one
line with exit status 2, and a run killed mid-way that resumes to the identical result."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

from magdomino.studies.odds import estimate_odds
from magdomino.studies.scenario import load_scenario

STATICS = ROOT / "scenarios" / "odds_statics.toml"


@pytest.fixture(scope="module")
def statics():
    return load_scenario(STATICS)


@pytest.mark.slow
def test_cli_run_killed_mid_way_resumes_to_the_identical_result(statics, tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "magdomino", "odds", str(STATICS), "--trials", "40", "--jobs", "1",
            "--out-dir", str(out), "--json", str(tmp_path / "odds.json")]
    log = out / "odds.jsonl"
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if log.exists() and log.read_text().count("\n") > 15:
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the CLI, its forkserver and its workers
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    done = log.read_text().count("\n") - 1
    assert 0 < done < 120
    again = subprocess.run([*args, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    resumed = json.loads((tmp_path / "odds.json").read_text())
    assert resumed.pop("scenario_file") == str(ROOT / "scenarios" / "odds_statics.toml")  # what the command line adds
    assert resumed == estimate_odds(statics, 40, executor="serial").to_dict()
    assert "p =" in again.stdout and "[" in again.stdout


def test_cli_odds_and_sweep(cli, tmp_path):
    res = cli("odds", STATICS, "--trials", "6", "--jobs", "1", "--json", tmp_path / "o.json", "--plot", tmp_path / "o.png",
              "--pos-sigma-mm", "0.5", "--drop-mm", "0", "1", "--engine", "dynamics")
    assert res.returncode == 0, res.stderr
    doc = json.loads((tmp_path / "o.json").read_text())
    assert {"version", "seed", "preset", "tile_size_mm", "noise", "results"} <= set(doc)
    assert doc["seed"] == 7 and doc["noise"]["pos_sigma_mm"] == 0.5 and doc["noise"]["drop_mm"] == [0.0, 1.0]
    assert [r["what_if"] for r in doc["results"]] == [0, 1, 2]
    assert {"what_if", "trials", "collapses", "errors", "undecided", "p_collapse", "ci95"} <= set(doc["results"][0])
    assert "6 trials, 0 collapses, 0 errors, 0 undecided" in res.stdout
    for r in doc["results"]:  # beside the shifted count: the share with its interval (JSON) and the median shift
        assert {"shift_share", "shift_ci95", "median_shift_mm"} <= set(r) and 0 <= r["shift_share"] <= 1
        line = next(line for line in res.stdout.splitlines() if f"what-if {r['what_if']}:" in line)
        assert line.endswith(f"{r['shifts']} shifted, median shift {r['median_shift_mm']:.2f} mm")
    assert (tmp_path / "o.png").stat().st_size > 1000
    assert len(res.stdout.splitlines()) >= 3 and res.stderr == ""
    res = cli("sweep", STATICS, "--param", "pos_sigma_mm", "--values", "0.5", "1", "--trials", "3", "--jobs", "1",
              "--json", tmp_path / "s.json", "--plot", tmp_path / "s.png")
    assert res.returncode == 0, res.stderr
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["param"] == "pos_sigma_mm" and len(doc["results"]) == 2
    assert (tmp_path / "s.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "args, says",
    [
        (["odds", STATICS, "--trials", "0"], "--trials"),
        (["odds", STATICS, "--trials", "5", "--pos-sigma-mm", "-1"], "--pos-sigma-mm"),
        (["odds", STATICS, "--trials", "5", "--precision", "0"], "--precision"),
        (["sweep", STATICS, "--param", "gravity", "--values", "1", "--trials", "5"], "--param"),
        (["sweep", STATICS, "--param", "pos_sigma_mm", "--values", "-1", "--trials", "5"], "--values"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(args, says, capsys):
    from magdomino.faces.cli import main

    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "Traceback" not in err


def test_cli_out_dir_that_is_a_file_is_one_line_exit_2(tmp_path, capsys):
    from magdomino.faces.cli import main

    (tmp_path / "f").write_text("")
    assert main(["odds", str(STATICS), "--trials", "2", "--jobs", "1", "--out-dir", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out-dir" in err


def test_the_command_leaves_quickly_with_everything_written(cli, tmp_path):
    """`magdomino` ends with os._exit once done (faces.cli.run): its streams are flushed and
    the exit handlers run first, so a JSON document on a pipe and the trial log are whole."""
    res = cli("odds", STATICS, "--trials", "5", "--jobs", "2", "--what-if", "1", "--json", "-", "--out-dir", tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["results"][0]["trials"] == 5
    lines = (tmp_path / "odds.jsonl").read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line) for line in lines)


def test_output_into_a_pipe_closed_early_is_not_an_error():
    """`magdomino play ... --json - | head -c 10`: the reader goes after 10 bytes of a record
    larger than a pipe holds; the command still ends with status 0 and no traceback (its
    quick exit flushes what it can)."""
    args = [sys.executable, "-m", "magdomino", "play", "--rule", "traditional", "--players", "2", "--deals", "12", "--json", "-"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "Exception" not in err, err
