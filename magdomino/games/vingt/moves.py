"""20 sur 20: the table as a grid of cells, the exact legal-move generator and whole-turn
search (the players: :mod:`magdomino.games.vingt.players`).

The table is an unbounded square grid. A cell ``(x, y)`` is stored under the integer key
``x * STRIDE + y`` (``|y| < STRIDE / 2``), so a step along a row is ``STRIDE`` and a step
along a column is 1; ``occ`` maps a key to the pips of the tile half on it (0..9) or to
``-1 - seat`` for a "20" marker of that seat. Tiles do not matter to the runs: a run is a
maximal straight line of two or more consecutive cells holding halves (markers and empty
cells bound it), whatever tiles the halves belong to.

A move is a tuple ``("place", d, ((x, y, p, q), ...))``: every new tile lies along the
move's line (``d = 0``: along a row, its second half at ``(x + 1, y)``; ``d = 1``: along
a column, second half at ``(x, y + 1)``), shows ``p`` on ``(x, y)`` and ``q`` on the other
cell, and the tiles are listed in line order. Moves are plain tuples so that sorting them
gives the stable order of the legal actions and comparing them is cheap.

:func:`legal_moves` is the generator. Every later move's alignment is the maximal run
through the new tiles, so it is made of *stretches* (maximal lines of old halves, one
cell long or more) joined by gaps of empty cells that the new tiles fill exactly, plus
an optional run of new tiles before the first stretch and after the last. The generator
walks these chains of stretches in both directions, keeps those whose old total leaves
room for a subset of the rack of the right size and total (looked up in a table of the
rack's subsets), and only then assigns tiles and orientations to the slots, each cell
holding the bounds that its perpendicular run and the blank rule allow.

:func:`turn_plans` searches a whole turn (one multi-tile move, or a series of single-tile
moves) and :func:`easy_twenties` weighs the easy twenties a table leaves to the next player,
for the players of :mod:`magdomino.games.vingt.players`. This module does not import
:mod:`magdomino.games.vingt.game`.
"""

from __future__ import annotations

from itertools import combinations, permutations, product

STRIDE = 4096
STEPS = (STRIDE, 1)
"""Key step along a row (d = 0) and along a column (d = 1)."""
TOTAL = 20
MAX_TILES = 5


def key(x: int, y: int) -> int:
    """The ``occ`` key of cell ``(x, y)``."""
    return x * STRIDE + y


