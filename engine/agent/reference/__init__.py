"""The scripted reference policy, one strategy per module (see policy.py)."""
from engine.agent.reference.infer import STRATEGIES, infer_strategy
from engine.agent.reference.policy import ReferencePolicy

__all__ = ["STRATEGIES", "ReferencePolicy", "infer_strategy"]
