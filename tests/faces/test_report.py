"""``magdomino report``: one self-contained page from every kind of JSON the tool writes.

The documents are made here by the commands themselves (small runs: statics or no physics);
the page is checked against them (each placement, interval and score appears, every picture
is a PNG or GIF that Pillow decodes), then opened in headless Chromium: no console error,
every image decoded by the browser, a screenshot that is not blank.
"""

import base64
import html
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from browser import browser_check, not_blank
from conftest import ROOT, run_cli

SCENARIOS = ROOT / "scenarios"

RUNS = {
    "simulate": ["simulate", SCENARIOS / "demo.toml", "--engine", "statics", "--json"],
    "odds": ["odds", SCENARIOS / "demo.toml", "--trials", "6", "--jobs", "1", "--engine", "statics", "--json"],
    "sweep": ["sweep", SCENARIOS / "demo.toml", "--trials", "4", "--jobs", "1", "--engine", "statics",
              "--param", "pos_sigma_mm", "--values", "0.5", "2", "--json"],
    "whatif": ["whatif", SCENARIOS / "whatif_step.toml", "--tile", "2,4", "--rule", "defi", "--trials", "2", "--jobs", "1",
               "--engine", "dynamics", "--json"],
    "traditional": ["play", "--rule", "traditional", "--players", "2", "--seed", "3", "--physics", "none", "--json"],
    "defi": ["play", "--rule", "defi", "--players", "2", "--seed", "1", "--physics", "none", "--json"],
    "quinconce": ["play", "--rule", "quinconce", "--players", "3", "--seed", "2", "--physics", "none", "--json"],
    "matador": ["play", "--rule", "matador", "--players", "2", "--seed", "1", "--json"],
    "echanges": ["play", "--rule", "echanges", "--players", "3", "--seed", "1", "--json"],
    "vingt": ["play", "--rule", "vingt", "--players", "2", "--seed", "1", "--json"],
    "tournament": ["tournament", "--rule", "traditional", "--seats", "greedy,random", "--deals", "4", "--json"],
}
"""One small run per kind of document (and per record layout of play)."""


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    """name -> path of a JSON document written by the command of RUNS."""
    folder = tmp_path_factory.mktemp("results")
    out = {}
    for name, args in RUNS.items():
        path = folder / f"{name}.json"
        r = run_cli(*args, path)
        assert r.returncode == 0, r.stderr
        out[name] = path
    return out


def report(*args, cwd=None):
    return run_cli("report", *args, cwd=cwd)


_IMG = re.compile(r'<img src="data:(image/(?:png|gif));base64,([A-Za-z0-9+/=]+)" alt="([^"]*)"')


def images(page: str) -> list[tuple[str, object]]:
    """(alt, PIL image) of every <img> of the page, decoded here by Pillow."""
    from PIL import Image

    found = []
    for mime, data, alt in _IMG.findall(page):
        image = Image.open(io.BytesIO(base64.b64decode(data, validate=True)))
        image.load()
        assert image.format == mime.split("/")[1].upper()
        found.append((alt, image))
    return found


def assert_self_contained(page: str) -> None:
    # Nothing fetched: no script, no external source or style sheet, every <img> embedded.
    assert "<script" not in page.lower()
    assert not re.search(r'(src|href)="(https?:|//|file:)', page)
    assert "url(" not in page
    assert page.count("<img ") == len(_IMG.findall(page))


