"""defend: keep the army home; send it to whichever protected unit / home enemies come near."""
from __future__ import annotations

import math

from engine.agent.observation import visible_enemy_ids
from engine.agent.reference.strategy import Strategy


class Defend(Strategy):
    """The army waits at home. When a visible enemy comes within threat_radius of home or of an own
    unit tagged protect_tag, it attack-moves to the enemy nearest to such an objective; it chases
    only while that enemy stays within threat_radius, then returns home."""

    name = "defend"
    params = {"threat_radius": "tiles (default 25): a visible enemy this close to home or a protected unit is engaged",
              "protect_tag": "tag of own units to protect (each is an objective like home)"}

    def decide(self, sim) -> list[dict]:
        ref = self.ref
        w = sim.world
        radius = float(self.spec.get("threat_radius", 25.0))
        tag = self.spec.get("protect_tag")
        objectives = [ref.home]
        if tag:
            ids = w.select(team=ref.team, tag=tag)
            objectives += [(float(w.x[i]), float(w.y[i])) for i in ids]
        enemies = visible_enemy_ids(sim, ref.team)
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
            return ref.send(sim, best)
        return ref.send(sim, ref.home)
