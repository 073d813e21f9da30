"""Binds the Lua rule API to a running simulation.

One `LuaSandbox` per rule script, each with its own pre-bound API functions (closures over the
simulation and the rule's params), so nothing is rebuilt per tick: scripts pull what they need
through queries and receive events as small unit tables. Any RuleScriptError propagates to the
simulation, which ends the run with ended_by="error".
"""
from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from lupa import lua54

from engine.rules import effects
from engine.rules.limits import (MAX_AREAS, MAX_COORD, MAX_HP_CHANGE, MAX_IDS, MAX_MARKERS, MAX_RESOURCE_GRANT,
                                 MAX_SHAPES, MAX_SIGHT, MAX_SPAWN_PER_CALL, MAX_SPAWN_PER_RUN, MAX_TIMERS,
                                 ORDER_UNIT_COST, PATH_CELL_COST)
from engine.snapshot import CATEGORIES, ENVIRONMENT
from engine.systems.cloak import CLOAK_DOC
from engine.systems.orders import KINDS

if TYPE_CHECKING:
    from engine.sim import Simulation

# Lua helpers (`lib.point`, `lib.composition`, ...) defined in every rule's sandbox before its script.
RULE_LIB = (Path(__file__).parent / "rule_lib.lua").read_text(encoding="utf-8")
PRELUDE = f"ENVIRONMENT = {ENVIRONMENT}; " + RULE_LIB     # on the library's first line: its line numbers stay
MIN_PERIOD = 1.0 / 30
NEAR_UNITS = 24                 # units already at a spawn point that a spawn() call keeps clear of
MAX_TEXT = 500                  # characters of a reason, label, tag or message
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
_MAX_ID = 2**31


def _num(v: Any, what: str, lo: float = -MAX_COORD, hi: float = MAX_COORD) -> float:
    """A finite number in [lo, hi] (booleans and numeric strings are not numbers)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"{what} must be a finite number, got {_show(v)}")
    if not lo <= v <= hi:
        raise ValueError(f"{what} must be in [{lo:g}, {hi:g}], got {v:g}")
    return float(v)


def _int(v: Any, what: str, lo: float = -_MAX_ID, hi: float = _MAX_ID) -> int:
    x = _num(v, what, lo, hi)
    if x != int(x):
        raise ValueError(f"{what} must be a whole number, got {x:g}")
    return int(x)


def _text(v: Any, what: str, *, numbers: bool = True) -> str:
    if isinstance(v, str) or (numbers and isinstance(v, (int, float)) and not isinstance(v, bool)):
        text = str(v)
        if len(text) > MAX_TEXT:
            raise ValueError(f"{what} longer than {MAX_TEXT} characters")
        return text
    raise ValueError(f"{what} must be a string, got {_show(v)}")


def _callback(fn: Any, what: str) -> Any:
    if lua54.lua_type(fn) != "function":
        raise ValueError(f"{what} must be a function, got {_show(fn)}")
    return fn


def _data(value: Any, what: str) -> Any:
    """`value` as trace data: only strings, numbers, booleans and tables of them (a function's printed
    address would differ from run to run), every table key as the text the trace shows. Keys whose
    texts collide (1 and "1") are refused: which one survived would follow Lua's hash order."""
    if isinstance(value, list):
        return [_data(v, what) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key in sorted(value, key=_key_order):
            text = _key_text(key)
            if text in out:
                raise ValueError(f"{what} has two keys written {text!r} (a number or boolean and a string?)")
            out[text] = _data(value[key], what)
        return out
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise ValueError(f"{what} must hold only strings, numbers, booleans and tables, got {_show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{what} must hold only finite numbers, got {value}")
    return value


def _key_text(key: Any) -> str:
    return str(key).lower() if isinstance(key, bool) else str(key)


def _key_order(key: Any) -> tuple:
    """Numbers, then strings, then booleans (the order pairs() uses), whatever order they came in."""
    if isinstance(key, bool):
        return (2, key, "")
    if isinstance(key, (int, float)):
        return (0, key, "")
    return (1, 0, str(key))


def _show(v: Any) -> str:
    """A short description of a script value for an error message."""
    lua_type = lua54.lua_type(v)
    if lua_type is not None:
        return f"a {lua_type}"
    if v is None:
        return "nil"
    if isinstance(v, (dict, list)):
        return "a table"
    text = repr(v)
    return text if len(text) <= 40 else text[:40] + "..."

def _flag(v: Any, what: str) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"{what} must be true or false, got {_show(v)}")
    return v


