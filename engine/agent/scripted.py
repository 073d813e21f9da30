"""Scripted probes: a fixed list of timed orders, blind to what happens, played as a policy.

A probe is a cheap policy a designer declares to test its own design for an exploit ("route the VIP
around the middle", "stand still inside the zone", "send everything to the east storage"): each
order goes out at its game second to the team's units with a tag (or to every mobile armed unit),
whatever the game shows. A level that such a script wins on every seed measures no play.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.agent.policy import Policy, army_ids
from engine.schema.base import Strict

MAX_PROBE_ORDERS = 20


class ScriptedOrder(Strict):
    t: float = Field(ge=0, le=36000, description="game second the order is given")
    kind: Literal["move", "fight", "stop"] = Field(description="move: walk there ignoring enemies; fight: "
                                                               "attack-move there; stop: halt and hold")
    x: float = Field(0.0, description="tile x of the destination (move, fight)")
    y: float = Field(0.0, description="tile y of the destination (move, fight)")
    tag: str | None = Field(None, max_length=64, description="the team's units with this tag (e.g. a VIP); "
                                                              "null: every mobile armed unit but the commander")


class Probe(Strict):
    name: str = Field(min_length=1, max_length=80, description="short snake_case name")
    exploit: str = Field(min_length=1, max_length=300, description="the cheap plan it tests, in one sentence")
    orders: list[ScriptedOrder] = Field(min_length=1, max_length=MAX_PROBE_ORDERS,
                                        description="the plan's orders, played blind by game time")


class ScriptedPolicy(Policy):
    """Plays a probe's orders by game time for its team, never looking at the game."""

    name = "probe"

    def __init__(self, team: int = 0, seed: int = 0, decision_interval: float = 1.0,
                 orders: list[ScriptedOrder] | None = None):
        super().__init__(team, seed, decision_interval)
        self.orders = sorted(orders or [], key=lambda o: o.t)

    def reset(self, sim) -> None:
        self.next = 0

    def decide(self, sim) -> list[dict]:
        actions = []
        while self.next < len(self.orders) and self.orders[self.next].t <= sim.time + 1e-6:
            o = self.orders[self.next]
            self.next += 1
            w = sim.world
            ids = w.select(team=self.team, tag=o.tag) if o.tag else army_ids(sim, self.team)
            units = [int(i) for i in ids if w.speed[i] > 0]
            if not units:
                continue
            if o.kind == "stop":
                actions.append({"action": "stop_units", "units": units})
            else:
                actions.append({"action": "move_units", "units": units, "x": o.x, "y": o.y, "mode": o.kind})
        return actions
