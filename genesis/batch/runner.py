"""`genesis batch`: every query of a file through the pipeline, in N local worker processes or as
Ray tasks on a cluster, resumable, optionally one shard of a Slurm-style array.

The scenario folders are the record of what is done: a re-run skips each query whose folder holds
a finished generation of exactly that query, and a killed batch leaves only finished folders
looking finished. batch.json is rewritten after every query; history.jsonl (beside the batch
folder) gets one line per batch run that completes.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from genesis.batch import records
from genesis.batch.pool import WorkerPool
from genesis.batch.queries import BatchQuery, read_queries
from genesis.batch.records import QueryRecord
from genesis.batch.shard import Shard, queries_digest
from genesis.batch.summary import BatchSummary, append_history, history_path, history_record, write_summary
from genesis.batch.worker import Job
from genesis.infra import BATCH_RETRIES, RETRY_BASE_S, retry_delay
from genesis.pipeline.runner import INFRA_ERROR, QueryError, check_query, slugify


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C: the workers were stopped; finished queries are kept, the others run on the next call."""

    def __init__(self, summary: BatchSummary, batch_dir: Path):
        super().__init__(f"batch interrupted with {len(summary.queries)} of {summary.total_queries} queries finished")
        self.summary, self.batch_dir = summary, batch_dir


class BatchEvents(Protocol):
    """What a live view (genesis.batch.display) is told; every method is optional to act on."""

    def begin(self, summary: BatchSummary, batch_dir: Path, to_run: int) -> None: ...
    def query_started(self, query: BatchQuery) -> None: ...
    def query_finished(self, record: QueryRecord) -> None: ...
    def end(self, summary: BatchSummary, batch_dir: Path) -> None: ...


# Each generation runs its validation games in parallel (5 games and a determinism replay); with
# fewer than this many processes per generation, the validation becomes the batch's bottleneck.
SIM_PROCESSES_PER_GENERATION = 2
DEFAULT_TASK_DEADLINE_S = 1800.0