def _cells(page: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", page)


def _section(page: str, kind: str) -> str:
    return re.search(rf'<section id="doc\d+" class="kind-{kind}">(.*?)</section>', page, re.S).group(1)


# -- each kind ----------------------------------------------------------------------------


def _expect_odds_rows(page: str, results: list) -> None:
    cells = _cells(page)
    for r in results:
        lo, hi = r["ci95"]
        assert f"[{lo:.3f}, {hi:.3f}]" in cells
        assert r["placement"] in cells


def test_report_simulate(docs, tmp_path):
    doc = json.loads(docs["simulate"].read_text())
    out = tmp_path / "r.html"
    r = report(docs["simulate"], "--out", out, "--scenarios", SCENARIOS)
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert_self_contained(page)
    section = _section(page, "simulate")
    cells = _cells(section)
    for w in doc["what_if"]:
        assert w["placement"] in cells
        assert ("collapsed" if w["collapsed"] else "stands") in cells
    # the structure and each what-if rendered from the scenario file
    alts = [alt for alt, _ in images(section)]
    assert alts[0] == "the settled structure"
    assert len(alts) == 1 + len(doc["what_if"])


def test_report_odds_and_sweep(docs, tmp_path):
    out = tmp_path / "r.html"
    r = report(docs["odds"], docs["sweep"], "--out", out, "--no-renders")
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert_self_contained(page)
    odds = json.loads(docs["odds"].read_text())
    _expect_odds_rows(_section(page, "odds"), odds["results"])
    sweep = json.loads(docs["sweep"].read_text())
    section = _section(page, "sweep")
    for entry in sweep["results"]:
        _expect_odds_rows(section, entry["results"])
    # one row per (swept value, what-if)
    assert section.count("<tr>") - 1 == len(sweep["values"]) * len(sweep["results"][0]["results"])
    for kind in ("odds", "sweep"):
        pictures = images(_section(page, kind))
        assert len(pictures) == 1 and pictures[0][1].size[0] > 100


def test_report_whatif_ranking_in_order(docs, tmp_path):
    doc = json.loads(docs["whatif"].read_text())
    out = tmp_path / "r.html"
    r = report(docs["whatif"], "--out", out, "--scenarios", SCENARIOS)
    assert r.returncode == 0, r.stderr
    section = _section(out.read_text(), "whatif")
    descriptions = [c["placement"]["description"] for c in doc["candidates"]]
    where = [section.index(d) for d in descriptions]
    assert where == sorted(where)  # the ranking's order, safest first
    alts = [alt for alt, _ in images(section)]
    # the ranking's plot, the settled structure, then each candidate where it came to rest
    assert alts[1] == "the settled structure"
    assert alts[2:] == [f"{k + 1}. {d}: where it came to rest" for k, d in enumerate(descriptions)]
    # beside p(collapse): the shift share, its interval and the median shift of each candidate
    heads = re.findall(r"<th>(.*?)</th>", section)
    assert heads[4:9] == ["p(collapse)", "95 % interval", "shift share", "shift 95 % interval", "median shift"]
    for c in doc["candidates"]:
        lo, hi = c["shift_ci95"]
        row = next(tr for tr in re.findall(r"<tr>(.*?)</tr>", section) if c["placement"]["description"] in tr)
        assert f">{c['shift_share']:.3f}<" in row and f"[{lo:.3f}, {hi:.3f}]" in row  # probabilities to three decimals
        assert f">{c['median_shift_mm']:.3g} mm<" in row


def test_report_whatif_shows_a_push(docs, tmp_path):
    """A candidate that stood but pushed the structure (shifted in 3 of 4 trials, 22 mm):
    its row says so, and the plot is drawn with the column; a document without the shift
    keys (an older one) still reports, with dashes."""
    doc = json.loads(docs["whatif"].read_text())
    first = doc["candidates"][0]
    doc["candidates"][0] = {**first, "shift_share": 0.75, "shift_ci95": [0.3, 0.95], "median_shift_mm": 22.0}
    older = {**doc, "candidates": [{k: v for k, v in c.items() if k not in ("shift_share", "shift_ci95", "median_shift_mm")}
                                   for c in doc["candidates"]]}
    (tmp_path / "push.json").write_text(json.dumps(doc))
    (tmp_path / "older.json").write_text(json.dumps(older))
    out = tmp_path / "r.html"
    r = report(tmp_path / "push.json", tmp_path / "older.json", "--out", out, "--no-renders")
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    pushed, old = re.findall(r'<section id="doc\d+" class="kind-whatif">(.*?)</section>', page, re.S)
    row = next(tr for tr in re.findall(r"<tr>(.*?)</tr>", pushed) if first["placement"]["description"] in tr)
    assert '<td class="num">0.750</td><td>[0.300, 0.950]</td><td class="num">22 mm</td>' in row
    assert "fewer shifts rank first" in pushed
    row = next(tr for tr in re.findall(r"<tr>(.*?)</tr>", old) if first["placement"]["description"] in tr)
    assert '<td>[{:.3f}, {:.3f}]</td><td class="num">—</td><td>—</td><td class="num">—</td>'.format(*first["ci95"]) in row
    assert all(min(image.size) > 100 for _, image in images(pushed))


@pytest.mark.parametrize("rule", ["traditional", "defi", "quinconce", "matador", "echanges", "vingt"])
def test_report_game(docs, tmp_path, rule):
    doc = json.loads(docs[rule].read_text())
    out = tmp_path / "r.html"
    r = report(docs[rule], "--out", out)
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert_self_contained(page)
    section = _section(page, "play")
    rows = re.findall(r"<tr>(.*?)</tr>", section)
    for seat, score in enumerate(doc["scores"]):
        winner = "yes" if seat in doc["winners"] else ""
        assert f'<td class="num">{seat}</td><td>{doc["player_kinds"][seat]}</td><td class="num">{score}</td><td>{winner}</td>' in rows
    pictures = images(section)
    assert len(pictures) == 1 and min(pictures[0][1].size) > 100
    assert f"every move ({len(doc['events'])} events)" in section


# -- bad input ----------------------------------------------------------------------------


def _bad_files(docs, folder: Path) -> dict:
    odds = json.loads(docs["odds"].read_text())
    whatif = json.loads(docs["whatif"].read_text())
    game = json.loads(docs["defi"].read_text())
    files = {
        "not JSON": ("this is not JSON\n", "not JSON"),
        "a JSON list": ("[1, 2, 3]", "got a JSON list"),
        "someone else's JSON": ('{"name": "x", "version": "1.0", "items": []}', "none of their fields"),
        "no version": (json.dumps({k: v for k, v in odds.items() if k != "version"}), "version"),
        "a newer version": (json.dumps({**odds, "version": "99.0.0"}), "newer"),
        "a newer game record": (json.dumps({**game, "record_version": 99}), "newer"),
        "an unknown kind": (json.dumps({**odds, "kind": "horoscope"}), "kind"),
        "a broken interval": (json.dumps({**odds, "results": [{**odds["results"][0], "ci95": "wide"}]}), "results[0].ci95"),
        "a shift share over 1": (json.dumps({**odds, "results": [{**odds["results"][0], "shift_share": 1.5}]}),
                                 "results[0].shift_share"),
        "a broken shift interval": (json.dumps({**whatif, "candidates": [{**whatif["candidates"][0], "shift_ci95": [0.5]}]}),
                                    "candidates[0].shift_ci95"),
        "a median shift that is a word": (
            json.dumps({**whatif, "candidates": [{**whatif["candidates"][0], "median_shift_mm": "far"}]}),
            "candidates[0].median_shift_mm"),
        "an unknown rule": (json.dumps({**game, "rule": "poker"}), "rule"),
        **_bad_finals(docs),
        **_bad_tournaments(docs),
    }
    out = {}
    for i, (case, (text, said)) in enumerate(files.items()):
        path = folder / f"bad{i}.json"
        path.write_text(text)
        out[case] = (path, said)
    return out


def _with_final(doc: dict, change) -> str:
    """The record with ``change(final)`` applied to a copy of its final position."""
    doc = json.loads(json.dumps(doc))
    change(doc["final"])
    return json.dumps(doc)


def _bad_finals(docs) -> dict:
    """Records whose final position the end-of-game pictures (faces.tables) cannot draw."""
    matador, echanges, vingt, defi = (json.loads(docs[k].read_text()) for k in ("matador", "echanges", "vingt", "defi"))
    assert matador["final"]["table"] and defi["final"]["construction"]  # something to corrupt
    return {
        "a chain without its ends": (_with_final(matador, lambda f: f.pop("ends")), "final.ends"),
        "a chain end that is a word": (_with_final(matador, lambda f: f["ends"].__setitem__(0, "x")), "final.ends"),
        "a chain tile without halves": (_with_final(echanges, lambda f: f["table"][0].pop("halves")), "final.table[0]"),
        "an échanges RAIN box of words": (_with_final(echanges, lambda f: f.__setitem__("rain", ["x"])), "final.rain"),
        "a 20 sur 20 marker that is no cell": (
            _with_final(vingt, lambda f: f["markers"].__setitem__("placed", [[-1]] + f["markers"]["placed"][1:])),
            "final.markers.placed"),
        "a 20 sur 20 tile of 12 pips": (
            _with_final(vingt, lambda f: f["table"].append({"cells": [[90, 90], [91, 90]], "pips": [12, 0]})),
            f"final.table[{len(vingt['final']['table'])}]"),
        "chain options that are no object": (json.dumps({**matador, "options": None}), "options"),
        "a Défi tile with a negative number": (
            _with_final(defi, lambda f: f["construction"][0].__setitem__("tile", [-1, 3])), "final.construction[0]"),
    }


def _bad_tournaments(docs) -> dict:
    t = json.loads(docs["tournament"].read_text())
    return {
        "a score sense given as a list": (json.dumps({**t, "score_sense": ["lower"]}), "score_sense"),
        "a tournament without its physics": (json.dumps({k: v for k, v in t.items() if k != "physics"}), "physics"),
        "a tournament without its seed": (json.dumps({k: v for k, v in t.items() if k != "seed"}), "seed"),
    }


def test_report_tournament(docs, tmp_path):
    doc = json.loads(docs["tournament"].read_text())
    out = tmp_path / "t.html"
    r = report(docs["tournament"], "--out", out)
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert_self_contained(page)
    section = _section(page, "tournament")
    rows = re.findall(r"<tr>(.*?)</tr>", section)
    assert sorted(row["kind"] for row in doc["per_kind"]) == ["greedy", "random"]
    for row in doc["per_kind"]:  # the table per player kind, one row each, from the document's numbers
        lo, hi = row["ci"]
        assert any(f"<td>{row['kind']}</td>" in tr and f"[{lo:.3f}, {hi:.3f}]" in tr and f">{row['games']}<" in tr
                   for tr in rows), row
    # 4 deals, one seat per kind: each kind played every deal, and every deal has its row
    assert [row["games"] for row in doc["per_kind"]] == [4, 4]
    assert f"every deal ({doc['deals']})" in section and len(rows) == 1 + 2 + 1 + 4  # headers and rows of both tables
    pictures = images(section)
    assert len(pictures) == 1 and min(pictures[0][1].size) > 100 and pictures[0][1].format == "PNG"


def test_bad_input_one_line_exit_2_nothing_written(docs, tmp_path):
    out = tmp_path / "r.html"
    for case, (path, said) in _bad_files(docs, tmp_path).items():
        # a good document first: still nothing is drawn
        r = report(docs["odds"], path, "--out", out)
        assert r.returncode == 2, case
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, (case, r.stderr)
        assert str(path) in lines[0] and said in lines[0], (case, lines[0])
        assert not out.exists(), case
    r = report(tmp_path / "missing.json", "--out", out)
    assert r.returncode == 2 and "does not exist" in r.stderr and not out.exists()
    r = report(docs["odds"], "--out", tmp_path / "r.png")
    assert r.returncode == 2 and "--out" in r.stderr and ".html" in r.stderr
    r = report(docs["odds"], "--out", tmp_path / "no" / "r.html")
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_scenario_not_found_is_said_on_the_page(docs, tmp_path):
    alone = tmp_path / "odds.json"
    doc = json.loads(docs["odds"].read_text())
    del doc["scenario_file"]  # a document that names its scenario only by name
    alone.write_text(json.dumps(doc))
    out = tmp_path / "r.html"
    r = report(alone, "--out", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    section = _section(out.read_text(), "odds")
    assert "scenario file demo.toml not found" in section
    assert len(images(section)) == 1  # the plot, no renders


def test_a_copied_scenario_is_found_by_its_path_and_a_misfit_says_why(tmp_path, monkeypatch, capsys):
    from magdomino.faces.cli import main
    from magdomino.model.presets import load_preset, write_preset

    monkeypatch.chdir(tmp_path)
    write_preset(load_preset("strong"), tmp_path / "my_set.toml")
    (tmp_path / "nc").mkdir()
    copy = tmp_path / "nc" / "copy.toml"  # keeps name = "demo"
    copy.write_text((SCENARIOS / "demo.toml").read_text().replace('preset = "standard"', 'preset = "../my_set.toml"'))
    assert main(["odds", str(copy), "--trials", "4", "--engine", "statics", "--what-if", "0", "--json", "odds.json"]) == 0
    assert main(["report", "odds.json", "--out", "r.html", "--max-renders", "1"]) == 0
    section = _section((tmp_path / "r.html").read_text(), "odds")
    assert f"renders from the scenario file {copy}" in section and "not found" not in section
    # the same run on the bundled file with --preset: the report applies the run's preset
    assert main(["odds", str(SCENARIOS / "demo.toml"), "--preset", "my_set.toml", "--trials", "4", "--engine", "statics",
                 "--what-if", "0", "--json", "with_preset.json"]) == 0
    assert main(["report", "with_preset.json", "--out", "p.html", "--max-renders", "1"]) == 0
    section = html.unescape(_section((tmp_path / "p.html").read_text(), "odds"))
    assert f"renders from the scenario file {SCENARIOS / 'demo.toml'}, the run's preset {tmp_path / 'my_set.toml'}" in section
    # found by name only (the document does not say its file): the misfit's real reason is said
    doc = json.loads((tmp_path / "odds.json").read_text())
    del doc["scenario_file"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    (tmp_path / "scenarios").mkdir()
    shutil.copy(SCENARIOS / "demo.toml", tmp_path / "scenarios" / "demo.toml")
    assert main(["report", "old.json", "--out", "o.html", "--max-renders", "1"]) == 0
    section = html.unescape(_section((tmp_path / "o.html").read_text(), "odds"))
    assert "not found" not in section
    assert f"{tmp_path / 'scenarios' / 'demo.toml'} runs preset 'standard', the run's was 'strong'" in section
    capsys.readouterr()


# -- in a browser -------------------------------------------------------------------------


def test_page_of_every_kind_in_chromium(docs, tmp_path):
    out = tmp_path / "all.html"
    r = report(*docs.values(), "--out", out, "--scenarios", SCENARIOS)
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert_self_contained(page)
    for kind in ("simulate", "odds", "sweep", "whatif", "play"):
        assert f'class="kind-{kind}"' in page
    decoded_here = images(page)
    seen = browser_check(out, tmp_path)
    assert seen["errors"] == []
    assert seen["images"] == len(decoded_here) > 15
    assert seen["undecoded"] == []
    assert not_blank(seen["screenshot"])


def test_browser_check_sees_faults(tmp_path):
    # The check itself: a broken picture, a console error and an empty page are all caught.
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body><p>text</p>'
                   '<img src="data:image/png;base64,AAAA" alt="broken"><script>console.error("boom")</script></body></html>')
    seen = browser_check(bad, tmp_path)
    assert seen["undecoded"] == ["broken"]
    assert "console.error: boom" in seen["errors"]
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><head><title>x</title></head><body></body></html>")
    assert not not_blank(browser_check(blank, tmp_path)["screenshot"])
