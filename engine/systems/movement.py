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


def group_ints(values: np.ndarray, only_if_repeated: bool = False):
    """(sorted distinct values, index of each value's group, group sizes), like np.unique with
    return_inverse and return_counts at a fifth of its cost on the small arrays of a tick.
    With `only_if_repeated`, None when every value is distinct."""
    order = np.argsort(values, kind="stable")
    s = values[order]
    start = np.empty(s.size, dtype=bool)
    start[:1] = True
    np.not_equal(s[1:], s[:-1], out=start[1:])
    if only_if_repeated and start.all():
        return None
    group = np.cumsum(start) - 1
    inv = np.empty(s.size, dtype=np.int64)
    inv[order] = group
    return s[start], inv, np.bincount(group)


class GroupMemo:
    """group_ints of the last array seen: destinations rarely change between ticks."""

    def __init__(self):
        self._key: bytes | None = None
        self._value = None

    def of(self, values: np.ndarray):
        key = values.tobytes()
        if key != self._key:
            self._key, self._value = key, group_ints(values)
        return self._value


class Movement:
    def __init__(self, world: World, cache: FlowFieldCache):
        self.world = world
        self.cache = cache
        terrain = world.terrain
        self.w, self.h = terrain.width, terrain.height
        self._dest_groups = GroupMemo()
        self._settled: tuple | None = None   # (ids, x, y, terrain version) a separation pass left unchanged

    def step(self, dt: float, chase: np.ndarray, stop: np.ndarray, separate: bool) -> list[int]:
        """Advance one tick. `chase` / `stop`: unit ids combat wants chasing / standing.

        Returns the ids that arrived at a move / fight destination this tick (their order ends).
        """
        w = self.world
        idx = w.alive_idx
        idx = idx[(w.speed[idx] > 0) & (w.order[idx] != NONE)]
        arrived: list[int] = []
        if idx.size or chase.size:
            if stop.size or chase.size:
                # a mask, not np.isin: isin costs ~100 us a call on these small arrays
                busy = np.zeros(w.count, dtype=bool)
                busy[stop] = True
                busy[chase] = True
                idx = idx[~busy[idx]]
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
        keys, inv, counts = self._dest_groups.of(cells)
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
            idx, dx, dy, dist, inv = idx[keep], dx[keep], dy[keep], dist[keep], inv[keep]
        if not idx.size:
            return arrived
        dist = np.maximum(dist, 1e-9)
        ux, uy = dx / dist, dy / dist            # straight-line direction (air, last tile)
        ground = ~w.is_air[idx]
        if ground.any():
            g = np.flatnonzero(ground)
            gi = idx[g]
            cx = np.minimum(np.maximum(w.x[gi].astype(np.int64), 0), self.w - 1)
            cy = np.minimum(np.maximum(w.y[gi].astype(np.int64), 0), self.h - 1)
            ginv = inv[g]
            terrain, cache = w.terrain, self.cache
            present = np.flatnonzero(np.bincount(ginv, minlength=keys.size)).tolist()
            slot_of = np.zeros(keys.size, dtype=np.int64)
            # at most `capacity` destinations at a time, so no slot is recycled before its units read it
            for start in range(0, len(present), cache.capacity):
                chunk = present[start:start + cache.capacity]
                for k in chunk:
                    key = int(keys[k])
                    slot_of[k] = cache.slot(terrain.passable, terrain.version, key % self.w, key // self.w)
                m = np.isin(ginv, chunk) if len(chunk) < len(present) else np.ones(g.size, dtype=bool)
                sub, slots, my, mx = g[m], slot_of[ginv[m]], cy[m], cx[m]
                fx = cache.stack_x[slots, my, mx]
                fy = cache.stack_y[slots, my, mx]
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
        nx = np.minimum(np.maximum(x0 + mx, 0.01), self.w - 0.01)
        ny = np.minimum(np.maximum(y0 + my, 0.01), self.h - 0.01)
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
        # a pass is a pure function of these; when the last pass left them as it found them, so would this one
        state = (idx.tobytes(), w.x[idx].tobytes(), w.y[idx].tobytes(), w.terrain.version)
        if state == self._settled:
            return
        for shift in (0.0, 0.5):
            x, y = w.x[idx], w.y[idx]
            cw = self.w + 1
            cells = ((y + shift).astype(np.int64)) * cw + (x + shift).astype(np.int64)
            grouped = group_ints(cells, only_if_repeated=True)
            if grouped is None:
                continue
            _, inv, cnt = grouped
            c = cnt[inv]
            crowded = c > 1
            sx = np.bincount(inv, weights=x)[inv]
            sy = np.bincount(inv, weights=y)[inv]
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
            push = np.minimum(np.maximum(want - d, 0.0), 0.1)
            self._move(ids, dx / norm * push, dy / norm * push)
        after = (idx.tobytes(), w.x[idx].tobytes(), w.y[idx].tobytes(), w.terrain.version)
        self._settled = after if after == state else None
