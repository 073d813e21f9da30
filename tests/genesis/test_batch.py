"""`genesis batch`: query files, parallel workers, resumability, batch.json/batch.html and history."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from batch_fakes import RecordingPool

from genesis.batch import BatchFileError, BatchInterrupted, BatchSettings, read_queries, run_batch
from genesis.batch.records import is_done
from genesis.batch.summary import append_history, read_history
from genesis.cli import app
from genesis.kb.store import KnowledgeBase
from genesis.workspace import copy_seed

QUERY = "escort-free siege: artillery only, break the turret line before the timer runs out"  # a quick one
SLUG = "escort-free-siege-artillery-only-break-the-turret-l-f03aa305"  # cut at 60 characters: + a hash
NOT_A_GAME = "bake a chocolate cake with three layers"  # refused in Stage 1: a quick real pipeline run
TOO_LONG = "a " * 1100  # over the 2,000-character limit: the pipeline refuses it with QueryError


class Recorder:
    """Collects what the batch tells a live view."""

    def __init__(self, interrupt_on_start: bool = False):
        self.started, self.finished, self.began, self.ended = [], [], [], []
        self.interrupt_on_start = interrupt_on_start

    def begin(self, summary, batch_dir, to_run):
        self.began.append(to_run)

    def query_started(self, query):
        self.started.append(query.query)
        if self.interrupt_on_start:
            raise KeyboardInterrupt  # as if Ctrl-C arrived while the workers run

    def query_finished(self, record):
        self.finished.append(record)

    def end(self, summary, batch_dir):
        self.ended.append(summary.status)


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    """A throwaway KB + rubrics shared by the workers (through the environment they inherit)."""
    root = tmp_path_factory.mktemp("batch-seed")
    kb, rubrics = copy_seed(root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GENESIS_KB_DIR", str(kb))
        mp.setenv("GENESIS_RUBRICS_DIR", str(rubrics))
        yield kb, rubrics


@pytest.fixture(scope="module")
def first_run(seed, tmp_path_factory):
    work = tmp_path_factory.mktemp("batch")
    file = work / "small.txt"
    file.write_text(f"# a small batch\n{QUERY}\n\n{QUERY}\n   \n{NOT_A_GAME}\n{TOO_LONG}\n")
    events = Recorder()
    summary, batch_dir = run_batch(file, BatchSettings(workers=2, out=work / "batches" / "small"), events=events)
    return file, batch_dir, summary, events


# --- the query file ------------------------------------------------------------------------------
def test_read_queries_skips_comments_and_blanks_and_disambiguates_slugs(tmp_path):
    file = tmp_path / "q.txt"
    file.write_text("# comment\n\n  hold   the bridge \nhold the bridge\n#x\nLogs\nHold the Bridge!\n")
    queries = read_queries(file)
    assert [q.query for q in queries] == ["hold the bridge", "hold the bridge", "Logs", "Hold the Bridge!"]
    assert [q.slug for q in queries] == ["hold-the-bridge", "hold-the-bridge-2", "logs-2", "hold-the-bridge-3"]
    assert [q.line for q in queries] == [3, 4, 6, 7]


@pytest.mark.parametrize("content", [None, "", "# only comments\n\n   \n"])
def test_unusable_batch_file_is_a_clear_error(tmp_path, content):
    file = tmp_path / "q.txt"
    if content is not None:
        file.write_text(content)
    with pytest.raises(BatchFileError, match="q.txt"):
        read_queries(file)


@pytest.mark.parametrize("content", [None, "# nothing here\n"])
def test_cli_exits_2_on_unusable_file(tmp_path, content):
    file = tmp_path / "q.txt"
    if content is not None:
        file.write_text(content)
    res = CliRunner().invoke(app, ["batch", str(file), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "q.txt" in res.output and not (tmp_path / "out").exists()


# --- what counts as done -----------------------------------------------------------------------
def _fake_run(folder: Path, query: str, status: str = "playable", report: bool = True) -> None:
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"run_id": "r1", "query": query}))
    (folder / "validation.json").write_text(json.dumps({"run_id": "r1", "status": status, "playable": status == "playable"}))
    if report:
        (folder / "report.html").write_text("<html></html>")


def test_is_done_needs_the_same_query_its_own_verdict_and_a_fresh_report(tmp_path):
    _fake_run(tmp_path / "ok", "q")
    assert is_done(tmp_path / "ok", "q")
    assert not is_done(tmp_path / "ok", "another query")
    _fake_run(tmp_path / "no-report", "q", report=False)
    assert not is_done(tmp_path / "no-report", "q")  # killed between validation.json and report.html
    _fake_run(tmp_path / "error", "q", status="error", report=False)
    assert is_done(tmp_path / "error", "q")  # a PipelineError is a finished (not playable) result
    stale = tmp_path / "stale"
    _fake_run(stale, "q")
    os.utime(stale / "report.html", (1, 1))  # a report from an earlier run
    assert not is_done(stale, "q")
    (stale / "run.json").write_text(json.dumps({"run_id": "r2", "query": "q"}))  # a new run started, no verdict yet
    os.utime(stale / "report.html", None)
    assert not is_done(stale, "q")


# --- the worker pool ---------------------------------------------------------------------------
def test_a_dead_worker_is_reported_and_a_fresh_one_takes_the_next_job(tmp_path):
    import signal

    from genesis.batch.pool import WorkerPool
    from genesis.batch.worker import Job

    jobs = [Job(i, query, tmp_path / f"q{i}", tmp_path / "logs" / f"q{i}.log") for i, query in enumerate(["doomed", ""])]
    with WorkerPool(1) as pool:
        def kill_first(job):
            if job.index == 0:  # as if the worker segfaulted or was OOM-killed mid-query
                (worker,) = [w for w in pool._workers if w.job is job]
                os.kill(worker.process.pid, signal.SIGKILL)
        results = {job.index: outcome for job, outcome in pool.run(jobs, on_start=kill_first)}
    assert results[0].kind == "infra_error" and "exit code -9" in results[0].reason  # retried by the batch
    # the replacement worker ran the next job; an exception inside a job is reported, not fatal
    assert results[1].kind == "crashed" and results[1].reason.startswith("QueryError")
    assert "QueryError" in (tmp_path / "logs" / "q1.log").read_text()  # the traceback went to the job's log


@pytest.mark.slow
def test_a_worker_that_died_while_idle_is_replaced_before_it_gets_a_job(tmp_path):
    import signal

    from genesis.batch.pool import WorkerPool
    from genesis.batch.worker import Job

    jobs = [Job(i, "", tmp_path / f"q{i}", tmp_path / "logs" / f"q{i}.log") for i in range(2)]
    with WorkerPool(1) as pool:
        outcomes = []
        for job, outcome in pool.run(jobs):
            outcomes.append(outcome)
            if job.index == 0:  # between jobs: the only worker is idle when it is killed
                (worker,) = pool._workers
                os.kill(worker.process.pid, signal.SIGKILL)
                worker.process.join()
    # both jobs ran (and failed on their empty query); neither is blamed for the dead worker
    assert [o.reason.split(":")[0] for o in outcomes] == ["QueryError", "QueryError"]
    assert "QueryError" in (tmp_path / "logs" / "q1.log").read_text()


# --- history -------------------------------------------------------------------------------------
def test_history_appends_lines_and_ignores_malformed_ones(tmp_path):
    path = tmp_path / "history.jsonl"
    append_history(path, {"batch": "a", "playability": 0.5})
    path.write_text(path.read_text() + "not json")  # a torn or hand-edited line
    append_history(path, {"batch": "b", "playability": 1.0})
    assert [r["batch"] for r in read_history(path)] == ["a", "b"]


# --- a real batch with 2 workers: a query twice, a non-game request, an over-long line --------
def test_batch_json_records_every_query_from_its_scenario_folder(first_run):
    file, batch_dir, summary, events = first_run
    data = json.loads((batch_dir / "batch.json").read_text())
    assert data["status"] == "complete" and data["total_queries"] == 4 and data["pending"] == []
    assert [q["slug"] for q in data["queries"]][:2] == [SLUG, f"{SLUG}-2"]
    for q in data["queries"][:2]:
        v = json.loads((batch_dir / q["slug"] / "validation.json").read_text())
        assert v["query"] == QUERY
        assert q["playable"] == v["playable"] and q["reason"] == v["reason"] and q["fast_tracked"] == v["fast_tracked"]
        assert q["generation_time_s"] == v["generation_time_s"] and q["rubric_versions"] == v["rubric_versions"]
        assert q["model_calls"] == v["usage"]["total"]["calls"] > 0
        assert q["tokens"] == v["usage"]["total"]["prompt_tokens"] + v["usage"]["total"]["completion_tokens"] > 0
        assert q["wall_s"] > 0 and q["resumed"] is False
        assert isinstance(q["stages_retried"], dict) and q["status"] != "error"  # no KB clash between the twins
        assert (batch_dir / q["report"]).is_file()
    refused = data["queries"][2]
    assert refused["status"] == "refused" and refused["playable"] is False and refused["reason"]
    assert refused["wall_s"] > 0 and (batch_dir / refused["report"]).is_file()
    bad = data["queries"][3]
    assert bad["status"] == "invalid_query" and bad["playable"] is False and "2,000" in bad["reason"]
    agg = data["aggregate"]
    playable = [q for q in data["queries"] if q["playable"]]
    assert agg["playable"] == len(playable) and agg["playability"] == round(len(playable) / 4, 4)
    if playable:
        times = [q["generation_time_s"] for q in playable]
        assert agg["mean_generation_time_s"] == pytest.approx(sum(times) / len(times), abs=0.01)
    assert bad["wall_s"] is None and agg["generated_now"] == 3  # refused before any worker ran it
    assert sorted(r.query for r in events.finished) == sorted([QUERY, QUERY, NOT_A_GAME])
    assert events.ended == ["complete"]
    suite = json.loads((batch_dir / "suite.json").read_text())
    assert suite["tasks"] == []                               # the certificate is off: nothing is certified
    why = {r["index"]: r["why"] for r in suite["rejected"]}
    assert why[2] == refused["reason"] and "2,000" in why[3]
    assert all(why[q["index"]] == "playable, but its certificate was not computed (GENESIS_CERTIFICATE=off)"
               for q in playable)


def test_parallel_twins_both_commit_to_the_shared_kb(first_run, seed):
    _, batch_dir, summary, _ = first_run
    committed = [q for q in summary.queries if q.playable and not q.fast_tracked]
    gdds = [e.id for e in KnowledgeBase(seed[0]).list("gdds")]
    assert len(gdds) == len(committed)  # each playable cold run added its own GDD under a distinct id


def test_batch_html_has_charts_table_and_relative_links(first_run):
    _, batch_dir, summary, _ = first_run
    html = (batch_dir / "batch.html").read_text()
    assert html.count("<svg") == 3 and "<script" not in html
    assert "Playability per batch run" in html and "Mean generation time per batch run" in html
    for q in summary.queries:
        if q.report:
            assert f'href="{q.report}"' in html
    assert 'href="../history.jsonl"' in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")


def test_rerun_skips_finished_queries_and_only_runs_new_ones(first_run):
    file, batch_dir, first, _ = first_run
    history = batch_dir.parent / "history.jsonl"
    assert [r["playability"] for r in read_history(history)] == [first.aggregates()["playability"]]
    stamps = {p: p.stat().st_mtime_ns for p in batch_dir.glob("*/validation.json")}

    events = Recorder()
    again, _ = run_batch(file, BatchSettings(workers=2, out=batch_dir), events=events)
    assert events.started == [] and events.began == [0]  # no worker, no new generation
    assert [q.resumed for q in again.queries] == [True, True, True, False]  # the invalid query is judged again
    assert [q.playable for q in again.queries] == [q.playable for q in first.queries]
    assert {p: p.stat().st_mtime_ns for p in batch_dir.glob("*/validation.json")} == stamps
    assert len(read_history(history)) == 1  # a run that generated nothing adds no point

    another = "write me a poem about the sea"
    file.write_text(file.read_text() + f"{another}\n")
    events = Recorder()
    third, _ = run_batch(file, BatchSettings(workers=2, out=batch_dir), events=events)
    assert events.started == [another]
    assert [q.resumed for q in third.queries] == [True, True, True, False, False] and third.total_queries == 5
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert len(read_history(history)) == 2 and read_history(history)[1]["queries"] == 5
    assert (batch_dir / "batch.html").read_text().count("<polyline") >= 2  # both history charts have a line now


def test_ctrl_c_keeps_finished_queries_and_marks_nothing_half_done(seed, tmp_path):
    file = tmp_path / "one.txt"
    file.write_text("hold the bridge against three waves, each larger than the last\n")
    batch_dir = tmp_path / "batches" / "one"
    with pytest.raises(BatchInterrupted) as info:
        run_batch(file, BatchSettings(workers=1, out=batch_dir), events=Recorder(interrupt_on_start=True))
    assert info.value.summary.status == "interrupted"
    data = json.loads((batch_dir / "batch.json").read_text())
    assert data["status"] == "interrupted" and data["queries"] == [] and len(data["pending"]) == 1
    folder = batch_dir / "hold-the-bridge-against-three-waves-each-larger-than-the-las"
    assert not is_done(folder, "hold the bridge against three waves, each larger than the last")
    assert not (batch_dir.parent / "history.jsonl").exists()


# --- the acceptance run: the 12 example queries with 2 workers (about 1 min on an idle 2-core box,
# many minutes under load, so outside the default suite)
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_batch_over_the_example_queries_with_two_workers(seed, tmp_path):
    file = Path(__file__).parents[1] / "data" / "example_queries.txt"
    queries = read_queries(file)
    summary, batch_dir = run_batch(file, BatchSettings(workers=2, out=tmp_path / "examples"))
    data = json.loads((batch_dir / "batch.json").read_text())
    assert data["status"] == "complete" and [q["query"] for q in data["queries"]] == [q.query for q in queries]
    for q in data["queries"]:
        v = json.loads((batch_dir / q["slug"] / "validation.json").read_text())
        assert q["playable"] == v["playable"] and q["status"] == v["status"] != "error", q["reason"]
        assert (batch_dir / q["report"]).is_file()
    assert data["aggregate"]["playability"] == round(sum(q["playable"] for q in data["queries"]) / len(queries), 4)
    print(json.dumps({"queries": len(queries), "workers": 2, "wall_s": summary.wall_s, **data["aggregate"]}))
    events = Recorder()
    run_batch(file, BatchSettings(workers=2, out=batch_dir), events=events)
    assert events.started == []


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_sigint_exits_130_stops_workers_and_the_rerun_finishes(seed, tmp_path):
    import re
    import signal
    import subprocess
    import sys
    import time

    file = tmp_path / "one.txt"
    file.write_text(f"{QUERY}\n")
    batch_dir = tmp_path / "batches" / "one"
    cmd = [str(Path(sys.executable).parent / "genesis"), "batch", str(file), "--out", str(batch_dir), "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    log = batch_dir / "logs" / f"{SLUG}.log"
    deadline = time.monotonic() + 300
    while not (log.exists() and "clarifying" in log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.5)
    worker_pid = int(re.search(r"worker pid (\d+)", log.read_text()).group(1))
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err
    with pytest.raises(ProcessLookupError):
        os.kill(worker_pid, 0)  # the worker (and its simulation children) were stopped
    assert json.loads((batch_dir / "batch.json").read_text())["status"] == "interrupted"
    assert not is_done(batch_dir / SLUG, QUERY)

    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert rerun.returncode in (0, 1), rerun.stderr
    data = json.loads((batch_dir / "batch.json").read_text())
    assert data["status"] == "complete" and data["queries"][0]["resumed"] is False
    assert is_done(batch_dir / SLUG, QUERY)


@pytest.mark.parametrize("cores,workers", [(1, 1), (2, 1), (3, 1), (8, 4)])
def test_default_workers_leave_each_generation_its_simulation_cores(monkeypatch, cores, workers):
    from genesis.batch.runner import default_workers, sim_processes

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert default_workers() == workers
    # one process budget: the workers' validation processes together never exceed the cores
    assert workers * sim_processes(workers) <= max(cores, workers) and sim_processes(workers) >= min(2, cores)
    assert sim_processes(cores) == 1 and sim_processes(cores + 3) == 1


def test_each_job_gets_its_share_of_the_process_budget(monkeypatch, tmp_path):
    """The jobs a local batch hands its workers carry sim_processes = cores / workers."""
    from genesis.batch import runner

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)))
    monkeypatch.setattr(runner, "WorkerPool", RecordingPool)
    RecordingPool.jobs = []
    seen = RecordingPool.jobs
    file = tmp_path / "q.txt"
    file.write_text("hold the bridge\ndefend two fronts\nraid the base\n")
    runner.run_batch(file, BatchSettings(workers=2, out=tmp_path / "b", kb_root=tmp_path, rubrics_root=tmp_path))
    assert [j.sim_processes for j in seen] == [2, 2, 2]
    seen.clear()
    runner.run_batch(file, BatchSettings(workers=4, out=tmp_path / "c", kb_root=tmp_path, rubrics_root=tmp_path))
    assert [j.sim_processes for j in seen] == [1, 1, 1]
