"""Movement: follow shared flow fields (ground) or fly straight (air), then push apart.

Runs every tick for units with somewhere to go. Units that combat says are busy (stopped to shoot,
or chasing a target) get their goal from combat instead of from their order. Ground units never
step onto a blocked tile; if the straight step is blocked they slide along one axis.
"""
from __future__ import annotations

import numpy as np

from engine.systems.pathfinding import FlowFieldCache
from engine.world import BUILD, FIGHT, MOVE, MOVE_FORCE, NONE, PATROL, World

_GOLDEN = 2.399963  # radians; spreads the push direction of exactly overlapping units


class Movement:
    def __init__(self, world: World, cache: FlowFieldCache):
        self.world = world
        self.cache = cache
        terrain = world.terrain
        self.w, self.h = terrain.width, terrain.height

    def step(self, dt: float, chase: np.ndarray, stop: np.ndarray, separate: bool) -> list[int]:
        """Advance one tick. `chase` / `stop`: unit ids combat wants chasing / standing.

        Returns the ids that arrived at a move / fight destination this tick (their order ends).
        """
        w = self.world
        idx = w.alive_idx
        idx = idx[(w.speed[idx] > 0) & (w.order[idx] != NONE)]
        arrived: list[int] = []
        if idx.size or chase.size:
            if stop.size:
                idx = idx[~np.isin(idx, stop, assume_unique=True)]
            if chase.size:
                idx = idx[~np.isin(idx, chase, assume_unique=True)]
            arrived = self._follow_orders(idx, dt)
            if chase.size:
                self._chase(chase, dt)
        if separate:
            self._separate()
        return arrived

    # --- path following ---------------------------------------------------------------------------
    def _follow_orders(self, idx: np.ndarray, dt: float) -> list[int]:
        w = self.world
        if not idx.size:
            return []
        # builders walking to a site stop at reach distance; construction handles the rest
        dx = w.dest_x[idx] - w.x[idx]
        dy = w.dest_y[idx] - w.y[idx]
        dist = np.hypot(dx, dy)
        order = w.order[idx]
        # groups going to one point settle in a blob instead of fighting over the exact spot
        cells = w.dest_y[idx].astype(np.int64) * self.w + w.dest_x[idx].astype(np.int64)
        _, inv, counts = np.unique(cells, return_inverse=True, return_counts=True)
        arrive_r = np.where(order == BUILD, 0.0, 0.5 + 0.45 * np.sqrt(counts[inv]))
        done = dist <= arrive_r
        arrived: list[int] = []
        if done.any():
            arrived = idx[done].tolist()
            for i in arrived:
                if w.order[i] == PATROL:
                    # turn around: swap destination and origin
                    w.dest_x[i], w.home_x[i] = w.home_x[i], w.dest_x[i]
                    w.dest_y[i], w.home_y[i] = w.home_y[i], w.dest_y[i]
                elif w.order[i] in (MOVE, MOVE_FORCE, FIGHT):
                    w.order[i] = NONE
            keep = ~done
            idx, dx, dy, dist, cells = idx[keep], dx[keep], dy[keep], dist[keep], cells[keep]
        if not idx.size:
            return arrived
        dist = np.maximum(dist, 1e-9)
        ux, uy = dx / dist, dy / dist            # straight-line direction (air, last tile)
        ground = ~w.is_air[idx]
        if ground.any():
            g = np.flatnonzero(ground)
            gi = idx[g]
            cx = np.clip(w.x[gi].astype(np.int64), 0, self.w - 1)
            cy = np.clip(w.y[gi].astype(np.int64), 0, self.h - 1)
            gcells = cells[g]
            terrain = w.terrain
            for key in np.unique(gcells):
                mask = gcells == key
                sub = g[mask]
                field = self.cache.get(terrain.passable, terrain.version, int(key % self.w), int(key // self.w))
                fx = field.dir_x[cy[mask], cx[mask]]
                fy = field.dir_y[cy[mask], cx[mask]]
                has = (fx != 0) | (fy != 0)
                ux[sub] = np.where(has, fx, ux[sub])
                uy[sub] = np.where(has, fy, uy[sub])
        step = np.minimum(w.speed[idx] * dt, dist)
        self._move(idx, ux * step, uy * step)
        return arrived

    def _chase(self, idx: np.ndarray, dt: float) -> None:
        """Close in on the current target in a straight line (targets are within sight)."""
        w = self.world
        idx = idx[w.speed[idx] > 0]
        if not idx.size:
            return
        tgt = w.target[idx]
        dx = w.x[tgt] - w.x[idx]
        dy = w.y[tgt] - w.y[idx]
        dist = np.maximum(np.hypot(dx, dy), 1e-9)
        step = w.speed[idx] * dt
        self._move(idx, dx / dist * step, dy / dist * step)

    def _move(self, idx: np.ndarray, mx: np.ndarray, my: np.ndarray) -> None:
        """Apply displacement, sliding along walls for ground units."""
        w = self.world
        x0, y0 = w.x[idx], w.y[idx]
        nx = np.clip(x0 + mx, 0.01, self.w - 0.01)
        ny = np.clip(y0 + my, 0.01, self.h - 0.01)
        ground = ~w.is_air[idx]
        if ground.any():
            passable = w.terrain.passable
            here_ok = passable[y0.astype(np.int64), x0.astype(np.int64)]
            ok = passable[ny.astype(np.int64), nx.astype(np.int64)] | ~here_ok | ~ground
            if not ok.all():
                bad = ~ok
                # try x only, then y only, else stay
                ox = passable[y0[bad].astype(np.int64), nx[bad].astype(np.int64)]
                oy = passable[ny[bad].astype(np.int64), x0[bad].astype(np.int64)]
                bx = np.where(ox, nx[bad], x0[bad])
                by = np.where(ox, y0[bad], np.where(oy, ny[bad], y0[bad]))
                nx[bad], ny[bad] = bx, by
        w.x[idx], w.y[idx] = nx, ny

    # --- separation -------------------------------------------------------------------------------
    def _separate(self) -> None:
        """Push apart mobile ground units sharing a cell, on two grids offset by half a tile."""
        w = self.world
        idx = w.alive_idx
        idx = idx[(w.speed[idx] > 0) & ~w.is_air[idx]]
        if idx.size < 2:
            return
        for shift in (0.0, 0.5):
            x, y = w.x[idx], w.y[idx]
            cw = self.w + 1
            cells = ((y + shift).astype(np.int64)) * cw + (x + shift).astype(np.int64)
            n = (self.h + 1) * cw
            cnt = np.bincount(cells, minlength=n)
            c = cnt[cells]
            crowded = c > 1
            if not crowded.any():
                continue
            sx = np.bincount(cells, weights=x, minlength=n)[cells]
            sy = np.bincount(cells, weights=y, minlength=n)[cells]
            sel = np.flatnonzero(crowded)
            k = c[sel] - 1.0
            ox = (sx[sel] - x[sel]) / k
            oy = (sy[sel] - y[sel]) / k
            dx, dy = x[sel] - ox, y[sel] - oy
            d = np.hypot(dx, dy)
            ids = idx[sel]
            same = d < 1e-6
            if same.any():
                ang = ids[same] * _GOLDEN
                dx[same], dy[same] = np.cos(ang), np.sin(ang)
            norm = np.where(same, 1.0, np.maximum(d, 1e-6))
            want = w.size[ids] * (1.0 + 0.6 * np.sqrt(k))   # crowded cells push harder
            push = np.clip(want - d, 0.0, 0.1)
            self._move(ids, dx / norm * push, dy / norm * push)
