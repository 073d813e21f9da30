"""Baseline policies: idle, random (valid actions only, seeded) and reference (scripted, competent).

A policy is what `Simulation(level, policies={team: policy})` calls every `decision_interval`
game seconds as `policy.act(view)` (view.sim, view.team). Every policy here acts through the
agent interface (squads + action layer -> `sim.issue`), exactly like a benchmark agent, and
returns no extra orders. Policies are deterministic for a seed.

The reference policy plays one of five generic strategies, read from the level's
`metadata.reference` ({"strategy": ..., params}) or inferred from its conditions and rules:
  defend     keep the army home; send it to whichever protected unit / home enemies come near
  produce    extractors + solar, the factory chain (incl. T2) for a target composition, queue it
  attack     army (and reinforcements) attack-moves onto a target unit / point
  fight      wait until `engage_at`, then attack the nearest enemy group (with the allies)
  hold_zone  move to a zone and hold it, fighting on contact
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np

from engine.agent.interface import AgentInterface
from engine.agent.observation import visible_enemy_ids
from engine.snapshot import CATEGORIES
from engine.systems.construction import site_free
from engine.world import BUILD

COMMANDER = CATEGORIES.index("commander")
ARMY_SQUAD = "army"


class Policy:
    """Base: binds an AgentInterface to the simulation it is run in, then calls `decide`."""

    name = "base"

    def __init__(self, team: int = 0, seed: int = 0, decision_interval: float = 1.0):
        self.team = team
        self.seed = seed
        self.decision_interval = float(decision_interval)
        self.iface: AgentInterface | None = None
        self._sim = None

    def act(self, view) -> list:
        sim = view.sim
        if sim is not self._sim:            # a new run: forget everything about the old one
            self._sim = sim
            self.team = view.team
            self.iface = AgentInterface(view.team)
            self.reset(sim)
        self.iface.update(sim)
        actions = self.decide(sim)
        if actions:
            self.iface.act(sim, actions)
        return []

    def reset(self, sim) -> None:
        """Per-run initialisation (override)."""

    def decide(self, sim) -> list[dict]:
        return []


class IdlePolicy(Policy):
    """Gives no orders: units only shoot what comes into weapon range."""

    name = "idle"


# --- shared queries -------------------------------------------------------------------------------
def army_ids(sim, team: int) -> np.ndarray:
    """Finished, armed, mobile units except the commander."""
    w = sim.world
    idx = w.select(team=team)
    keep = w.armed[idx] & (w.speed[idx] > 0) & (w.progress[idx] >= 1.0) & (w.category[idx] != COMMANDER)
    return idx[keep]


def centroid(w, ids: np.ndarray) -> tuple[float, float]:
    return float(w.x[ids].mean()), float(w.y[ids].mean())


def can_stand(sim, x: float, y: float) -> bool:
    t = sim.world.terrain
    return t.on_map(x, y) and bool(t.passable[int(y), int(x)])


# --- random ----------------------------------------------------------------------------------------
class RandomPolicy(Policy):
    """Random but valid actions (seeded): moves, squad commands, production, extractors."""

    name = "random"

    def __init__(self, team: int = 0, seed: int = 0, decision_interval: float = 1.0, actions_per_decision: int = 2):
        super().__init__(team, seed, decision_interval)
        self.actions_per_decision = actions_per_decision

    def reset(self, sim) -> None:
        self.rng = np.random.default_rng(self.seed)

    def decide(self, sim) -> list[dict]:
        # one at a time: each action is drawn from the state the previous one left
        for _ in range(self.actions_per_decision):
            a = self._one(sim)
            if a is not None:
                self.iface.act(sim, [a])
        return []

    def _one(self, sim) -> dict | None:
        w = sim.world
        mine = w.select(team=self.team)
        mobile = mine[(w.speed[mine] > 0)]
        self.iface.squads.prune(sim)       # only squads that still have units are candidates
        kind = int(self.rng.integers(5))
        if kind == 0 and mobile.size:
            units = self.rng.choice(mobile, size=min(mobile.size, int(self.rng.integers(1, 4))), replace=False)
            pt = self._point(sim)
            return pt and {"action": "move_units", "units": sorted(int(u) for u in units), "x": pt[0], "y": pt[1],
                           "mode": ("move", "move_force", "fight")[int(self.rng.integers(3))]}
        if kind == 1 and mobile.size:
            units = self.rng.choice(mobile, size=min(mobile.size, int(self.rng.integers(1, 5))), replace=False)
            return {"action": "assign_squad", "squad": f"s{int(self.rng.integers(3))}", "units": sorted(int(u) for u in units)}
        if kind == 2 and self.iface.squads.squads:
            name = sorted(self.iface.squads.squads)[int(self.rng.integers(len(self.iface.squads.squads)))]
            if self.rng.random() < 0.2:
                return {"action": "squad_stop", "squad": name}
            pt = self._point(sim)
            return pt and {"action": ("squad_move", "squad_move_force")[int(self.rng.integers(2))], "squad": name,
                           "x": pt[0], "y": pt[1]}
        if kind == 3:
            return self._produce(sim, mine)
        if kind == 4:
            return self._extractor(sim, mine)
        return None

    def _point(self, sim) -> tuple[float, float] | None:
        t = sim.world.terrain
        for _ in range(20):
            x, y = int(self.rng.integers(t.width)), int(self.rng.integers(t.height))
            if t.ground_ok[y, x]:
                return x + 0.5, y + 0.5
        return None

    def _affordable(self, sim) -> bool:
        s = sim.teams[self.team]
        return s.metal >= 1 and s.energy >= 1

    def _produce(self, sim, mine: np.ndarray) -> dict | None:
        w = sim.world
        if not sim.production_enabled or not self._affordable(sim):
            return None
        factories = [int(i) for i in mine if w.speed[i] == 0 and w.types.builds[int(w.type[i])] and w.progress[i] >= 1]
        if not factories:
            return None
        f = factories[int(self.rng.integers(len(factories)))]
        options = sorted(o for o in w.types.builds[int(w.type[f])] if not w.types.is_building[w.types.index[o]])
        if not options:
            return None
        return {"action": "produce", "factory": f, "unit_type": options[int(self.rng.integers(len(options)))], "count": 1}

    def _extractor(self, sim, mine: np.ndarray) -> dict | None:
        w = sim.world
        if not sim.production_enabled or not self._affordable(sim):
            return None
        builders = [int(i) for i in mine if w.speed[i] > 0 and "metal_extractor" in w.types.builds[int(w.type[i])]]
        if not builders:
            return None
        size = w.types.size[w.types.index["metal_extractor"]]
        free = [(x, y) for (x, y) in sorted(w.terrain.deposits) if site_free(w, x + 0.5, y + 0.5, size)]
        if not free:
            return None
        b = builders[int(self.rng.integers(len(builders)))]
        x, y = free[int(self.rng.integers(len(free)))]
        return {"action": "build", "builders": [b], "unit_type": "metal_extractor", "x": x + 0.5, "y": y + 0.5}


# --- reference ---------------------------------------------------------------------------------------
STRATEGIES = ("defend", "produce", "attack", "fight", "hold_zone")


def strategy(**params: str):
    """Marks a ReferencePolicy method as the strategy of its name; `params` maps each
    strategy_param it reads to its meaning, so the description lives next to the code."""
    def mark(fn):
        fn.strategy_params = params
        return fn
    return mark


def describe_strategies() -> list[dict[str, Any]]:
    """Each reference strategy: name, behaviour (its method's docstring) and the params it reads."""
    out = []
    for name in STRATEGIES:
        fn = getattr(ReferencePolicy, "_" + name)
        out.append({"name": name, "behaviour": " ".join((fn.__doc__ or "").split()),
                    "params": dict(fn.strategy_params)})
    return out


def describe_reference() -> str:
    """What every strategy shares (the ReferencePolicy class docstring)."""
    return " ".join((ReferencePolicy.__doc__ or "").split())


def infer_strategy(config) -> dict:
    """A strategy for a level without `metadata.reference`, read off its conditions and rules."""
    ref = config.metadata.get("reference")
    if isinstance(ref, dict) and ref.get("strategy") in STRATEGIES:
        return dict(ref)
    for cond in config.conditions:
        if cond.kind == "produce_composition":
            return {"strategy": "produce", "target": dict(cond.units)}
    for rule in config.rules:
        p = rule.params
        if "units" in p and rule.id.startswith(("production", "produce")):
            return {"strategy": "produce", "target": dict(p["units"])}
    for cond in config.conditions:
        if cond.kind == "destroy_target":
            return {"strategy": "attack", "target_tag": cond.target.tag, "target_team": cond.target.team,
                    "target_type": cond.target.type}
        if cond.kind == "protect_target":
            return {"strategy": "defend", "protect_tag": cond.target.tag}
    for rule in config.rules:
        p = rule.params
        if "core_tag" in p or "static_fortification" in rule.id:
            return {"strategy": "attack", "target_tag": p.get("core_tag", "core")}
        if rule.id.startswith("protect") or "capture" in rule.id:
            if "zone" in p or "x" in p:
                return {"strategy": "hold_zone", "zone": p.get("zone") or [p.get("x"), p.get("y")]}
            return {"strategy": "defend", "protect_tag": p.get("tag", "objective")}
    if any(c.kind in ("last_survivor", "rank_by_score") for c in config.conditions):
        return {"strategy": "fight"}
    return {"strategy": "defend"}


def _xy(v: Any) -> tuple[float, float] | None:
    if isinstance(v, dict) and "x" in v:
        return float(v["x"]), float(v["y"])
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return float(v[0]), float(v[1])
    return None


class ReferencePolicy(Policy):
    """Scripted, competent play of one strategy (metadata.reference = {"strategy": name, plus that
    strategy's params as sibling keys}). It commands its army: every finished, armed, mobile unit
    of its team except the commander, including units a rule spawns for it later. Units without a
    weapon and the commander are never moved (builders, the commander included, get build orders
    only under `produce`; factories produce under `produce` and attack's `reinforce`). The army moves as one squad with attack-move
    (it fights enemies it meets on the way, then goes on). It only reacts to enemies it can see:
    under fog of war, enemies outside its units' sight do not exist for it. Allied teams' units are
    never ordered; protected units are only defended, never moved. `home` (param, default the
    centroid of its army at the start, else of all its units) is where it gathers.
    """

    name = "reference"

    def __init__(self, team: int = 0, seed: int = 0, decision_interval: float = 1.0, **params: Any):
        super().__init__(team, seed, decision_interval)
        self.params = params          # overrides / replaces metadata.reference

    def reset(self, sim) -> None:
        spec = infer_strategy(sim.level.config)
        if self.params.get("strategy") in STRATEGIES and self.params["strategy"] != spec.get("strategy"):
            spec = {}
        spec.update(self.params)
        self.spec = spec
        self.strategy = spec.get("strategy", "defend")
        w = sim.world
        army = army_ids(sim, self.team)
        mine = w.select(team=self.team)
        start = army if army.size else mine
        self.home = _xy(spec.get("home")) or (centroid(w, start) if start.size else (w.terrain.width / 2, w.terrain.height / 2))
        self.goal: tuple[float, float] | None = None
        self.plan_cache: dict[str, list[str]] = {}
        self.sites: set[tuple[int, int]] = set()

    def decide(self, sim) -> list[dict]:
        actions = self._enlist(sim)
        return actions + getattr(self, "_" + self.strategy)(sim)

    # --- army bookkeeping --------------------------------------------------------------------------
    def _enlist(self, sim) -> list[dict]:
        """New combat units join the army squad (squads keep their orders)."""
        squads = self.iface.squads
        army = army_ids(sim, self.team)
        have = set(squads.squads[ARMY_SQUAD].units) if ARMY_SQUAD in squads.squads else set()
        new = [int(i) for i in army if int(i) not in have]
        if not new:
            return []
        actions = [{"action": "assign_squad", "squad": ARMY_SQUAD, "units": new}]
        if self.goal is not None:
            actions.append({"action": "squad_move", "squad": ARMY_SQUAD, "x": self.goal[0], "y": self.goal[1]})
        return actions

    def _send(self, sim, goal: tuple[float, float], force: bool = False) -> list[dict]:
        """Send the army to `goal` unless it is already headed there."""
        sq = self.iface.squads.squads.get(ARMY_SQUAD)
        if sq is None:
            return []
        goal = self._standable(sim, goal)
        if self.goal is not None and math.dist(self.goal, goal) < 2.0 and sq.state != "idle":
            return []
        ids = np.array(sq.units, dtype=np.int64)
        w = sim.world
        if sq.state == "idle" and math.dist(centroid(w, ids), goal) < 2.0 + 0.5 * math.sqrt(ids.size):
            self.goal = goal
            return []
        self.goal = goal
        return [{"action": "squad_move_force" if force else "squad_move", "squad": ARMY_SQUAD,
                 "x": round(goal[0], 2), "y": round(goal[1], 2)}]

    def _standable(self, sim, p: tuple[float, float]) -> tuple[float, float]:
        if can_stand(sim, *p):
            return p
        return sim.free_spot(p[0], p[1], False)

    # --- defend ------------------------------------------------------------------------------------
    @strategy(home="[x, y] the army gathers at and defends",
              threat_radius="tiles (default 25): a visible enemy this close to home or a protected unit is engaged",
              protect_tag="tag of own units to protect (each is an objective like home)")
    def _defend(self, sim) -> list[dict]:
        """The army waits at home. When a visible enemy comes within threat_radius of home or of an
        own unit tagged protect_tag, it attack-moves to the enemy nearest to such an objective; it
        chases only while that enemy stays within threat_radius, then returns home."""
        w = sim.world
        radius = float(self.spec.get("threat_radius", 25.0))
        tag = self.spec.get("protect_tag")
        objectives = [self.home]
        if tag:
            ids = w.select(team=self.team, tag=tag)
            objectives += [(float(w.x[i]), float(w.y[i])) for i in ids]
        enemies = visible_enemy_ids(sim, self.team)
        # meet the enemy nearest to any objective where it stands: heading for the objective
        # itself would park the army behind it, on the wrong side of the fight
        best, best_d = None, radius
        for e in enemies.tolist():
            pos = (float(w.x[e]), float(w.y[e]))
            for obj in objectives:
                d = math.dist(pos, obj)
                if d < best_d:
                    best, best_d = pos, d
        if best is not None:
            return self._send(sim, best)
        return self._send(sim, self.home)

    # --- hold a zone -------------------------------------------------------------------------------
    @strategy(zone="[x, y] (or {x, y}) of the zone to take and hold; default: `target`, else home",
              target="fallback for zone")
    def _hold_zone(self, sim) -> list[dict]:
        """The army attack-moves to the zone point (chasing enemies it sees on the way) and, once
        there, stays: it gets no further orders, so it shoots only what comes within weapon range
        and never chases out of the zone. No param sets a radius: the army clumps around the point."""
        zone = _xy(self.spec.get("zone")) or _xy(self.spec.get("target")) or self.home
        return self._send(sim, zone)

    # --- attack ------------------------------------------------------------------------------------
    def _target_point(self, sim) -> tuple[float, float] | None:
        w = sim.world
        tag, ttype, tteam = self.spec.get("target_tag"), self.spec.get("target_type"), self.spec.get("target_team")
        if tag or ttype:
            ids = visible_enemy_ids(sim, self.team)
            ids = ids[np.isin(ids, w.select(team=tteam, tag=tag, type_name=ttype))]
            if ids.size:
                army = army_ids(sim, self.team)
                c = centroid(w, army) if army.size else self.home
                i = int(ids[np.argmin(np.hypot(w.x[ids] - c[0], w.y[ids] - c[1]))])
                return float(w.x[i]), float(w.y[i])
        # not in sight (fog): head for the point the briefing gives
        return _xy(self.spec.get("target"))

    @strategy(target_tag="tag of the enemy unit(s) to destroy", target_type="unit type to destroy",
              target_team="team owning the target (default: any hostile team)",
              target="[x, y] to attack-move to while no target unit is visible",
              engage_at="game second before which the army waits where it is (default 0)",
              reinforce="unit type or list of types its idle factories keep producing (round robin)")
    def _attack(self, sim) -> list[dict]:
        """The army attack-moves to the visible enemy unit matching target_tag/target_type/target_team
        nearest to the army's centroid; while none is visible (fog) it heads for `target`, else for
        the nearest visible enemy of any kind, else it stays. It never waits for or escorts own units:
        escorted or protected units are left behind unless they move themselves."""
        actions = self._reinforce(sim)
        if sim.time < float(self.spec.get("engage_at", 0.0)):
            return actions
        target = self._target_point(sim)
        if target is None:
            target = self._nearest_enemy(sim)
        if target is None:
            return actions
        return actions + self._send(sim, target)

    def _reinforce(self, sim) -> list[dict]:
        """Keep idle factories producing `reinforce` types (round robin) when resources allow."""
        kinds = self.spec.get("reinforce")
        if not kinds or not sim.production_enabled:
            return []
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        w = sim.world
        out = []
        for f in w.select(team=self.team).tolist():
            builds = w.types.builds[int(w.type[f])]
            if w.speed[f] > 0 or w.progress[f] < 1 or sim.production.queue_of(f):
                continue
            options = [k for k in kinds if k in builds]
            if options:
                out.append({"action": "produce", "factory": f, "unit_type": options[int(sim.time) % len(options)], "count": 1})
        return out

    # --- fight -------------------------------------------------------------------------------------
    def _nearest_enemy(self, sim) -> tuple[float, float] | None:
        """The visible enemy nearest to the army (and allies): the group to hit next."""
        w = sim.world
        enemies = visible_enemy_ids(sim, self.team)
        if not enemies.size:
            return None
        army = army_ids(sim, self.team)
        friends = army
        if self.spec.get("with_allies", True):
            idx = w.alive_idx
            allies = [t for t in sim.teams[self.team].allies if t != self.team]
            ally_army = idx[np.isin(w.team[idx], allies) & w.armed[idx] & (w.speed[idx] > 0)]
            if ally_army.size:
                friends = np.concatenate([army, ally_army])
        c = centroid(w, friends) if friends.size else self.home
        d = np.hypot(w.x[enemies] - c[0], w.y[enemies] - c[1])
        # prefer weakened units among the near ones: distance plus a bonus for missing hp
        score = d - 5.0 * (1.0 - w.hp[enemies] / w.max_hp[enemies])
        i = int(enemies[int(np.argmin(score))])
        return float(w.x[i]), float(w.y[i])

    @strategy(engage_at="game second before which the army waits at home (default 0)",
              with_allies="bool (default true): aim at the enemy nearest to own and allied armies together",
              home="[x, y] the army waits at")
    def _fight(self, sim) -> list[dict]:
        """Until engage_at the army waits at home; then it attack-moves to the visible enemy nearest to
        its army (preferring damaged ones), chasing anywhere; with no visible enemy it stays put."""
        if sim.time < float(self.spec.get("engage_at", 0.0)):
            return self._send(sim, self.home)
        target = self._nearest_enemy(sim)
        return self._send(sim, target) if target is not None else []

    # --- produce -----------------------------------------------------------------------------------
    @strategy(target="{unit type: count} composition to own (built through the tech tree)",
              defend_base="bool (default true): the army guards own buildings while producing",
              threat_radius="tiles (default 12): enemies this close to an own building are engaged",
              extractors="metal extractors to build (default 6)",
              expand_radius="tiles from home within which extractors may be built (default 30)")
    def _produce(self, sim) -> list[dict]:
        """Idle builders build solar collectors and extractors on the nearest free deposits; the
        shortest factory chain to each missing type of `target` is built near home and the units are
        queued. Needs production enabled, builders and resources; otherwise it only defends."""
        target: dict[str, int] = dict(self.spec.get("target") or {})
        actions: list[dict] = []
        if self.spec.get("defend_base", True):
            actions += self._defend_base(sim)
        if not sim.production_enabled or not target:
            return actions
        w = sim.world
        have = self._owned_counts(sim)
        missing = {k: n - have.get(k, 0) for k, n in sorted(target.items()) if have.get(k, 0) < n}
        queued = self._queued_counts(sim)
        builders = self._idle_builders(sim)
        for kind, n in missing.items():
            need = n - queued.get(kind, 0)
            chain = self._chain(sim, kind)
            if not chain:
                continue
            # walk the chain: the first step we do not own yet is what to obtain next
            for step_i, step in enumerate(chain):
                if step == kind:
                    factories = self._complete_of(sim, chain[step_i - 1]) if step_i else []
                    if need > 0 and factories:
                        f = min(factories, key=lambda i: len(sim.production.queue_of(i)))
                        actions.append({"action": "produce", "factory": f, "unit_type": kind, "count": need})
                    break
                if self._complete_of(sim, step):
                    continue
                if self._under_construction(sim, step) or queued.get(step, 0):
                    break
                actions += self._obtain(sim, step, chain[step_i - 1] if step_i else None, builders)
                break
        actions += self._economy(sim, builders)
        return actions

    def _owned_counts(self, sim) -> dict[str, int]:
        w = sim.world
        out: dict[str, int] = {}
        for i in w.select(team=self.team).tolist():
            if w.progress[i] >= 1:
                out[w.type_name(i)] = out.get(w.type_name(i), 0) + 1
        return out

    def _queued_counts(self, sim) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in sim.world.select(team=self.team).tolist():
            for k in sim.production.queue_of(f):
                out[k] = out.get(k, 0) + 1
        return out

    def _complete_of(self, sim, kind: str) -> list[int]:
        w = sim.world
        return [int(i) for i in w.select(team=self.team, type_name=kind) if w.progress[i] >= 1]

    def _under_construction(self, sim, kind: str) -> bool:
        w = sim.world
        ids = w.select(team=self.team, type_name=kind)
        if (w.progress[ids] < 1).any():
            return True
        ti = w.types.index[kind]
        mine = w.select(team=self.team)
        return bool((w.build_type[mine][w.order[mine] == BUILD] == ti).any())

    def _chain(self, sim, kind: str) -> list[str]:
        """Shortest list of types from one we own to `kind`, following `builds` (tech tree)."""
        if kind in self.plan_cache:
            return self.plan_cache[kind]
        cat = sim.world.types.catalog.units
        owned = sorted({sim.world.type_name(i) for i in sim.world.select(team=self.team).tolist()})
        prev: dict[str, str | None] = {k: None for k in owned}
        queue = deque(owned)
        while queue:
            cur = queue.popleft()
            if cur == kind:
                break
            for nxt in cat[cur].builds:
                if nxt not in prev:
                    prev[nxt] = cur
                    queue.append(nxt)
        chain: list[str] = []
        if kind in prev:
            k: str | None = kind
            while k is not None:
                chain.append(k)
                k = prev[k]
            chain.reverse()
        self.plan_cache[kind] = chain
        return chain

    def _idle_builders(self, sim) -> list[int]:
        """Own mobile builders not currently building (the commander included)."""
        w = sim.world
        out = []
        for i in w.select(team=self.team).tolist():
            if w.speed[i] > 0 and w.types.builds[int(w.type[i])] and w.progress[i] >= 1 and w.order[i] != BUILD:
                out.append(i)
        return out

    def _obtain(self, sim, kind: str, maker: str | None, builders: list[int]) -> list[dict]:
        """One order towards owning `kind`: build it (a building) or produce it (a unit)."""
        w = sim.world
        if maker is None:
            return []
        if w.types.is_building[w.types.index[kind]]:
            able = [b for b in builders if kind in w.types.builds[int(w.type[b])]]
            if not able:
                return []
            b = able[0]
            site = self._site(sim, kind, b)
            if site is None:
                return []
            builders.remove(b)
            return [{"action": "build", "builders": [b], "unit_type": kind, "x": site[0], "y": site[1]}]
        factories = self._complete_of(sim, maker)
        if not factories:
            return []
        return [{"action": "produce", "factory": factories[0], "unit_type": kind, "count": 1}]

    def _site(self, sim, kind: str, builder: int) -> tuple[float, float] | None:
        """A free tile centre near home on a 4-tile grid (lanes stay open between buildings)."""
        w = sim.world
        size = float(w.types.size[w.types.index[kind]])
        hx, hy = int(self.home[0]), int(self.home[1])
        step = 4 if size < 1.5 else 6
        best = None
        for r in range(1, 12):
            for dx in range(-r, r + 1):
                for dy in range(-r, r + 1):
                    if max(abs(dx), abs(dy)) != r:
                        continue
                    x, y = hx + dx * step + 0.5, hy + dy * step + 0.5
                    key = (int(x), int(y))
                    if key in self.sites or not w.terrain.on_map(x, y):
                        continue
                    if site_free(w, x, y, size + 1.0):
                        d = math.hypot(x - w.x[builder], y - w.y[builder])
                        if best is None or d < best[0]:
                            best = (d, x, y)
            if best is not None:
                self.sites.add((int(best[1]), int(best[2])))
                return best[1], best[2]
        return None

    def _economy(self, sim, builders: list[int]) -> list[dict]:
        """Idle builders raise extractors on the nearest free deposits, and solar for energy."""
        w = sim.world
        out = []
        metal_rate, energy_rate = sim.economy.income_rates(self.team)
        state = sim.teams[self.team]
        max_extractors = int(self.spec.get("extractors", 6))
        n_extr = len(w.select(team=self.team, type_name="metal_extractor"))
        for b in list(builders):
            options = w.types.builds[int(w.type[b])]
            want_energy = energy_rate < 9.0 * metal_rate or state.energy < 300
            if want_energy and "solar_collector" in options and state.metal >= 100:
                site = self._site(sim, "solar_collector", b)
                if site:
                    out.append({"action": "build", "builders": [b], "unit_type": "solar_collector", "x": site[0], "y": site[1]})
                    builders.remove(b)
                    continue
            if n_extr < max_extractors and "metal_extractor" in options:
                dep = self._free_deposit(sim, b)
                if dep:
                    out.append({"action": "build", "builders": [b], "unit_type": "metal_extractor", "x": dep[0], "y": dep[1]})
                    builders.remove(b)
                    n_extr += 1
        return out

    def _free_deposit(self, sim, builder: int) -> tuple[float, float] | None:
        w = sim.world
        size = float(w.types.size[w.types.index["metal_extractor"]])
        cands = [(x + 0.5, y + 0.5) for (x, y) in sorted(w.terrain.deposits)
                 if (x, y) not in self.sites and site_free(w, x + 0.5, y + 0.5, size)]
        if not cands:
            return None
        bx, by = float(w.x[builder]), float(w.y[builder])
        x, y = min(cands, key=lambda p: (math.hypot(p[0] - bx, p[1] - by), p))
        if math.hypot(x - self.home[0], y - self.home[1]) > float(self.spec.get("expand_radius", 30)):
            return None
        self.sites.add((int(x), int(y)))
        return x, y

    def _defend_base(self, sim) -> list[dict]:
        """The army guards the base: it meets enemies that come near any own building."""
        w = sim.world
        enemies = visible_enemy_ids(sim, self.team)
        mine = w.select(team=self.team)
        bases = mine[w.speed[mine] == 0]
        radius = float(self.spec.get("threat_radius", 12.0))
        for e in enemies.tolist():
            if bases.size and np.hypot(w.x[bases] - w.x[e], w.y[bases] - w.y[e]).min() < radius:
                return self._send(sim, (float(w.x[e]), float(w.y[e])))
        return self._send(sim, self.home)


POLICIES: dict[str, type[Policy]] = {"idle": IdlePolicy, "random": RandomPolicy, "reference": ReferencePolicy}


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh policy by name; params: team, seed, decision_interval, and per-policy options
    (random: actions_per_decision; reference: strategy and its params, overriding metadata)."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}")
    return POLICIES[name](**params)
