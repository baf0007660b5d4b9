"""20 sur 20 test helpers: an independent reading of the table and a brute-force move
enumerator (slow: for small boards), written from RULES.md without the generator's ideas."""

from __future__ import annotations

from itertools import permutations, product

# -- independent reference: the grid as {(x, y): pips} and {(x, y): seat} ---------------------


def grid_of(state):
    """Halves and markers rebuilt from the public table and marker lists (not ``occ``)."""
    halves = {}
    for t in state.table():
        for (x, y), v in zip(t["cells"], t["pips"]):
            assert (x, y) not in halves, "two halves on one cell"
            halves[(x, y)] = v
    marks = {}
    for seat, cells in enumerate(state.markers_placed):
        for c in cells:
            assert c not in halves and c not in marks, "a marker on an occupied cell"
            marks[c] = seat
    return halves, marks


def runs_of(halves):
    """Every run (maximal line of >= 2 consecutive halves), as lists of cells, rows then columns."""
    out = []
    for axis in (0, 1):
        lines = {}
        for c in halves:
            lines.setdefault(c[1 - axis], []).append(c[axis])
        for fixed, coords in lines.items():
            coords.sort()
            group = [coords[0]]
            for v in coords[1:] + [None]:
                if v is not None and v == group[-1] + 1:
                    group.append(v)
                    continue
                if len(group) >= 2:
                    out.append([(g, fixed) if axis == 0 else (fixed, g) for g in group])
                if v is not None:
                    group = [v]
    return out


def new_cells(move):
    d = move[1]
    out = []
    for x, y, p, q in move[2]:
        out += [((x, y), p), (((x + 1, y) if d == 0 else (x, y + 1)), q)]
    return out


def run_through(halves, c, d):
    """The maximal run of halves along direction d (0: x, 1: y) through cell c."""
    dx, dy = (1, 0) if d == 0 else (0, 1)
    x, y = c
    while (x - dx, y - dy) in halves:
        x, y = x - dx, y - dy
    run = []
    while (x, y) in halves:
        run.append((x, y))
        x, y = x + dx, y + dy
    return run


# -- brute force: every window of every line, every tiling and arrangement, full-rule check ----


def brute_moves(state, seat, kmax=5):
    """Every legal move by trying all arrangements in all windows and checking each result
    against the rules with :func:`runs_of` (slow: small boards only). A window is tried as a
    whole alignment: no half just beyond either end and, after the first move, a half in it."""
    halves, marks = grid_of(state)
    rack = state.racks[seat]
    first = not halves
    found = set()
    # every ordered choice of k rack tiles with its pip total, listed once (not per window)
    orders = {k: [(sub, sum(a + b for a, b in sub)) for sub in permutations(rack, k)] for k in range(1, kmax + 1)}
    if first:
        lines = [(0, 0, 0, 10)]  # canonical: row 0 from x = 0 (see the module docstring)
    else:
        xs = [c[0] for c in halves] + [c[0] for c in marks]
        ys = [c[1] for c in halves] + [c[1] for c in marks]
        lines = [(0, y, min(xs) - 11, max(xs) + 11) for y in {c[1] for c in halves}]
        lines += [(1, x, min(ys) - 11, max(ys) + 11) for x in {c[0] for c in halves}]
    for d, fixed, lo, hi in lines:
        at = (lambda i, fixed=fixed: (i, fixed)) if d == 0 else (lambda i, fixed=fixed: (fixed, i))  # used in this iteration only
        starts = [0] if first else range(lo, hi + 1)
        for s in starts:
            if at(s - 1) in halves or at(s) in marks:
                continue  # an alignment is a whole run: no half just before it
            window = [at(s)]  # the cells s..e, grown one cell at a time
            empty = [c for c in window if c not in halves]
            for e in range(s + 1, hi + 1):
                c = at(e)
                if c in marks:
                    break
                window.append(c)
                if c not in halves:
                    empty.append(c)
                if len(empty) > 2 * kmax:
                    break  # longer windows only hold more empty cells
                if not empty or len(empty) % 2 or at(e + 1) in halves:
                    continue  # no half just after it either
                if not first and len(empty) == len(window):
                    continue  # a later alignment holds a half already there
                # tile the empty cells with dominoes along the line (greedy left to right is the
                # only tiling of a line; check that each pair is two neighbouring cells)
                pairs = [(empty[i], empty[i + 1]) for i in range(0, len(empty), 2)]
                if any(abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1 for a, b in pairs):
                    continue
                old = sum(halves[c] for c in window if c in halves)
                k = len(pairs)
                for sub, total in orders[k]:
                    if old + total != 20:
                        continue
                    for flips in product((0, 1), repeat=k):
                        placed = []
                        for (c1, _), (a, b), f in zip(pairs, sub, flips):
                            if f and a == b:
                                break
                            placed.append((c1[0], c1[1], b, a) if f else (c1[0], c1[1], a, b))
                        else:
                            move = ("place", d, tuple(placed))
                            if is_legal_by_rules(halves, marks, move, first):
                                found.add(move)
    return found


