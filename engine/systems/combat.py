"""Combat: target acquisition (every few ticks) and firing (every tick).

Acquisition picks the nearest valid enemy: not allied, of a kind the weapon can hit (ground /
air), visible to the shooter's team when fog is on, and within the acquisition radius — the weapon
range, or the sight radius for units on attack-move / patrol, which stop to shoot and chase.
`move_force` units ignore enemies entirely. Damage is reduced by the target's armour;
splash weapons hurt every non-allied unit around the impact; a weapon with a minimum range cannot hit
closer targets.

Weapons: a weapon deals its damage per shot once every reload seconds. A unit is ready to fire when
it appears, so its first shot lands the moment a target is in range, and the cooldown runs down only
while it has a target: a slow heavy weapon (say 900 damage every 10 s) deals its whole volley at
first contact, then nothing until it reloads. Weapon range is how far a unit shoots; sight radius is
how far it sees under fog and how far units on attack-move or patrol pick and chase targets; units
without such an order engage only within weapon range. "Nearest" is centre to centre; a target is in
reach when its centre is within the reach plus its own size, a radius (its edge). Nothing repairs and no hp
regenerates: hp changes only by damage and by a rule's heal().
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from engine.snapshot import ENVIRONMENT
from engine.systems.cloak import hidden
from engine.world import FIGHT, MOVE_FORCE, ORDER_NAMES, PATROL, World

if TYPE_CHECKING:
    from engine.systems.vision import Vision

# Large armies search enemies bucketed on a grid, so the cost grows with the units rather than with their square.
DENSE_PAIRS = 200_000   # up to this many shooter-enemy pairs, one dense matrix beats bucketing
BUCKET = 4.0            # tiles per grid cell of the bucketed search


_CHASES = np.isin(np.arange(len(ORDER_NAMES)), [FIGHT, PATROL])
_ACQUIRES = np.arange(len(ORDER_NAMES)) != MOVE_FORCE


def chases(orders: np.ndarray) -> np.ndarray:
    """Which of these orders stop to shoot and chase (attack-move, patrol): one table lookup
    (`take`: indexing by an int8 array costs three times as much)."""
    return _CHASES.take(orders)


class Combat:
    def __init__(self, world: World, hostile: np.ndarray, alliances: dict[int, frozenset[int]]):
        self.world = world
        self.hostile = hostile            # (SIDES, SIDES) bool: team a may shoot team b
        self.alliances = alliances        # team -> it and its allies, whose detectors reveal cloaked units to it
        self.shooters = np.zeros(0, dtype=np.int64)
        self._reach2 = np.zeros(0)        # per shooter: (weapon range + its target's size) squared
        self.chasing = np.zeros(0, dtype=np.int64)     # shooters closing in on their target
        self.engaged = np.zeros(0, dtype=np.int64)     # shooters that stop to shoot or chase (movement leaves them)
        self._mode_key: tuple | None = None     # (shooters, their orders, hold flags) the next two are for
        self._chase_mode = np.zeros(0, dtype=bool)
        self._engaged = self.engaged
        self._checked: tuple | None = None   # (world version, shooters, targets) when all of them were alive

    # --- acquisition ------------------------------------------------------------------------------
    def retarget(self, vision: Vision | None) -> None:
        """New targets for every armed unit; `vision` (None without fog) says what each team sees."""
        w = self.world
        idx = w.alive_idx
        acquires = _ACQUIRES.take(w.order[idx])
        if np.count_nonzero(acquires) < idx.size:
            w.target[idx[~acquires]] = -1
        armed = idx[w.armed[idx] & (w.progress[idx] >= 1.0) & acquires]
        if w.fire_banned:                   # units a rule forbade to fire aim at nothing
            banned = w.no_fire[armed]
            w.target[armed[banned]] = -1
            armed = armed[~banned]
        if not armed.size:
            self.shooters, self._reach2 = armed, np.zeros(0)
            return
        cand = idx
        c_team = w.team[cand]
        tile = None             # the candidates' tiles, read once an armed team has enemies to see
        teams = w.team[armed]
        for team in sorted(set(teams.tolist())):
            a = armed[teams == team]
            enemy = self.hostile[team, c_team]
            e = cand[enemy]
            if vision is not None and e.size and team != ENVIRONMENT:   # the environment sees the whole map
                if tile is None:
                    tile = w.pos.take(cand, axis=0).astype(np.int32)   # as int32 as the discs it meets
                at = tile[enemy]
                e = e[vision.sees_tiles(team, at[:, 0], at[:, 1])]
            if w.cloak_used and e.size:
                e = e[~hidden(w, self.alliances.get(team, frozenset({team})), e)]
            if not e.size:
                w.target[a] = -1
                continue
            chase = chases(w.order[a]) & ~w.hold[a]
            reach = np.where(chase, np.maximum(w.w_range[a], w.sight[a]), w.w_range[a])
            pick = _nearest_dense if a.size * e.size <= DENSE_PAIRS else _nearest_bucketed
            w.target[a] = pick(w, a, reach, e)
        self.shooters = sh = armed[w.target[armed] >= 0]
        # targets stay until the next acquisition (or are dropped): so does each shooter's reach
        r = w.w_range[sh] + w.size[w.target[sh]]
        self._reach2 = r * r

    # --- firing -----------------------------------------------------------------------------------
    def fire(self, dt: float, stats_damage: np.ndarray, stats_received: np.ndarray) -> np.ndarray:
        """One tick of shooting. Returns ids whose hp dropped to 0 (not yet removed)."""
        w = self.world
        cd = w.cooldown
        sh = self.shooters
        if sh.size:
            tgt = w.target[sh]
            # with no spawn or death since the last check, shooters aiming at the same targets are all valid
            checked = (w.version, sh.tobytes(), tgt.tobytes())
            if checked != self._checked:
                alive = w.alive[sh]
                valid = alive & w.alive[tgt]          # no target (-1) reads the world's last slot, never a unit
                if np.count_nonzero(valid) < valid.size:
                    dead_tgt = sh[alive & ~valid]
                    w.target[dead_tgt] = -1
                    sh, tgt = sh[valid], tgt[valid]
                    self.shooters = sh
                    self._reach2 = self._reach2[valid]
                    checked = (w.version, sh.tobytes(), tgt.tobytes())
                self._checked = checked
        if not sh.size:
            self.chasing = self.engaged = sh
            return sh
        left = cd[sh] - dt
        cd[sh] = left
        d = w.pos.take(tgt, axis=0) - w.pos.take(sh, axis=0)
        d *= d
        d2 = d[:, 0] + d[:, 1]
        in_range = d2 <= self._reach2
        order, hold = w.order[sh], w.hold[sh]
        mode_key = (sh.tobytes(), order.tobytes(), hold.tobytes())
        if mode_key != self._mode_key:      # orders change far less often than every tick
            self._mode_key = mode_key
            self._chase_mode = chases(order) & ~hold
            self._engaged = sh[self._chase_mode]
        chase_mode = self._chase_mode
        self.engaged = self._engaged
        self.chasing = sh[~in_range & chase_mode]
        fire = in_range & (left <= 0)
        if not np.count_nonzero(fire):
            return np.zeros(0, dtype=np.int64)
        f, t = sh[fire], tgt[fire]
        cd[f] = np.maximum(cd[f], 0.0) + w.w_reload[f]
        dmg = w.w_damage[f] * (1.0 - w.armor[t])
        n = w.count
        loss = np.bincount(t, weights=dmg, minlength=n)
        stats_damage += np.bincount(w.team[f], weights=dmg, minlength=stats_damage.size)
        w.last_hit_team[t] = w.team[f]
        splash = w.w_splash[f] > 0
        if np.count_nonzero(splash):
            for s, victim in zip(f[splash].tolist(), t[splash].tolist()):
                loss += self._splash(s, victim, stats_damage)
        hit = loss[:n].nonzero()[0]
        w.hp[hit] -= loss[hit]
        stats_received += np.bincount(w.team[hit], weights=loss[hit], minlength=stats_received.size)
        return hit[w.hp[hit] <= 0]

    def _splash(self, shooter: int, victim: int, stats_damage: np.ndarray) -> np.ndarray:
        """Extra damage around the impact point to every other non-allied unit in the radius."""
        w = self.world
        idx = w.alive_idx
        radius = w.w_splash[shooter]
        d2 = (w.x[idx] - w.x[victim]) ** 2 + (w.y[idx] - w.y[victim]) ** 2
        team = w.team[shooter]
        hit = idx[(d2 <= radius * radius) & self.hostile[team, w.team[idx]] & (idx != victim) & ~w.is_air[idx]]
        out = np.zeros(w.count, dtype=np.float64)
        if hit.size:
            dmg = w.w_damage[shooter] * 0.5 * (1.0 - w.armor[hit])
            out[hit] = dmg
            w.last_hit_team[hit] = team
            stats_damage[team] += dmg.sum()
        return out


# --- nearest valid enemy ---------------------------------------------------------------------------
# Both searches give the same answer for the same input: the nearest valid enemy by float32 squared
# distance, ties to the lowest id, -1 when none is in reach.

def _valid(w: World, a: np.ndarray, reach: np.ndarray, e: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """Which (shooter, enemy) pairs, given as equal-length id arrays with their float32 squared
    distances, are in reach, of a kind the weapon hits and beyond its minimum range."""
    lim = reach + w.size[e]
    ok = d2 <= (lim * lim).astype(np.float32)
    # weapon kind: hits_air for air targets, hits_ground for the rest
    ok &= np.where(w.is_air[e], w.hits_air[a], w.hits_ground[a])
    minr = w.w_min_range[a]
    ok &= d2 >= (minr * minr).astype(np.float32)
    return ok


def _nearest_dense(w: World, a: np.ndarray, reach: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Every shooter against every enemy: cheapest for the few units of a small scenario.

    The matrix holds only distances: each shooter's nearest enemy of a kind it may hit is its
    target when that one is in reach (nothing valid is nearer); when not even the largest enemy
    could be in reach at that distance, nothing is. Only the shooters left undecided (a nearer
    small enemy just out of reach, a farther large one perhaps in it) get the full pair test."""
    pa = w.pos.take(a, axis=0).astype(np.float32)
    pe = w.pos.take(e, axis=0).astype(np.float32).T
    d2 = pa[:, :1] - pe[0]
    dy = pa[:, 1:] - pe[1]
    d2 *= d2
    dy *= dy
    d2 += dy
    air = w.is_air[e]
    n_air = int(np.count_nonzero(air))
    if n_air == 0 or n_air == e.size:      # one kind of enemy: a shooter hits all of them or none
        hits = (w.hits_air if n_air else w.hits_ground)[a]
        if np.count_nonzero(hits) < hits.size:
            d2[~hits] = np.inf
    else:
        d2[~np.where(air, w.hits_air[a][:, None], w.hits_ground[a][:, None])] = np.inf
    minr = w.w_min_range[a]
    if np.count_nonzero(minr):              # closer than its minimum range (0 for most: no pair is)
        np.copyto(d2, np.inf, where=d2 < (minr * minr).astype(np.float32)[:, None])
    best = d2.argmin(axis=1)
    m = d2[np.arange(a.size), best]      # the row minima, read where argmin found them
    target = e[best]
    lim = reach + w.size[target]
    found = m <= (lim * lim).astype(np.float32)
    out = np.where(found, target, -1)
    far = reach + w.size[e].max()
    open_ = ~found & (m <= (far * far).astype(np.float32))
    if np.count_nonzero(open_):
        out[open_] = _nearest_dense_pairs(w, a[open_], reach[open_], e)
    return out


