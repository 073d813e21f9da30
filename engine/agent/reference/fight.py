"""fight: wait until `engage_at`, then attack the nearest enemy group (with the allies)."""
from __future__ import annotations

from engine.agent.reference.strategy import Strategy


class Fight(Strategy):
    name = "fight"

    def decide(self, sim) -> list[dict]:
        ref = self.ref
        if sim.time < float(self.spec.get("engage_at", 0.0)):
            return ref.send(sim, ref.home)
        target = ref.nearest_enemy(sim)
        return ref.send(sim, target) if target is not None else []
