"""The rules' placement grid: occupied squares, the placement tree, and placement search.

Poses, directions and the physical meaning of a square are the math layer's
(:mod:`magdomino.maths.geometry`: :class:`~magdomino.maths.geometry.GridPose`,
:data:`~magdomino.maths.geometry.DIRS`, :func:`~magdomino.maths.geometry.physical_pose`);
which placements the rules allow on them is this module's.

The rules of superposition (:class:`Grid`)
------------------------------------------
- **Tower** (``tower_placements``), a new tile at level ``L + 1`` over a tile at level
  ``L``: one of its squares lies exactly over a square of that tile with the same pips;
  every square of the new tile that has a square right below it must match that square; the
  new squares are free and nothing lies higher over them (a covered square cannot be
  covered again, and the tile is dropped from above). Parallel to the support (both ways)
  or, when allowed, perpendicular.
- **End to end** (``end_placements``), at table level: the new tile's matching half is
  next to a table tile's half, in line with that tile's axis, extending outward; both its
  squares are free all the way up (it is put down from above).
- **Slide beneath** (``slide_placements``): the new tile lies at level 0 with its matching
  half under an overhanging level-1 square with the same pips (the level-0 square there is
  empty); its other half goes to any free level-0 square next to it; if that square too has
  a level-1 square over it, the pips must match. The tile arrives by sliding along the
  table; :meth:`Grid.slide_direction` picks a direction whose path is free.
- **Extremities**: every placement has a parent (the tile it rests on, touches end to end,
  or slides under); the parents form a tree; extremities are the tiles with at most one
  neighbour in that tree (:meth:`Grid.is_extremity`). Where the rules play on extremities,
  **every** tile a new tile meets (:meth:`Grid.contacts`: rests on, slides under, touches
  end to end) must be one, not only its parent: no bridging from an extremity onto a tile
  in the middle of the construction.

Tiles are named by their number in the construction (0, 1, 2, … in placement order); pips
are plain ints and a tile's pips a plain pair.
"""

from __future__ import annotations

from magdomino.maths.geometry import DIR_INDEX, DIRS, OPPOSITE, PERPENDICULAR, GridPose


def canonical(x: int, y: int, level: int, d: int, double: bool) -> tuple[int, int, int, int]:
    """The one grid pose naming a placement: a double's two halves are alike, so it always
    points to +x or +y (starting from the other square when needed)."""
    if double and d & 1:
        dx, dy = DIRS[d]
        return x + dx, y + dy, level, d - 1
    return x, y, level, d


# A candidate placement found by the Grid: a plain tuple, wrapped into an action by the rules.
#   (x, y, level, d, parent, motion, slide_dir)
# where (x, y, level, d) is the canonical pose of the tile with pips (a, b) on halves 0, 1,
# parent the construction number it attaches to, motion "drop" or "slide", slide_dir the
# direction index of the slide motion (None for a drop).


