"""hold_zone: move to a zone and hold it, fighting on contact."""
from __future__ import annotations

from engine.agent.reference.infer import xy
from engine.agent.reference.strategy import Strategy


class HoldZone(Strategy):
    """The army attack-moves to the zone point (fighting enemies it sees on the way) and, once there,
    stays: it gets no further orders, so it shoots only what comes within weapon range and never
    chases out of the zone. No param sets a radius: the army clumps around the point."""

    name = "hold_zone"
    params = {"zone": "[x, y] (or {x, y}) of the zone to take and hold; default: `target`, else home",
              "target": "fallback for zone"}

    def decide(self, sim) -> list[dict]:
        zone = xy(self.spec.get("zone")) or xy(self.spec.get("target")) or self.ref.home
        return self.ref.send(sim, zone)
