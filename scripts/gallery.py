"""Render the gallery (docs/physics/gallery.md): one small PNG per curated scenario into docs/gallery/.

Run by scripts/gallery (which sets up .venv). Each picture is 640x480, quantised to 256
colours and optimised, so that it stays well under 150 KB; plus one GIF of a collapse.
"""

import sys
import time
from pathlib import Path

from PIL import Image

from magdomino.faces.render import render_gif, render_image
from magdomino.studies.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent

# (scenario, what-if to show the end of, or None for the settled structure)
GALLERY = [
    ("demo", None),
    ("zigzag", None),
    ("staircase_edge", 0),
    ("cantilever", None),
    ("bridge", 0),
    ("slide_beneath", None),
    ("weak_vs_strong_strong", None),
    ("weak_vs_strong_weak", None),
    ("free_magnets", None),
]
GIFS = [("staircase_edge", 0)]  # (scenario, what-if), 400x300


def main(out=ROOT / "docs" / "gallery", width=640, height=480) -> int:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, what_if in GALLERY:
        start = time.perf_counter()
        scenario = load_scenario(ROOT / "scenarios" / f"{name}.toml")
        image, verdict = render_image(scenario, width=width, height=height, what_if=what_if)
        path = out / (f"{name}.png" if what_if is None else f"{name}-what-if-{what_if}.png")
        picture = Image.fromarray(image).quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        picture.save(path, optimize=True)
        what = "structure" if what_if is None else f"what-if {what_if}"
        said = "collapsed" if verdict.collapsed else "stood" if verdict.settled else verdict.reason
        kb = path.stat().st_size / 1024
        print(f"{path.relative_to(ROOT)}: {what} {said}, {kb:.0f} KB, {time.perf_counter() - start:.1f} s")
    for name, what_if in GIFS:
        start = time.perf_counter()
        scenario = load_scenario(ROOT / "scenarios" / f"{name}.toml")
        path = out / f"{name}-what-if-{what_if}.gif"
        verdict = render_gif(scenario, path, what_if=what_if, width=400, height=300)
        said = "collapsed" if verdict.collapsed else "stood" if verdict.settled else verdict.reason
        kb = path.stat().st_size / 1024
        print(f"{path.relative_to(ROOT)}: what-if {what_if} {said}, {kb:.0f} KB, {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
