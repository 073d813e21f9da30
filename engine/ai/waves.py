"""Waves: every `interval` seconds from `first_at`, idle armed units attack-move to the target
(a point, or the matching unit nearest to the group), once at least `min_group` are idle.
When a selector matches nothing any more (its team was wiped out), waves go for the nearest
hostile unit instead, so a battle does not stall with armies left standing."""
from __future__ import annotations

from engine.ai.common import army, centroid, enemies, nearest
from engine.schema.level import Point


class Waves:
    def __init__(self, spec, team: int):
        self.spec = spec
        self.team = team
        self.next_wave = spec.first_at
        self.sent = 0

    def update(self, sim) -> None:
        if sim.time + 1e-9 < self.next_wave:
            return
        w = sim.world
        group = army(w, self.team)
        if group.size < self.spec.min_group:
            return  # wait for enough units; the schedule resumes from the wave actually sent
        target = self.spec.target
        if isinstance(target, Point):
            tx, ty = target.x, target.y
        else:
            cands = w.select(team=target.team, tag=target.tag, type_name=target.type)
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
