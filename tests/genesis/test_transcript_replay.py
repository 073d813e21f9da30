"""transcript.jsonl lines and replay: recorded answers come back in order with no model call."""
from __future__ import annotations

import json
import threading

import pytest
from llm_fakes import FIXTURES, ScriptedLiteLLM, litellm, recorded_replies
from pydantic import BaseModel

from genesis.llm import LLMClient, ModelCallError, ReplayMismatch, Transcript, load_config


class Brief(BaseModel):
    title: str
    waves: int


class Verdict(BaseModel):
    passed: bool


REPLIES = recorded_replies()


def config(tmp_path):
    return load_config({"model": "openai/test", "max_retries": 1}, env={}, cwd=tmp_path)


def run_session(client):
    """A little pipeline: two briefs, a verdict, then another verdict for a later stage."""
    return [
        client.complete("designer", "brief", "one", Brief, stage="brief", inputs={"n": 1}),
        client.complete("designer", "brief", "two", Brief, stage="brief", inputs={"n": 2}),
        client.complete("analyst", "check", "c", Verdict, stage="gdd", inputs={}),
        client.complete("analyst", "check", "c", Verdict, stage="game", inputs={}),
    ]


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """Record a session (with one retried call) and return (path, outputs)."""
    path = tmp_path / "rec" / "transcript.jsonl"
    script = [REPLIES["plain"], REPLIES["garbage"], REPLIES["fenced"], '{"passed": false}', '{"passed": true}']
    fake = ScriptedLiteLLM(script).install(monkeypatch)
    outputs = run_session(LLMClient(config(tmp_path), Transcript(path)))
    monkeypatch.setattr(litellm, "completion", fake._real)
    return path, outputs


@pytest.fixture
def no_model_calls(monkeypatch):
    calls = []

    def forbidden(**kwargs):
        calls.append(kwargs)
        raise AssertionError("litellm.completion called during replay")

    monkeypatch.setattr(litellm, "completion", forbidden)
    return calls


def test_transcript_has_one_json_line_per_attempt(recorded):
    path, _ = recorded
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 5  # 4 calls, one of them retried once
    retried = [r for r in records if r["call"] == 2]
    assert [(r["attempt"], r["ok"], r["final"]) for r in retried] == [(1, False, False), (2, True, True)]
    assert retried[0]["error_type"] == "OutputParseError" and retried[0]["output"] is None
    assert retried[1]["output"] == {"title": "Three fronts", "waves": 5}
    for rec in records:
        assert {"role", "skill", "stage", "model", "messages", "response_text", "prompt_tokens",
                "completion_tokens", "latency_ms", "attempt", "ts", "inputs_sha256"} <= rec.keys()
        assert rec["model"] == "openai/test" and rec["replayed"] is False


def test_replay_reproduces_outputs_without_calling_litellm(tmp_path, recorded, no_model_calls):
    path, outputs = recorded
    replay_log = tmp_path / "replay" / "transcript.jsonl"
    client = LLMClient(config(tmp_path), Transcript(replay_log), replay=Transcript.load(path))
    assert run_session(client) == outputs
    assert no_model_calls == []
    assert client.usage.total()["calls"] == 0 and client.usage.total()["replayed_calls"] == 4
    replayed = Transcript.load(replay_log).records
    assert len(replayed) == 4 and all(r["replayed"] for r in replayed)


def test_replay_into_the_same_file_and_replaying_a_replay(tmp_path, recorded, no_model_calls):
    path, outputs = recorded
    # Replaying appends replayed copies to the file it reads; a second replay must still match.
    for _ in range(2):
        client = LLMClient(config(tmp_path), Transcript(path), replay=Transcript.load(path))
        assert run_session(client) == outputs
    replay_only = tmp_path / "replay_only.jsonl"
    LLMClient(config(tmp_path), Transcript(replay_only), replay=Transcript.load(path)).complete(
        "designer", "brief", "x", Brief, stage="brief", inputs={})
    again = LLMClient(config(tmp_path), Transcript(), replay=Transcript.load(replay_only))
    assert again.complete("designer", "brief", "x", Brief, stage="brief", inputs={}) == outputs[0]
    assert no_model_calls == []


def test_replay_serves_each_key_in_recorded_order(tmp_path, recorded, no_model_calls):
    path, outputs = recorded
    client = LLMClient(config(tmp_path), Transcript(), replay=Transcript.load(path))
    # Different keys may interleave differently from the recording; order holds per key.
    assert client.complete("analyst", "check", "c", Verdict, stage="game", inputs={}) == outputs[3]
    assert client.complete("designer", "brief", "x", Brief, stage="brief", inputs={}) == outputs[0]
    assert client.complete("designer", "brief", "x", Brief, stage="brief", inputs={}) == outputs[1]


