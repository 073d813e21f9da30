"""The random baseline: random but valid actions (seeded)."""
from __future__ import annotations

import numpy as np

from engine.agent.policy import Policy
from engine.systems.construction import site_free


class RandomPolicy(Policy):
    """Random but valid actions (seeded): moves, squad commands, production, extractors."""

    name = "random"
    uses_seed = True

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
