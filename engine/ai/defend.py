"""Defend: units guard a circle; they attack enemies inside it and return when it is clear."""
from __future__ import annotations

import numpy as np

from engine.ai.common import army, enemies, nearest
from engine.world import FIGHT, NONE


class Defend:
    def __init__(self, spec, team: int):
        self.spec = spec
        self.team = team

    def update(self, sim) -> None:
        w = sim.world
        cx, cy, r = self.spec.center.x, self.spec.center.y, self.spec.radius
        guards = army(w, self.team, idle_only=False)
        if not guards.size:
            return
        foes = enemies(sim, self.team)
        inside = foes[(w.x[foes] - cx) ** 2 + (w.y[foes] - cy) ** 2 <= r * r]
        if inside.size:
            t = nearest(w, inside, cx, cy)
            free = guards[(w.order[guards] == NONE) | (w.order[guards] == FIGHT)]
            if free.size:
                sim.command(self.team, {"kind": "fight", "units": free.tolist(), "x": float(w.x[t]), "y": float(w.y[t])})
            return
        idle = guards[w.order[guards] == NONE]
        far = idle[np.hypot(w.x[idle] - cx, w.y[idle] - cy) > 0.6 * r]
        if far.size:
            sim.command(self.team, {"kind": "fight", "units": far.tolist(), "x": cx, "y": cy})
