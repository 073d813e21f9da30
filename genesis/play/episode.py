"""One seeded episode: a Simulation with an agent in one team's seat, decisions recorded.

The agent sits in the simulation through the engine's policy hook (`policies={team: seat}`), so
decision timing is the engine's own: every `decision_interval` game seconds, between ticks. The game
clock stands still while the agent thinks (an LLM's latency costs wall time, not game time).
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine import Simulation
from engine.agent import AgentInterface
from engine.agent.interface import FSM_PERIOD, DecisionClock
from engine.level import Level
from engine.replay import Replay, ReplayRecorder
from engine.result import RunResult

from genesis.play.agents import Agent, Decision


class RecordingInterface(AgentInterface):
    """An AgentInterface that keeps every (action, result) pair executed since `begin()`."""

    def __init__(self, team: int, fsm: bool = True):
        super().__init__(team, fsm=fsm)
        self.executed: list[tuple[Any, dict]] = []

    def begin(self) -> None:
        self.executed = []

    def act(self, sim, actions: list) -> list[dict]:
        results = super().act(sim, actions)
        self.executed += list(zip(actions, results))
        return results


def state_summary(obs: dict) -> dict:
    """A few numbers that say how the team is doing (one trajectory field, cheap to plot)."""
    own = [u for sq in obs["squads"] for u in sq["units"]] + obs["unassigned"] + obs["buildings"]
    return {
        "own_units": len(own), "own_hp": sum(u["hp"] for u in own),
        "squads": {sq["name"]: len(sq["units"]) for sq in obs["squads"]},
        "visible_enemies": sum(obs["enemy_counts"].values()),
        "metal": obs["resources"]["metal"], "energy": obs["resources"]["energy"],
    }


@dataclass
class Step:
    """One decision as it goes into the trajectory file."""

    decision: int
    t: float
    observation: Any
    state: dict
    response: str | None
    actions: list[Any]
    results: list[dict]
    error_code: str | None
    error: str | None
    usage: dict | None
    memory: dict | None = None

    def to_record(self) -> dict:
        errors = [r for r in self.results if not r["ok"]]
        if self.error_code:
            errors.append({"index": None, "ok": False, "code": self.error_code, "message": self.error or ""})
        return {"decision": self.decision, "t": self.t, "observation": self.observation, "state": self.state,
                "response": self.response, "actions": self.actions, "results": self.results, "errors": errors,
                "usage": self.usage, "memory": self.memory}


class Seat:
    """The policy-shaped object the simulation calls every FSM_PERIOD: the squads' FSM runs at every
    call, the agent decides every `decision_interval`, and each decision is recorded."""

    call_interval = FSM_PERIOD

    def __init__(self, agent: Agent, team: int, decision_interval: float, fsm: bool = True):
        self.agent = agent
        self.team = team
        self.fsm = fsm
        self.decision_interval = float(decision_interval)
        self.clock = DecisionClock(decision_interval)
        self.iface: RecordingInterface | None = None
        self.steps: list[Step] = []
        self.reply_errors: Counter[str] = Counter()   # replies that produced no actions, by code

    def act(self, view) -> list:
        sim = view.sim
        if self.iface is None:
            self.iface = RecordingInterface(self.team, fsm=self.fsm)
            self.agent.start(sim, self.iface)
        self.iface.update(sim)
        if not self.clock.due(sim.time):
            return []
        obs = self.iface.observe(sim)
        self.iface.begin()
        decision: Decision = self.agent.decide(sim, self.iface, obs)
        if decision.actions:
            self.iface.act(sim, decision.actions)
        if decision.error_code:
            self.reply_errors[decision.error_code] += 1
        executed = self.iface.executed
        self.steps.append(Step(
            decision=len(self.steps), t=round(float(sim.time), 3), observation=decision.observation,
            state=state_summary(obs), response=decision.response, actions=[a for a, _ in executed],
            results=[r for _, r in executed], error_code=decision.error_code, error=decision.error,
            usage=decision.usage, memory=decision.memory))
        return []                     # every order went through the interface (validated, traced)

    def counts(self) -> dict:
        """Valid / invalid actions; a reply that yielded no actions counts as one invalid action."""
        layer = self.iface.actions.counts() if self.iface else {"valid": 0, "invalid": 0, "invalid_by_code": {}}
        by_code = Counter(layer["invalid_by_code"]) + self.reply_errors
        return {"valid": layer["valid"], "invalid": sum(by_code.values()), "invalid_by_code": dict(sorted(by_code.items()))}


@dataclass
class Episode:
    seed: int
    team: int
    result: RunResult
    steps: list[Step]
    counts: dict
    wall_s: float
    usage: dict | None = field(default=None)
    replay: Replay | None = field(default=None)


def run_episode(level: Level, agent: Agent, *, seed: int, team: int, decision_interval: float,
                fsm: bool = True, record_replay: bool = True) -> Episode:
    seat = Seat(agent, team, decision_interval, fsm=fsm)
    started = time.perf_counter()
    sim = Simulation(level, seed=seed, policies={team: seat})
    recorder = ReplayRecorder(sim) if record_replay else None
    while not sim.done:                 # stepping in chunks runs the same ticks as sim.run()
        if recorder:
            recorder.observe(sim)
        sim.step(15)
    result = sim.run()
    wall = time.perf_counter() - started
    return Episode(seed=seed, team=team, result=result, steps=seat.steps, counts=seat.counts(), wall_s=wall,
                   usage=agent.usage(), replay=recorder.finish(sim, result) if recorder else None)
