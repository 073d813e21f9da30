"""A stand-in for the batch WorkerPool: runs no pipeline, so batch bookkeeping is tested in milliseconds."""
from __future__ import annotations

from genesis.batch.worker import JobOutcome


class RecordingPool:
    """Records the jobs it is given (in `jobs`, reset it per test) and reports each as crashed."""

    jobs: list = []

    def __init__(self, size):
        self.size = size

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def run(self, jobs, on_start=None):
        for job in jobs:
            RecordingPool.jobs.append(job)
            yield job, JobOutcome(job.index, "crashed", "fake pool", 0.1)
