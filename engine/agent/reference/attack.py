"""attack: the army (and reinforcements) attack-moves onto a target unit / point; with
`attack_at_army` it musters at home until the army is that large, then commits for good."""
from __future__ import annotations

import numpy as np

from engine.agent.observation import visible_enemy_ids
from engine.agent.policy import centroid
from engine.agent.reference.infer import xy
from engine.agent.reference.strategy import Strategy


class Attack(Strategy):
    """The army attack-moves to the visible enemy unit matching target_tag/target_type/target_team
    nearest to the army's centroid; while none is visible (fog) it goes for the last seen spot of such
    a target (only with a scout role), else checks the `search` points not yet seen, nearest first,
    then heads for `target`, else for the nearest visible enemy of any kind (with a scout role: or
    remembered), else it stays. With attack_at_army it musters at home until
    the army has that many units, then commits for good. It never waits for or escorts own units:
    escorted or protected units are left behind unless they move themselves (see the escort
    role)."""

    name = "attack"
    params = {"target_tag": "tag of the enemy unit(s) to destroy", "target_type": "unit type to destroy",
              "target_team": "team owning the target (default: any hostile team)",
              "target": "[x, y] to attack-move to while no target unit is visible",
              "search": "list of [x, y] candidate sites where the target may stand (the briefing names them): "
                        "while it is not in sight, the army goes to the nearest site its team has not seen yet",
              "engage_at": "game second before which the army waits where it is (default 0)",
              "attack_at_army": "army size to muster at home before attacking (default 0: attack at once)"}

    def __init__(self, ref):
        super().__init__(ref)
        self.committed = False
        self.sites = [p for p in (xy(v) for v in self.spec.get("search") or []) if p is not None]
        self.seen_sites: set[int] = set()

    def decide(self, sim) -> list[dict]:
        ref = self.ref
        actions = ref.reinforce(sim)
        if sim.time < float(self.spec.get("engage_at", 0.0)):
            return actions
        if not self.committed and ref.army(sim).size < int(self.spec.get("attack_at_army", 0)):
            return actions + ref.send(sim, ref.home)
        self.committed = True
        target = self._target_point(sim)
        if target is None:
            target = ref.nearest_enemy(sim)
        if target is None:
            return actions
        return actions + ref.send(sim, target)

    def _target_point(self, sim) -> tuple[float, float] | None:
        ref = self.ref
        w = sim.world
        tag, ttype, tteam = self.spec.get("target_tag"), self.spec.get("target_type"), self.spec.get("target_team")
        if tag or ttype:
            ids = visible_enemy_ids(sim, ref.team)
            ids = ids[np.isin(ids, w.select(team=tteam, tag=tag, type_name=ttype))]
            if ids.size:
                army = ref.army(sim)
                c = centroid(w, army) if army.size else ref.home
                i = int(ids[np.argmin(np.hypot(w.x[ids] - c[0], w.y[ids] - c[1]))])
                return float(w.x[i]), float(w.y[i])
            # a target the scout saw: its static tag / type / team tell it apart, its life is not read
            known = ref.memory.ids()
            match = np.ones(known.size, dtype=bool)
            if tag:
                match &= np.array([w.tags[i] == tag for i in known.tolist()], dtype=bool)
            if ttype:
                match &= np.array([w.type_name(i) == ttype for i in known.tolist()], dtype=bool)
            if tteam is not None:
                match &= w.team[known] == int(tteam)
            seen = ref.remembered_enemy_near(sim, None, known[match])
            if seen is not None:
                return seen
        site = self._unseen_site(sim)
        if site is not None:
            return site
        # not in sight (fog): head for the point the briefing gives
        return xy(self.spec.get("target"))

    def _unseen_site(self, sim) -> tuple[float, float] | None:
        """The nearest candidate site the team has not seen yet (None when every one was seen)."""
        if not self.sites:
            return None
        w = sim.world
        left = [k for k in range(len(self.sites)) if k not in self.seen_sites]
        if left and sim.fog:
            tx = np.array([min(max(int(self.sites[k][0]), 0), w.terrain.width - 1) for k in left], dtype=np.int64)
            ty = np.array([min(max(int(self.sites[k][1]), 0), w.terrain.height - 1) for k in left], dtype=np.int64)
            seen = sim.vision.sees_tiles(self.ref.team, tx, ty)
            self.seen_sites.update(k for k, s in zip(left, seen) if s)
        elif left:
            self.seen_sites.update(left)
        left = [k for k in left if k not in self.seen_sites]
        if not left:
            return None
        army = self.ref.army(sim)
        c = centroid(w, army) if army.size else self.ref.home
        k = min(left, key=lambda k: (np.hypot(self.sites[k][0] - c[0], self.sites[k][1] - c[1]), k))
        return self.sites[k]
