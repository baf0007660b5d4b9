"""The 28 double-six tiles: pips, doubles, totals, colours, and meshes for pictures.

A tile is a pair of pips ``(low, high)`` with ``low <= high``, so ``(3, 5)`` and ``(5, 3)``
name the same tile; :func:`tile` normalises. In the tile frame, half 0 is at −x and half 1
at +x; a placed tile may show its pips either way round, which is the placement's business
(see :mod:`magdomino.maths.geometry`).

Meshes (trimesh) are built on demand: a rounded box with dimpled pips, one face colour for
the body and one for the pips. Collision uses the plain box (:mod:`magdomino.physics.world`);
:func:`tile_mesh` is for pictures and for checking mass properties against that box.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from magdomino.checks import check_count
from magdomino.errors import ARGUMENTS, InputError
from magdomino.maths.poses import CORNER_SIGNS
from magdomino.wording import tile_text

Tile = tuple[int, int]

ALL_TILES: tuple[Tile, ...] = tuple((a, b) for a in range(7) for b in range(a, 7))
"""The 28 tiles in a fixed order: (0, 0), (0, 1), ..., (0, 6), (1, 1), ..., (6, 6)."""

TILE_INDEX: dict[Tile, int] = {t: i for i, t in enumerate(ALL_TILES)}
"""Position of each tile ``(low, high)`` in :data:`ALL_TILES` (a lookup for hot loops; :func:`tile_index` takes either order of halves)."""


@dataclass(frozen=True)
class TileSet:
    """A set of dominoes as data: every pair ``(a, b)`` with ``0 <= a <= b <= top``.

    Attributes
    ----------
    name : str
    top : int
        The highest half (6 for double-six, 9 for double-nine).
    tiles : tuple of Tile
        In a fixed order: (0, 0), (0, 1), ..., (top, top); a tile's value is its pip total.
    coloured : bool
        The Magnetic Domino set is coloured (colours from the preset); ordinary sets are
        ivory with black pips.
    """

    name: str
    top: int
    tiles: tuple[Tile, ...]
    coloured: bool = False

    def __contains__(self, t) -> bool:
        return tuple(t) in self._index

    @property
    def _index(self) -> dict:
        return {t: i for i, t in enumerate(self.tiles)}

    def index(self, t) -> int:
        """Position of tile ``t`` in :attr:`tiles`."""
        return self._index[tuple(t)]


def double_set(top: int, *, coloured: bool = False, without: Iterable[Tile] = ()) -> TileSet:
    """The double-``top`` set (28 tiles for 6, 36 for 7, 45 for 8, 55 for 9), less ``without``."""
    check_count(top, "set", minimum=0, maximum=18)
    gone = {tuple(sorted(t)) for t in without}
    tiles = tuple((a, b) for a in range(top + 1) for b in range(a, top + 1) if (a, b) not in gone)
    return TileSet(f"double-{top}" + (f" without {len(gone)}" if gone else ""), int(top), tiles, coloured)


TILE_SETS = {n: double_set(n) for n in (6, 7, 8, 9)}
"""The ordinary (ivory) double-N sets of the seed games."""

MAGNETIC_DOMINO = double_set(6, coloured=True)
"""The Magnetic Domino set: the coloured double-six (:data:`ALL_TILES`)."""


def all_tiles() -> tuple[Tile, ...]:
    """The 28 double-six tiles in their fixed order."""
    return ALL_TILES


def tile(a: int, b: int) -> Tile:
    """The normalised tile ``(min, max)``; ValueError if a half is outside 0..6."""
    if not (0 <= a <= 6 and 0 <= b <= 6) or int(a) != a or int(b) != b:
        raise ValueError(f"not a double-six tile: {tile_text((a, b))}")
    return (int(min(a, b)), int(max(a, b)))


def parse_tile(value, source: str = ARGUMENTS, key: str = "tile") -> Tile:
    """A tile from ``[a, b]``, ``(a, b)`` or ``"a,b"`` / ``"a-b"``; InputError otherwise, whose
    example is written as ``source`` takes a tile: ``6,3`` on the command line (``source``
    ``"command line"``, ``key`` the flag), ``[6, 3]`` in a file or a function's arguments."""
    pair = value
    if isinstance(value, str):
        pair = value.replace("-", ",").split(",")
        try:
            pair = [int(p) for p in pair]
        except ValueError:
            pair = None
    ok = (
        isinstance(pair, (list, tuple))
        and len(pair) == 2
        and all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 6 for p in pair)
    )
    if not ok:
        example = "6,3" if source == "command line" else "[6, 3]"
        raise InputError(source, key, f"expected a double-six tile as two pips 0..6 like {example}, got {value!r}")
    return tile(*pair)