def test_replay_mismatch_on_unrecorded_call(tmp_path, recorded, no_model_calls):
    path, _ = recorded
    client = LLMClient(config(tmp_path), Transcript(), replay=Transcript.load(path))
    with pytest.raises(ReplayMismatch, match="role='pm' skill='plan' stage='brief'.*recorded 0"):
        client.complete("pm", "plan", "x", Brief, stage="brief", inputs={})
    run_session(client)
    with pytest.raises(ReplayMismatch, match="no recorded call #3"):
        client.complete("designer", "brief", "x", Brief, stage="brief", inputs={})


def test_replay_mismatch_when_output_model_changed(tmp_path, recorded, no_model_calls):
    path, _ = recorded
    client = LLMClient(config(tmp_path), Transcript(), replay=Transcript.load(path))
    with pytest.raises(ReplayMismatch, match="does not validate as Verdict"):
        client.complete("designer", "brief", "x", Verdict, stage="brief", inputs={})


def test_replay_reproduces_a_recorded_failure(tmp_path, monkeypatch):
    path = tmp_path / "failed.jsonl"
    ScriptedLiteLLM([REPLIES["garbage"]] * 2).install(monkeypatch)
    with pytest.raises(ModelCallError):
        LLMClient(config(tmp_path), Transcript(path)).complete("pm", "plan", "x", Brief, stage="brief", inputs={})
    no_model_calls = []
    monkeypatch.setattr(litellm, "completion", lambda **kw: no_model_calls.append(kw))
    client = LLMClient(config(tmp_path), Transcript(), replay=Transcript.load(path))
    with pytest.raises(ModelCallError, match=r"\(replayed\) no JSON object"):
        client.complete("pm", "plan", "x", Brief, stage="brief", inputs={})
    assert no_model_calls == []


def test_replay_from_checked_in_fixture(tmp_path, no_model_calls):
    recording = Transcript.load(FIXTURES / "replay_transcript.jsonl")
    client = LLMClient(config(tmp_path), Transcript(), replay=recording)
    brief = client.complete("designer", "brief", "x", Brief, stage="brief", inputs={})
    verdict = client.complete("analyst", "check", "x", Verdict, stage="gdd", inputs={})
    assert brief == Brief(title="Three fronts", waves=5) and verdict == Verdict(passed=True)


def test_concurrent_appends_stay_whole_lines(tmp_path):
    transcript = Transcript(tmp_path / "t.jsonl")
    payload = "x" * 5000  # longer than a pipe buffer, so torn writes would show

    def writer(n):
        for i in range(50):
            transcript.append({"writer": n, "i": i, "payload": payload})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = Transcript.load(tmp_path / "t.jsonl").records
    assert len(records) == 400 and all(r["payload"] == payload for r in records)


def test_load_reports_a_corrupt_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"ok": 1}\n{not json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        Transcript.load(path)


def test_a_replay_records_the_prompts_todays_templates_build_and_measures_them(tmp_path, recorded, no_model_calls):
    from genesis.llm.prompt_size import prompt_size_table, prompt_sizes

    path, outputs = recorded
    replay_log = tmp_path / "replay" / "transcript.jsonl"
    client = LLMClient(config(tmp_path), Transcript(replay_log), replay=Transcript.load(path))
    longer = client.complete("designer", "brief", "one " * 100, Brief, stage="brief", inputs={"n": 1},
                             images=[tmp_path / "frame_gone.png"])
    assert longer == outputs[0]       # the recorded answer, whatever the prompt now says; no frame is read
    (rec,) = Transcript.load(replay_log).records
    assert "one " * 100 in json.dumps(rec["messages"])
    assert rec["prompt_chars"] == sum(len(m["content"]) for m in rec["messages"]) and rec["schema_chars"] > 0
    assert client.usage.by_stage()["brief"]["prompt_chars"] == rec["prompt_chars"]
    sizes = prompt_sizes(Transcript.load(replay_log).records)
    assert sizes == {"designer/brief/brief": {"calls": 1, "prompt_chars": rec["prompt_chars"],
                                              "schema_chars": rec["schema_chars"]}}
    assert f"{rec['prompt_chars']:,}" in prompt_size_table(Transcript.load(replay_log).records)
