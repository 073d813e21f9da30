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
    order = values.argsort(kind="stable")
    s = values[order]
    start = np.empty(s.size, dtype=bool)
    start[:1] = True
    np.not_equal(s[1:], s[:-1], out=start[1:])
    if only_if_repeated and np.count_nonzero(start) == start.size:
        return None
    group = start.cumsum() - 1
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
        self._mobile_version = -1
        self._mobile = self._mobile_ground = np.zeros(0, dtype=np.int64)
        self._any_air = False
        self._inside = False
        self._busy = np.zeros(0, dtype=bool)
        self._arrive_key: bytes | None = None
        self._arrive_r = np.zeros(0)
        self._slots_key: tuple | None = None
        self._slots = np.zeros(0, dtype=np.int64)

    def _refresh_mobile(self) -> None:
        """Living units that can move (all, and ground only): these change only on spawn / death."""
        w = self.world
        if self._mobile_version != w.version:
            idx = w.alive_idx
            self._mobile = idx[w.speed[idx] > 0]
            self._mobile_ground = self._mobile[~w.is_air[self._mobile]]
            self._any_air = self._mobile_ground.size < self._mobile.size
            # positions change only by spawning and by _move, which keeps units inside these bounds
            x, y = w.x[self._mobile], w.y[self._mobile]
            self._inside = not x.size or bool(x.min() >= 0.01 and x.max() <= self.w - 0.01
                                               and y.min() >= 0.01 and y.max() <= self.h - 0.01)
            self._mobile_version = w.version

    def step(self, dt: float, chase: np.ndarray, stop: np.ndarray, separate: bool) -> list[int]:
        """Advance one tick. `chase` / `stop`: unit ids combat wants chasing / standing.

        Returns the ids that arrived at a move / fight destination this tick (their order ends).
        """
        w = self.world
        self._refresh_mobile()
        idx = self._mobile
        idx = idx[w.order[idx] != NONE]
        arrived: list[int] = []
        if idx.size or chase.size:
            if stop.size or chase.size:
                # a reused mask, not np.isin: isin costs ~100 us a call on these small arrays
                if self._busy.size < w.count:
                    self._busy = np.zeros(w.capacity, dtype=bool)
                busy = self._busy
                busy[stop] = True
                busy[chase] = True
                idx = idx[~busy[idx]]
                busy[stop] = False
                busy[chase] = False
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
        x, y, tx, ty = w.x[idx], w.y[idx], w.dest_x[idx], w.dest_y[idx]
        dx = tx - x
        dy = ty - y
        dist = np.hypot(dx, dy)
        # groups going to one point settle in a blob instead of fighting over the exact spot
        cells = ty.astype(np.int64) * self.w + tx.astype(np.int64)
        keys, inv, counts = self._dest_groups.of(cells)
        arrive_r = self._arrive_radius(cells, w.order[idx], counts[inv])
        done = dist <= arrive_r
        arrived: list[int] = []
        if np.count_nonzero(done):
            arrived = idx[done].tolist()
            for i in arrived:
                if w.order[i] == PATROL:
                    # turn around: swap destination and origin
                    w.dest_x[i], w.home_x[i] = w.home_x[i], w.dest_x[i]
                    w.dest_y[i], w.home_y[i] = w.home_y[i], w.dest_y[i]
                elif w.order[i] in (MOVE, MOVE_FORCE, FIGHT):
                    w.order[i] = NONE
            keep = ~done
            idx, x, y, dx, dy, dist, inv = idx[keep], x[keep], y[keep], dx[keep], dy[keep], dist[keep], inv[keep]
        if not idx.size:
            return arrived
        dist = np.maximum(dist, 1e-9)
        ux, uy = dx / dist, dy / dist            # straight-line direction (air, last tile)
        # the usual case has no aircraft: then every mover is a ground unit and needs no mask
        ground = ~w.is_air[idx] if self._any_air else None
        if ground is None or np.count_nonzero(ground):
            g = ground.nonzero()[0] if ground is not None else slice(None)
            cx = np.minimum(np.maximum(x[g].astype(np.int64), 0), self.w - 1)
            cy = np.minimum(np.maximum(y[g].astype(np.int64), 0), self.h - 1)
            ginv = inv[g]
            present = np.bincount(ginv, minlength=keys.size).nonzero()[0].tolist()
            slots = self._slots_for(keys, present)
            cache = self.cache
            if slots is not None:
                parts = [(g, slots[ginv], cy, cx)]
            else:
                parts = self._chunked_slots(keys, present, np.arange(idx.size)[g], ginv, cy, cx)
            for sub, sl, my, mx in parts:
                fx = cache.stack_x[sl, my, mx]
                fy = cache.stack_y[sl, my, mx]
                has = (fx != 0) | (fy != 0)
                ux[sub] = np.where(has, fx, ux[sub])
                uy[sub] = np.where(has, fy, uy[sub])
        step = np.minimum(w.speed[idx] * dt, dist)
        self._move(idx, ux * step, uy * step, x, y, ground)
        return arrived

    def _arrive_radius(self, cells: np.ndarray, order: np.ndarray, group_size: np.ndarray) -> np.ndarray:
        """How close each unit must get to count as arrived (memoised: orders rarely change)."""
        key = cells.tobytes() + order.tobytes()
        if key != self._arrive_key:
            self._arrive_key = key
            self._arrive_r = np.where(order == BUILD, 0.0, 0.5 + 0.45 * np.sqrt(group_size))
        return self._arrive_r

    def _slots_for(self, keys: np.ndarray, present: list[int]) -> np.ndarray | None:
        """Flow-field slot per destination group, or None when there are more destinations than the
        cache holds at once. Memoised until the destinations, the terrain or the cache change (the
        fields a slot holds are replaced only when one is computed)."""
        terrain, cache = self.world.terrain, self.cache
        if len(present) > cache.capacity:
            return None
        key = (keys.tobytes(), tuple(present), terrain.version, cache.computed)
        if key != self._slots_key:
            slots = np.zeros(keys.size, dtype=np.int64)
            for k in present:
                cell = int(keys[k])
                slots[k] = cache.slot(terrain.passable, terrain.version, cell % self.w, cell // self.w)
            self._slots_key = (keys.tobytes(), tuple(present), terrain.version, cache.computed)
            self._slots = slots
        return self._slots

    def _chunked_slots(self, keys, present, g, ginv, cy, cx):
        """More destinations than cache slots: look them up `capacity` at a time, so no slot is
        recycled before its units read it."""
        terrain, cache = self.world.terrain, self.cache
        slot_of = np.zeros(keys.size, dtype=np.int64)
        for start in range(0, len(present), cache.capacity):
            chunk = present[start:start + cache.capacity]
            for k in chunk:
                cell = int(keys[k])
                slot_of[k] = cache.slot(terrain.passable, terrain.version, cell % self.w, cell // self.w)
            m = np.isin(ginv, chunk)
            yield g[m], slot_of[ginv[m]], cy[m], cx[m]

    def _chase(self, idx: np.ndarray, dt: float) -> None:
        """Close in on the current target in a straight line (targets are within sight)."""
        w = self.world
        idx = idx[w.speed[idx] > 0]
        if not idx.size:
            return
        tgt = w.target[idx]
        x0, y0 = w.x[idx], w.y[idx]
        dx = w.x[tgt] - x0
        dy = w.y[tgt] - y0
        dist = np.maximum(np.hypot(dx, dy), 1e-9)
        step = w.speed[idx] * dt
        self._move(idx, dx / dist * step, dy / dist * step, x0, y0, ~w.is_air[idx])

    def _move(self, idx: np.ndarray, mx: np.ndarray, my: np.ndarray, x0: np.ndarray, y0: np.ndarray,
              ground: np.ndarray | None) -> None:
        """Apply displacement to units at (x0, y0), sliding along walls for ground units
        (`ground`: mask over idx, None when all of them are)."""
        w = self.world
        nx = np.minimum(np.maximum(x0 + mx, 0.01), self.w - 0.01)
        ny = np.minimum(np.maximum(y0 + my, 0.01), self.h - 0.01)
        if ground is None or np.count_nonzero(ground):
            passable = w.terrain.passable
            here_ok = passable[y0.astype(np.int64), x0.astype(np.int64)]
            ok = passable[ny.astype(np.int64), nx.astype(np.int64)] | ~here_ok
            if ground is not None:
                ok |= ~ground
            if np.count_nonzero(ok) < ok.size:
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
        self._refresh_mobile()
        idx = self._mobile_ground
        if idx.size < 2:
            return
        x, y = w.x[idx], w.y[idx]
        # a pass is a pure function of these; when the last pass left them as it found them, so would this one
        state = (idx.tobytes(), x.tobytes(), y.tobytes(), w.terrain.version)
        if state == self._settled:
            return
        moved = False
        for shift in (0.0, 0.5):
            if moved:
                x, y = w.x[idx], w.y[idx]
            cw = self.w + 1
            cells = ((y + shift).astype(np.int64)) * cw + (x + shift).astype(np.int64)
            grouped = group_ints(cells, only_if_repeated=True)
            if grouped is None:
                moved = False
                continue
            _, inv, cnt = grouped
            c = cnt[inv]
            sx = np.bincount(inv, weights=x)
            sy = np.bincount(inv, weights=y)
            sel = (c > 1).nonzero()[0]
            k = c[sel] - 1.0
            xs, ys, gs = x[sel], y[sel], inv[sel]
            ox = (sx[gs] - xs) / k
            oy = (sy[gs] - ys) / k
            dx, dy = xs - ox, ys - oy
            d = np.hypot(dx, dy)
            ids = idx[sel]
            same = d < 1e-6
            if np.count_nonzero(same):
                ang = ids[same] * _GOLDEN
                dx[same], dy[same] = np.cos(ang), np.sin(ang)
            norm = np.where(same, 1.0, np.maximum(d, 1e-6))
            want = w.size[ids] * (1.0 + 0.6 * np.sqrt(k))   # crowded cells push harder
            push = np.minimum(np.maximum(want - d, 0.0), 0.1)
            if not np.count_nonzero(push) and self._inside:
                moved = False          # a zero push of a unit inside the bounds moves nothing
                continue
            self._move(ids, dx / norm * push, dy / norm * push, xs, ys, None)
            moved = True
        after = (idx.tobytes(), w.x[idx].tobytes(), w.y[idx].tobytes(), w.terrain.version)
        self._settled = after if after == state else None