def tile_index(t: Iterable[int]) -> int:
    """Position of a tile in :data:`ALL_TILES` (either order of halves)."""
    a, b = t
    return TILE_INDEX[tile(a, b)]


def is_double(t: Tile) -> bool:
    return t[0] == t[1]


def pip_total(t: Tile) -> int:
    return t[0] + t[1]


def colour_of(t: Tile, colours: tuple[str, ...] | list[str]) -> str:
    """The colour of a tile: ``colours[index % len(colours)]`` (see :mod:`magdomino.model.presets`)."""
    return colours[tile_index(t) % len(colours)]


# Pip layout on a square half, in units of the half's width (centre at 0), as on real dominoes.
_PIP_LAYOUT: dict[int, list[tuple[float, float]]] = {
    0: [],
    1: [(0, 0)],
    2: [(-0.25, -0.25), (0.25, 0.25)],
    3: [(-0.25, -0.25), (0, 0), (0.25, 0.25)],
    4: [(-0.25, -0.25), (-0.25, 0.25), (0.25, -0.25), (0.25, 0.25)],
    5: [(-0.25, -0.25), (-0.25, 0.25), (0, 0), (0.25, -0.25), (0.25, 0.25)],
    6: [(-0.25, -0.27), (-0.25, 0), (-0.25, 0.27), (0.25, -0.27), (0.25, 0), (0.25, 0.27)],
}


def pip_positions(pips: Tile, size: np.ndarray) -> np.ndarray:
    """Centres of the pips on the top face, in the tile frame.

    Parameters
    ----------
    pips : (int, int)
        Pips of half 0 (at −x) and half 1 (at +x), in that order (not normalised).
    size : ndarray, shape (3,), m
        Tile length, width, thickness.

    Returns
    -------
    ndarray, shape (k, 3), m
    """
    length, width, thick = size
    half = length / 2
    out = []
    for side, n in enumerate(pips):
        cx = (-0.5 + side) * half
        for u, v in _PIP_LAYOUT[n]:
            out.append((cx + u * half, v * width, thick / 2))
    return np.array(out, dtype=float).reshape(-1, 3)


def tile_mesh(pips: Tile, size: np.ndarray, colour=(0.85, 0.16, 0.16), pip_colour=(0.97, 0.97, 0.95)):
    """A trimesh mesh of one tile for pictures: a rounded box with dimpled, coloured pips.

    Parameters
    ----------
    pips : (int, int)
        Pips of half 0 (−x) and half 1 (+x).
    size : ndarray, shape (3,), m
        Length, width, thickness.
    colour, pip_colour : RGB in [0, 1]
        Body and pip colours (face colours of the mesh).

    Returns
    -------
    trimesh.Trimesh
        Watertight, centred on the tile frame's origin, with face colours. Its volume and
        inertia are within a few percent of the box (the edges are rounded by 8 % of the
        thickness, the pips are shallow), which ``tests/test_tiles.py`` checks.
    """
    return _tile_mesh_cached(tuple(int(p) for p in pips), tuple(float(s) for s in size), tuple(colour), tuple(pip_colour)).copy()


