"""Small queries shared by the behaviours."""
from __future__ import annotations

import numpy as np

from engine.snapshot import CATEGORIES
from engine.world import NONE, World

COMMANDER = CATEGORIES.index("commander")


def army(world: World, team: int, idle_only: bool = True) -> np.ndarray:
    """Finished, armed, mobile units of `team` (the commander stays home), optionally only idle ones."""
    idx = world.select(team=team)
    keep = world.armed[idx] & (world.speed[idx] > 0) & (world.progress[idx] >= 1.0) & (world.category[idx] != COMMANDER)
    if idle_only:
        keep &= world.order[idx] == NONE
    return idx[keep]


def enemies(sim, team: int) -> np.ndarray:
    w = sim.world
    idx = w.alive_idx
    return idx[sim.hostile[team, w.team[idx]]]


def nearest(world: World, ids: np.ndarray, x: float, y: float) -> int:
    d2 = (world.x[ids] - x) ** 2 + (world.y[ids] - y) ** 2
    return int(ids[int(np.argmin(d2))])


def centroid(world: World, ids: np.ndarray) -> tuple[float, float]:
    return float(world.x[ids].mean()), float(world.y[ids].mean())
