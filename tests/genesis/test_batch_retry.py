"""Infrastructure failures in a batch: classified as infra_error (never a Playability verdict),
retried with backoff within the run and again by the next run; the Ray committer's lease logic;
the settings a driver ships to its workers."""
from __future__ import annotations

import json

import pytest

from genesis.batch import BatchSettings, run_batch, runner
from genesis.batch.records import QueryRecord, failed
from genesis.batch.worker import JobOutcome
from genesis.infra import InfraError, retry_delay
from genesis.kb.common import KBUnavailableError
from batch_fakes import FakePool

QUERIES = ["defend two fronts with staggered waves", "hold the bridge against three waves"]


def test_retry_delay_doubles_from_the_base_up_to_the_cap():
    assert [retry_delay(n, base_s=5, max_s=30) for n in (1, 2, 3, 4, 5)] == [5, 10, 20, 30, 30]


def test_only_infra_errors_are_retried_and_only_as_often_as_allowed():
    infra = failed(0, "q", "q", "infra_error", "committer died", 1.0)
    crashed = failed(0, "q", "q", "crashed", "bug", 1.0)
    verdict = QueryRecord(index=0, query="q", slug="q", status="failed", playable=False)
    assert runner.should_retry(infra, 0, 3) and runner.should_retry(infra, 2, 3)
    assert not runner.should_retry(infra, 3, 3)
    assert not runner.should_retry(crashed, 0, 3) and not runner.should_retry(verdict, 0, 3)


def test_cluster_failures_are_infra_errors_and_task_bugs_are_crashes():
    ray_exceptions = pytest.importorskip("ray.exceptions")
    from genesis.batch.ray_pool import classify_failure
    from genesis.fileio import LockTimeout

    def task_error(cause):
        return ray_exceptions.RayTaskError("run_on_ray", "traceback", cause)

    assert classify_failure(ray_exceptions.ActorDiedError()) == "infra_error"
    assert classify_failure(ray_exceptions.WorkerCrashedError()) == "infra_error"
    assert classify_failure(ray_exceptions.TaskCancelledError()) == "infra_error"
    assert classify_failure(task_error(KBUnavailableError("chroma server down"))) == "infra_error"
    assert classify_failure(task_error(LockTimeout("lock"))) == "infra_error"
    assert classify_failure(task_error(ValueError("a bug"))) == "crashed"
    assert classify_failure(ValueError("a bug")) == "crashed"
    assert isinstance(KBUnavailableError("x"), InfraError)


class FlakyPool(FakePool):
    """Answers each job with the next outcome kind scripted for its query; counts the attempts."""

    script: dict[int, list[str]] = {}
    attempts: list[int] = []

    def outcome(self, job) -> JobOutcome:
        FlakyPool.attempts.append(job.index)
        kind = FlakyPool.script[job.index].pop(0)
        return JobOutcome(job.index, kind, f"scripted {kind}", 0.1)


class Events:
    def __init__(self):
        self.finished = []

    def begin(self, *a): ...
    def query_started(self, q): ...
    def end(self, *a): ...

    def query_finished(self, record):
        self.finished.append((record.index, record.status))


@pytest.fixture()
def flaky(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "WorkerPool", FlakyPool)
    FlakyPool.attempts = []
    file = tmp_path / "queries.txt"
    file.write_text("\n".join(QUERIES) + "\n")
    return file


def _settings(tmp_path, retries):
    return BatchSettings(workers=1, out=tmp_path / "batch", kb_root=tmp_path, rubrics_root=tmp_path,
                         retries=retries, retry_base_s=0.0)


def test_an_infra_error_is_retried_within_the_run_until_it_gets_an_outcome(flaky, tmp_path):
    FlakyPool.script = {0: ["infra_error", "infra_error", "crashed"], 1: ["crashed"]}
    events = Events()
    summary, folder = run_batch(flaky, _settings(tmp_path, retries=3), events=events)
    assert FlakyPool.attempts == [0, 1, 0, 0]
    assert [q.status for q in summary.queries] == ["crashed", "crashed"]
    assert [q.infra_retries for q in summary.queries] == [2, 0]
    assert sorted(events.finished) == [(0, "crashed"), (1, "crashed")]  # each query reported once, when settled


def test_an_infra_error_left_after_the_retries_is_no_verdict_and_the_next_run_retries_it(flaky, tmp_path):
    FlakyPool.script = {0: ["infra_error", "infra_error"], 1: ["crashed"]}
    summary, folder = run_batch(flaky, _settings(tmp_path, retries=1))
    assert [q.status for q in summary.queries] == ["infra_error", "crashed"]
    agg = json.loads((folder / "batch.json").read_text())["aggregate"]
    assert (agg["finished"], agg["infra_errors"]) == (1, 1)  # not in Playability's denominator

    FlakyPool.attempts, FlakyPool.script = [], {0: ["crashed"], 1: ["crashed"]}
    summary, _ = run_batch(flaky, _settings(tmp_path, retries=1))
    assert 0 in FlakyPool.attempts  # generated again, not skipped as finished
    assert summary.queries[0].status == "crashed"