def _nearest_dense_pairs(w: World, a: np.ndarray, reach: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Every shooter against every enemy, each pair tested in full."""
    dx = w.x[a][:, None].astype(np.float32) - w.x[e][None, :].astype(np.float32)
    dy = w.y[a][:, None].astype(np.float32) - w.y[e][None, :].astype(np.float32)
    d2 = dx * dx + dy * dy
    ok = _valid(w, a[:, None], reach[:, None], e[None, :], d2)
    d2 = np.where(ok, d2, np.float32(np.inf))
    best = np.argmin(d2, axis=1)
    found = ok[np.arange(a.size), best]
    return np.where(found, e[best], -1)


def _enemies_around(ex: np.ndarray, ey: np.ndarray, ax: np.ndarray, ay: np.ndarray, radius: float) -> np.ndarray:
    """Mask over shooters: is any enemy in the 3x3 block of `radius`-wide cells around it? Those
    without one have nothing in reach, which spares them the ring search."""
    cell = radius + 0.01
    cols = int(max(ex.max(), ax.max()) // cell) + 1
    rows = int(max(ey.max(), ay.max()) // cell) + 1
    counts = np.bincount((ey // cell).astype(np.int64) * cols + (ex // cell).astype(np.int64), minlength=rows * cols)
    # 3x3 block sums from a summed-area table padded with two zero rows / columns before, one after
    table = np.zeros((rows + 3, cols + 3), dtype=np.int64)
    table[2:-1, 2:-1] = counts.reshape(rows, cols)
    table = table.cumsum(0).cumsum(1)
    block = table[3:, 3:] - table[:-3, 3:] - table[3:, :-3] + table[:-3, :-3]
    return block[(ay // cell).astype(np.int64), (ax // cell).astype(np.int64)] > 0


@lru_cache(maxsize=8)
def _rings(radius: int) -> list[tuple[int, np.ndarray]]:
    """The searches in order, as (cells of coverage, cell offsets (dx, dy)): the 3x3 block around
    a shooter's cell, where a melee finds its nearest enemy, then each ring further out."""
    out = []
    for r in range(1, radius + 1):
        d = np.arange(-r, r + 1)
        dx, dy = np.meshgrid(d, d)
        ring = np.maximum(np.abs(dx), np.abs(dy)) >= (r if r > 1 else 0)
        out.append((r, np.stack([dx[ring], dy[ring]], axis=1)))
    return out


def _group_heads(ps: np.ndarray) -> np.ndarray:
    """Start of each run of equal values in `ps` (sorted)."""
    flag = np.empty(ps.size, dtype=bool)
    flag[0] = True
    np.not_equal(ps[1:], ps[:-1], out=flag[1:])
    return flag.nonzero()[0]


def _nearest_bucketed(w: World, a: np.ndarray, reach: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Enemies bucketed on a grid of BUCKET-tile cells. Each shooter searches the 3x3 cells around
    its own, then ring after ring further out while an enemy in an unsearched cell could still be
    nearer than its best find and within its reach. In a melee the nearest enemy is a cell away, so
    the cost follows units x local density instead of units squared."""
    cs = BUCKET
    ex, ey = w.x[e], w.y[e]
    cols = int(max(ex.max(), w.x[a].max()) // cs) + 1
    rows = int(max(ey.max(), w.y[a].max()) // cs) + 1
    e_cell = (ey // cs).astype(np.int64) * cols + (ex // cs).astype(np.int64)
    order = e_cell.argsort(kind="stable")
    counts = np.bincount(e_cell, minlength=rows * cols)
    starts = counts.cumsum() - counts
    acx, acy = (w.x[a] // cs).astype(np.int64), (w.y[a] // cs).astype(np.int64)
    horizon = reach + w.size[e].max()          # no valid enemy lies farther than this
    best_d2 = np.full(a.size, np.inf, dtype=np.float32)
    best = np.full(a.size, e.size, dtype=np.int64)      # position in `e`; e.size = none
    live = (_enemies_around(ex, ey, w.x[a], w.y[a], float(horizon.max()))).nonzero()[0]
    for r, ring in _rings(int(horizon.max() // cs) + 1):
        nx = acx[live][:, None] + ring[None, :, 0]
        ny = acy[live][:, None] + ring[None, :, 1]
        inside = (nx >= 0) & (nx < cols) & (ny >= 0) & (ny < rows)
        nb = np.where(inside, ny * cols + nx, 0).ravel()
        lens = np.where(inside.ravel(), counts[nb], 0)
        total = int(lens.sum())
        if total:
            # pair k: shooter live[ps[k]] with the enemy at position pe[k] of `e`, grouped by shooter
            ps = np.repeat(np.repeat(np.arange(live.size), ring.shape[0]), lens)
            pe = order[np.repeat(starts[nb] - (lens.cumsum() - lens), lens) + np.arange(total)]
            sa, se = a[live[ps]], e[pe]
            dx = w.x[sa].astype(np.float32) - w.x[se].astype(np.float32)
            dy = w.y[sa].astype(np.float32) - w.y[se].astype(np.float32)
            d2 = dx * dx + dy * dy
            ok = _valid(w, sa, reach[live[ps]], se, d2)
            if np.count_nonzero(ok):
                ps, pe, d2 = ps[ok], pe[ok], d2[ok]
                head = _group_heads(ps)
                near = np.minimum.reduceat(d2, head)
                # among the nearest, the lowest id (position in `e`, which is in id order)
                tie = np.where(d2 == np.repeat(near, np.diff(head, append=ps.size)), pe, e.size)
                low = np.minimum.reduceat(tie, head)
                who = live[ps[head]]
                better = (near < best_d2[who]) | ((near == best_d2[who]) & (low < best[who]))
                best_d2[who[better]], best[who[better]] = near[better], low[better]
        # every enemy closer than r cells' width has been seen (less a margin for float32 rounding)
        covered = r * cs - 1e-3
        done = (best_d2[live] < np.float32(covered * covered)) | (horizon[live] < covered)
        live = live[~done]
        if not live.size:
            break
    return np.where(best < e.size, e[np.minimum(best, e.size - 1)], -1)
