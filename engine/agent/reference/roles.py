"""Unit roles of the reference policy: `roles` in its spec (the data model is `engine.schema.roles`).

A role owns the units it is given at the start: they leave the army squad and its strategy and get
their own orders. Roles react only to what the team sees now or saw before (the policy's memory).
"""
from __future__ import annotations

import math

import numpy as np

from engine.agent.observation import visible_enemy_ids
from engine.agent.policy import army_ids, centroid, drawn_area
from engine.schema.roles import RoleSpec
from engine.systems.cloak import hidden
from engine.world import NONE

RETREAT_MARGIN = 4.0     # tiles beyond an enemy's weapon range at which a role unit backs off
RETREAT_STEP = 10.0      # tiles a unit backs off per order
CALM_AFTER_RETREAT = 5.0  # seconds a unit that backed off stays put (no creeping back into range)
REORDER = 2.0            # a goal this far from the last one ordered is ordered again
LEAD = 5.0               # tiles escort guards walk ahead of the escorted unit
KITE_MARGIN = 1.75       # tiles beyond an enemy's weapon range a kiting unit keeps (a second of its closing in)
KITE_WAIT = 3.0          # tiles beyond its own range within which a kiting unit lets the enemy come
KITE_STEP = 5.0          # tiles a kiting unit backs off per order
KITE_ANGLE = 15          # degrees between the directions a kiting unit weighs
KITE_RING = 0.4          # share of the map's side: the circle round its centre a kiting unit backs off along
KITE_OUT_PENALTY = 3.0   # per tile beyond that circle, against tiles of distance from the enemy
ESCORT_SQUAD = "escort"


def can_hit(w, shooters: np.ndarray, unit: int, sim=None) -> np.ndarray:
    """Mask over `shooters`: armed, allowed to fire and able to hit `unit`'s kind (ground / air); with `sim`,
    when `unit` is cloaked, only those whose side detects it."""
    hits = w.hits_air[shooters] if w.is_air[unit] else w.hits_ground[shooters]
    able = w.armed[shooters] & hits & ~w.no_fire[shooters]
    if sim is not None and w.cloaked[unit] and able.any():
        one = np.array([unit], dtype=np.int64)
        sees = {t: not hidden(w, sim.teams[t].allies, one)[0] if t in sim.teams else True
                for t in set(w.team[shooters].tolist())}
        able &= np.array([sees[t] for t in w.team[shooters].tolist()], dtype=bool)
    return able


def threats(sim, unit: int, enemies: np.ndarray, margin: float = RETREAT_MARGIN) -> np.ndarray:
    """The visible `enemies` that could hit `unit` and stand within their weapon range + `margin` of it."""
    w = sim.world
    if not enemies.size:
        return enemies
    d = np.hypot(w.x[enemies] - w.x[unit], w.y[enemies] - w.y[unit])
    return enemies[can_hit(w, enemies, unit, sim) & (d <= w.w_range[enemies] + margin)]


