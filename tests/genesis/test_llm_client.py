"""LLMClient: structured parsing, retries, errors, usage, images, offline provider via litellm."""
from __future__ import annotations

import base64
import io
import json

import pytest
from llm_fakes import ScriptedLiteLLM, litellm, recorded_replies, timeout_error
from PIL import Image
from pydantic import BaseModel

from genesis.llm import (LLMClient, ModelCallError, ModelUnavailableError, Transcript, extract_json_object,
                         load_config, set_offline_brain)
from genesis.llm import prompts
from genesis.llm.client import ModelConfigurationError, lean_schema
from genesis.llm.schema_text import schema_text


class Brief(BaseModel):
    title: str
    waves: int


REPLIES = recorded_replies()


def make_client(tmp_path, **cli):
    config = load_config({"model": "openai/test", "vlm_model": "openai/test-vlm", "max_retries": 2, **cli},
                         env={}, cwd=tmp_path)
    return LLMClient(config, Transcript(tmp_path / "transcript.jsonl"))


def call(client, role="designer", **kw):
    return client.complete(role, "brief", "Write a brief.", Brief, stage="brief", inputs={"query": "q"}, **kw)


@pytest.mark.parametrize("reply,expected", [("plain", Brief(title="Hold the line", waves=3)),
                                            ("fenced", Brief(title="Three fronts", waves=5)),
                                            ("chatter", Brief(title="River crossing", waves=2))])
def test_parses_structured_output_from_recorded_replies(tmp_path, monkeypatch, reply, expected):
    fake = ScriptedLiteLLM([REPLIES[reply]]).install(monkeypatch)
    assert call(make_client(tmp_path)) == expected
    assert len(fake.calls) == 1


def test_extract_json_object_rejects_text_without_object():
    with pytest.raises(ValueError, match="no JSON object"):
        extract_json_object(REPLIES["garbage"])


