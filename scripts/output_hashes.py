"""Hash the JSON of seeded runs of every command that computes, to show a change keeps outputs.

Runs ``magdomino simulate``, ``odds``, ``whatif`` on every bundled scenario and ``play`` and
``tournament`` on both tower rules (and ``play`` on the other games), with fixed seeds, and
prints one line per run: its SHA-256 (of the JSON with the keys that measure wall time and the
package version removed) and the command. Run it before and after a change and compare:

    python scripts/output_hashes.py > before.txt   # at the old commit
    python scripts/output_hashes.py > after.txt
    diff before.txt after.txt

``--root DIR`` runs the package found in DIR (a worktree of another commit) with the same
scenarios, so both lists can be made from one checkout. ``--jobs N`` runs N commands at once.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

UNSTABLE_KEYS = {"wall_time_s", "version", "elapsed_s", "seconds", "wall_s", "duration_s", "created", "generated"}
"""Keys whose values measure the machine or the moment, not the result."""


def scrub(value):
    """``value`` without the keys of :data:`UNSTABLE_KEYS` (at any depth)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in UNSTABLE_KEYS and not k.endswith("wall_time_s")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def free_tile(scenario: Path) -> str:
    """The first double-six tile (in pip order) that the scenario's structure does not use and
    that carries a number of the structure's last tile (so that it has placements)."""
    structure = tomllib.loads(scenario.read_text()).get("structure", [])
    used = {tuple(sorted(t["pips"])) for t in structure}
    numbers = set(structure[-1]["pips"]) if structure else set(range(7))
    for high in range(7):
        for low in range(high + 1):
            if (low, high) not in used and {low, high} & numbers:
                return f"{high},{low}"
    raise SystemExit(f"{scenario}: no free tile")


def commands() -> list[list[str]]:
    """Every run, as the arguments after ``magdomino`` (the JSON goes to stdout)."""
    runs = []
    for scenario in sorted((HERE / "scenarios").glob("*.toml")):
        path = str(scenario)
        runs.append(["simulate", path, "--json", "-"])
        runs.append(["odds", path, "--trials", "12", "--seed", "3", "--jobs", "1", "--json", "-"])
        runs.append(["odds", path, "--trials", "12", "--seed", "3", "--jobs", "1", "--engine", "dynamics", "--json", "-"])
        runs.append(
            ["whatif", path, "--tile", free_tile(scenario), "--trials", "4", "--seed", "5", "--jobs", "1", "--screen", "3", "--json", "-"]
        )
    for rule in ("defi", "quinconce"):
        for physics in ("statics", "pybullet"):
            runs.append(["play", "--rule", rule, "--players", "2", "--seed", "2", "--physics", physics, "--json", "-"])
        runs.append(["play", "--rule", rule, "--seed", "4", "--physics", "statics", "--seats", "careful,random,bold", "--json", "-"])
        runs.append(
            [
                "tournament",
                "--rule",
                rule,
                "--seats",
                "careful,random",
                "--deals",
                "2",
                "--seed",
                "1",
                "--physics",
                "statics",
                "--jobs",
                "1",
                "--json",
                "-",
            ]
        )
    for rule in ("traditional", "vingt", "matador", "echanges"):
        runs.append(["play", "--rule", rule, "--players", "3" if rule == "echanges" else "2", "--seed", "2", "--json", "-"])
    runs.append(
        ["tournament", "--rule", "traditional", "--seats", "greedy,random", "--deals", "4", "--seed", "1", "--jobs", "1", "--json", "-"]
    )
    return runs


def run(args: list[str], root: Path) -> str:
    """The hash line of one run."""
    env = dict(os.environ, PYTHONPATH=str(root), MPLBACKEND="Agg")
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-m", "magdomino", *args], capture_output=True, text=True, env=env, cwd=scratch, timeout=1800
        )
    if done.returncode != 0:
        return (
            f"exit {done.returncode:<59} magdomino {' '.join(args).replace(str(HERE), '<root>')}  # {done.stderr.strip().splitlines()[-1:]}"
        )
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        return f"{'no JSON':<64} magdomino {' '.join(args)}"
    text = json.dumps(scrub(document), sort_keys=True).replace(str(HERE), "<root>")
    return f"{hashlib.sha256(text.encode()).hexdigest()} magdomino {' '.join(args).replace(str(HERE), '<root>')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout whose package runs (default: this one)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", default="", help="run only the commands containing this text")
    options = parser.parse_args()
    runs = [r for r in commands() if options.only in " ".join(r)]
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for line in pool.map(lambda r: run(r, options.root.resolve()), runs):
            print(line, flush=True)


if __name__ == "__main__":
    main()
