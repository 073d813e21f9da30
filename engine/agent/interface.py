"""One team's seat at the table: squads + action layer + observations, bound to one simulation.

Benchmark harnesses and the built-in policies both go through this object, so a scripted policy
exercises exactly the interface an LLM agent gets. The simulation calls the seat every FSM_PERIOD
game seconds (`call_interval`): each call runs `update(sim)` (the squad FSM, and the short-term
event log when one is kept), and only when a decision is due (`DecisionClock`) the agent reads
`observe` / `text` / `images` and calls `act`. With `fsm=False` (the "w/o FSM" ablation) there are
no squads: squad actions are rejected and units take per-unit orders only.
"""
from __future__ import annotations

from engine.agent.actions import ActionLayer
from engine.agent.events import EventLog
from engine.agent.observation import observe, observe_images, render_text, visible_enemy_ids
from engine.agent.squads import SquadManager

# the simulator re-acquires weapon targets every 5 ticks (30 Hz): the FSM reacts on the same beat
FSM_PERIOD = 5 / 30


class DecisionClock:
    """Says whether a decision is due at game time t (the first one at once, then every interval)."""

    def __init__(self, interval: float):
        self.interval = float(interval)
        self.next_at = 0.0

    def due(self, t: float) -> bool:
        if t + 1e-9 < self.next_at:
            return False
        self.next_at = t + self.interval
        return True


class AgentInterface:
    def __init__(self, team: int, fsm: bool = True):
        self.team = team
        self.fsm = fsm
        self.squads = SquadManager(team)
        self.actions = ActionLayer(team, self.squads, squads_enabled=fsm)
        self.events: EventLog | None = None
        self._seen_messages = 0

    def keep_events(self) -> EventLog:
        """Start the short-term event log (sightings, battle events) from now on."""
        self.events = EventLog(self.team)
        return self.events

    def update(self, sim) -> None:
        """Advance the squads' state machines (contact -> fight, arrival -> idle); log events."""
        enemies = visible_enemy_ids(sim, self.team)
        if self.fsm:
            self.squads.update(sim, enemies)
        if self.events is not None:
            self.events.collect(sim, enemies, self.squads.log)
        else:
            self.squads.log.clear()

    def act(self, sim, actions: list) -> list[dict]:
        return self.actions.execute(sim, actions)

    def new_messages(self, sim) -> list[str]:
        """Messages addressed to everyone or to this team since the last call."""
        fresh = sim.messages[self._seen_messages:]
        self._seen_messages = len(sim.messages)
        return [m["text"] for m in fresh if m.get("team") in (None, self.team)]

    def observe(self, sim) -> dict:
        return observe(sim, self.team, self.squads, messages=self.new_messages(sim),
                       last_errors=self.actions.last_errors, invalid_counts=self.actions.invalid_counts)

    def text(self, sim) -> str:
        return render_text(self.observe(sim))

    def images(self, sim, **kwargs) -> dict:
        return observe_images(sim, self.team, self.squads, **kwargs)


class FsmSeat:
    """Takes a team's seat in the simulation (its built-in AI stays off) for a controller that gives
    its orders from outside (the Gymnasium env, the MCP arena): the squads' FSM runs between them."""

    call_interval = FSM_PERIOD

    def __init__(self, iface: AgentInterface):
        self.iface = iface

    def act(self, view) -> list:
        self.iface.update(view.sim)
        return []
