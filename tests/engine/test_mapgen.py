"""Procedural maps: deterministic, close to the requested densities, one connected ground region."""
import numpy as np
import pytest

from engine.mapgen import SPAWN_ANCHORS, generate
from engine.maps import deposits_array, ground_passable, label_regions, terrain_array, unreachable_spawns
from engine.schema.level import MapGenParams
from engine.snapshot import CLIFF, GROUND, WATER


def test_same_params_same_map():
    p = MapGenParams(width=96, height=80, seed=11, cliff_density=0.15, water_density=0.1, deposits=20)
    assert generate(p).model_dump() == generate(p).model_dump()
    other = generate(p.model_copy(update={"seed": 12}))
    assert other.rows != generate(p).rows


@pytest.mark.parametrize("cliff,water", [(0.0, 0.0), (0.08, 0.05), (0.2, 0.15), (0.3, 0.3)])
def test_densities_within_a_few_percent(cliff, water):
    m = generate(MapGenParams(width=128, height=128, seed=5, cliff_density=cliff, water_density=water))
    t = terrain_array(m)
    assert abs((t == CLIFF).mean() - cliff) <= 0.03
    assert abs((t == WATER).mean() - water) <= 0.03


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("symmetry", ["none", "mirror_x", "mirror_y", "rotational"])
def test_ground_is_one_region_and_spawns_on_it(seed, symmetry):
    m = generate(MapGenParams(width=72, height=64, seed=seed, cliff_density=0.25, water_density=0.2,
                              symmetry=symmetry, deposits=16))
    _, regions = label_regions(ground_passable(terrain_array(m)))
    assert regions == 1
    assert {s.name for s in m.spawns} == set(SPAWN_ANCHORS)
    assert unreachable_spawns(m) == []
    t = terrain_array(m)
    assert len(m.deposits) == 16
    assert all(t[d.y, d.x] == GROUND for d in m.deposits)


@pytest.mark.parametrize("symmetry,flip", [
    ("mirror_x", lambda a: a[:, ::-1]),
    ("mirror_y", lambda a: a[::-1, :]),
    ("rotational", lambda a: a[::-1, ::-1]),
])
def test_symmetry(symmetry, flip):
    m = generate(MapGenParams(width=80, height=64, seed=3, cliff_density=0.18, water_density=0.12,
                              symmetry=symmetry, deposits=18))
    t = terrain_array(m)
    assert np.array_equal(t, flip(t))
    dep = np.zeros_like(t, dtype=bool)
    for d in m.deposits:
        dep[d.y, d.x] = True
    assert np.array_equal(dep, flip(dep))


def test_deposits_listed_and_marked():
    m = generate(MapGenParams(width=64, height=64, seed=2, deposits=12))
    assert len(deposits_array(m)) == 12
    assert sum(row.count("M") for row in m.rows) == 12


def test_large_extreme_map_stays_connected():
    m = generate(MapGenParams(width=256, height=256, seed=9, cliff_density=0.4, water_density=0.4, deposits=60))
    _, regions = label_regions(ground_passable(terrain_array(m)))
    assert regions == 1
    assert unreachable_spawns(m) == []
