"""The policy base class and the state queries the built-in policies share.

A policy is what `Simulation(level, policies={team: policy})` calls: every FSM_PERIOD game seconds
(`call_interval`) it runs the team's squad FSM, and every `decision_interval` it calls `decide`.
Every policy acts through the agent interface (squads + action layer -> `sim.issue`), exactly like
a benchmark agent, and returns no extra orders. Policies are deterministic for a seed.
"""
from __future__ import annotations

import math

import numpy as np

from engine.agent.interface import FSM_PERIOD, AgentInterface, DecisionClock
from engine.snapshot import CATEGORIES

COMMANDER = CATEGORIES.index("commander")


class Policy:
    """Base: binds an AgentInterface to the simulation it is run in; the simulation calls it every
    FSM_PERIOD (the squads' FSM runs at each call) and it calls `decide` every decision_interval."""

    name = "base"
    call_interval = FSM_PERIOD
    uses_seed = False               # built-in policies other than random are deterministic whatever the seed

    def __init__(self, team: int = 0, seed: int = 0, decision_interval: float = 1.0):
        self.team = team
        self.seed = seed
        self.decision_interval = float(decision_interval)
        self.iface: AgentInterface | None = None
        self._sim = None

    def act(self, view) -> list:
        sim = view.sim
        if sim is not self._sim:            # a new run: forget everything about the old one
            self._sim = sim
            self.team = view.team
            self.iface = AgentInterface(view.team)
            self.clock = DecisionClock(self.decision_interval)
            self.reset(sim)
        self.iface.update(sim)
        if not self.clock.due(sim.time):
            return []
        actions = self.decide(sim)
        if actions:
            self.iface.act(sim, actions)
        return []

    def reset(self, sim) -> None:
        """Per-run initialisation (override)."""

    def decide(self, sim) -> list[dict]:
        return []


class IdlePolicy(Policy):
    """Gives no orders: units only shoot what comes into weapon range."""

    name = "idle"


# --- shared queries -------------------------------------------------------------------------------
def army_ids(sim, team: int) -> np.ndarray:
    """Finished, armed, mobile units except the commander."""
    w = sim.world
    idx = w.select(team=team)
    keep = w.armed[idx] & (w.speed[idx] > 0) & (w.progress[idx] >= 1.0) & (w.category[idx] != COMMANDER)
    return idx[keep]


def centroid(w, ids: np.ndarray) -> tuple[float, float]:
    return float(w.x[ids].mean()), float(w.y[ids].mean())


def drawn_area(sim, label: str, near: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """The centre, where it stands now, of the newest rule area whose label holds `label` (the one nearest
    `near` when given); None while no such area is drawn."""
    drawn = [a for a in sim.areas.shapes() if label in a.label]
    if not drawn:
        return None
    best = drawn[-1] if near is None else min(drawn, key=lambda a: (math.dist((a.x, a.y), near), a.x, a.y))
    return best.x, best.y


def can_stand(sim, x: float, y: float) -> bool:
    t = sim.world.terrain
    return t.on_map(x, y) and bool(t.passable[int(y), int(x)])
