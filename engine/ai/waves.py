"""Waves: every `interval` seconds from `first_at`, idle armed units attack-move to the target
(a point, or the matching unit nearest to the group), once at least `min_group` are idle.
When a selector matches nothing any more (its team was wiped out), waves go for the nearest
hostile unit instead, so a battle does not stall with armies left standing.
With `choose_target` each wave picks the hostile team to hit: a seeded draw weighted towards
near teams and teams that have lost strength (each pick is traced as `ai_target`), so opponents'
target choices differ by seed and change during the game (coalitions and betrayals)."""
from __future__ import annotations

import numpy as np

from engine.ai.common import army, centroid, enemies, nearest
from engine.schema.level import Point

TARGET_STREAM = 7717
DISTANCE_SCALE = 20.0     # tiles: a team this much farther away is e times less likely to be picked


class Waves:
    def __init__(self, spec, team: int):
        self.spec = spec
        self.team = team
        self.next_wave = spec.first_at
        self.sent = 0
        self.rng: np.random.Generator | None = None

    def update(self, sim) -> None:
        if sim.time + 1e-9 < self.next_wave:
            return
        w = sim.world
        group = army(w, self.team)
        if group.size < self.spec.min_group:
            return  # wait for enough units; the schedule resumes from the wave actually sent
        target = self.spec.target
        if isinstance(target, Point) and not self.spec.choose_target:
            tx, ty = target.x, target.y
        else:
            cands = self._chosen(sim, group) if self.spec.choose_target else \
                w.select(team=target.team, tag=target.tag, type_name=target.type)
            if not cands.size:
                cands = enemies(sim, self.team)
            if not cands.size:
                return
            cx, cy = centroid(w, group)
            t = nearest(w, cands, cx, cy)
            tx, ty = float(w.x[t]), float(w.y[t])
        ok, _ = sim.command(self.team, {"kind": "fight", "units": group.tolist(), "x": tx, "y": ty})
        if ok:
            self.sent += 1
            self.next_wave = sim.time + self.spec.interval

    def _chosen(self, sim, group: np.ndarray) -> np.ndarray:
        """Units of the hostile team this wave goes for (empty when no hostile team is left)."""
        if self.rng is None:
            self.rng = sim.streams.generator(self.team, TARGET_STREAM)
        w = sim.world
        hostile = enemies(sim, self.team)
        teams = sorted({int(t) for t in w.team[hostile].tolist()})
        if not teams:
            return hostile
        cx, cy = centroid(w, group)
        weights = []
        for t in teams:
            ids = hostile[w.team[hostile] == t]
            d = float(np.hypot(w.x[ids] - cx, w.y[ids] - cy).min())
            weakness = 1.0 - float(w.hp[ids].sum() / w.max_hp[ids].sum())
            weights.append(np.exp(-d / DISTANCE_SCALE) * (1.0 + weakness))
        p = np.array(weights) / sum(weights)
        chosen = teams[int(self.rng.choice(len(teams), p=p))]
        sim.trace.add(sim.time, "ai_target", team=self.team, target_team=chosen)
        return hostile[w.team[hostile] == chosen]
