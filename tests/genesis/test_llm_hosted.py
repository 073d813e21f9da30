"""The client against a real HTTP endpoint on 127.0.0.1: rate limits and Retry-After, endpoints that
stay down, malformed and oversized replies, and the per-model limit on requests in flight."""
from __future__ import annotations

import json
import threading
from email.utils import formatdate

import pytest
from http_stub import StubServer, completion, ok, rate_limited
from llm_fakes import litellm  # noqa: F401 (imports litellm with the local price map)
from pydantic import BaseModel

from genesis.llm import LLMClient, ModelCallError, ModelUnavailableError, Transcript, load_config
from genesis.llm.client import REJECTED_EXCERPT_CHARS


class Brief(BaseModel):
    title: str
    waves: int


GOOD = json.dumps({"title": "Hold the line", "waves": 3})


def client_for(tmp_path, url, **settings) -> tuple[LLMClient, list[float]]:
    config = load_config({"model": "openai/stub", "api_base": url, "max_retries": 1, "infra_retries": 3,
                          "backoff_max": 30, "timeout": 10, **settings}, env={}, cwd=tmp_path)
    client = LLMClient(config, Transcript(tmp_path / "transcript.jsonl"))
    waits: list[float] = []
    client.sleep = waits.append  # the waits the backoff chose, without spending them
    return client, waits


def call(client: LLMClient) -> Brief:
    return client.complete("designer", "brief", "Write a brief.", Brief, stage="brief", inputs={"q": 1})


def test_429_with_retry_after_is_waited_out_then_succeeds(tmp_path):
    with StubServer([rate_limited("2"), rate_limited("2"), ok(GOOD)]) as server:
        client, waits = client_for(tmp_path, server.url)
        assert call(client).waves == 3
    assert len(server.requests) == 3
    assert len(waits) == 2 and all(2 <= w <= 3 for w in waits), waits  # Retry-After plus at most 1 s of jitter
    failed = [r for r in client.transcript.records if not r["ok"]]
    assert [r["error_type"] for r in failed] == ["RateLimitError", "RateLimitError"]
    assert all(r["retry_after_s"] == 2 for r in failed)
    assert client.usage.total()["failed_calls"] == 2


def test_backoff_without_retry_after_grows_exponentially(tmp_path):
    with StubServer([rate_limited(None)] * 3 + [ok(GOOD)]) as server:
        client, waits = client_for(tmp_path, server.url)
        call(client)
    assert len(waits) == 3
    assert all(2 ** i <= w <= 2 ** i + 1 for i, w in enumerate(waits)), waits  # 1, 2, 4 s plus jitter


def test_a_retry_after_longer_than_backoff_max_is_capped(tmp_path):
    with StubServer([rate_limited("600"), ok(GOOD)]) as server:
        client, waits = client_for(tmp_path, server.url, backoff_max=5)
        call(client)
    assert waits == [5]


def test_503_with_an_http_date_retry_after(tmp_path):
    import time

    when = formatdate(time.time() + 6, usegmt=True)
    with StubServer([(503, {"retry-after": when}, {"error": {"message": "overloaded"}}), ok(GOOD)]) as server:
        client, waits = client_for(tmp_path, server.url)
        call(client)
    assert len(waits) == 1 and 4 <= waits[0] <= 7.5, waits


def test_an_endpoint_that_stays_rate_limited_stops_as_unavailable_not_as_a_model_failure(tmp_path):
    with StubServer([rate_limited("1")] * 3) as server:
        client, waits = client_for(tmp_path, server.url, infra_retries=2)
        with pytest.raises(ModelUnavailableError, match="RateLimitError") as info:
            call(client)
    assert not isinstance(info.value, Exception)  # stage code's `except Exception` cannot turn it into a verdict
    assert len(server.requests) == 3 and len(waits) == 2
    records = client.transcript.records
    assert len(records) == client.usage.total()["calls"] == 3  # every try transcribed and counted
    assert [r["final"] for r in records] == [False, False, True]


