"""Model settings no call can succeed with, found before a run starts: a model no litellm provider serves, or a
provider whose API key is not set. Both are bad configuration (exit 2), never a verdict on a scenario."""
from __future__ import annotations

import os
from collections.abc import Mapping

from genesis.llm.config import ConfigError, ModelConfig


def check_models(config: ModelConfig, env: Mapping[str, str] | None = None) -> None:
    """Raises ConfigError naming the role, the model and what to change."""
    env = os.environ if env is None else env
    checked: set[tuple[str, str | None, str | None]] = set()
    for role, cfg in config.roles.items():
        key = (cfg.model, cfg.api_base, cfg.api_key_env)
        if cfg.is_offline or key in checked:
            continue
        checked.add(key)
        _check_one(role, cfg.model, cfg.api_base, cfg.api_key_env, env)


def _check_one(role: str, model: str, api_base: str | None, api_key_env: str | None, env: Mapping[str, str]) -> None:
    import litellm

    litellm.suppress_debug_info = True  # else litellm prints its provider list on stdout
    try:
        litellm.get_llm_provider(model, api_base=api_base)
    except Exception:  # litellm.BadRequestError: "LLM Provider NOT provided"
        raise ConfigError(f"model {model!r} (role {role}): no litellm provider serves it; name one as "
                          "PROVIDER/MODEL, e.g. ollama/llama3.1 or openai/gpt-4o-mini (with --api-base for an "
                          "OpenAI-compatible server: openai/NAME)") from None
    if api_key_env:
        if not env.get(api_key_env):
            raise ConfigError(f"model {model!r} (role {role}): api_key_env names {api_key_env}, which is not set")
        return
    if api_base:  # a local OpenAI-compatible server gets a placeholder key
        return
    missing = [name for name in litellm.validate_environment(model).get("missing_keys") or []
               if "KEY" in name or "TOKEN" in name]   # *_API_BASE has a default (e.g. ollama on localhost)
    if missing:
        raise ConfigError(f"model {model!r} (role {role}) needs {' or '.join(missing)} set in the environment "
                          "(or api_key_env in genesis.yaml naming the variable that holds the key)")
