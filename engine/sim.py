"""The simulation: world state, systems on tiered update rates, controllers, rules, conditions.

Per tick (30 Hz): fire weapons, move units. Every 2 ticks: push crowded units apart (on two
grids, one after the other). Every 5 ticks: fog, target acquisition, area triggers, conditions. Every 6 ticks: construction / production progress. Every 30 ticks: income, AI.
Agent policies act every `decision_interval` game seconds through `issue`, the validated order API.
Determinism: everything iterates in id order and random numbers come from Generators seeded by
`seed`, so the same (level, seed, orders) gives the same trace hash.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from pydantic import TypeAdapter, ValidationError

from engine.ai import make_behaviour
from engine.areas import AreaShapes
from engine.conditions import Conditions, Verdict
from engine.errors import RuleScriptError
from engine.heap import keep_temporaries_on_heap
from engine.jitter import jittered_placements
from engine.seeding import SeededStreams, policy_uses_seed
from engine.level import Level
from engine.palette import ENVIRONMENT_COLOR, assign_team_colors
from engine.result import RunResult
from engine.rules.api import RuleRuntime
from engine.schema.level import Controller
from engine.snapshot import ENVIRONMENT, Marker, Snapshot
from engine.systems.cloak import hidden
from engine.systems.combat import Combat
from engine.systems.construction import Construction
from engine.systems.economy import Economy
from engine.systems.movement import Movement
from engine.systems.orders import apply_order
from engine.systems.pathfinding import FlowFieldCache
from engine.systems.production import Production
from engine.systems.vision import Vision
from engine.trace import Trace
from engine.world import SIDES, Terrain, TeamState, TypeTable, World

TICK_HZ = 30
DT = 1.0 / TICK_HZ
_CONTROLLER = TypeAdapter(Controller)


class TeamView:
    """What a policy is handed each decision: its team, the clock and read access to the sim."""

    def __init__(self, sim: Simulation, team: int):
        self.sim = sim
        self.team = team

    @property
    def time(self) -> float:
        return self.sim.time

    def my_units(self) -> list[dict]:
        w = self.sim.world
        return w.unit_dicts(w.select(team=self.team))

    def visible_enemies(self) -> list[dict]:
        w = self.sim.world
        ids = self.sim.visible_units(self.team)
        return w.unit_dicts(ids[self.sim.hostile[self.team, w.team[ids]]])

    def resources(self) -> dict[str, float]:
        s = self.sim.teams[self.team]
        return {"metal": s.metal, "energy": s.energy}


class Simulation:
    def __init__(self, level: Level, seed: int = 0, policies: Mapping[int, Any] | None = None):
        keep_temporaries_on_heap()
        self.level = level
        self.config = cfg = level.config
        self.seed = int(seed)
        self.streams = SeededStreams(self.seed)
        self.tick = 0
        self.done = False
        self.result: RunResult | None = None
        self.trace = Trace()
        self.markers: list[Marker] = []
        self.messages: list[dict] = []
        self.production_enabled = cfg.switches.production
        self.fog = cfg.switches.fog_of_war
        self.time_limit = cfg.switches.time_limit

        self.teams: dict[int, TeamState] = {}
        allies = {t.id: {t.id, *t.allies} for t in cfg.teams}
        for t in cfg.teams:                       # alliances are symmetric
            for a in t.allies:
                allies[a].add(t.id)
        for t, color in zip(cfg.teams, assign_team_colors(t.color for t in cfg.teams)):
            self.teams[t.id] = TeamState(t.id, t.name, color, frozenset(allies[t.id]),
                                         metal=t.resources.metal, energy=t.resources.energy)
        # neutral sides are nobody's enemy and play no part in how the game ends (see Team.neutral)
        self.neutral = frozenset(t.id for t in cfg.teams if t.neutral)
        self.hostile = np.zeros((SIDES, SIDES), dtype=bool)
        for a in self.teams:
            for b in self.teams:
                self.hostile[a, b] = b not in self.teams[a].allies and not {a, b} & self.neutral
            self.hostile[a, ENVIRONMENT] = self.hostile[ENVIRONMENT, a] = True
        self.eliminated: set[int] = set()
        self.rule_fed: set[int] = set()     # sides a rule spawned units for: their rules decide when they are out
        self.areas = AreaShapes()

        self.world = World(TypeTable(level.catalog), Terrain(level.map))
        self.paths = FlowFieldCache()
        self.movement = Movement(self.world, self.paths)
        self.combat = Combat(self.world, self.hostile, {t: s.allies for t, s in self.teams.items()})
        self.vision = Vision(self.world, sorted(self.teams), {t: s.allies for t, s in self.teams.items()})
        self.economy = Economy(self.world, self.teams)
        self.construction = Construction(self.world, self.spawn)
        self.production = Production(self.world, self.spawn, self.free_spot)
        rule_driven = frozenset(t.id for t in cfg.teams if t.controller.type != "agent") if cfg.rules else frozenset()
        self.conditions = Conditions(cfg.conditions, self.world, self.competitors, self.rule_fed, rule_driven)
        self.behaviours = {t.id: make_behaviour(t.controller, t.id) for t in cfg.teams}
        self.policies = dict(policies or {})
        for team in self.policies:           # a policy replaces the team's built-in AI
            self.behaviours[team] = None
        self._next_decision = {team: 0.0 for team in self.policies}
        self._dmg_dealt = np.zeros(SIDES)
        self._dmg_received = np.zeros(SIDES)
        self._created: list[int] = []
        self._rule_dead: list[dict] = []      # units rules killed, for on_unit_destroyed once the rule returns
        self.rules = RuleRuntime(self)
        self._started = False

        for p in jittered_placements(level, self.streams, self.world.terrain):
            i = self.spawn(p.type, p.team, p.x, p.y, source="start", tag=p.tag)
            self.world.hp[i] = self.world.max_hp[i] * p.health
        self._update_fog()
        try:
            self.rules.load()
            self._started = True
            self.rules.start()
            self._dispatch_rule_events()
            self._dispatch_rule_deaths()
        except RuleScriptError as err:
            self._fail(err)

    # --- public API -------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        return self.tick * DT

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            if self.done:
                return
            try:
                self._tick()
            except RuleScriptError as err:
                self._fail(err)

    def run(self, until: float | None = None) -> RunResult:
        """Run until the game ends, or until `until` game seconds (then ended_by="until")."""
        while not self.done:
            if until is not None and self.time >= until - 1e-9:
                self._finish([], [], f"stopped at {until:g} s", "until")
                break
            self.step()
        return self.result

    def issue(self, team: int, order: dict) -> tuple[bool, str | None]:
        """Validate and apply an order for `team` (the agent API). Every call is traced."""
        ok, code = self.command(team, order)
        fields = {k: order.get(k) for k in ("kind", "units", "x", "y", "type", "factory", "count")
                  if isinstance(order, dict) and order.get(k) is not None}
        self.trace.add(self.time, "order", team=team, ok=ok, error=code, **fields)
        return ok, code

    def command(self, team: int, order: dict) -> tuple[bool, str | None]:
        """Validate and apply an order without tracing it (AI behaviours and rules)."""
        if team not in self.teams and team != ENVIRONMENT:
            return False, "not_owner"
        return apply_order(self, team, order)

    def sees(self, team: int, ids: np.ndarray) -> np.ndarray:
        """Mask over living `ids`: which `team` can see: under fog those on tiles it sees, all otherwise, less
        the cloaked units it has not detected."""
        mask = self.vision.sees(team, ids) if self.fog else np.ones(ids.size, dtype=bool)
        if self.world.cloak_used and team in self.teams:
            mask &= ~hidden(self.world, self.teams[team].allies, ids)
        return mask

    def visible_units(self, team: int) -> np.ndarray:
        """Ids of living units `team` can see (`sees`)."""
        idx = self.world.alive_idx
        return idx[self.sees(team, idx)]

    def snapshot(self) -> Snapshot:
        w = self.world
        idx = w.alive_idx
        return Snapshot(
            time=self.time, terrain=w.terrain.codes.copy(), deposits=w.terrain.deposit_xy.copy(),
            ids=idx.copy(), x=w.x[idx].copy(), y=w.y[idx].copy(), team=w.team[idx].copy(),
            category=w.category[idx].copy(), hp_frac=np.clip(w.hp[idx] / w.max_hp[idx], 0, 1),
            size=w.size[idx].copy(), under_construction=w.progress[idx] < 1.0,
            team_colors=self.team_colors(), markers=tuple(self.markers), shapes=self.areas.shapes(),
            visible={t: g.copy() for t, g in self.vision.grids.items()} if self.fog else {},
            hidden={t: hidden(w, s.allies, idx) for t, s in self.teams.items()} if w.cloak_used else {},
            title=self.config.name,
        )

    def team_colors(self) -> dict[int, str]:
        """Each side's colour, and the environment's once it has units."""
        colors = {t: s.color for t, s in self.teams.items()}
        if ENVIRONMENT in self.rule_fed:
            colors[ENVIRONMENT] = ENVIRONMENT_COLOR
        return colors

    # --- services for systems, AI and rules -------------------------------------------------------
    def spawn(self, type_name: str, team: int, x: float, y: float, *, source: str, tag: str | None = None,
              complete: bool = True) -> int:
        i = self.world.spawn(type_name, team, x, y, tag=tag, complete=complete)
        self.trace.add(self.time, "spawn", id=i, type=type_name, team=team, x=x, y=y, source=source)
        if source == "rule":
            self.rule_fed.add(team)
        if self._started:
            self._created.append(i)
        return i

    def free_spot(self, x: float, y: float, air: bool, avoid: tuple[tuple[float, float], ...] = (),
                  gap: float = 0.0) -> tuple[float, float]:
        """(x, y) clamped to the map, moved (when blocked) to the nearest tile a unit may stand on; with
        `avoid`, a spot at least `gap` from each of those (units of one spawn on blocked ground would otherwise
        all land on the same nearest tile, and a ring of them clamped at the map's edge on each other)."""
        t = self.world.terrain
        x = min(max(x, 0.01), t.width - 0.01)
        y = min(max(y, 0.01), t.height - 0.01)

        def clear(px, py):
            return all((px - ax) ** 2 + (py - ay) ** 2 >= gap * gap for ax, ay in avoid)

        if (air or t.passable[int(y), int(x)]) and clear(x, y):
            return x, y
        cx, cy = int(x), int(y)
        for r in range(1, max(t.width, t.height)):
            ys, xs = np.mgrid[cy - r:cy + r + 1, cx - r:cx + r + 1]
            ring = (np.maximum(np.abs(ys - cy), np.abs(xs - cx)) == r) & (xs >= 0) & (ys >= 0) & (xs < t.width) & (ys < t.height)
            ys, xs = ys[ring], xs[ring]
            ok = np.ones(len(xs), dtype=bool) if air else t.passable[ys, xs]
            if avoid:
                ok &= np.array([clear(px + 0.5, py + 0.5) for px, py in zip(xs, ys)], dtype=bool)
            if ok.any():
                d = (xs[ok] + 0.5 - x) ** 2 + (ys[ok] + 0.5 - y) ** 2
                j = int(np.argmin(d))
                return float(xs[ok][j] + 0.5), float(ys[ok][j] + 0.5)
        return x, y

    def set_controller(self, team: int, spec: Any) -> None:
        try:
            ctrl = _CONTROLLER.validate_python(spec)
        except ValidationError as err:
            raise ValueError(f"invalid controller: {err.errors()[0]['msg']}") from None
        if getattr(ctrl, "behaviour", None) == "skirmish" and ctrl.factory not in self.world.types.index:
            raise ValueError(f"unknown factory type {ctrl.factory!r}")
        self.behaviours[team] = make_behaviour(ctrl, team)

    def message(self, text: str, team: int | None, source: str) -> None:
        self.messages.append({"t": self.time, "text": text, "team": team})
        self.trace.add(self.time, "message", text=text, team=team, rule=source)

    def add_marker(self, x: float, y: float, label: str, color: str) -> None:
        self.markers.append(Marker(x, y, label, color))

    def kill_by_rule(self, ids: list[int], rule: str) -> None:
        """Units a rule's damage brought to 0 hp die now (trace, statistics, the world); the rules
        hear of it (on_unit_destroyed) once the calling rule has returned."""
        for i in ids:
            info = self._die(i, rule)
            if info is not None:
                self._rule_dead.append(info)

    def rule_verdict(self, kind: str, team: int, reason: str) -> None:
        if not self.done:
            self._apply([Verdict(kind, team, reason)], "rule")

    # --- the tick ---------------------------------------------------------------------------------
    def _tick(self) -> None:
        self.tick += 1
        tick = self.tick
        if tick % 5 == 1:
            self._update_fog()
            self.combat.retarget(self.vision if self.fog else None)
        dead = self.combat.fire(DT, self._dmg_dealt, self._dmg_received)
        self.movement.step(DT, self.combat.chasing, self.combat.engaged, separate=tick % 2 == 0)
        if tick % 6 == 0:
            jobs = self.construction.jobs()
            if self.production_enabled:
                jobs += self.production.jobs()
            if jobs:
                gained = self.economy.fund(jobs, 6 * DT)
                self.construction.apply(gained)
                self.production.apply(gained)
        if tick % TICK_HZ == 0:
            self.economy.income(1.0)
        if dead.size:
            self._deaths(dead)
            self._dispatch_rule_deaths()
        now = self.time
        if tick % TICK_HZ == 0:
            for team in sorted(self.behaviours):
                b = self.behaviours[team]
                if b is not None and team not in self.eliminated:
                    b.update(self)
        for team in sorted(self.policies):
            if now + 1e-9 >= self._next_decision[team]:
                policy = self.policies[team]
                # a policy may ask to be called more often than it decides (its squads' FSM runs between decisions)
                every = getattr(policy, "call_interval", None) or getattr(policy, "decision_interval", 1.0)
                self._next_decision[team] = now + float(every or 1.0)
                for order in policy.act(TeamView(self, team)) or []:
                    self.issue(team, order)
        self._dispatch_rule_events()
        self.rules.run_timers(now)
        self._dispatch_rule_deaths()
        if tick % 5 == 0 and not self.done:
            self.rules.check_areas()
            self._dispatch_rule_deaths()
            self._sync_damage_stats()
            self._apply(self.conditions.evaluate(now), "condition")
        if not self.done and now >= self.time_limit - 1e-9:
            self._sync_damage_stats()
            self._apply(self.conditions.evaluate(now, at_time_limit=True), "time_limit")
            if not self.done:
                self._finish([], [], f"time limit of {self.time_limit:g} s reached", "time_limit")

    def _update_fog(self) -> None:
        if self.fog:
            self.vision.update()

    def _deaths(self, dead: np.ndarray) -> None:
        for i in np.sort(dead).tolist():
            info = self._die(i)
            if info is not None and self.rules.wants_destroyed:
                self.rules.unit_destroyed(info)

    def _die(self, i: int, rule: str | None = None) -> dict | None:
        """The death of unit i (by combat, or by `rule`'s damage); its table at death, None if already dead."""
        w = self.world
        if not w.alive[i]:      # a rule's damage got it first
            return None
        team = int(w.team[i])
        killer = -1 if rule is not None else int(w.last_hit_team[i])
        info = {**w.unit_dict(i), "killer_team": killer if killer >= 0 else None}
        extra = {} if rule is None else {"rule": rule}
        self.trace.add(self.time, "death", id=i, type=info["type"], team=team, x=info["x"], y=info["y"],
                       killer_team=killer if killer >= 0 else None, **extra)
        if team in self.teams:
            self.teams[team].stats["units_lost"] += 1
        if killer in self.teams and killer != team:
            self.teams[killer].stats["units_killed"] += 1
        w.kill(i)
        self.production.queues.pop(i, None)
        return info

    def _dispatch_rule_deaths(self) -> None:
        while self._rule_dead and not self.done:
            batch, self._rule_dead = self._rule_dead, []
            if self.rules.wants_destroyed:
                for info in batch:
                    self.rules.unit_destroyed(info)
        self._rule_dead.clear()

    def _dispatch_rule_events(self) -> None:
        while self._created and not self.done:
            batch, self._created = self._created, []
            if self.rules.wants_created:
                for i in batch:
                    if self.world.alive[i]:
                        self.rules.unit_created(self.world.unit_dict(i))
        self._created.clear()

    # --- ending -----------------------------------------------------------------------------------
    @property
    def competitors(self) -> dict[int, TeamState]:
        """The sides that can win or lose: every team but the neutral ones."""
        return {t: s for t, s in self.teams.items() if t not in self.neutral}

    def _alliance(self, team: int) -> list[int]:
        return sorted(self.teams[team].allies)

    def _apply(self, verdicts: list[Verdict], by: str) -> None:
        """Verdicts end the game or put sides out. A side that is out has lost for good: it never
        wins (not even with its alliance) and is among the losers of every ending."""
        for v in verdicts:
            if self.done:
                return
            if v.kind == "win":
                winners = [t for t in self._alliance(v.team) if t not in self.eliminated]
                if winners:     # a side that is out cannot win: the others play on
                    self._finish(winners, [t for t in sorted(self.competitors) if t not in winners], v.reason, by)
            elif v.kind == "rank":
                first = [t for t, r in v.ranks.items() if r == 1]
                winners = sorted({a for t in first for a in self._alliance(t)})
                self._finish(winners, [t for t in sorted(self.competitors) if t not in winners], v.reason, by,
                             ranks=v.ranks)
            elif v.kind == "draw":
                self._finish([], sorted(self.competitors), v.reason, by)
            elif v.kind in ("lose", "out"):
                out = (set(self._alliance(v.team)) if v.kind == "lose" else {v.team}) - self.eliminated
                if not out:
                    continue
                self.eliminated |= out
                for t in sorted(out):
                    self.trace.add(self.time, "lose", team=t, reason=v.reason)
                left = {self.teams[t].allies for t in self.competitors if t not in self.eliminated}
                if len(left) <= 1:
                    winners = sorted(t for t in next(iter(left)) if t not in self.eliminated) if left else []
                    self._finish(winners, sorted(self.eliminated), v.reason, by)

    def _sync_damage_stats(self) -> None:
        for t, s in self.teams.items():
            s.stats["damage_dealt"] = float(self._dmg_dealt[t])
            s.stats["damage_received"] = float(self._dmg_received[t])

    def _fail(self, err: RuleScriptError) -> None:
        msg = f"{err.script}:{err.line}: {err.message}" if err.line is not None else f"{err.script}: {err.message}"
        self._finish([], [], f"rule script error in {err.script}", "error", error=msg)

    def _finish(self, winners: list[int], losers: list[int], reason: str, ended_by: str, *,
                error: str | None = None, ranks: dict[int, int] | None = None) -> None:
        """The end. Sides already out are losers of every ending but an error (their lose event was
        traced when they went out)."""
        if self.done:
            return
        self.done = True
        now = self.time
        if ended_by != "error":
            losers = sorted((set(losers) | self.eliminated) - set(winners))
        for t in winners:
            self.trace.add(now, "win", team=t, reason=reason)
        for t in losers:
            if t not in self.eliminated:
                self.trace.add(now, "lose", team=t, reason=reason)
        self.trace.add(now, "end", ended_by=ended_by, reason=reason, winners=winners, losers=losers, error=error)
        self._sync_damage_stats()
        team_stats = {}
        for t, s in sorted(self.teams.items()):
            stats = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in s.stats.items()}
            stats["objectives"] = self.conditions.objectives(t, winners)
            team_stats[t] = stats
        self.result = RunResult(
            winners=list(winners), losers=list(losers), reason=reason, duration=round(now, 4), ended_by=ended_by,
            error=error, ranks=ranks, team_stats=team_stats, trace=self.trace.events, trace_hash=self.trace.hash(),
            seed=self.seed, seed_independent=not self.streams.drawn() and not any(map(policy_uses_seed, self.policies.values())),
        )


def run_level(level: Level, seed: int = 0, policies: Mapping[int, Any] | None = None) -> RunResult:
    """Convenience: a full headless run."""
    return Simulation(level, seed=seed, policies=policies).run()

