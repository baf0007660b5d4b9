import numpy as np
import pytest

from magdomino.errors import InputError
from magdomino.model.presets import DEFAULT_COLOURS, load_preset
from magdomino.model.tiles import (
    ALL_TILES,
    box_mass_properties,
    colour_of,
    is_double,
    parse_tile,
    pip_positions,
    pip_total,
    tile,
    tile_index,
    tile_mesh,
)


def test_the_set_has_28_distinct_tiles_with_known_totals():
    assert len(ALL_TILES) == 28 == len(set(ALL_TILES))
    assert all(a <= b for a, b in ALL_TILES)
    assert sum(is_double(t) for t in ALL_TILES) == 7
    # Every number appears 8 times (7 tiles, the double counting twice): 8 * (0+...+6) = 168.
    assert sum(pip_total(t) for t in ALL_TILES) == 168
    assert [tile_index(t) for t in ALL_TILES] == list(range(28))


def test_tile_normalises_and_rejects_outside_the_set():
    assert tile(5, 3) == (3, 5) == tile(3, 5)
    assert tile_index((6, 0)) == tile_index((0, 6))
    with pytest.raises(ValueError):
        tile(7, 1)
    assert parse_tile("6,3") == (3, 6) == parse_tile([3, 6]) == parse_tile("3-6")
    for bad in ("7,1", [1], "a,b", [True, 2], [1.5, 2]):
        with pytest.raises(InputError):
            parse_tile(bad)


def test_colours_come_from_the_preset_and_hands_get_several():
    colours = load_preset("standard").tile.colours
    assert tuple(colours) == tuple(DEFAULT_COLOURS)
    assert {colour_of(t, colours) for t in ALL_TILES} == set(colours)
    # Seven colours cycling over the fixed order: any 7 consecutive tiles have all colours.
    assert colour_of((0, 0), ["red"]) == "red"


def test_pips_lie_on_the_top_face_of_their_half():
    size = np.array([0.048, 0.024, 0.008])
    for a, b in ALL_TILES:
        p = pip_positions((a, b), size)
        assert len(p) == a + b
        assert np.allclose(p[:, 2], 0.004)
        assert np.all(p[:a, 0] < 0) and np.all(p[a:, 0] > 0)
        assert np.all(np.abs(p[:, 1]) < 0.012)


@pytest.mark.parametrize("pips", [(0, 0), (6, 5), (3, 1)])
def test_mesh_mass_properties_match_the_collision_box_within_5_percent(pips):
    size = np.array([0.048, 0.024, 0.008])
    mass = 0.010
    mesh = tile_mesh(pips, size)
    assert mesh.is_watertight
    box_volume, box_inertia = box_mass_properties(size, mass)
    assert abs(mesh.volume - box_volume) / box_volume < 0.05
    mesh.density = mass / mesh.volume  # same mass as the collision box
    inertia = np.sort(mesh.principal_inertia_components)
    assert np.all(np.abs(inertia - np.sort(box_inertia)) / np.sort(box_inertia) < 0.05)
    assert np.linalg.norm(mesh.center_mass) < 0.01 * size[0]
    # Colours: body and pips differ when there are pips.
    n_colours = len({tuple(c) for c in mesh.visual.face_colors})
    assert n_colours == (1 if pips == (0, 0) else 2)


@pytest.mark.parametrize("top", [6, 7, 8, 9])
def test_double_n_sets_hold_every_pair_once(top):
    from magdomino.model.tiles import TILE_SETS

    s = TILE_SETS[top]
    assert len(s.tiles) == (top + 1) * (top + 2) // 2  # 28, 36, 45, 55
    assert len(set(s.tiles)) == len(s.tiles) and all(0 <= a <= b <= top for a, b in s.tiles)
    assert not s.coloured


def test_the_magnetic_domino_set_is_the_coloured_double_six_and_vingt_has_54():
    from magdomino.model.tiles import ALL_TILES, MAGNETIC_DOMINO, double_set

    assert MAGNETIC_DOMINO.tiles == ALL_TILES and MAGNETIC_DOMINO.coloured
    nine = double_set(9, without=[(0, 0)])
    assert len(nine.tiles) == 54 and (0, 0) not in nine and (9, 9) in nine
