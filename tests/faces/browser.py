"""Open a page in headless Chromium and say what it saw (shared by the report's and the 3D
view's tests).

A probe script is injected first into a copy of the page: it records console errors, failed
loads and rejected promises; once the page has loaded (and every plotly figure on it has
drawn, or 5 s of virtual time have passed), it writes what it found into the DOM, which
Chromium dumps.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str:
    """The Chromium binary, or skip with why (scripts/_browser.sh installs it where it can);
    under CI (the ``CI`` environment variable set) a missing browser fails the test instead."""
    for name in (os.environ.get("MAGDOMINO_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    (pytest.fail if os.environ.get("CI") else pytest.skip)("no headless Chromium here (scripts/test installs the 'chromium' package "
                                                           "when run as root with apt; or set MAGDOMINO_CHROMIUM=/path/to/chromium)")


_PROBE = """<script>
(function () {
  var errors = [];
  console.error = function () { errors.push("console.error: " + Array.from(arguments).join(" ")); };
  window.addEventListener("error", function (e) {
    var t = e.target;
    errors.push(t && t.tagName ? "failed to load " + t.tagName + " " + (t.alt || "") : "error: " + e.message);
  }, true);
  window.addEventListener("unhandledrejection", function (e) { errors.push("unhandled rejection: " + e.reason); });
  function plots() {
    return Array.from(document.querySelectorAll(".plotly-graph-div")).map(function (d) {
      var canvas = d.querySelector(".gl-container canvas");
      return {id: d.id, traces: (d.data || []).length, svg: !!d.querySelector(".main-svg"),
              gl: !!(canvas && canvas.width > 0 && canvas.height > 0), nowebgl: !!d.querySelector(".no-webgl")};
    });
  }
  var tries = 0;
  function report() {
    var found = plots();
    if (found.some(function (p) { return !p.svg; }) && tries++ < 50) { setTimeout(report, 100); return; }
    var imgs = Array.from(document.images);
    var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0 && i.naturalHeight > 0); });
    var fetched = performance.getEntriesByType("resource").map(function (e) { return e.name; })
      .filter(function (n) { return !/^(data|blob):/.test(n); });
    var pre = document.createElement("pre");
    pre.id = "magdomino-probe";
    pre.textContent = JSON.stringify({images: imgs.length, undecoded: bad.map(function (i) { return i.alt; }),
                                      errors: errors, plots: found, fetched: fetched});
    document.body.appendChild(pre);
  }
  window.addEventListener("load", function () { setTimeout(report, 0); });
})();
</script>"""
"""Injected first into a copy of the page: it records console errors, failed loads and
rejected promises, and once the page has loaded: every <img> the browser did not decode,
every resource fetched (anything but ``data:``), and each plotly figure (``.plotly-graph-div``):
its traces, whether its SVG layers (``.main-svg``) and its WebGL canvas were made, and
whether plotly said WebGL is missing (``.no-webgl``)."""


def browser_check(page: Path, workdir: Path, flags=(), window="1200,2400") -> dict:
    """Open ``page`` in headless Chromium (with extra command line ``flags``):
    ``{"images", "undecoded", "errors", "plots", "fetched", "screenshot"}``."""
    exe = chromium()
    probe = workdir / (page.stem + ".probe.html")
    probe.write_text(page.read_text().replace("<head>", "<head>" + _PROBE, 1))
    base = [exe, "--headless=new", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--user-data-dir=" + str(workdir / "profile"),
            *flags]
    r = subprocess.run(base + ["--virtual-time-budget=20000", "--dump-dom", probe.as_uri()],
                       capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="magdomino-probe">(.*?)</pre>', r.stdout, re.S)
    assert found, f"the page did not finish loading in Chromium: {r.stderr[-500:]}"
    result = json.loads(found.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&"))
    shot = workdir / (page.stem + ".png")
    subprocess.run(base + [f"--window-size={window}", "--virtual-time-budget=10000", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=180)
    result["screenshot"] = shot
    return result


def not_blank(png: Path) -> bool:
    """A picture with something on it: its grey levels vary, and some pixels are far from the
    background's (the most common) level."""
    import numpy as np
    from PIL import Image

    grey = np.asarray(Image.open(png).convert("L"), dtype=float)
    background = np.bincount(grey.astype(int).ravel()).argmax()
    return grey.std() > 5 and np.mean(np.abs(grey - background) > 40) > 0.01
