"""What a scenario folder shows, read from its files alone (never from the pipeline's own verdicts).

The level (teams, alliances, start units, rules, switches, conditions), the map it names, and the
event traces of the validation runs (runs/*.jsonl). Enemy waves are re-derived from the traces:
rule spawns of enemy teams grouped by time, then by place.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.catalog import load_catalog
from engine.maps import load_map
from engine.schema.level import MapRef
from genesis.fileio import read_json_object

WAVE_GAP_S = 5.0        # enemy rule spawns closer in time than this belong to one wave
GROUP_GAP_TILES = 15.0  # spawns of one wave farther apart than this are separate groups (fronts)
SPAWN_NAME_RADIUS = 6.0  # a group this close to a map spawn point comes from that point
BUILDING_CATEGORIES = ("defense", "economy", "factory")  # rule-placed buildings are fortifications, not waves
COMPASS = ("e", "ne", "n", "nw", "w", "sw", "s", "se")
SPAWN_NAMES = {"north": "n", "south": "s", "east": "e", "west": "w", "n": "n", "s": "s", "e": "e", "w": "w",
               "ne": "ne", "nw": "nw", "se": "se", "sw": "sw", "northeast": "ne", "northwest": "nw",
               "southeast": "se", "southwest": "sw"}


class ArtifactError(ValueError):
    """The folder is not a scenario folder (no brief.json and no validation.json)."""


@dataclass
class Group:
    """Enemy units a rule spawned together at one place."""

    t: float
    x: float
    y: float
    types: list[str]
    team: int

    @property
    def size(self) -> int:
        return len(self.types)


@dataclass
class Wave:
    """Enemy rule spawns close in time: one or more groups."""

    groups: list[Group]

    @property
    def t(self) -> float:
        return min(g.t for g in self.groups)

    @property
    def size(self) -> int:
        return sum(g.size for g in self.groups)

    @property
    def types(self) -> list[str]:
        return [t for g in self.groups for t in g.types]


@dataclass
class Scenario:
    folder: Path
    brief: dict[str, Any] | None
    validation: dict[str, Any] | None
    level: dict[str, Any] | None
    traces: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    replay: dict[str, Any] | None = None
    map_size: tuple[float, float] | None = None
    map_spawns: dict[str, tuple[float, float]] = field(default_factory=dict)

    # ---- the level ----------------------------------------------------------------------------
    @property
    def teams(self) -> list[dict[str, Any]]:
        return list((self.level or {}).get("teams") or [])

    def sides(self) -> list[set[int]]:
        """Teams grouped by alliance (alliances are symmetric and transitive here)."""
        ids = [t["id"] for t in self.teams]
        parent = {i: i for i in ids}

        def root(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for t in self.teams:
            for a in t.get("allies") or []:
                if a in parent:
                    parent[root(a)] = root(t["id"])
        groups: dict[int, set[int]] = {}
        for i in ids:
            groups.setdefault(root(i), set()).add(i)
        return sorted(groups.values(), key=min)

    def player_side(self) -> set[int]:
        return next((s for s in self.sides() if 0 in s), {0})

    def enemy_teams(self) -> set[int]:
        return {t["id"] for t in self.teams} - self.player_side()

    def start_units(self, team: int | None = None) -> list[dict[str, Any]]:
        """Start groups with their resolved position (x, y) and count."""
        out = []
        for t in self.teams:
            if team is not None and t["id"] != team:
                continue
            for u in t.get("units") or []:
                x, y = u.get("x"), u.get("y")
                if u.get("at") is not None:
                    x, y = self.map_spawns.get(u["at"], (None, None))
                out.append({**u, "team": t["id"], "x": x, "y": y, "count": int(u.get("count", 1))})
        return out

    def start_count(self, team: int, unit_type: str) -> int:
        return sum(u["count"] for u in self.start_units(team) if u["type"] == unit_type)

    def rules(self) -> list[dict[str, Any]]:
        return list((self.level or {}).get("rules") or [])

    def conditions(self) -> list[dict[str, Any]]:
        return list((self.level or {}).get("conditions") or [])

    def switches(self) -> dict[str, Any]:
        return dict((self.level or {}).get("switches") or {})

    @property
    def centre(self) -> tuple[float, float]:
        w, h = self.map_size or (0.0, 0.0)
        return w / 2, h / 2

    # ---- the runs -------------------------------------------------------------------------------
    def runs(self, policy: str) -> dict[str, list[dict[str, Any]]]:
        return {name: tr for name, tr in sorted(self.traces.items()) if name.startswith(policy + "_")}

    def waves(self, trace: list[dict[str, Any]]) -> list[Wave]:
        enemies = self.enemy_teams()
        spawns = sorted((e for e in trace if e.get("event") == "spawn" and e.get("source") == "rule"
                         and e.get("team") in enemies and category(e.get("type", "")) not in BUILDING_CATEGORIES),
                        key=lambda e: e["t"])
        clusters: list[list[dict[str, Any]]] = []
        for e in spawns:
            if clusters and e["t"] - clusters[-1][-1]["t"] <= WAVE_GAP_S:
                clusters[-1].append(e)
            else:
                clusters.append([e])
        return [Wave(_groups_by_place(c)) for c in clusters]

    def enemy_units_of(self, trace: list[dict[str, Any]], unit_type: str) -> int:
        """Enemy units of a type in the game: start units and rule spawns (fortifications) of the trace."""
        enemies = self.enemy_teams()
        placed = sum(1 for e in trace if e.get("event") == "spawn" and e.get("source") == "rule"
                     and e.get("team") in enemies and e.get("type") == unit_type)
        return placed + sum(self.start_count(t, unit_type) for t in enemies)

    # ---- directions ----------------------------------------------------------------------------
    def compass(self, x: float, y: float) -> str:
        """The compass sector of (x, y) around the map centre (north is up: smaller y)."""
        cx, cy = self.centre
        angle = math.degrees(math.atan2(cy - y, x - cx)) % 360
        return COMPASS[int(((angle + 22.5) % 360) // 45)]

    def named_side(self, x: float, y: float) -> str | None:
        """The compass side of a map spawn point named for it, when (x, y) is at that point."""
        for name, (sx, sy) in self.map_spawns.items():
            side = SPAWN_NAMES.get(name.lower())
            if side and math.hypot(x - sx, y - sy) <= SPAWN_NAME_RADIUS:
                return side
        return None

    def sides_of(self, g: Group) -> set[str]:
        """Every compass name a group may be said to come from: its sector, and the named spawn it is at."""
        named = self.named_side(g.x, g.y)
        return {self.compass(g.x, g.y)} | ({named} if named else set())

    def player_position(self) -> tuple[float, float] | None:
        pts = [(u["x"], u["y"], u["count"]) for u in self.start_units(0) if u["x"] is not None]
        n = sum(c for *_, c in pts)
        return (sum(x * c for x, _, c in pts) / n, sum(y * c for _, y, c in pts) / n) if n else None

    def facing_target(self) -> tuple[float, float] | None:
        """Where the player faces the enemy: the enemy's start units, else the map centre when the
        player is away from it, else up the map (north), as the map is drawn."""
        player = self.player_position()
        if player is None:
            return None
        enemy = [(u["x"], u["y"]) for t in self.enemy_teams() for u in self.start_units(t) if u["x"] is not None]
        if enemy:
            return sum(x for x, _ in enemy) / len(enemy), sum(y for _, y in enemy) / len(enemy)
        if math.dist(player, self.centre) > 10:
            return self.centre
        return player[0], player[1] - 10

    def flank(self, g: Group, target: tuple[float, float]) -> str | None:
        """left / right of the player facing `target`, or None for a group ahead of or behind the player."""
        player = self.player_position()
        if player is None:
            return None
        fx, fy = target[0] - player[0], target[1] - player[1]
        dx, dy = g.x - player[0], g.y - player[1]
        if math.hypot(fx, fy) < 1e-6 or math.hypot(dx, dy) < 1e-6:
            return None
        angle = math.degrees(math.atan2(fx * dy - fy * dx, fx * dx + fy * dy))  # y grows southwards
        if 20 <= angle <= 160:
            return "right"
        if -160 <= angle <= -20:
            return "left"
        return None

    # ---- what the brief reports ----------------------------------------------------------------
    def reported(self) -> list[str]:
        """Everything the scenario says it did not honour (and a refusal)."""
        out: list[str] = []
        for doc in (self.brief or {}, self.validation or {}):
            out += [str(x) for x in doc.get("unsupported") or []]
        for c in (self.brief or {}).get("clauses") or []:
            if c.get("status") in ("partial", "not_honoured"):
                out.append(f"{c.get('text', '')}: {c.get('why', '')}")
        if (self.brief or {}).get("refusal"):
            out.append(str(self.brief["refusal"]))
        if (self.validation or {}).get("status") == "refused" and (self.validation or {}).get("reason"):
            out.append(str(self.validation["reason"]))
        return [x for x in out if x.strip()]


def _groups_by_place(spawns: list[dict[str, Any]]) -> list[Group]:
    groups: list[list[dict[str, Any]]] = []
    for e in spawns:
        near = [g for g in groups if any(math.hypot(e["x"] - o["x"], e["y"] - o["y"]) <= GROUP_GAP_TILES for o in g)]
        if near:
            merged = [o for g in near for o in g] + [e]
            groups = [g for g in groups if g not in near] + [merged]
        else:
            groups.append([e])
    out = [Group(t=min(e["t"] for e in g), x=sum(e["x"] for e in g) / len(g), y=sum(e["y"] for e in g) / len(g),
                 types=[e["type"] for e in g], team=g[0]["team"]) for g in groups]
    return sorted(out, key=lambda g: (g.t, g.x, g.y))


def category(unit_type: str) -> str | None:
    unit = load_catalog().units.get(unit_type)
    return unit.category if unit else None




def _read_trace(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            events.append(json.loads(line))
    return events


def load_scenario(folder: Path) -> Scenario:
    folder = Path(folder)
    brief, validation = read_json_object(folder / "brief.json"), read_json_object(folder / "validation.json")
    if brief is None and validation is None:
        raise ArtifactError(f"{folder} is not a scenario folder: no brief.json or validation.json")
    sc = Scenario(folder, brief, validation, read_json_object(folder / "level.json"), replay=read_json_object(folder / "replay.json"))
    if sc.level is not None:
        try:
            m = load_map(MapRef.model_validate(sc.level["map"]), base_dir=folder)
            sc.map_size = (float(m.width), float(m.height))
            sc.map_spawns = {p.name: (p.x, p.y) for p in m.spawns}
        except (ValueError, KeyError, OSError):
            sc.map_size = None
    runs = folder / "runs"
    if runs.is_dir():
        sc.traces = {p.stem: _read_trace(p) for p in sorted(runs.glob("*.jsonl"))}
    return sc
