"""The equilibrium linear programme of the statics and its parametric problems.

:class:`Equilibrium` assembles ``A α + w = 0`` (contact-vertex friction pyramids, in tile
weights) and answers whether it is feasible (:meth:`Equilibrium.stands`, by parts) or the
optimum of one extra load factor (:meth:`Equilibrium.solve`, on one warm-started HiGHS
model: the parametric problems of :mod:`magdomino.physics.margins`). The model and its
limits are described in :mod:`magdomino.physics.statics`, the API that uses this module.
"""

from __future__ import annotations

import threading

import numpy as np

from magdomino.maths.geometry import cross3
from magdomino.physics.connections import quiet_c_output
from magdomino.physics.contact_polygons import cone_proofs, proved_in_cones

FRICTION_DIRECTIONS = 8
CONE_RESIDUAL = 1e-7
"""A wrench is in a contact's cone (:meth:`Equilibrium.stands`) when the non-negative
least-squares residual is below this, relative to the wrench (HiGHS's own feasibility
tolerance)."""
NNLS_MAX_COLUMNS = 448
"""Groups with more pyramid edges than this go straight to the LP (:meth:`Equilibrium.stands`):
measured on 3,400 groups of careful players' Défi games (SciPy 1.17), the fit costs about the
LP's time up to ~400 columns and 2-2.5 times it from ~500 (a tower of 12 tiles: 72 rows, 656
columns: 6-12 ms against 2.5-5 ms)."""
PROOF_MIN_BRIDGES = 16
"""Bridges from which :meth:`Equilibrium.stands_each` first tries the direct proofs, all at once
(:func:`~magdomino.physics.contact_polygons.proved_in_cones`): their set-up costs more than
the few fits of one structure."""
MAP_TILES = 40
"""Movable tiles up to which :meth:`Equilibrium._loads`, asked a second time, makes the maps (6 m
by 6 m, a screen's several checks of one structure) that turn its subtree sums into two
products; beyond (the trials of a batch laid side by side, thousands of tiles), the sums."""
GROUP_INFEASIBLE = 1e-5
"""A group's non-negative least-squares residual above this (relative to its loads) proves it
cannot stand without asking the LP (:meth:`Equilibrium.stands`)."""


