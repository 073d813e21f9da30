"""Fog of war: per-team grids of the tiles currently seen (sight discs, no terrain occlusion).

Recomputed every few ticks. Discs are stamped through a padded grid so discs near the edge need no
clipping, units sharing a tile and sight radius are stamped once, and a team whose units all stand
on the tiles they stood on last time keeps its grid.
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
        self._own: dict[int, np.ndarray] = {}       # what each team's own units see
        self._keys: dict[int, bytes] = {}           # the units and tiles each own grid was stamped from

    def update(self) -> dict[int, np.ndarray]:
        w = self.world
        idx = w.alive_idx
        idx = idx[w.progress[idx] >= 1.0]
        pad = self.pad
        pw = self.w + 2 * pad
        teams = w.team[idx]
        cells = (w.y[idx].astype(np.int64) + pad) * pw + w.x[idx].astype(np.int64) + pad
        changed = False
        for team in self.teams:
            sel = teams == team
            mine, at = idx[sel], cells[sel]
            key = mine.tobytes() + at.tobytes()
            if key == self._keys.get(team):
                continue
            changed = True
            self._keys[team] = key
            grid = np.zeros((self.h + 2 * pad) * pw, dtype=bool)
            if mine.size:
                radii = np.rint(w.sight[mine]).astype(np.int64)
                keys = np.sort(radii * (1 << 24) + at)
                first = np.ones(keys.size, dtype=bool)     # distinct (radius, cell) pairs, like np.unique
                np.not_equal(keys[1:], keys[:-1], out=first[1:])
                keys = keys[first]
                radii, c_all = keys >> 24, keys & ((1 << 24) - 1)
                for r in sorted(set(radii.tolist())):
                    dy, dx = _disc(int(r))
                    c = c_all[radii == r]
                    grid[(c[:, None] + (dy * pw + dx)[None, :]).ravel()] = True
            self._own[team] = grid.reshape(self.h + 2 * pad, pw)[pad:-pad, pad:-pad]
        if changed:
            for team in self.teams:
                grid = self._own[team]
                for ally in self.allies.get(team, ()):
                    if ally != team and ally in self._own:
                        grid = grid | self._own[ally]
                self.grids[team] = grid
        return self.grids

    def sees(self, team: int, ids: np.ndarray) -> np.ndarray:
        """Mask over `ids`: which of these units `team` currently sees."""
        w = self.world
        return self.grids[team][w.y[ids].astype(np.int64), w.x[ids].astype(np.int64)]
