"""An interactive 3D view (rotate, zoom, hover) of a construction and of a what-if's outcome.

Drawn with plotly (as magpylib draws its magnets): each tile is a box (a ``Mesh3d`` of its 8
corners) in its colour, outlined, with its number and its halves written on its upper face; the table
is a grey rectangle at z = 0; lengths are in mm and the axes keep their proportions.

:func:`figure_html` turns a figure into an HTML fragment that carries plotly.js inline, so a
page holding it opens offline. plotly is heavy (the fragment is about 4.8 MB, plotly.js
itself), so it is an optional extra: ``pip install 'magdomino[view]'``; without it these
functions raise :class:`~magdomino.errors.InputError` saying so
(:func:`magdomino.optional.require`). It is imported only here, inside the functions:
``import magdomino`` stays light.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np

from magdomino.errors import ARGUMENTS, InputError
from magdomino.faces.render import settled_for_what_if, what_if_placement
from magdomino.maths.poses import box_corners, quaternion_matrices
from magdomino.model.tiles import colour_of, colour_rgb, tile
from magdomino.optional import require
from magdomino.studies.simulation import try_placement
from magdomino.wording import tile_text

TABLE_COLOUR = "rgb(204, 194, 176)"
"""The table, as in the PNG renders (:data:`magdomino.faces.render.TABLE_COLOUR`)."""

EDGE_COLOUR = "rgb(40, 40, 40)"
GHOST_OPACITY = 0.25
"""Opacity of the tiles where they were before a what-if (:func:`outcome_figure3d`)."""

MOVED_MM, MOVED_DEG = 0.5, 1.0
"""A tile moved during a what-if if its centre moved more than this, or it turned more."""

CAMERA_AZIMUTH_DEG, CAMERA_ELEVATION_DEG = -62.0, 28.0
"""Where the camera stands at first, as in the PNG renders (-90: straight in front, -y)."""

FIGURE_HEIGHT_PX = 520

DECIMALS_MM = 3
"""Coordinates are written to the micrometre (the figure's JSON stays small)."""

# Triangles of a box's 6 faces over its corners in the order of
# magdomino.maths.poses.CORNER_SIGNS (x slowest, then y, then z).
_BOX_I = [0, 0, 4, 4, 0, 0, 2, 2, 0, 0, 1, 1]
_BOX_J = [1, 3, 6, 7, 4, 5, 3, 7, 2, 6, 5, 7]
_BOX_K = [3, 2, 7, 5, 5, 1, 7, 6, 6, 4, 7, 3]
# The 12 edges of a box, same corner order.
_BOX_EDGES = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)]

_div_counter = itertools.count(1)


def _plotly():
    """``plotly.graph_objects``, or the InputError (key ``view3d``) that says how to install it."""
    return require("plotly.graph_objects", "the 3D view", key="view3d")


# -- pieces -------------------------------------------------------------------------------


def _poses(positions, quaternions, pips) -> tuple[np.ndarray, np.ndarray, list]:
    p = np.asarray(positions, dtype=float).reshape(-1, 3)
    q = np.asarray(quaternions, dtype=float).reshape(-1, 4)
    pips = [tuple(int(v) for v in t) for t in pips]
    if not len(p) == len(q) == len(pips):
        raise InputError(ARGUMENTS, "positions",
                         f"expected as many positions, quaternions and pips, got {len(p)}, {len(q)} and {len(pips)}")
    return p, q, pips


