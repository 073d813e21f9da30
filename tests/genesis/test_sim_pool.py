"""One simulation pool per generation: stages queue jobs in it, an overrun kills the pool and tells
the owners of jobs still pending that their results are lost."""
from __future__ import annotations

import os
import time

import pytest

from genesis.simulate import SimPool, run_parallel


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_jobs_submitted_before_waiting_come_back_in_order_from_the_same_workers():
    with SimPool(2) as pool:
        first = [pool.submit(_pid_after, 0.05) for _ in range(2)]
        queued = [pool.submit(_pid_after, 0.0) for _ in range(2)]     # another stage's jobs, behind them
        pids = pool.gather([0.05, 0.05], first, timeout_s=30) + pool.gather([0.0, 0.0], queued, timeout_s=30)
        assert len(set(pids)) <= 2 and os.getpid() not in pids
        assert pool.alive(pool.epoch)


def test_an_overrun_kills_the_pool_and_its_pending_jobs_are_known_lost():
    pool = SimPool(1)
    try:
        hung = pool.submit(_pid_after, 60.0)
        behind = pool.submit(_pid_after, 0.0)
        epoch = pool.epoch
        assert pool.gather([60.0], [hung], timeout_s=0.5, on_timeout=lambda s: f"killed {s}") == ["killed 60.0"]
        assert not pool.alive(epoch)                  # `behind` will never come back: its owner can tell
        assert behind is not None
        again = pool.submit(_pid_after, 0.0)          # the next submit starts a new pool
        assert pool.alive(pool.epoch) and pool.epoch == epoch + 1
        assert isinstance(pool.gather([0.0], [again], timeout_s=30)[0], int)
    finally:
        pool.close()


def test_a_closed_pool_is_not_reopened_when_the_caller_says_so():
    with pytest.raises(ValueError):
        SimPool(1).submit(_pid_after, 0.0, reopen=False)


def test_dropping_the_certificate_games_stops_the_generation_pool(tmp_path):
    from genesis.pipeline.context import RunContext

    ctx = RunContext(client=None, out_dir=tmp_path, kb_root=None, rubrics_root=None)
    pool = ctx.sim_pool(1)
    pending = pool.submit(_pid_after, 60.0)
    epoch = pool.epoch
    ctx.drop_certificate_games()                  # nothing started: the pool keeps running
    assert pool.alive(epoch)
    ctx.certificate_games = object()
    ctx.drop_certificate_games()
    assert ctx.certificate_games is None and not pool.alive(epoch) and pending is not None
    ctx.close()


def test_run_parallel_without_a_pool_uses_one_of_its_own():
    assert len(run_parallel(_pid_after, [0.0, 0.0, 0.0], workers=2)) == 3
