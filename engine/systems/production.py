"""Factory production: per-factory queues, one unit at a time, paid as it progresses."""
from __future__ import annotations

from typing import Callable

from engine.systems.economy import BuildJob
from engine.world import World

SpawnFn = Callable[..., int]


class Production:
    def __init__(self, world: World, spawn: SpawnFn, free_spot: Callable[[float, float, bool], tuple[float, float]]):
        self.world = world
        self.spawn = spawn
        self.free_spot = free_spot
        self.queues: dict[int, list[int]] = {}      # factory id -> queued type indices
        self.progress: dict[int, float] = {}        # factory id -> progress of the head of its queue

    def enqueue(self, factory: int, type_idx: int, count: int) -> None:
        self.queues.setdefault(factory, []).extend([type_idx] * count)

    def queue_of(self, factory: int) -> list[str]:
        return [self.world.types.names[t] for t in self.queues.get(factory, [])]

    def jobs(self) -> list[BuildJob]:
        w = self.world
        t = w.types
        out: list[BuildJob] = []
        for f in sorted(self.queues):
            queue = self.queues[f]
            if not w.alive[f]:
                del self.queues[f]
                self.progress.pop(f, None)
                continue
            if not queue or w.progress[f] < 1.0:
                continue
            ti = queue[0]
            out.append(BuildJob(f, ti, t.build_power[int(w.type[f])] / t.build_time[ti]))
        return out

    def apply(self, gained: dict[int, float]) -> None:
        w = self.world
        for f, amount in gained.items():
            queue = self.queues.get(f)
            if not queue:
                continue
            p = self.progress.get(f, 0.0) + amount
            if p >= 1.0 - 1e-9:
                ti = queue.pop(0)
                p = 0.0
                air = bool(w.types.is_air[ti])
                x, y = self.free_spot(float(w.x[f]), float(w.y[f]) + float(w.size[f]) + 0.8, air)
                self.spawn(w.types.names[ti], int(w.team[f]), x, y, source="production")
            self.progress[f] = p
