"""Where placements go: rest poses on what is below, a hand's miss, motions that start clear.

The geometry of :mod:`magdomino.studies.scenario`'s placements (which re-exports these
names): a tile's rest pose from its file entry or its placement-language text
(:func:`target_pose`, :func:`rest_pose`), the structure's poses (:func:`structure_poses`),
the pose and motion a what-if is aimed with and how a hand misses it (:func:`aim_placement`),
and the checks that no tile starts inside another (:func:`check_clear`). Positions in m,
yaws in rad, poses ``(position (3,), quaternion (4,))``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from magdomino.errors import InputError
from magdomino.maths.geometry import SLIDE_START_MM, box_rises, box_separations, footprints_overlap, footprints_overlap_many
from magdomino.maths.poses import box_corners, quaternion_matrices, quaternion_yaw, top_face_height, yaw_quaternion
from magdomino.physics.motion import CLEAR_TOLERANCE_M, Drop, NoClearMotion, Slide, clear_motion, tile_boxes

if TYPE_CHECKING:  # the scenario's types, for annotations only (scenario.py imports this module)
    from magdomino.studies.scenario import Placement, Scenario


def target_pose(placement: Placement, poses: list[tuple[np.ndarray, np.ndarray]], pips_shown, size: np.ndarray):
    """Rest pose (position (3,) m, yaw rad) of a placement, given the poses before it.

    Parameters
    ----------
    placement : Placement
    poses : list of (position (3,), quaternion (4,))
        Poses of the tiles already there (index = structure index).
    pips_shown : list of (int, int)
        The pips of those tiles as shown (half 0, half 1).
    size : ndarray, shape (3,), m
    """
    length, _, thick = size
    if placement.on is not None:
        t, h = placement.on
        p_t, q_t = poses[t]
        yaw_t = quaternion_yaw(q_t)
        axis_t = np.array([math.cos(yaw_t), math.sin(yaw_t)])
        outward = axis_t if h == 1 else -axis_t
        anchor = np.asarray(p_t[:2]) + outward * length / 4
        if placement.relation == "after":  # the matching half one half-length further, in line
            anchor = anchor + outward * length / 2
        value = pips_shown[t][h]
        k = 0 if placement.pips[0] == value else 1
        turn = math.radians(placement.yaw_deg)
        c, s = math.cos(turn), math.sin(turn)
        u = np.array([c * outward[0] - s * outward[1], s * outward[0] + c * outward[1]])
        centre = anchor + u * length / 4
        yaw = math.atan2(u[1], u[0]) if k == 0 else math.atan2(-u[1], -u[0])
        if placement.relation == "beneath":  # on the table, under the tied tile's half (a file or a what-if alike)
            return np.array([centre[0], centre[1], thick / 2]), yaw
        # "after": end to end, resting on what is below it (the table for the rules' flat game)
    else:
        centre = np.array(placement.pos_mm[:2]) / 1000
        yaw = math.radians(placement.yaw_deg)
    if placement.pos_mm is not None and len(placement.pos_mm) == 3:
        z = placement.pos_mm[2] / 1000
    else:
        centre, face = rest_pose(centre, yaw, poses, size)
        z = face + thick / 2
    return np.array([centre[0], centre[1], z]), yaw


def rest_height(centre, yaw, poses, size) -> float:
    """Height (m) of the highest top face under a tile's footprint, 0 for the table: the face a
    tile lowered flat at ``centre`` (x, y, m), heading ``yaw``, meets first.

    Every tile whose footprint overlaps this one's counts, however little (beyond touching:
    :data:`CONTACT_SLACK_M`), so a tile resting there is clear of all of them. (It used to
    forgive :data:`OVERLAP_TOLERANCE_M` of overlap, which let a tile rest up to a millimetre
    inside a neighbour.) :func:`rest_pose`, which the file poses use, first moves a footprint
    that only grazes a neighbour out of it, as a hand stops at contact.
    """
    top = 0.0
    for p, q in poses:
        if footprints_overlap(centre, yaw, p[:2], quaternion_yaw(q), size, CONTACT_SLACK_M):
            top = max(top, top_face_height(p, q, size))
    return top


def rest_pose(centre, yaw, poses, size, floor: float = 0.0) -> tuple[np.ndarray, float]:
    """Where a tile put down flat at ``centre`` (x, y, m), heading ``yaw``, comes to rest:
    (centre (2,) m, height of the face under it m). Always clear of every tile of ``poses``.

    It rests on the highest top face among the tiles its footprint overlaps by more than the
    overlap tolerance (each footprint shrunk by :data:`OVERLAP_TOLERANCE_M`), or on the table,
    or at ``floor`` if that is higher (a hand's release height). A footprint that overlaps a
    tile at that level by less, a neighbour it should lie against (end to end, side by side)
    off by the rounding of a typed position or by a settled structure's drift, is not lifted
    on top of that tile, hanging from a sliver of it: it is moved out of the neighbour until
    they touch (at most 2 × :data:`OVERLAP_TOLERANCE_M`), as a hand is stopped by the
    neighbour's end. Where that does not make room (a slot narrower than the tile), it rests
    where it was aimed, on top of the tiles it would be inside.

    Parameters
    ----------
    centre : array_like, shape (2,) or (3,), m
    yaw : float, rad
    poses : list of (position (3,), quaternion (4,))
    size : ndarray, shape (3,), m
    floor : float, m
    """
    thick = size[2]
    aimed = np.asarray(centre, dtype=float)[:2]
    if not len(poses):
        return aimed.copy(), floor
    centres, yaws, bottom, top = _footprints(np.array([p for p, _ in poses], float), np.array([q for _, q in poses], float), size)
    here = aimed.copy()
    for _ in range(8):
        under = footprints_overlap_many(here, yaw, centres, yaws, size, OVERLAP_TOLERANCE_M)
        face = max(floor, float(top[under].max(initial=-np.inf)))
        level = (bottom < face + thick - CLEAR_TOLERANCE_M) & (top > face + CLEAR_TOLERANCE_M)
        grazed = np.flatnonzero(level & footprints_overlap_many(here, yaw, centres, yaws, size, CONTACT_SLACK_M))
        if not len(grazed):
            return here, face
        j = grazed[0]
        here = here + _out_of(here, yaw, centres[j], yaws[j], size)
        if np.linalg.norm(here - aimed) > 2 * OVERLAP_TOLERANCE_M + 1e-9:
            break
    # No room beside: on top of whatever its footprint overlaps at the level it would take.
    face = floor
    touching = footprints_overlap_many(aimed, yaw, centres, yaws, size, CONTACT_SLACK_M)
    while True:
        inside = touching & (bottom < face + thick - CLEAR_TOLERANCE_M) & (top > face + CLEAR_TOLERANCE_M)
        if not inside.any():
            return aimed, face
        face = float(top[inside].max())


def _footprints(positions, quaternions, size):
    """Centres (k, 2) m, headings (k,) rad, bottom and top heights (k,) m of the tiles at
    ``positions`` (k, 3), ``quaternions`` (k, 4): what :func:`rest_pose` compares a footprint with."""
    heights = box_corners(positions, quaternions, size)[:, :, 2]
    return positions[:, :2], np.array([quaternion_yaw(q) for q in quaternions]), heights.min(axis=1), heights.max(axis=1)


def _out_of(c1, yaw1, c2, yaw2, size) -> np.ndarray:
    """The shortest move (x, y, m) of footprint 1 out of footprint 2, by separating axes:
    after it they touch along one axis."""
    half = np.array([size[0] / 2, size[1] / 2])

    def frame(yaw):  # rows: the footprint's long and short axes
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([[c, s], [-s, c]])

    f1, f2 = frame(yaw1), frame(yaw2)
    d = np.asarray(c2, dtype=float)[:2] - np.asarray(c1, dtype=float)[:2]
    best = None
    for axis in np.vstack([f1, f2]):
        depth = float(np.abs(f1 @ axis) @ half + np.abs(f2 @ axis) @ half) - abs(float(d @ axis))
        if best is None or depth < best[0]:
            best = (depth, axis, 1.0 if d @ axis >= 0 else -1.0)
    depth, axis, side = best
    return -side * (depth + 1e-9) * axis


def structure_poses(scenario: Scenario, size: np.ndarray, deltas: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where the structure's tiles go, in file order: a list of (position (3,) m, quaternion (4,)).

    ``deltas`` (n, 3): a noisy hand's miss of each tile (dx mm, dy mm, dyaw deg); a tile
    resting on others then rests on them where they really are. A tile at an explicit
    height must start clear of the ones before it (InputError naming its key).
    """
    used: list[tuple[np.ndarray, np.ndarray]] = []
    shown = [pl.pips for pl in scenario.structure]
    for i, pl in enumerate(scenario.structure):
        position, yaw = target_pose(pl, used, shown, size)
        _check_level(pl, used, position, size, scenario.source, f"structure[{i}].after")
        explicit_z = pl.pos_mm is not None and len(pl.pos_mm) == 3
        if explicit_z or pl.relation == "beneath":  # a height given, not found: it must start clear
            explicit_z = True
            check_clear(position, yaw, used, size, scenario.source, f"structure[{i}].{'pos_mm' if pl.on is None else pl.relation}")
        if deltas is not None:
            dx, dy, dyaw = deltas[i]
            centre = position[:2] + np.array([dx, dy]) / 1000
            yaw += math.radians(dyaw)
            if explicit_z:
                position = np.array([centre[0], centre[1], position[2]])
            else:
                centre, face = rest_pose(centre, yaw, used, size)
                position = np.array([centre[0], centre[1], face + size[2] / 2])
        used.append((np.asarray(position, dtype=float), yaw_quaternion(yaw)))
    return used


OVERLAP_TOLERANCE_M = 0.0005


def check_clear(position, yaw, poses, size, source: str, key: str, starts: str = "starts") -> None:
    """InputError if a tile put at an explicit height would start inside the table or
    another tile (``starts``: the verb of the message, "would end" for a slide's end).

    Heights computed as "resting on what is below" never do; an explicit ``z`` can. Boxes
    overlapping by less than half a millimetre (contact, rounding) are let through.
    """
    thick = size[2]
    if position[2] - thick / 2 < -OVERLAP_TOLERANCE_M:
        raise InputError(
            source, key, f"expected a height >= {thick / 2 * 1000:g} mm (half the tile's thickness: it lies on the table); "
            f"it {starts} {(thick / 2 - position[2]) * 1000:.2f} mm inside the table"
        )
    for j, (p, q) in enumerate(poses):
        if abs(p[2] - position[2]) < thick - OVERLAP_TOLERANCE_M and footprints_overlap(
            position[:2], yaw, p[:2], quaternion_yaw(q), size, OVERLAP_TOLERANCE_M
        ):
            raise InputError(
                source, key, f"expected a pose clear of the other tiles; it {starts} inside structure[{j}]"
            )


def _check_level(placement, poses, position, size, source: str, key: str) -> None:
    """Refuse an ``after`` placement that does not come to rest beside the tile it is tied to
    (end to end means on the same level: a tile tied to a raised one would rest lower, or on it)."""
    if placement.relation != "after":
        return
    t = placement.on[0]
    gap = float(position[2] - poses[t][0][2])
    if abs(gap) > 0.25 * size[2]:
        raise InputError(source, key, f"expected a tile on its own level to lie end to end with; this one would rest "
                                      f"{abs(gap) * 1000:.1f} mm {'above' if gap > 0 else 'below'} #{t}")


def aim_placement(
    scenario: Scenario,
    settled: tuple[np.ndarray, np.ndarray],
    placement: Placement,
    size: np.ndarray,
    offset_mm=(0.0, 0.0),
    yaw_offset_deg: float = 0.0,
    drop_mm: float | None = None,
) -> tuple[np.ndarray, float, Drop | Slide]:
    """Where a placement should come to rest on the settled structure (position (3,) m, yaw
    rad), missed by the offsets as a hand would, and the motion that gets it there, started
    clear of every tile (:func:`~magdomino.physics.motion.clear_motion`: a drop into a slot
    under an overhang is released no higher than the room above its rest pose).

    A placement with no clear motion (no room for the tile at its rest pose, a slide that
    would start inside a tile) is refused: InputError naming the what-if's key.
    """
    n = len(scenario.structure)
    poses = [(settled[0][i], settled[1][i]) for i in range(n)]
    shown = [pl.pips for pl in scenario.structure]
    rest, yaw = target_pose(placement, poses, shown, size)
    _check_level(placement, poses, rest, size, scenario.source, _what_if_key(scenario, placement, "after"))
    if placement.slide_mm is not None or placement.relation == "beneath":
        rest[2] = size[2] / 2  # a slide happens on the table, under whatever is above
    elif placement.pos_mm is not None and len(placement.pos_mm) == 3:
        check_clear(rest, yaw, poses, size, scenario.source, _what_if_key(scenario, placement, "pos_mm"))
    if offset_mm[0] or offset_mm[1] or yaw_offset_deg:
        rest, yaw = missed_placement(placement, rest, yaw, offset_mm, yaw_offset_deg, poses, size)
    slide = placement.slide_mm
    if slide is None and placement.relation == "beneath":  # in along the table, from where its free half points
        t, h = placement.on
        free = 1.0 if placement.pips[0] == shown[t][h] else -1.0  # half 1 free: +axis
        slide = (free * SLIDE_START_MM * math.cos(yaw), free * SLIDE_START_MM * math.sin(yaw))
    if slide is not None:
        motion = Slide(tuple(np.array(slide) / 1000))
    else:
        motion = Drop((placement.drop_mm if drop_mm is None else drop_mm) / 1000)
    try:
        # A drop into a slot under an overhang is released no higher than the room above it.
        return rest, yaw, clear_motion(rest, yaw, motion, (settled[0][:n], settled[1][:n]), size)
    except NoClearMotion as exc:
        part = "slide_mm" if isinstance(motion, Slide) else ("pos_mm" if placement.pos_mm is not None else placement.relation)
        if isinstance(motion, Slide):  # one that would end inside a tile too: that is said first
            check_clear(rest, yaw, poses, size, scenario.source, _what_if_key(scenario, placement, part), "would end")
        raise InputError(
            scenario.source, _what_if_key(scenario, placement, part),
            f"expected a placement that starts clear of the tiles: {exc.phrase(f'structure[{exc.tile}]')}",
        ) from None


def aim_many(scenario: Scenario, settled, placement: Placement, size: np.ndarray, misses) -> list:
    """:func:`aim_placement` for many hands aiming one placement on one settled structure (an
    odds run's trials): for each miss ``(dx mm, dy mm, dyaw deg, drop mm)`` of ``misses``
    (shape (B, 4)), ``(rest, yaw, motion)`` or the InputError that refuses it.

    The usual case (a drop onto the structure, no tile beside it on its level) is computed for
    all the misses at once, as :func:`aim_placement` computes it one by one; any other (a slide,
    a neighbour the hand may push against, a miss that grazes a tile, a start inside a tile)
    is :func:`aim_placement`'s own.
    """
    misses = np.asarray(misses, dtype=float).reshape(-1, 4)
    one = lambda m: _aim_one(scenario, settled, placement, size, m)  # noqa: E731
    n = len(scenario.structure)
    thick = size[2]
    if (not n or placement.slide_mm is not None or placement.relation in ("beneath", "after")
            or (placement.pos_mm is not None and len(placement.pos_mm) == 3)):
        return [one(m) for m in misses]
    poses = [(settled[0][i], settled[1][i]) for i in range(n)]
    try:
        aimed, aimed_yaw = target_pose(placement, poses, [pl.pips for pl in scenario.structure], size)
    except InputError:
        return [one(m) for m in misses]
    P2, Q2 = np.asarray(settled[0][:n], float), np.asarray(settled[1][:n], float)
    if np.any(np.abs(P2[:, 2] - aimed[2]) < 0.9 * thick):  # a tile beside it: the hand may push against it
        return [one(m) for m in misses]
    B, k = len(misses), n
    yaw = np.array([aimed_yaw + math.radians(d) for d in misses[:, 2]])
    out = aimed + np.column_stack([misses[:, 0] / 1000, misses[:, 1] / 1000, np.zeros(B)])
    # rest_pose, first pass, every miss against every tile (pairs flattened b-major).
    _, yaws2, bottom, top = _footprints(P2, Q2, size)
    pair = lambda a: np.repeat(a, k, axis=0)  # noqa: E731  (per miss, repeated for each tile)
    tile = lambda a: np.tile(a, (B,) + (1,) * (np.ndim(a) - 1))  # noqa: E731
    under = footprints_overlap_many(pair(out[:, :2]), pair(yaw), tile(P2[:, :2]), tile(yaws2), size, OVERLAP_TOLERANCE_M).reshape(B, k)
    floor = out[:, 2] - thick / 2
    face = np.maximum(floor, np.where(under, top, -np.inf).max(axis=1))
    level = (bottom < face[:, None] + thick - CLEAR_TOLERANCE_M) & (top > face[:, None] + CLEAR_TOLERANCE_M)
    grazed = (level & footprints_overlap_many(pair(out[:, :2]), pair(yaw), tile(P2[:, :2]), tile(yaws2), size,
                                              CONTACT_SLACK_M).reshape(B, k)).any(axis=1)
    rest = np.column_stack([out[:, :2], face + thick / 2])
    # clear_motion: the release height (the room above the rest pose), then the start clear.
    R1 = quaternion_matrices(np.array([yaw_quaternion(y) for y in yaw]))
    _, positions, rotations = tile_boxes((P2, Q2))
    kk = len(positions)
    half = np.asarray(size, dtype=float) / 2
    narrow = half - [CLEAR_TOLERANCE_M, CLEAR_TOLERANCE_M, 0.0]
    t_in, t_out = box_rises(np.repeat(rest, kk, axis=0), np.repeat(R1, kk, axis=0), np.tile(positions, (B, 1)),
                            np.tile(rotations, (B, 1, 1)), narrow, half)
    t_in, t_out = t_in.reshape(B, kk), t_out.reshape(B, kk)
    hit = ~np.isnan(t_in) & (np.nan_to_num(t_out, nan=-np.inf) > CLEAR_TOLERANCE_M)  # not only a support below
    h = misses[:, 3] / 1000
    for _ in range(kk + 1):  # release_height's passes, each block in order: a block lowers h once at most
        for j in range(kk):
            lower = hit[:, j] & (t_in[:, j] < h) & (h < t_out[:, j])
            h = np.where(lower, t_in[:, j], h)
    h = np.maximum(h, 0.0)
    start = rest + np.column_stack([np.zeros((B, 2)), h])
    inside = -box_separations(np.repeat(start, kk, axis=0), np.repeat(R1, kk, axis=0), np.tile(positions, (B, 1)),
                              np.tile(rotations, (B, 1, 1)), half).reshape(B, kk)
    stuck = (inside > CLEAR_TOLERANCE_M).any(axis=1) if kk else np.zeros(B, bool)
    plain = ~(misses[:, :3] == 0).all(axis=1)  # a hand that misses (aim_placement skips the miss otherwise)
    return [(rest[b], float(yaw[b]), Drop(float(h[b]))) if plain[b] and not grazed[b] and not stuck[b] else one(misses[b])
            for b in range(B)]


def _aim_one(scenario, settled, placement, size, miss):
    """:func:`aim_placement` of one miss (dx mm, dy mm, dyaw deg, drop mm), or its InputError."""
    try:
        return aim_placement(scenario, settled, placement, size, (float(miss[0]), float(miss[1])), float(miss[2]), float(miss[3]))
    except InputError as exc:
        return exc


def _what_if_key(scenario: Scenario, placement: Placement, part: str) -> str:
    """The file key of a what-if's ``part`` (``what_if[i].part``; ``what_if.part`` for a
    placement that is not one of the file's)."""
    index = scenario.what_if.index(placement) if placement in scenario.what_if else None
    return f"what_if[{index}].{part}" if index is not None else f"what_if.{part}"


CONTACT_SLACK_M = 1e-5
"""Footprints closer than this count as touching, not overlapping (see :func:`missed_placement`)."""


def missed_placement(placement, rest, yaw, offset_mm, yaw_offset_deg, poses, size):
    """Where a hand that aims at ``rest`` and misses by the offsets puts the tile.

    The tile is released at the height it aimed for, or higher if the miss puts it over
    something higher (never inside it: :func:`rest_pose`). A hand cannot push a tile into one
    at the same height beside it either (end to end, side by side): it stops at contact, so
    the miss is shortened until the footprints only touch.
    """
    thick = size[2]
    aimed_yaw = yaw
    yaw = yaw + math.radians(yaw_offset_deg)
    miss = np.array([offset_mm[0] / 1000, offset_mm[1] / 1000, 0.0])
    beside = [(p, q) for p, q in poses if abs(p[2] - rest[2]) < 0.9 * thick]

    def blocked(step, scale=1.0):
        centre = rest[:2] + scale * step[:2]
        turn = aimed_yaw + scale * (yaw - aimed_yaw)
        return [(p, q) for p, q in beside if footprints_overlap(centre, turn, p[:2], quaternion_yaw(q), size, CONTACT_SLACK_M)]

    hit = blocked(miss)
    if hit and not blocked(miss, 0.0):
        # Into a neighbour: the part of the miss towards it is stopped by the contact, the
        # rest (sideways) stays; if that still overlaps, shorten it to where it touches.
        towards = rest[:2] - np.asarray(hit[0][0][:2], dtype=float)
        normal = towards / max(float(np.linalg.norm(towards)), 1e-12)
        into = float(miss[:2] @ normal)
        if into < 0:
            miss[:2] -= into * normal
        if blocked(miss):
            lo, hi = 0.0, 1.0  # the largest fraction of the miss that stays clear
            for _ in range(20):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if not blocked(miss, mid) else (lo, mid)
            miss *= lo
            yaw = aimed_yaw + lo * (yaw - aimed_yaw)
    out = rest + miss
    if placement.slide_mm is None and placement.relation != "beneath" and (placement.pos_mm is None or len(placement.pos_mm) == 2):
        centre, face = rest_pose(out[:2], yaw, poses, size, floor=out[2] - thick / 2)
        out = np.array([centre[0], centre[1], face + thick / 2])
    return out, yaw
