"""A model endpoint that stays unavailable stops a run as `infra_error`: no verdict on the scenario,
left out of Playability, retried when the batch runs again, resumable from the last checkpoint."""
from __future__ import annotations

import json

import pytest
from http_stub import StubServer, rate_limited
from llm_fakes import litellm  # noqa: F401 (imports litellm with the local price map)
from typer.testing import CliRunner

from genesis.batch.records import from_folder, is_done
from genesis.batch.summary import BatchSummary
from genesis.cli import app
from genesis.pipeline.runner import resume, start
from genesis.workspace import copy_seed

QUERY = "defend two fronts with staggered waves"
STUB_MODEL = {"model": "openai/stub", "infra_retries": 1, "backoff_max": 0.1}


def test_an_unavailable_endpoint_is_an_infra_error_that_resumes_to_a_verdict(tmp_path):
    kb, rubrics = copy_seed(tmp_path / "seed")
    folder = tmp_path / "scenario"
    with StubServer([rate_limited("1")] * 2) as server:
        outcome = start(QUERY, out=folder, model_cli={**STUB_MODEL, "api_base": server.url}, kb_root=kb,
                        rubrics_root=rubrics)
    assert outcome.status == "infra_error" and len(server.requests) == 2
    validation = json.loads((folder / "validation.json").read_text())
    assert validation["status"] == "infra_error" and validation["playable"] is False
    assert "genesis resume" in validation["reason"]

    assert not is_done(folder, QUERY)  # a batch re-run generates it again
    record = from_folder(0, QUERY, "scenario", folder, wall_s=1.0, resumed=False)
    assert record.infra_error and not record.playable
    playable = record.model_copy(update={"index": 1, "status": "playable", "playable": True, "generation_time_s": 3.0})
    summary = BatchSummary(name="b", file="f", status="complete", started="", workers=1, model="m",
                           total_queries=2, queries=[record, playable])
    agg = summary.aggregates()
    assert (agg["playability"], agg["finished"], agg["infra_errors"]) == (1.0, 1, 1)

    # The endpoint is back (here: the offline backend answers): the run continues from its checkpoint.
    run = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**run, "model_cli": {}}))
    resumed = resume(str(folder))
    assert resumed.status == "playable", resumed.validation.get("reason")
    assert is_done(folder, QUERY)


def test_cli_says_infra_error_and_exits_3(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_INFRA_RETRIES", "0")
    with StubServer([rate_limited("1")]) as server:
        result = CliRunner().invoke(app, ["new", QUERY, "--out", str(tmp_path / "s"), "--model", "openai/stub",
                                          "--api-base", server.url])
    assert result.exit_code == 3, result.output
    assert "INFRA ERROR" in result.output and "Traceback" not in result.output


@pytest.mark.slow  # a whole `genesis new` start-up; the client's side is in test_llm_hosted.py
def test_cli_says_infra_error_and_exits_3_when_the_endpoint_answers_no_completion(tmp_path, monkeypatch):
    """A body that is not a completion (a proxy's HTML page, empty choices) is the endpoint's fault:
    no NOT PLAYABLE verdict on the scenario, but an infrastructure error to resume."""
    from http_stub import completion

    monkeypatch.setenv("GENESIS_INFRA_RETRIES", "0")
    monkeypatch.setenv("GENESIS_MAX_RETRIES", "1")
    bodies = [(200, {}, b"<html>bad gateway page</html>"), (200, {}, {**completion("x"), "choices": []})]
    with StubServer(bodies) as server:
        result = CliRunner().invoke(app, ["new", QUERY, "--out", str(tmp_path / "s"), "--model", "openai/stub",
                                          "--api-base", server.url])
    assert result.exit_code == 3, result.output
    assert "INFRA ERROR" in result.output and "malformed response" in " ".join(result.output.split())
    assert json.loads((tmp_path / "s" / "validation.json").read_text())["status"] == "infra_error"