@lru_cache(maxsize=64)  # a memo (each call returns a copy): a mesh takes ~44 ms, a world or a picture wants dozens
def _tile_mesh_cached(pips, size, colour, pip_colour):
    import trimesh  # noqa: PLC0415 - here: trimesh takes ~0.3 s to import, and only meshes need it
    from trimesh.creation import cylinder  # noqa: PLC0415 - with trimesh above

    length, width, thick = size
    radius = 0.08 * thick
    # Rounded box: the Minkowski sum of a smaller box and a sphere, built as the convex hull
    # of spheres at the inner box's corners (exactly convex, watertight, smooth edges).
    inner = np.array([length, width, thick]) / 2 - radius
    sphere = trimesh.creation.icosphere(subdivisions=2, radius=radius)
    corners = CORNER_SIGNS * inner
    body = trimesh.convex.convex_hull(np.vstack([sphere.vertices + c for c in corners]))

    # Pips: shallow dimples cut from the top face.
    pip_r = 0.075 * width
    depth = 0.12 * thick
    centres = pip_positions(pips, np.array(size))
    mesh = body
    cutters = []
    for c in centres:
        cut = cylinder(radius=pip_r, height=2 * depth, sections=16)
        cut.apply_translation(c)
        cutters.append(cut)
    if cutters:
        try:
            mesh = body.difference(trimesh.util.concatenate(cutters), check_volume=False)
        except Exception:  # no boolean engine (manifold3d) installed: colour discs instead
            mesh = body
            discs = []
            for c in centres:
                disc = cylinder(radius=pip_r, height=depth * 0.2, sections=16)
                disc.apply_translation(c + [0, 0, depth * 0.1])
                discs.append(disc)
            mesh = trimesh.util.concatenate([body] + discs)
    face_colours = np.tile(np.r_[np.array(colour) * 255, 255].astype(np.uint8), (len(mesh.faces), 1))
    if cutters:
        # Faces below the top surface near a pip centre are pip faces: colour them.
        tri_centres = mesh.triangles_center
        top = thick / 2
        for c in centres:
            near = (np.linalg.norm(tri_centres[:, :2] - c[:2], axis=1) <= pip_r * 1.01) & (
                tri_centres[:, 2] >= top - depth - 1e-9
            )
            face_colours[near] = np.r_[np.array(pip_colour) * 255, 255].astype(np.uint8)
    mesh.visual.face_colors = face_colours
    return mesh


def box_mass_properties(size: np.ndarray, mass: float) -> tuple[float, np.ndarray]:
    """Volume (m³) and principal inertia (kg·m², shape (3,)) of a solid box of that mass."""
    lx, ly, lz = size
    inertia = mass / 12 * np.array([ly**2 + lz**2, lx**2 + lz**2, lx**2 + ly**2])
    return float(lx * ly * lz), inertia


# -- textured meshes for the software renderer ------------------------------------------

TEXTURE_SIDE_BAND = 0.1
"""Fraction of a tile texture's height (at the bottom) that is plain body colour: the sides
and the bottom of the tile are mapped there; the rest of the texture is the top face."""


def tile_uv_mesh(pips: Tile, size: np.ndarray):
    """The tile mesh of :func:`tile_mesh` with texture coordinates, for a textured visual.

    Every triangle gets its own three vertices (flat shading, one uv per corner). Triangles
    of the top face, its dimples and its rounded rim are mapped by projection from above onto
    the top part of the texture (u along x, v along y), the others onto the plain band at the
    bottom of the texture (see :data:`TEXTURE_SIDE_BAND` and :func:`tile_texture`).

    Parameters
    ----------
    pips : (int, int)
        Pips of half 0 (−x) and half 1 (+x).
    size : ndarray, shape (3,), m

    Returns
    -------
    vertices : ndarray, shape (3 k, 3), m
    indices : ndarray, shape (3 k,), int
    uvs : ndarray, shape (3 k, 2)
    normals : ndarray, shape (3 k, 3)
    """
    key = (tuple(int(p) for p in pips), tuple(float(s) for s in size))
    return tuple(a.copy() for a in _tile_uv_mesh_cached(*key))


