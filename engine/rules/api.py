"""Binds the Lua rule API to a running simulation.

One `LuaSandbox` per rule script, each with its own pre-bound API functions (closures over the
simulation and the rule's params), so nothing is rebuilt per tick: scripts pull what they need
through queries and receive events as small unit tables. Any RuleScriptError propagates to the
simulation, which ends the run with ended_by="error".
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from engine.sim import Simulation

MAX_SPAWN_PER_CALL = 200
# Lua helpers (`lib.point`, `lib.composition`, ...) defined in every rule's sandbox before its script.
RULE_LIB = (Path(__file__).parent / "rule_lib.lua").read_text(encoding="utf-8")
MAX_MARKERS = 200
MIN_PERIOD = 1.0 / 30

UNIT_TABLE = "u = {id, type, team, x, y, hp, tag, category} (a living unit's state when the callback runs)"
# What each API function does, as the rule developer is told (the sandbox exposes exactly these).
API_DOC: dict[str, str] = {
    "every": "every(seconds, fn): calls fn() every `seconds` game seconds (>= 1/30), first at now + seconds",
    "at": "at(seconds, fn): calls fn() once at ABSOLUTE game time `seconds` (at the next tick if already past)",
    "on_area_entered": "on_area_entered(x, y, radius, fn [, team]): calls fn(u) once per unit, the first time it is "
                       "inside the circle (only units of `team` when given); u is the unit table",
    "time": "time() -> current game seconds",
    "units": "units(team [, {type=, tag=, category=}]) -> list of living unit tables (team may be omitted: "
             "units({tag=...}))",
    "unit": "unit(id) -> the unit table, or nil once the unit is dead (always check for nil)",
    "resources": "resources(team) -> {metal=, energy=}",
    "param": "param(name [, default]) -> the level's param value for this rule, else default",
    "map_size": "map_size() -> width, height in tiles",
    "spawn_point": "spawn_point(name) -> x, y of a named map spawn; an unknown name is an error",
    "teams": "teams() -> sorted list of team ids",
    "random": "random() -> float in [0, 1), seeded per run and rule",
    "random_int": "random_int(a, b) -> integer in [a, b]",
    "spawn": "spawn(team, type, x, y [, count [, tag]]) -> list of new unit ids; count 1..200; (x, y) must be on the "
             "map; the first unit at (x, y), the rest on rings of radius 1.5 tiles (12 a ring, each further ring "
             "wider), each moved to the nearest free spot it can stand on; traced as spawn events with source 'rule'",
    "order": "order(ids, kind, x, y) -> ok, error_code; kind move|move_force|fight|stop|patrol (fight = attack-move)",
    "give_resources": "give_resources(team, metal, energy): ADDS the amounts (>= 0); no call takes resources away",
    "set_controller": "set_controller(team, spec): replaces the team's controller (spec as in Controllers)",
    "win": "win(team, reason): the game ends now; `team` and its allies win, every other team loses",
    "lose": "lose(team, reason): `team` and its allies are out (lose events); once one alliance is left the game ends "
            "and it wins (win events)",
    "message": "message(text [, team]): shows a message to every team, or only to `team`",
    "mark": "mark(x, y, label [, color]): a map marker (max 200)",
    "log": "log(name, fields): writes a trace event {event: 'rule_log', rule: <rule id>, name: name, fields: fields} "
           "that expectations match with where: {name: ..., fields.<key>: ...}; fields is a table (nested tables "
           "and lists allowed) or a scalar, stored as {value = scalar}",
}
# The callbacks a script may define, with what each receives.
CALLBACK_DOC = ("on_start(): once at t=0, after the level's start units exist",
                f"on_unit_created(u): every unit created after the start (rule spawns, production); {UNIT_TABLE}",
                "on_unit_destroyed(u): every unit that dies; u is its table at death (x, y where it died); the unit "
                "is already gone from units() and unit(id); no killer is passed")
RULE_LIB_DOC = ("lib.point(p) -> x, y or nil (p: spawn name, {x, y} or {x=, y=}; nil for an unknown spawn name or "
                "a point off the map); lib.label(p) -> string; "
                "lib.list(v) -> list (wraps a scalar); lib.composition(spec) -> {{type, count}, ...} (spec: \"type\", "
                "{type = count} or {{type=, count=}}); lib.target_position(tag, team, fallback) -> x, y (first living "
                "unit of team tagged tag, else the point fallback, else the map centre); "
                "lib.spawn_groups(team, groups, x, y [, tag]) -> ids")


@dataclass
class AreaTrigger:
    rule: "Rule"
    x: float
    y: float
    radius: float
    fn: Any
    team: int | None
    entered: set[int] = field(default_factory=set)


@dataclass
class Rule:
    id: str
    params: dict
    sandbox: Any = None
    rng: np.random.Generator | None = None
    has_created: bool = False
    has_destroyed: bool = False


class RuleRuntime:
    def __init__(self, sim: Simulation):
        self.sim = sim
        self.rules: list[Rule] = []
        self.timers: list[tuple[float, int, int, Any, float | None]] = []  # (due, seq, rule index, fn, period)
        self.areas: list[AreaTrigger] = []
        self._seq = 0

    def load(self) -> None:
        """Compile every rule script of the level (runs their top-level code)."""
        from engine.rules.sandbox import LuaSandbox

        level = self.sim.level
        for k, ref in enumerate(level.config.rules):
            rule = Rule(ref.id, dict(ref.params), rng=np.random.default_rng([self.sim.seed, k, 7919]))
            self.rules.append(rule)
            rule.sandbox = LuaSandbox(ref.id, level.rule_sources[ref.id], self._api(rule, k), prelude=RULE_LIB)
            rule.has_created = rule.sandbox.has("on_unit_created")
            rule.has_destroyed = rule.sandbox.has("on_unit_destroyed")

    # --- event dispatch ------------------------------------------------------------------------------
    def start(self) -> None:
        for rule in self.rules:
            if rule.sandbox.has("on_start"):
                rule.sandbox.call("on_start")

    def unit_created(self, unit: dict) -> None:
        for rule in self.rules:
            if rule.has_created:
                rule.sandbox.call("on_unit_created", unit)

    def unit_destroyed(self, unit: dict) -> None:
        for rule in self.rules:
            if rule.has_destroyed:
                rule.sandbox.call("on_unit_destroyed", unit)

    @property
    def wants_created(self) -> bool:
        return any(r.has_created for r in self.rules)

    @property
    def wants_destroyed(self) -> bool:
        return any(r.has_destroyed for r in self.rules)

    def run_timers(self, now: float) -> None:
        timers = self.timers
        while timers and timers[0][0] <= now + 1e-9 and not self.sim.done:
            due, _, k, fn, period = heapq.heappop(timers)
            if period is not None:
                self._push(due + period, k, fn, period)
            self.rules[k].sandbox.call(fn)

    def check_areas(self) -> None:
        if not self.areas:
            return
        w = self.sim.world
        idx = w.alive_idx
        for trig in list(self.areas):
            ids = idx if trig.team is None else idx[w.team[idx] == trig.team]
            inside = ids[(w.x[ids] - trig.x) ** 2 + (w.y[ids] - trig.y) ** 2 <= trig.radius ** 2]
            for i in inside.tolist():
                if i not in trig.entered and not self.sim.done:
                    trig.entered.add(i)
                    trig.rule.sandbox.call(trig.fn, w.unit_dict(i))

    def _push(self, due: float, k: int, fn: Any, period: float | None) -> None:
        self._seq += 1
        heapq.heappush(self.timers, (due, self._seq, k, fn, period))

    # --- the API a script sees ---------------------------------------------------------------------
    def _api(self, rule: Rule, k: int) -> dict[str, Any]:
        sim = self.sim
        w = sim.world
        types = w.types

        def num(v: Any, what: str) -> float:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{what} must be a number, got {v!r}")
            return float(v)

        def team_id(v: Any) -> int:
            t = int(num(v, "team"))
            if t not in sim.teams:
                raise ValueError(f"unknown team {v!r} (teams: {sorted(sim.teams)})")
            return t

        def every(seconds, fn):
            period = max(MIN_PERIOD, num(seconds, "seconds"))
            self._push(sim.time + period, k, fn, period)

        def at(seconds, fn):
            self._push(max(num(seconds, "seconds"), sim.time), k, fn, None)

        def on_area_entered(x, y, radius, fn, team=None):
            self.areas.append(AreaTrigger(rule, num(x, "x"), num(y, "y"), num(radius, "radius"), fn,
                                          None if team is None else team_id(team)))

        def units(team=None, filt=None):
            if isinstance(team, dict) and filt is None:
                team, filt = None, team
            filt = filt or {}
            if not isinstance(filt, dict):
                raise ValueError("filter must be a table like {type=..., tag=..., category=...}")
            unknown = set(filt) - {"type", "tag", "category"}
            if unknown:
                raise ValueError(f"unknown filter keys {sorted(unknown)}")
            ids = w.select(team=None if team is None else team_id(team), tag=filt.get("tag"),
                           type_name=filt.get("type"), category=filt.get("category"))
            return [w.unit_dict(i) for i in ids.tolist()]

        def unit(uid):
            uid = int(num(uid, "id"))
            return w.unit_dict(uid) if w.is_alive(uid) else None

        def resources(team):
            s = sim.teams[team_id(team)]
            return {"metal": round(s.metal, 3), "energy": round(s.energy, 3)}

        def param(name, default=None):
            return rule.params.get(name, default)

        def map_size():
            return w.terrain.width, w.terrain.height

        def spawn_point(name):
            for s in sim.level.map.spawns:
                if s.name == name:
                    return s.x, s.y
            raise ValueError(f"unknown spawn point {name!r} (map has: {', '.join(s.name for s in sim.level.map.spawns)})")

        def teams():
            return sorted(sim.teams)

        def random():
            return float(rule.rng.random())

        def random_int(a, b):
            a, b = int(num(a, "a")), int(num(b, "b"))
            if b < a:
                raise ValueError(f"random_int: empty range [{a}, {b}]")
            return int(rule.rng.integers(a, b + 1))

        def spawn(team, type_name, x, y, count=1, tag=None):
            t = team_id(team)
            if type_name not in types.index:
                raise ValueError(f"unknown unit type {type_name!r}")
            n = int(num(count, "count"))
            if not 1 <= n <= MAX_SPAWN_PER_CALL:
                raise ValueError(f"count must be 1..{MAX_SPAWN_PER_CALL}, got {n}")
            x, y = num(x, "x"), num(y, "y")
            if not w.terrain.on_map(x, y):
                raise ValueError(f"({x:g}, {y:g}) is off the {w.terrain.width}x{w.terrain.height} map")
            air = bool(types.is_air[types.index[type_name]])
            ids = []
            for j in range(n):
                if j == 0:
                    px, py = x, y
                else:
                    ang = 2 * math.pi * (j - 1) / max(1, n - 1)
                    ring = 1.5 * (1 + (j - 1) // 12 * 0.6)
                    px, py = x + ring * math.cos(ang), y + ring * math.sin(ang)
                px, py = sim.free_spot(px, py, air)
                ids.append(sim.spawn(type_name, t, px, py, source="rule", tag=None if tag is None else str(tag)))
            return ids

        def order(ids, kind, x=None, y=None):
            if isinstance(ids, (int, float)):
                ids = [ids]
            if not isinstance(ids, list) or not ids:
                raise ValueError("order: ids must be an id or a non-empty array of ids")
            valid = [int(i) for i in ids if isinstance(i, (int, float)) and w.is_alive(int(i))]
            if not valid:
                return False, "unknown_unit"
            by_team: dict[int, list[int]] = {}
            for i in valid:
                by_team.setdefault(int(w.team[i]), []).append(i)
            ok, code = True, None
            for t, group in sorted(by_team.items()):
                o = {"kind": kind, "units": group}
                if x is not None:
                    o["x"], o["y"] = x, y
                good, err = sim.command(t, o)
                if not good:
                    ok, code = False, err
            return ok, code

        def give_resources(team, metal=0, energy=0):
            s = sim.teams[team_id(team)]
            s.metal += max(0.0, num(metal, "metal"))
            s.energy += max(0.0, num(energy, "energy"))

        def set_controller(team, spec):
            sim.set_controller(team_id(team), spec)

        def win(team, reason="rule"):
            sim.rule_verdict("win", team_id(team), f"{rule.id}: {reason}")

        def lose(team, reason="rule"):
            sim.rule_verdict("lose", team_id(team), f"{rule.id}: {reason}")

        def message(text, team=None):
            sim.message(str(text), None if team is None else team_id(team), rule.id)

        def mark(x, y, label, color="#ffd700"):
            if len(sim.markers) >= MAX_MARKERS:
                raise ValueError(f"too many markers (max {MAX_MARKERS})")
            sim.add_marker(num(x, "x"), num(y, "y"), str(label), str(color))

        def log(name, fields=None):
            if fields is not None and not isinstance(fields, (dict, list)):
                fields = {"value": fields}
            sim.trace.add(sim.time, "rule_log", rule=rule.id, name=str(name), fields=fields or {})

        return {
            "every": every, "at": at, "on_area_entered": on_area_entered,
            "time": lambda: sim.time, "units": units, "unit": unit, "resources": resources, "param": param,
            "map_size": map_size, "spawn_point": spawn_point, "teams": teams, "random": random,
            "random_int": random_int, "spawn": spawn, "order": order, "give_resources": give_resources,
            "set_controller": set_controller, "win": win, "lose": lose, "message": message, "mark": mark,
            "log": log,
        }

