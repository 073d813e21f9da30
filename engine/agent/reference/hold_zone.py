"""hold_zone: move to a zone and hold it, fighting on contact."""
from __future__ import annotations

from engine.agent.reference.infer import xy
from engine.agent.reference.strategy import Strategy


class HoldZone(Strategy):
    name = "hold_zone"

    def decide(self, sim) -> list[dict]:
        zone = xy(self.spec.get("zone")) or xy(self.spec.get("target")) or self.ref.home
        return self.ref.send(sim, zone)
