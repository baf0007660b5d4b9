"""Pictures of constructions: a PNG of a settled structure, a GIF of a what-if placement.

Drawn with PyBullet's software renderer (``ER_TINY_RENDERER``) in DIRECT mode, so no display
is needed. The physics runs exactly as :func:`magdomino.studies.simulation.settle_structure` and
:func:`magdomino.studies.simulation.try_placement` run it; the pictures are taken in a separate,
render-only PyBullet client (a *scene*) that mirrors the tiles' poses:

- each tile is the rounded, dimpled mesh of :func:`magdomino.model.tiles.tile_uv_mesh` with a
  per-tile texture (:func:`magdomino.model.tiles.tile_texture`: body colour, white pips, a line
  between the halves), written once per process into a temporary directory;
- the table is a large flat box in :data:`TABLE_COLOUR`;
- shadows: TinyRenderer's own shadow map does not work at the scale of these tiles (its
  depth bias is 5 cm), so each tile's box is projected along the light onto the table, and
  the table pixels under those projections (known from the segmentation mask) are darkened,
  with a soft edge.

A GIF records a frame every ``frame_every_s`` of simulated time through the world's
``on_step`` hook, from the release of the placed tile to the verdict, then keeps stepping
until every tile lies still, for at most ``tail_s``, so that a fall is seen to its end:
``try_placement`` closes its world when the verdict is in, and the render runs this tail
just before that close (it wraps the world's ``close``).

Pillow (a dependency of matplotlib) writes the files; it is imported only here.
"""

from __future__ import annotations

import atexit
import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
from scipy.spatial import ConvexHull

from magdomino.checks import check_count
from magdomino.errors import ARGUMENTS, InputError
from magdomino.maths.poses import box_corners, quaternion_matrices
from magdomino.model.tiles import colour_of, colour_rgb, tile, tile_texture, tile_uv_mesh
from magdomino.physics.connections import connect
from magdomino.physics.settle import run_until_still
from magdomino.studies.engines import check_structure_settled
from magdomino.studies.simulation import settle_structure, try_placement

TABLE_COLOUR = (0.80, 0.76, 0.69)
"""A light, warm grey: tiles of every colour stand out on it."""

LIGHT_DIRECTION = np.array([-0.55, -0.45, 0.85]) / np.linalg.norm([-0.55, -0.45, 0.85])
"""Towards the light (unit vector): from above, front left; shadows fall to the right."""

SHADOW_DARKNESS = 0.42
"""Fraction of the table's brightness taken away in full shadow."""

CAMERA_AZIMUTH_DEG = -62.0
"""Where the camera stands, seen from the construction: -90 is straight in front (-y)."""

CAMERA_ELEVATION_DEG = 32.0
CAMERA_FOV_DEG = 35.0
_FAR_AWAY = np.array([0.0, 0.0, -10.0])  # where a removed tile's picture is put

_texture_dir: Path | None = None


def _texture_path(pips, size, colour) -> Path:
    """A PNG texture for a tile, made once per process in a temporary directory."""
    global _texture_dir
    from PIL import Image

    if _texture_dir is None:
        _texture_dir = Path(tempfile.mkdtemp(prefix="magdomino-textures-"))
        atexit.register(shutil.rmtree, _texture_dir, ignore_errors=True)
    rgb = "".join(f"{round(c * 255):02x}" for c in colour)
    mm = "x".join(f"{s * 1000:g}" for s in size)
    path = _texture_dir / f"tile-{pips[0]}-{pips[1]}-{rgb}-{mm}.png"
    if not path.exists():
        Image.fromarray(tile_texture(pips, size, colour)).save(path)
    return path