def _live(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Rows that are tiles still in the world (removed tiles are NaN rows)."""
    return np.all(np.isfinite(p), axis=1) & np.all(np.isfinite(q), axis=1)


def _colour(pips, preset) -> str:
    rgb = colour_rgb(colour_of(tile(*pips), preset.tile.colours)) or (0.8, 0.2, 0.2)
    return "rgb({}, {}, {})".format(*(round(c * 255) for c in rgb))


def _tile_mesh(go, k, pips, corners_mm, colour, *, opacity=1.0, note=""):
    """A tile's box: one Mesh3d of its 8 corners (mm), named and hovered ``#k a-b``."""
    a, b = pips
    name = f"#{k} {tile_text(pips)}{note}"
    corners_mm = np.round(corners_mm, DECIMALS_MM)
    return go.Mesh3d(
        x=corners_mm[:, 0], y=corners_mm[:, 1], z=corners_mm[:, 2], i=_BOX_I, j=_BOX_J, k=_BOX_K,
        color=colour, opacity=opacity, flatshading=True, name=name, hovertext=name, hoverinfo="text",
        lighting={"ambient": 0.55, "diffuse": 0.6, "specular": 0.1, "roughness": 0.8}, lightposition={"x": -6e4, "y": -5e4, "z": 1e5},
        showlegend=False, meta={"tile": k, "pips": [a, b], "ghost": opacity < 1},
    )


def _edges(go, boxes_mm: list[np.ndarray], *, opacity=1.0, name="edges"):
    """One line trace with the 12 edges of every box (None between segments)."""
    xyz = [[], [], []]
    for c in boxes_mm:
        for u, v in _BOX_EDGES:
            for axis in range(3):
                xyz[axis] += [round(float(c[u, axis]), DECIMALS_MM), round(float(c[v, axis]), DECIMALS_MM), None]
    return go.Scatter3d(x=xyz[0], y=xyz[1], z=xyz[2], mode="lines", line={"color": EDGE_COLOUR, "width": 2},
                        opacity=opacity, hoverinfo="skip", showlegend=False, name=name)


LABEL_LIFT_M = 0.0003
"""Labels are written 0.3 mm off a tile's upper face, so that the face does not hide them."""


def _labels(go, p, q, pips, indices, size):
    """``#k`` on each tile's upper face, at its centre, and ``h0`` / ``h1`` on each half (mm):
    the face of the tile's y or z axis that looks most upwards, whatever the tile's tilt."""
    numbers, halves = ([], [], [], [], []), ([], [], [], [], [])
    for k in indices:
        R = quaternion_matrices(q[k])
        axis = 1 if abs(R[2, 1]) > abs(R[2, 2]) else 2
        up = np.zeros(3)
        up[axis] = math.copysign(size[axis] / 2 + LABEL_LIFT_M, R[2, axis])
        at = p[k] + R @ up
        for seq, v in zip(numbers, (at[0], at[1], at[2], f"#{k}", f"#{k} {tile_text(pips[k])}")):
            seq.append(v)
        for h, sign in ((0, -1), (1, 1)):
            at = p[k] + R @ (up + np.array([sign * size[0] / 4, 0.0, 0.0]))
            for seq, v in zip(halves, (at[0], at[1], at[2], f"h{h}", f"#{k} h{h}: {pips[k][h]} pips")):
                seq.append(v)
    traces = []
    for (x, y, z, text, hover), name, font in ((numbers, "tile numbers", {"size": 13, "color": "black"}),
                                               (halves, "halves", {"size": 10, "color": "rgb(60, 60, 60)"})):
        x, y, z = (np.round(np.array(v) * 1000, DECIMALS_MM) for v in (x, y, z))
        traces.append(go.Scatter3d(x=x, y=y, z=z, mode="text", text=text,
                                   hovertext=hover, hoverinfo="text", textfont=font, showlegend=False, name=name))
    return traces


def _table(go, lo_mm: np.ndarray, hi_mm: np.ndarray, size_mm: np.ndarray):
    """The table under the tiles: a flat rectangle at z = 0, a little beyond them."""
    margin = max(0.4 * float(size_mm[0]), 0.15 * float(np.max(hi_mm[:2] - lo_mm[:2])))
    (x0, y0), (x1, y1) = np.round(lo_mm[:2] - margin, DECIMALS_MM), np.round(hi_mm[:2] + margin, DECIMALS_MM)
    return go.Mesh3d(x=[x0, x1, x1, x0], y=[y0, y0, y1, y1], z=[0, 0, 0, 0], i=[0, 0], j=[1, 2], k=[2, 3],
                     color=TABLE_COLOUR, flatshading=True, hoverinfo="skip", showlegend=False, name="table",
                     lighting={"ambient": 0.9, "diffuse": 0.1, "specular": 0.0})


def _layout(fig, title):
    az, el = math.radians(CAMERA_AZIMUTH_DEG), math.radians(CAMERA_ELEVATION_DEG)
    distance = 2.1  # in plotly's scene units, where the box of the data fits in [-1, 1]^3
    eye = {"x": distance * math.cos(el) * math.cos(az), "y": distance * math.cos(el) * math.sin(az), "z": distance * math.sin(el)}
    axis = {"showbackground": True, "backgroundcolor": "rgb(248, 248, 248)", "gridcolor": "rgb(220, 220, 220)", "zeroline": False,
            "showspikes": False}
    fig.update_layout(
        title={"text": title} if title else None,
        height=FIGURE_HEIGHT_PX, margin={"l": 0, "r": 0, "t": 40 if title else 10, "b": 0},
        template="none", paper_bgcolor="white", showlegend=False, hovermode="closest",
        scene={
            "aspectmode": "data",
            "xaxis": {**axis, "title": {"text": "x (mm)"}},
            "yaxis": {**axis, "title": {"text": "y (mm)"}},
            "zaxis": {**axis, "title": {"text": "z (mm)"}},
            "camera": {"eye": eye, "up": {"x": 0, "y": 0, "z": 1}, "projection": {"type": "perspective"}},
        },
    )
    return fig


def _bounds_mm(boxes_mm: list[np.ndarray], size_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if not boxes_mm:
        return -size_mm, size_mm
    allc = np.concatenate(boxes_mm)
    return allc.min(axis=0), allc.max(axis=0)


# -- public -------------------------------------------------------------------------------


def construction_figure3d(positions, quaternions, pips, preset, *, title: str | None = None, labels: bool = True):
    """An interactive 3D figure of a construction.

    Parameters
    ----------
    positions : array_like, shape (n, 3), m
        Tile centres, world frame (z up, the table at z = 0). Rows of NaN (tiles removed
        from the world) are left out; the others keep their numbers.
    quaternions : array_like, shape (n, 4)
        Tile orientations, unit quaternions (x, y, z, w), scalar last, as PyBullet.
    pips : sequence of (int, int), length n
        Each tile's pips as shown: half 0 (towards the tile's -x), half 1 (+x).
    preset : Preset
        Tile size (``preset.tile.size``, m) and colours (``preset.tile.colours``).
    title : str, optional
    labels : bool
        Write ``#k`` (the tile's number, as the placement language names it) on each
        tile's upper face and ``h0`` / ``h1`` on each half.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Mesh3d`` per tile (8 vertices: its corners, in mm; named and hovered
        ``#k a-b``), a line trace of the tiles' edges, the text traces of the labels, and
        the table (a ``Mesh3d`` named ``table``). Aspect mode ``data``: nothing distorted.

    Raises
    ------
    InputError
        plotly is not installed (``pip install 'magdomino[view]'``), or the lengths differ.
    """
    go = _plotly()
    p, q, pips = _poses(positions, quaternions, pips)
    return _figure(go, [(p, q, pips, range(len(p)), 1.0, "")], preset, title, (p, q, pips) if labels else None)


def _figure(go, layers, preset, title, labelled):
    """Draw ``layers`` of (positions, quaternions, pips, indices, opacity, note), then the
    labels of the tiles of ``labelled`` (positions, quaternions, pips), if given, then the
    table."""
    size = np.asarray(preset.tile.size, dtype=float)
    size_mm = size * 1000
    fig = go.Figure()
    every_box = []
    for p, q, pips, indices, opacity, note in layers:
        live = _live(p, q)
        indices = [k for k in indices if live[k]]
        boxes = [box_corners(p[k], q[k], size) * 1000 for k in indices]
        for k, corners in zip(indices, boxes):
            fig.add_trace(_tile_mesh(go, k, pips[k], corners, _colour(pips[k], preset), opacity=opacity, note=note))
        if boxes:
            fig.add_trace(_edges(go, boxes, opacity=max(opacity, 0.3), name="edges" if opacity >= 1 else "edges before"))
        every_box += boxes
    if labelled is not None:
        p, q, pips = labelled
        live = np.flatnonzero(_live(p, q))
        if len(live):
            fig.add_traces(_labels(go, p, q, pips, live, size))
    lo, hi = _bounds_mm(every_box, size_mm)
    fig.add_trace(_table(go, lo, hi, size_mm))
    return _layout(fig, title)


def outcome_figure3d(before, after, preset, *, title: str | None = None, labels: bool = True, motion=None):
    """An interactive 3D figure of a what-if's outcome: where the tiles came to rest, and,
    faint, where the tiles that moved were before; with ``motion``, a slider (and a play
    button) that shows the tiles at each moment of the way.

    Parameters
    ----------
    before : (pips, positions, quaternions)
        The settled structure the what-if started from: pips as shown (length n), positions
        (n, 3) m, quaternions (n, 4) x, y, z, w.
    after : (pips, positions, quaternions)
        The end of the what-if, as :func:`magdomino.faces.render.what_if_outcome` returns
        it: the structure's n tiles in the same order, then the placed tile(s); NaN rows
        (removed tiles) are left out.
    preset : Preset
    title : str, optional
    labels : bool
        Label the tiles at the end (``#k``, ``h0`` / ``h1``), as :func:`construction_figure3d`.
    motion : list of (t s, positions (m, 3) m, quaternions (m, 4)), optional
        The poses on the way (:func:`what_if_motion`), the tiles in ``after``'s order; at
        most :data:`MOTION_FRAMES` of them become the slider's frames, the last one shown
        first (the end).

    Returns
    -------
    plotly.graph_objects.Figure
        One opaque ``Mesh3d`` per tile at the end (hover ``#k a-b``, the placed tile
        ``#k a-b (placed)``), and one semi-transparent ``Mesh3d`` (opacity
        :data:`GHOST_OPACITY`, hover ``#k a-b before``) per structure tile that moved more
        than :data:`MOVED_MM` or turned more than :data:`MOVED_DEG` (a tile that stayed is
        drawn once).
    """
    go = _plotly()
    pb, qb, pips_b = _poses(*before[1:], before[0])
    pa, qa, pips_a = _poses(*after[1:], after[0])
    n = len(pb)
    if len(pa) < n:
        raise InputError(ARGUMENTS, "after", f"expected the structure's {n} tiles first, then the placed tile, got {len(pa)} tiles")
    moved = [k for k in range(n) if _moved(pb[k], qb[k], pa[k], qa[k])]
    placed = " (placed)"
    layers = [(pa, qa, pips_a, range(n), 1.0, ""), (pa, qa, pips_a, range(n, len(pa)), 1.0, placed),
              (pb, qb, pips_b, moved, GHOST_OPACITY, " before")]
    fig = _figure(go, layers, preset, title, (pa, qa, pips_a) if labels else None)
    if motion:
        _add_motion(go, fig, pips_a, motion, preset, labels)
    return fig


MOTION_FRAMES = 40
"""At most this many moments of a what-if's motion on the slider of :func:`outcome_figure3d`."""


def _add_motion(go, fig, pips, motion, preset, labels: bool) -> None:
    """Frames of ``motion`` (each moving the opaque tiles, their edges and labels) with a
    slider and a play button; the slider starts at the end, as the figure shows it."""
    size = np.asarray(preset.tile.size, dtype=float)
    picks = np.unique(np.linspace(0, len(motion) - 1, min(len(motion), MOTION_FRAMES)).round().astype(int))
    tiles = [(i, t.meta["tile"]) for i, t in enumerate(fig.data) if isinstance(t.meta, dict) and "tile" in t.meta and not t.meta["ghost"]]
    edges = [i for i, t in enumerate(fig.data) if t.name == "edges"]
    texts = [i for i, t in enumerate(fig.data) if t.name in ("tile numbers", "halves")]
    frames = []
    last = None
    for j in picks:
        t, p, q = motion[j]
        p, q = np.asarray(p, float), np.asarray(q, float)
        live = _live(p, q)
        if last is not None:  # a tile removed on the way stays where it was last seen
            p, q = np.where(live[:, None], p, last[0]), np.where(live[:, None], q, last[1])
        last = (p, q)
        data, boxes = [], []
        for _, k in tiles:
            corners = np.round(box_corners(p[k], q[k], size) * 1000, DECIMALS_MM)
            boxes.append(corners)
            data.append(go.Mesh3d(x=corners[:, 0], y=corners[:, 1], z=corners[:, 2]))
        data += [_edges(go, boxes if m == 0 else []) for m in range(len(edges))]
        if labels and texts:
            data += _labels(go, p, q, pips, [k for _, k in tiles], size)[:len(texts)]
        frames.append(go.Frame(name=f"{t:.2f} s", data=data, traces=[i for i, _ in tiles] + edges + (texts if labels else [])))
    fig.frames = frames
    step = [{"method": "animate", "label": f.name,
             "args": [[f.name], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}, "transition": {"duration": 0}}]}
            for f in frames]
    fig.update_layout(
        sliders=[{"active": len(frames) - 1, "currentvalue": {"prefix": "after release: "}, "steps": step, "pad": {"t": 10}}],
        updatemenus=[{"type": "buttons", "showactive": False, "x": 0, "y": 0, "xanchor": "left", "yanchor": "top",
                      "buttons": [{"label": "play", "method": "animate",
                                   "args": [None, {"frame": {"duration": 80, "redraw": True}, "fromcurrent": False,
                                                   "transition": {"duration": 0}}]}]}],
    )


