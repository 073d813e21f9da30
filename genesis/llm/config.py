"""Per-role model settings, merged from CLI flags, environment, a config file and defaults.

One vocabulary serves all three sources (flat keys, lowercased env names without GENESIS_):
  model          litellm model string for the four agent roles (pm, designer, developer, analyst)
  vlm_model      litellm model string for the vlm role (screenshot review)
  <role>_model   one role only (e.g. designer_model / GENESIS_DESIGNER_MODEL)
  api_base, api_key_env, timeout, max_retries, temperature, max_tokens, structured_output,
  infra_retries, backoff_max, max_concurrency, max_reply_chars
                 every role
The config file may also hold `roles: {<role>: {<field>: value}}` for any field of one role.
Layers apply in order defaults < file < env < CLI; inside a layer the per-role value beats the
shared one, and a later layer beats every earlier one (CLI --model overrides GENESIS_PM_MODEL).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from genesis.fileio import parse_yaml

AGENT_ROLES = ("pm", "designer", "developer", "analyst")
ROLES = (*AGENT_ROLES, "vlm")
OFFLINE_MODEL = "genesis/offline"

# Shared keys that apply to every role (model/vlm_model are handled apart: they target role groups).
_SHARED_FIELDS = ("api_base", "api_key_env", "timeout", "max_retries", "temperature", "max_tokens",
                  "structured_output", "infra_retries", "backoff_max", "max_concurrency", "max_reply_chars")
_FLAT_KEYS = ("model", "vlm_model", *(f"{r}_model" for r in AGENT_ROLES), *_SHARED_FIELDS)


class ConfigError(ValueError):
    """A config source holds a bad key or value; the message names the source and the key."""


class RoleConfig(BaseModel):
    """How one role reaches its model."""

    model_config = ConfigDict(extra="forbid")

    model: str = OFFLINE_MODEL
    api_base: str | None = None
    # Name of the env var holding the API key (keys never live in config files). A local server
    # with api_base and no key gets a placeholder key, since the OpenAI client insists on one.
    api_key_env: str | None = None
    timeout: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    temperature: float = Field(default=0.2, ge=0)
    max_tokens: int | None = Field(default=None, gt=0)
    # json_object: JSON mode, {"type": "json_object"}, with the schema ({"type": "json_object", "schema": ...})
    # only for a server at api_base (llama.cpp-style servers enforce it; hosted JSON modes read none).
    # json_schema: structured outputs (the schema in every request), for providers that support it.
    structured_output: Literal["json_object", "json_schema"] = "json_object"
    # Rate limits (429), overload (503), server and connection errors: retried with exponential
    # backoff and jitter, at least as long as the server's Retry-After, at most backoff_max seconds.
    infra_retries: int = Field(default=6, ge=0)
    backoff_max: float = Field(default=60.0, gt=0)
    # Requests in flight at once to one model from this machine (all processes); the offline backend has no limit.
    max_concurrency: int = Field(default=4, ge=1)
    # A longer reply is rejected like an unparsable one (a GDD is ~20k characters).
    max_reply_chars: int = Field(default=200_000, ge=1_000)

    @property
    def is_offline(self) -> bool:
        return self.model == OFFLINE_MODEL


class ModelConfig(BaseModel):
    """Settings for every role; build it with `load_config`."""

    model_config = ConfigDict(extra="forbid")

    roles: dict[str, RoleConfig] = Field(default_factory=lambda: {r: RoleConfig() for r in ROLES})
    source_file: str | None = None

    def for_role(self, role: str) -> RoleConfig:
        if role not in self.roles:
            raise KeyError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
        return self.roles[role]

    def backend_name(self, role: str) -> str:
        cfg = self.for_role(role)
        return "offline" if cfg.is_offline else cfg.model

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per-role settings for reports (validation.json 'backend used')."""
        return {r: {"backend": self.backend_name(r), **c.model_dump()} for r, c in self.roles.items()}


