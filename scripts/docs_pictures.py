"""Draw the pictures of the landing page and of the rules page's placement language.

Run: PYTHONPATH=. .venv/bin/python scripts/docs_pictures.py [OUT_DIR]

Writes, with the project's own renderer (:mod:`magdomino.faces.render`), 400x300 PNGs
quantised to 256 colours:

- ``docs/gallery/demo-what-if-1.png``: the landing page's example, the demo tower and the
  what-if that brings it down (the tiles one second after the verdict);
- ``docs/rules/images/placement-*.png``: one small construction per relation of the
  placement language (at, on, across, back, after, beneath), the named tile placed as a
  what-if (released, or slid in along the table) and drawn where it came to rest;
- ``docs/rules/images/quinconce-*.png``: the first placements of an En quinconce game
  (three random seats, seed 3, judged by PyBullet), one picture per placement, all framed
  by one camera so that the construction is seen growing.

Each picture's placement text, the mode the game owed and the verdict are printed, so the
lines of the rules page can be checked against them. The docs build does not run this: the
pictures are committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from PIL import Image

import magdomino as md
from magdomino.faces.render import Camera, Scene, label_tiles, tiles_box, what_if_outcome
from magdomino.studies.simulation import settle_structure

ROOT = Path(__file__).resolve().parent.parent
SIZE = (400, 300)

LANDING = (["6-6 at (0, 0) mm", "6-3 on #0 half 1", "6-1 on #1 half 0", "6-5 on #2 half 0"], "5-4 on #3 half 1")
"""The landing page's tower (the demo scenario's, preset standard) and the what-if drawn."""

BASE = ["6-6 at (0, 0) mm", "6-3 on #0 half 1"]
RELATIONS = [
    ("at", [], "6-6 at (0, 0) mm"),
    ("on", ["6-6 at (0, 0) mm"], "6-3 on #0 half 1"),
    ("across", BASE, "3-4 on #1 half 1, across left"),
    ("back", BASE, "3-3 on #1 half 1, back"),
    ("after", BASE, "6-1 after #0 half 0"),
    ("beneath", BASE, "3-1 beneath #1 half 1"),
]
"""(name, structure, the placement drawn): each relation on the smallest construction it needs."""

QUINCONCE = {"rule": "quinconce", "players": 3, "seed": 3, "seats": "random", "physics": "dynamics"}
QUINCONCE_STEPS = 7


def outcome(construction: md.Construction, placement: str | None):
    """(pips, positions (n, 3) m, quaternions (n, 4)) of the structure settled, or of the
    structure after ``placement`` was made as a what-if; and the verdict's words (of a second
    run of the same what-if: a run is deterministic)."""
    if placement is None:
        scenario = construction.scenario
        verdict, (positions, quaternions) = settle_structure(scenario)
        return ([pl.pips for pl in scenario.structure], positions, quaternions), verdict_words(verdict)
    scenario = construction.with_what_ifs([placement])
    simulated = construction.simulate(placement)
    return what_if_outcome(scenario, 0), verdict_words(simulated.verdicts[-1])


def verdict_words(verdict) -> str:
    if verdict.collapsed:
        return f"collapsed ({verdict.reason})"
    return f"shifted {verdict.max_shift_mm:.0f} mm" if verdict.shifted else f"stood (max shift {verdict.max_shift_mm:.1f} mm)"


def draw(preset, pips, positions, quaternions) -> Image.Image:
    """The renderer's picture of tiles at these poses, labelled, framed on them."""
    size = np.asarray(preset.tile.size, dtype=float)
    camera = Camera(*tiles_box(positions, quaternions, size), *SIZE)
    return quantised(label_tiles(photo(preset, pips, positions, quaternions, camera), camera, positions, quaternions, size))


def photo(preset, pips, positions, quaternions, camera: Camera) -> np.ndarray:
    """The renderer's picture of tiles at these poses (none: the bare table), unlabelled."""
    scene = Scene(preset)
    try:
        scene.sync(pips, positions, quaternions)
        return scene.image(camera)
    finally:
        scene.close()


def quantised(image: np.ndarray) -> Image.Image:
    return Image.fromarray(image).quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


