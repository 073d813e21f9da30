"""The offline rule composer: a typed recipe -> a new Lua rule with its metadata and generated tests.

The script's structure is the recipe's shape (its trigger and action kinds, in order) and every value
is a param, so one composed script serves any recipe of the same shape; nothing the recipe holds is
spliced into the Lua source. Each test isolates one step (the others are switched off with the
`disabled_steps` param): a positive test where the trigger fires and each action's trace events
appear, and a negative test where it does not fire."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import jinja2

from engine.catalog import load_catalog
from genesis.models import ParamDecl, RuleDraft, RuleMetaDraft, RuleTest
from genesis.offline import geometry as G
from genesis.rule_recipe import RuleRecipe, Step, part_prefix, recipe_parts, recipe_params
from genesis.templating import template_environment

TEMPLATES = Path(__file__).parent / "lua"
DEFAULT_MAP = {"name": "open_field"}
DISABLED_STEPS = "disabled_steps"
SPAWN_BUDGET = 1000          # as in the template: units one composed rule spawns per run at most
TEST_TIMES = (5.0, 15.0)     # firing times of a timed step in its test (values are params: the shape is tested)
TEST_THRESHOLD = 2           # unit-count threshold in a count step's test
KILL_SECONDS = 120.0         # how long a test waits for a unit to be destroyed
MOVE_SECONDS = 8.0           # after an attack order, the attackers have left ...
LEFT_RADIUS = 4.0            # ... this circle (tiles) around where they appeared
KEEPER = "wall"              # a far unit that keeps a side in a test's game once its other units fall
KEEPER_CLEARANCE = 12.0      # tiles between a keeper and every other placed unit or place (beyond weapon range)
END_ACTIONS = ("win", "lose")
LOG_EVENTS = ("step_fired {step, index, trigger, t}", "group_spawned / reinforced {step, index, team, from, slot (which "
              "of the action's places, from 1), count, units, x, y}", "attack_ordered {step, index, team, count, target_team, "
              "ok, target, wanted, tx, ty}", "attack_withdrawn {step, index, count}",
              "game_ended {step, index, result, team}", "message_sent {step, index, team}",
              "mark_placed {step, index, x, y}", "resources_taken {step, index, team, to (-1: nobody), metal, "
              "energy}", "zone_shrunk {step, index, radius, dealt}", "step_skipped {step, index, action, why}")

_ENV = template_environment(TEMPLATES, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                            keep_trailing_newline=True)


class RecipeError(ValueError):
    """A recipe that cannot be composed on the design's map (e.g. a spawn name the map lacks)."""