def cell(k: int) -> tuple[int, int]:
    """The cell ``(x, y)`` of a key."""
    x, y = divmod(k + STRIDE // 2, STRIDE)
    return x, y - STRIDE // 2


def move_cells(move) -> list[tuple[int, int, int]]:
    """The new cells of a move as ``(x, y, pips)``, in line order."""
    d = move[1]
    out = []
    for x, y, p, q in move[2]:
        out.append((x, y, p))
        out.append((x + 1, y, q) if d == 0 else (x, y + 1, q))
    return out


def alignment(occ: dict, move) -> tuple[list[int], int]:
    """The keys of a played move's alignment (line order) and its total (after placing)."""
    step = STEPS[move[1]]
    x, y = move[2][0][:2]
    k = key(x, y)
    while True:
        v = occ.get(k - step)
        if v is None or v < 0:
            break
        k -= step
    keys = []
    total = 0
    while True:
        v = occ.get(k)
        if v is None or v < 0:
            break
        keys.append(k)
        total += v
        k += step
    return keys, total


def closing_cells(occ: dict, keys: list[int], step: int) -> list[int]:
    """The empty cells beyond the alignment's ends that need a marker (low end first).

    An end whose last half is a blank, or whose next cell already holds a marker, needs none.
    """
    out = []
    for end, beyond in ((keys[0], keys[0] - step), (keys[-1], keys[-1] + step)):
        if occ[end] != 0 and beyond not in occ:
            out.append(beyond)
    return out


def rack_subsets(rack, kmax: int) -> dict:
    """``{(k, total): [tiles, ...]}`` for the rack's subsets of 1..kmax tiles."""
    out: dict = {}
    for k in range(1, kmax + 1):
        for sub in combinations(rack, k):
            s = 0
            for a, b in sub:
                s += a + b
            if s <= TOTAL:
                out.setdefault((k, s), []).append(sub)
    return out


def _assign(sub, cons, firsts, d, out) -> None:
    """Append every arrangement of the tiles ``sub`` over the slots (bounds ``cons``,
    first cells ``firsts``): each tile on each slot either way round, if the bounds allow."""
    k = len(sub)
    opts = []
    for a, b in sub:
        row = []
        hit = False
        for (lo1, hi1, lo2, hi2), (x, y) in zip(cons, firsts):
            o = []
            if lo1 <= a <= hi1 and lo2 <= b <= hi2:
                o.append((x, y, a, b))
            if a != b and lo1 <= b <= hi1 and lo2 <= a <= hi2:
                o.append((x, y, b, a))
            if o:
                hit = True
            row.append(o)
        if not hit:
            return
        opts.append(row)
    if k == 1:
        for c in opts[0][0]:
            out.append(("place", d, (c,)))
        return
    if k == 2:
        (o00, o01), (o10, o11) = opts
        for c0 in o00:
            for c1 in o11:
                out.append(("place", d, (c0, c1)))
        for c0 in o10:
            for c1 in o01:
                out.append(("place", d, (c0, c1)))
        return
    if k == 3:
        for t0, t1, t2 in _PERM3:
            for c0 in opts[t0][0]:
                for c1 in opts[t1][1]:
                    for c2 in opts[t2][2]:
                        out.append(("place", d, (c0, c1, c2)))
        return
    for perm in permutations(range(k)):
        choices = [opts[t][j] for j, t in enumerate(perm)]
        if all(choices):
            for combo in product(*choices):
                out.append(("place", d, combo))


_PERM3 = tuple(permutations(range(3)))


def first_moves(rack, kmax: int = MAX_TILES) -> list:
    """Every first move of a deal: 2..5 tiles along row 0 from cell (0, 0).

    On the empty table every place and direction is alike, so the first alignment is put
    at one canonical place; the arrangement of the tiles (order and way round) is the choice.
    """
    subs = rack_subsets(rack, min(kmax, len(rack)))
    out: list = []
    for k in range(2, min(kmax, len(rack)) + 1):
        group = subs.get((k, TOTAL))
        if not group:
            continue
        firsts = [(2 * i, 0) for i in range(k)]
        cons = [(1, 9, 1, 9) for _ in range(k)]
        cons[0] = (0, 9, 1, 9)
        lo1, hi1, _, hi2 = cons[-1]
        cons[-1] = (lo1, hi1, 0, hi2)
        for sub in group:
            _assign(sub, cons, firsts, 0, out)
    out.sort()
    return out


def _perp(occ: dict, k: int, pstep: int, cache: dict):
    """Bounds ``(lo_if_end, hi)`` for a new half on cell ``k`` from its perpendicular run.

    ``lo_if_end`` is the lowest pips allowed when the cell is an end of the alignment
    (0 unless the cell would sit inside its perpendicular run); inside the alignment the
    lowest is always 1. None when no half can go there (a blank next to it would end up
    inside a run).
    """
    got = cache.get(k)
    if got is not None or k in cache:
        return got
    total = 0
    sides = 0
    bad = False
    for s in (pstep, -pstep):
        j = k + s
        v = occ.get(j)
        if v is None or v < 0:
            continue
        sides += 1
        n = 0
        adj = v
        while v is not None and v >= 0:
            total += v
            n += 1
            j += s
            v = occ.get(j)
        if adj == 0 and n >= 2:
            bad = True
    hi = TOTAL - total if sides else 9
    if hi > 9:
        hi = 9
    lo = 1 if sides == 2 else 0
    res = None
    if not bad and hi >= lo:
        res = (lo, hi)  # hi 0 only next to a run already worth 20: a blank end keeps it 20
    cache[k] = res
    return res


def _stretches(occ: dict, step: int, scan: int) -> dict:
    """``{start key: (start, end, total, first pips, last pips, gap, what)}`` of the halves
    along ``step``; ``gap, what`` describe the cells after the end (see :func:`_gap`)."""
    out = {}
    get = occ.get
    for k, v in occ.items():
        if v < 0:
            continue
        w = get(k - step)
        if w is not None and w >= 0:
            continue
        s = v
        last = v
        j = k + step
        w = get(j)
        while w is not None and w >= 0:
            s += w
            last = w
            j += step
            w = get(j)
        if w is not None:
            out[k] = (k, j - step, s, v, last, 0, 1)
            continue
        e = j - step
        g = 1
        j += step
        while g < scan:
            w = get(j)
            if w is not None:
                break
            g += 1
            j += step
        out[k] = (k, e, s, v, last, g, 0 if w is None else (1 if w < 0 else 2))
    return out


def _gap(occ: dict, k: int, step: int, scan: int) -> tuple[int, int]:
    """Empty cells from ``k`` on along ``step``: ``(count, what follows)``.

    What follows: 0 nothing within ``scan`` cells (open), 1 a marker, 2 a half.
    """
    g = 0
    while g < scan:
        v = occ.get(k)
        if v is None:
            g += 1
            k += step
            continue
        return g, (1 if v < 0 else 2)
    return g, 0


def _max_ext(g: int, what: int, kmax: int) -> int:
    """Most tiles that fit in an end gap without touching the next half."""
    if what == 2:
        m = (g - 1) // 2
    elif what == 1:
        m = g // 2
    else:
        m = kmax
    return m if m < kmax else kmax


def legal_moves(occ: dict, rack, first: bool, kmax: int = MAX_TILES) -> list:  # noqa: PLR0915 - long: see the reason below
    # long: the generator's inner loops share the subsets, sums and cells found so far; split, they would pass them around on the hot path
    """Every legal move for ``rack`` on the table ``occ``, sorted (the stable order).

    Parameters
    ----------
    occ : dict
        The table (see the module docstring); not modified.
    rack : sequence of (a, b) tiles, distinct
    first : bool
        The table is empty: the first move of a deal (2..5 tiles, see :func:`first_moves`).
    kmax : int
        Most tiles in the move (5; 1 for the single-tile moves of a replay).
    """
    kmax = min(kmax, len(rack))
    if kmax <= 0:
        return []
    if first:
        return first_moves(rack, kmax)
    subs = rack_subsets(rack, kmax)
    if not subs:
        return []
    sizes: dict = {}  # total -> the subset sizes that reach it
    for k, t in subs:
        sizes.setdefault(t, []).append(k)
    room = TOTAL - min(sizes)  # old halves worth more leave no subset the room it needs
    scan = 2 * kmax + 1
    out: list = []
    for d in (0, 1):
        step = STEPS[d]
        pstep = STEPS[1 - d]
        perp: dict = {}
        strs = _stretches(occ, step, scan)
        for start, end, s, f0, last, gr, wr in strs.values():
            if s > room:
                continue
            if gr == 0 and occ.get(start - step, 0) < 0:
                continue  # markers on both sides: nothing fits (and nothing to join)
            amax = -1  # the room before the first stretch, scanned when first needed
            inner: list = []  # first cells of the slots filling the gaps between stretches
            while True:
                ks = sizes.get(TOTAL - s)
                if ks:
                    if amax < 0:
                        amax = _max_ext(*_gap(occ, start - step, -step, scan), kmax)
                    bmax = _max_ext(gr, wr, kmax)
                    # an old blank may only end the alignment: a lone blank half may get new
                    # tiles on one side, a blank at a longer stretch's end none on its side
                    single = end == start
                    if f0 == 0 and not single:
                        amax_now = 0
                    else:
                        amax_now = amax
                    if last == 0 and not single:
                        bmax = 0
                    ni = len(inner)
                    for k in ks:
                        extra = k - ni
                        for a in range(max(0, extra - bmax), min(amax_now, extra) + 1):
                            b = extra - a
                            if single and f0 == 0 and a and b:
                                continue
                            firsts = [start - (2 * (a - i)) * step for i in range(a)]
                            firsts += inner
                            firsts += [end + (1 + 2 * i) * step for i in range(b)]
                            cons = []
                            for j, c in enumerate(firsts):
                                b1 = perp.get(c, 0)
                                if b1 == 0:
                                    b1 = _perp(occ, c, pstep, perp)
                                if b1 is None:
                                    break
                                b2 = perp.get(c + step, 0)
                                if b2 == 0:
                                    b2 = _perp(occ, c + step, pstep, perp)
                                if b2 is None:
                                    break
                                cons.append((b1[0] if (a and j == 0) else 1, b1[1], b2[0] if (b and j == k - 1) else 1, b2[1]))
                            else:
                                if k == 1:  # the common case, inline
                                    x, y = cell(firsts[0])
                                    lo1, hi1, lo2, hi2 = cons[0]
                                    for ((p, q),) in subs[(1, TOTAL - s)]:
                                        if lo1 <= p <= hi1 and lo2 <= q <= hi2:
                                            out.append(("place", d, ((x, y, p, q),)))
                                        if p != q and lo1 <= q <= hi1 and lo2 <= p <= hi2:
                                            out.append(("place", d, ((x, y, q, p),)))
                                    continue
                                xy = [cell(c) for c in firsts]
                                for sub in subs[(k, TOTAL - s)]:
                                    _assign(sub, cons, xy, d, out)
                # join the next stretch across an even gap (no blank may end up inside): not
                # past a blank ending the chain; a next stretch starting with a blank only if
                # the blank is all of it, a lone blank that then ends the line (bmax 0 and no
                # further join, as for any chain ending on a blank)
                if wr != 2 or gr % 2 or (last == 0 and end != start):
                    break
                nxt = strs.get(end + (gr + 1) * step)
                if nxt is None or (nxt[3] == 0 and nxt[1] != nxt[0]):
                    break
                ni = len(inner) + gr // 2
                if ni > kmax or s + nxt[2] > room:
                    break
                inner = inner + [end + (1 + 2 * i) * step for i in range(gr // 2)]
                s += nxt[2]
                if last == 0:
                    amax = 0  # the lone blank starts the alignment: nothing before it
                end, last, gr, wr = nxt[1], nxt[4], nxt[5], nxt[6]
    out.sort()
    return out


# -- whole turns and the players that search them ---------------------------------------------


def play_on(occ: dict, move, left: int, seat: int) -> tuple[int, list]:
    """Put ``move`` on ``occ`` (in place) with up to ``left`` markers of ``seat``.

    Returns the number of markers put and the keys written (to undo: delete them).
    """
    step = STEPS[move[1]]
    written = []
    for x, y, p, q in move[2]:
        k = key(x, y)
        occ[k] = p
        occ[k + step] = q
        written += (k, k + step)
    keys, _ = alignment(occ, move)
    put = closing_cells(occ, keys, step)[:left]
    for k in put:
        occ[k] = -1 - seat
    return len(put), written + put


def _without(rack, move):
    used = {(min(p, q), max(p, q)) for _, _, p, q in move[2]}
    return [t for t in rack if t not in used]


def turn_plans(occ: dict, rack, first: bool, replay: bool, left: int, seat: int, budget: int = 300) -> list:
    """Every way to play the rest of a turn, as ``(markers, moves)``, searched depth first.

    A turn is one move of several tiles, or single-tile moves one after the other, stopping
    when the player likes (in a replay, ``moves`` may be empty: stop now). Past ``budget``
    positions the series of single-tile moves are not searched deeper. ``occ`` is restored.
    """
    plans: list = []
    count = [0]

    def singles(rack, left, got, seq):
        plans.append((got, seq))
        if left == 0 or count[0] >= budget:
            return
        for m in legal_moves(occ, rack, False, 1):
            count[0] += 1
            n, written = play_on(occ, m, left, seat)
            singles(_without(rack, m), left - n, got + n, seq + [m])
            for k in written:
                del occ[k]

    if replay:
        singles(rack, left, 0, [])
        return plans
    for m in legal_moves(occ, rack, first):
        count[0] += 1
        n, written = play_on(occ, m, left, seat)
        if len(m[2]) == 1:
            singles(_without(rack, m), left - n, n, [m])
        else:
            plans.append((n, [m]))
        for k in written:
            del occ[k]
    return plans


def easy_twenties(occ: dict, unseen, hand: int = MAX_TILES) -> float:
    """Expected markers the next player places with their best single-tile move.

    Every unseen tile is taken to be in their hand with probability ``hand / len(unseen)``,
    independently; a tile's worth is the most markers one of its single-tile moves puts.
    ``occ`` is left as it was.
    """
    if not unseen:
        return 0.0
    worth: dict = {}
    for m in legal_moves(occ, unseen, False, 1):
        _, _, p, q = m[2][0]
        t = (p, q) if p <= q else (q, p)
        n, written = play_on(occ, m, 2, 0)
        for k in written:
            del occ[k]
        if n > worth.get(t, -1):
            worth[t] = n
    prob = min(1.0, hand / len(unseen))
    miss = 1.0
    total = 0.0
    for n in sorted(worth.values(), reverse=True):
        total += n * prob * miss
        miss *= 1.0 - prob
    return total
