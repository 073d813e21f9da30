"""Agents `genesis eval` can seat, by SPEC: a built-in policy name, or `module:Class`.

A `module:Class` agent subclasses `engine.agent.Policy` (see docs/integrations.md): it is built as
`Class(team=, seed=, decision_interval=)`, and the harness calls `reset(sim)` once per episode and
`decide(sim)` every decision interval, executing the action dicts it returns.
"""
from __future__ import annotations

import importlib

from engine.agent.policies import POLICIES
from engine.agent.policy import Policy

BUILTINS: dict[str, type[Policy]] = dict(POLICIES)


class AgentSpecError(ValueError):
    """A SPEC that names no built-in agent and no importable Policy class."""


def resolve_agent(spec: str) -> type[Policy]:
    """The Policy class of a SPEC: a built-in name or `module:Class` (imported, so it must be importable)."""
    if spec in BUILTINS:
        return BUILTINS[spec]
    module_name, sep, class_name = spec.partition(":")
    if not sep or not module_name or not class_name:
        raise AgentSpecError(f"unknown agent {spec!r}: use one of {', '.join(BUILTINS)} or module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentSpecError(f"agent {spec!r}: cannot import {module_name} ({exc})") from None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise AgentSpecError(f"agent {spec!r}: {module_name}.{class_name} is not a subclass of engine.agent.Policy")
    return cls


def build_policy(spec: str, *, team: int, seed: int, decision_interval: float) -> Policy:
    return resolve_agent(spec)(team=team, seed=seed, decision_interval=decision_interval)
