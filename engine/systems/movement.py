"""Movement: follow shared flow fields (ground) or fly straight (air), then push apart.

Runs every tick for units with somewhere to go. Units that combat says are busy (stopped to shoot,
or chasing a target) get their goal from combat instead of from their order. Ground units never
step onto a blocked tile; if the straight step is blocked they slide along one axis.
"""
from __future__ import annotations

import numpy as np

from engine.systems.pathfinding import FlowFieldCache
from engine.world import BUILD, FIGHT, MOVE, MOVE_FORCE, NONE, PATROL, World, flat_index

_GOLDEN = 2.399963  # radians; spreads the push direction of exactly overlapping units
_XY = np.arange(2)


def group_ints(values: np.ndarray):
    """(sorted distinct values, index of each value's group, group sizes), like np.unique with
    return_inverse and return_counts at a fifth of its cost on the small arrays of a tick."""
    order = values.argsort(kind="stable")
    s = values[order]
    start = np.empty(s.size, dtype=bool)
    start[:1] = True
    np.not_equal(s[1:], s[:-1], out=start[1:])
    group = start.cumsum() - 1
    inv = np.empty(s.size, dtype=np.int64)
    inv[order] = group
    return s[start], inv, np.bincount(group)


class Movement:
    def __init__(self, world: World, cache: FlowFieldCache):
        self.world = world
        self.cache = cache
        terrain = world.terrain
        self.w, self.h = terrain.width, terrain.height
        self._settled: dict[float, tuple] = {}   # grid -> (ids, positions, terrain version) its pass left unchanged
        self._settled_at: dict[float, tuple] = {}    # grid -> (world version, terrain version, moves) when it was
        self._moves = 0                          # calls of _move: with spawns, the only writes to positions
        self._mobile_version = -1
        self._mobile = self._mobile_ground = np.zeros(0, dtype=np.int64)
        self._ground_flat = np.zeros((0, 2), dtype=np.int64)
        self._ground_size = np.zeros(0)
        self._any_air = False
        self._inside = False
        self._busy = np.zeros(0, dtype=bool)
        self._movers_key: bytes | None = None    # the units and orders `_movers_plan` was made for
        self._movers_plan: tuple = ()
        self._free_key: bytes | None = None      # which of them combat leaves alone, for `_plan`
        self._plan: tuple | None = None
        self._plan_idx = np.zeros(0, dtype=np.int64)     # the movers `_plan` walks
        # (plan, slack left, most a unit moves in a tick): while the slack lasts no unit of that plan
        # can reach its arrival radius, nor come nearer its point than one step
        self._far: tuple = (None, 0.0, 0.0)
        self._slots_key: tuple | None = None
        self._slots = np.zeros(0, dtype=np.int64)
        self._gain = np.zeros(0)
        self._pair_bins = np.zeros((0, 2), dtype=np.int64)
        self._scratch = np.zeros((self.w + 1) * (self.h + 1), dtype=np.int64)   # one entry per separation cell
        self._rank = np.zeros(0, dtype=np.int64)
        self._hi = np.array([self.w - 0.01, self.h - 0.01])          # the largest x, y a unit may reach
        self._last_cell = np.array([self.w - 1, self.h - 1])
        self._field_at_key: tuple | None = None
        self._field_at = np.zeros(0, dtype=np.int64)
        self._fields_open = False                # no field of `_field_at` leads onto a blocked goal

    def _refresh_mobile(self) -> None:
        """Living units that can move (all, and ground only): these change only on spawn / death."""
        w = self.world
        if self._mobile_version != w.version:
            idx = w.alive_idx
            self._mobile = idx[w.speed[idx] > 0]
            self._mobile_ground = self._mobile[~w.is_air[self._mobile]]
            self._any_air = self._mobile_ground.size < self._mobile.size
            self._ground_flat = 2 * self._mobile_ground[:, None] + _XY    # their x, y in the flat position array
            self._ground_size = w.size[self._mobile_ground]
            # positions change only by spawning and by _move, which keeps units inside these bounds
            x, y = w.x[self._mobile], w.y[self._mobile]
            self._inside = not x.size or bool(x.min() >= 0.01 and x.max() <= self.w - 0.01
                                               and y.min() >= 0.01 and y.max() <= self.h - 0.01)
            self._mobile_version = w.version

    def step(self, dt: float, chase: np.ndarray, engaged: np.ndarray, separate: bool) -> list[int]:
        """Advance one tick. `chase`: unit ids combat wants chasing; `engaged`: the units combat
        moves or holds (standing to shoot, or chasing); `separate`: push crowded units apart, on
        two grids offset by half a tile, one after the other.

        Returns the ids that arrived at a move / fight destination this tick (their order ends).
        """
        w = self.world
        if self._mobile_version != w.version:
            self._refresh_mobile()
        idx = self._mobile
        idx = idx[w.order[idx].astype(bool)]      # order != NONE (NONE is 0): a cast beats an int8 compare
        arrived: list[int] = []
        if idx.size or chase.size:
            free = None
            if engaged.size and idx.size:
                # a reused mask, not np.isin: isin costs ~100 us a call on these small arrays
                if self._busy.size < w.count:
                    self._busy = np.zeros(w.capacity, dtype=bool)
                busy = self._busy
                busy[engaged] = True
                free = ~busy[idx]
                busy[engaged] = False
            arrived = self._follow_orders(idx, free, dt)
            if chase.size:
                self._chase(chase, dt)
        if separate and self._mobile_ground.size > 1:
            p = None
            for shift in (0.0, 0.5):
                p = self._separate(shift, p)
        return arrived

    # --- path following ---------------------------------------------------------------------------
    def _follow_orders(self, movers: np.ndarray, free: np.ndarray | None, dt: float) -> list[int]:
        """Move the units with an order (`movers`) that combat leaves to it (`free`: mask over
        `movers`, None for all) one step toward their destination."""
        w = self.world
        if not movers.size:
            return []
        # builders walking to a site stop at reach distance; construction handles the rest
        order, dest = w.order[movers], w.dest.take(movers, axis=0)
        key = movers.tobytes() + order.tobytes() + dest.tobytes()
        if key != self._movers_key:
            self._movers_key, self._movers_plan = key, self._route_plan(movers, order, dest, dt)
            self._plan = None
        free_key = None if free is None else free.tobytes()
        if self._plan is None or free_key != self._free_key:
            self._free_key, self._plan = free_key, self._subset_plan(movers, free)
            self._plan_idx = movers if free is None else movers[free]
        idx = self._plan_idx
        if not idx.size:
            return []
        keys, inv, arrive_r, ground, present, step_max, flat, stops_short, short_steps, clear = self._plan
        p = w.pos.take(idx, axis=0)
        arrived: list[int] = []
        plan, budget, reach = self._far
        if plan is self._plan and budget > 0:
            # still farther from its point than its arrival radius and its step, every unit walks on
            self._far = (plan, budget - reach, reach)
            step = step_max

            def straight() -> np.ndarray:
                off = (dest if free is None else dest[free]) - p
                length = np.hypot(off[:, 0], off[:, 1])
                return off / (np.maximum(length, 1e-9) if stops_short else length)[:, None]
        else:
            d = (dest if free is None else dest[free]) - p
            dist = np.hypot(d[:, 0], d[:, 1])
            done = dist <= arrive_r
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
                idx, p, d, dist, inv, step_max = idx[keep], p[keep], d[keep], dist[keep], inv[keep], step_max[keep]
                if ground is not None:
                    ground = ground[keep]
                present = flat = None
            if not idx.size:
                return arrived
            if stops_short:        # a builder's site (arrival radius 0): a unit may stand on the point itself
                dist = np.maximum(dist, 1e-9)
            step = np.minimum(step_max, dist)
            if not arrived:
                # between two reads a unit moves at most its step and two pushes apart (0.1 tile each):
                # while its slack outlasts that, no unit arrives and every step is the full one
                reach = float(step_max.max()) + 0.2 + 1e-6
                self._far = (self._plan, float((dist - clear).min()) - reach, reach)

            def straight() -> np.ndarray:
                return d / dist[:, None]
        if ground is None and flat is not None:
            u, on_field = self._steer_all(keys, inv, present, straight, p)
        else:
            on_field = False
            u = straight()                    # straight-line direction (air, last tile)
            if ground is None or np.count_nonzero(ground):
                g = ground.nonzero()[0] if ground is not None else None
                self._steer(keys, inv if g is None else inv[g], present, u, p, g)
        if on_field and short_steps and self._inside and self._fields_open:
            # each unit steps less than a tile toward a neighbour cell its field leads to, all open
            # and on the map (as are the cells a diagonal step passes): nothing to clamp or check
            p += u * step[:, None]
            w.pos.put(flat, p)
            self._moves += 1
        else:
            self._move(idx, u * step[:, None], p, ground, flat)
        return arrived

    def _route_plan(self, idx: np.ndarray, order: np.ndarray, dest: np.ndarray, dt: float) -> tuple:
        """What stays fixed while the same units keep the same orders: their destination groups,
        whether each is a builder, each unit's step, and where its x, y lie in the flat position
        array."""
        w = self.world
        cell = dest.astype(np.int64)
        keys, inv, _ = group_ints(cell[:, 1] * self.w + cell[:, 0])
        builds, step_max = order == BUILD, w.speed[idx] * dt
        # with no builder every arrival radius is at least 0.5; steps shorter than this are short for any subset
        return (keys, inv, builds, step_max, (2 * idx[:, None] + _XY), bool(np.count_nonzero(builds)),
                bool(step_max.size and step_max.max() < 0.99))

    def _subset_plan(self, movers: np.ndarray, free: np.ndarray | None) -> tuple:
        """The route plan of the movers combat leaves alone (`free`): destination groups, arrival
        radii, which units walk, the destination groups present among them, each unit's step, where
        the units' x, y lie in the flat position array, whether a unit may get as near as 1e-9 to
        its point without arriving, whether every step is shorter than a tile less the margin
        kept to the map's edge, and how far each unit must be from its point to take a full step
        without arriving."""
        w = self.world
        keys, inv, builds, step_max, xy, any_builder, short_steps = self._movers_plan
        idx = movers
        if free is not None:
            idx, inv, builds, step_max, xy = movers[free], inv[free], builds[free], step_max[free], xy[free]
        # groups going to one point settle in a blob instead of fighting over the exact spot
        counts = np.bincount(inv, minlength=keys.size)
        arrive_r = np.where(builds, 0.0, 0.5 + 0.45 * np.sqrt(counts[inv]))
        # the usual case has no aircraft: then every mover is a ground unit and needs no mask
        ground = ~w.is_air[idx] if self._any_air else None
        present = (counts if ground is None else np.bincount(inv[ground], minlength=keys.size)).nonzero()[0].tolist()
        return (keys, inv, arrive_r, ground, present, step_max, xy.ravel(),
                any_builder and bool(np.count_nonzero(arrive_r < 1e-9)), short_steps, np.maximum(arrive_r, step_max))

    def _steer_all(self, keys: np.ndarray, inv: np.ndarray, present: list[int], straight, p: np.ndarray
                   ) -> tuple[np.ndarray, bool]:
        """`_steer` for the usual case, every mover on foot: each unit's direction along its group's
        flow field, or the straight line (`straight()`) where the field has none (float32 directions
        scale to the same float64 steps as their float64 copies did). Also says whether every unit
        found a field direction."""
        cache = self.cache
        # the slots follow from the plan, the terrain and the fields computed so far
        memo = (self._plan, self.world.terrain.version, cache.computed)
        known = self._field_at_key
        if known is None or known[0] is not memo[0] or known[1:] != memo[1:]:
            slots = self._slots_for(keys, present)
            if slots is None:
                u = straight()
                self._steer(keys, inv, present, u, p, None)
                return u, False
            h, w = cache.stack.shape[1:3]
            self._field_at_key = memo
            self._field_at = slots[inv] * (h * w)
            # a blocked goal (a building) is the one blocked cell a field leads onto
            passable = self.world.terrain.passable
            self._fields_open = all(passable[int(keys[k]) // self.w, int(keys[k]) % self.w] for k in present)
        cell = p.astype(np.int64)
        if not self._inside:   # inside the bounds, truncation already lands on the map
            cell = np.minimum(np.maximum(cell, 0), self._last_cell)
        at = flat_index(cell, self.w)
        at += self._field_at
        has = cache.has_flat[at]
        f = cache.flat.take(at, axis=0)
        if np.count_nonzero(has) == has.size:
            return f, True
        u = straight()
        np.copyto(u, f, where=has[:, None])
        return u, False

    def _steer(self, keys: np.ndarray, ginv: np.ndarray, present: list[int] | None, u: np.ndarray, p: np.ndarray,
               g: np.ndarray | None) -> None:
        """Point the walking units (`g`: their rows in u / p, None for all) along the flow field
        toward their destination group; off the field they keep the straight line."""
        if present is None:
            present = np.bincount(ginv, minlength=keys.size).nonzero()[0].tolist()
        cell = (p if g is None else p[g]).astype(np.int64)
        if not self._inside:   # inside the bounds, truncation already lands on the map
            cell = np.minimum(np.maximum(cell, 0), self._last_cell)
        cx, cy = cell[:, 0], cell[:, 1]
        slots = self._slots_for(keys, present)
        cache = self.cache
        if slots is not None:
            parts = [(slice(None), slots[ginv], cy, cx)]
        else:
            parts = self._chunked_slots(keys, present, np.arange(ginv.size), ginv, cy, cx)
        for sub, sl, my, mx in parts:
            f = cache.stack[sl, my, mx]
            has = (f[:, 0] != 0) | (f[:, 1] != 0)
            if g is None and isinstance(sub, slice):
                np.copyto(u, f, where=has[:, None])
            else:
                at = g[sub] if g is not None else sub
                u[at] = np.where(has[:, None], f, u[at])

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
        """More destinations than cache slots: the first `capacity` (by cell) follow their fields, the
        others walk the straight line. Looking all of them up would evict and recompute every field
        on every tick (a rule ordering units to many points could stall the run)."""
        terrain, cache = self.world.terrain, self.cache
        slot_of = np.zeros(keys.size, dtype=np.int64)
        chunk = present[:cache.capacity]
        for k in chunk:
            cell = int(keys[k])
            slot_of[k] = cache.slot(terrain.passable, terrain.version, cell % self.w, cell // self.w)
        m = np.isin(ginv, chunk)
        yield g[m], slot_of[ginv[m]], cy[m], cx[m]

    def _chase(self, idx: np.ndarray, dt: float) -> None:
        """Close in on the current target in a straight line (targets are within sight)."""
        w = self.world
        speed = w.speed[idx]
        mobile = speed > 0
        if np.count_nonzero(mobile) < idx.size:
            idx, speed = idx[mobile], speed[mobile]
            if not idx.size:
                return
        p = w.pos.take(idx, axis=0)
        d = w.pos.take(w.target[idx], axis=0) - p
        dist = np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)
        step = speed * dt
        self._move(idx, d / dist[:, None] * step[:, None], p, ~w.is_air[idx] if self._any_air else None)

    def _move(self, idx: np.ndarray | None, m: np.ndarray, p0: np.ndarray, ground: np.ndarray | None,
              flat: np.ndarray | None = None) -> np.ndarray:
        """Apply displacement `m` (n, 2) to units at `p0` (n, 2), sliding along walls for ground
        units (`ground`: mask over idx, None when all of them are). `flat`: where the units' x, y
        lie in the flattened position array, when known (then `idx` is not read). Returns the
        units' new positions."""
        w = self.world
        self._moves += 1
        p = p0 + m
        np.maximum(p, 0.01, out=p)
        np.minimum(p, self._hi, out=p)
        passable = w.terrain.passable
        ok = passable.reshape(-1)[flat_index(p.astype(np.int64), self.w)]
        if np.count_nonzero(ok) < ok.size:
            # blocked: ground units stepping off an open tile (one standing on a blocked tile, e.g.
            # where a building went up, may walk off it; aircraft fly anywhere)
            bad = (~ok).nonzero()[0]
            pf = passable.reshape(-1)
            q0 = p0.take(bad, axis=0)
            c0 = q0.astype(np.int64)
            at0 = flat_index(c0, self.w)
            stuck = pf[at0]
            if ground is not None:
                stuck &= ground[bad]
            if np.count_nonzero(stuck) < stuck.size:
                bad, q0, c0, at0 = bad[stuck], q0[stuck], c0[stuck], at0[stuck]
            if bad.size:
                # try x only, then y only, else stay: the x-only step's tile is the old row at the
                # new column, the y-only step's the new row at the old column
                q = p.take(bad, axis=0)
                c1 = q.astype(np.int64)
                dx = c1[:, 0] - c0[:, 0]
                ox = pf[at0 + dx]
                oy = pf[flat_index(c1, self.w) - dx]
                p[bad] = np.where(np.stack((ox, ~ox & oy), axis=1), q, q0)
        if flat is None:
            w.pos[idx] = p
        else:
            w.pos.put(flat, p)
        return p

    # --- separation -------------------------------------------------------------------------------
    def _separate(self, shift: float, p: np.ndarray | None) -> np.ndarray | None:
        """Push apart mobile ground units sharing a cell of the grid offset by `shift` tiles. `p`:
        their positions if known (updated in place); returns their positions after the pass (None
        if not read)."""
        w = self.world
        idx = self._mobile_ground
        n = idx.size
        now = (w.version, w.terrain.version, self._moves)
        if self._settled_at.get(shift) == now:
            return p            # nothing spawned, died or moved since this grid's pass found them settled
        if p is None:
            p = w.pos.take(idx, axis=0)
        # a pass is a pure function of these; when the last pass left them as it found them, so would this one
        settled = self._settled.get(shift)
        if settled is not None and settled == (idx.tobytes(), p.tobytes(), w.terrain.version):
            self._settled_at[shift] = now
            return p
        if self._gain.size <= n:
            # the push gain of a unit whose cell holds c units: crowded cells push harder
            self._gain = 1.0 + 0.6 * np.sqrt(np.maximum(np.arange(2 * n + 2) - 1.0, 0.0))
            self._pair_bins = 2 * np.arange(2 * n + 2)[:, None] + _XY     # a cell's x-sum and y-sum bins
        cell = (p + shift if shift else p).astype(np.int64)
        rep = self._cell_rep(flat_index(cell, self.w + 1))
        c = np.bincount(rep, minlength=n).take(rep)
        sel = (c > 1).nonzero()[0]
        if not sel.size:           # no two units share a cell
            self._settled[shift], self._settled_at[shift] = (idx.tobytes(), p.tobytes(), w.terrain.version), now
            return p
        cs = c.take(sel)
        ps = p.take(sel, axis=0)
        # x, y sums of the crowded cells in one bincount: only their units add to those bins, in unit
        # order, whichever unit represents the cell
        bins = self._pair_bins.take(rep.take(sel), axis=0)
        sums = np.bincount(bins.ravel(), weights=ps.ravel(), minlength=2 * n)
        others = (sums.take(bins) - ps) / (cs - 1.0)[:, None]     # centre of the cell's other units
        dxy = ps - others
        d = np.hypot(dxy[:, 0], dxy[:, 1])
        same = d < 1e-6
        if np.count_nonzero(same):
            ang = idx[sel[same]] * _GOLDEN
            dxy[same, 0], dxy[same, 1] = np.cos(ang), np.sin(ang)
            norm = np.where(same, 1.0, np.maximum(d, 1e-6))
        else:
            norm = d
        want = self._ground_size.take(sel) * self._gain.take(cs)
        push = np.minimum(np.maximum(want - d, 0.0), 0.1)
        if not np.count_nonzero(push) and self._inside:   # a zero push inside the bounds moves nothing
            self._settled[shift], self._settled_at[shift] = (idx.tobytes(), p.tobytes(), w.terrain.version), now
            return p
        q = self._move(None, dxy / norm[:, None] * push[:, None], ps, None, self._ground_flat.take(sel, axis=0))
        if q.tobytes() == ps.tobytes():
            self._settled[shift] = (idx.tobytes(), p.tobytes(), w.terrain.version)
            self._settled_at[shift] = (w.version, w.terrain.version, self._moves)
            return p
        self._settled.pop(shift, None)
        p.put(self._pair_bins.take(sel, axis=0), q)     # p[sel] = q, as flat indices (the pair bins of unit rows)
        return p

    def _cell_rep(self, cells: np.ndarray) -> np.ndarray:
        """For each unit, the position of one unit of its cell (the same for the whole cell). A
        scratch grid instead of a sort: cheaper per tick."""
        if not self._inside:    # cells off the grid: fall back to sorting
            return group_ints(cells)[1]
        n = cells.size
        if self._rank.size < n:
            self._rank = np.arange(2 * n, dtype=np.int64)
        self._scratch[cells] = self._rank[:n]
        return self._scratch[cells]