def what_if_motion(scenario, what_if: int, settled=None, *, tail_s: float | None = None, every_s: float | None = None):
    """One what-if from release until its tiles lie still: where they ended and the motion
    on the way (:func:`outcome_figure3d` draws both). A collapse is decided when a tile tips
    past ``max_tilt_deg``, long before the tiles lie still (and a tile tipping from a balance
    starts too slowly for a speed to tell); this goes on after the verdict until no tile has
    moved more than :data:`REST_MM` nor turned more than :data:`REST_DEG` for
    :data:`REST_HOLD_S`, at most ``tail_s`` (:data:`REST_TAIL_S`).

    Parameters
    ----------
    scenario : Scenario
    what_if : int
        The what-if's number in ``scenario.what_if``.
    settled : (positions (n, 3) m, quaternions (n, 4)) or None
        As :func:`magdomino.faces.render.what_if_outcome`.
    tail_s, every_s : float, s
        At most this long after the verdict (default :data:`REST_TAIL_S`); the poses kept
        this often (default :data:`MOTION_EVERY_S`).

    Returns
    -------
    end : (pips, positions (n + 1, 3) m, quaternions (n + 1, 4))
        As :func:`~magdomino.faces.render.what_if_outcome`, at the end of the motion.
    motion : list of (t s, positions (n + 1, 3) m, quaternions (n + 1, 4))
        The poses from release to the end, every ``every_s``; the last is ``end``'s.
    at_rest : bool
        The tiles lay still at the end (False: ``tail_s`` ran out first).
    """
    placement = what_if_placement(scenario, what_if)
    _, settled = settled_for_what_if(scenario, settled)
    recorder = _MotionRecorder(REST_TAIL_S if tail_s is None else tail_s, MOTION_EVERY_S if every_s is None else every_s)
    try_placement(scenario, settled, placement, world_hook=recorder)
    return recorder.end, recorder.motion, recorder.at_rest