UNIT_TABLE = ("u = {id, type, team, x, y, hp, max_hp, tag, category, sight} (a living unit's state when the callback "
              "runs; max_hp for damage or heal by a share of health; sight: its sight radius in tiles now, after any "
              "set_sight)")
# What each API function does, as the rule developer is told (the sandbox exposes exactly these).
API_DOC: dict[str, str] = {
    "every": "every(seconds, fn): calls fn() every `seconds` game seconds (>= 1/30), first at now + seconds; timers "
             "due at the same moment run in the order they were set, and an every() timer is set again each time it "
             "fires (so at(240, f), set at the start, runs before the every(1, g) call due at 240 s)",
    "at": "at(seconds, fn): calls fn() once at ABSOLUTE game time `seconds` (at the next tick if already past)",
    "on_area_entered": "on_area_entered(x, y, radius, fn [, team]): calls fn(u) once per unit, the first time it is "
                       "inside the circle (only units of `team` when given); u is the unit table",
    "time": "time() -> current game seconds",
    "units": "units(team [, {type=, tag=, category=}]) -> list of living unit tables (team may be omitted: "
             "units({tag=...}), and units() lists every side's, ENVIRONMENT's too; team may be ENVIRONMENT)",
    "unit": "unit(id) -> the unit table, or nil once the unit is dead (always check for nil)",
    "resources": "resources(team) -> {metal=, energy=}",
    "income": "income(team) -> {metal=, energy=}: what the team earns per second now (its finished extractors, "
              "solar collectors, commander ...; an extractor earns only on a deposit)",
    "visible": "visible(team, id) -> true when `team` (with its allies) sees the living unit `id` now (always "
               "without fog of war; false for a dead unit): what a team has found",
    "param": "param(name [, default]) -> the level's param value for this rule, else default",
    "map_size": "map_size() -> width, height in tiles",
    "passable": "passable(x, y) -> true when a ground unit can stand on the tile at (x, y) now: on the map, not water "
                "or cliff, no building on it (aircraft fly anywhere on the map)",
    "spawn_point": "spawn_point(name) -> x, y of a named map spawn; an unknown name is an error",
    "teams": f"teams() -> sorted list of the level's team ids, a level's own neutral teams included (never "
             f"ENVIRONMENT, the side of hazards: id {ENVIRONMENT} in trace events and expectations); a team id that is "
             "not in the level is an error in units(), resources() and the other calls taking a team",
    "random": "random() -> float in [0, 1), seeded per run and rule",
    "random_int": "random_int(a, b) -> integer in [a, b]",
    "spawn": "spawn(team, type, x, y [, count [, tag]]) -> list of new unit ids; team may be ENVIRONMENT (hazards: "
             "hostile to every team, see the whole map, never win, lose or keep a game going); count 1..200; (x, y) "
             "must be on the map; the first unit at (x, y), the rest on rings of radius 1.5 tiles (12 a ring, each "
             "further ring 0.6x wider; unit k at angle 360*(k-1)/(count-1) degrees from due east, clockwise on the "
             "map), one on blocked ground or on another unit of the call (at t=0, also of units already there, as the "
             "start's placement is checked) moved to the nearest tile it can stand on clear of them; later spawns may "
             "land among units, which push each other apart; traced as spawn events with source 'rule'",
    "order": "order(ids, kind [, x, y]) -> ok, error_code; kind move|move_force|fight|stop|patrol (fight = attack-move; "
             "stop needs no x, y); "
             f"costs {ORDER_UNIT_COST} instructions per unit named, plus {PATH_CELL_COST} x the map's tile count "
             "(width x height) when ground units are sent to a tile for which no path is planned (a tile nobody was "
             "sent to recently: a new path is planned over the whole map; a tile already planned costs nothing more): "
             "order groups to a few points (rounded to tile centres), not each unit to its own",
    "give_resources": "give_resources(team, metal, energy): ADDS the amounts (>= 0); take_resources and "
                      "transfer_resources take them away",
    "take_resources": "take_resources(team, metal, energy) -> {metal=, energy=}: removes up to the amounts (>= 0) "
                      "from the team, never below 0; returns what was taken; traced as a resources_taken event (also "
                      "when nothing was taken: metal=0)",
    "transfer_resources": "transfer_resources(from, to, metal, energy) -> {metal=, energy=}: moves up to the amounts "
                          "(>= 0) from team `from` to team `to` (at most what `from` has; the receiver's storage does "
                          "not cap it); returns what moved; traced as a resources_transferred event (also when nothing "
                          "moved: metal=0)",
    "damage": f"damage(ids, amount) -> {{units=, dealt=, killed={{ids}}}}: takes `amount` hp (0..{MAX_HP_CHANGE:,.0f}, "
              f"armour ignored) from each living unit of ids (an id or a list of up to {MAX_IDS}; dead ids are "
              "skipped); a unit at 0 hp dies like one killed in combat (death event with killer_team nil, "
              "on_unit_destroyed after the calling callback returns, counts for elimination); not counted in the teams' "
              "damage statistics (rankings by damage efficiency see only fights); traced as rule_damage (one event a call "
              "that names a living unit, dealt=0 included)",
    "damage_area": "damage_area(x, y, radius, amount [, team]) -> {units=, dealt=, killed=}: damage() on every "
                   "living unit inside the circle (only `team`'s when given; ENVIRONMENT is a team here)",
    "heal": f"heal(ids, amount) -> {{units=, healed=}} (units: how many living units it named; healed: hp given "
            f"in all): gives `amount` hp (0..{MAX_HP_CHANGE:,.0f}) to each living unit "
            "of ids, never above its max hp; traced as rule_heal (one event a call that names a living unit, healed=0 "
            "included)",
    "heal_area": "heal_area(x, y, radius, amount [, team]) -> {units=, healed=}: heal() on every living unit inside "
                 "the circle (only `team`'s when given)",
    "set_sight": f"set_sight(ids, radius) -> count: the sight radius (0..{MAX_SIGHT:g} tiles) of these living units, "
                 "for fog of war and for how far attack-moving units look for enemies (ids: an id or a list; what a "
                 "team sees is updated every 5 ticks, so visible() shows a new radius from the next update, not in "
                 "the callback that set it); traced as rule_sight",
    "set_fire": "set_fire(ids, allowed) -> count (ids: an id or a list): allowed=false forbids these living units to fire (they drop "
                "their target and never attack until set_fire(ids, true); others still see and target them as usual); "
                "traced as rule_fire",
    "set_cloak": "set_cloak(ids, on) -> count (ids: an id or a list): on=true cloaks these living units: "
                 f"{CLOAK_DOC}; set_cloak(ids, false) uncloaks them; traced as rule_cloak",
    "set_detector": f"set_detector(ids, radius) -> count: gives these living units a detection radius (0..{MAX_SIGHT:g} "
                    "tiles; 0 removes it): enemy cloaked units within it are seen and targeted by the unit's whole "
                    "side (with its allies) for as long as it lives; traced as rule_detector",
    "set_team": "set_team(ids, team) -> count: these living units change sides where they stand, keeping hp and "
                "tag (team may be ENVIRONMENT); they stop (no order, no target) and from this tick fight, count and "
                "are seen as the new side's; units already on that side are skipped; traced as rule_team "
                "{ids, team, from}; on_unit_created does not run for them",
    "area_circle": f"area_circle(x, y, radius [, label [, color]]) -> area id: a circle drawn on frames and replays "
                   f"(at most {MAX_SHAPES} areas at once, all rules together; color like #rrggbb)",
    "area_rect": "area_rect(x1, y1, x2, y2 [, label [, color]]) -> area id: an axis-aligned rectangle between two "
                 "corners, drawn like area_circle",
    "move_area": "move_area(id, x, y): moves the area's centre to (x, y)",
    "resize_area": "resize_area(id, radius) for a circle, resize_area(id, width, height) for a rectangle (keeps the "
                   "centre)",
    "remove_area": "remove_area(id): the area disappears (its id is never reused)",
    "area": "area(id) -> {id, shape='circle'|'rect', x, y, radius (circle), width, height (rect), label, color}; "
            "an unknown or removed id is an error",
    "in_area": "in_area(area_id, unit_id) -> true when the unit is alive and inside the area (border included)",
    "units_in_area": "units_in_area(area_id [, team]) -> list of living unit tables inside the area (only `team`'s "
                     "when given)",
    "set_controller": "set_controller(team, spec): replaces the team's controller (spec as in Controllers, as a Lua "
                      "table: {type='ai', behaviour='defend', center={x=40, y=30}, radius=10}, {type='none'})",
    "win": "win(team, reason): the game ends now; `team` and its allies win, every other team loses",
    "lose": "lose(team, reason): `team` and its allies are out (lose events; they are losers of however the game "
            "ends); once one alliance is left the game ends and it wins (win events)",
    "message": "message(text [, team]): shows a message to every team, or only to `team`",
    "mark": "mark(x, y, label [, color]): a map marker that stays for the rest of the game (there is no unmark; "
            f"at most {MAX_MARKERS} a game, so mark once, not every tick)",
    "log": "log(name, fields): writes a trace event {event: 'rule_log', rule: <rule id>, name: name, fields: fields} "
           "that expectations match with where: {name: ..., fields.<key>: ...}; fields is a table (nested tables "
           "and lists allowed) or a scalar, stored as {value = scalar}",
}
# The callbacks a script may define, with what each receives.
CALLBACK_DOC = ("on_start(): once at t=0, after the level's start units exist; every callback runs rule by rule in "
                "the order of the level's rules (a unit one rule spawns in its on_start is seen by the on_start of "
                "the rules after it, not before)",
                f"on_unit_created(u): every unit created after the start (rule spawns, production; a unit or building "
                f"under construction when its construction starts, not when it is finished); {UNIT_TABLE}",
                "on_unit_destroyed(u): every unit that dies; u is its table at death (x, y where it died); the unit "
                "is already gone from units() and unit(id); u.killer_team is the team whose shot killed it (nil when "
                "a rule's damage() did, or the unit was never hit); it runs in the tick of the death, "
                "before the declarative conditions are checked (so also for a death that ends the game by one), "
                "never after a rule's win() or lose() has ended it")
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
        self.pending: list[int] = []    # pending timers per rule
        self.spawned = 0                # units all rules spawned this run
        self._seq = 0

    def load(self) -> None:
        """Compile every rule script of the level (runs their top-level code)."""
        from engine.rules.sandbox import LuaSandbox

        level = self.sim.level
        for k, ref in enumerate(level.config.rules):
            rule = Rule(ref.id, dict(ref.params), rng=self.sim.streams.generator(k, 7919))
            self.rules.append(rule)
            self.pending.append(0)
            rule.sandbox = LuaSandbox(ref.id, level.rule_sources[ref.id], self._api(rule, k), prelude=PRELUDE)
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
            self.pending[k] -= 1
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
        self.pending[k] += 1
        self._seq += 1
        heapq.heappush(self.timers, (due, self._seq, k, fn, period))

    # --- the API a script sees ---------------------------------------------------------------------
    def _api(self, rule: Rule, k: int) -> dict[str, Any]:
        from engine.rules.sandbox import FlatRecords

        sim = self.sim
        w = sim.world
        types = w.types
        pending = self.pending

        def team_id(v: Any, environment: bool = False) -> int:
            t = _int(v, "team", 0, ENVIRONMENT)
            if t == ENVIRONMENT and environment:
                return t
            if t not in sim.teams:
                also = " or ENVIRONMENT" if environment else ""
                raise ValueError(f"unknown team {t} (teams: {sorted(sim.teams)}{also})")
            return t

        def unit_ids(v: Any) -> np.ndarray:
            """An id or a list of ids of units that exist or existed (dead ones are skipped later)."""
            ids = v if isinstance(v, list) else [v]
            if len(ids) > MAX_IDS:
                raise ValueError(f"at most {MAX_IDS} unit ids per call, got {len(ids)}")
            out = [_int(i, "unit id", 0, _MAX_ID) for i in ids]
            unknown = [i for i in out if i >= w.count]
            if unknown:
                raise ValueError(f"no unit has id {unknown[0]}")
            return np.unique(np.array(out, dtype=np.int64))

        def in_circle(x, y, radius, team) -> tuple[np.ndarray, dict]:
            x, y, radius = _num(x, "x"), _num(y, "y"), _num(radius, "radius", 0, MAX_COORD)
            ids = w.alive_idx if team is None else w.select(team=team_id(team, environment=True))
            ids = ids[(w.x[ids] - x) ** 2 + (w.y[ids] - y) ** 2 <= radius * radius]
            return ids, {"x": x, "y": y, "radius": radius}

        def shape_color(color: Any) -> str:
            color = _text(color, "color", numbers=False)
            if not _COLOR.match(color):
                raise ValueError(f"color must look like #rrggbb, got {_show(color)}")
            return color

        def new_shape(kind: str, x: float, y: float, half_w: float, half_h: float, label: Any, color: Any) -> int:
            if len(sim.areas) >= MAX_SHAPES:
                raise ValueError(f"too many areas (max {MAX_SHAPES} at once; remove_area frees one)")
            return sim.areas.add(kind, x, y, half_w, half_h, _text(label, "label"), shape_color(color))

        def area_id(v: Any):
            return sim.areas.get(_int(v, "area id", 0, _MAX_ID))

        def unit_type(v: Any) -> str:
            name = _text(v, "unit type", numbers=False)
            if name not in types.index:
                raise ValueError(f"unknown unit type {_show(name)}")
            return name

        def add_timer(due: float, fn: Any, period: float | None) -> None:
            if pending[k] >= MAX_TIMERS:
                raise ValueError(f"too many pending timers (max {MAX_TIMERS} per script)")
            self._push(due, k, fn, period)

        def every(seconds, fn):
            period = _num(seconds, "seconds", MIN_PERIOD, MAX_COORD)
            add_timer(sim.time + period, _callback(fn, "every: callback"), period)

        def at(seconds, fn):
            due = _num(seconds, "seconds", 0, MAX_COORD)
            add_timer(max(due, sim.time), _callback(fn, "at: callback"), None)

        def on_area_entered(x, y, radius, fn, team=None):
            if sum(1 for a in self.areas if a.rule is rule) >= MAX_AREAS:
                raise ValueError(f"too many area triggers (max {MAX_AREAS} per script)")
            area = AreaTrigger(rule, _num(x, "x"), _num(y, "y"), _num(radius, "radius", 0, MAX_COORD),
                               _callback(fn, "on_area_entered: callback"), None if team is None else team_id(team))
            self.areas.append(area)

        def damage(ids, amount):
            return effects.damage(sim, unit_ids(ids), _num(amount, "amount", 0, MAX_HP_CHANGE), rule.id)

        def damage_area(x, y, radius, amount, team=None):
            ids, where = in_circle(x, y, radius, team)
            return effects.damage(sim, ids, _num(amount, "amount", 0, MAX_HP_CHANGE), rule.id, **where)

        def heal(ids, amount):
            return effects.heal(sim, unit_ids(ids), _num(amount, "amount", 0, MAX_HP_CHANGE), rule.id)

        def heal_area(x, y, radius, amount, team=None):
            ids, where = in_circle(x, y, radius, team)
            return effects.heal(sim, ids, _num(amount, "amount", 0, MAX_HP_CHANGE), rule.id, **where)

        def take_resources(team, metal=0, energy=0):
            return effects.take_resources(sim, team_id(team), _num(metal, "metal", 0, MAX_RESOURCE_GRANT),
                                          _num(energy, "energy", 0, MAX_RESOURCE_GRANT), rule.id)

        def transfer_resources(src, dst, metal=0, energy=0):
            src, dst = team_id(src), team_id(dst)
            if src == dst:
                raise ValueError(f"from and to are the same team ({src})")
            return effects.transfer_resources(sim, src, dst, _num(metal, "metal", 0, MAX_RESOURCE_GRANT),
                                              _num(energy, "energy", 0, MAX_RESOURCE_GRANT), rule.id)

        def set_sight(ids, radius):
            return effects.set_sight(sim, unit_ids(ids), _num(radius, "radius", 0, MAX_SIGHT), rule.id)

        def set_fire(ids, allowed):
            return effects.set_fire(sim, unit_ids(ids), _flag(allowed, "allowed"), rule.id)

        def set_cloak(ids, on):
            return effects.set_cloak(sim, unit_ids(ids), _flag(on, "on"), rule.id)

        def set_detector(ids, radius):
            return effects.set_detector(sim, unit_ids(ids), _num(radius, "radius", 0, MAX_SIGHT), rule.id)

        def set_team(ids, team):
            t = team_id(team, environment=True)
            if t == ENVIRONMENT:
                sim.rule_fed.add(t)
            return effects.set_team(sim, unit_ids(ids), t, rule.id)

        def area_circle(x, y, radius, label="", color="#ffd700"):
            r = _num(radius, "radius", 0, MAX_COORD)
            return new_shape("circle", _num(x, "x"), _num(y, "y"), r, r, label, color)

        def area_rect(x1, y1, x2, y2, label="", color="#ffd700"):
            x1, y1, x2, y2 = _num(x1, "x1"), _num(y1, "y1"), _num(x2, "x2"), _num(y2, "y2")
            return new_shape("rect", (x1 + x2) / 2, (y1 + y2) / 2, abs(x2 - x1) / 2, abs(y2 - y1) / 2, label, color)

        def move_area(sid, x, y):
            sim.areas.update(area_id(sid).id, x=_num(x, "x"), y=_num(y, "y"))

        def resize_area(sid, a, b=None):
            shape = area_id(sid)
            if shape.kind == "circle":
                if b is not None:
                    raise ValueError(f"area {shape.id} is a circle: resize_area(id, radius)")
                r = _num(a, "radius", 0, MAX_COORD)
                sim.areas.update(shape.id, half_w=r, half_h=r)
            else:
                if b is None:
                    raise ValueError(f"area {shape.id} is a rectangle: resize_area(id, width, height)")
                sim.areas.update(shape.id, half_w=_num(a, "width", 0, MAX_COORD) / 2,
                                 half_h=_num(b, "height", 0, MAX_COORD) / 2)

        def remove_area(sid):
            sim.areas.remove(area_id(sid).id)

        def area(sid):
            shape = area_id(sid)
            out = {"id": shape.id, "shape": shape.kind, "x": shape.x, "y": shape.y, "label": shape.label,
                   "color": shape.color}
            if shape.kind == "circle":
                out["radius"] = shape.half_w
            else:
                out["width"], out["height"] = 2 * shape.half_w, 2 * shape.half_h
            return out

        def in_area(sid, uid):
            shape = area_id(sid)
            uid = _int(uid, "unit id", 0, _MAX_ID)
            return w.is_alive(uid) and bool(shape.contains(w.x[uid], w.y[uid]))

        def units_in_area(sid, team=None):
            shape = area_id(sid)
            ids = w.alive_idx if team is None else w.select(team=team_id(team, environment=True))
            return FlatRecords(w.unit_dicts(ids[shape.contains(w.x[ids], w.y[ids])]))

        def units(team=None, filt=None):
            if isinstance(team, dict) and filt is None:
                team, filt = None, team
            filt = {} if filt is None else filt
            if not isinstance(filt, dict):
                raise ValueError("filter must be a table like {type=..., tag=..., category=...}")
            unknown = set(filt) - {"type", "tag", "category"}
            if unknown:
                raise ValueError(f"unknown filter keys {sorted(map(str, unknown))}")
            category = filt.get("category")
            if category is not None and category not in CATEGORIES:
                raise ValueError(f"unknown category {_show(category)} (categories: {', '.join(CATEGORIES)})")
            ids = w.select(team=None if team is None else team_id(team, environment=True),
                           tag=None if filt.get("tag") is None else _text(filt["tag"], "tag"),
                           type_name=None if filt.get("type") is None else unit_type(filt["type"]),
                           category=category)
            return FlatRecords(w.unit_dicts(ids))

        def unit(uid):
            uid = _int(uid, "id")
            return w.unit_dict(uid) if w.is_alive(uid) else None

        def visible(team, uid):
            t, uid = team_id(team), _int(uid, "id")
            if not w.is_alive(uid):
                return False
            return bool(sim.sees(t, np.array([uid], dtype=np.int64))[0])

        def resources(team):
            s = sim.teams[team_id(team)]
            return {"metal": round(s.metal, 3), "energy": round(s.energy, 3)}

        def income(team):
            metal, energy = sim.economy.income_rates(team_id(team))
            return {"metal": round(metal, 3), "energy": round(energy, 3)}

        def param(name, default=None):
            return rule.params.get(_text(name, "param name", numbers=False), default)

        def passable(x, y):
            x, y = _num(x, "x"), _num(y, "y")
            return bool(w.terrain.on_map(x, y) and w.terrain.passable[int(y), int(x)])

        def map_size():
            return w.terrain.width, w.terrain.height

        def spawn_point(name):
            name = _text(name, "spawn point name", numbers=False)
            for s in sim.level.map.spawns:
                if s.name == name:
                    return s.x, s.y
            raise ValueError(f"unknown spawn point {_show(name)} "
                             f"(map has: {', '.join(s.name for s in sim.level.map.spawns)})")

        def teams():
            return sorted(sim.teams)

        def random():
            return float(rule.rng.random())

        def random_int(a, b):
            a, b = _int(a, "a", -2**53, 2**53), _int(b, "b", -2**53, 2**53)
            if b < a:
                raise ValueError(f"random_int: empty range [{a}, {b}]")
            # from a 53-bit float, not rng.integers: the first 32-bit draw of the streams of seeds 0 and 2
            # coincides for the second rule of a level over almost every small range (seed 2 replayed seed 0's game)
            return min(b, a + int(rule.rng.random() * (b - a + 1)))

        def spawn(team, type_name, x, y, count=1, tag=None):
            t = team_id(team, environment=True)
            type_name = unit_type(type_name)
            n = _int(count, "count", 1, MAX_SPAWN_PER_CALL)
            x, y = _num(x, "x"), _num(y, "y")
            tag = None if tag is None else _text(tag, "tag")
            if not w.terrain.on_map(x, y):
                raise ValueError(f"({x:g}, {y:g}) is off the {w.terrain.width}x{w.terrain.height} map")
            if self.spawned + n > MAX_SPAWN_PER_RUN:
                raise ValueError(f"spawn limit reached: rules may spawn at most {MAX_SPAWN_PER_RUN} units per run")
            self.spawned += n
            air = bool(types.is_air[types.index[type_name]])
            size = float(types.size[types.index[type_name]])
            # a layout drawn at the start keeps clear of the units already standing round the point (another
            # call's group), as the start's placement is checked: the NEAR_UNITS nearest, so a crowd costs no more
            # than a call's own ring; later spawns may land among units, which push each other apart
            near = np.zeros(0, dtype=np.int64)
            if sim.time == 0:
                reach = 1.5 * (1 + (n - 1) // 12 * 0.6) + 3.0
                alive = w.alive_idx
                d2 = (w.x[alive] - x) ** 2 + (w.y[alive] - y) ** 2
                close = (w.is_air[alive] == air) & (d2 <= reach * reach)
                near = alive[close][np.argsort(d2[close], kind="stable")[:NEAR_UNITS]]
            ids, placed = [], [(float(px), float(py)) for px, py in zip(w.x[near], w.y[near])]
            for j in range(n):
                if j == 0:
                    px, py = x, y
                else:
                    ang = 2 * math.pi * (j - 1) / max(1, n - 1)
                    ring = 1.5 * (1 + (j - 1) // 12 * 0.6)
                    px, py = x + ring * math.cos(ang), y + ring * math.sin(ang)
                px, py = sim.free_spot(px, py, air, tuple(placed), size)
                placed.append((px, py))
                ids.append(sim.spawn(type_name, t, px, py, source="rule", tag=tag))
            return ids

        def order(ids, kind, x=None, y=None):
            if not isinstance(ids, list):
                ids = [ids]
            if not ids:
                raise ValueError("ids must be an id or a non-empty array of ids")
            # checked as one array (an order may name thousands); one by one only to name a bad id
            arr = np.array(ids, dtype=np.int64) if all(i.__class__ is int for i in ids) else None
            if arr is None or ((arr < -_MAX_ID) | (arr > _MAX_ID)).any():
                arr = np.array([_int(i, "unit id") for i in ids], dtype=np.int64)
            if kind not in KINDS:
                raise ValueError(f"unknown order kind {_show(kind)} (kinds: {', '.join(KINDS)})")
            if (x is None) != (y is None):
                raise ValueError("give both x and y, or neither")
            rule.sandbox.charge(ORDER_UNIT_COST * len(ids))
            valid = arr[(arr >= 0) & (arr < w.count)]
            valid = valid[w.alive[valid]]
            if not valid.size:
                return False, "unknown_unit"
            if x is not None:
                # a destination no path field leads to yet costs the movement system a field over
                # the whole map: charged now, before the next tick computes it
                px, py = _num(x, "x"), _num(y, "y")
                if (w.terrain.on_map(px, py) and not w.is_air[valid].all()
                        and not sim.paths.cached(int(px), int(py), w.terrain.version)):
                    rule.sandbox.charge(PATH_CELL_COST * w.terrain.width * w.terrain.height)
            teams = w.team[valid]
            ok, code = True, None
            for t in np.unique(teams).tolist():
                o = {"kind": kind, "units": valid[teams == t].tolist()}
                if x is not None:
                    o["x"], o["y"] = _num(x, "x"), _num(y, "y")
                good, err = sim.command(t, o)
                if not good:
                    ok, code = False, err
            return ok, code

        def give_resources(team, metal=0, energy=0):
            s = sim.teams[team_id(team)]
            metal = _num(metal, "metal", 0, MAX_RESOURCE_GRANT)
            energy = _num(energy, "energy", 0, MAX_RESOURCE_GRANT)
            s.metal += metal
            s.energy += energy

        def set_controller(team, spec):
            if not isinstance(spec, dict):
                raise ValueError(f"controller spec must be a table, got {_show(spec)}")
            sim.set_controller(team_id(team), spec)

        def win(team, reason="rule"):
            sim.rule_verdict("win", team_id(team), f"{rule.id}: {_text(reason, 'reason')}")

        def lose(team, reason="rule"):
            sim.rule_verdict("lose", team_id(team), f"{rule.id}: {_text(reason, 'reason')}")

        def message(text, team=None):
            sim.message(_text(text, "message"), None if team is None else team_id(team), rule.id)

        def mark(x, y, label, color="#ffd700"):
            if len(sim.markers) >= MAX_MARKERS:
                raise ValueError(f"too many markers (max {MAX_MARKERS})")
            sim.add_marker(_num(x, "x"), _num(y, "y"), _text(label, "label"), shape_color(color))

        def log(name, fields=None):
            name = _text(name, "log name")
            fields = _data(fields, "log fields")
            if fields is not None and not isinstance(fields, (dict, list)):
                fields = {"value": fields}
            sim.trace.add(sim.time, "rule_log", rule=rule.id, name=name, fields=fields or {})

        return {
            "every": every, "at": at, "on_area_entered": on_area_entered,
            "time": lambda: sim.time, "units": units, "unit": unit, "visible": visible, "resources": resources,
            "income": income, "param": param,
            "map_size": map_size, "passable": passable, "spawn_point": spawn_point, "teams": teams, "random": random,
            "random_int": random_int, "spawn": spawn, "order": order, "give_resources": give_resources,
            "set_controller": set_controller, "win": win, "lose": lose, "message": message, "mark": mark,
            "log": log, "damage": damage, "damage_area": damage_area, "heal": heal, "heal_area": heal_area,
            "take_resources": take_resources, "transfer_resources": transfer_resources, "set_sight": set_sight,
            "set_fire": set_fire, "set_cloak": set_cloak, "set_detector": set_detector, "set_team": set_team,
            "area_circle": area_circle, "area_rect": area_rect, "move_area": move_area,
            "resize_area": resize_area, "remove_area": remove_area, "area": area, "in_area": in_area,
            "units_in_area": units_in_area,
        }

