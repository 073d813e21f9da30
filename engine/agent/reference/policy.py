"""The reference policy: scripted, competent play of a level's strategy, one strategy per module.

The strategy comes from the level's `metadata.reference` ({"strategy": ..., params}) or is inferred
from its conditions and rules (`infer.py`):
  defend     keep the army home; send it to whichever protected unit / home enemies come near
  produce    extractors + solar, the factory chain (incl. T2) for a target composition, queue it
  attack     army (and reinforcements) attack-moves onto a target unit / point
  fight      wait until `engage_at`, then attack the nearest enemy group (with the allies)
  hold_zone  move to a zone and hold it, fighting on contact
The policy owns what the strategies share: the army squad, sending it, reinforcements, the
choice of the enemy group to hit next, the memory of enemies seen (`memory.py`) and the unit roles
(`roles.py`: scout, hold_back, escort), whose units leave the army.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.agent.observation import visible_enemy_ids
from engine.agent.policy import Policy, army_ids, can_stand, centroid
from engine.agent.reference.attack import Attack
from engine.agent.reference.defend import Defend
from engine.agent.reference.fight import Fight
from engine.agent.reference.hold_zone import HoldZone
from engine.agent.reference.infer import STRATEGIES, infer_strategy, xy
from engine.agent.reference.memory import EnemyMemory
from engine.agent.reference.produce import Produce
from engine.agent.reference.roles import Scout, build_roles
from engine.schema.roles import parse_roles

ARMY_SQUAD = "army"
STRATEGY_CLASSES = {s.name: s for s in (Defend, Produce, Attack, Fight, HoldZone)}
assert tuple(STRATEGY_CLASSES) == STRATEGIES


class ReferencePolicy(Policy):
    """Scripted, competent play of one strategy (metadata.reference = {"strategy": name, plus that
    strategy's params as sibling keys}). It commands its army: every finished, armed, mobile unit
    of its team except the commander and the units given a role, including units a rule spawns for
    it later. Units without a weapon and the commander are never moved unless a role names them
    (builders get build orders only under `produce`; factories produce under `produce` and with
    `reinforce`). The army moves as one squad with attack-move (it fights enemies it meets on the
    way, then goes on). It only reacts to enemies it can see: under fog of war, enemies outside its
    units' sight do not exist for it (with a scout role, also those it saw before, at their last
    seen spot). Allied teams' units are never ordered; protected units are only defended, never
    moved (unless a role names them). `home` is where it gathers."""

    # params every strategy reads (the policy owns them)
    SHARED_PARAMS = {"home": "[x, y] the army gathers at (default: the centroid of its army at the start)",
                     "reinforce": "unit type or list of types its idle factories keep producing (round robin; "
                                  "needs production on and a factory of its team that makes the type, a start unit or "
                                  "one a rule spawns: it never builds one)",
                     "with_allies": "bool (default true): aim at the enemy nearest to own and allied armies together",
                     "roles": "list of unit roles (see Unit roles): chosen units scout, hold back or are escorted "
                              "instead of joining the army"}

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
        self.strategy_name = spec.get("strategy", "defend")
        w = sim.world
        self.memory = EnemyMemory(self.team)
        self.taken: set[int] = set()
        self.roles = build_roles(self, sim, parse_roles(spec.get("roles")))
        # the army acts on remembered enemies only when a scout feeds the memory: the strategies
        # without one keep reacting to what is in sight now
        self.acts_on_memory = any(isinstance(r, Scout) for r in self.roles)
        self._update_taken()
        army = self.army(sim)
        mine = w.select(team=self.team)
        start = army if army.size else mine
        self.home = xy(spec.get("home")) or (centroid(w, start) if start.size else (w.terrain.width / 2, w.terrain.height / 2))
        self.goal: tuple[float, float] | None = None
        self.strategy = STRATEGY_CLASSES[self.strategy_name](self)

    def decide(self, sim) -> list[dict]:
        actions: list[dict] = []
        if self.roles:      # a level without roles pays nothing for them
            enemies = self.memory.update(sim)
            for role in self.roles:
                actions += role.decide(sim, enemies)
            self._update_taken()
        return actions + self._enlist(sim) + self.strategy.decide(sim)

    def _update_taken(self) -> None:
        self.taken = {u for role in self.roles for u in role.owned()}

    def army(self, sim) -> np.ndarray:
        """The army: finished, armed, mobile units except the commander and the units with a role."""
        ids = army_ids(sim, self.team)
        if not self.taken:
            return ids
        return ids[~np.isin(ids, list(self.taken))]

    # --- army bookkeeping --------------------------------------------------------------------------
    def _enlist(self, sim) -> list[dict]:
        """New combat units join the army squad (squads keep their orders)."""
        squads = self.iface.squads
        army = self.army(sim)
        have = set(squads.squads[ARMY_SQUAD].units) if ARMY_SQUAD in squads.squads else set()
        new = [int(i) for i in army if int(i) not in have]
        if not new:
            return []
        actions = [{"action": "assign_squad", "squad": ARMY_SQUAD, "units": new}]
        if self.goal is not None:
            actions.append({"action": "squad_move", "squad": ARMY_SQUAD, "x": self.goal[0], "y": self.goal[1]})
        return actions

    def send(self, sim, goal: tuple[float, float], force: bool = False) -> list[dict]:
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

    # --- shared by the combat strategies -----------------------------------------------------------
    def reinforce(self, sim) -> list[dict]:
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

    def nearest_enemy(self, sim) -> tuple[float, float] | None:
        """The visible enemy nearest to the army (and allies): the group to hit next; with a scout,
        when none is in sight, the remembered one nearest to the army."""
        w = sim.world
        enemies = visible_enemy_ids(sim, self.team)
        if not enemies.size:
            return self.remembered_enemy_near(sim, None)
        army = self.army(sim)
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

    def known_enemy_near(self, p: tuple[float, float], ids: np.ndarray | None = None) -> tuple[float, float] | None:
        """Where the enemy (of `ids`, default any) nearest to `p` is (in sight) or was last seen."""
        known = self.memory.ids()
        if ids is not None:
            known = known[np.isin(known, ids)]
        if not known.size:
            return None
        spots = np.array([self.memory.where(int(i)) for i in known])
        k = int(np.argmin(np.hypot(spots[:, 0] - p[0], spots[:, 1] - p[1])))
        return float(spots[k, 0]), float(spots[k, 1])

    def remembered_enemy_near(self, sim, p: tuple[float, float] | None, ids: np.ndarray | None = None
                              ) -> tuple[float, float] | None:
        """With a scout: `known_enemy_near` (`p` defaults to the army's centre), else None."""
        if not self.acts_on_memory:
            return None
        if p is None:
            army = self.army(sim)
            p = centroid(sim.world, army) if army.size else self.home
        return self.known_enemy_near(p, ids)