# --- the committer actor's lease, as plain Python ----------------------------------------------
def test_a_lease_is_renewed_by_its_holder_and_freed_when_it_is_not(monkeypatch):
    from genesis.batch import ray_pool

    clock = [100.0]
    monkeypatch.setattr(ray_pool.time, "monotonic", lambda: clock[0])
    actor = ray_pool.KBCommitterActor("/nowhere", None)
    assert actor.acquire("a") and not actor.acquire("b")
    clock[0] += ray_pool.LEASE_S * 0.9
    assert actor.acquire("a")                     # renewed by a live holder
    clock[0] += ray_pool.LEASE_S * 0.9
    assert not actor.acquire("b")                 # still within the renewed lease
    status, name, message = actor.commit(None, False, "b")
    assert (status, name) == ("error", "KBUnavailableError") and "lease" in message
    clock[0] += ray_pool.LEASE_S                  # "a" died: it renews no more
    assert actor.acquire("b")


def test_a_worker_sees_the_committers_kb_errors_by_their_own_class():
    from genesis.batch.ray_pool import RayCommitter
    from genesis.kb.common import KBConflictError

    with pytest.raises(KBUnavailableError):
        RayCommitter._raise("error", "KBUnavailableError", "down")
    with pytest.raises(KBConflictError):
        RayCommitter._raise("error", "KBConflictError", "taken")
    RayCommitter._raise("ok", None, "")


