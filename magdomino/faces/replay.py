"""Replays of whole games from their JSON records: frames, then a GIF, an MP4 or PNG files.

The API (the report page embeds :func:`replay_gif`):

- :func:`check_record` / :func:`load_record`: a game record of any rule of the package, or
  one line of :class:`~magdomino.errors.InputError` (not a record, a newer format);
- :func:`replay` -> :class:`Replay` (``frames``, ``captions``, ``durations_ms``,
  ``placements``, ``mismatches``);
- :func:`write_frames` writes a Replay to ``.gif`` (Pillow), ``.mp4`` (imageio with its
  ffmpeg package, libx264, yuv420p) or a directory of PNG files;
- :func:`replay_gif` / :func:`replay_to` = both in one call.

Tower games with PyBullet physics (``"physics": "dynamics"``, ``"pybullet"`` in older records) are replayed in the physics:
the recorded moves are fed, in order, to a fresh :class:`~magdomino.games.core.Game` of the
same seed and options, adjudicated by the same :class:`PybulletAdjudicator` pipeline with
the recorded preset, magnets and drop/slide settings. PyBullet repeats itself exactly for
identical commands, so each placement happens again as it happened (the drop or the slide,
the fall). The rules follow the *recorded* verdicts; each replayed verdict is compared with
the recorded one and every difference is listed in :attr:`Replay.mismatches` (a check of
determinism, never a silent redraw). Poses are taken every :data:`FRAME_EVERY_S` of
simulated time and only a budget of them is drawn: :data:`FRAMES_STANDING` per standing
placement, up to :data:`FRAMES_FALL` for a collapse shown in slow motion, then
:data:`FRAMES_LEAVING` frames of the taken-back tiles leaving the table (the budget and
the caption strip: :mod:`magdomino.faces.frames`, shared with the two replays).

Other games: one frame per move, the board after the move: the construction at its grid
poses (traditional, or a tower game recorded without physics), drawn by the same
TinyRenderer scene as :mod:`magdomino.faces.render`; the chain games' and 20 sur 20's
table pictures of :mod:`magdomino.faces.tables` (the last deal's table as the record
keeps it, built up in the order the tiles were placed).

Every frame has a caption strip: deal, placement, player, tile, mode and motion, verdict,
and each seat's hand as a row of small tiles.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from magdomino.checks import check_choice, check_count
from magdomino.errors import ARGUMENTS, InputError
from magdomino.faces.frames import (  # noqa: F401 - the frame budget and strip, named here too
    FRAME_EVERY_S,
    FRAME_MS,
    FRAMES_FALL,
    FRAMES_LEAVING,
    FRAMES_STANDING,
    HOLD_MS,
    compose,
    strip_height,
)
from magdomino.faces.render import parse_size
from magdomino.faces.replay_flat import replay_table
from magdomino.faces.replay_tower import replay_construction
from magdomino.games.chain.record import RECORD_VERSION as CHAIN_RECORD_VERSION
from magdomino.games.family import RULES, family_of
from magdomino.games.record import RECORD_VERSION as TOWER_RECORD_VERSION
from magdomino.optional import require

WIDTH, HEIGHT = 480, 360
"""Default frame size (pixels; even, as H.264's yuv420p needs)."""

RECORD_VERSION = max(TOWER_RECORD_VERSION, CHAIN_RECORD_VERSION)
"""The newest record format this version reads, of any rule."""


@dataclass
class Replay:
    """A replayed game.

    Attributes
    ----------
    frames : list of ndarray, shape (height, width, 3), uint8
    captions : list of str
        The caption strip's text of each frame (lines joined by ``" | "``).
    durations_ms : list of int
        Display time of each frame.
    placements : list of dict
        One per move: ``deal``, ``player``, ``tile``, ``collapsed``, ``hand_sizes``,
        ``construction_size`` and ``levels`` (tower games: levels of the construction
        after the move).
    mismatches : list of dict
        Placements whose replayed verdict differs from the recorded one: ``deal``,
        ``placement`` (1-based in the deal), ``tile``, ``recorded``, ``replayed``, ``message``.
    """

    rule: str
    frames: list = field(default_factory=list)
    captions: list = field(default_factory=list)
    durations_ms: list = field(default_factory=list)
    placements: list = field(default_factory=list)
    mismatches: list = field(default_factory=list)


def check_record(data, source: str) -> dict:
    """``data`` if it is a game record of a rule of this package, in a format this version
    reads; else InputError (one line)."""
    if not isinstance(data, dict):
        raise InputError(source, "", f"a game record (a JSON object from play --json), got {type(data).__name__}")
    rule = data.get("rule")
    check_choice(rule, "rule", RULES, source=source)
    version = data.get("record_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version > RECORD_VERSION:
        raise InputError(source, "record_version", f"a record format this version reads (<= {RECORD_VERSION}), got {version!r}")
    if not isinstance(data.get("events"), list) or not isinstance(data.get("final"), dict):
        raise InputError(source, "events", "a record's list of events and its final position")
    players = data.get("players")
    check_count(players, "players", minimum=2, source=source)
    return family_of(rule).check_record(data, source)


def load_record(path) -> dict:
    """Read and check a game record file (:func:`check_record`)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(str(path), "", f"a JSON game record ({type(exc).__name__})") from None
    return check_record(data, str(path))


def check_output(out) -> str:
    """The kind of output ``out`` names: ``"gif"``, ``"mp4"`` or ``"dir"`` (an existing
    directory or a path ending in ``/`` or without a suffix); InputError otherwise."""
    text = str(out)
    path = Path(text)
    if path.is_dir() or text.endswith(("/", "\\")):
        return "dir"
    suffix = path.suffix.lower()
    if suffix == ".mp4":
        _video_modules()  # missing: said before anything is drawn
    if suffix in (".gif", ".mp4"):
        return suffix[1:]
    if suffix == "":
        return "dir"
    raise InputError(ARGUMENTS, "out", f"a .gif or .mp4 file or a directory, got {text!r}")


def replay(record: dict, *, width: int = WIDTH, height: int = HEIGHT, source: str = "record") -> Replay:
    """Replay a checked record (:func:`check_record`) into frames; see the module docstring."""
    width, height = parse_size((width, height))
    width, height = width - width % 2, height - height % 2
    rule = record["rule"]
    if not family_of(rule).builds:  # the chain and 20 sur 20: their table, drawn flat
        return replay_table(record, width, height, Replay(rule))
    return replay_construction(record, width, height, Replay(rule), source)


def write_frames(rep: Replay, out) -> Path:
    """Write a replay's frames to ``out`` (.gif, .mp4 or a directory of PNG files)."""
    kind = check_output(out)
    path = Path(out)
    if not rep.frames:
        raise InputError(ARGUMENTS, "out", "a game with at least one move to show")
    try:
        if kind == "dir":
            from PIL import Image

            path.mkdir(parents=True, exist_ok=True)
            for k, frame in enumerate(rep.frames):
                Image.fromarray(frame).save(path / f"frame-{k:04d}.png", optimize=True)
        elif kind == "gif":
            _write_gif(rep, path)
        else:
            _write_mp4(rep, path)
    except OSError as exc:
        raise InputError(ARGUMENTS, "out", f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _write_gif(rep: Replay, path: Path) -> None:
    from PIL import Image

    pictures = [Image.fromarray(f) for f in rep.frames]
    h = pictures[0].height
    # One palette for every frame (no flicker), from frames spread over the game.
    sample = pictures[:: max(1, len(pictures) // 8)] + [pictures[-1]]
    sheet = Image.new("RGB", (pictures[0].width, h * len(sample)))
    for k, picture in enumerate(sample):
        sheet.paste(picture, (0, k * h))
    palette = sheet.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    quantized = [p.quantize(palette=palette, dither=Image.Dither.NONE) for p in pictures]
    durations = list(rep.durations_ms)
    durations[-1] = max(durations[-1], 2000)
    quantized[0].save(path, save_all=True, append_images=quantized[1:], duration=durations, loop=0, optimize=True)


MP4_FPS = 20


def _video_modules():
    """imageio.v2, with imageio-ffmpeg (its ffmpeg binary); InputError (key ``out``) naming the extra when missing."""
    imageio = require("imageio.v2", "an .mp4", key="out")
    require("imageio_ffmpeg", "an .mp4", key="out")  # the ffmpeg binary comes with it
    return imageio


def _write_mp4(rep: Replay, path: Path) -> None:
    imageio = _video_modules()
    tick = 1000 / MP4_FPS
    writer = imageio.get_writer(
        str(path), fps=MP4_FPS, codec="libx264", pixelformat="yuv420p", macro_block_size=2,
        ffmpeg_log_level="error", output_params=["-crf", "28", "-preset", "medium"],
    )
    try:
        shown = 0.0
        for frame, ms in zip(rep.frames, rep.durations_ms):
            # Each frame repeated for its display time (rounded on the running total).
            end = shown + ms
            repeats = int(round(end / tick)) - int(round(shown / tick))
            shown = end
            for _ in range(max(1, repeats)):
                writer.append_data(frame)
    finally:
        writer.close()


def replay_to(record: dict, out, *, width: int = WIDTH, height: int = HEIGHT, source: str = "record") -> Replay:
    """Check ``out``, replay ``record`` and write it (see :func:`write_frames`); returns the Replay."""
    check_output(out)
    rep = replay(check_record(record, source), width=width, height=height, source=source)
    write_frames(rep, out)
    return rep


def replay_gif(record: dict, path, **kw) -> Replay:
    """A GIF of the whole game (``path`` ends in .gif); the report page embeds it."""
    if Path(path).suffix.lower() != ".gif":
        raise InputError(ARGUMENTS, "out", f"a .gif file, got {str(path)!r}")
    return replay_to(record, path, **kw)
