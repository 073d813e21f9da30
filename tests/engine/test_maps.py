"""Built-in maps load, have the promised sizes and spawns, and every spawn is reachable on foot."""
import json

import numpy as np
import pytest

from engine.data.build_maps import BUILDERS, check_map, serialise
from engine.errors import LevelError
from engine.maps import (
    MAPS_DIR,
    deposits_array,
    ground_passable,
    label_regions,
    list_maps,
    load_map,
    reachable_mask,
    terrain_array,
    unreachable_spawns,
)
from engine.schema.level import MapGenParams, MapRef
from engine.snapshot import BRIDGE, CLIFF, GROUND, WATER

SIZES = {
    "open_field": (48, 48),
    "two_front_corridor": (96, 64),
    "crossroads": (96, 96),
    "river_bridges": (128, 128),
    "plateau_fortress": (128, 128),
    "four_corner_arena": (192, 192),
    "wilderness": (256, 256),
}


def test_builtin_list():
    assert set(SIZES) <= set(list_maps())


@pytest.mark.parametrize("name", sorted(SIZES))
def test_builtin_map_is_sound(name):
    m = load_map(MapRef(name=name))
    assert (m.width, m.height) == SIZES[name]
    names = {s.name for s in m.spawns}
    assert len(names) == len(m.spawns) >= 6
    passable = ground_passable(terrain_array(m))
    for s in m.spawns:
        assert passable[int(s.y), int(s.x)], f"{name}: spawn {s.name} on impassable terrain"
    # BFS over passable tiles from the first spawn reaches every other spawn
    first = m.spawns[0]
    reach = reachable_mask(passable, first.x, first.y)
    assert all(reach[int(s.y), int(s.x)] for s in m.spawns)
    assert unreachable_spawns(m) == []
    assert len(deposits_array(m)) >= 8
    assert check_map(m) == []


def test_designed_features():
    corridor = load_map(MapRef(name="two_front_corridor"))
    assert {"base", "front_1", "front_2"} <= {s.name for s in corridor.spawns}
    river = terrain_array(load_map(MapRef(name="river_bridges")))
    assert (river == BRIDGE).sum() > 0 and (river == WATER).mean() > 0.04
    # without the bridges, north and south are cut apart
    north_only = reachable_mask(river == GROUND, 64.5, 14.5)
    assert not north_only[113, 64]
    plateau = load_map(MapRef(name="plateau_fortress"))
    assert {"base", "gate_n", "gate_e", "gate_s", "gate_w"} <= {s.name for s in plateau.spawns}
    assert (terrain_array(plateau) == CLIFF).sum() > 500


def test_builtin_files_match_the_generator():
    for name, build in BUILDERS.items():
        assert (MAPS_DIR / f"{name}.json").read_text(encoding="utf-8") == serialise(build()), name


def test_builtin_maps_are_cached():
    assert load_map(MapRef(name="crossroads")) is load_map(MapRef(name="crossroads"))


def test_unknown_name_lists_known_maps():
    with pytest.raises(LevelError) as err:
        load_map(MapRef(name="atlantis"))
    assert "atlantis" in str(err.value) and "open_field" in str(err.value)


def test_map_file_relative_to_base_dir(tmp_path):
    rows = ["." * 16 for _ in range(16)]
    rows[3] = "..M" + "." * 13
    rows[5] = "#" * 8 + "~" * 4 + "=" * 4
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "tiny.json").write_text(json.dumps({
        "name": "tiny", "width": 16, "height": 16, "rows": rows,
        "deposits": [{"x": 2, "y": 3}, {"x": 10, "y": 10}], "spawns": [{"name": "a", "x": 1.5, "y": 1.5}],
    }))
    m = load_map(MapRef(file="maps/tiny.json"), base_dir=tmp_path)
    terrain = terrain_array(m)
    assert terrain.dtype == np.uint8 and terrain.shape == (16, 16)
    assert terrain[3, 2] == GROUND and terrain[5, 0] == CLIFF and terrain[5, 8] == WATER and terrain[5, 12] == BRIDGE
    deposits = deposits_array(m)
    assert deposits.shape == (2, 2)  # the M tile and the listed (2, 3) are one deposit
    assert deposits.tolist() == [[2.5, 3.5], [10.5, 10.5]]


def test_bad_map_file_names_file_and_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "bad", "width": 16, "height": 16, "rows": ["." * 16] * 15}))
    with pytest.raises(LevelError) as err:
        load_map(MapRef(file=str(path)))
    assert str(path) in str(err.value) and "rows" in str(err.value)
    path.write_text("{not json")
    with pytest.raises(LevelError, match="invalid JSON"):
        load_map(MapRef(file=str(path)))


def test_generate_ref_uses_mapgen():
    m = load_map(MapRef(generate=MapGenParams(width=32, height=24, seed=3)))
    assert (m.width, m.height) == (32, 24)


def test_label_regions_counts_components():
    grid = np.array([
        [1, 1, 0, 1],
        [0, 1, 0, 1],
        [1, 0, 0, 0],
        [1, 1, 0, 1],
    ], dtype=bool)
    labels, n = label_regions(grid)
    assert n == 4
    assert labels[0, 0] == labels[1, 1] == 1 and labels[0, 3] == labels[1, 3] == 2
    assert labels[2, 0] == labels[3, 1] == 3 and labels[3, 3] == 4 and labels[0, 2] == 0