def is_legal_by_rules(halves, marks, move, first):
    after = dict(halves)
    for c, v in new_cells(move):
        if c in after or c in marks:
            return False
        after[c] = v
    # the alignment first (cheap), then every run of the table
    cells = new_cells(move)
    run = run_through(after, cells[0][0], move[1])
    if not {c for c, _ in cells} <= set(run) or sum(after[c] for c in run) != 20:
        return False
    if 0 in [after[c] for c in run[1:-1]]:
        return False
    if not first and not any(c in halves for c in run):
        return False
    for other in runs_of(after):
        vals = [after[c] for c in other]
        if sum(vals) > 20 or 0 in vals[1:-1]:
            return False
    return not first or 2 <= len(move[2]) <= 5


# -- random play ----------------------------------------------------------------------------


def check_lines(halves, cells):
    """No run above 20 and no blank inside one, on every row and column through ``cells``
    (the only lines a move changes; the test's grid is its own dict)."""
    for x, y in cells:
        for d in (0, 1):
            run = run_through(halves, (x, y), d)
            if len(run) >= 2:
                vals = [halves[c] for c in run]
                assert sum(vals) <= 20, f"run {run} worth {sum(vals)}"
                assert 0 not in vals[1:-1], f"blank inside run {run}"


# -- one line pattern in the four directions ---------------------------------------------------

WAYS = {
    "+x": lambda x, y: (x, y),
    "-x": lambda x, y: (-x, y),
    "+y": lambda x, y: (y, x),
    "-y": lambda x, y: (y, -x),
}
"""Cell maps taking a pattern drawn along row 0 towards +x into each direction: the pattern's
right end goes towards +x, -x, +y or -y."""


def turn_tile(t, way):
    """A tile ``(x, y, d, p, q)`` of a pattern, put in direction ``way`` (see :data:`WAYS`)."""
    f = WAYS[way]
    x, y, d, p, q = t
    c1, c2 = f(x, y), f(*((x + 1, y) if d == 0 else (x, y + 1)))
    if c1 > c2:
        c1, c2, p, q = c2, c1, q, p
    return (c1[0], c1[1], 0 if c1[1] == c2[1] else 1, p, q)


def turn_move(move, way):
    """A move of a pattern, put in direction ``way``: its tiles in line order again."""
    tiles = sorted(turn_tile((x, y, move[1], p, q), way) for x, y, p, q in move[2])
    return ("place", tiles[0][2], tuple(t[:2] + t[3:] for t in tiles))


LEFTS = (None, ("lone", 2), ("lone", 0), ("pair", 5, 6), ("pair", 0, 8))
RIGHTS = (("lone", 0), ("pair", 6, 0), ("pair", 0, 6), ("lone", 5))
ENDS = (("open", "open"), ("marker", "open"), ("open", "marker"), ("open", "half"))


def line_pattern(left, gap, right, ends):
    """Tiles and markers of a pattern along row 0, and the pips of ``left`` and ``right``.

    ``left`` (None, a lone half from x = 0 whose tile stands up the column, or a tile lying
    along the row from x = 0), ``gap`` empty cells, then ``right`` (a lone half whose tile
    hangs down its column, or a tile along the row); ``ends``: what lies before the left
    end and after the right end (nothing, a marker next to it, or a lone 1 three cells on).
    """
    tiles, marks, old = [], [], 0
    x = 0
    if left is not None:
        if left[0] == "lone":
            tiles.append((0, 0, 1, left[1], 3))
        else:
            tiles.append((0, 0, 0, left[1], left[2]))
            x = 1
        old += sum(left[1:])
        x += 1 + gap
    if ends[0] == "marker":
        marks.append((-1, 0))
    if right[0] == "lone":
        tiles.append((x, -1, 1, 7, right[1]))
    else:
        tiles.append((x, 0, 0, right[1], right[2]))
        x += 1
    old += sum(right[1:])
    if ends[1] == "marker":
        marks.append((x + 1, 0))
    elif ends[1] == "half":
        tiles.append((x + 3, 0, 1, 1, 2))
    return tiles, marks, old


def rack_for(need, free, rng):
    """Four of the tiles ``free`` for a line that needs ``need`` more pips: one tile worth
    it, two without a blank worth it together and a tile with a blank (as far as they allow;
    then heavy ones without a blank). Four tiles, one blank at most: the brute force tries
    every arrangement of the rack."""
    rack: list = []

    def take(ok):
        cands = [t for t in free if t not in rack and ok(sum(t), t)]
        if cands:
            rack.append(rng.choice(cands))
        return bool(cands)

    take(lambda s, t: s == need and 0 not in t)
    if take(lambda s, t: s < need - 1 and 0 not in t):
        part = sum(rack[-1])
        take(lambda s, t: s == need - part and 0 not in t)
    take(lambda s, t: 0 in t)
    while len(rack) < 4 and take(lambda s, t: s >= 9 and 0 not in t):
        pass
    return rack


def lone_blank_end_across_a_gap(halves, move):
    """``(d, side)`` when the move's alignment ends (side -1: low end, +1: high end) on an old
    lone blank half with new tiles next to it and old halves beyond them; else None."""
    cells = new_cells(move)
    after = dict(halves)
    after.update(cells)
    new = {c for c, _ in cells}
    run = run_through(after, cells[0][0], move[1])
    for end, inner, side in ((run[0], run[1], -1), (run[-1], run[-2], 1)):
        if halves.get(end) == 0 and inner in new and any(c in halves for c in run if c != end):
            return move[1], side
    return None
