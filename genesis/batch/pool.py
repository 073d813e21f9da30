"""A small pool of spawned worker processes, one job each at a time, that survives worker crashes.

concurrent.futures would break the whole pool when one worker dies and cannot stop a worker's own
simulation children; here every worker leads a process group that is killed as a whole.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from genesis.batch.worker import Job, JobOutcome
from genesis.parent_death import child_main

STOP_GRACE_S = 5.0
WORKER_MAIN = "genesis.batch.worker:worker_main"  # imported by the worker once it dies with the batch


@dataclass
class _Worker:
    process: mp.process.BaseProcess
    conn: Connection
    job: Job | None = None


class WorkerPool:
    """`with WorkerPool(n) as pool: for job, outcome in pool.run(jobs): ...` — results as they finish."""

    def __init__(self, size: int):
        self.size = max(1, size)
        self._ctx = mp.get_context("spawn")
        self._workers: list[_Worker] = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(kill=exc_type is not None)

    def _spawn(self) -> _Worker:
        parent_conn, child_conn = self._ctx.Pipe()
        # not daemonic: the pipeline forks simulation pools, which daemonic processes may not do
        process = self._ctx.Process(target=child_main, args=(os.getpid(), WORKER_MAIN, child_conn),
                                    name="genesis-batch-worker")
        process.start()
        child_conn.close()
        worker = _Worker(process, parent_conn)
        self._workers.append(worker)
        return worker

    def run(self, jobs: list[Job], on_start: Callable[[Job], None] | None = None) -> Iterator[tuple[Job, JobOutcome]]:
        queue = list(jobs)
        # workers kept from an earlier run() call (a batch's retry round) are used again
        idle = [w for w in self._workers if w.job is None and w.process.is_alive()]
        idle += [self._spawn() for _ in range(min(self.size, len(queue)) - len(idle))]
        while queue or any(w.job for w in self._workers):
            while queue and idle:
                worker, job = idle.pop(), queue.pop(0)
                if not self._hand_over(worker, job):  # died while idle (e.g. OOM-killed): a fresh worker takes it
                    self._discard(worker)
                    queue.insert(0, job)
                    idle.append(self._spawn())
                    continue
                if on_start:
                    on_start(job)
            busy = [w for w in self._workers if w.job is not None]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.conn not in ready and worker.process.sentinel not in ready:
                    continue
                job, worker.job = worker.job, None
                outcome = self._receive(worker, job)
                if outcome.kind != "finished" and not worker.process.is_alive():
                    self._discard(worker)
                    if queue:
                        idle.append(self._spawn())
                else:
                    idle.append(worker)
                yield job, outcome

    @staticmethod
    def _hand_over(worker: _Worker, job: Job) -> bool:
        """Sends the job to an idle worker; False when the worker is gone."""
        if not worker.process.is_alive():
            return False
        try:
            worker.conn.send(job)
        except OSError:
            return False
        worker.job = job
        return True

    def _receive(self, worker: _Worker, job: Job) -> JobOutcome:
        try:
            if worker.conn.poll():
                return worker.conn.recv()
        except (EOFError, OSError):
            pass
        worker.process.join(STOP_GRACE_S)
        # killed from outside (OOM killer, an operator): the generation's own failures never end its worker
        return JobOutcome(job.index, "infra_error", f"worker process died (exit code {worker.process.exitcode})", 0.0)

    def _discard(self, worker: _Worker) -> None:
        worker.conn.close()
        self._workers.remove(worker)

    def close(self, kill: bool = False) -> None:
        """Stops the workers: politely when all is done, by killing their process groups otherwise."""
        if kill and threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not orphan workers
            try:
                self._stop(kill)
            finally:
                signal.signal(signal.SIGINT, previous)
        else:
            self._stop(kill)

    def _stop(self, kill: bool) -> None:
        for worker in self._workers:
            if kill:
                _signal_group(worker.process, signal.SIGTERM)
            else:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
        for worker in self._workers:
            worker.process.join(STOP_GRACE_S)
            if worker.process.is_alive():
                _signal_group(worker.process, signal.SIGKILL)
                worker.process.join()
            worker.conn.close()
        self._workers = []


def _signal_group(process: mp.process.BaseProcess, sig: int) -> None:
    """Signals the worker's process group (the worker and its simulation children)."""
    if process.pid is None:
        return
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:  # the worker died, or had not yet made its own group
        try:
            os.kill(process.pid, sig)
        except ProcessLookupError:
            pass