def test_request_uses_json_object_schema_format_timeout_and_no_litellm_retries(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([REPLIES["plain"]]).install(monkeypatch)
    call(make_client(tmp_path, timeout=7.5, temperature=0.0))
    sent = fake.calls[0]
    # a hosted provider's JSON mode reads no schema: the system message carries the one copy
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["timeout"] == 7.5 and sent["temperature"] == 0.0
    assert sent["drop_params"] is True and sent["max_retries"] == 0
    assert sent["messages"][0]["role"] == "system" and "waves: int" in sent["messages"][0]["content"]
    assert sent["messages"][-1] == {"role": "user", "content": "Write a brief."}


def test_json_schema_mode_when_configured(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([REPLIES["plain"]]).install(monkeypatch)
    call(make_client(tmp_path, structured_output="json_schema"))
    fmt = fake.calls[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == lean_schema(Brief.model_json_schema())


def test_local_api_base_gets_placeholder_key(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([REPLIES["plain"]]).install(monkeypatch)
    call(make_client(tmp_path, api_base="http://127.0.0.1:9/v1"))
    assert fake.calls[0]["api_base"] == "http://127.0.0.1:9/v1" and fake.calls[0]["api_key"]
    # a self-hosted server's JSON mode gets the schema too (llama.cpp-style servers enforce it as a grammar),
    # without its annotations: the system message states it with its descriptions
    fmt = fake.calls[0]["response_format"]
    assert fmt == {"type": "json_object", "schema": lean_schema(Brief.model_json_schema())}
    assert set(fmt["schema"]["properties"]) == {"title", "waves"}   # a property called title stays


@pytest.mark.parametrize("bad", ["garbage", "truncated", "wrong_type", "missing_field"])
def test_invalid_reply_is_retried_with_the_error_in_the_conversation(tmp_path, monkeypatch, bad):
    fake = ScriptedLiteLLM([REPLIES[bad], REPLIES["plain"]]).install(monkeypatch)
    client = make_client(tmp_path)
    assert call(client).title == "Hold the line"
    assert len(fake.calls) == 2
    retry_messages = fake.calls[1]["messages"]
    assert retry_messages[-2] == {"role": "assistant", "content": REPLIES[bad]}
    assert "rejected" in retry_messages[-1]["content"]
    assert client.usage.by_stage()["brief"]["calls"] == 2
    assert client.usage.by_stage()["brief"]["failed_calls"] == 1


def test_garbage_until_retries_run_out_raises_model_call_error(tmp_path, monkeypatch):
    ScriptedLiteLLM([REPLIES["garbage"]] * 3).install(monkeypatch)
    client = make_client(tmp_path)
    with pytest.raises(ModelCallError) as info:
        call(client, role="developer")
    err = info.value
    assert (err.role, err.skill, err.model, err.attempts) == ("developer", "brief", "openai/test", 3)
    assert "no JSON object" in str(err) and "role=developer" in str(err)
    attempts = [r for r in client.transcript.records]
    assert [r["attempt"] for r in attempts] == [1, 2, 3]
    assert [r["final"] for r in attempts] == [False, False, True]
    assert all(r["response_text"] == REPLIES["garbage"] for r in attempts)


def test_timeout_is_retried_then_succeeds(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([timeout_error(), REPLIES["plain"]]).install(monkeypatch)
    client = make_client(tmp_path)
    assert call(client).waves == 3
    assert len(fake.calls) == 2
    assert client.transcript.records[0]["error_type"] == "Timeout"


def test_timeouts_exhausting_retries_raise_model_call_error(tmp_path, monkeypatch):
    ScriptedLiteLLM([timeout_error()] * 2).install(monkeypatch)
    client = make_client(tmp_path, max_retries=1)
    with pytest.raises(ModelCallError, match="Timeout") as info:
        call(client)
    assert info.value.attempts == 2
    assert client.usage.total()["failed_calls"] == 2


def test_non_transient_error_is_not_retried(tmp_path, monkeypatch):
    bad_request = litellm.BadRequestError(message="context too long", model="openai/test", llm_provider="openai")
    fake = ScriptedLiteLLM([bad_request, REPLIES["plain"]]).install(monkeypatch)
    with pytest.raises(ModelCallError, match="context too long"):
        call(make_client(tmp_path))
    assert len(fake.calls) == 1


def test_a_prompt_too_large_for_the_context_says_what_to_change(tmp_path, monkeypatch):
    error = litellm.ContextWindowExceededError(message="maximum context length is 4096 tokens", model="openai/test",
                                               llm_provider="openai")
    fake = ScriptedLiteLLM([error, REPLIES["plain"]]).install(monkeypatch)
    with pytest.raises(ModelCallError) as info:
        call(make_client(tmp_path))
    assert len(fake.calls) == 1 and "larger context" in info.value.permanent and "larger context" in str(info.value)


@pytest.mark.parametrize("error,hint", [
    (litellm.AuthenticationError(message="bad key", model="openai/test", llm_provider="openai"), "API key"),
    (litellm.NotFoundError(message="no such model", model="openai/test", llm_provider="openai"), "--model"),
    (litellm.BadRequestError(message="LLM Provider NOT provided. Pass in the LLM provider", model="nonexistent/foo",
                             llm_provider=""), "PROVIDER/MODEL"),
    (litellm.InternalServerError(message="Missing credentials. Please pass an `api_key`", model="openai/test",
                                 llm_provider="openai"), "no API key"),
], ids=["rejected-key", "unknown-model", "no-provider", "no-key"])
def test_settings_the_provider_refuses_are_a_configuration_error_at_once(tmp_path, monkeypatch, error, hint):
    """No retry and no verdict: a BaseException no stage's `except Exception` turns into NOT PLAYABLE."""
    fake = ScriptedLiteLLM([error, REPLIES["plain"]]).install(monkeypatch)
    with pytest.raises(ModelConfigurationError) as info:
        call(make_client(tmp_path))
    assert len(fake.calls) == 1 and hint in str(info.value)
    assert not isinstance(info.value, Exception)


def test_a_timeout_is_not_called_permanent(tmp_path, monkeypatch):
    ScriptedLiteLLM([timeout_error()] * 3).install(monkeypatch)
    with pytest.raises(ModelCallError) as info:
        call(make_client(tmp_path))
    assert info.value.permanent == ""


def test_connection_refused_is_a_clean_unavailable_endpoint_error(tmp_path):
    # A real HTTP attempt against a closed port: no mock, exercises litellm's exception mapping.
    client = make_client(tmp_path, api_base="http://127.0.0.1:9/v1", max_retries=0, infra_retries=0, timeout=60)
    with pytest.raises(ModelUnavailableError, match="APIConnectionError|InternalServerError"):
        call(client)


def test_usage_counts_tokens_calls_latency_per_stage(tmp_path, monkeypatch):
    ScriptedLiteLLM([REPLIES["plain"], REPLIES["garbage"], REPLIES["plain"]]).install(monkeypatch)
    client = make_client(tmp_path)
    client.complete("pm", "brief", "a", Brief, stage="brief", inputs={})
    client.complete("analyst", "check", "b", Brief, stage="gdd", inputs={})
    by_stage = client.usage.by_stage()
    assert by_stage["brief"]["calls"] == 1 and by_stage["gdd"]["calls"] == 2
    assert by_stage["gdd"]["failed_calls"] == 1
    # litellm's mock usage: 10 prompt + 20 completion tokens per call
    assert by_stage["gdd"]["prompt_tokens"] == 20 and by_stage["gdd"]["completion_tokens"] == 40
    total = client.usage.total()
    assert total["calls"] == 3 and total["completion_tokens"] == 60
    assert total["latency_ms"] > 0 and total["cost_usd"] == 0


def _png(color) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), color).save(buf, format="PNG")
    return buf.getvalue()


def test_vlm_images_sent_as_data_uris_and_elided_in_transcript(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([REPLIES["plain"]]).install(monkeypatch)
    frame_path = tmp_path / "frame.jpg"
    Image.new("RGB", (4, 4), "blue").save(frame_path, format="JPEG")  # non-PNG is converted
    client = make_client(tmp_path)
    call(client, role="vlm", images=[_png("red"), frame_path])
    assert fake.calls[0]["model"] == "openai/test-vlm"
    parts = fake.calls[0]["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "Write a brief."}
    urls = [p["image_url"]["url"] for p in parts[1:]]
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)
    assert base64.b64decode(urls[1].split(",", 1)[1]).startswith(b"\x89PNG")
    logged = json.dumps(client.transcript.records[0]["messages"])
    assert "base64" not in logged and logged.count("sha256:") == 2


# ---- offline provider, reached through litellm ---------------------------------------------

class FakeBrain:
    def __init__(self):
        self.seen = []

    def respond(self, skill, inputs, schema):
        self.seen.append((skill, inputs, schema))
        return {"title": f"offline {inputs['query']}", "waves": len(inputs["query"])}


@pytest.fixture
def brain():
    fake = FakeBrain()
    set_offline_brain(fake)
    yield fake
    set_offline_brain(None)


def offline_client(tmp_path):
    return LLMClient(load_config({}, env={}, cwd=tmp_path), Transcript(tmp_path / "t.jsonl"))


def test_offline_backend_end_to_end_through_litellm(tmp_path, monkeypatch, brain):
    sent = []
    real = litellm.completion
    monkeypatch.setattr(litellm, "completion", lambda **kw: sent.append(kw) or real(**kw))
    client = offline_client(tmp_path)
    assert client.config.backend_name("designer") == "offline"
    out = client.complete("designer", "clarify", "ignored prompt", Brief, stage="brief",
                          inputs={"query": "defend"})
    assert out == Brief(title="offline defend", waves=6)
    assert sent[0]["model"] == "genesis/offline" and "mock_response" not in sent[0]
    assert brain.seen == [("clarify", {"query": "defend"}, Brief.model_json_schema())]
    row = client.usage.by_stage()["brief"]
    assert row["calls"] == 1 and row["prompt_tokens"] > 0 and row["completion_tokens"] > 0
    assert row["cost_usd"] == 0
    record = client.transcript.records[0]
    assert record["backend"] == "offline" and record["output"] == out.model_dump()


def test_offline_without_brain_is_a_clear_error(tmp_path):
    set_offline_brain(None)
    client = offline_client(tmp_path)
    with pytest.raises(ModelCallError, match="no offline brain registered") as info:
        client.complete("pm", "plan", "x", Brief, stage="brief", inputs={})
    assert info.value.attempts == 1


def test_offline_brain_failure_names_the_skill(tmp_path):
    class Broken:
        def respond(self, skill, inputs, schema):
            raise KeyError("fronts")

    set_offline_brain(Broken())
    try:
        with pytest.raises(ModelCallError, match="offline brain failed on skill 'gdd'.*KeyError"):
            offline_client(tmp_path).complete("designer", "gdd", "x", Brief, stage="gdd", inputs={})
    finally:
        set_offline_brain(None)


# ---- prompt templates ----------------------------------------------------------------------

def test_render_template_by_path_and_by_name(tmp_path, monkeypatch):
    (tmp_path / "brief.j2").write_text("Query: {{ query }}\n{% include 'footer.j2' %}", encoding="utf-8")
    (tmp_path / "footer.j2").write_text("Answer in JSON.", encoding="utf-8")
    assert prompts.render(tmp_path / "brief.j2", query="3 fronts") == "Query: 3 fronts\nAnswer in JSON."
    monkeypatch.setattr(prompts, "PROMPTS_DIR", tmp_path)
    assert prompts.render("brief", query="x").startswith("Query: x")


def test_render_missing_variable_fails_loudly(tmp_path):
    import jinja2

    (tmp_path / "t.j2").write_text("{{ query }} {{ missing }}", encoding="utf-8")
    with pytest.raises(jinja2.UndefinedError, match="missing"):
        prompts.render(tmp_path / "t.j2", query="q")


OFFLINE_CALL_WITHOUT_TOKENIZER = """
import sys
import litellm.main
from genesis.llm import LLMClient, Transcript, load_config, set_offline_brain
from genesis.llm.offline_provider import DeferredEncoding
from pydantic import BaseModel

class Brief(BaseModel):
    title: str

class Brain:
    def respond(self, skill, inputs, schema):
        return {"title": "t"}

set_offline_brain(Brain())
client = LLMClient(load_config({}, env={}, cwd=sys.argv[1]), Transcript(sys.argv[1] + "/t.jsonl"))
assert client.complete("designer", "clarify", "p", Brief, stage="brief", inputs={}).title == "t"
enc = litellm.main.encoding
assert isinstance(enc, DeferredEncoding) and enc.loaded is None, "the offline call loaded the tokenizer"
assert enc.decode(enc.encode("defend two fronts")) == "defend two fronts" and enc.loaded is not None
print("ok")
"""


def test_an_offline_call_leaves_litellms_tokenizer_unloaded_until_used(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", OFFLINE_CALL_WITHOUT_TOKENIZER, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_lean_schema_drops_every_annotation_but_keeps_every_property_and_definition():
    from genesis.models import GDD

    full = GDD.model_json_schema()
    lean = lean_schema(full)

    def annotations(node):
        if isinstance(node, dict):
            here = sum(k == "description" and isinstance(v, str) for k, v in node.items())
            return here + sum(annotations(v) for k, v in node.items())
        return sum(annotations(v) for v in node) if isinstance(node, list) else 0

    assert annotations(full) > 50 and annotations(lean) == 0
    assert set(lean["properties"]) == set(full["properties"]) and set(lean["$defs"]) == set(full["$defs"])
    assert len(json.dumps(lean)) < 0.6 * len(json.dumps(full))


def test_the_lean_schema_keeps_an_optional_null_and_drops_discriminators():
    from genesis.models import GDD

    lean = lean_schema(GDD.model_json_schema())
    deadline = lean["$defs"]["DestroyTarget"]["properties"]["deadline"]
    # the prompt says "or null": a grammar built from this schema must let a model write it
    assert deadline == {"anyOf": [{"exclusiveMinimum": 0, "type": "number"}, {"type": "null"}]}
    assert "deadline" not in lean["$defs"]["DestroyTarget"]["required"]   # it may still be left out
    assert "discriminator" not in json.dumps(lean) and "oneOf" in json.dumps(lean)
    assert "takes null or may be left out" in schema_text(GDD.model_json_schema())