# ---- params ----------------------------------------------------------------------------------------
def _param_type(value: Any, annotation: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "table"
    if value is None and "int" in str(annotation):
        return "int"
    if value is None and "float" in str(annotation):
        return "float"
    return "string"


def param_decls(recipe: RuleRecipe) -> dict[str, ParamDecl]:
    decls = {}
    for prefix, part, kind in recipe_parts(recipe):
        for name, info in type(part).model_fields.items():
            if name == kind:
                continue
            value = getattr(part, name)
            value = list(value) if isinstance(value, tuple) else value
            decls[prefix + name] = ParamDecl(type=_param_type(value, info.annotation), default=value,
                                             description=info.description or name)
    decls[DISABLED_STEPS] = ParamDecl(type="list", default=[], description="step numbers (from 1) that never "
                                      "fire: the rule's tests run one step at a time")
    return decls


# ---- source ----------------------------------------------------------------------------------------
def lua_source(recipe: RuleRecipe) -> str:
    steps = [{"n": i, "prefix": part_prefix(i), "trigger": s.when.on,
              "actions": [{"kind": a.do, "prefix": part_prefix(i, j)} for j, a in enumerate(s.then, 1)]}
             for i, s in enumerate(recipe.steps, 1)]
    return _ENV.get_template("composed_rule.lua.j2").render(
        title=f"Composed rule {recipe.signature()}", shape=recipe.shape(), steps=steps,
        destroyed=any(s.when.on == "unit_destroyed" for s in recipe.steps),
        chasing=any(a.do == "attack" for s in recipe.steps for a in s.then))


def rule_meta(recipe: RuleRecipe, purpose: str) -> RuleMetaDraft:
    kinds = sorted({s.when.on for s in recipe.steps} | {a.do for s in recipe.steps for a in s.then})
    return RuleMetaDraft(
        title=f"composed: {recipe.shape()}"[:120],
        description=(f"{purpose.strip()[:300]} Composed offline from a recipe of shape `{recipe.shape()}`; every "
                     "value is a param (s<step>_<field>, s<step>_a<action>_<field>). rule_log events: "
                     + "; ".join(LOG_EVENTS) + "."),
        params=param_decls(recipe), concepts=["composed", recipe.signature(), *kinds])


# ---- tests -----------------------------------------------------------------------------------------
class _Bench:
    """The map of a step's test level and the start units placed on it so far."""

    def __init__(self, map_ref: dict):
        self.map_ref = map_ref
        self.m = G.load(map_ref)
        self.units: dict[int, list[dict]] = {}
        self.resources: dict[int, dict[str, float]] = {}
        self.taken: list[tuple[float, float]] = []

    def points(self, places: Any) -> list[tuple[float, float]]:
        """Every place of an action's `at`: a list of places (spawn), or one place."""
        return [self.point(p) for p in places] if isinstance(places, list) else [self.point(places)]

    def point(self, place: Any) -> tuple[float, float]:
        if isinstance(place, str):
            sp = G.spawns(self.m)
            if place not in sp:
                raise RecipeError(f"recipe place {place!r} is not a spawn point of the map "
                                  f"(it has: {', '.join(sorted(sp))})")
            return sp[place]
        x, y = place
        if not (0 <= x < self.m.width and 0 <= y < self.m.height):
            raise RecipeError(f"recipe point [{x:g}, {y:g}] is off the {self.m.width}x{self.m.height} map")
        return float(x), float(y)

    def free(self, near: tuple[float, float] | None = None, clearance: float = 4.0) -> tuple[float, float]:
        near = near or (self.m.width / 2, self.m.height / 2)
        xy = G.passable_near(self.m, near[0], near[1], self.taken, clearance=clearance, main_region_only=True)
        self.taken.append(xy)
        return xy

    def add(self, team: int, unit_type: str, count: int, xy: tuple[float, float], tag: str | None = None) -> None:
        while count > 0:
            n = min(count, 500)
            unit = {"type": unit_type, "count": n, "x": round(xy[0], 1), "y": round(xy[1], 1)}
            if tag:
                unit["tag"] = tag
            self.units.setdefault(team, []).append(unit)
            count -= n

    def keep_in_game(self, teams: set[int]) -> None:
        """A side with nothing left is out and the game may end with it: a step's test watches the rule,
        not that ending, so each of these sides gets a wall far from everything else."""
        for t in sorted(teams):
            xy = G.passable_near(self.m, 0.0, 0.0, self.taken, clearance=KEEPER_CLEARANCE, main_region_only=True)
            self.taken.append(xy)
            self.add(t, KEEPER, 1, xy)

    def level(self, teams: set[int], name: str, until: float) -> dict:
        out = []
        for t in sorted(teams | set(self.units) | set(self.resources)):
            controller = {"type": "agent"} if t == 0 else {"type": "ai", "behaviour": "idle"}
            out.append({"id": t, "name": f"team {t}", "controller": controller,
                        "resources": self.resources.get(t, {"metal": 0, "energy": 0}), "units": self.units.get(t, [])})
        return {"name": name[:80], "description": "a composed rule's test", "map": self.map_ref, "teams": out,
                "switches": {"fog_of_war": False, "production": False, "time_limit": until + 5}}


def _killers(victim_type: str) -> tuple[str, int]:
    unit = load_catalog().units[victim_type]
    if unit.category == "air":
        return "aa_vehicle", 4
    return ("heavy_tank", 6) if unit.hp > 1500 else ("assault_bot", 6)


def _teams(recipe: RuleRecipe) -> set[int]:
    found = {0, 1}
    for _, part, _ in recipe_parts(recipe):
        for name in ("team", "target_team", "to_team"):
            if getattr(part, name, None) is not None:
                found.add(getattr(part, name))
    return found


def _fired(n: int, step: int, exact: bool = True) -> dict:
    e = {"event": "rule_log", "where": {"name": "step_fired", "fields.step": step}, "min": n}
    return {**e, "max": n} if exact else e


def _count(base: int, growth: float, firing: int, spawned: int) -> int:
    n = min(200, max(1, math.floor(base * growth ** (firing - 1) + 0.5)))
    return max(0, min(n, SPAWN_BUDGET - spawned))


def _draws_without_repeat(step: Step) -> bool:
    return any(a.do == "spawn" and a.pick == "random_no_repeat" for a in step.then)


def _trigger_setup(step: Step, i: int, bench: _Bench, params: dict, positive: bool,
                   enemy_of: dict[int, int]) -> tuple[float, int, bool]:
    """Places what makes step i's trigger fire (positive) or not; returns (until, firings, exact).
    A timed step that draws places without repeat fires twice, so the test sees two draws."""
    w, p = step.when, part_prefix(i)
    twice = _draws_without_repeat(step)
    if getattr(w, "jitter", None):
        params[p + "jitter"] = 0.0     # a test fixes the firing times (the seeded delay is the engine's draw)
    if w.on == "time":
        times = list(TEST_TIMES[: max(len(w.at), 2 if twice else 1)])
        params[p + "at"] = times
        return (times[-1] + 10, len(times), True) if positive else (times[0] - 1, 0, True)
    if w.on == "period":
        n = 2 if twice else min(w.count or 2, 2)
        period = min(w.every, 10.0)
        params.update({p + "every": period, p + "first_at": TEST_TIMES[0], p + "count": n})
        return (TEST_TIMES[0] + period * (n - 1) + 10, n, True) if positive else (TEST_TIMES[0] - 1, 0, True)
    if w.on == "area_entered":
        centre = bench.point((w.x, w.y))
        bench.taken.append(centre)
        if positive:
            inside = G.passable_near(bench.m, centre[0], centre[1], [], clearance=0)
            bench.add(0 if w.team is None else w.team, "light_bot", 1, inside)
        return 10.0, int(positive), True
    if w.on in ("unit_destroyed", "count_below"):
        team = 0 if w.team is None else w.team
        victim = w.type or "light_bot"
        count = 1
        if w.on == "count_below":
            count = min(w.threshold, TEST_THRESHOLD)
            params[p + "threshold"] = count
        xy = bench.free()
        bench.add(team, victim, count, xy, w.tag)
        if positive:
            killer, n = _killers(victim)
            bench.add(enemy_of[team], killer, n, (xy[0] + 2.5, xy[1]))
        return (KILL_SECONDS, 1, w.on == "count_below") if positive else (30.0, 0, True)
    if w.on == "count_above":
        params[p + "threshold"] = threshold = min(w.threshold, TEST_THRESHOLD)
        n = threshold + 1 if positive else threshold
        if n:
            bench.add(w.team, w.type or "light_bot", n, bench.free(), w.tag)
        return 5.0, int(positive), True
    # resource_above
    bench.resources[w.team] = {"metal": 0, "energy": 0}
    if positive:
        bench.resources[w.team][w.resource] = w.amount + 1
    return 5.0, int(positive), True


def _action_expectations(step: Step, i: int, bench: _Bench, params: dict, firings: int, exact: bool) -> list[dict]:
    """Places what step i's actions act on (adjusting the test's `params` where a value would hide the
    effect) and states the trace each leaves when the step fires `firings` times."""
    expect: list[dict] = []
    group_team, origin = None, None
    fire_at = TEST_TIMES[0] if step.when.on in ("time", "period") else None
    for j, a in enumerate(step.then, 1):
        if a.do in ("spawn", "reinforce"):
            growth = a.growth if a.do == "spawn" else 1.0
            spawned = 0
            totals: dict[str, int] = {}
            for k in range(1, firings + 1):
                for unit_type, base in sorted(a.units.items()):
                    n = _count(base, growth, k, spawned)
                    spawned += n
                    totals[unit_type] = totals.get(unit_type, 0) + n
            for unit_type, n in totals.items():
                e = {"event": "spawn", "where": {"source": "rule", "team": a.team, "type": unit_type}, "min": n}
                expect.append({**e, "max": n} if exact else e)
            name = "group_spawned" if a.do == "spawn" else "reinforced"
            expect.append({"event": "rule_log", "where": {"name": name, "fields.step": i}, "min": firings})
            if a.do == "spawn":
                expect += _place_expectations(a, i, firings, exact)
                # where the first firing's group appears, when that is known in advance
                group_team, origin = a.team, bench.points(a.at)[0] if a.pick == "cycle" else None
        elif a.do == "attack":
            if group_team != a.team:
                bench.add(a.team, "light_bot", 2, bench.free())
            where: dict[str, Any] = {"name": "attack_ordered", "fields.step": i, "fields.target_team": a.target_team,
                                     "fields.ok": True}
            target = bench.free()
            bench.add(a.target_team, a.target_type or "light_bot", 1, target, a.target_tag)
            expect.append({"event": "rule_log", "where": where, "min": firings})
            if a.target_type:  # the first firing finds the class (later ones may find it destroyed)
                expect.append({"event": "rule_log", "where": {**where, "fields.index": 1,
                                                              "fields.target": a.target_type}, "min": 1})
            if group_team == a.team and origin is not None and fire_at is not None \
                    and math.dist(origin, target) > 3 * LEFT_RADIUS:
                # the attackers really move: none is left near where they appeared
                expect.append({"state": {"at": fire_at + MOVE_SECONDS, "team": a.team,
                                         "within": {"x": origin[0], "y": origin[1], "radius": LEFT_RADIUS},
                                         "units_max": 0}})
        elif a.do in END_ACTIONS:
            side = "winners_include" if a.do == "win" else "losers_include"
            expect.append({"result": {side: a.team, "ended_by": "rule"}})
            break  # the game is over: later actions of the step leave no checkable trace
        elif a.do == "message":
            where = {"text": a.text} if a.team is None else {"text": a.text, "team": a.team}
            expect.append({"event": "message", "where": where, "min": firings})
        elif a.do == "take":
            have = bench.resources.setdefault(a.team, {"metal": 0, "energy": 0})
            have["metal"] += a.metal * firings      # enough for every firing to take its full amount
            have["energy"] += a.energy * firings
            expect.append({"event": "rule_log", "where": {"name": "resources_taken", "fields.step": i,
                                                          "fields.team": a.team, "fields.metal": a.metal,
                                                          "fields.energy": a.energy}, "min": firings})
            kind = "resources_taken" if a.to_team is None else "resources_transferred"
            where = {"team": a.team} if a.to_team is None else {"from": a.team, "to": a.to_team}
            expect.append({"event": kind, "where": where, "min": firings})
        elif a.do == "zone":
            # a unit well outside the zone (the test's zone is small) loses hp at every firing
            cx, cy = bench.point(a.at)
            params[part_prefix(i, j) + "radius"] = 2.0
            params[part_prefix(i, j) + "damage"] = 1.0     # the victim outlives every firing
            bench.add(0 if a.team is None else a.team, "wall", 1, bench.free((cx + 8, cy)))
            expect.append({"event": "rule_log", "where": {"name": "zone_shrunk", "fields.step": i}, "min": firings})
            expect.append({"event": "rule_damage", "min": firings})
        else:  # mark
            expect.append({"event": "rule_log", "where": {"name": "mark_placed", "fields.step": i}, "min": firings})
    return expect


def _place_expectations(a, i: int, firings: int, exact: bool) -> list[dict]:
    """Which place each firing of spawn action `a` of step i used: in turn (cycle), any of its places
    (random), and never one place twice in a row (random_no_repeat, checked over two firings)."""
    n = len(a.at)
    where = {"name": "group_spawned", "fields.step": i}
    if a.pick == "cycle":
        # when the number of firings is not exact (a unit that may die more than once), the first one is known
        return [{"event": "rule_log", "where": {**where, "fields.index": k, "fields.slot": (k - 1) % n + 1},
                 "min": 1, **({"max": 1} if exact else {})} for k in range(1, (firings if exact else 1) + 1)]
    out = [{"event": "rule_log", "where": {**where, "fields.slot": list(range(1, n + 1))}, "min": firings}]
    if a.pick == "random_no_repeat" and firings == 2:
        out += [{"event": "rule_log", "where": {**where, "fields.slot": s}, "max": 1} for s in range(1, n + 1)]
    return out


def _counted(step: Step) -> set[int]:
    """Teams whose every unit a count trigger counts (no type or tag): a keeper would change the count."""
    w = step.when
    if w.on in ("count_below", "count_above") and w.type is None and w.tag is None:
        return {w.team}
    return set()


def _enemy_of(teams: set[int]) -> dict[int, int]:
    return {t: min(o for o in teams | {0, 1} if o != t) for t in teams}


def rule_tests(recipe: RuleRecipe, params: dict[str, Any], map_ref: dict | None = None) -> list[RuleTest]:
    """Per step: a test where its trigger fires and its actions' trace appears, and one where it does not."""
    map_ref = map_ref or DEFAULT_MAP
    teams = _teams(recipe)
    enemy_of = _enemy_of(teams)
    tests = []
    for i, step in enumerate(recipe.steps, 1):
        off = [k for k in range(1, len(recipe.steps) + 1) if k != i]
        ends = any(a.do in END_ACTIONS for a in step.then)
        for positive in (True, False):
            bench = _Bench(map_ref)
            for a in step.then:  # keep start units clear of where the step spawns or marks
                if getattr(a, "at", None) is not None:
                    bench.taken += bench.points(a.at)
            case_params = {**params, DISABLED_STEPS: off}
            until, firings, exact = _trigger_setup(step, i, bench, case_params, positive, enemy_of)
            if positive:
                if ends:
                    firings = 1
                expect = [_fired(firings, i, exact and not ends)]
                expect += _action_expectations(step, i, bench, case_params, firings, exact and not ends)
                name = f"step {i} ({step.when.on}) fires: " + ", ".join(a.do for a in step.then)
            else:
                expect = [_fired(0, i), {"event": "rule_log", "where": {"name": "step_skipped"}, "max": 0}]
                if not ends:
                    expect.append({"result": {"ended_by": ["until", "time_limit"]}})
                name = f"step {i} ({step.when.on}) does not fire without its trigger"
            bench.keep_in_game(teams - _counted(step))
            tests.append(RuleTest.model_validate({
                "name": name, "level": bench.level(teams, f"composed rule test: step {i}", until),
                "params": case_params, "until": until, "expect": expect}))
    return tests


# ---- the draft -------------------------------------------------------------------------------------
def compose(rule_id: str, recipe: RuleRecipe, purpose: str, params: dict[str, Any] | None = None,
            map_ref: dict | None = None) -> RuleDraft:
    """A new rule for `recipe`: Lua source, meta declaring every param, and generated tests.
    `params` (e.g. the component's) override the recipe's values and must be declared ones."""
    base = recipe_params(recipe)
    meta = rule_meta(recipe, purpose)
    unknown = sorted(set(params or {}) - set(meta.params))
    if unknown:
        raise RecipeError(f"rule component {rule_id!r}: params {unknown} are not fields of its recipe "
                          f"(the composed rule reads {sorted(meta.params)})")
    merged = {**base, **(params or {})}
    return RuleDraft(id=rule_id, source=lua_source(recipe), params=merged, meta=meta,
                     tests=rule_tests(recipe, base, map_ref))
