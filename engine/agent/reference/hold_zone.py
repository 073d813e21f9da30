"""hold_zone: move to a zone and hold it, fighting on contact."""
from __future__ import annotations

import math

from engine.agent.policy import centroid, drawn_area
from engine.agent.reference.infer import xy
from engine.agent.reference.strategy import Strategy

ZONE_MARKER = "capture zone"      # the label capture rules mark their zone with


class HoldZone(Strategy):
    """The army attack-moves to the zone point (fighting enemies it sees on the way) and, once there,
    stays: it gets no further orders, so it shoots only what comes within weapon range and never
    chases out of the zone. No param sets a radius: the army clumps around the point. An area a rule
    draws with 'capture zone' (or the `label` param) in its label is the zone wherever it is now: the army
    follows it when a rule moves it or draws a new one (the newest counts, or the nearest with pick='nearest'). Else, with `zones` (candidate zones, one of
    which the game marks as the capture zone at the start), it holds the candidate nearest to the map
    marker labelled 'capture zone'."""

    name = "hold_zone"
    params = {"zone": "[x, y] (or {x, y}) of the zone to take and hold; default: `target`, else home",
              "target": "fallback for zone",
              "zones": "list of candidate [x, y] zones the briefing names: the army holds the one the game marks "
                       "(map marker 'capture zone'), else `zone`; a rule's area labelled 'capture zone' comes first, "
                       "followed as it moves",
              "label": "text a rule area's label must contain to be followed (default 'capture zone'): e.g. "
                       "'supply crate' to go for pickups a rule draws as areas",
              "pick": "which of several such areas: 'newest' (default) or 'nearest' (to the army's centre); with "
                      "none drawn the army goes to the marked candidate, else `zone`, else `target`, else home"}

    def __init__(self, ref):
        super().__init__(ref)
        self.candidates = [p for p in (xy(v) for v in self.spec.get("zones") or []) if p is not None]
        self.marked: tuple[float, float] | None = None
        self.label = str(self.spec.get("label") or ZONE_MARKER)
        self.nearest = self.spec.get("pick") == "nearest"

    def decide(self, sim) -> list[dict]:
        zone = self._drawn(sim) or self._marked(sim) or xy(self.spec.get("zone")) or xy(self.spec.get("target")) \
            or self.ref.home
        return self.ref.send(sim, zone)

    def _drawn(self, sim) -> tuple[float, float] | None:
        """The newest (or, with pick='nearest', the nearest to the army's centre) area whose label holds `label`."""
        if not self.nearest:
            return drawn_area(sim, self.label)
        w = sim.world
        mine = w.select(team=self.ref.team)
        mine = mine[w.speed[mine] > 0]
        return drawn_area(sim, self.label, centroid(w, mine) if mine.size else self.ref.home)

    def _marked(self, sim) -> tuple[float, float] | None:
        """The candidate zone the game marked (public on the map), once it is marked."""
        if self.marked is None and self.candidates:
            marks = [(m.x, m.y) for m in sim.markers if ZONE_MARKER in m.label]
            if marks:
                mx, my = marks[0]
                self.marked = min(self.candidates, key=lambda c: (math.dist(c, (mx, my)), c))
        return self.marked
