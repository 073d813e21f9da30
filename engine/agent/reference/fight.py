"""fight: wait until `engage_at`, then attack the nearest enemy group (with the allies). With
`join_allies` the army first closes up with the nearest allied team's army (when farther than
`join_radius`), so both hit the same enemy group instead of being beaten one at a time. With
`sweep` points (the map's starts) an army that sees no enemy searches them, so a game won only by
putting out every rival is not left standing still while one hides in the fog."""
from __future__ import annotations

import math

import numpy as np

from engine.agent.observation import visible_enemy_ids
from engine.agent.policy import COMMANDER, centroid
from engine.agent.reference.strategy import Strategy


class Fight(Strategy):
    """Until engage_at the army waits at home; then it attack-moves to the visible enemy nearest to
    its army (and its allies' army, preferring damaged ones), chasing anywhere; with join_allies it
    first closes up with the nearest allied team's army while that is farther than join_radius. With no visible
    enemy it stays put (with a scout role: it goes to the last seen spot of the remembered enemy
    nearest to it; with sweep points: it attack-moves to the nearest one its army has not yet come
    within sweep_radius tiles of)."""

    name = "fight"
    params = {"engage_at": "game second before which the army waits at home (default 0)",
              "join_allies": "bool (default false): close up with the allied army before engaging",
              "join_radius": "tiles (default 10): how close to the allied army counts as joined",
              "sweep": "list of [x, y] points (default none) the army searches, nearest first, when it sees no enemy",
              "sweep_radius": "tiles (default 6): how close the army's centre comes to a sweep point to have "
                              "searched it",
              "guard_radius": "tiles (default 0: none): before engage_at the army strikes a visible enemy within "
                              "this distance of its home (one attacking what it left there) and walks back after",
              "guard_with_commander": "bool (default false): the commander, which stays at home, joins each such "
                                      "strike (it fights beside the army instead of after it) and walks back to its "
                                      "start after"}

    def __init__(self, ref):
        super().__init__(ref)
        self.unsearched = [(float(p[0]), float(p[1])) for p in self.spec.get("sweep") or []]
        self.commander_post: dict[int, tuple[float, float]] = {}
        self.commander_goal: dict[int, tuple[float, float]] = {}

    def decide(self, sim) -> list[dict]:
        ref = self.ref
        if sim.time < float(self.spec.get("engage_at", 0.0)):
            intruder = self._intruder(sim)
            return ref.send(sim, intruder or ref.home) + self._commander(sim, intruder)
        if self.spec.get("join_allies"):
            rally = self._ally_rally(sim)
            if rally is not None:
                return ref.send(sim, rally)
        target = ref.nearest_enemy(sim)
        if target is None:
            target = self._sweep(sim)
        return ref.send(sim, target) if target is not None else []

    def _commander(self, sim, intruder: tuple[float, float] | None) -> list[dict]:
        """With guard_with_commander: the commander attack-moves onto the intruder, else back to its start."""
        if not self.spec.get("guard_with_commander"):
            return []
        w = sim.world
        out = []
        for c in w.select(team=self.ref.team).tolist():
            if w.category[c] != COMMANDER or c in self.ref.taken:
                continue
            post = self.commander_post.setdefault(c, (float(w.x[c]), float(w.y[c])))
            goal, kind = (intruder, "fight") if intruder is not None else (post, "move")
            if self.commander_goal.get(c) != goal:
                self.commander_goal[c] = goal
                out.append({"action": "move_units", "units": [c], "x": round(goal[0], 2), "y": round(goal[1], 2),
                            "mode": kind})
        return out

    def _intruder(self, sim) -> tuple[float, float] | None:
        """The visible enemy nearest to home within guard_radius of it, if any."""
        reach = float(self.spec.get("guard_radius", 0.0))
        enemies = visible_enemy_ids(sim, self.ref.team) if reach > 0 else np.empty(0, dtype=np.int64)
        if not enemies.size:
            return None
        w = sim.world
        hx, hy = self.ref.home
        d = np.hypot(w.x[enemies] - hx, w.y[enemies] - hy)
        k = int(np.argmin(d))
        return (float(w.x[enemies[k]]), float(w.y[enemies[k]])) if d[k] <= reach else None

    def _sweep(self, sim) -> tuple[float, float] | None:
        """The nearest sweep point the army has not yet searched (come within sweep_radius of)."""
        army = self.ref.army(sim)
        if not army.size:
            return None
        here = centroid(sim.world, army)
        reach = float(self.spec.get("sweep_radius", 6.0))
        self.unsearched = [p for p in self.unsearched if math.dist(here, p) > reach]
        return min(self.unsearched, key=lambda p: (math.dist(here, p), p)) if self.unsearched else None

    def _ally_rally(self, sim) -> tuple[float, float] | None:
        """The nearest allied team's army centre while it is farther than join_radius from ours, else None."""
        ref = self.ref
        w = sim.world
        idx = w.alive_idx
        allies = [t for t in sim.teams[ref.team].allies if t != ref.team]
        # an ally's army, as the player's own, leaves its commander at home
        ally_army = idx[np.isin(w.team[idx], allies) & w.armed[idx] & (w.speed[idx] > 0)
                        & (w.category[idx] != COMMANDER)]
        army = ref.army(sim)
        if not ally_army.size or not army.size:
            return None
        ours = centroid(w, army)
        # the nearest allied team's army: the centroid of allies spread over the map is empty ground
        armies = [ally_army[w.team[ally_army] == t] for t in allies]
        theirs = min((centroid(w, a) for a in armies if a.size), key=lambda c: (math.dist(ours, c), c))
        return theirs if math.dist(ours, theirs) > float(self.spec.get("join_radius", 10.0)) else None
