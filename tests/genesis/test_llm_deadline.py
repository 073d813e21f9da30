"""A model call has a total deadline (`timeout`), not only one between bytes, and gives its per-model
slot back when the deadline passes: a reply trickling one byte at a time must not hang the run."""
from __future__ import annotations

import json
import time

import pytest
from http_stub import TrickleServer, completion
from llm_fakes import litellm  # noqa: F401 (imports litellm with the local price map)
from pydantic import BaseModel

from genesis.llm import LLMClient, ModelCallError, Transcript, load_config
from genesis.llm.limits import model_slot


class Brief(BaseModel):
    title: str
    waves: int


BODY = json.dumps(completion(json.dumps({"title": "Hold the line", "waves": 3}))).encode()


def test_a_trickling_reply_times_out_at_the_total_deadline_and_frees_its_slot(tmp_path):
    with TrickleServer(BODY, interval_s=0.25, max_s=15) as server:
        config = load_config({"model": "openai/trickle", "api_base": server.url, "max_retries": 0,
                              "infra_retries": 0, "timeout": 2, "max_concurrency": 1}, env={}, cwd=tmp_path)
        client = LLMClient(config, Transcript(tmp_path / "transcript.jsonl"))
        began = time.monotonic()
        with pytest.raises(ModelCallError, match="2 s"):
            client.complete("designer", "brief", "Write a brief.", Brief, stage="brief", inputs={})
        took = time.monotonic() - began
        assert took < 4, f"the call took {took:.1f} s against a 2 s timeout"
        # The only slot of this model is free again: another run gets it at once.
        with model_slot("openai/trickle", server.url, 1, wait_s=0) as number:
            assert number == 0
    record = client.transcript.records[-1]
    assert record["ok"] is False and record["error_type"] == "CallDeadlineExceeded"


def test_the_play_agent_s_model_call_has_a_total_deadline_too(tmp_path):
    from engine import load_level
    from genesis.play.llm_agent import LLMAgent, LLMSettings
    from genesis.workspace import seed_kb

    level = load_level(seed_kb() / "levels" / "MFD" / "level.json")
    with TrickleServer(BODY, interval_s=0.25, max_s=15) as server:
        settings = LLMSettings(model="openai/trickle", api_base=server.url, timeout=1.5, num_retries=0)
        agent = LLMAgent(settings, level, team=0, decision_interval=15)
        began = time.monotonic()
        text, usage, failure = agent._call("play", "You play.")
        took = time.monotonic() - began
    assert text is None and usage["ok"] is False and "1.5 s" in failure
    assert took < 3.5, f"the call took {took:.1f} s against a 1.5 s timeout"
