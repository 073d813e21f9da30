"""Baseline policies by name: idle, random (valid actions only, seeded), rush and turtle (blind schemes, see
`engine.agent.open_loop`) and reference (scripted, competent; one strategy per module under
`engine/agent/reference/`).

A policy is what `Simulation(level, policies={team: policy})` calls (see `engine.agent.policy`).
"""
from __future__ import annotations

from typing import Any

from engine.agent.open_loop import RushPolicy, TurtlePolicy
from engine.agent.policy import IdlePolicy, Policy
from engine.agent.random_policy import RandomPolicy
from engine.agent.reference import STRATEGIES, ReferencePolicy, infer_strategy
from engine.agent.reference.policy import STRATEGY_CLASSES
from engine.agent.reference.roles import ROLE_CLASSES

POLICIES: dict[str, type[Policy]] = {"idle": IdlePolicy, "random": RandomPolicy, "rush": RushPolicy,
                                     "turtle": TurtlePolicy, "reference": ReferencePolicy}

__all__ = ["POLICIES", "STRATEGIES", "IdlePolicy", "Policy", "RandomPolicy", "ReferencePolicy", "describe_reference",
           "describe_roles", "describe_strategies", "infer_strategy", "make_policy"]


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh policy by name; params: team, seed, decision_interval, and per-policy options
    (random: actions_per_decision; reference: strategy and its params, overriding metadata)."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}")
    return POLICIES[name](**params)


def describe_strategies() -> list[dict[str, Any]]:
    """Each reference strategy: name, behaviour (its class docstring) and every param it reads,
    its own and those the policy reads for all strategies."""
    out = []
    for name in STRATEGIES:
        d = STRATEGY_CLASSES[name].describe()
        d["params"] = {**d["params"], **ReferencePolicy.SHARED_PARAMS}
        out.append(d)
    return out


def describe_roles() -> list[dict[str, str]]:
    """Each unit role a reference spec may give chosen units: name and behaviour (its class docstring)."""
    return [cls.describe() for cls in ROLE_CLASSES.values()]


def describe_reference() -> str:
    """What every strategy shares (the ReferencePolicy class docstring)."""
    return " ".join((ReferencePolicy.__doc__ or "").split())