class Role:
    """The docstring of each role is what the prompts tell a designer (`describe`), so it must say
    what the code does; {margin}, {calm} and {lead} stand for the constants of this module."""

    name = "base"

    @classmethod
    def describe(cls) -> dict[str, str]:
        doc = " ".join((cls.__doc__ or "").split())
        return {"name": cls.name, "behaviour": doc.format(margin=RETREAT_MARGIN, calm=CALM_AFTER_RETREAT, lead=LEAD,
                                                          kite=KITE_MARGIN, wait=KITE_WAIT, step=RETREAT_STEP)}

    def __init__(self, ref, spec: RoleSpec, units: list[int]):
        self.ref = ref
        self.spec = spec
        self.units = units
        self.goals: dict[int, tuple[float, float]] = {}
        self.calm_until: dict[int, float] = {}

    @property
    def margin(self) -> float:
        """Tiles beyond an enemy's weapon range at which this role's units back off."""
        return RETREAT_MARGIN if self.spec.margin is None else self.spec.margin

    def owned(self) -> list[int]:
        """The units this role keeps out of the army."""
        return self.units

    def alive(self, sim) -> list[int]:
        w = sim.world
        return [u for u in self.units if w.is_alive(u)]

    def decide(self, sim, enemies: np.ndarray) -> list[dict]:
        return []

    # --- orders ------------------------------------------------------------------------------------
    def move(self, sim, unit: int, goal: tuple[float, float]) -> list[dict]:
        """Move `unit` (shooting only what comes within range) unless it is already headed there."""
        w = sim.world
        goal = sim.free_spot(goal[0], goal[1], bool(w.is_air[unit]))
        last = self.goals.get(unit)
        if last is not None and math.dist(last, goal) < REORDER and w.order[unit] != NONE:
            return []
        if math.dist((float(w.x[unit]), float(w.y[unit])), goal) < 1.0:
            return []
        self.goals[unit] = goal
        return [{"action": "move_units", "units": [unit], "x": round(goal[0], 2), "y": round(goal[1], 2),
                 "mode": "move"}]

    def stop(self, sim, unit: int) -> list[dict]:
        if sim.world.order[unit] == NONE:
            return []
        self.goals.pop(unit, None)
        return [{"action": "stop_units", "units": [unit]}]

    def back_off(self, sim, unit: int, enemies: np.ndarray,
                 toward: tuple[float, float] | None = None) -> list[dict] | None:
        """Orders that take `unit` away from the threats it sees (None when it sees none): straight
        away from them, bent toward `toward` (default home) when that lies away from them too."""
        w = sim.world
        near = threats(sim, unit, enemies, self.margin)
        if not near.size:
            if sim.time < self.calm_until.get(unit, -1.0):
                return self.stop(sim, unit)
            return None
        px, py = float(w.x[unit]), float(w.y[unit])
        dx, dy = px - w.x[near], py - w.y[near]
        d = np.maximum(np.hypot(dx, dy), 0.1)
        ax, ay = float((dx / d / d).sum()), float((dy / d / d).sum())
        n = math.hypot(ax, ay) or 1.0
        ax, ay = ax / n, ay / n
        hx, hy = toward if toward is not None else self.ref.home
        hd = math.hypot(hx - px, hy - py)
        if hd > 1.0 and (hx - px) * ax + (hy - py) * ay > 0:
            ax, ay = ax + 0.5 * (hx - px) / hd, ay + 0.5 * (hy - py) / hd
            n = math.hypot(ax, ay)
            ax, ay = ax / n, ay / n
        self.calm_until[unit] = float(sim.time) + CALM_AFTER_RETREAT
        self.goals.pop(unit, None)     # always re-aim: the threat moves
        return self.move(sim, unit, (px + ax * RETREAT_STEP, py + ay * RETREAT_STEP))


