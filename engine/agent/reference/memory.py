"""What the reference policy remembers of enemies it saw: their last seen spots, kept while out of
sight and forgotten once its team sees that spot again without them (moved away or died)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.agent.observation import visible_enemy_ids

MAX_REMEMBERED = 512        # bounds the bookkeeping on maps full of enemies


@dataclass
class Sighting:
    x: float
    y: float
    time: float


class EnemyMemory:
    """Enemy unit id -> where its team last saw it. Only sight feeds it (never hidden state)."""

    def __init__(self, team: int):
        self.team = team
        self.seen: dict[int, Sighting] = {}

    def update(self, sim) -> np.ndarray:
        """Record the visible enemies, forget the ones whose spot is in sight but empty of them;
        returns the visible enemy ids."""
        w = sim.world
        visible = visible_enemy_ids(sim, self.team)
        now = float(sim.time)
        in_sight = set(visible.tolist())
        for i in in_sight:
            self.seen[i] = Sighting(float(w.x[i]), float(w.y[i]), now)
        gone = [i for i in self.seen if i not in in_sight]
        if gone and sim.fog:
            tx = np.array([min(max(int(self.seen[i].x), 0), w.terrain.width - 1) for i in gone], dtype=np.int64)
            ty = np.array([min(max(int(self.seen[i].y), 0), w.terrain.height - 1) for i in gone], dtype=np.int64)
            for i, looked in zip(gone, sim.vision.sees_tiles(self.team, tx, ty)):
                if looked:
                    del self.seen[i]
        elif gone:
            for i in gone:      # no fog: whatever is not visible is not there
                del self.seen[i]
        if len(self.seen) > MAX_REMEMBERED:
            for i in sorted(self.seen, key=lambda i: self.seen[i].time)[:len(self.seen) - MAX_REMEMBERED]:
                del self.seen[i]
        return visible

    def ids(self) -> np.ndarray:
        """Remembered enemy ids (visible ones included), ascending."""
        return np.array(sorted(self.seen), dtype=np.int64)

    def where(self, i: int) -> tuple[float, float]:
        s = self.seen[i]
        return s.x, s.y