# --- settings shipped with every task ----------------------------------------------------------
def test_the_driver_ships_the_settings_it_found_in_genesis_yaml(tmp_path, monkeypatch):
    from genesis import workspace

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "genesis.yaml").write_text("kb_server: http://head:8000\ncheckpointer: postgresql://db/genesis\n")
    for var in ("GENESIS_WORKSPACE", "GENESIS_KB_SERVER", "GENESIS_CHECKPOINTER", "GENESIS_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ws)
    env = workspace.shipped_env()
    assert env["GENESIS_WORKSPACE"] == str(ws.resolve())
    assert env["GENESIS_KB_SERVER"] == "http://head:8000"
    assert env["GENESIS_CHECKPOINTER"] == "postgresql://db/genesis"
    # a worker started elsewhere resolves the same settings from what it was shipped
    monkeypatch.chdir(tmp_path)
    assert workspace.setting("kb_server", env) == "http://head:8000"
    assert workspace.current(env).root == ws.resolve()


def test_a_chroma_server_that_is_down_is_an_infra_error(tmp_path):
    import socket

    from genesis.kb.store import KnowledgeBase

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens on it once the socket is closed
    with pytest.raises(KBUnavailableError, match="chroma server"):
        KnowledgeBase(tmp_path / "kb", server=f"http://127.0.0.1:{port}")


# --- the pipeline records service failures as infra_error; a retry never commits twice ---------
def test_a_kb_outage_during_a_generation_is_recorded_as_infra_error(tmp_path, monkeypatch):
    from genesis.batch.records import is_done, is_infra_error
    from genesis.kb.store import KnowledgeBase
    from genesis.pipeline.runner import start
    from genesis.workspace import copy_seed

    kb, rubrics = copy_seed(tmp_path / "seed")

    def down(self, *a, **k):
        raise KBUnavailableError("the KB's chroma server http://head:8000 did not answer")
    monkeypatch.setattr(KnowledgeBase, "search", down)
    outcome = start(QUERIES[0], out=tmp_path / "scenario", kb_root=kb, rubrics_root=rubrics, register=False)
    assert outcome.status == "infra_error"
    validation = json.loads((tmp_path / "scenario" / "validation.json").read_text())
    assert validation["playable"] is False and "did not answer" in validation["reason"]
    assert is_infra_error(tmp_path / "scenario", QUERIES[0]) and not is_done(tmp_path / "scenario", QUERIES[0])


def test_items_are_found_by_their_provenance(tmp_path):
    from kb_fixtures import two_front_bundle

    from genesis.kb.store import KnowledgeBase

    kb = KnowledgeBase(tmp_path / "kb", server="")
    bundle = two_front_bundle()
    bundle.gdd.provenance["commit_key"] = "/batches/b/defend"
    kb.commit(bundle)
    assert kb.with_provenance("gdds", "commit_key", "/batches/b/defend") == [bundle.gdd.id]
    assert kb.with_provenance("gdds", "commit_key", "/batches/b/other") == []


def test_a_batch_whose_chroma_server_is_down_stops_before_any_work_with_exit_2(flaky, tmp_path, monkeypatch):
    import socket

    from typer.testing import CliRunner

    from genesis.cli import app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("GENESIS_KB_SERVER", f"http://127.0.0.1:{port}")
    FlakyPool.script = {}
    res = CliRunner().invoke(app, ["batch", str(flaky), "--out", str(tmp_path / "batch")])
    assert res.exit_code == 2 and "cannot reach the KB's chroma server" in " ".join(res.output.split())
    assert "Traceback" not in res.output and FlakyPool.attempts == []


def test_a_task_runs_with_exactly_the_drivers_settings(monkeypatch):
    import os

    from genesis.batch.ray_pool import task_environment

    monkeypatch.setenv("GENESIS_CERTIFICATE", "off")        # the worker's own, from whoever ran `ray start`
    monkeypatch.setenv("GENESIS_KB_SERVER", "http://stale:8000")
    with task_environment({"GENESIS_KB_SERVER": "http://head:8000", "GENESIS_WORKSPACE": "/shared/ws"}):
        assert os.environ["GENESIS_KB_SERVER"] == "http://head:8000" and os.environ["GENESIS_WORKSPACE"] == "/shared/ws"
        assert "GENESIS_CERTIFICATE" not in os.environ
    assert os.environ["GENESIS_CERTIFICATE"] == "off" and os.environ["GENESIS_KB_SERVER"] == "http://stale:8000"


def test_a_retry_keeps_the_commit_of_an_earlier_attempt_instead_of_adding_it_again(tmp_path):
    from types import SimpleNamespace

    from kb_fixtures import two_front_bundle

    from genesis.kb.store import KnowledgeBase
    from genesis.pipeline.evolution import evolve
    from genesis.workspace import copy_seed

    _, rubrics = copy_seed(tmp_path / "seed")
    kb = KnowledgeBase(tmp_path / "kb", server="")  # a small KB: indexing the seed's would take most of the test
    earlier = two_front_bundle()  # what the first attempt committed before its worker was killed
    earlier.gdd.id = "first_attempt"
    earlier.gdd.provenance["commit_key"] = "/batches/b/defend"
    kb.commit(earlier)
    gdds = sorted(e.id for e in kb.list("gdds"))
    out = evolve(SimpleNamespace(kb=kb, rubrics_root=rubrics), {"options": {"commit_key": "/batches/b/defend"}})
    assert out["committed"] == {"gdd": "first_attempt", "new_rules": [], "added": [], "by_earlier_attempt": True}
    assert sorted(e.id for e in kb.list("gdds")) == gdds


def test_a_retry_round_waits_for_a_chroma_server_that_is_still_down(flaky, tmp_path, monkeypatch):
    """A restarting chroma server must not use up every query's retries in seconds."""
    from genesis.kb import store

    log, answers = [], iter([True, False, False, True])  # up at the start, then down twice, then back

    def check_server(address, token=None):
        log.append("check")
        if not next(answers):
            raise KBUnavailableError("down")

    monkeypatch.setenv("GENESIS_KB_SERVER", "http://127.0.0.1:9")
    monkeypatch.setattr(store, "check_server", check_server)
    monkeypatch.setattr(runner, "KB_SERVER_POLL_S", 0.0)
    scripted = FlakyPool.outcome

    def outcome(self, job):
        log.append(f"run {job.index}")
        return scripted(self, job)

    monkeypatch.setattr(FlakyPool, "outcome", outcome)
    FlakyPool.script = {0: ["infra_error", "crashed"], 1: ["crashed"]}
    summary, _ = run_batch(flaky, _settings(tmp_path, retries=1))
    assert log == ["check", "run 0", "run 1", "check", "check", "check", "run 0"]
    assert summary.queries[0].status == "crashed"


def test_a_retry_round_waits_for_the_chroma_server_only_so_long(flaky, tmp_path, monkeypatch):
    from genesis.kb import store

    calls = []

    def check_server(address, token=None):
        calls.append(address)
        if len(calls) > 1:
            raise KBUnavailableError("down")

    monkeypatch.setenv("GENESIS_KB_SERVER", "http://127.0.0.1:9")
    monkeypatch.setattr(store, "check_server", check_server)
    monkeypatch.setattr(runner, "KB_SERVER_POLL_S", 0.01)
    FlakyPool.script = {0: ["infra_error", "infra_error"], 1: ["crashed"]}
    settings = BatchSettings(workers=1, out=tmp_path / "batch", kb_root=tmp_path, rubrics_root=tmp_path,
                             retries=1, retry_base_s=0.0, kb_server_wait_s=0.2)
    summary, _ = run_batch(flaky, settings)
    assert summary.queries[0].status == "infra_error" and len(calls) > 2