@lru_cache(maxsize=64)  # a memo, as the mesh's (copies returned)
def _tile_uv_mesh_cached(pips, size):
    mesh = tile_mesh(pips, np.array(size))
    length, width, thick = size
    tri = mesh.triangles.reshape(-1, 3)  # (3 k, 3): corners of each face in turn
    normals = np.repeat(mesh.face_normals, 3, axis=0)
    centres = np.repeat(mesh.triangles_center, 3, axis=0)
    top = (centres[:, 2] > thick / 2 - 0.2 * thick) & (normals[:, 2] > -0.5)
    band = TEXTURE_SIDE_BAND
    u = np.clip(tri[:, 0] / length + 0.5, 0.0, 1.0)
    v = np.clip(tri[:, 1] / width + 0.5, 0.0, 1.0) * (1 - band) + band
    uvs = np.where(top[:, None], np.stack([u, v], axis=1), np.array([0.5, band / 2]))
    indices = np.arange(len(tri))
    return tri.astype(float), indices, uvs.astype(float), normals.astype(float)


def tile_texture(
    pips: Tile,
    size: np.ndarray,
    colour=(0.85, 0.16, 0.16),
    pip_colour=(0.97, 0.97, 0.95),
    px_per_mm: float = 8.0,
) -> np.ndarray:
    """An RGB image of a tile's top face for :func:`tile_uv_mesh`'s texture coordinates.

    The body colour, ``pip_colour`` discs (with a thin dark rim, so that they show on light
    tiles too) at :func:`pip_positions`, and a line between the halves, as seen from above
    (x to the right, y up: row 0 is the +y edge, the image convention of ``v = 1``); the
    bottom :data:`TEXTURE_SIDE_BAND` of the image is plain body colour.

    Returns
    -------
    ndarray, shape (h, w, 3), uint8
    """
    length, width, _ = (float(s) for s in size)
    w = max(16, int(round(length * 1000 * px_per_mm)))
    h_top = max(8, int(round(width * 1000 * px_per_mm)))
    h_band = max(2, int(round(h_top * TEXTURE_SIDE_BAND / (1 - TEXTURE_SIDE_BAND))))
    img = np.empty((h_top + h_band, w, 3), dtype=float)
    img[:] = colour
    # Top face: pixel centres in the tile frame (m).
    x = ((np.arange(w) + 0.5) / w - 0.5) * length
    y = (0.5 - (np.arange(h_top) + 0.5) / h_top) * width
    X, Y = np.meshgrid(x, y)
    top = img[:h_top]
    px = 1.0 / (1000 * px_per_mm)  # one pixel, m
    dark = np.array(colour) * 0.45
    line = np.abs(X) < 0.012 * width
    inset = np.abs(Y) < 0.38 * width
    top[line & inset] = dark
    pip_r = 0.075 * width
    for cx, cy, _ in pip_positions(pips, np.array([length, width, 0.0])):
        d = np.hypot(X - cx, Y - cy)
        rim = np.clip((pip_r + px - d) / (2 * px), 0.0, 1.0)[..., None]  # antialiased edge
        top[:] = top * (1 - rim) + dark * rim
        inner = np.clip((pip_r * 0.86 + px - d) / (2 * px), 0.0, 1.0)[..., None]
        top[:] = top * (1 - inner) + np.array(pip_colour) * inner
    return np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)


# -- colours ------------------------------------------------------------------------------

COLOUR_RGB: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.16, 0.16),
    "orange": (0.95, 0.55, 0.10),
    "yellow": (0.96, 0.85, 0.15),
    "green": (0.20, 0.65, 0.25),
    "blue": (0.15, 0.40, 0.85),
    "purple": (0.55, 0.25, 0.70),
    "pink": (0.95, 0.50, 0.70),
    "white": (0.95, 0.95, 0.92),
    "black": (0.10, 0.10, 0.10),
    "grey": (0.55, 0.55, 0.55),
    "brown": (0.55, 0.35, 0.18),
    "cyan": (0.15, 0.75, 0.80),
}
DEFAULT_COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "pink"]


def colour_rgb(colour: object) -> tuple[float, float, float] | None:
    """RGB in [0, 1] for a colour name or ``"#rrggbb"``; None when not a colour."""
    if not isinstance(colour, str):
        return None
    if colour in COLOUR_RGB:
        return COLOUR_RGB[colour]
    # Exactly six hex digits: int(..., 16) alone would take "#-1-1-1" or "# 1 2 3".
    if len(colour) == 7 and colour[0] == "#" and all(ch in "0123456789abcdefABCDEF" for ch in colour[1:]):
        return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]
    return None
