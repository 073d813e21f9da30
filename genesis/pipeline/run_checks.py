"""The settings a run is refused for before any work (exit 2): its rubrics and its model settings. Light, so
the CLI answers a broken rubric or genesis.yaml before loading the pipeline and its libraries (litellm,
langgraph: seconds of start-up)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis import rubric_store
from genesis.llm.config import ModelConfig, load_config
from genesis.llm.preflight import check_models


def checked_config(model_cli: dict[str, Any], replay: Path | None, rubrics_root: Path) -> ModelConfig:
    """The run's model settings; RubricError for a broken rubric, ConfigError for settings no model call could
    succeed with (a replay calls no model, so its models are not checked)."""
    rubric_store.load_all(rubrics_root)
    config = load_config(model_cli)
    if replay is None:
        check_models(config)
    return config
