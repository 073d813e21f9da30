"""A stand-in for the batch WorkerPool: runs no pipeline, so batch bookkeeping is tested in milliseconds."""
from __future__ import annotations

from genesis.batch.worker import JobOutcome


class FakePool:
    """The WorkerPool's interface; `outcome` says what each job ends as."""

    def __init__(self, size):
        self.size = size

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def outcome(self, job) -> JobOutcome:
        raise NotImplementedError

    def run(self, jobs, on_start=None):
        for job in jobs:
            yield job, self.outcome(job)


class RecordingPool(FakePool):
    """Records the jobs it is given (in `jobs`, reset it per test) and reports each as crashed."""

    jobs: list = []

    def outcome(self, job) -> JobOutcome:
        RecordingPool.jobs.append(job)
        return JobOutcome(job.index, "crashed", "fake pool", 0.1)
