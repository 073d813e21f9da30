"""The real-model path end to end: LLMClient -> litellm -> llama.cpp server (SmolLM2-135M).

Opt-in: `pytest -m realmodel tests/genesis/test_llm_real.py`; skips when llama-cpp-python or the
GGUF is missing. A 135M model writes poor content, so the tests accept either a parsed result or
a clean ModelCallError, and check that every attempt reached the transcript.
"""
from __future__ import annotations

import pytest
from pydantic import BaseModel, Field
from realmodel_server import MODEL_ALIAS, api_base  # noqa: F401 (fixture)

from genesis.llm import LLMClient, ModelCallError, Transcript, load_config

pytestmark = pytest.mark.realmodel


class WaveBrief(BaseModel):
    title: str
    waves: int = Field(ge=1, le=20)
    enemy_unit: str


def client_for(api_base, tmp_path, **cli):
    config = load_config({"model": f"openai/{MODEL_ALIAS}", "api_base": api_base, "timeout": 120,
                          "temperature": 0, "max_retries": 1, **cli}, env={}, cwd=tmp_path)
    return LLMClient(config, Transcript(tmp_path / "transcript.jsonl"))


def assert_every_attempt_transcribed(client, path):
    records = Transcript.load(path).records
    assert len(records) == client.usage.total()["calls"] >= 1
    assert [r["attempt"] for r in records] == list(range(1, len(records) + 1))
    assert records[-1]["final"] and not any(r["final"] for r in records[:-1])
    assert all(r["model"] == f"openai/{MODEL_ALIAS}" and r["latency_ms"] > 0 for r in records)
    return records


def test_real_model_structured_call(api_base, tmp_path):
    client = client_for(api_base, tmp_path, max_tokens=200)
    prompt = ("Design a tiny RTS defence scenario: the player holds a base against 3 waves of light tanks. "
              "Give it a title, the number of waves and the enemy unit type.")
    try:
        out = client.complete("designer", "brief", prompt, WaveBrief, stage="brief", inputs={"query": prompt})
    except ModelCallError as exc:
        assert exc.role == "designer" and exc.model == f"openai/{MODEL_ALIAS}"
        records = assert_every_attempt_transcribed(client, tmp_path / "transcript.jsonl")
        assert not records[-1]["ok"]
    else:
        assert isinstance(out, WaveBrief)
        records = assert_every_attempt_transcribed(client, tmp_path / "transcript.jsonl")
        assert records[-1]["ok"] and records[-1]["output"] == out.model_dump()
        assert client.usage.total()["completion_tokens"] > 0


def test_real_model_truncated_output_fails_cleanly(api_base, tmp_path):
    # 3 tokens cannot hold a WaveBrief: every attempt is cut short, so the client must give up cleanly.
    client = client_for(api_base, tmp_path, max_tokens=3)
    with pytest.raises(ModelCallError, match="role=analyst") as info:
        client.complete("analyst", "check", "Describe a game.", WaveBrief, stage="gdd", inputs={})
    assert info.value.attempts == 2
    records = assert_every_attempt_transcribed(client, tmp_path / "transcript.jsonl")
    assert all(r["error_type"] == "OutputParseError" for r in records)
