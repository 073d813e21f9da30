"""The agents `genesis play` can seat: the engine's scripted policies, and the LLM agent.

An agent is asked once per decision for a `Decision`: what it saw (the record that goes into the
trajectory), the raw reply (LLM only), and the actions to execute. Scripted policies may also act
directly through the interface while deciding (the random policy does, one action at a time);
the recording interface captures those actions too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.agent import AgentInterface, make_policy
from engine.agent.policies import POLICIES
from engine.agent.policy import Policy

SCRIPTED = tuple(POLICIES)          # idle, random, rush, turtle, reference
AGENTS = (*SCRIPTED, "llm")


@dataclass
class Decision:
    observation: Any                            # JSON observation (scripted) or prompt text (LLM)
    actions: list[Any] = field(default_factory=list)
    response: str | None = None                 # the model's raw reply
    error_code: str | None = None               # a reply that yielded no actions: llm_error, unparsable_response...
    error: str | None = None
    usage: dict[str, Any] | None = None         # per-call tokens / latency (LLM)
    memory: dict[str, Any] | None = None        # the memory phase before this decision (LLM with memory)


class Agent(Protocol):
    name: str

    def start(self, sim, iface: AgentInterface) -> None:
        """A new episode begins (called at the first decision)."""

    def decide(self, sim, iface: AgentInterface, observation: dict) -> Decision:
        """One decision from the observation the harness built (messages are consumed once)."""

    def usage(self) -> dict | None:
        """Model calls / tokens / latency of the episode so far (None for scripted agents)."""


class ScriptedAgent:
    """One of the engine's policies, driven step by step instead of through `Policy.act`, so the
    harness owns the interface (and records every action the policy takes). `policy` seats an
    already built one (`genesis eval` builds rush, turtle and `module:Class` policies itself)."""

    def __init__(self, name: str, team: int, seed: int, decision_interval: float, policy: Policy | None = None,
                 **params: Any):
        self.name = name
        self.policy = policy or make_policy(name, team=team, seed=seed, decision_interval=decision_interval, **params)

    def start(self, sim, iface: AgentInterface) -> None:
        # the same binding Policy.act performs at the first call of a run
        self.policy.team = iface.team
        self.policy.iface = iface
        self.policy.reset(sim)

    def decide(self, sim, iface: AgentInterface, observation: dict) -> Decision:
        return Decision(observation=observation, actions=self.policy.decide(sim) or [])

    def usage(self) -> None:
        return None
