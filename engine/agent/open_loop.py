"""Blind policies for validity checks: an open-loop replay of recorded orders, and a scripted rush.

OpenLoopPolicy replays a team's orders from a recorded trace by game time (every `order` event the
team issued, the squad FSM's fight orders included), ignoring what it observes. Replayed on the
seed it was recorded on it reproduces that game; a level where it also wins every other seed can be
solved by a script that never looks (the lesson behind SMACv2).

RushPolicy sends every combat unit (not the commander) straight at the nearest visible enemy, or at
the hostile teams' start positions when none is visible, and never builds or produces: the
strongest scheme that needs no planning.

TurtlePolicy is its opposite: every combat unit keeps the post it started at, attack-moves onto a
visible enemy that comes within GUARD tiles of that post and walks back once none does. It never
attacks, builds or produces: a level it wins only asks the player to sit still and shoot.
"""
from __future__ import annotations

import numpy as np

from engine.agent.observation import visible_enemy_ids
from engine.agent.policy import Policy, army_ids, centroid

ORDER_FIELDS = ("kind", "units", "x", "y", "type", "factory", "count")
RUSH_SQUAD = "rush"
GUARD = 10.0        # tiles around its post within which a turtle's unit fights
POST_SLACK = 2.0    # tiles from its post at which a turtle's unit counts as home


def order_schedule(trace: list[dict], team: int) -> list[dict]:
    """The team's accepted orders of a trace, in time order, as {"t", "order"}."""
    return [{"t": float(e["t"]), "order": {k: e[k] for k in ORDER_FIELDS if k in e}}
            for e in trace if e.get("event") == "order" and e.get("team") == team and e.get("ok")]


class OpenLoopPolicy(Policy):
    name = "open_loop"
    call_interval = 1 / 30          # every tick: orders go out on the tick they were recorded

    def __init__(self, team: int = 0, seed: int = 0, decision_interval: float = 1.0,
                 schedule: list[dict] | None = None):
        super().__init__(team, seed, decision_interval)
        self.schedule = sorted(schedule or [], key=lambda s: s["t"])

    def act(self, view) -> list:
        sim = view.sim
        if sim is not self._sim:
            self._sim = sim
            self.next = 0
        due = []
        while self.next < len(self.schedule) and self.schedule[self.next]["t"] <= sim.time + 1e-3:   # trace times are rounded to 1 ms
            due.append(dict(self.schedule[self.next]["order"]))
            self.next += 1
        return due                      # the simulation issues them (validated and traced)


class RushPolicy(Policy):
    name = "rush"

    def reset(self, sim) -> None:
        hostile = [p for p in sim.level.placements if sim.hostile[self.team, p.team]]
        w = sim.world
        self.fallback = (float(np.mean([p.x for p in hostile])), float(np.mean([p.y for p in hostile]))) \
            if hostile else (w.terrain.width / 2, w.terrain.height / 2)
        self.goal: tuple[float, float] | None = None

    def decide(self, sim) -> list[dict]:
        w = sim.world
        army = army_ids(sim, self.team)
        if not army.size:
            return []
        actions = []
        squad = self.iface.squads.squads.get(RUSH_SQUAD)
        new = [int(i) for i in army if squad is None or int(i) not in squad.units]
        if new:
            actions.append({"action": "assign_squad", "squad": RUSH_SQUAD, "units": new})
        enemies = visible_enemy_ids(sim, self.team)
        if enemies.size:
            cx, cy = centroid(w, army)
            e = int(enemies[int(np.argmin(np.hypot(w.x[enemies] - cx, w.y[enemies] - cy)))])
            goal = (float(w.x[e]), float(w.y[e]))
        else:
            goal = self.fallback
        goal = sim.free_spot(goal[0], goal[1], False)
        squad = self.iface.squads.squads.get(RUSH_SQUAD)
        moving = squad is not None and squad.state != "idle" and not new
        if moving and self.goal is not None and np.hypot(goal[0] - self.goal[0], goal[1] - self.goal[1]) < 3.0:
            return actions              # already on its way there (or fighting on the way)
        self.goal = goal
        actions.append({"action": "squad_move", "squad": RUSH_SQUAD, "x": round(goal[0], 2), "y": round(goal[1], 2)})
        return actions


class TurtlePolicy(Policy):
    name = "turtle"

    def reset(self, sim) -> None:
        self.posts: dict[int, tuple[float, float]] = {}     # unit -> where it was first seen
        self.goals: dict[int, tuple[float, float]] = {}     # unit -> where it was last sent

    def decide(self, sim) -> list[dict]:
        from engine.world import NONE

        w = sim.world
        army = army_ids(sim, self.team)
        enemies = visible_enemy_ids(sim, self.team)
        ex, ey = w.x[enemies], w.y[enemies]
        sends: dict[tuple[float, float], list[int]] = {}
        for i in army.tolist():
            post = self.posts.setdefault(i, (float(w.x[i]), float(w.y[i])))
            goal = None
            if enemies.size:
                d = np.hypot(ex - post[0], ey - post[1])
                k = int(np.argmin(d))
                if d[k] <= GUARD:
                    goal = (round(float(ex[k]), 1), round(float(ey[k]), 1))
            if goal is None:
                if np.hypot(w.x[i] - post[0], w.y[i] - post[1]) <= POST_SLACK:
                    self.goals.pop(i, None)
                    continue
                goal = (round(post[0], 1), round(post[1], 1))
            last = self.goals.get(i)
            if w.order[i] != NONE and last is not None and np.hypot(goal[0] - last[0], goal[1] - last[1]) < 2.0:
                continue                # already on its way there
            self.goals[i] = goal
            sends.setdefault(goal, []).append(i)
        return [{"action": "move_units", "units": ids, "x": x, "y": y, "mode": "fight"}
                for (x, y), ids in sorted(sends.items())]