def test_connection_refused_is_retried_with_backoff_then_unavailable(tmp_path):
    client, waits = client_for(tmp_path, "http://127.0.0.1:9/v1", infra_retries=1, timeout=60)
    with pytest.raises(ModelUnavailableError):
        call(client)
    assert len(waits) == 1


MALFORMED = {
    "no choices": (200, {}, {**completion("x"), "choices": []}),
    "null content": (200, {}, completion(None)),
    "empty content": (200, {}, completion("")),
    "number content": (200, {}, completion(123)),
    "object content": (200, {}, completion({"title": "x"})),
    "choices not a list": (200, {}, {**completion("x"), "choices": "oops"}),
    "choice without message": (200, {}, {**completion("x"), "choices": [{"index": 0, "finish_reason": "stop"}]}),
    "usage of the wrong type": (200, {}, {**completion(GOOD), "usage": {"prompt_tokens": "lots"}}),
    "not JSON": (200, {}, b"<html>gateway says hi</html>"),
    "a JSON list": (200, {}, [1, 2]),
}


@pytest.mark.parametrize("shape", list(MALFORMED))
def test_a_malformed_response_is_retried_and_transcribed(tmp_path, shape):
    with StubServer([MALFORMED[shape], ok(GOOD)]) as server:
        client, _ = client_for(tmp_path, server.url)
        assert call(client).title == "Hold the line"
    first, last = client.transcript.records[0], client.transcript.records[-1]
    assert first["ok"] is False and first["error"] and first["final"] is False
    assert last["ok"] is True and len(server.requests) == 2


@pytest.mark.parametrize("shape", ["no choices", "number content", "not JSON", "a JSON list",
                                   "choice without message"])
def test_only_malformed_responses_end_as_an_unavailable_endpoint_not_a_verdict(tmp_path, shape):
    """A body that is no completion is the server's or a proxy's fault: an infrastructure error (exit 3,
    resumable), never a NOT PLAYABLE verdict on the scenario."""
    with StubServer([MALFORMED[shape]] * 2) as server:
        client, _ = client_for(tmp_path, server.url)
        with pytest.raises(ModelUnavailableError, match="malformed response") as info:
            call(client)
    assert info.value.tries == 2 and len(server.requests) == 2
    assert [r["ok"] for r in client.transcript.records] == [False, False]
    assert len(str(info.value)) < 2_000


def test_replies_the_model_wrote_wrong_end_in_a_model_call_error(tmp_path):
    """Empty or unparsable text is the model's answer: a model failure, as before."""
    with StubServer([MALFORMED["empty content"], ok("not json at all")]) as server:
        client, _ = client_for(tmp_path, server.url)
        with pytest.raises(ModelCallError) as info:
            call(client)
    assert info.value.attempts == 2


def test_an_oversized_reply_is_rejected_and_quoted_back_only_as_an_excerpt(tmp_path):
    huge = json.dumps({"title": "x" * 60_000, "waves": 3})
    with StubServer([ok(huge), ok(GOOD)]) as server:
        client, _ = client_for(tmp_path, server.url, max_reply_chars=5_000)
        assert call(client).waves == 3
    rejected = client.transcript.records[0]
    assert "max_reply_chars" in rejected["error"] and rejected["response_chars"] == len(huge)
    assert len(rejected["response_text"]) < 5_100
    quoted = server.requests[1]["messages"][-2]
    assert quoted["role"] == "assistant" and "characters cut" in quoted["content"]
    assert len(quoted["content"]) < REJECTED_EXCERPT_CHARS + 100


@pytest.mark.parametrize("limit", [1, 2])
def test_requests_in_flight_per_model_never_exceed_max_concurrency(tmp_path, limit):
    with StubServer([ok(GOOD)] * 4, delay_s=0.3) as server:
        client, _ = client_for(tmp_path, server.url, max_concurrency=limit)
        threads = [threading.Thread(target=call, args=(client,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(server.requests) == 4
    assert server.max_in_flight <= limit
