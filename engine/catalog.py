"""Load the unit catalog (engine/data/units.yaml) and describe it for agents.

`load_catalog()` returns the validated `Catalog`; the default file is parsed once and cached, so
the returned object is shared and must not be mutated. `roster_encyclopedia()` turns a catalog
into the plain text agents read while playing; `roster_table()` is the compact form, one line a
unit, for prompts that only choose units (level design).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import ValidationError

from engine.errors import LevelError, format_validation_error
from engine.schema.catalog import Catalog, Category, UnitType

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10x faster, same documents

DEFAULT_CATALOG_PATH = Path(__file__).parent / "data" / "units.yaml"
CATEGORY_ORDER: tuple[Category, ...] = ("commander", "bot", "vehicle", "air", "defense", "economy", "factory")


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The catalog from `path` (default: the built-in units.yaml, cached).

    Raises LevelError naming the file and, for schema problems, the dotted path of each field.
    """
    if path is None:
        return _load_default()
    return _parse_catalog_file(Path(path))


@lru_cache(maxsize=1)
def _load_default() -> Catalog:
    return _parse_catalog_file(DEFAULT_CATALOG_PATH)


def _parse_catalog_file(path: Path) -> Catalog:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise LevelError(f"{path}: cannot read unit catalog ({err.strerror})") from err
    try:
        data = yaml.load(text, Loader=YAML_LOADER)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(err, "problem", None) or str(err)
        raise LevelError(f"{where}: invalid YAML: {problem}") from err
    if not isinstance(data, dict):
        raise LevelError(f"{path}: expected a mapping with a 'units' key, got {type(data).__name__}")
    try:
        return Catalog.model_validate(data)
    except ValidationError as err:
        raise LevelError(format_validation_error(err, str(path))) from err


# --- derived facts -------------------------------------------------------------------------------
def dps(unit: UnitType) -> float:
    """Damage per second of the unit's weapon before armour (0 without a weapon)."""
    if unit.weapon is None:
        return 0.0
    return unit.weapon.damage / unit.weapon.reload


def targets(unit: UnitType) -> str:
    """'ground', 'air', 'ground+air' or 'none'."""
    w = unit.weapon
    if w is None:
        return "none"
    kinds = [k for k, ok in (("ground", w.hits_ground), ("air", w.hits_air)) if ok]
    return "+".join(kinds) or "none"


def builders_of(catalog: Catalog) -> dict[str, list[str]]:
    """Unit key -> the keys of the units that can build or produce it (empty for roots)."""
    result: dict[str, list[str]] = {key: [] for key in catalog.units}
    for key, unit in catalog.units.items():
        for option in unit.builds:
            result[option].append(key)
    return result


def reachable_from(catalog: Catalog, roots: tuple[str, ...] = ("commander",)) -> set[str]:
    """Every unit key obtainable by building, starting from `roots` (tech-tree closure)."""
    seen = set(roots)
    frontier = list(roots)
    while frontier:
        for option in catalog.units[frontier.pop()].builds:
            if option not in seen:
                seen.add(option)
                frontier.append(option)
    return seen


def units_by_category(catalog: Catalog) -> dict[str, list[str]]:
    """Category -> unit keys, categories in CATEGORY_ORDER, units by tier then metal cost."""
    grouped: dict[str, list[str]] = {c: [] for c in CATEGORY_ORDER}
    for key, unit in catalog.units.items():
        grouped[unit.category].append(key)
    for keys in grouped.values():
        keys.sort(key=lambda k: (catalog.units[k].tier, catalog.units[k].cost_metal, k))
    return grouped


