"""The batch worker process: runs one query at a time through the pipeline.

Workers are started with the 'spawn' method (a fresh interpreter, no state inherited from the
parent's threads), because the pipeline itself forks simulation pools and chromadb keeps threads.
Each worker leads its own process group, so the terminal's Ctrl-C reaches only the batch parent,
which then stops every worker together with its simulation children. A parent killed with -9 can
stop nothing: the kernel kills each worker when its parent dies, and each simulation process when
its worker dies (`genesis.parent_death`).
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Iterator


@dataclass(frozen=True)
class Job:
    index: int
    query: str
    out_dir: Path
    log_path: Path
    model_cli: dict[str, Any] = field(default_factory=dict)
    kb_root: Path | None = None
    rubrics_root: Path | None = None
    seed: int = 0
    sim_processes: int | None = None  # validation processes of this generation (its share of the process budget)
    commit_key: str | None = None     # the same for every attempt at this query: a retry never commits it twice


@dataclass(frozen=True)
class JobOutcome:
    index: int
    kind: str         # "finished" (the folder holds the outcome), "crashed", or "infra_error" (lost to the infrastructure)
    reason: str
    wall_s: float


@contextmanager
def _output_to(path: Path) -> Iterator[Any]:
    """Sends this process's stdout/stderr (also from C code and libraries) to the job's log file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "a", encoding="utf-8", buffering=1) as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield log
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _options(job: Job) -> dict[str, Any] | None:
    options = {"sim_processes": job.sim_processes, "commit_key": job.commit_key}
    return {k: v for k, v in options.items() if v} or None


def run_job(job: Job) -> JobOutcome:
    import traceback

    from genesis.fileio import LockTimeout
    from genesis.infra import InfraError
    from genesis.pipeline.runner import PipelineError, start

    t0 = time.perf_counter()
    with _output_to(job.log_path) as log:
        def progress(stage: str, message: str) -> None:
            log.write(f"{time.strftime('%H:%M:%S')} {stage:>8} {message}\n")

        log.write(f"=== {time.strftime('%Y-%m-%d %H:%M:%S')} worker pid {os.getpid()} query: {job.query}\n")
        try:
            start(job.query, out=job.out_dir, model_cli=job.model_cli, seed=job.seed, progress=progress,
                  kb_root=job.kb_root, rubrics_root=job.rubrics_root,
                  options=_options(job))
            kind, reason = "finished", ""
        except PipelineError as exc:  # the folder keeps validation.json (status "error") and error.log
            kind, reason = "finished", str(exc)
        except (InfraError, LockTimeout) as exc:  # a service failed before the pipeline could record it
            log.write(traceback.format_exc())
            kind, reason = "infra_error", f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a failure before the pipeline could record it: keep the batch going
            log.write(traceback.format_exc())
            kind, reason = "crashed", f"{type(exc).__name__}: {exc}"
        log.write(f"=== {kind} after {time.perf_counter() - t0:.1f} s {reason}\n")
    return JobOutcome(job.index, kind, reason, round(time.perf_counter() - t0, 2))


def worker_main(conn: Connection) -> None:
    os.setpgrp()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the batch is gone: there is no one to work for
            return
        if job is None:
            return
        outcome = run_job(job)
        try:
            conn.send(outcome)
        except OSError:  # BrokenPipe: the batch is gone, no one to report to
            return
