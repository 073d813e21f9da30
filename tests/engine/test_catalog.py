"""The unit catalog: loads, forms a closed tech tree, covers the roster, reports bad files by path."""
import pytest

from engine.catalog import (
    builders_of,
    dps,
    load_catalog,
    reachable_from,
    roster_encyclopedia,
    roster_table,
    targets,
)
from engine.errors import LevelError

REQUIRED = [
    "commander", "constructor_bot", "constructor_vehicle", "metal_extractor", "solar_collector",
    "metal_storage", "energy_storage", "light_turret", "heavy_turret", "aa_turret", "wall", "bot_lab",
    "vehicle_plant", "air_plant", "light_bot", "assault_bot", "heavy_assault_bot", "artillery_bot",
    "scout", "light_tank", "heavy_tank", "aa_vehicle", "fighter", "bomber",
]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_default_catalog_is_cached(catalog):
    assert load_catalog() is catalog


def test_required_keys_and_size(catalog):
    assert len(catalog.units) >= 24
    missing = [k for k in REQUIRED if k not in catalog.units]
    assert not missing


def test_categories_and_tiers_covered(catalog):
    cats = {u.category for u in catalog.units.values()}
    assert cats == {"commander", "bot", "vehicle", "air", "defense", "economy", "factory"}
    assert {u.tier for u in catalog.units.values()} == {1, 2}
    assert catalog.units["heavy_assault_bot"].tier == 2
    assert catalog.units["heavy_tank"].tier == 2


def test_tech_tree_closed_from_commander(catalog):
    assert reachable_from(catalog) == set(catalog.units)
    built_by = builders_of(catalog)
    assert [k for k, b in built_by.items() if not b] == ["commander"]
    # T2 units come out of T2 factories only
    for key in ("heavy_assault_bot", "heavy_tank"):
        assert all(catalog.units[b].tier == 2 for b in built_by[key])


def test_role_sanity(catalog):
    u = catalog.units
    assert u["metal_extractor"].needs_deposit and u["metal_extractor"].metal_income > 0
    assert u["solar_collector"].energy_income > 0
    assert u["metal_storage"].storage_metal >= 1000 and u["energy_storage"].storage_energy >= 1000
    assert u["wall"].speed == 0 and u["wall"].weapon is None and u["wall"].hp >= 2000
    assert 100 <= u["light_bot"].hp <= 200 and 2 <= u["light_bot"].speed <= 3
    assert 4 <= u["light_bot"].weapon.range <= 6
    assert u["commander"].hp == 3000
    assert {"metal_extractor", "solar_collector", "bot_lab", "light_turret"} <= set(u["commander"].builds)
    assert targets(u["fighter"]) == "air" and targets(u["aa_turret"]) == "air" and targets(u["aa_vehicle"]) == "air"
    assert targets(u["bomber"]) == "ground" and targets(u["artillery_bot"]) == "ground"
    assert u["artillery_bot"].weapon.range > 2 * u["light_bot"].weapon.range
    assert u["artillery_bot"].weapon.reload > u["light_bot"].weapon.reload
    for key, unit in u.items():
        assert (unit.category in ("defense", "economy", "factory")) == unit.is_building, key
        if unit.builds:
            assert unit.build_power > 0, key


def test_encyclopedia_mentions_every_unit(catalog):
    text = roster_encyclopedia(catalog)
    for key, unit in catalog.units.items():
        assert f"### {key} —" in text
    assert "dps 24.0" in text  # light bot: 12 damage every 0.5 s
    assert f"dps {dps(catalog.units['commander']):.1f}" in text
    assert "targets air" in text and "built by: bot_lab" in text


def test_roster_table_is_one_line_a_unit_and_keeps_the_design_facts(catalog):
    lines = roster_table(catalog).splitlines()[2:]
    rows = {line.split(" | ")[0]: line.split(" | ") for line in lines}
    assert len(lines) == len(rows) == len(catalog.units)
    assert rows["light_bot"][1:6] == ["bot T1", "50/500", "160", "2.6", "r5 12/0.5s ground"]
    assert rows["light_bot"][6] == "bot_lab" and rows["commander"][6] == "level"
    assert "splash 1.5 min 3" in rows["artillery_bot"][5] and rows["fighter"][5].endswith(" air")
    assert rows["wall"][6] == "any builder" and rows["metal_extractor"][7] == "+2 metal/s on deposit"
    assert "makes" in rows["bot_lab"][7] and "light_bot" in rows["bot_lab"][7]
    assert len(roster_table(catalog)) < len(roster_encyclopedia(catalog)) / 2


def test_bad_yaml_names_file_and_line(tmp_path):
    bad = tmp_path / "units.yaml"
    bad.write_text("units:\n  a: {name: A\n  b: [\n")
    with pytest.raises(LevelError) as err:
        load_catalog(bad)
    assert str(bad) in str(err.value) and "invalid YAML" in str(err.value)


def test_unknown_field_names_dotted_path(tmp_path):
    bad = tmp_path / "units.yaml"
    bad.write_text(
        "units:\n  tank:\n    name: T\n    category: vehicle\n    cost_metal: 1\n    cost_energy: 1\n"
        "    build_time: 1\n    hp: 10\n    speed: 1\n    sight: 5\n    armour: 0.5\n"
    )
    with pytest.raises(LevelError) as err:
        load_catalog(bad)
    assert "units.tank.armour" in str(err.value)


def test_unknown_build_option_is_reported(tmp_path):
    bad = tmp_path / "units.yaml"
    bad.write_text(
        "units:\n  lab:\n    name: Lab\n    category: factory\n    cost_metal: 1\n    cost_energy: 1\n"
        "    build_time: 1\n    hp: 10\n    speed: 0\n    sight: 5\n    builds: [tank9]\n"
    )
    with pytest.raises(LevelError) as err:
        load_catalog(bad)
    assert "units.lab.builds" in str(err.value) and "tank9" in str(err.value)


def test_non_mapping_file_is_rejected(tmp_path):
    bad = tmp_path / "units.yaml"
    bad.write_text("- just a list\n")
    with pytest.raises(LevelError, match="units"):
        load_catalog(bad)
