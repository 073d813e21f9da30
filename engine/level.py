"""Load and cross-check a level: schema, map, unit types, start positions, rule scripts.

Everything that can be wrong with a level file is reported here, before a simulation starts, as
one LevelError listing every problem with the dotted path of the offending field.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.errors import EngineError, LevelError, format_validation_error
from engine.schema import Catalog, LevelConfig, MapData
from engine.schema.level import DestroyTarget, ProduceComposition, ProtectTarget, TargetSelector, Team, WavesBehaviour

_TERRAIN_NAMES = {"~": "water", "#": "cliff"}


@dataclass(frozen=True)
class Placement:
    """One start unit at its resolved position."""

    team: int
    type: str
    x: float
    y: float
    tag: str | None


@dataclass
class Level:
    config: LevelConfig
    map: MapData
    catalog: Catalog
    rule_sources: dict[str, str]
    base_dir: Path
    placements: list[Placement] = field(default_factory=list)


def load_level(path_or_dict: str | Path | dict[str, Any], base_dir: str | Path | None = None, *,
               catalog: Catalog | None = None) -> Level:
    """Validate a level (file path or parsed dict) and everything it refers to.

    `base_dir` resolves relative script / map paths (default: the level file's folder, or the
    current directory for a dict). `catalog` overrides the built-in unit catalog (tests).
    """
    if isinstance(path_or_dict, dict):
        source, data = "level", path_or_dict
        root = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        path = Path(path_or_dict)
        source = str(path)
        root = Path(base_dir) if base_dir is not None else path.parent
        data = _read_json(path)
    try:
        config = LevelConfig.model_validate(data)
    except ValidationError as err:
        raise LevelError(format_validation_error(err, source)) from err

    if catalog is None:
        from engine.catalog import load_catalog

        catalog = load_catalog()
    mapdata = _load_map(config, root)
    problems: list[str] = []
    _check_types(config, catalog, problems)
    placements = _place_units(config.teams, mapdata, catalog, problems)
    rule_sources = _read_rules(config, root, problems)
    if problems:
        raise LevelError("\n".join([f"{source}: {len(problems)} problem(s)"] + [f"  {p}" for p in problems]))
    return Level(config, mapdata, catalog, rule_sources, root, placements)


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise LevelError(f"{path}: cannot read level file ({err.strerror})") from err
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise LevelError(f"{path}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}") from err


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
                    ring = unit.spread * (1 + (k - 1) // 12 * 0.5)
                    px, py = ax + ring * math.cos(ang), ay + ring * math.sin(ang)
                    spot = _nearest_free(mapdata, px, py, air)
                    if spot is None:
                        problems.append(f"{where}: no free tile near ({px:.1f}, {py:.1f}) for unit {k + 1} of {unit.count}")
                        break
                    px, py = spot
                out.append(Placement(team.id, unit.type, float(px), float(py), unit.tag))
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


def _read_rules(config: LevelConfig, root: Path, problems: list[str]) -> dict[str, str]:
    sources: dict[str, str] = {}
    for ri, rule in enumerate(config.rules):
        path = Path(rule.script)
        if not path.is_absolute():
            path = root / path
        try:
            sources[rule.id] = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            problems.append(f"rules.{ri}.script: rule script not found: {path}")
        except (OSError, UnicodeDecodeError) as err:
            problems.append(f"rules.{ri}.script: cannot read rule script {path}: {err}")
    return sources


def passable_for(mapdata: MapData, x: float, y: float, air: bool) -> bool:
    """Whether a unit (air or ground) may stand at (x, y) on this map's terrain."""
    return _blocked(mapdata, x, y, air) is None