class Cropped:
    """A camera's pixels seen through a crop from (left, top), scaled: what
    :func:`label_tiles` needs to put labels on the cropped picture."""

    def __init__(self, camera: Camera, left: int, top: int, scale: float):
        self.camera, self.offset, self.scale = camera, np.array([left, top]), scale

    def to_pixels(self, points: np.ndarray) -> np.ndarray:
        return (self.camera.to_pixels(points) - self.offset) * self.scale


def draw_sequence(preset, steps: list) -> list[Image.Image]:
    """Pictures of a growing construction seen by one camera: ``steps`` of (pips, positions
    (n, 3) m, quaternions (n, 4)). The camera frames the box of every step at twice ``SIZE``,
    then every picture is cut to the part that any step's tiles or shadows cover, scaled to
    ``SIZE``'s width: an L-shaped construction's box has an empty corner, nearest the
    camera, that would shrink its tiles."""
    size = np.asarray(preset.tile.size, dtype=float)
    boxes = [tiles_box(positions, quaternions, size) for _, positions, quaternions in steps]
    lo, hi = np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0)
    camera = Camera(lo, hi, 2 * SIZE[0], 2 * SIZE[1], margin=0.9)
    table = photo(preset, [], np.empty((0, 3)), np.empty((0, 4)), camera).astype(int)
    photos = [photo(preset, *step, camera) for step in steps]
    covered = np.any([np.abs(p.astype(int) - table).max(axis=2) > 6 for p in photos], axis=0)
    rows, cols = np.nonzero(covered)
    pad = camera.height // 30
    left, top = max(0, cols.min() - pad), max(0, rows.min() - pad)
    width, height = min(camera.width, cols.max() + pad) - left, min(camera.height, rows.max() + pad) - top
    shape = (SIZE[0], round(SIZE[0] * height / width))
    view = Cropped(camera, left, top, SIZE[0] / width)
    pictures = []
    for image, (_, positions, quaternions) in zip(photos, steps):
        cut = Image.fromarray(image[top:top + height, left:left + width]).resize(shape, Image.Resampling.LANCZOS)
        pictures.append(quantised(label_tiles(np.asarray(cut), view, positions, quaternions, size)))
    return pictures


def save(picture: Image.Image, path: Path, said: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    picture.save(path, optimize=True)
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {said}, {path.stat().st_size / 1024:.0f} KB")


def landing(out: Path) -> None:
    tiles, placement = LANDING
    tower = md.Construction(tiles, preset="standard")
    (pips, positions, quaternions), said = outcome(tower, placement)
    save(draw(tower.scenario.preset, pips, positions, quaternions), out / "gallery" / "demo-what-if-1.png",
         f"{placement}: {said}")


def relations(out: Path) -> None:
    for name, structure, placement in RELATIONS:
        tower = md.Construction(structure or [placement])
        (pips, positions, quaternions), said = outcome(tower, placement if structure else None)
        save(draw(tower.scenario.preset, pips, positions, quaternions), out / "rules" / "images" / f"placement-{name}.png",
             f"{placement}: {said}")


def quinconce_placements() -> list[tuple[int, str, str]]:
    """(seat, mode, placement text) of the first placements of the game :data:`QUINCONCE`
    (stops at the first collapse: a new construction would start)."""
    record = md.play(**QUINCONCE, max_placements=QUINCONCE_STEPS + 1).to_dict()
    steps = []
    for event in record["events"]:
        if event["type"] == "collapse" or len(steps) == QUINCONCE_STEPS:
            break
        if event["type"] == "place":
            steps.append((event["player"], event["mode"], event["placement"]))
    return steps


def quinconce(out: Path) -> None:
    steps = quinconce_placements()
    texts = [text for _, _, text in steps]
    drawn = []
    for k, text in enumerate(texts):
        tower = md.Construction(texts[:k] or [text])
        drawn.append(outcome(tower, text if k else None))
    pictures = draw_sequence(tower.scenario.preset, [poses for poses, _ in drawn])
    for k, ((seat, mode, text), (_, said), picture) in enumerate(zip(steps, drawn, pictures)):
        save(picture, out / "rules" / "images" / f"quinconce-{k}.png", f"seat {seat}, {mode}: {text}: {said}")


def main(out=ROOT / "docs") -> int:
    out = Path(out)
    landing(out)
    relations(out)
    quinconce(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
