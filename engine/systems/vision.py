"""Fog of war: per-team grids of the tiles currently seen (sight discs, no terrain occlusion).

Every few ticks each team's sight discs are recorded: units sharing a tile and sight radius give one
disc, and a team whose units all stand on the tiles they stood on last time keeps its discs. A grid
is stamped only when something reads it, through a padded grid so discs near the edge need no
clipping: a few discs cell by cell, many (a large army) as row spans summed over the grid, whose
cost follows the rows rather than the cells. Target acquisition asks only about enemy tiles, which
a small army answers by testing each tile against each disc.
"""
from __future__ import annotations

from functools import lru_cache

# What fog of war means for play (the prompts state it).
VISION_DOC = ("each team sees the tiles within its units' sight radii (discs round the tile a unit stands on, the "
              "radius rounded to whole tiles; terrain never blocks sight); a unit is seen when the tile holding its "
              "centre is seen (its size does not count); under fog a unit targets only enemies its team sees, and "
              "scripted players react only to what they see")

import numpy as np

from engine.world import World, flat_index


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


PAIR_TESTS = 20_000   # up to this many (disc, tile) pairs, testing tiles against discs beats stamping a grid


class Vision:

    def __init__(self, world: World, teams: list[int], allies: dict[int, frozenset[int]]):
        self.world = world
        self.teams = teams
        self.allies = allies            # allied teams share what they see
        t = world.terrain
        self.w, self.h = t.width, t.height
        empty = np.zeros(0, dtype=np.int64)
        column = np.zeros((0, 1), dtype=np.int32)
        # per team at the last update: x, y and radius of each disc, and its x, y and r * r + r as columns
        self._discs: dict[int, tuple] = {team: (empty,) * 3 + (column,) * 3 for team in teams}
        self._units_version = -1          # the world version the units below were read at
        self._all_complete = False
        self._idx = empty
        self._team_rows: list[tuple] = []
        self._own: dict[int, np.ndarray] = {}       # stamped grid of each team's own discs
        self._grids: dict[int, np.ndarray] = {}     # stamped grid of each team with its allies
        self._keys: dict[int, bytes] = {}           # the units and tiles each team's discs come from
        self._key = b""                             # the same for every team at once
        self._alliances = {team: [team, *(a for a in sorted(allies.get(team, ())) if a != team and a in self._discs)]
                           for team in teams}

    def _refresh_units(self) -> None:
        """Which units see (the finished ones) and, per team, their rows among them and their sight
        radii: these change only when a unit spawns, dies or finishes."""
        w = self.world
        idx = w.alive_idx
        complete = w.progress[idx] >= 1.0
        self._all_complete = bool(np.count_nonzero(complete) == idx.size)
        idx = idx[complete]
        teams = w.team[idx]
        radii = np.rint(w.sight[idx]).astype(np.int64) << 24
        self._idx = idx
        self._team_rows = []
        for team in self.teams:
            rows = (teams == team).nonzero()[0]
            self._team_rows.append((team, rows, idx[rows].tobytes(), radii[rows]))
        self._units_version = w.version

    def sight_changed(self) -> None:
        """A unit's sight radius changed (a rule set it): every team's discs are read again at the next update."""
        self._units_version = -1
        self._key = b""
        self._keys.clear()

    def update(self) -> None:
        """Record the sight discs of every team's finished units where they stand now."""
        w = self.world
        if self._units_version != w.version or not self._all_complete:
            self._refresh_units()
        idx = self._idx
        cells = flat_index(w.pos.take(idx, axis=0).astype(np.int64), self.w)
        key = idx.tobytes() + cells.tobytes()
        if key == self._key:        # no unit finished, died or changed tile: every team keeps its discs
            return
        self._key = key
        changed = False
        for team, rows, mine, radii in self._team_rows:
            at = cells.take(rows)
            key = mine + at.tobytes()
            if key == self._keys.get(team):
                continue
            changed = True
            self._keys[team] = key
            keys = np.sort(radii + at)
            first = np.ones(keys.size, dtype=bool)     # distinct (radius, cell) pairs, like np.unique
            np.not_equal(keys[1:], keys[:-1], out=first[1:])
            keys = keys[first]
            at, radii = keys & ((1 << 24) - 1), keys >> 24
            y, x = np.divmod(at, self.w)
            # as int32 columns: the pair tests of `sees_tiles` broadcast them against rows of tiles
            lim = radii * radii + radii
            self._discs[team] = (x, y, radii, x.astype(np.int32)[:, None], y.astype(np.int32)[:, None],
                                 lim.astype(np.int32)[:, None])
            self._own.pop(team, None)
        if changed:
            self._grids.clear()

    @property
    def grids(self) -> dict[int, np.ndarray]:
        """Per team, the (h, w) bool grid of the tiles it and its allies saw at the last update."""
        for team in self.teams:
            if team not in self._grids:
                grid = self._own_grid(team)
                for ally in self._alliance(team):
                    if ally != team:
                        grid = grid | self._own_grid(ally)
                self._grids[team] = grid
        return self._grids

    def sees(self, team: int, ids: np.ndarray) -> np.ndarray:
        """Mask over `ids`: which of these units `team` currently sees."""
        w = self.world
        return self.sees_tiles(team, w.x[ids].astype(np.int64), w.y[ids].astype(np.int64))

    def sees_tiles(self, team: int, tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
        """Mask over the on-map tiles (tx, ty): which of them `team` saw at the last update."""
        if team not in self._grids:
            discs = [self._discs[t] for t in self._alliance(team)]
            if sum(d[0].size for d in discs) * tx.size <= PAIR_TESTS:
                seen = None
                for _, _, _, x, y, lim in discs:
                    dx = tx - x
                    dy = ty - y
                    dx *= dx
                    dy *= dy
                    dx += dy
                    mine = np.logical_or.reduce(dx <= lim, axis=0)
                    seen = mine if seen is None else seen | mine
                return seen
        return self.grids[team][ty, tx]

    def _alliance(self, team: int) -> list[int]:
        return self._alliances.get(team) or [team]

    def _own_grid(self, team: int) -> np.ndarray:
        if team not in self._own:
            x, y, radii = self._discs[team][:3]
            # padded by the widest of these discs, so that none needs clipping
            pad = 1 + int(radii.max(initial=0))
            pw = self.w + 2 * pad
            size = (self.h + 2 * pad) * pw
            grid = stamp_discs(size, pw, (y + pad) * pw + x + pad, radii) if x.size else np.zeros(size, dtype=bool)
            self._own[team] = grid.reshape(self.h + 2 * pad, pw)[pad:-pad, pad:-pad]
        return self._own[team]
