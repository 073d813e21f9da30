"""Order validation and application: the one door through which agents, AI and rules command units.

An order is a dict {"kind", "units", "x", "y", "type", "factory", "count"}. `apply_order` returns
(True, None) or (False, error_code); a rejected order changes nothing.
Error codes: bad_order, unknown_order, unknown_unit, not_owner, not_mobile, off_map, impassable,
unknown_type, cannot_build, tech_locked, production_disabled, needs_deposit, site_blocked,
insufficient_resources.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.systems.construction import site_free
from engine.world import BUILD, NONE, ORDER_NAMES

if TYPE_CHECKING:
    from engine.sim import Simulation

KINDS = ("move", "move_force", "fight", "stop", "patrol", "build", "produce")
# What each unit order does, as the movement and combat systems carry it out.
ORDER_DOC = {
    "move": "walk to (x, y); shoots any enemy that comes within weapon range on the way but never stops or "
            "turns to chase it (a unit shot from beyond its range does not answer); the order ends on arrival",
    "move_force": "like move, but never shoots",
    "fight": "attack-move: walk to (x, y), stopping to shoot and chase every visible enemy within sight radius, "
             "then go on; the order ends on arrival",
    "patrol": "fight back and forth between the unit's position and (x, y)",
    "stop": "drop the order; the unit stays and shoots only what comes within weapon range (like a unit "
            "with no order)",
}
PATHING_DOC = ("Ground units follow the shortest path around cliffs and water over the 8 neighbouring tiles (an "
               "orthogonal step costs 2, a diagonal 3: in the open they go diagonally first, then straight, not along "
               "the line between the points; a path hugs the obstacles it bends around; diagonal steps never cut a "
               "blocked corner; shared flow fields); aircraft fly straight. An order to a water or cliff tile is "
               "refused for ground units (error impassable); a point on open ground that the unit's region "
               "does not connect to leaves it walking the straight line and sliding along the obstacle, where "
               "it can stay stuck. Without an order a unit stays put and shoots what comes within weapon range. "
               "Crowded ground units push each other apart, so a unit standing where others walk past can be "
               "shoved a tile or two off its spot.")
Result = tuple[bool, str | None]


def apply_order(sim: Simulation, team: int, order: Any) -> Result:
    if not isinstance(order, dict):
        return False, "bad_order"
    kind = order.get("kind")
    if kind not in KINDS:
        return False, "unknown_order"
    if kind == "produce":
        return _produce(sim, team, order)
    ids, err = _own_units(sim, team, order.get("units"))
    if err:
        return False, err
    w = sim.world
    if kind == "stop":
        w.order[ids] = NONE
        w.target[ids] = -1
        w.build_target[ids] = -1
        w.dest_x[ids], w.dest_y[ids] = w.x[ids], w.y[ids]
        return True, None
    if (w.speed[ids] <= 0).any():
        return False, "not_mobile"
    xy, err = _point(sim, order)
    if err:
        return False, err
    x, y = xy
    if kind == "build":
        return _build(sim, team, ids, order, x, y)
    ground = ~w.is_air[ids]
    if ground.any() and not w.terrain.ground_ok[int(y), int(x)]:
        return False, "impassable"
    w.order[ids] = ORDER_NAMES[kind]
    w.dest_x[ids], w.dest_y[ids] = x, y
    w.build_target[ids] = -1
    if kind == "patrol":
        w.home_x[ids], w.home_y[ids] = w.x[ids], w.y[ids]
    if kind in ("move_force",):
        w.target[ids] = -1
    return True, None


def _own_units(sim: Simulation, team: int, units: Any) -> tuple[np.ndarray, str | None]:
    if isinstance(units, (int, np.integer)) and not isinstance(units, bool):
        units = [units]
    if not isinstance(units, (list, tuple)) or not units:
        return np.zeros(0, dtype=np.int64), "bad_order"
    w = sim.world
    none = np.zeros(0, dtype=np.int64)
    # whole-array checks (an order may name thousands of units); the first bad unit decides the code
    if not all(u.__class__ in _ID_TYPES or isinstance(u, np.integer) for u in units):
        return none, "unknown_unit"
    try:
        ids = np.array(units, dtype=np.float64)
    except OverflowError:      # an integer beyond any float
        return none, "unknown_unit"
    whole = (ids == np.floor(ids)) & (ids >= 0) & (ids < w.count)
    ids = np.where(whole, ids, 0).astype(np.int64)
    dead = ~whole | ~w.alive[ids]
    foreign = ~dead & (w.team[ids] != team)
    bad = dead | foreign
    if bad.any():
        first = int(bad.argmax())
        return none, "unknown_unit" if dead[first] else "not_owner"
    return np.unique(ids), None


_ID_TYPES = (int, float)


def _point(sim: Simulation, order: dict) -> tuple[tuple[float, float], str | None]:
    x, y = order.get("x"), order.get("y")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)):
        return (0.0, 0.0), "bad_order"
    if not sim.world.terrain.on_map(x, y):
        return (0.0, 0.0), "off_map"
    return (float(x), float(y)), None


def _check_buildable(sim: Simulation, team: int, builder_types: set[int], type_name: Any) -> tuple[int, str | None]:
    t = sim.world.types
    if not sim.production_enabled:
        return -1, "production_disabled"
    if not isinstance(type_name, str) or type_name not in t.index:
        return -1, "unknown_type"
    for bt in builder_types:
        if type_name not in t.builds[bt]:
            return -1, "tech_locked" if t.catalog.units[type_name].tier > 1 else "cannot_build"
    ti = t.index[type_name]
    metal_rate, energy_rate = sim.economy.income_rates(team)
    state = sim.teams[team]
    if (t.cost_metal[ti] > 0 and state.metal < 1 and metal_rate <= 0) or \
       (t.cost_energy[ti] > 0 and state.energy < 1 and energy_rate <= 0):
        return -1, "insufficient_resources"
    return ti, None


def _build(sim: Simulation, team: int, ids: np.ndarray, order: dict, x: float, y: float) -> Result:
    w = sim.world
    ti, err = _check_buildable(sim, team, {int(v) for v in w.type[ids]}, order.get("type"))
    if err:
        return False, err
    t = w.types
    if not t.is_building[ti]:
        return False, "cannot_build"
    # buildings sit on tile centres
    bx, by = math.floor(x) + 0.5, math.floor(y) + 0.5
    if t.needs_deposit[ti] and (int(bx), int(by)) not in w.terrain.deposits:
        return False, "needs_deposit"
    if not w.terrain.ground_ok[int(by), int(bx)]:
        return False, "impassable"
    if not site_free(w, bx, by, t.size[ti]):
        return False, "site_blocked"
    w.order[ids] = BUILD
    w.build_type[ids] = ti
    w.build_target[ids] = -1
    w.dest_x[ids], w.dest_y[ids] = bx, by
    return True, None


def _produce(sim: Simulation, team: int, order: dict) -> Result:
    factory = order.get("factory")
    if factory is None:
        units = order.get("units")
        factory = units[0] if isinstance(units, (list, tuple)) and len(units) == 1 else units
    ids, err = _own_units(sim, team, factory)
    if err:
        return False, err
    w = sim.world
    f = int(ids[0])
    if not w.types.builds[int(w.type[f])] or w.speed[f] > 0:
        return False, "cannot_build"
    if w.progress[f] < 1.0:
        return False, "cannot_build"
    count = order.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 50:
        return False, "bad_order"
    ti, err = _check_buildable(sim, team, {int(w.type[f])}, order.get("type"))
    if err:
        return False, err
    sim.production.enqueue(f, ti, count)
    return True, None