class Scout(Role):
    """A scout looks at its `waypoints` in order, then at the parts of the map its team has not seen
    yet, nearest first (the map in cells as wide as its sight; a cell counts as seen once its centre
    was in its team's sight; one it cannot reach in time is given up). It moves without chasing
    anything, skips spots within weapon range + {margin:g} tiles of armed enemies seen there, and backs
    off from any visible enemy that could hit it once within that enemy's weapon range + {margin:g}
    tiles. Everything its team sees goes into the reference's memory of enemies (last seen spots),
    which the army acts on: it goes for a remembered target or enemy when none is in sight. With
    nothing left to look at, the scout returns home."""

    name = "scout"

    def __init__(self, ref, spec: RoleSpec, units: list[int], sim):
        super().__init__(ref, spec, units)
        w = sim.world
        sight = float(w.sight[units].min()) if units else 8.0
        self.cell = max(4, int(sight))
        W, H = w.terrain.width, w.terrain.height
        xs = np.arange(self.cell / 2, W, self.cell)
        ys = np.arange(self.cell / 2, H, self.cell)
        cx, cy = np.meshgrid(xs, ys)
        self.cx, self.cy = cx.ravel(), cy.ravel()
        self.seen = np.zeros(self.cx.size, dtype=bool)
        self.waypoints = list(spec.waypoints)
        self.target: dict[int, tuple[int, float]] = {}   # unit -> (cell index or -1 - waypoint, give-up time)

    def decide(self, sim, enemies: np.ndarray) -> list[dict]:
        self._look(sim)
        actions: list[dict] = []
        for u in self.alive(sim):
            away = self.back_off(sim, u, enemies)
            if away is not None:
                if away and u in self.target:
                    self._give_up(self.target.pop(u)[0])
                actions += away
                continue
            k = self._pick(sim, u)
            if k is None:
                actions += self.move(sim, u, self.ref.home)
                continue
            actions += self.move(sim, u, self._spot(k))
        return actions

    def _spot(self, k: int) -> tuple[float, float]:
        if k < 0:
            return self.waypoints[-1 - k]
        return float(self.cx[k]), float(self.cy[k])

    def _give_up(self, k: int) -> None:
        if k < 0:
            self.waypoints[-1 - k] = None
        else:
            self.seen[k] = True

    def _look(self, sim) -> None:
        """Mark the cells and waypoints whose centre the team sees now."""
        w = sim.world
        todo = (~self.seen).nonzero()[0]
        if todo.size:
            tx = np.minimum(self.cx[todo].astype(np.int64), w.terrain.width - 1)
            ty = np.minimum(self.cy[todo].astype(np.int64), w.terrain.height - 1)
            looked = sim.vision.sees_tiles(self.ref.team, tx, ty) if sim.fog else np.ones(todo.size, dtype=bool)
            self.seen[todo[looked]] = True
        for j, p in enumerate(self.waypoints):
            if p is None:
                continue
            tx = np.array([min(max(int(p[0]), 0), w.terrain.width - 1)], dtype=np.int64)
            ty = np.array([min(max(int(p[1]), 0), w.terrain.height - 1)], dtype=np.int64)
            if not sim.fog or sim.vision.sees_tiles(self.ref.team, tx, ty)[0]:
                self.waypoints[j] = None

    def _pick(self, sim, u: int) -> int | None:
        """The spot `u` heads for: its current one while unseen and in time, else the first
        waypoint left, else the nearest unseen safe cell not taken by another scout."""
        w = sim.world
        cur = self.target.get(u)
        if cur is not None:
            k, until = cur
            done = self.waypoints[-1 - k] is None if k < 0 else self.seen[k]
            if not done and sim.time < until:
                return k
            if not done:
                self._give_up(k)
            del self.target[u]
        px, py = float(w.x[u]), float(w.y[u])
        danger = self._danger(sim, u)
        choice = None
        for j, p in enumerate(self.waypoints):
            if p is not None:
                if self._unsafe(danger, np.array([p[0]]), np.array([p[1]]))[0]:
                    self.waypoints[j] = None
                    continue
                choice = -1 - j
                break
        if choice is None:
            taken = [k for v, (k, _) in self.target.items() if v != u]
            left = (~self.seen).nonzero()[0]
            left = left[~np.isin(left, taken)]
            unsafe = self._unsafe(danger, self.cx[left], self.cy[left])
            self.seen[left[unsafe]] = True     # an armed enemy stands there: the team knows what it needs
            safe = left[~unsafe]
            if not safe.size:
                return None
            # nearest first (argmin keeps the lowest index among equals)
            choice = int(safe[np.argmin(np.hypot(self.cx[safe] - px, self.cy[safe] - py))])
        gx, gy = self._spot(choice)
        speed = max(float(w.speed[u]), 0.1)
        self.target[u] = (choice, float(sim.time) + 1.5 * math.hypot(gx - px, gy - py) / speed + 15.0)
        return choice

    def _danger(self, sim, u: int) -> np.ndarray:
        """Rows (x, y, radius) around every remembered enemy that could hit `u`."""
        w = sim.world
        ids = self.ref.memory.ids()
        ids = ids[can_hit(w, ids, u, sim)] if ids.size else ids
        return np.array([(*self.ref.memory.where(int(i)), float(w.w_range[i]) + self.margin) for i in ids.tolist()],
                        dtype=float).reshape(-1, 3)

    @staticmethod
    def _unsafe(danger: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Mask over the points (x, y): inside some danger disc."""
        if not danger.size or not x.size:
            return np.zeros(x.size, dtype=bool)
        d = np.hypot(x[:, None] - danger[None, :, 0], y[:, None] - danger[None, :, 1])
        return (d < danger[None, :, 2]).any(axis=1)


class HoldBack(Role):
    """The unit stays at `at`, else `behind` tiles behind the army's centre on the side away from the
    nearest enemy the reference sees or remembers (toward home while it knows none; at home without
    an army). It is never sent into a fight: it moves without chasing anything and backs off from any
    visible enemy that could hit it once within that enemy's weapon range + {margin:g} tiles, then
    stays put for {calm:g} s."""

    name = "hold_back"

    def decide(self, sim, enemies: np.ndarray) -> list[dict]:
        actions: list[dict] = []
        for u in self.alive(sim):
            away = self.back_off(sim, u, enemies)
            if away is not None:
                actions += away
                continue
            actions += self.move(sim, u, self.spec.at or self._behind(sim))
        return actions

    def _behind(self, sim) -> tuple[float, float]:
        w = sim.world
        ref = self.ref
        army = ref.army(sim)
        if not army.size:
            return ref.home
        cx, cy = centroid(w, army)
        enemy = ref.known_enemy_near((cx, cy))
        if enemy is not None:
            dx, dy = cx - enemy[0], cy - enemy[1]
        else:
            dx, dy = ref.home[0] - cx, ref.home[1] - cy
        n = math.hypot(dx, dy)
        if n < 1e-6:
            return cx, cy
        step = self.spec.behind if enemy is not None else min(self.spec.behind, n)
        return cx + dx / n * step, cy + dy / n * step


class Escort(Role):
    """The escorted unit goes to `to` with its guards (`guards` army units, nearest first; default the
    whole army) as their own squad. The guards attack-move {lead:g} tiles ahead of it toward `to`,
    fighting what they meet, and go for any visible enemy within twice `radius` of it; the escorted
    unit moves only while half its guards are within `radius` of it and they are not fighting (with no
    guards it moves on its own), and backs off {step:g} tiles toward them (home without guards) from any
    visible enemy that could hit it (armed, allowed to fire, able to hit its kind, and, when it is cloaked,
    of a side that detects it) once within that enemy's weapon range + {margin:g} tiles, then stays put
    {calm:g} s. At `to` it stays and the guards stay around it. When the escorted units are dead the guards
    rejoin the army."""

    name = "escort"

    def __init__(self, ref, spec: RoleSpec, units: list[int], guards: list[int]):
        super().__init__(ref, spec, units)
        self.guards = guards
        self.squad_goal: tuple[float, float] | None = None

    def owned(self) -> list[int]:
        return self.units + self.guards if self.units else []

    def decide(self, sim, enemies: np.ndarray) -> list[dict]:
        w = sim.world
        vip = self.alive(sim)
        if not vip:
            self.units = []     # the guards go back to the army
            return []
        guards = np.array([g for g in self.guards if w.is_alive(g)], dtype=np.int64)
        actions: list[dict] = []
        if guards.size and ESCORT_SQUAD not in self.ref.iface.squads.squads:
            actions.append({"action": "assign_squad", "squad": ESCORT_SQUAD, "units": guards.tolist()})
        lead = vip[0]
        p = (float(w.x[lead]), float(w.y[lead]))
        to = self._destination(sim, p)
        radius = self.spec.radius
        squad = self.ref.iface.squads.squads.get(ESCORT_SQUAD)
        fighting = squad is not None and squad.state == "fighting"
        near = int(np.count_nonzero(np.hypot(w.x[guards] - p[0], w.y[guards] - p[1]) <= radius)) if guards.size else 0
        escorted = not guards.size or (2 * near >= guards.size and not fighting)
        for u in vip:
            toward = centroid(w, guards) if guards.size else None
            away = self.back_off(sim, u, enemies, toward)
            if away is not None:
                actions += away
            elif escorted and math.dist((float(w.x[u]), float(w.y[u])), to) > 1.0:
                actions += self.move(sim, u, to)
            else:
                actions += self.stop(sim, u)
        if guards.size:
            actions += self._guard(sim, p, enemies, to)
        return actions

    def _destination(self, sim, p: tuple[float, float]) -> tuple[float, float]:
        """`to`, or the newest rule area whose label holds `to_label` (where it is now); else stay at `p`."""
        drawn = drawn_area(sim, self.spec.to_label) if self.spec.to_label else None
        return drawn or (tuple(self.spec.to) if self.spec.to is not None else p)

    def _guard(self, sim, p: tuple[float, float], enemies: np.ndarray, to: tuple[float, float]) -> list[dict]:
        """Send the guards at the nearest visible enemy close to the escorted unit, else ahead of it."""
        w = sim.world
        goal = None
        if enemies.size:
            d = np.hypot(w.x[enemies] - p[0], w.y[enemies] - p[1])
            k = int(np.argmin(d))
            if d[k] <= 2 * self.spec.radius:
                goal = (float(w.x[enemies[k]]), float(w.y[enemies[k]]))
        if goal is None:
            dist = math.dist(p, to)
            step = min(LEAD, dist)
            goal = (p[0] + (to[0] - p[0]) / dist * step, p[1] + (to[1] - p[1]) / dist * step) if dist > 1e-6 else p
        squad = self.ref.iface.squads.squads.get(ESCORT_SQUAD)
        goal = sim.free_spot(goal[0], goal[1], False)
        if squad is not None and squad.state != "idle" and self.squad_goal is not None \
                and math.dist(self.squad_goal, goal) < REORDER:
            return []
        if squad is not None and squad.state == "idle":
            ids = np.array(squad.units, dtype=np.int64)
            if math.dist(centroid(w, ids), goal) < 1.0 + 0.5 * math.sqrt(ids.size):
                return []
        self.squad_goal = goal
        return [{"action": "squad_move", "squad": ESCORT_SQUAD, "x": round(goal[0], 2), "y": round(goal[1], 2)}]


class Kite(Role):
    """The units fight at their own weapon range against enemies that cannot reach as far, as one group:
    while a visible enemy that could hit one of them stands within that enemy's weapon range + {kite:g}
    tiles, all of them move the same step away (from their centre toward the point farthest from every
    such enemy, turning along a circle round the map's centre rather than into a corner), shooting
    whatever stays within their own range as they go; otherwise each stands, shooting, while the
    visible enemy nearest to it is within its own range + {wait:g} tiles, and walks toward it when
    farther. They never chase on attack-move, so a slower, shorter-ranged enemy is hit without
    hitting back."""

    name = "kite"

    def decide(self, sim, enemies: np.ndarray) -> list[dict]:
        w = sim.world
        seen = visible_enemy_ids(sim, self.ref.team)
        units = self.alive(sim)
        if not units:
            return []
        armed = seen[can_hit(w, seen, units[0], sim)] if seen.size else seen
        threatened = any(np.any(np.hypot(w.x[armed] - w.x[u], w.y[armed] - w.y[u])
                                <= w.w_range[armed] + w.size[u] + KITE_MARGIN) for u in units) if armed.size else False
        actions: list[dict] = []
        if threatened:
            cx, cy = centroid(w, np.array(units, dtype=np.int64))
            gx, gy = self._away(sim, (cx, cy), armed)
            for u in units:
                actions += self.move(sim, u, (float(w.x[u]) + gx - cx, float(w.y[u]) + gy - cy))
            return actions
        for u in units:
            if not seen.size:
                actions += self.stop(sim, u)
                continue
            px, py = float(w.x[u]), float(w.y[u])
            d = np.hypot(w.x[seen] - px, w.y[seen] - py)
            k = int(np.argmin(d))
            reach = float(w.w_range[u]) + float(w.size[seen[k]]) - 0.5
            if d[k] <= reach + KITE_WAIT:
                actions += self.stop(sim, u)
                continue
            ex, ey = float(w.x[seen[k]]), float(w.y[seen[k]])
            step = (d[k] - reach) / d[k]
            actions += self.move(sim, u, (px + (ex - px) * step, py + (ey - py) * step))
        return actions

    def _away(self, sim, p: tuple[float, float], near: np.ndarray) -> tuple[float, float]:
        """Of the points KITE_STEP from `p` (every KITE_ANGLE degrees), the one farthest from the nearest
        enemy of `near`, less a penalty for each tile beyond a circle round the map's centre (KITE_RING
        of its side): a group backing off straight ends in a corner and is caught there, one turned
        along the circle keeps backing off round it."""
        w = sim.world
        px, py = p
        W, H = w.terrain.width, w.terrain.height
        a = np.radians(np.arange(0, 360, KITE_ANGLE))
        x, y = px + KITE_STEP * np.cos(a), py + KITE_STEP * np.sin(a)
        far = np.hypot(x[:, None] - w.x[near][None, :], y[:, None] - w.y[near][None, :]).min(axis=1)
        out = np.maximum(0.0, np.hypot(x - W / 2, y - H / 2) - KITE_RING * min(W, H))
        k = int(np.argmax(far - KITE_OUT_PENALTY * out))
        return float(x[k]), float(y[k])

    def move(self, sim, unit: int, goal: tuple[float, float]) -> list[dict]:
        """Re-aimed every decision: the threats move."""
        self.goals.pop(unit, None)
        return super().move(sim, unit, goal)


ROLE_CLASSES = {c.name: c for c in (Scout, HoldBack, Escort, Kite)}


def build_roles(ref, sim, specs: list[RoleSpec]) -> list[Role]:
    """Give each role its units: matching own mobile units not taken by an earlier role, lowest ids
    first; then each escort its guards, the army units (no role's) nearest to the escorted unit."""
    w = sim.world
    taken: set[int] = set()
    chosen: list[list[int]] = []
    for k, spec in enumerate(specs):
        ids = w.select(team=ref.team, tag=spec.tag, type_name=spec.type)
        if not ids.size:
            # the level schema checks placed start units; one a rule spawns at the start is checked here
            raise ValueError(f"reference roles.{k}: no start unit of team {ref.team} has "
                             + " and ".join(f"{n} {v!r}" for n, v in (("tag", spec.tag), ("type", spec.type)) if v))
        units = sorted(int(i) for i in ids if int(i) not in taken and w.speed[i] > 0)[:spec.count]
        taken.update(units)
        chosen.append(units)
    roles: list[Role] = []
    for spec, units in zip(specs, chosen):
        if spec.role == "scout":
            roles.append(Scout(ref, spec, units, sim))
        elif spec.role == "hold_back":
            roles.append(HoldBack(ref, spec, units))
        elif spec.role == "kite":
            roles.append(Kite(ref, spec, units))
        else:
            army = [int(i) for i in army_ids(sim, ref.team) if int(i) not in taken]
            if units:
                x, y = float(w.x[units[0]]), float(w.y[units[0]])
                army.sort(key=lambda i: (math.hypot(w.x[i] - x, w.y[i] - y), i))
            guards = army[:spec.guards] if spec.guards else army
            taken.update(guards)
            roles.append(Escort(ref, spec, units, guards))
    return roles
