"""Fog of war: per-team grids of the tiles currently seen (sight discs, no terrain occlusion).

Recomputed every few ticks. Discs are stamped through a padded grid so discs near the edge need no
clipping, units sharing a tile and sight radius are stamped once, and a team whose units all stand
on the tiles they stood on last time keeps its grid. A few discs are stamped cell by cell; many (a
large army) as row spans summed over the grid, whose cost follows the rows rather than the cells.
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


@lru_cache(maxsize=64)
def _disc_rows(radius: int) -> tuple[np.ndarray, np.ndarray]:
    """The disc of `_disc` as rows: (row offset, half width) per row."""
    dy, dx = _disc(radius)
    rows = np.arange(-radius, radius + 1)
    half = np.array([dx[dy == r].max() for r in rows], dtype=np.int64)
    return rows, half


def stamp_discs(size: int, width: int, cells: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Flat bool grid of `size` cells, rows `width` wide: True inside the disc of radius radii[k]
    around cells[k] (flat indices, each disc inside the grid)."""
    grid = np.zeros(size, dtype=bool)
    distinct = sorted(set(radii.tolist()))
    total = sum(_disc(r)[0].size * int(np.count_nonzero(radii == r)) for r in distinct)
    if total <= 2 * size:
        for r in distinct:
            dy, dx = _disc(r)
            c = cells[radii == r]
            grid[(c[:, None] + (dy * width + dx)[None, :]).ravel()] = True
        return grid
    # many discs: +1 where each row span starts, -1 past its end, and a running sum over the grid
    starts, ends = [], []
    for r in distinct:
        rows, half = _disc_rows(r)
        c = cells[radii == r][:, None]
        starts.append((c + (rows * width - half)[None, :]).ravel())
        ends.append((c + (rows * width + half + 1)[None, :]).ravel())
    edges = np.bincount(np.concatenate(starts), minlength=size + 1) - np.bincount(np.concatenate(ends), minlength=size + 1)
    np.greater(edges[:size].cumsum(), 0, out=grid)
    return grid


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
            size = (self.h + 2 * pad) * pw
            if mine.size:
                radii = np.rint(w.sight[mine]).astype(np.int64)
                keys = np.sort(radii * (1 << 24) + at)
                first = np.ones(keys.size, dtype=bool)     # distinct (radius, cell) pairs, like np.unique
                np.not_equal(keys[1:], keys[:-1], out=first[1:])
                keys = keys[first]
                grid = stamp_discs(size, pw, keys & ((1 << 24) - 1), keys >> 24)
            else:
                grid = np.zeros(size, dtype=bool)
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
