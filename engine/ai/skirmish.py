"""Easy skirmish AI: extractors on the nearest deposits, solar, one factory, an army, then attack.

Each second: idle builders take the next item of a fixed build plan, the factory keeps one unit
queued (alternating its two cheapest armed options), and once `attack_at_army` idle army units
stand at home they attack-move to the enemy unit nearest the base.
"""
from __future__ import annotations

import math

import numpy as np

from engine.ai.common import army, enemies, nearest
from engine.systems.construction import site_free
from engine.world import NONE

EXTRACTOR, SOLAR = "metal_extractor", "solar_collector"


class Skirmish:
    def __init__(self, spec, team: int):
        self.spec = spec
        self.team = team
        self.base: tuple[float, float] | None = None
        self.produced = 0

    def update(self, sim) -> None:
        w = sim.world
        mine = w.select(team=self.team)
        if not mine.size:
            return
        if self.base is None:
            self.base = (float(w.x[mine[0]]), float(w.y[mine[0]]))
        if sim.production_enabled:
            self._build(sim, mine)
            self._produce(sim, mine)
        self._attack(sim)

    # --- economy and base ---------------------------------------------------------------------------
    def _count(self, w, mine: np.ndarray, name: str) -> int:
        """Units of `name` the team has, plus ones a builder is on its way to lay down."""
        ti = w.types.index.get(name, -1)
        pending = (w.build_type[mine] == ti) & (w.build_target[mine] < 0)
        return int((w.type[mine] == ti).sum() + pending.sum())

    def _plan(self, w, mine: np.ndarray) -> str | None:
        ext, sol = self._count(w, mine, EXTRACTOR), self._count(w, mine, SOLAR)
        fac = self._count(w, mine, self.spec.factory)
        if ext < 2:
            return EXTRACTOR
        if sol < 2:
            return SOLAR
        if fac < 1:
            return self.spec.factory
        if ext < 5:
            return EXTRACTOR
        if sol < 4:
            return SOLAR
        return None

    def _build(self, sim, mine: np.ndarray) -> None:
        w = sim.world
        builders = [i for i in mine.tolist()
                    if w.speed[i] > 0 and w.order[i] == NONE and w.types.builds[int(w.type[i])]
                    and w.progress[i] >= 1.0]
        for b in builders:
            want = self._plan(w, mine)
            if want is None or want not in w.types.builds[int(w.type[b])]:
                return
            spot = self._deposit_spot(sim, b) if want == EXTRACTOR else self._base_spot(sim, want)
            if spot is None:
                return
            sim.command(self.team, {"kind": "build", "units": [b], "type": want, "x": spot[0], "y": spot[1]})

    def _deposit_spot(self, sim, builder: int) -> tuple[float, float] | None:
        w = sim.world
        taken = {(int(w.dest_x[i]), int(w.dest_y[i])) for i in w.alive_idx.tolist() if w.build_type[i] >= 0}
        best = None
        for (dx, dy) in sorted(w.terrain.deposits):
            if (dx, dy) in taken or not site_free(w, dx + 0.5, dy + 0.5, w.types.size[w.types.index[EXTRACTOR]]):
                continue
            d = (dx + 0.5 - self.base[0]) ** 2 + (dy + 0.5 - self.base[1]) ** 2
            if best is None or d < best[0]:
                best = (d, dx + 0.5, dy + 0.5)
        return None if best is None else (best[1], best[2])

    def _base_spot(self, sim, type_name: str) -> tuple[float, float] | None:
        """First free site on rings around the base, skipping deposit tiles."""
        w = sim.world
        size = w.types.size[w.types.index[type_name]]
        bx, by = self.base
        for ring in range(3, 14):
            steps = 8 * ring
            for k in range(steps):
                a = 2 * math.pi * k / steps
                x, y = math.floor(bx + ring * math.cos(a)) + 0.5, math.floor(by + ring * math.sin(a)) + 0.5
                if (int(x), int(y)) in w.terrain.deposits:
                    continue
                if site_free(w, x, y, size + 0.6):
                    return x, y
        return None

    # --- army ------------------------------------------------------------------------------------------
    def _produce(self, sim, mine: np.ndarray) -> None:
        w = sim.world
        t = w.types
        for f in mine.tolist():
            if w.speed[f] > 0 or w.progress[f] < 1.0 or not t.builds[int(w.type[f])]:
                continue
            if sim.production.queues.get(f):
                continue
            options = sorted((t.cost_metal[t.index[n]], n) for n in t.builds[int(w.type[f])]
                             if t.armed[t.index[n]] and t.speed[t.index[n]] > 0)
            if not options:
                continue
            choice = options[self.produced % min(2, len(options))][1]
            ok, _ = sim.command(self.team, {"kind": "produce", "factory": f, "type": choice, "count": 1})
            if ok:
                self.produced += 1

    def _attack(self, sim) -> None:
        w = sim.world
        group = army(w, self.team)
        if group.size < self.spec.attack_at_army:
            return
        foes = enemies(sim, self.team)
        if not foes.size:
            return
        t = nearest(w, foes, *self.base)
        sim.command(self.team, {"kind": "fight", "units": group.tolist(), "x": float(w.x[t]), "y": float(w.y[t])})