def default_workers() -> int:
    """Generations at once on this machine: the process budget (usable cores) shared by the batch
    workers and their validation processes, each generation keeping SIM_PROCESSES_PER_GENERATION
    (on 2 cores, 2 workers were 1.46x slower than 1)."""
    from genesis.simulate import process_budget

    return max(1, process_budget() // SIM_PROCESSES_PER_GENERATION)


def sim_processes(workers: int) -> int:
    """Validation processes each of `workers` concurrent generations may run: together they stay
    within the process budget."""
    from genesis.simulate import generation_processes

    return generation_processes(workers)


KB_SERVER_WAIT_S = 300.0
KB_SERVER_POLL_S = 2.0


@dataclass
class BatchSettings:
    workers: int | None = None  # None: default_workers() locally, the cluster's CPUs / 2 on Ray
    out: Path | None = None
    model_cli: dict[str, Any] = field(default_factory=dict)
    kb_root: Path | None = None
    rubrics_root: Path | None = None
    seed: int = 0
    ray_address: str | None = None  # None: local worker processes; "local": $RAY_ADDRESS or a new local Ray; else a cluster
    shard: Shard | None = None
    retries: int = BATCH_RETRIES    # infra_error queries generated again within this run (with backoff)
    retry_base_s: float = RETRY_BASE_S
    task_deadline_s: float = DEFAULT_TASK_DEADLINE_S  # a Ray task still running then is cancelled as hung
    kb_server_wait_s: float = KB_SERVER_WAIT_S  # a retry round waits this long at most for the chroma server


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def batch_folder(file: Path, out: Path | None, shard: Shard | None = None) -> Path:
    """--out, else <workspace>/generated/batches/<file name>/; a shard gets its own folder inside."""
    from genesis import workspace

    folder = Path(out) if out else workspace.ensure().generated / "batches" / slugify(Path(file).stem)
    return folder / shard.folder if shard else folder


def run_batch(file: Path, settings: BatchSettings | None = None, events: BatchEvents | None = None) -> tuple[BatchSummary, Path]:
    """Runs (or resumes) the batch in `file`; returns its summary and folder.

    Raises BatchFileError for an unusable file, ConfigError for bad model flags (both before any
    work starts), RayUnavailable when the Ray cluster cannot be used, and BatchInterrupted on Ctrl-C.
    """
    from genesis import workspace
    from genesis.llm.config import load_config
    from genesis.llm.preflight import check_models

    settings = settings or BatchSettings()
    queries = read_queries(file)
    if settings.kb_root is None or settings.rubrics_root is None:  # every worker shares the workspace's
        ws = workspace.ensure()
        settings = replace(settings, kb_root=settings.kb_root or ws.kb, rubrics_root=settings.rubrics_root or ws.rubrics)
    config = load_config(settings.model_cli)   # bad flags, an unknown model or a missing key fail here, not in every worker
    check_models(config)
    model = config.backend_name("designer")
    if server := workspace.setting("kb_server"):  # down at the start: one message, not an infra_error per query
        from genesis.kb.store import check_server

        check_server(server, workspace.setting("kb_token"))
    else:
        settings = replace(settings, kb_server_wait_s=0.0)
    batch_dir = batch_folder(file, settings.out, settings.shard)
    batch_dir.mkdir(parents=True, exist_ok=True)
    mine = settings.shard.select(queries) if settings.shard else queries
    done: dict[int, QueryRecord] = {
        q.index: records.from_folder(q.index, q.query, q.slug, batch_dir / q.slug, wall_s=None, resumed=True)
        for q in mine if records.is_done(batch_dir / q.slug, q.query)}
    for q in mine:  # a query the pipeline would refuse outright needs no worker
        if q.index not in done and (problem := _invalid(q.query)):
            done[q.index] = records.failed(q.index, q.query, q.slug, "invalid_query", problem, wall_s=None)
    pending = [q for q in mine if q.index not in done]
    started, t0 = _now(), time.perf_counter()
    pool = _pool(settings, len(pending))

    def summary(status: str) -> BatchSummary:
        return BatchSummary(
            name=batch_dir.name, file=str(file), status=status, started=started,
            finished=_now() if status != "running" else None, workers=pool.size, model=model,
            wall_s=round(time.perf_counter() - t0, 2) if status != "running" else None, total_queries=len(queries),
            queries=[done[i] for i in sorted(done)], pending=[q.query for q in mine if q.index not in done],
            shard=settings.shard.label if settings.shard else None, queries_digest=queries_digest(queries),
            backend=f"ray {settings.ray_address}" if settings.ray_address else "local",
            kb=str(Path(settings.kb_root).resolve()))

    by_index = {q.index: q for q in pending}
    try:
        with pool:
            write_summary(summary("running"), batch_dir)
            if events:
                events.begin(summary("running"), batch_dir, len(pending))
            per_generation = getattr(pool, "cpus_per_query", None) or sim_processes(pool.size)
            jobs = [Job(q.index, q.query, batch_dir / q.slug, batch_dir / "logs" / f"{q.slug}.log", settings.model_cli,
                        settings.kb_root, settings.rubrics_root, settings.seed, per_generation,
                        commit_key=str((batch_dir / q.slug).resolve())) for q in pending]
            attempts = dict.fromkeys(by_index, 0)
            while jobs:
                retry = []
                for job, outcome in pool.run(jobs, on_start=(lambda j: events.query_started(by_index[j.index])) if events else None):
                    done[job.index] = _record(by_index[job.index], job, outcome).model_copy(
                        update={"infra_retries": attempts[job.index]})
                    write_summary(summary("running"), batch_dir)
                    if should_retry(done[job.index], attempts[job.index], settings.retries):
                        attempts[job.index] += 1
                        retry.append(job)
                    elif events:
                        events.query_finished(done[job.index])
                if retry:  # the outage may last: wait before trying the service again
                    time.sleep(retry_delay(max(attempts[j.index] for j in retry), base_s=settings.retry_base_s))
                    await_kb_server(settings.kb_server_wait_s)
                jobs = retry
    except KeyboardInterrupt:
        final = summary("interrupted")
        write_summary(final, batch_dir)
        raise BatchInterrupted(final, batch_dir) from None
    final = summary("complete")
    if pending:  # a re-run that only skipped finished queries adds no new point to the history
        append_history(history_path(batch_dir), history_record(final))
    write_summary(final, batch_dir)
    if events:
        events.end(final, batch_dir)
    return final, batch_dir


def await_kb_server(wait_s: float) -> None:
    """Before a retry round: while the KB's chroma server is down (restarting) every retry would fail at
    once and use up its attempts in seconds, so wait until it answers again, for `wait_s` at most (a
    server still down then leaves the retries to end as infra_error, generated again by the next run)."""
    if wait_s <= 0:
        return
    from genesis import workspace
    from genesis.kb.common import KBUnavailableError
    from genesis.kb.store import check_server

    server, token = workspace.setting("kb_server"), workspace.setting("kb_token")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            check_server(server, token)
            return
        except KBUnavailableError:
            if time.monotonic() >= deadline:
                return
            time.sleep(KB_SERVER_POLL_S)


def should_retry(record: QueryRecord, attempts: int, retries: int) -> bool:
    """Whether to generate the query again within this run: lost to the infrastructure (no verdict)
    and tried fewer than `retries` extra times so far."""
    return record.infra_error and attempts < retries


def _pool(settings: BatchSettings, pending: int):
    """Local worker processes, or Ray tasks (the KB committer actor starts with the pool)."""
    if settings.ray_address is None or not pending:  # nothing to run needs no cluster
        return WorkerPool(min(settings.workers or default_workers(), max(1, pending)))
    from genesis import workspace
    from genesis.batch.ray_pool import RayPool

    # resolved here once and shipped with every task: workers may start in another folder or machine
    env = workspace.shipped_env()
    return RayPool(None if settings.ray_address == "local" else settings.ray_address, settings.workers,
                   settings.kb_root, env.get(workspace.SETTINGS["kb_server"]), SIM_PROCESSES_PER_GENERATION,
                   env=env, deadline_s=settings.task_deadline_s)


def _invalid(query: str) -> str | None:
    try:
        check_query(query)
    except QueryError as exc:
        return str(exc)
    return None


def _record(query: BatchQuery, job: Job, outcome) -> QueryRecord:
    if outcome.kind == "finished" and (records.is_done(job.out_dir, query.query)
                                       or records.is_infra_error(job.out_dir, query.query)):
        return records.from_folder(query.index, query.query, query.slug, job.out_dir, wall_s=outcome.wall_s, resumed=False)
    reason = outcome.reason or f"the pipeline ended without a verdict (see logs/{query.slug}.log)"
    status = INFRA_ERROR if outcome.kind == "infra_error" else "crashed"
    return records.failed(query.index, query.query, query.slug, status, reason, outcome.wall_s)