# --- agent-facing text ---------------------------------------------------------------------------
def _fmt(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def describe_unit(key: str, unit: UnitType, built_by: list[str]) -> str:
    """A few lines describing one unit type, as shown in the roster encyclopedia."""
    lines = [f"### {key} — {unit.name} ({unit.category}, T{unit.tier})"]
    lines.append(
        f"- cost: {_fmt(unit.cost_metal)} metal, {_fmt(unit.cost_energy)} energy, "
        f"build time {_fmt(unit.build_time)} s"
    )
    mobility = "immobile" if unit.is_building else f"speed {_fmt(unit.speed)} tiles/s"
    armour = f", armour {unit.armor:.0%}" if unit.armor else ""
    lines.append(f"- hp {_fmt(unit.hp)}{armour}, {mobility}, sight {_fmt(unit.sight)}")
    if unit.weapon is not None:
        w = unit.weapon
        extras = []
        if w.splash:
            extras.append(f"splash {_fmt(w.splash)}")
        if w.min_range:
            extras.append(f"min range {_fmt(w.min_range)}")
        extra = f", {', '.join(extras)}" if extras else ""
        lines.append(
            f"- weapon: range {_fmt(w.range)}, dps {dps(unit):.1f} "
            f"({_fmt(w.damage)} every {_fmt(w.reload)} s), targets {targets(unit)}{extra}"
        )
    else:
        lines.append("- weapon: none")
    economy = []
    if unit.metal_income:
        economy.append(f"+{_fmt(unit.metal_income)} metal/s" + (" on a deposit" if unit.needs_deposit else ""))
    if unit.energy_income:
        economy.append(f"+{_fmt(unit.energy_income)} energy/s")
    if unit.storage_metal or unit.storage_energy:
        economy.append(f"stores {_fmt(unit.storage_metal)} metal / {_fmt(unit.storage_energy)} energy")
    if unit.needs_deposit and not unit.metal_income:
        economy.append("must stand on a metal deposit")
    if economy:
        lines.append("- economy: " + "; ".join(economy))
    if unit.builds:
        lines.append(f"- builds (build power {_fmt(unit.build_power)}): {', '.join(unit.builds)}")
    lines.append(f"- built by: {', '.join(built_by) if built_by else 'nobody (placed by the level)'}")
    if unit.description:
        lines.append(f"- {unit.description}")
    return "\n".join(lines)


def roster_encyclopedia(catalog: Catalog) -> str:
    """Markdown-like reference of every unit, grouped by category (what agents read)."""
    built_by = builders_of(catalog)
    parts = [
        "# Unit roster",
        "Units: distances in tiles, speed in tiles/s, time in seconds. dps = damage / reload, "
        "before the target's armour. 'targets' says whether a weapon can hit ground units, "
        "aircraft, or both.",
    ]
    for category, keys in units_by_category(catalog).items():
        if not keys:
            continue
        parts.append(f"\n## {category}")
        parts.extend(describe_unit(key, catalog.units[key], built_by[key]) + "\n" for key in keys)
    return "\n".join(parts).rstrip() + "\n"


def _weapon_cell(unit: UnitType) -> str:
    w = unit.weapon
    if w is None:
        return "-"
    extras = [f"splash {_fmt(w.splash)}"] * bool(w.splash) + [f"min {_fmt(w.min_range)}"] * bool(w.min_range)
    return " ".join([f"r{_fmt(w.range)} {_fmt(w.damage)}/{_fmt(w.reload)}s {targets(unit)}", *extras])


def _notes_cell(unit: UnitType) -> str:
    notes = []
    if unit.metal_income:
        notes.append(f"+{_fmt(unit.metal_income)} metal/s" + (" on deposit" if unit.needs_deposit else ""))
    if unit.energy_income:
        notes.append(f"+{_fmt(unit.energy_income)} energy/s")
    if unit.builds:
        notes.append(f"makes {', '.join(unit.builds)}" if unit.category == "factory" else "builder")
    return "; ".join(notes)


def _builder_groups(catalog: Catalog) -> dict[str, list[str]]:
    """Short names for the builder sets that recur among buildings: any / T1 / T2 builders."""
    builders = [k for k, u in catalog.units.items() if u.builds and u.category != "factory"]
    groups = {"any builder": builders, **{f"T{tier} builders": [k for k in builders if catalog.units[k].tier == tier]
                                          for tier in (1, 2)}}
    return {name: sorted(keys) for name, keys in groups.items() if keys}


def _from_cell(makers: list[str], groups: dict[str, list[str]]) -> str:
    """Who builds a unit: a group's short name when the makers are exactly that group."""
    return next((name for name, keys in groups.items() if sorted(makers) == keys), None) or ",".join(makers) or "level"


def roster_table(catalog: Catalog) -> str:
    """Every unit on one line: what a level designer needs to pick units, in ~1/3 of the encyclopedia."""
    built_by, groups = builders_of(catalog), _builder_groups(catalog)
    lines = ["Unit roster (cost metal/energy; speed tiles/s, 0 = building; weapon r=range, damage per shot/"
             "seconds between shots (before armour; damage per second = their ratio), targets; from = who builds it):",
             "unit | category tier | cost | hp armour | speed | weapon | from | notes"]
    for keys in units_by_category(catalog).values():
        for key in keys:
            unit = catalog.units[key]
            armour = f" {unit.armor:.0%}" if unit.armor else ""
            lines.append(" | ".join([
                key, f"{unit.category} T{unit.tier}", f"{_fmt(unit.cost_metal)}/{_fmt(unit.cost_energy)}",
                f"{_fmt(unit.hp)}{armour}", "0" if unit.is_building else _fmt(unit.speed), _weapon_cell(unit),
                _from_cell(built_by[key], groups), _notes_cell(unit)]).rstrip(" |"))
    return "\n".join(lines) + "\n"