class _MotionRecorder:
    """The ``world_hook`` of :func:`what_if_motion`: keeps the poses as the world steps, and
    before the world closes goes on until the tiles lie still."""

    def __init__(self, tail_s: float, every_s: float):
        self.tail_s, self.every_s = tail_s, every_s
        self.motion: list = []
        self.end = None
        self.at_rest = False

    def __call__(self, world) -> None:
        self.start = world.time
        world.on_step_every = max(1, int(round(self.every_s / world.time_step)))
        world.on_step = self.keep
        world.on_close = self.until_rest

    def keep(self, world) -> None:
        positions, quaternions = world.poses()
        self.motion.append((world.time - self.start, positions.copy(), quaternions.copy()))

    def until_rest(self, world) -> None:
        hold = max(1, int(round(REST_HOLD_S / self.every_s)))
        end = world.time + self.tail_s - 1e-9
        self.keep(world)
        while world.time < end and not self.at_rest:
            world.step(world.on_step_every)  # the hook keeps the poses
            if len(self.motion) > hold:
                self.at_rest = _still(self.motion[-hold - 1], self.motion[-1])
        world.on_step = None
        self.end = ([t.pips for t in world.tiles], *self.motion[-1][1:])


def _still(a, b) -> bool:
    """Has no tile (of those still in the world in both) moved more than :data:`REST_MM` or
    turned more than :data:`REST_DEG` from ``a`` to ``b`` (each (t, positions, quaternions))?"""
    pa, qa, pb, qb = np.asarray(a[1]), np.asarray(a[2]), np.asarray(b[1]), np.asarray(b[2])
    n = min(len(pa), len(pb))
    live = _live(pa[:n], qa[:n]) & _live(pb[:n], qb[:n])
    if not live.any():
        return True
    moved = np.linalg.norm(pb[:n][live] - pa[:n][live], axis=1).max() * 1000
    dots = np.clip(np.abs(np.sum(qa[:n][live] * qb[:n][live], axis=1)), 0.0, 1.0)
    return moved <= REST_MM and math.degrees(2 * math.acos(dots.min())) <= REST_DEG