class Camera:
    """A fixed camera that frames a box (world frame, m), looking down from the front right.

    Parameters
    ----------
    lo, hi : array_like, shape (3,), m
        Corners of the box to frame.
    width, height : int
        Image size in pixels.
    """

    def __init__(self, lo, hi, width: int, height: int, margin: float = 0.8):
        self.width, self.height = int(width), int(height)
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        target = (lo + hi) / 2
        az, el = math.radians(CAMERA_AZIMUTH_DEG), math.radians(CAMERA_ELEVATION_DEG)
        back = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        forward = -back
        right = np.cross(forward, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        tan_v = math.tan(math.radians(CAMERA_FOV_DEG) / 2) * margin
        tan_h = tan_v * self.width / self.height
        box = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        for _ in range(4):  # fit the distance, then centre the box's picture, and again
            corners = box - target
            xr, xu, xf = corners @ right, corners @ up, corners @ forward
            distance = max(0.05, float(np.max(np.maximum(np.abs(xr) / tan_h, np.abs(xu) / tan_v) - xf)))
            sr, su = xr / (distance + xf), xu / (distance + xf)  # tangents seen from the eye
            target = target + distance * ((sr.max() + sr.min()) / 2 * right + (su.max() + su.min()) / 2 * up)
        self.eye = target - forward * distance
        self.target = target
        self.near = max(0.005, 0.25 * distance)
        self.far = distance * 6 + 1.0
        self.view = None
        self.projection = None

    def matrices(self, client):
        if self.view is None:
            self.view = client.computeViewMatrix(self.eye.tolist(), self.target.tolist(), [0, 0, 1])
            self.projection = client.computeProjectionMatrixFOV(CAMERA_FOV_DEG, self.width / self.height, self.near, self.far)
        return self.view, self.projection

    def to_pixels(self, points: np.ndarray) -> np.ndarray:
        """Pixel coordinates (column, row) of world points, shape (n, 2)."""
        view = np.array(self.view).reshape(4, 4).T  # PyBullet's matrices are column-major
        proj = np.array(self.projection).reshape(4, 4).T
        h = np.c_[points, np.ones(len(points))] @ (proj @ view).T
        ndc = h[:, :2] / h[:, 3:4]
        return np.c_[(ndc[:, 0] + 1) / 2 * self.width, (1 - ndc[:, 1]) / 2 * self.height]


class Scene:
    """A render-only PyBullet client mirroring a construction's tiles.

    Parameters
    ----------
    preset : Preset
        Tile size and colours.
    """

    def __init__(self, preset):
        self.client, pybullet = connect()
        self._pb = pybullet
        self.preset = preset
        self.size = np.asarray(preset.tile.size, dtype=float)
        table = self.client.createVisualShape(pybullet.GEOM_BOX, halfExtents=[2.0, 2.0, 0.005], rgbaColor=[*TABLE_COLOUR, 1])
        self.table = self.client.createMultiBody(0, -1, table, [0, 0, -0.005])
        self.bodies: list[int] = []

    def _add(self, pips) -> int:
        pb = self._pb
        colour = colour_rgb(colour_of(tile(*pips), self.preset.tile.colours)) or (0.8, 0.2, 0.2)
        vertices, indices, uvs, normals = tile_uv_mesh(pips, self.size)
        shape = self.client.createVisualShape(
            pb.GEOM_MESH, vertices=vertices.tolist(), indices=indices.tolist(), uvs=uvs.tolist(), normals=normals.tolist()
        )
        body = self.client.createMultiBody(0, -1, shape, _FAR_AWAY.tolist())
        texture = self.client.loadTexture(str(_texture_path(tuple(pips), tuple(self.size), colour)))
        self.client.changeVisualShape(body, -1, textureUniqueId=texture, rgbaColor=[1, 1, 1, 1])
        return body

    def sync(self, pips: list, positions: np.ndarray, quaternions: np.ndarray) -> None:
        """Put the tiles at these poses (NaN rows: removed tiles, put out of sight)."""
        while len(self.bodies) < len(pips):
            self.bodies.append(self._add(pips[len(self.bodies)]))
        self._poses = []
        for body, p, q in zip(self.bodies, positions, quaternions):
            if not np.all(np.isfinite(p)):
                p, q = _FAR_AWAY, np.array([0, 0, 0, 1.0])
            else:
                self._poses.append((np.asarray(p, dtype=float), np.asarray(q, dtype=float)))
            self.client.resetBasePositionAndOrientation(body, list(map(float, p)), list(map(float, q)))

    def image(self, camera: Camera) -> np.ndarray:
        """Render the scene: an RGB image, shape (height, width, 3), uint8."""
        view, projection = camera.matrices(self.client)
        w, h, rgba, _, seg = self.client.getCameraImage(
            camera.width,
            camera.height,
            view,
            projection,
            lightDirection=LIGHT_DIRECTION.tolist(),
            lightColor=[1.0, 1.0, 1.0],
            lightAmbientCoeff=0.55,
            lightDiffuseCoeff=0.5,
            lightSpecularCoeff=0.08,
            shadow=0,
            renderer=self._pb.ER_TINY_RENDERER,
        )
        rgb = np.reshape(np.asarray(rgba, dtype=np.uint8), (h, w, 4))[:, :, :3].astype(float)
        table = np.reshape(np.asarray(seg), (h, w)) == self.table
        shade = self._shadow_mask(camera)
        rgb[table] *= (1 - SHADOW_DARKNESS * shade[table])[:, None]
        return np.clip(rgb + 0.5, 0, 255).astype(np.uint8)

    def _shadow_mask(self, camera: Camera) -> np.ndarray:
        """How much each pixel of the table is in the tiles' shadow, in [0, 1]."""
        from PIL import Image, ImageDraw, ImageFilter
        mask = Image.new("L", (camera.width, camera.height), 0)
        draw = ImageDraw.Draw(mask)
        light = LIGHT_DIRECTION
        for p, q in self._poses:
            corners = box_corners(p, q, self.size)
            if np.min(corners[:, 2]) > 0.5:  # nothing sensible to cast
                continue
            ground = corners - np.outer(np.maximum(corners[:, 2], 0.0) / light[2], light)
            try:
                hull = ground[ConvexHull(ground[:, :2]).vertices]
            except Exception:  # degenerate (seen edge-on from the light)
                continue
            hull[:, 2] = 0.0
            pixels = camera.to_pixels(hull)
            draw.polygon([tuple(map(float, px)) for px in pixels], fill=255)
        blur = max(1.0, camera.height / 160)
        return np.asarray(mask.filter(ImageFilter.GaussianBlur(blur)), dtype=float) / 255

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.disconnect()
            except Exception:
                pass
            self.client = None


def tiles_box(positions: np.ndarray, quaternions: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A box around the tiles at these poses (NaN rows ignored), down to the table."""
    live = np.all(np.isfinite(positions), axis=1)
    corners = box_corners(positions[live], quaternions[live], size).reshape(-1, 3)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    lo[2] = 0.0
    return lo, hi


def parse_size(size) -> tuple[int, int]:
    """``(width, height)`` from ``"WxH"`` or a pair; InputError unless 64..4096 each."""
    if isinstance(size, str):
        try:
            w, h = (int(v) for v in size.lower().split("x"))
        except ValueError:
            raise InputError(ARGUMENTS, "size", f"expected WIDTHxHEIGHT like 800x600, got {size!r}") from None
    else:
        w, h = size
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise InputError(ARGUMENTS, "size", f"expected 64..4096 pixels each way, got {w}x{h}")
    return int(w), int(h)


def _save_png(image: np.ndarray, path) -> None:
    from PIL import Image

    path = Path(path)
    try:
        Image.fromarray(image).save(path, optimize=True)
    except OSError as exc:
        raise InputError(ARGUMENTS, "out", f"cannot write {path}: {exc.strerror or exc}") from None


# -- running, with frames and a tail ------------------------------------------------------


class _Recorder:
    """The ``world_hook`` of a run: records frames and runs the tail before the world closes."""

    def __init__(self, scene: Scene | None, camera_for, frame_every_s: float, tail_s):
        self.scene = scene
        self.camera_for = camera_for  # callable(positions, quaternions) -> Camera, called once
        self.camera = None
        self.frame_every_s = frame_every_s
        self.tail_s = tail_s  # at most this long after the verdict, while something moves
        self.frames: list[np.ndarray] = []
        self.frame_times: list[float] = []
        self.final = None  # (pips, positions, quaternions) at the end of the tail
        self.verdict_time = None

    def __call__(self, world) -> None:
        self.start = world.time
        if self.scene is not None:  # the first frame comes once the placed tile is there
            world.on_step_every = max(1, int(round(self.frame_every_s / world.time_step)))
            world.on_step = self.snap
        world.on_close = self.run_tail

    def run_tail(self, world) -> None:
        """Before the world closes: the same run goes on until every tile lies still, at most
        ``tail_s`` (:func:`~magdomino.physics.settle.run_until_still`)."""
        self.verdict_time = world.time - self.start
        if self.tail_s > 0:
            run_until_still(world, self.tail_s)
        positions, quats = world.poses()
        self.final = ([t.pips for t in world.tiles], positions, quats)

    def snap(self, world) -> None:
        positions, quats = world.poses()
        if self.camera is None:
            self.camera = self.camera_for(positions, quats)
        self.scene.sync([t.pips for t in world.tiles], positions, quats)
        self.frames.append(self.scene.image(self.camera))
        self.frame_times.append(world.time - self.start)


def settled_for_what_if(scenario, settled):
    """The settled structure a what-if starts from: ``settled`` as given (the caller vouches
    that it settled), or settled here and refused unless it settles (as ``odds`` does)."""
    if settled is not None:
        return None, settled
    verdict, settled = settle_structure(scenario)
    check_structure_settled(scenario, verdict, before="a what-if is shown")
    return verdict, settled


def what_if_placement(scenario, what_if: int):
    """The scenario's what-if number ``what_if`` (an error naming ``what_if`` when there is no such one)."""
    if not scenario.what_if:
        raise InputError(scenario.source, "what_if", "expected at least one [[what_if]] to animate or show")
    check_count(what_if, "what_if", minimum=0, maximum=len(scenario.what_if) - 1)
    return scenario.what_if[what_if]


# -- public -------------------------------------------------------------------------------


def render_image(scenario, *, width: int = 800, height: int = 600, settled=None, what_if: int | None = None, labels: bool = True):
    """The picture of :func:`render_png` as an array (height, width, 3) uint8, and its verdict;
    ``labels``: each tile's number and its halves' written on it (:func:`label_tiles`).

    Returns
    -------
    image : ndarray, shape (height, width, 3), uint8
    verdict : Verdict or None
        The structure's verdict (None when ``settled`` was given), or the what-if's.
    """
    width, height = parse_size((width, height))
    size = np.asarray(scenario.preset.tile.size, dtype=float)
    recorder = _Recorder(None, None, 0.0, 1.0)
    if what_if is None:
        if settled is None:
            verdict, _ = settle_structure(scenario, world_hook=recorder)
            pips, positions, quats = recorder.final
        else:
            verdict = None
            pips = [pl.pips for pl in scenario.structure]
            positions, quats = settled
    else:
        verdict, (pips, positions, quats) = _what_if_end(scenario, what_if, settled)
    scene = Scene(scenario.preset)
    try:
        scene.sync(pips, positions, quats)
        lo, hi = tiles_box(positions, quats, size)
        camera = Camera(lo, hi, width, height)
        image = scene.image(camera)
        return (label_tiles(image, camera, positions, quats, size) if labels else image), verdict
    finally:
        scene.close()


def label_tiles(image: np.ndarray, camera: Camera, positions, quaternions, size) -> np.ndarray:
    """``image`` with each tile's number (``#N``, as the placement language names it) on its
    top face and its halves' numbers (``h0``, ``h1``) at their ends; tiles removed from the
    world (NaN rows) are left out. Labels are drawn over everything, so a tile hidden behind
    another still says where it is."""
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.fromarray(image)
    draw = ImageDraw.Draw(picture)
    scale = max(10, image.shape[0] // 40)
    fonts = {True: ImageFont.load_default(size=scale), False: ImageFont.load_default(size=max(8, scale * 3 // 4))}
    for k, (p, q) in enumerate(zip(np.asarray(positions, float), np.asarray(quaternions, float))):
        if not np.all(np.isfinite(p)):
            continue
        R = quaternion_matrices(q)
        top = [p + R @ np.array([dx * size[0], 0.0, size[2] / 2]) for dx in (0.0, -0.375, 0.375)]
        (cx, cy), *halves = camera.to_pixels(np.array(top))
        for (x, y), text, big in [((cx, cy), f"#{k}", True), (halves[0], "h0", False), (halves[1], "h1", False)]:
            draw.text((x, y), text, fill=(0, 0, 0) if big else (255, 255, 255), font=fonts[big], anchor="mm",
                      stroke_width=2 if big else 1, stroke_fill=(255, 255, 255) if big else (0, 0, 0))
    return np.asarray(picture)


def _what_if_end(scenario, what_if: int, settled, tail_s: float = 1.0):
    """Run one what-if from the settled structure (settled here if None, refused unless it
    settles), on at most ``tail_s`` after its verdict while something moves: its verdict,
    and (pips, positions, quaternions) at the end."""
    placement = what_if_placement(scenario, what_if)
    _, settled = settled_for_what_if(scenario, settled)
    recorder = _Recorder(None, None, 0.0, tail_s)
    verdict = try_placement(scenario, settled, placement, world_hook=recorder)
    return verdict, recorder.final


def what_if_outcome(scenario, what_if: int, settled=None):
    """Where the tiles are at the end of one what-if: what :func:`render_png` draws with
    ``what_if`` (everything at rest, or one second after the verdict while something moves).

    Parameters
    ----------
    scenario : Scenario
    what_if : int
        The what-if's number in ``scenario.what_if``.
    settled : (positions (n, 3) m, quaternions (n, 4)) or None
        The settled structure, if already known (trusted); else it is settled here, and a
        structure that does not settle is refused (InputError on ``structure``).

    Returns
    -------
    pips : list of (int, int)
        The structure's tiles as shown, then the placed tile.
    positions : ndarray, shape (n + 1, 3), m
        NaN rows: tiles removed from the world.
    quaternions : ndarray, shape (n + 1, 4), x, y, z, w
    """
    return _what_if_end(scenario, what_if, settled)[1]


def render_png(scenario, path, width: int = 800, height: int = 600, *, settled=None, what_if: int | None = None):
    """Draw a scenario's settled structure (or the end of one what-if) into a PNG file.

    Parameters
    ----------
    scenario : Scenario
    path : str or Path
        The PNG file to write.
    width, height : int
        Image size in pixels.
    settled : (positions (n, 3), quaternions (n, 4)) or None
        The settled structure, if already known (else it is settled here).
    what_if : int or None
        Draw the construction after this what-if placement instead (where everything came to
        rest, or lay one second after a collapse). A structure that does not settle is
        refused (InputError on ``structure``).

    Returns
    -------
    Verdict or None
        The verdict of what was drawn (None when ``settled`` was given for the structure).
    """
    image, verdict = render_image(scenario, width=width, height=height, settled=settled, what_if=what_if)
    _save_png(image, path)
    return verdict


def render_frames(
    scenario,
    what_if: int = 0,
    *,
    settled=None,
    width: int = 640,
    height: int = 480,
    frame_every_s: float = 0.01,
    tail_s: float = 1.0,
):
    """Frames of one what-if, from release to verdict, then while anything moves (at most
    ``tail_s`` more), so that a fall is seen to its end.

    Returns
    -------
    frames : list of ndarray, shape (height, width, 3), uint8
    times : list of float, s
        Simulated time of each frame since the release.
    verdict : Verdict
    verdict_time : float, s
        When the verdict was in.
    """
    width, height = parse_size((width, height))
    placement = what_if_placement(scenario, what_if)
    _, settled = settled_for_what_if(scenario, settled)
    size = np.asarray(scenario.preset.tile.size, dtype=float)
    scene = Scene(scenario.preset)

    def camera_for(positions, quats):
        # The structure and the placed tile where it starts; wider by half the tower's
        # height, so that a fall stays in the picture.
        lo, hi = tiles_box(positions, quats, size)
        spread = 0.5 * hi[2]
        lo[:2] -= spread
        hi[:2] += spread
        return Camera(lo, hi, width, height, margin=0.9)

    recorder = _Recorder(scene, camera_for, frame_every_s, tail_s)
    try:
        verdict = try_placement(scenario, settled, placement, world_hook=recorder)
    finally:
        scene.close()
    return recorder.frames, recorder.frame_times, verdict, recorder.verdict_time


def render_gif(
    scenario,
    path,
    what_if: int = 0,
    settled=None,
    *,
    fps: float = 25.0,
    width: int = 640,
    height: int = 480,
    frame_every_s: float = 0.01,
    tail_s: float = 1.0,
    caption: bool = True,
):
    """Animate one what-if placement from release to verdict into a GIF file.

    The structure must settle first (else InputError on ``structure``, as ``odds`` refuses);
    a ``settled`` given by the caller is trusted.

    A frame every ``frame_every_s`` of simulated time (10 ms: at 25 frames per second the
    GIF runs 2.5 times slower than life), then at most ``tail_s`` more while anything still
    moves, so that a fall is seen; the first and last frames are held. ``caption`` writes the time and, from the
    verdict on, the verdict in a corner.

    Returns
    -------
    Verdict
    """
    from PIL import Image, ImageDraw, ImageFont

    frames, times, verdict, verdict_time = render_frames(
        scenario, what_if, settled=settled, width=width, height=height, frame_every_s=frame_every_s, tail_s=tail_s
    )
    if verdict.error:
        outcome = "error"
    elif verdict.collapsed:
        outcome = f"collapsed ({verdict.reason})"
    elif verdict.settled:
        outcome = "stood"
    else:
        outcome = f"undecided ({verdict.reason})"
    try:
        font = ImageFont.load_default(size=max(10, height // 30))
    except TypeError:  # Pillow < 10.1: one bitmap size
        font = ImageFont.load_default()
    pictures = []
    for image, t in zip(frames, times):
        picture = Image.fromarray(image)
        if caption:
            draw = ImageDraw.Draw(picture)
            text = f"{scenario.name}, what-if {what_if}   t = {t:.2f} s"
            if verdict_time is not None and t >= verdict_time - 1e-9:
                text += f"   {outcome}"
            draw.text((8, 6), text, fill=(40, 40, 40), font=font)
        pictures.append(picture)
    # One palette for every frame (no flicker), from a few frames spread over the run.
    sample = pictures[:: max(1, len(pictures) // 6)] + [pictures[-1]]
    sheet = Image.new("RGB", (width, height * len(sample)))
    for k, picture in enumerate(sample):
        sheet.paste(picture, (0, k * height))
    palette = sheet.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    quantized = [p.quantize(palette=palette, dither=Image.Dither.NONE) for p in pictures]
    frame_ms = int(round(1000 / fps))
    durations = [frame_ms] * len(quantized)
    durations[0] = max(frame_ms, 600)
    durations[-1] = max(frame_ms, 1500)
    path = Path(path)
    try:
        quantized[0].save(path, save_all=True, append_images=quantized[1:], duration=durations, loop=0, optimize=True)
    except OSError as exc:
        raise InputError(ARGUMENTS, "out", f"cannot write {path}: {exc.strerror or exc}") from None
    return verdict
