"""The benchmark-agent side of the engine: observations, actions, squads, knowledge, policies."""
from engine.agent.actions import ERROR_CODES, ActionLayer, check_schema
from engine.agent.interface import AgentInterface
from engine.agent.knowledge import knowledge_text, static_knowledge
from engine.agent.observation import observe, observe_images, render_text
from engine.agent.policies import POLICIES, Policy, make_policy
from engine.agent.squads import SquadManager

__all__ = ["ERROR_CODES", "ActionLayer", "AgentInterface", "POLICIES", "Policy", "SquadManager", "check_schema",
           "knowledge_text", "make_policy", "observe", "observe_images", "render_text", "static_knowledge"]


def __getattr__(name: str):
    # the Gymnasium wrapper imports gymnasium: load it on first use, not with the engine
    if name == "RTSEnv":
        from engine.agent.gym_env import RTSEnv

        return RTSEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
