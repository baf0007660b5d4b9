"""The grid's pair tables against the whole computation: on the constructions of the held-out
toy game positions (plus the tile each position places), :class:`GridPairs` gives the
contacts of ``find_contacts`` (the same bodies, kinds and polygons, in its order) and the
magnet wrenches of ``magnet_wrenches`` at the same poses."""

from __future__ import annotations

import numpy as np
import pytest

from magdomino.model.presets import load_preset
from magdomino.physics.contact_polygons import find_contacts
from magdomino.physics.grid_pairs import GridPairs
from magdomino.physics.statics import magnet_wrenches
from validation import toy_positions

TOY = load_preset("toy")


@pytest.fixture(scope="module")
def constructions() -> list[list[tuple]]:
    views = [view for _, view in toy_positions.position_views(toy_positions.HELD_OUT)]
    return [[tuple(t.grid.to_list()) for t in view.construction] + [tuple(view.grid.to_list())] for view in views]


def _same_polygon(a: np.ndarray, b: np.ndarray) -> bool:
    """The same convex polygon, whichever vertex comes first (a clip may also keep a vertex on an
    edge: compare the corners' extent and the area)."""
    def area(p):
        return np.linalg.norm(np.cross(p[1:-1] - p[0], p[2:] - p[0]).sum(axis=0)) / 2 if len(p) > 2 else 0.0

    return bool(np.allclose(a.min(axis=0), b.min(axis=0), atol=1e-12) and np.allclose(a.max(axis=0), b.max(axis=0), atol=1e-12)
                and abs(area(a) - area(b)) < 1e-12)


def test_the_pair_tables_give_the_contacts_of_the_whole_computation(constructions):
    pairs = GridPairs(TOY)
    checked = 0
    for grids in constructions:
        P, Q = pairs.poses(grids)
        for tile in (None, len(grids) - 1):
            whole = find_contacts(P, Q, pairs.size, tile=tile)
            tabled = pairs.contacts(grids, tile=tile)
            assert [(c.a, c.b, c.kind) for c in tabled] == [(c.a, c.b, c.kind) for c in whole]
            for c, d in zip(whole, tabled):
                assert np.allclose(c.normal, d.normal, rtol=0.0, atol=1e-12)
                assert _same_polygon(c.points, d.points), (grids, c.a, c.b, c.kind)
                checked += 1
    assert checked > 1000


def test_the_pair_tables_give_the_magnet_wrenches_of_the_whole_computation(constructions):
    """Equal to rounding, except where the magnet model's own answer changes when the whole
    construction moves by a grid square (a magnet pair exactly at the distance where the model
    changes its rule, decided by rounding): there the tables give one of the two."""
    pairs = GridPairs(TOY)
    unit = float(TOY.tile.size[0]) / 2
    knife_edges = 0
    for grids in constructions:
        P, Q = pairs.poses(grids)
        whole = np.hstack(magnet_wrenches(TOY, P, Q))
        tabled = pairs.wrenches(grids)
        scale = 1e-9 * (1.0 + np.abs(whole).max())
        if np.abs(tabled - whole).max() > scale:
            moved = [np.hstack(magnet_wrenches(TOY, P + (dx * unit, dy * unit, 0.0), Q)) for dx, dy in ((1, 0), (0, 1), (-3, 2))]
            assert any(np.abs(m - whole).max() > scale for m in moved), grids
            assert any(np.abs(m - tabled).max() <= scale for m in (whole, *moved)) or np.abs(tabled - whole).max() < 1e-3 * (
                1.0 + np.abs(whole).max()), grids
            knife_edges += 1
        added = pairs.wrenches(grids, tile=len(grids) - 1)
        before = np.vstack([np.hstack(magnet_wrenches(TOY, P[:-1], Q[:-1])), np.zeros((1, 6))])
        assert np.abs(before + added - whole).max() <= 1e-3 * (1.0 + np.abs(whole).max())
    assert knife_edges <= len(constructions) // 10


def test_free_magnets_are_refused():
    with pytest.raises(ValueError, match="free magnets"):
        GridPairs(load_preset("free"))


def test_a_tile_inside_the_table_is_refused_as_find_contacts_refuses_it():
    from magdomino.errors import InputError

    with pytest.raises(InputError, match="inside the table"):
        GridPairs(TOY).contacts([(0, 0, -1, 0), (3, 3, 0, 0)])
