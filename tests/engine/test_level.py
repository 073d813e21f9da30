"""Level loading: valid levels load; every kind of bad level fails with a message naming the cause."""
import json

import pytest

from engine import load_level
from engine.errors import LevelError


def test_loads_builtin_map_and_places_units():
    lv = load_level({"name": "x", "description": "d", "map": {"name": "open_field"},
                     "teams": [{"id": 0, "name": "a", "units": [{"type": "light_bot", "at": "west", "count": 5}]}]})
    assert lv.map.name == "open_field"
    assert len(lv.placements) == 5
    assert all(p.type == "light_bot" and p.team == 0 for p in lv.placements)
    assert len({(p.x, p.y) for p in lv.placements}) == 5


def test_schema_errors_name_every_path(arena, h):
    data = h.level_dict([h.team(0, [{"type": "light_bot", "x": 1}])])
    data["bogus"] = 1
    data["teams"][0]["units"].append({"type": "light_bot", "x": 1, "y": 1, "count": 0})
    with pytest.raises(LevelError) as err:
        load_level(data, base_dir=arena)
    msg = str(err.value)
    assert "bogus" in msg and "teams.0.units.0" in msg and "teams.0.units.1.count" in msg


def test_malformed_json_names_file_and_line(tmp_path):
    path = tmp_path / "level.json"
    path.write_text('{\n  "name": "x",\n  "teams": [,]\n}')
    with pytest.raises(LevelError) as err:
        load_level(path)
    assert f"{path}:3:" in str(err.value) and "invalid JSON" in str(err.value)


def test_unknown_unit_type_names_path(arena, h):
    data = h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]),
                         h.team(1, [{"type": "tank9", "x": 20, "y": 20}])])
    with pytest.raises(LevelError, match=r"teams\.1\.units\.0\.type: unknown unit type 'tank9'"):
        load_level(data, base_dir=arena)


def test_unit_off_map_and_inside_cliff(tmp_path, h):
    rows = h.open_rows()
    rows[10] = "#" * 32
    h.write_map(tmp_path, rows)
    data = h.level_dict([h.team(0, [{"type": "light_bot", "x": 40, "y": 5},
                                    {"type": "light_bot", "x": 5.5, "y": 10.5},
                                    {"type": "fighter", "x": 5.5, "y": 10.5}])])
    with pytest.raises(LevelError) as err:
        load_level(data, base_dir=tmp_path)
    msg = str(err.value)
    assert "teams.0.units.0: light_bot at (40, 5) is off the 32x32 map" in msg
    assert "teams.0.units.1: light_bot at (5.5, 10.5) is on impassable terrain (cliff)" in msg
    assert "units.2" not in msg  # aircraft may fly over cliffs


def test_unknown_spawn_point(arena, h):
    data = h.level_dict([h.team(0, [{"type": "light_bot", "at": "nowhere"}])])
    with pytest.raises(LevelError, match=r"teams\.0\.units\.0\.at: unknown spawn point 'nowhere' \(map has: east, west\)"):
        load_level(data, base_dir=arena)


def test_missing_rule_script(arena, h):
    data = h.level_dict([h.team(0, [])], rules=[{"id": "r", "script": "nope.lua"}])
    with pytest.raises(LevelError, match=r"rules\.0\.script: rule script not found"):
        load_level(data, base_dir=arena)


def test_condition_target_unknown_type(arena, h):
    data = h.level_dict([h.team(0, []), h.team(1, [])],
                        conditions=[{"kind": "destroy_target", "team": 0, "target": {"type": "deathstar"}},
                                    {"kind": "produce_composition", "team": 0, "units": {"tank9": 2}}])
    with pytest.raises(LevelError) as err:
        load_level(data, base_dir=arena)
    assert "conditions.0.target.type: unknown unit type 'deathstar'" in str(err.value)
    assert "conditions.1.units.tank9: unknown unit type 'tank9'" in str(err.value)


def test_unknown_map_name():
    with pytest.raises(LevelError, match="unknown built-in map 'atlantis'"):
        load_level({"name": "x", "description": "d", "map": {"name": "atlantis"}, "teams": [{"id": 0, "name": "a"}]})


def test_level_file_paths_relative_to_file(arena, h):
    (arena / "r.lua").write_text("x = 1")
    data = h.level_dict([h.team(0, [{"type": "light_bot", "at": "west"}])], rules=[{"id": "r", "script": "r.lua"}])
    path = arena / "level.json"
    path.write_text(json.dumps(data))
    lv = load_level(path)
    assert lv.rule_sources == {"r": "x = 1"} and lv.base_dir == arena