REST_TAIL_S = 5.0
"""How long :func:`what_if_motion` goes on after a verdict, at most, for the tiles to lie still."""

REST_HOLD_S, REST_MM, REST_DEG = 0.3, 0.1, 0.2
"""The tiles lie still when for 0.3 s none moved more than 0.1 mm nor turned more than 0.2°."""

MOTION_EVERY_S = 0.02
""":func:`what_if_motion` keeps the poses every 1/50 s of simulated time."""


def _moved(p0, q0, p1, q1) -> bool:
    """Did a tile move (or vanish) between two poses?"""
    if not (np.all(np.isfinite(p1)) and np.all(np.isfinite(q1))):
        return True
    if np.linalg.norm(np.asarray(p1) - p0) * 1000 > MOVED_MM:
        return True
    dot = min(1.0, abs(float(np.dot(q0, q1)) / (np.linalg.norm(q0) * np.linalg.norm(q1))))
    return math.degrees(2 * math.acos(dot)) > MOVED_DEG


def figure_html(fig, *, include_plotlyjs: bool = True, div_id: str | None = None) -> str:
    """An HTML fragment that draws ``fig``: a ``<div>`` and the script that fills it.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    include_plotlyjs : bool
        True: plotly.js (about 4.8 MB) inline in the fragment, which then works anywhere,
        offline (a notebook, a page of its own). False: the page must load plotly.js once
        before the fragment (:func:`plotlyjs_script`): a page of several figures embeds it
        once, in the first fragment or in its head.
    div_id : str, optional
        The ``id`` of the plot's ``<div>``. By default ``magdomino-3d-`` followed by a hash
        of the figure and a count of the figures drawn by this process: the same figure
        drawn again in another place on a page gets its own id.

    Returns
    -------
    str
        The fragment (no ``<html>``, ``<head>`` or ``<body>``).
    """
    _plotly()
    if div_id is None:
        digest = hashlib.sha1(fig.to_json().encode()).hexdigest()[:10]
        div_id = f"magdomino-3d-{digest}-{next(_div_counter)}"
    return fig.to_html(include_plotlyjs=bool(include_plotlyjs), full_html=False, div_id=div_id,
                       default_width="100%", default_height=f"{FIGURE_HEIGHT_PX}px",
                       config={"displaylogo": False, "responsive": True})


def plotlyjs_script() -> str:
    """``<script>`` holding plotly.js (about 4.8 MB), to put once before fragments made with
    ``figure_html(fig, include_plotlyjs=False)``."""
    _plotly()
    from plotly.offline import get_plotlyjs

    return f'<script type="text/javascript">{get_plotlyjs()}</script>'
