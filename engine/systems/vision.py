"""Fog of war: per-team grids of the tiles currently seen (sight discs, no terrain occlusion).

Recomputed every few ticks. Discs are stamped through a padded grid so discs near the edge need no
clipping, and units sharing a tile and sight radius are stamped once.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from engine.world import World


@lru_cache(maxsize=64)
def _disc(radius: int) -> tuple[np.ndarray, np.ndarray]:
    r = radius
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    inside = dx * dx + dy * dy <= r * r + r  # + r: rounder discs at small radii
    return dy[inside].astype(np.int64), dx[inside].astype(np.int64)


class Vision:
    def __init__(self, world: World, teams: list[int], allies: dict[int, frozenset[int]]):
        self.world = world
        self.teams = teams
        self.allies = allies            # allied teams share what they see
        t = world.terrain
        self.w, self.h = t.width, t.height
        self.pad = 1 + int(max(world.types.sight.max(initial=1.0), 1.0))
        self.grids: dict[int, np.ndarray] = {team: np.zeros((self.h, self.w), dtype=bool) for team in teams}

    def update(self) -> dict[int, np.ndarray]:
        w = self.world
        idx = w.alive_idx
        idx = idx[w.progress[idx] >= 1.0]
        pad = self.pad
        pw = self.w + 2 * pad
        own: dict[int, np.ndarray] = {}
        for team in self.teams:
            mine = idx[w.team[idx] == team]
            grid = np.zeros((self.h + 2 * pad) * pw, dtype=bool)
            if mine.size:
                cells = (w.y[mine].astype(np.int64) + pad) * pw + w.x[mine].astype(np.int64) + pad
                radii = np.rint(w.sight[mine]).astype(np.int64)
                keys = np.sort(radii * (1 << 24) + cells)
                first = np.ones(keys.size, dtype=bool)     # distinct (radius, cell) pairs, like np.unique
                np.not_equal(keys[1:], keys[:-1], out=first[1:])
                keys = keys[first]
                radii, cells = keys >> 24, keys & ((1 << 24) - 1)
                for r in sorted(set(radii.tolist())):
                    dy, dx = _disc(int(r))
                    c = cells[radii == r]
                    grid[(c[:, None] + (dy * pw + dx)[None, :]).ravel()] = True
            own[team] = grid.reshape(self.h + 2 * pad, pw)[pad:-pad, pad:-pad]
        for team in self.teams:
            grid = own[team]
            for ally in self.allies.get(team, ()):
                if ally != team and ally in own:
                    grid = grid | own[ally]
            self.grids[team] = grid
        return self.grids

    def sees(self, team: int, ids: np.ndarray) -> np.ndarray:
        """Mask over `ids`: which of these units `team` currently sees."""
        w = self.world
        return self.grids[team][w.y[ids].astype(np.int64), w.x[ids].astype(np.int64)]
