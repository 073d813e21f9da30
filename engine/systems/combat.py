"""Combat: target acquisition (every few ticks) and firing (every tick).

Acquisition picks the nearest valid enemy: not allied, of a kind the weapon can hit (ground /
air), visible to the shooter's team when fog is on, and within the acquisition radius — the weapon
range, or the sight radius for units on attack-move / patrol, which stop to shoot and chase.
`move_force` units ignore enemies entirely. Damage is reduced by the target's armour; splash
weapons hurt every non-allied unit around the impact.
"""
from __future__ import annotations

import numpy as np

from engine.world import FIGHT, MOVE_FORCE, PATROL, World



def chases(orders: np.ndarray) -> np.ndarray:
    """Which of these orders stop to shoot and chase (attack-move, patrol); cheaper than np.isin."""
    return (orders == FIGHT) | (orders == PATROL)


class Combat:
    def __init__(self, world: World, hostile: np.ndarray):
        self.world = world
        self.hostile = hostile            # (16, 16) bool: team a may shoot team b
        self.shooters = np.zeros(0, dtype=np.int64)
        self.chasing = np.zeros(0, dtype=np.int64)
        self.standing = np.zeros(0, dtype=np.int64)

    # --- acquisition ------------------------------------------------------------------------------
    def retarget(self, visible: dict[int, np.ndarray] | None) -> None:
        w = self.world
        idx = w.alive_idx
        armed = idx[w.armed[idx] & (w.progress[idx] >= 1.0) & (w.order[idx] != MOVE_FORCE)]
        w.target[idx[w.order[idx] == MOVE_FORCE]] = -1
        if not armed.size:
            self.shooters = armed
            return
        cand = idx
        cx, cy = w.x[cand], w.y[cand]
        c_air = w.is_air[cand]
        c_team = w.team[cand]
        c_size = w.size[cand]
        for team in np.unique(w.team[armed]):
            a = armed[w.team[armed] == team]
            enemy = self.hostile[team, c_team]
            if visible is not None:
                grid = visible[int(team)]
                enemy &= grid[cy.astype(np.int64), cx.astype(np.int64)]
            e = np.flatnonzero(enemy)
            if not e.size:
                w.target[a] = -1
                continue
            chase = chases(w.order[a]) & ~w.hold[a]
            reach = np.where(chase, np.maximum(w.w_range[a], w.sight[a]), w.w_range[a])
            dx = w.x[a][:, None].astype(np.float32) - cx[e][None, :].astype(np.float32)
            dy = w.y[a][:, None].astype(np.float32) - cy[e][None, :].astype(np.float32)
            d2 = dx * dx + dy * dy
            lim = reach[:, None] + c_size[e][None, :]
            ok = d2 <= (lim * lim).astype(np.float32)
            # weapon kind: hits_air for air targets, hits_ground for the rest
            kind_ok = np.where(c_air[e][None, :], w.hits_air[a][:, None], w.hits_ground[a][:, None])
            ok &= kind_ok
            minr = w.w_min_range[a]
            if minr.any():
                ok &= d2 >= (minr * minr)[:, None].astype(np.float32)
            d2 = np.where(ok, d2, np.float32(np.inf))
            best = np.argmin(d2, axis=1)
            found = ok[np.arange(a.size), best]
            w.target[a] = np.where(found, cand[e[best]], -1)
        self.shooters = armed[w.target[armed] >= 0]

    # --- firing -----------------------------------------------------------------------------------
    def fire(self, dt: float, stats_damage: np.ndarray, stats_received: np.ndarray) -> np.ndarray:
        """One tick of shooting. Returns ids whose hp dropped to 0 (not yet removed)."""
        w = self.world
        cd = w.cooldown
        sh = self.shooters
        if sh.size:
            alive = w.alive[sh]
            tgt = w.target[sh]
            valid = alive & (tgt >= 0)
            valid[valid] &= w.alive[tgt[valid]]
            if not valid.all():
                dead_tgt = sh[alive & ~valid]
                w.target[dead_tgt] = -1
                sh, tgt = sh[valid], tgt[valid]
                self.shooters = sh
        if not sh.size:
            self.chasing = self.standing = sh
            return sh
        cd[sh] -= dt
        dx = w.x[tgt] - w.x[sh]
        dy = w.y[tgt] - w.y[sh]
        d2 = dx * dx + dy * dy
        r = w.w_range[sh] + w.size[tgt]
        in_range = d2 <= r * r
        chase_mode = chases(w.order[sh]) & ~w.hold[sh]
        self.standing = sh[in_range & chase_mode]
        self.chasing = sh[~in_range & chase_mode]
        fire = in_range & (cd[sh] <= 0)
        if not fire.any():
            return np.zeros(0, dtype=np.int64)
        f, t = sh[fire], tgt[fire]
        cd[f] = np.maximum(cd[f], 0.0) + w.w_reload[f]
        dmg = w.w_damage[f] * (1.0 - w.armor[t])
        n = w.count
        loss = np.bincount(t, weights=dmg, minlength=n)
        stats_damage += np.bincount(w.team[f], weights=dmg, minlength=stats_damage.size)
        w.last_hit_team[t] = w.team[f]
        splash = w.w_splash[f] > 0
        if splash.any():
            for s, victim in zip(f[splash].tolist(), t[splash].tolist()):
                loss += self._splash(s, victim, stats_damage)
        hit = np.flatnonzero(loss[:n])
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