class _FileConfig(BaseModel):
    """Schema of genesis.yaml, so unknown or mistyped keys are rejected by name."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    vlm_model: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    max_retries: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    structured_output: Literal["json_object", "json_schema"] | None = None
    infra_retries: int | None = None
    backoff_max: float | None = None
    max_concurrency: int | None = None
    max_reply_chars: int | None = None
    # not a model setting: runs that must fail alike before the retrospective proposes (pipeline.evolution)
    min_recurrence: int | None = Field(None, ge=1)
    kb_server: str | None = None       # workspace services, read by genesis.workspace.setting
    kb_token: str | None = Field(None, repr=False)
    checkpointer: str | None = None
    roles: dict[Literal["pm", "designer", "developer", "analyst", "vlm"], dict[str, Any]] = Field(
        default_factory=dict)


def find_config_file(env: Mapping[str, str], cwd: Path) -> Path | None:
    """GENESIS_CONFIG, else the workspace's genesis.yaml, else ~/.config/genesis/config.yaml."""
    from genesis import workspace

    if env.get("GENESIS_CONFIG"):
        path = Path(env["GENESIS_CONFIG"]).expanduser()
        if not path.is_file():
            raise ConfigError(f"GENESIS_CONFIG points to {path}, which is not a file")
        return path
    try:
        ws_config = workspace.current(env, cwd).config_file
    except workspace.WorkspaceError as exc:
        raise ConfigError(str(exc)) from exc
    for path in (ws_config, Path.home() / ".config" / "genesis" / "config.yaml"):
        if path.is_file():
            return path
    return None


def _error_text(err: ValidationError, prefix: str = "") -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        parts.append(f"{prefix}{loc}: {e['msg']}")
    return "; ".join(parts)


def _read_file_layer(path: Path) -> dict[str, dict[str, Any]]:
    try:
        raw = parse_yaml(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: top level must be a mapping of keys, got {type(raw).__name__}")
    try:
        parsed = _FileConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_error_text(exc)}") from exc
    flat = parsed.model_dump(exclude={"roles"}, exclude_none=True)
    layer = _flat_to_roles(flat)
    for role, fields in parsed.roles.items():
        unknown = set(fields) - set(RoleConfig.model_fields)
        if unknown:
            raise ConfigError(f"{path}: roles.{role}.{sorted(unknown)[0]}: unknown key; "
                              f"allowed: {', '.join(RoleConfig.model_fields)}")
        layer[role].update(fields)
    return layer


def _flat_to_roles(flat: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Spread flat keys onto roles; per-role model keys are applied last so they win."""
    layer: dict[str, dict[str, Any]] = {r: {} for r in ROLES}
    for key in _SHARED_FIELDS:
        if flat.get(key) is not None:
            for role in ROLES:
                layer[role][key] = flat[key]
    if flat.get("model") is not None:
        for role in AGENT_ROLES:
            layer[role]["model"] = flat["model"]
    if flat.get("vlm_model") is not None:
        layer["vlm"]["model"] = flat["vlm_model"]
    for role in AGENT_ROLES:
        if flat.get(f"{role}_model") is not None:
            layer[role]["model"] = flat[f"{role}_model"]
    return layer


def _env_layer(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    flat = {key: env.get(f"GENESIS_{key.upper()}") for key in _FLAT_KEYS}
    return _flat_to_roles({k: v for k, v in flat.items() if v not in (None, "")})


def _cli_layer(cli: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    unknown = [k for k in cli if k not in _FLAT_KEYS]
    if unknown:
        raise ConfigError(f"CLI option {unknown[0]!r} is not a model setting; known: {', '.join(_FLAT_KEYS)}")
    return _flat_to_roles(cli)


def _where(origin: str, role: str, key: str) -> str:
    """Spell the bad key the way the user wrote it in that source."""
    if origin.startswith("environment"):
        return f"GENESIS_{key.upper()} (role {role})"
    if origin.startswith("CLI"):
        return f"--{key.replace('_', '-')} (role {role})"
    return f"{key} (role {role}; set as `{key}` or `roles.{role}.{key}`)"


def load_config(cli: Mapping[str, Any] | None = None, *, env: Mapping[str, str] | None = None,
                cwd: str | Path | None = None) -> ModelConfig:
    """Merge defaults < config file < env vars < CLI flags (None values in `cli` are ignored)."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else Path(cwd)
    path = find_config_file(env, cwd)
    layers = [(f"config file {path}", _read_file_layer(path))] if path else []
    layers.append(("environment", _env_layer(env)))
    layers.append(("CLI flags", _cli_layer(cli or {})))

    roles: dict[str, RoleConfig] = {}
    for role in ROLES:
        merged: dict[str, Any] = {}
        for _, layer in layers:
            merged.update(layer[role])
        try:
            roles[role] = RoleConfig.model_validate(merged)
        except ValidationError as exc:
            # Name the layer that supplied the bad value: the last one that set that key.
            err = exc.errors()[0]
            key = str(err["loc"][0])
            origin = next((name for name, layer in reversed(layers) if key in layer[role]), "defaults")
            raise ConfigError(f"{origin}: {_where(origin, role, key)}: {err['msg']} "
                              f"(got {err.get('input')!r})") from exc
    return ModelConfig(roles=roles, source_file=str(path) if path else None)
