"""Model access for the Genesis agents: litellm client, per-role config, transcript, replay.

litellm reads LITELLM_LOCAL_MODEL_COST_MAP at import time; without it the import fetches a
price map from the network. Every genesis.llm submodule is imported after this file runs, so
setting it here covers them all. Public names load lazily, so `genesis --help` does not pay
litellm's multi-second import.
"""
from __future__ import annotations

import importlib
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_DISABLE_BUG_REPORT_LINK", "true")

_EXPORTS = {
    "LLMClient": "client", "ModelCallError": "client", "ModelUnavailableError": "client",
    "extract_json_object": "client",
    "ModelConfig": "config", "RoleConfig": "config", "ConfigError": "config", "load_config": "config",
    "ROLES": "config", "AGENT_ROLES": "config", "OFFLINE_MODEL": "config",
    "OfflineBrain": "offline_provider", "set_offline_brain": "offline_provider",
    "Transcript": "transcript", "ReplayMismatch": "transcript",
    "Usage": "usage",
    "render": "prompts",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'genesis.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"genesis.llm.{_EXPORTS[name]}"), name)
