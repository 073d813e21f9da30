"""Load and cross-check a level: schema, map, unit types, start positions, rule scripts.

Everything that can be wrong with a level file is reported here, before a simulation starts, as
one LevelError listing every problem with the dotted path of the offending field.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.errors import EngineError, LevelError, format_validation_error
from engine.jsonfile import check_depth, read_json, read_text
from engine.schema import Catalog, LevelConfig, MapData
from engine.schema.level import DestroyTarget, ProduceComposition, ProtectTarget, TargetSelector, Team, WavesBehaviour

_TERRAIN_NAMES = {"~": "water", "#": "cliff"}
MAX_LEVEL_BYTES = 1 << 20       # a level file; the reference levels are a few KiB
MAX_SCRIPT_BYTES = 256 << 10    # a rule script
MAX_START_UNITS = 4_000         # units all teams start with together
MAX_RULES = 8                   # rule scripts per level (each gets its own Lua runtime of up to 32 MiB)
RING_SIZE = 12                  # units of a start group per ring radius before the radius grows
RING_GROWTH = 0.5               # each further ring is this fraction of `spread` wider
# The repository's knowledge base, whose rules levels stored in it refer to.
_REPO_KB_RULES = Path(__file__).resolve().parent.parent / "kb" / "rules"


@dataclass(frozen=True)
class Placement:
    """One start unit at its resolved position."""

    team: int
    type: str
    x: float
    y: float
    tag: str | None
    health: float = 1.0         # share of max hp at the start


@dataclass
class Level:
    config: LevelConfig
    map: MapData
    catalog: Catalog
    rule_sources: dict[str, str]
    base_dir: Path
    placements: list[Placement] = field(default_factory=list)


def load_level(path_or_dict: str | Path | dict[str, Any], base_dir: str | Path | None = None, *,
               catalog: Catalog | None = None, rule_roots: Iterable[str | Path] = (),
               max_start_units: int = MAX_START_UNITS) -> Level:
    """Validate a level (file path or parsed dict) and everything it refers to.

    `base_dir` resolves relative script / map paths (default: the level file's folder, or the
    current directory for a dict). Rule scripts and map files must lie inside that folder, the
    knowledge base's rules folder or one of `rule_roots` (folders the caller vouches for).
    `catalog` overrides the built-in unit catalog (tests); `max_start_units` raises the bound on
    start units for a level the caller wrote itself (the simulator benchmark).
    """
    if isinstance(path_or_dict, dict):
        source, data = "level", path_or_dict
        root = Path(base_dir) if base_dir is not None else Path.cwd()
        check_depth(data, source)
    else:
        path = Path(path_or_dict)
        source = str(path)
        root = Path(base_dir) if base_dir is not None else path.parent
        data = read_json(path, "level file", MAX_LEVEL_BYTES)
    try:
        config = LevelConfig.model_validate(data)
    except ValidationError as err:
        raise LevelError(format_validation_error(err, source)) from err
    _check_size(config, source, max_start_units)

    if catalog is None:
        from engine.catalog import load_catalog

        catalog = load_catalog()
    roots = _allowed_roots(root, rule_roots)
    if config.map.file is not None:
        _confine(Path(config.map.file), root, roots, "map.file", "map file")
    mapdata = _load_map(config, root)
    problems: list[str] = []
    _check_types(config, catalog, problems)
    placements = _place_units(config.teams, mapdata, catalog, problems)
    rule_sources = _read_rules(config, root, roots, problems)
    if problems:
        raise LevelError("\n".join([f"{source}: {len(problems)} problem(s)"] + [f"  {p}" for p in problems]))
    return Level(config, mapdata, catalog, rule_sources, root, placements)


def _check_size(config: LevelConfig, source: str, max_start_units: int) -> None:
    units = sum(u.count for t in config.teams for u in t.units)
    if units > max_start_units:
        raise LevelError(f"{source}: teams start with {units} units in total (at most {max_start_units})")
    if len(config.rules) > MAX_RULES:
        raise LevelError(f"{source}: {len(config.rules)} rules (at most {MAX_RULES})")


def _allowed_roots(root: Path, extra: Iterable[str | Path]) -> list[Path]:
    """Folders a level may read scripts and maps from: its own, the KB's rules, the caller's."""
    roots = [root, _REPO_KB_RULES, *map(Path, extra)]
    if os.environ.get("GENESIS_KB_DIR"):
        roots.append(Path(os.environ["GENESIS_KB_DIR"]) / "rules")
    resolved = root.resolve()
    if resolved.parent.name == "levels":  # a level stored in a knowledge base uses that KB's rules
        roots.append(resolved.parent.parent / "rules")
    return [r.resolve() for r in roots]


def _confine(path: Path, root: Path, roots: list[Path], where: str, what: str) -> Path:
    """`path` (relative to `root`) resolved, if it lies inside one of `roots`; LevelError otherwise."""
    if "\x00" in str(path):  # no file system accepts it: resolving would raise a bare ValueError
        raise LevelError(f"{where}: {what} {str(path)!r} holds a NUL byte (refused)")
    full = (path if path.is_absolute() else root / path).resolve()
    if not any(full.is_relative_to(r) for r in roots):
        raise LevelError(f"{where}: {what} {str(path)!r} is outside the level's folder and the knowledge "
                         "base's rules folder (refused)")
    return full


def _load_map(config: LevelConfig, root: Path) -> MapData:
    from engine.maps import load_map

    try:
        return load_map(config.map, root)
    except LevelError as err:
        raise LevelError(f"map: {err}") from err
    except (EngineError, ValueError, OSError) as err:
        raise LevelError(f"map: cannot load the map: {err}") from err


def _check_types(config: LevelConfig, catalog: Catalog, problems: list[str]) -> None:
    known = catalog.units

    def check(name: str | None, where: str) -> None:
        if name is not None and name not in known:
            problems.append(f"{where}: unknown unit type {name!r}")

    for ti, team in enumerate(config.teams):
        for ui, unit in enumerate(team.units):
            check(unit.type, f"teams.{ti}.units.{ui}.type")
        ctrl = team.controller
        if isinstance(ctrl, WavesBehaviour) and isinstance(ctrl.target, TargetSelector):
            check(ctrl.target.type, f"teams.{ti}.controller.target.type")
        if getattr(ctrl, "behaviour", None) == "skirmish":
            check(ctrl.factory, f"teams.{ti}.controller.factory")
    for ci, cond in enumerate(config.conditions):
        if isinstance(cond, (DestroyTarget, ProtectTarget)):
            check(cond.target.type, f"conditions.{ci}.target.type")
        if isinstance(cond, ProduceComposition):
            for name in cond.units:
                check(name, f"conditions.{ci}.units.{name}")


def place_units(teams: list[Team], mapdata: MapData, catalog: Catalog) -> tuple[list[Placement], list[str]]:
    """Where the engine puts these teams' start units on this map, and what it rejects (the same
    validation `load_level` applies), so a design can be checked before a level exists."""
    problems: list[str] = []
    return _place_units(teams, mapdata, catalog, problems), problems


def _place_units(teams: list[Team], mapdata: MapData, catalog: Catalog, problems: list[str]) -> list[Placement]:
    """Resolve every start unit's position: the first at the anchor, the rest on a ring around it.

    A ring slot on blocked terrain moves to the nearest free tile nearby; the anchor itself must be
    valid, because it is what the level author chose.
    """
    spawns = {s.name: (s.x, s.y) for s in mapdata.spawns}
    out: list[Placement] = []
    for ti, team in enumerate(teams):
        for ui, unit in enumerate(team.units):
            where = f"teams.{ti}.units.{ui}"
            utype = catalog.units.get(unit.type)
            if utype is None:
                continue
            if unit.at is not None:
                if unit.at not in spawns:
                    names = ", ".join(sorted(spawns)) or "none"
                    problems.append(f"{where}.at: unknown spawn point {unit.at!r} (map has: {names})")
                    continue
                ax, ay = spawns[unit.at]
            else:
                ax, ay = unit.x, unit.y
            air = utype.is_air
            reason = _blocked(mapdata, ax, ay, air)
            if reason:
                near = _nearest_free(mapdata, ax, ay, air, reach=8) if "off the" not in reason else None
                hint = f"; the nearest tile it can stand on is ({near[0]:g}, {near[1]:g})" if near else ""
                problems.append(f"{where}: {unit.type} at ({ax:g}, {ay:g}) is {reason}{hint}")
                continue
            for k in range(unit.count):
                if k == 0:
                    px, py = ax, ay
                else:
                    ang = 2 * math.pi * (k - 1) / max(1, unit.count - 1)
                    ring = unit.spread * (1 + (k - 1) // RING_SIZE * RING_GROWTH)
                    px, py = ax + ring * math.cos(ang), ay + ring * math.sin(ang)
                    spot = _nearest_free(mapdata, px, py, air)
                    if spot is None:
                        problems.append(f"{where}: no free tile near ({px:.1f}, {py:.1f}) for unit {k + 1} of {unit.count}")
                        break
                    px, py = spot
                out.append(Placement(team.id, unit.type, float(px), float(py), unit.tag, unit.health))
    return out


def _blocked(mapdata: MapData, x: float, y: float, air: bool) -> str | None:
    """Why (x, y) cannot hold a unit, or None."""
    if not (0 <= x < mapdata.width and 0 <= y < mapdata.height):
        return f"off the {mapdata.width}x{mapdata.height} map"
    ch = mapdata.rows[int(y)][int(x)]
    if not air and ch in _TERRAIN_NAMES:
        return f"on impassable terrain ({_TERRAIN_NAMES[ch]}) for a ground unit"
    return None


def _nearest_free(mapdata: MapData, x: float, y: float, air: bool, reach: int = 4) -> tuple[float, float] | None:
    if _blocked(mapdata, x, y, air) is None:
        return x, y
    cx, cy = int(x), int(y)
    best = None
    for r in range(1, reach + 1):
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                if max(abs(dx), abs(dy)) != r:
                    continue
                px, py = cx + dx + 0.5, cy + dy + 0.5
                if _blocked(mapdata, px, py, air) is None:
                    d = (px - x) ** 2 + (py - y) ** 2
                    if best is None or d < best[0]:
                        best = (d, px, py)
        if best is not None:
            return best[1], best[2]
    return None


def _read_rules(config: LevelConfig, root: Path, roots: list[Path], problems: list[str]) -> dict[str, str]:
    sources: dict[str, str] = {}
    for ri, rule in enumerate(config.rules):
        where = f"rules.{ri}.script"
        try:
            path = _confine(Path(rule.script), root, roots, where, "rule script")
            if path.suffix != ".lua":
                raise LevelError(f"{where}: a rule script must be a .lua file, got {rule.script!r}")
            sources[rule.id] = read_text(path, "rule script", MAX_SCRIPT_BYTES)
        except LevelError as err:
            problems.append(str(err) if str(err).startswith(where) else f"{where}: {err}")
    return sources


def passable_for(mapdata: MapData, x: float, y: float, air: bool) -> bool:
    """Whether a unit (air or ground) may stand at (x, y) on this map's terrain."""
    return _blocked(mapdata, x, y, air) is None