class Grid:
    """The occupied squares of a construction, its placement tree, and placement search.

    Attributes
    ----------
    cells : dict[(x, y, level), (number, pips)]
        Which tile (construction number) covers a square and the pips shown there.
    top : dict[(x, y), level]
        Highest occupied level of each column.
    poses : list[GridPose]
    pips : list[(int, int)]
        Pips on half 0 and half 1 of each placed tile.
    parent : list[int | None]
    degree : list[int]
        Neighbours of each tile in the placement tree (parent + children).
    """

    __slots__ = ("cells", "top", "poses", "pips", "parent", "degree")

    def __init__(self):
        self.cells: dict[tuple[int, int, int], tuple[int, int]] = {}
        self.top: dict[tuple[int, int], int] = {}
        self.poses: list[GridPose] = []
        self.pips: list[tuple[int, int]] = []
        self.parent: list[int | None] = []
        self.degree: list[int] = []

    def __len__(self) -> int:
        return len(self.poses)

    def copy(self) -> Grid:
        g = Grid.__new__(Grid)
        g.cells = dict(self.cells)
        g.top = dict(self.top)
        g.poses = list(self.poses)
        g.pips = list(self.pips)
        g.parent = list(self.parent)
        g.degree = list(self.degree)
        return g

    # -- building -------------------------------------------------------------------------

    def add(self, pose: GridPose, pips: tuple[int, int], parent: int | None = None) -> int:
        """Place a tile (no legality check, but squares must be free). Returns its number."""
        n = len(self.poses)
        s0, s1 = pose.squares()
        if s0 in self.cells or s1 in self.cells:
            raise ValueError(f"square already occupied by tile {self.cells.get(s0, self.cells.get(s1))}")
        self.cells[s0] = (n, pips[0])
        self.cells[s1] = (n, pips[1])
        for x, y, lev in (s0, s1):
            if self.top.get((x, y), -1) < lev:
                self.top[(x, y)] = lev
        self.poses.append(pose)
        self.pips.append(pips)
        self.parent.append(parent)
        self.degree.append(0 if parent is None else 1)
        if parent is not None:
            self.degree[parent] += 1
        return n

    # -- queries ------------------------------------------------------------------------

    def is_extremity(self, n: int) -> bool:
        """At most one neighbour in the placement tree (the first tile starts as one)."""
        return self.degree[n] <= 1

    def extremities(self) -> list[int]:
        return [n for n, k in enumerate(self.degree) if k <= 1]

    def supports(self, pose: GridPose) -> list[int]:
        """Numbers of the tiles right below a pose's squares (level − 1), without repeats."""
        out: list[int] = []
        if pose.level == 0:
            return out
        for x, y, lev in pose.squares():
            c = self.cells.get((x, y, lev - 1))
            if c is not None and c[0] not in out:
                out.append(c[0])
        return out

    def contacts(self, pose: GridPose) -> list[int]:
        """Numbers of the tiles a pose meets, sorted: those it **rests on** (right below a
        square), **slides under** (right above a square) and **touches end to end** (at its
        level, lying along the same axis with a square right beyond one of its ends).

        A tile beside it (side against side, or its end against another's side) is not
        touched end to end: the rules (``docs/rules/index.md``) let tiles of one level touch freely, and names only
        these three relations for the extremities rule.
        """
        found: set[int] = set()
        cells = self.cells
        for x, y, lev in pose.squares():
            for dz in (-1, 1):
                c = cells.get((x, y, lev + dz))
                if c is not None:
                    found.add(c[0])
        dx, dy = DIRS[pose.d]
        s0, s1 = pose.squares()
        axis = pose.axis()
        for x, y, lev in ((s0[0] - dx, s0[1] - dy, s0[2]), (s1[0] + dx, s1[1] + dy, s1[2])):
            c = cells.get((x, y, lev))
            if c is not None and self.poses[c[0]].axis() == axis:
                found.add(c[0])
        return sorted(found)

    def only_extremities(self, pose: GridPose) -> bool:
        """Whether every tile the pose meets (:meth:`contacts`) is an extremity."""
        degree = self.degree
        return all(degree[n] <= 1 for n in self.contacts(pose))

    def covered(self, square) -> bool:
        """Whether a square has a square right above it."""
        x, y, lev = square
        return (x, y, lev + 1) in self.cells

    def bounds(self) -> tuple[int, int, int, int]:
        """``(xmin, xmax, ymin, ymax)`` over occupied columns (0s when empty)."""
        if not self.top:
            return 0, 0, 0, 0
        xs = [c[0] for c in self.top]
        ys = [c[1] for c in self.top]
        return min(xs), max(xs), min(ys), max(ys)

    # -- placement search ------------------------------------------------------------------

    def _tower_fits(self, sq, level: int, p: int) -> bool:
        """A new square at ``level`` over column ``sq`` showing pips ``p`` is allowed."""
        t = self.top.get(sq, -1)
        if t >= level:
            return False  # occupied at that level, or something higher over it
        if t == level - 1:
            return self.cells[(sq[0], sq[1], t)][1] == p
        return True  # nothing right below: overhang

    def tower_placements(self, a: int, b: int, support: int, parallel_only: bool = True) -> list[tuple]:
        """Placements of the tile with pips ``(a, b)`` on top of tile number ``support``.

        The new tile's half showing the pips of one of the support's squares is put exactly
        over that square; its other half goes along the support's axis (either way) or, if
        ``parallel_only`` is False, across. Every square with a square right below must match,
        and new squares must be free with nothing higher over them.

        Returns a list of ``(x, y, level, d, parent, "drop", None)`` (canonical poses).
        """
        out = []
        spose = self.poses[support]
        spips = self.pips[support]
        level = spose.level + 1
        sq = spose.squares()
        dirs = (spose.d, OPPOSITE[spose.d])
        if not parallel_only:
            dirs = dirs + PERPENDICULAR[spose.d]
        double = a == b
        for k in (0, 1):
            q = spips[k]
            sx, sy, _ = sq[k]
            for h, p, other in ((0, a, b), (1, b, a)):
                if p != q or (double and h == 1):
                    continue
                if not self._tower_fits((sx, sy), level, p):
                    continue
                for dd in dirs:
                    dx, dy = DIRS[dd]
                    ox, oy = sx + dx, sy + dy
                    if not self._tower_fits((ox, oy), level, other):
                        continue
                    if h == 0:
                        pose = canonical(sx, sy, level, dd, double)
                    else:
                        pose = (ox, oy, level, OPPOSITE[dd])
                    out.append(pose + (support, "drop", None))
        return out

    def end_placements(self, a: int, b: int, base: int, halves=(0, 1)) -> list[tuple]:
        """End-to-end placements of ``(a, b)`` at table level against table tile ``base``.

        For each half ``k`` in ``halves`` of the base tile, the new tile's half with the same
        pips goes right next to it, in line with the base's axis, outward; both new squares
        must be empty columns (the tile is put down from above).
        """
        out = []
        bpose = self.poses[base]
        if bpose.level != 0:
            return out
        bpips = self.pips[base]
        sq = bpose.squares()
        double = a == b
        for k in halves:
            q = bpips[k]
            if q != a and q != b:
                continue
            e = bpose.d if k == 1 else OPPOSITE[bpose.d]  # outward from half k
            dx, dy = DIRS[e]
            mx, my = sq[k][0] + dx, sq[k][1] + dy
            fx, fy = mx + dx, my + dy
            if (mx, my) in self.top or (fx, fy) in self.top:
                continue
            for h, p in ((0, a), (1, b)):
                if p != q or (double and h == 1):
                    continue
                if h == 0:
                    pose = canonical(mx, my, 0, e, double)
                else:
                    pose = (fx, fy, 0, OPPOSITE[e])
                out.append(pose + (base, "drop", None))
        return out

    def slide_placements(self, a: int, b: int, above: int) -> list[tuple]:
        """Slide-beneath placements of ``(a, b)`` under tile ``above`` (which lies at level 1).

        The new tile's matching half goes under a square of ``above`` with the same pips
        (the level-0 square there must be empty); the other half goes to any empty level-0
        square beside it (if a level-1 square lies over that one, its pips must match).
        Returns ``(x, y, 0, d, above, "slide", slide_dir)``.
        """
        out = []
        apose = self.poses[above]
        if apose.level != 1:
            return out
        apips = self.pips[above]
        double = a == b
        cells = self.cells
        for k, (sx, sy, _) in enumerate(apose.squares()):
            q = apips[k]
            if (sx, sy, 0) in cells:
                continue
            for h, p, other in ((0, a, b), (1, b, a)):
                if p != q or (double and h == 1):
                    continue
                for dd in range(4):
                    dx, dy = DIRS[dd]
                    ox, oy = sx + dx, sy + dy
                    if (ox, oy, 0) in cells:
                        continue
                    over = cells.get((ox, oy, 1))
                    if over is not None and over[1] != other:
                        continue
                    if h == 0:
                        pose = canonical(sx, sy, 0, dd, double)
                    else:
                        pose = (ox, oy, 0, OPPOSITE[dd])
                    slide = self.slide_direction((sx, sy), (ox, oy))
                    out.append(pose + (above, "slide", slide))
        return out

    def slide_direction(self, matching, other) -> int:
        """Direction (index) in which a tile slides along the table to reach its place.

        Tried in this order: along the tile's axis with the matching half first (arriving
        from its far end), sideways (either way), along the axis with the other half first.
        The first whose path, from outside the construction's bounds, meets no level-0
        square is chosen; when none is clear, the first (from the far end).
        """
        mx, my = matching
        ox, oy = other
        ax = DIR_INDEX[(mx - ox, my - oy)]
        order = (ax,) + PERPENDICULAR[ax] + (OPPOSITE[ax],)
        xmin, xmax, ymin, ymax = self.bounds()
        cells = self.cells
        for m in order:
            dx, dy = DIRS[m]
            clear = True
            k = 1
            while clear:
                a = (mx - k * dx, my - k * dy)
                b = (ox - k * dx, oy - k * dy)
                if not (xmin <= a[0] <= xmax and ymin <= a[1] <= ymax) and not (
                    xmin <= b[0] <= xmax and ymin <= b[1] <= ymax
                ):
                    break
                if (a[0], a[1], 0) in cells or (b[0], b[1], 0) in cells:
                    clear = False
                k += 1
            if clear:
                return m
        return ax
