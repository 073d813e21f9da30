"""Construction: constructors (and the commander) walk to a site, lay down a building, build it.

A building appears as soon as the builder arrives (progress 0, 10% hp, blocking its tiles) and
finishes at progress 1. Other builders ordered to the same type at the same spot assist it.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine.systems.economy import BuildJob
from engine.world import BUILD, NONE, World, footprint_radius

SpawnFn = Callable[..., int]


class Construction:
    def __init__(self, world: World, spawn: SpawnFn):
        self.world = world
        self.spawn = spawn

    def jobs(self) -> list[BuildJob]:
        w = self.world
        t = w.types
        idx = w.alive_idx
        builders = idx[w.order[idx] == BUILD]
        out: list[BuildJob] = []
        for c in builders.tolist():
            site = int(w.build_target[c])
            if site < 0:
                site = self._arrive(c)
                if site < 0:
                    continue
            if not w.alive[site] or w.progress[site] >= 1.0:
                self._finish(c)
                continue
            ti = int(w.type[site])
            bp = t.build_power[int(w.type[c])]
            out.append(BuildJob(c, ti, bp / t.build_time[ti]))
        return out

    def _arrive(self, c: int) -> int:
        """Start (or join) the building once builder `c` is within reach; -1 while still walking."""
        w = self.world
        ti = int(w.build_type[c])
        bx, by = float(w.dest_x[c]), float(w.dest_y[c])
        reach = w.types.size[ti] + w.size[c] + 1.5
        if (w.x[c] - bx) ** 2 + (w.y[c] - by) ** 2 > reach * reach:
            return -1
        same = w.select(team=int(w.team[c]), type_name=w.types.names[ti])
        near = same[(np.abs(w.x[same] - bx) < 0.5) & (np.abs(w.y[same] - by) < 0.5) & (w.progress[same] < 1.0)]
        if near.size:
            site = int(near[0])
        elif site_free(w, bx, by, w.types.size[ti]):
            site = self.spawn(w.types.names[ti], int(w.team[c]), bx, by, source="build", complete=False)
        else:
            self._finish(c)
            return -1
        w.build_target[c] = site
        w.dest_x[c], w.dest_y[c] = w.x[c], w.y[c]   # stand still while building
        return site

    def _finish(self, c: int) -> None:
        w = self.world
        w.order[c] = NONE
        w.build_target[c] = -1
        w.build_type[c] = -1

    def apply(self, gained: dict[int, float]) -> None:
        w = self.world
        for c, amount in gained.items():
            site = int(w.build_target[c])
            if site < 0 or not w.alive[site] or amount <= 0:
                continue
            step = min(amount, 1.0 - w.progress[site])
            w.progress[site] += step
            w.hp[site] = min(w.max_hp[site], w.hp[site] + step * 0.9 * w.max_hp[site])
            if w.progress[site] >= 1.0 - 1e-9:
                w.progress[site] = 1.0
                self._finish(c)


def site_free(world: World, x: float, y: float, size: float) -> bool:
    """Every tile of the footprint is on the map, ground terrain and not under another building."""
    terrain = world.terrain
    ys, xs = terrain.footprint(x, y, size)
    r = footprint_radius(size)
    if ys.size != (2 * r + 1) ** 2:
        return False
    return bool(terrain.ground_ok[ys, xs].all() and (terrain.building_count[ys, xs] == 0).all())