class Equilibrium:
    """The equilibrium equations ``A α + w = 0`` of the movable tiles, in tile weights.

    Parameters
    ----------
    positions : ndarray, shape (n, 3), m
    contacts : list of Contact
    movable : ndarray of bool, shape (n,)
    mu : float
        Friction coefficient of every contact (tile on tile, tile on table).
    table_mu : float or None
        Friction coefficient of the contacts with the table, when it differs from ``mu``.
    length : float, m
        Torque rows are divided by it (so that every row is a force, in tile weights).

    Attributes
    ----------
    A : scipy.sparse matrix, shape (6 m, k)
        Columns: pyramid edges of the contact vertices, in tile weights.
    rows : ndarray of int, shape (n,)
        First row of each movable tile (-1 for fixed ones).
    """

    def __init__(self, positions, contacts, movable, mu: float, length: float, table_mu: float | None = None):
        n = len(positions)
        self.rows = np.full(n, -1)
        self.rows[movable] = 6 * np.arange(int(np.sum(movable)))
        self.m = int(np.sum(movable))
        self.length = length
        K = FRICTION_DIRECTIONS
        angles = 2 * np.pi * np.arange(K) / K
        if contacts:
            counts = [len(c.points) for c in contacts]
            pts = np.concatenate([c.points for c in contacts])  # (V, 3)
            nrm = np.repeat(np.array([c.normal for c in contacts]), counts, axis=0)
            body_a = np.repeat([c.a for c in contacts], counts)
            body_b = np.repeat([c.b for c in contacts], counts)
        else:
            pts = nrm = np.zeros((0, 3))
            body_a = body_b = np.zeros(0, int)
        V = len(pts)
        # Tangents: x and y for a horizontal face, the face's horizontal edge and z for a side.
        vertical = np.abs(nrm[:, 2]) > 0.5
        t1 = np.where(vertical[:, None], [1.0, 0.0, 0.0], np.column_stack([-nrm[:, 1], nrm[:, 0], np.zeros(V)]))
        t2 = cross3(nrm, t1)
        # Side faces (end to end, side by side) push but do not rub: friction there needs a
        # prestress pressing the faces together, which placing a tile never builds (a tile
        # tipping away from a neighbour only opens the gap); with friction the LP would hold
        # tipping tiles by wedging them between side faces (the docstring's class 5).
        if table_mu is not None and table_mu != mu:
            mu = np.where(body_a < 0, table_mu, mu)  # a = -1: the table
        mu_v = np.where(vertical, mu, 0.0)[:, None, None]
        gens = nrm[:, None, :] + mu_v * (np.cos(angles)[None, :, None] * t1[:, None, :] + np.sin(angles)[None, :, None] * t2[:, None, :])
        self._on = {}  # 1: the generators' wrenches on body b, -1: on body a, (V, K, 6)
        for body, sign in ((body_b, 1.0), (body_a, -1.0)):
            lever = pts - np.asarray(positions)[np.maximum(body, 0)]
            g = gens * sign  # (V, K, 3)
            self._on[sign] = np.concatenate([g, cross3(lever[:, None, :], g) / length], axis=2)
        self.k = V * K
        self._A = None
        self._parametric = None  # the HiGHS model of solve(extra=...), made at its first use
        self._topo = None  # the contact graph's parts (stands), made at its first use
        self.proof_min_bridges = PROOF_MIN_BRIDGES
        """Bridges from which :meth:`stands` tries the direct proofs first (an equilibrium asked
        about many loads pays their set-up once: lower it)."""
        self._positions = np.asarray(positions, float)
        self._vertices = (pts, nrm, mu_v.reshape(-1))  # for the bridges' direct proofs (_topology)
        self._contacts = [(c.a, c.b) for c in contacts]
        movable_body = lambda body: (body >= 0) & (self.rows[np.maximum(body, 0)] >= 0)  # noqa: E731
        self._vertex_nodes = {sign: np.where(movable_body(body), self.rows[np.maximum(body, 0)] // 6, -1)
                              for body, sign in ((body_b, 1.0), (body_a, -1.0))}  # each vertex's tile (row block), -1: ground
        self._starts = K * np.concatenate([[0], np.cumsum([len(c.points) for c in contacts], dtype=int)]) if contacts else np.zeros(1, int)
        # A side vertex's K pyramid edges (no friction there) are one column K times: the parts' fits take it once
        self._distinct = (np.repeat(vertical, K) | (np.arange(V * K) % K == 0)) if V else np.zeros(0, bool)

    @property
    def A(self):
        """The equilibrium matrix (built when first asked for: :meth:`stands` on a tree of
        contacts never needs it)."""
        if self._A is None:
            from scipy.sparse import csc_matrix  # noqa: PLC0415 - scipy: ~0.1 s to import, the LP only

            ri, ci, vals = [], [], []
            cols = np.arange(self.k).reshape(-1, FRICTION_DIRECTIONS)
            for sign, nodes in self._vertex_nodes.items():
                use = nodes >= 0
                w = self._on[sign][use]  # (u, K, 6)
                if len(w):
                    ri.append(np.broadcast_to(6 * nodes[use][:, None, None] + np.arange(6), w.shape).ravel())
                    ci.append(np.broadcast_to(cols[use][:, :, None], w.shape).ravel())
                    vals.append(w.ravel())
            if ri:
                self._A = csc_matrix((np.concatenate(vals), (np.concatenate(ri), np.concatenate(ci))), shape=(6 * self.m, self.k))
            else:
                self._A = csc_matrix((6 * self.m, self.k))
        return self._A

    def load(self, forces, torques) -> np.ndarray:
        """Right-hand side rows (6 m,) of external forces (n, 3) and torques (n, 3), in tile weights."""
        w = np.hstack([forces, torques / self.length])[self.rows >= 0]
        return w.ravel()

    def stands(self, w: np.ndarray) -> bool:
        """Is ``A α + w = 0`` feasible with ``α >= 0``? The answer of :meth:`solve`, found by
        parts (exact, not an approximation):

        A contact whose removal cuts a set of tiles ``S`` off the ground (the table and the
        fixed tiles) carries exactly the resultant of ``S``'s loads: the sum of the tiles'
        equilibria, in which the contacts inside ``S`` cancel (action and reaction). Such a
        *bridge* of the contact graph (a tower's every tile-on-tile contact) is checked alone:
        is that wrench in its contact's cone (a non-negative least-squares fit with zero
        residual, 6 rows, tens of microseconds; the residual and the fit's optimality checked
        here, not taken from the solver: :func:`_nnls_fit`). The tiles left joined by other
        contacts (a tile bridging two supports, tiles touching side by side: cycles of the
        graph) form groups whose contact forces are coupled; each group is one small LP, its
        loads including the known wrenches of the bridges that touch it. Groups that meet only
        at the ground are separate problems (the ground has no equation). A tile whose every
        contact is a bridge is then in equilibrium by construction. Tiles not connected to
        the ground form groups of their own.
        """
        return bool(self._by_parts(w, None, first=True).all())

    def stands_each(self, w: np.ndarray, check=None, labels=None) -> np.ndarray:
        """:meth:`stands` for every part at once: shape (m,), False for the movable tiles of a
        part that cannot be in equilibrium (a bridge's wrench outside its cone marks the tiles
        it carries; a group that cannot balance marks its tiles). Disjoint structures laid side
        by side (:func:`magdomino.physics.statics.judge_many`, the hybrid's batches) are judged
        each on its own, as by :meth:`stands` one at a time.

        ``check`` (bool, shape (m,)): judge only the parts that carry or contain these tiles
        (the others are reported True). ``labels`` (int, shape (m,)): the structure each tile
        belongs to (a trial of a batch): once a part of a structure fails, its other parts are
        not judged (its tiles then report False only where a failing part holds them).
        """
        check = np.ones(self.m, bool) if check is None else np.array(check, bool)
        return self._by_parts(w, check, first=False, labels=None if labels is None else np.asarray(labels))

    def structures_stand(self, w: np.ndarray, labels, count: int, check=None) -> np.ndarray:
        """:meth:`stands_each` per structure: shape (count,), whether every part holding the
        tiles of structure ``k`` balances (``labels``: the structure of each movable tile, in
        ``range(count)``; ``check``: as :meth:`stands_each`)."""
        labels = np.asarray(labels)
        stands = np.ones(count, bool)
        stands[labels[~self.stands_each(w, check, labels)]] = False
        return stands

    def _topology(self):  # noqa: PLR0915 - long: see the reason below
        # long: one depth-first search from the ground (discovery order, low links, bridges, groups) whose arrays each phase reads
        """The contact graph's parts (independent of the loads, built once): the depth-first
        tree from the ground, the subtree sums, the bridges with their cones, the groups."""
        if self._topo is not None:
            return self._topo
        nodes = self.m  # graph nodes: the movable tiles by row block, then the ground
        ground = nodes
        node_of = lambda body: int(self.rows[body]) // 6 if body >= 0 and self.rows[body] >= 0 else ground  # noqa: E731
        edges = []  # (u, v, contact)
        for c, (a, b) in enumerate(self._contacts):
            u, v = node_of(a), node_of(b)
            if u != v:
                edges.append((u, v, c))
        adjacency = [[] for _ in range(nodes + 1)]
        for e, (u, v, _) in enumerate(edges):
            adjacency[u].append((v, e))
            adjacency[v].append((u, e))
        # One depth-first search from the ground: discovery order, low links, tree edges.
        disc = [-1] * (nodes + 1)
        low = [0] * (nodes + 1)
        parent_edge = [-1] * (nodes + 1)
        order = [ground]
        disc[ground] = low[ground] = 0
        stack = [(ground, iter(adjacency[ground]))]
        while stack:
            u, it = stack[-1]
            for v, e in it:
                if e == parent_edge[u]:
                    continue
                if disc[v] < 0:
                    disc[v] = low[v] = len(order)
                    order.append(v)
                    parent_edge[v] = e
                    stack.append((v, iter(adjacency[v])))
                    break
                low[u] = min(low[u], disc[v])
            else:
                stack.pop()
                if stack:
                    p = stack[-1][0]
                    low[p] = min(low[p], low[u])
        parent = [-1] * (nodes + 1)
        for v in order[1:]:
            u, x, _ = edges[parent_edge[v]]
            parent[v] = u if x == v else x
        # Subtree sums as one sparse product: row u adds the loads of every tile below u.
        ri, ci = [], []
        for v in order[1:]:
            u = v
            while u != ground:
                ri.append(u)
                ci.append(v)
                u = parent[u]
        order_by = np.argsort(ri, kind="stable")
        subtree = (np.asarray(ri, int)[order_by], np.asarray(ci, int)[order_by])  # (tile, a tile it carries), by tile
        joined, bridges = [], []  # bridges: (contact, child node, other node, child is body b)
        for e, (u, v, c) in enumerate(edges):
            child = v if parent_edge[v] == e else (u if parent_edge[u] == e else -1)
            if child < 0 or low[child] <= disc[u if child == v else v]:
                joined.append(e)  # not a bridge: inside a group
            else:
                bridges.append((c, child, u if child == v else v, child == v))
        cones = []
        for c, _, _, on_b in bridges:
            gens = self._on[1.0 if on_b else -1.0][self._starts[c] // FRICTION_DIRECTIONS : self._starts[c + 1] // FRICTION_DIRECTIONS]
            cones.append(np.ascontiguousarray(gens.reshape(-1, 6)[self._distinct[self._starts[c] : self._starts[c + 1]]].T))
        # Groups: the tiles joined by non-bridge contacts (union-find; not through the ground).
        root = list(range(nodes + 1))

        def find(x):
            while root[x] != x:
                root[x] = root[root[x]]
                x = root[x]
            return x

        for e in joined:
            u, v, _ = edges[e]
            if u != ground and v != ground:
                root[find(u)] = find(v)
        members: dict[int, list[int]] = {}
        for e in joined:
            u, v, _ = edges[e]
            members.setdefault(find(v if u == ground else u), []).append(e)
        groups = []  # (tiles, the inner pyramids' dense A or None, A of its columns: dense for the fit, sparse for the LP)
        for group_edges in members.values():
            tiles = np.array(sorted({x for e in group_edges for x in edges[e][:2] if x != ground}), int)
            cols = np.concatenate([np.arange(self._starts[edges[e][2]], self._starts[edges[e][2] + 1]) for e in group_edges])
            cols = cols[self._distinct[cols]]
            if len(cols) <= NNLS_MAX_COLUMNS:
                A_group = self._group_matrix(tiles, cols)
                groups.append((tiles, np.ascontiguousarray(A_group[:, cols % 2 == 0]), A_group))  # every other pyramid edge
            else:
                rows = (6 * tiles[:, None] + np.arange(6)).ravel()
                groups.append((tiles, None, self.A[rows][:, cols]))
        in_part = np.zeros(nodes, bool)
        in_part[order[1:]] = True
        for tiles, _, _ in groups:
            in_part[tiles] = True
        lonely = np.flatnonzero(~in_part)  # not reached and touching nothing: only a zero load balances
        child = np.array([b[1] for b in bridges], int)
        other = np.array([b[2] for b in bridges], int)
        self._maps, self._loaded = None, False  # _loads' maps, made when it is asked a second time
        if len(child):
            # which tiles each bridge's subtree holds (nb, m), and which tile each bridge rests on
            # (m, nb; none: the ground): dense for the maps, sparse for a batch's thousands of tiles
            start, stop = np.searchsorted(subtree[0], child), np.searchsorted(subtree[0], child, "right")
            held = np.concatenate([np.arange(a, b) for a, b in zip(start, stop)])
            bridge_of = np.repeat(np.arange(len(child)), stop - start)
            resting = np.flatnonzero(other != nodes)
            if nodes <= MAP_TILES:
                carries, onto = np.zeros((len(child), nodes)), np.zeros((nodes, len(child)))
                carries[bridge_of, subtree[1][held]] = 1.0
                onto[other[resting], resting] = 1.0
            else:
                from scipy.sparse import csr_matrix  # noqa: PLC0415 - scipy: ~0.1 s to import, the parts only

                carries = csr_matrix((np.ones(len(held)), (bridge_of, subtree[1][held])), shape=(len(child), nodes))
                onto = csr_matrix((np.ones(len(resting)), (other[resting], resting)), shape=(nodes, len(child)))
            self._sums = (carries, onto, child, other)
        self._topo = (subtree, child, other, cones, groups, lonely)
        self._bridges = bridges
        self._proofs = None  # made when a batch asks (_by_parts)
        return self._topo

    def _group_matrix(self, tiles: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The rows of ``tiles`` (6 each, in their order) and columns ``cols`` of :attr:`A`, dense."""
        at = np.full(self.m + 1, -1)  # a tile's place in the group; -1 (the ground's too) for the others
        at[tiles] = np.arange(len(tiles))
        out = np.zeros((6 * len(tiles), len(cols)))
        vertex, edge = np.divmod(cols, FRICTION_DIRECTIONS)
        for sign, nodes in self._vertex_nodes.items():
            place = at[nodes[vertex]]
            use = np.flatnonzero(place >= 0)
            out[(6 * place[use])[:, None] + np.arange(6), use[:, None]] = self._on[sign][vertex[use], edge[use]]
        return out

    def _loads(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Under the loads ``block`` (m, 6), linear in it: the bridges' wrenches (nb, 6: the subtree
        each carries, about the carried tile) and the loads (m, 6) the groups balance: the
        subtree sums (:meth:`_loads_of`), and from the second call on, up to :data:`MAP_TILES`
        tiles, two products with maps made of the unit loads."""
        _, child, _, _, groups, _ = self._topology()
        if not len(child):
            return np.zeros((0, 6)), block
        if self._maps is None and self._loaded and self.m <= MAP_TILES:  # asked again: worth the maps
            m = self.m
            W, rhs = self._loads_of(np.eye(6 * m).reshape(6 * m, m, 6))
            self._maps = (np.ascontiguousarray(W.reshape(6 * m, -1).T), np.ascontiguousarray(rhs.reshape(6 * m, -1).T))
        self._loaded = True
        if self._maps is None:
            W, rhs = self._loads_of(np.asarray(block, float)[None])
            return W[0], (block if not groups else rhs[0])
        flat = np.asarray(block, float).reshape(-1)
        W = (self._maps[0] @ flat).reshape(-1, 6)
        return W, (block if not groups else (self._maps[1] @ flat).reshape(-1, 6))

    def _loads_of(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_loads` of a batch of loads ``block`` (B, m, 6): (B, nb, 6) and (B, m, 6)."""
        carries, onto, child, other = self._sums
        length, centres = self.length, self._positions[self.rows >= 0]
        FT = _times(carries, np.concatenate([block[..., :3], block[..., 3:] * length + cross3(centres, block[..., :3])], axis=-1))
        Fc, Tc = FT[..., :3], FT[..., 3:]  # each bridge's subtree: force, torque about the origin
        W = np.concatenate([Fc, (Tc - cross3(centres[child], Fc)) / length], axis=-1)
        rhs = block.copy()
        rhs[:, child] -= W  # each tile is the carried tile of one bridge at most
        at = np.vstack([centres, np.zeros(3)])[other]
        rhs += _times(onto, np.concatenate([Fc, (Tc - cross3(at, Fc)) / length], axis=-1))
        return W, rhs

    def fails_whatever(self, w: np.ndarray, changes) -> bool:
        """Whether ``w + dw`` cannot stand for any ``dw`` of ``changes`` (each (6 m,)), shown at one
        part (a bridge, or a group small enough for the fit): at the fit's optimum the residual ``r``
        separates the part's load ``b`` from its cone (``r · y >= 0`` on it, ``r · b = -|r|²``), so a
        changed ``b'`` lies ``-r · b' / |r|`` or more from it. False says nothing."""
        _, child, _, cones, groups, _ = self._topology()
        dense = [(t, A) for t, inner, A in groups if inner is not None]
        aims = [[-W[k] for k in range(len(child))] + [-rhs[t].ravel() for t, _ in dense]  # each part's b, linear in the load
                for W, rhs in (self._loads(np.asarray(x, float).reshape(self.m, 6)) for x in (w, *changes))]
        for p, M in enumerate([*cones, *(A for _, A in dense)]):  # the fit solves M x ≈ b, x >= 0
            b, shifts = aims[0][p], [a[p] for a in aims[1:]]
            spare = GROUP_INFEASIBLE * (1.0 + np.abs(b).max() + max((np.abs(d).max() for d in shifts), default=0.0))
            residual, optimal, r = _nnls_fit(M, b, maxiter=50 * M.shape[1], with_residual=True)
            if optimal and residual > spare and -(r @ b) / residual - max((r @ d / residual for d in shifts), default=0.0) > spare:
                return True
        return False

    def _bridge_proofs(self, bridges) -> list:
        """:func:`~magdomino.physics.contact_polygons.cone_proofs` of each bridge's contact: its
        vertices, the normal and friction of the force on the tile it carries, that tile's centre."""
        pts, nrm, mu = self._vertices
        centres = self._positions[self.rows >= 0]
        K = FRICTION_DIRECTIONS
        return cone_proofs([(pts[self._starts[c] // K : self._starts[c + 1] // K], (1.0 if on_b else -1.0) * nrm[self._starts[c] // K],
                             mu[self._starts[c] // K : self._starts[c + 1] // K], centres[child]) for c, child, _, on_b in bridges])

    def _by_parts(self, w, check, first: bool, labels=None) -> np.ndarray:
        """Per movable tile, whether its parts balance (see :meth:`stands`); ``first``: stop at
        the first part that does not (only ``.all()`` of the answer then means anything);
        ``labels``: stop judging a structure at its first part that does not (``check`` is
        updated in place)."""
        nodes = self.m
        ok = np.ones(nodes, bool)
        if nodes == 0:
            return ok
        subtree, child, other, cones, groups, lonely = self._topology()
        length = self.length
        block = np.asarray(w, float).reshape(nodes, 6)
        for t in lonely:
            if (check is None or check[t]) and np.abs(block[t]).max() > CONE_RESIDUAL:
                ok[t] = False
                if first:
                    return ok
        W, rhs = self._loads(block)
        if len(child):
            carrier, carried = subtree
            scales = 1.0 + np.abs(W).max(axis=1)
            proved = np.zeros(len(child), bool)
            if len(child) >= self.proof_min_bridges:  # most bridges, at once; the fit for the rest
                if self._proofs is None:
                    self._proofs = self._bridge_proofs(self._bridges)
                proved = proved_in_cones(self._proofs, W, CONE_RESIDUAL * scales, length, FRICTION_DIRECTIONS)
            for k in np.flatnonzero(~proved):
                if check is not None and not check[child[k]]:
                    continue
                M = cones[k]
                scale = scales[k]
                residual, optimal = _nnls_fit(M, -W[k], feasible_below=CONE_RESIDUAL * scale)
                if residual > CONE_RESIDUAL * scale:
                    if optimal or not _feasible(M, W[k]):
                        ok[carried[np.searchsorted(carrier, child[k]) :
                                   np.searchsorted(carrier, child[k], "right")]] = False  # what it carries
                        if first:
                            return ok
                        if labels is not None:
                            check[labels == labels[child[k]]] = False
        for tiles, inner, A_group in groups:
            if check is not None and not check[tiles].any():
                continue
            w_group = rhs[tiles].ravel()
            if inner is None:  # a large group: the LP is quicker than the fit
                good = _feasible(A_group, w_group)
            else:
                # Non-negative least squares first (a third of the LP's time on these small
                # groups): a zero residual is a solution, a large one at the least-squares
                # optimum proves there is none; a residual in between (never seen: feasible ones
                # give ~1e-16, infeasible ones > 1e-3 relative), or a fit that is not the
                # optimum (:func:`_nnls_fit`), goes to the LP. Before it, the fit on every other
                # edge of each friction pyramid (a pyramid inside it, half the columns): a
                # solution there is one of the whole (most groups stand).
                scale = 1.0 + np.abs(w_group).max()
                residual, _ = _nnls_fit(inner, -w_group, maxiter=50 * inner.shape[1], feasible_below=CONE_RESIDUAL * scale)
                if residual > CONE_RESIDUAL * scale:
                    residual, optimal = _nnls_fit(A_group, -w_group, maxiter=50 * A_group.shape[1], feasible_below=CONE_RESIDUAL * scale)
                if residual <= CONE_RESIDUAL * scale:
                    good = True
                elif optimal and residual > GROUP_INFEASIBLE * scale:
                    good = False
                else:
                    good = _feasible(A_group, w_group)
            if not good:
                ok[tiles] = False
                if first:
                    return ok
        return ok

    def solve(self, w: np.ndarray, extra=None, objective: float = 0.0, bounds=(0.0, None)):
        """Feasibility of ``A α + w = 0``, or with an extra column ``e`` and variable ``λ``
        (``A α + λ e + w = 0``) the optimum ``objective · λ`` (-1: maximise, +1: minimise).

        The parametric problems (margins: one per tilt direction, a few per secant, the
        load factor) share ``A`` and differ in ``e``, ``w`` and the objective: they are
        solved by one HiGHS model kept with this object, each from the optimal basis of the
        one before (a hot start: several times faster than a fresh solve).

        Returns (feasible, λ or None).
        """
        if 6 * self.m == 0:
            return True, (bounds[1] if objective < 0 else bounds[0]) if extra is not None else None
        if extra is None:
            return _feasible(self.A, w), None
        import highspy  # noqa: PLC0415 - HiGHS: loaded by the LP only (and silenced there: it prints a banner)

        h = self._parametric
        rows = 6 * self.m
        if h is None:
            from scipy.sparse import csc_matrix, hstack  # noqa: PLC0415 - scipy: ~0.1 s to import, the LP only

            A = hstack([self.A, csc_matrix(np.ones((rows, 1)))], format="csc")  # a dense last column
            h = self._parametric = _new_highs()
            _pass_equality_lp(h, A, np.zeros(rows))
        e = np.asarray(extra, float).reshape(-1)
        for r in range(rows):
            h.changeCoeff(r, self.k, float(e[r]))
        index = np.arange(rows, dtype=np.int32)
        h.changeRowsBounds(rows, index, -np.asarray(w, float), -np.asarray(w, float))
        h.changeColCost(self.k, float(objective))
        h.changeColBounds(self.k, float(bounds[0]), highspy.kHighsInf if bounds[1] is None else float(bounds[1]))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return False, None
        return True, float(h.getSolution().col_value[self.k])


def _times(M, X: np.ndarray) -> np.ndarray:
    """``M`` (p, m; dense or sparse) times each of a batch ``X`` (B, m, k): (B, p, k)."""
    B, m, k = X.shape
    return np.asarray(M @ X.transpose(1, 0, 2).reshape(m, B * k)).reshape(-1, B, k).transpose(1, 0, 2)


KKT_TOLERANCE = 1e-9
"""A non-negative least-squares fit is its problem's optimum (:func:`_nnls_fit`) when the
gradient ``Mᵀ(M x - b)`` is at least ``-KKT_TOLERANCE`` everywhere and within it of zero where
``x > 0`` (relative to the problem's scale; rounding leaves ~1e-16)."""


def _nnls_fit(M, b, maxiter=None, feasible_below: float = -1.0, with_residual: bool = False) -> tuple:
    """Non-negative least-squares fit of ``b`` by the columns of ``M``: (the residual
    ``|M x - b|`` of the returned ``x``, whether ``x`` is the optimum).

    Neither is taken from ``scipy.optimize.nnls``: its reimplementation (SciPy 1.15 on) can
    return a point that is not the minimiser *and* report ``rnorm = 0`` for it
    (scipy/scipy#25389). Seen here with SciPy 1.16.0-1.17.1 (not 1.14.1, 1.15.3): a tile
    whose centre of mass is 3 mm past its only support's edge, against a neighbour's end
    face, got ``rnorm = 0.0`` for a point leaving it 0.168 tile weights of force and 0.062
    of torque out of balance: "stands". So the residual is recomputed from
    ``x`` (a small one is a solution whatever the solver said: ``x >= 0`` and ``M x ≈ b``)
    and a large one proves ``b`` outside the cone only at a Karush-Kuhn-Tucker point (the
    gradient ``Mᵀ(M x - b)`` non-negative, zero where ``x > 0``); otherwise the caller asks
    the LP. A residual at most ``feasible_below`` returns at once (optimal True: a solution);
    ``with_residual`` adds the residual vector ``M x - b``."""
    from scipy.optimize import nnls  # noqa: PLC0415 - scipy.optimize: ~0.2 s to import, the LP cases only

    x, _ = nnls(M, b, maxiter=maxiter)
    x = np.maximum(x, 0.0)
    r = M @ x - b
    if feasible_below >= 0.0:  # a solution whatever the fit: its optimality is not needed
        residual = float(np.sqrt(r @ r))
        if residual <= feasible_below:
            return (residual, True, r) if with_residual else (residual, True)
    g = M.T @ r
    tol = KKT_TOLERANCE * (1.0 + np.abs(b).max()) * (1.0 + np.abs(M).max())
    on = x > 0
    optimal = bool(g.min(initial=0.0) >= -tol and (not np.any(on) or np.abs(g[on]).max() <= tol))
    return (float(np.linalg.norm(r)), optimal, r) if with_residual else (float(np.linalg.norm(r)), optimal)


_SOLVERS = threading.local()


def _new_highs():
    """A silent ``highspy.Highs`` without presolve (it costs more than it saves on these
    problems, ~25 %). Silent: recent HiGHS (1.16) prints its banner from C++ when the object
    is made, before any option can turn output off; our stdout is for results."""
    import highspy  # noqa: PLC0415 - HiGHS: loaded by the LP only (and silenced there: it prints a banner)


    with quiet_c_output():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    return h


def _pass_equality_lp(h, A, rhs, cost=None) -> None:
    """Give ``h`` the problem ``A x = rhs``, ``x >= 0``, minimise ``cost · x`` (none: 0; ``A`` a
    CSC matrix), as flat arrays: filling a ``highspy.HighsLp`` field by field costs ~100 times
    more (12 ms against 0.1 ms for 1,500 rows and 12,000 columns)."""
    import highspy  # noqa: PLC0415 - HiGHS: loaded by the LP only (and silenced there: it prints a banner)

    rows, cols = A.shape
    rhs = np.ascontiguousarray(rhs, dtype=float)
    status = h.passModel(cols, rows, A.nnz, int(highspy.MatrixFormat.kColwise), int(highspy.ObjSense.kMinimize), 0.0,
                         np.zeros(cols) if cost is None else np.ascontiguousarray(cost, dtype=float), np.zeros(cols),
                         np.full(cols, highspy.kHighsInf), rhs, rhs, A.indptr.astype(np.int32), A.indices.astype(np.int32),
                         np.ascontiguousarray(A.data, dtype=float), np.zeros(cols, np.int32))  # every column continuous
    if status == highspy.HighsStatus.kError:  # cannot happen for these problems: say so
        raise RuntimeError(f"statics: HiGHS refused the problem ({status})")


def _feasible(A, w) -> bool:
    """Is ``A α + w = 0`` feasible with ``α >= 0`` (HiGHS, straight through ``highspy``: one
    solver object per thread, given each problem whole; a third of the time of
    ``scipy.optimize.linprog``'s checks and conversions around the same solver, which is what
    these small problems cost)."""
    import highspy  # noqa: PLC0415 - HiGHS: loaded by the LP only (and silenced there: it prints a banner)

    h = getattr(_SOLVERS, "highs", None)
    if h is None:
        h = _SOLVERS.highs = _new_highs()
    from scipy.sparse import csc_matrix  # noqa: PLC0415 - scipy: ~0.1 s to import, the LP only

    _pass_equality_lp(h, csc_matrix(A), -np.asarray(w, float))  # sparse or dense ``A``
    h.run()
    return h.getModelStatus() == highspy.HighsModelStatus.kOptimal
