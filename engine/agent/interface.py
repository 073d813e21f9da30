"""One team's seat at the table: squads + action layer + observations, bound to one simulation.

Benchmark harnesses and the built-in policies both go through this object, so a scripted policy
exercises exactly the interface an LLM agent gets. Call `update(sim)` once per decision (it runs
the squad FSM), then `observe` / `text` / `images`, then `act`.
"""
from __future__ import annotations

from engine.agent.actions import ActionLayer
from engine.agent.observation import observe, observe_images, render_text, visible_enemy_ids
from engine.agent.squads import SquadManager


class AgentInterface:
    def __init__(self, team: int):
        self.team = team
        self.squads = SquadManager(team)
        self.actions = ActionLayer(team, self.squads)
        self._seen_messages = 0

    def update(self, sim) -> None:
        """Advance the squads' state machines (contact -> fight, arrival -> idle)."""
        self.squads.update(sim, visible_enemy_ids(sim, self.team))

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
