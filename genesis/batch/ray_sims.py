"""A generation's simulations as Ray tasks, for generations that run inside a Ray worker.

A Ray worker keeps threads (its core worker, gRPC): a pool forked from it may inherit a lock one
of them held, and closing that pool then waits forever on a child that never answers. So inside a
Ray worker a SimPool hands its jobs to Ray instead (genesis.simulate.use_pool_factory): each job is
a task of 1 CPU (the generation's own task gives its CPU back while it waits on them), and a job
the pool gives up on is cancelled with force, which kills the worker process running it, the hard
wall-clock kill a forked pool gives.
"""
from __future__ import annotations

import multiprocessing as mp
import threading
from typing import Any, Callable

CALLBACK_POLL_S = 0.2
SIM_RETRIES = 1  # a simulation whose worker died (killed, lost node) runs once more before it counts as lost


def _call(fn, args):
    return fn(*args)


class RayResult:
    """multiprocessing.pool.AsyncResult's get/ready/wait over one Ray task."""

    def __init__(self, ref):
        self.ref = ref

    def ready(self) -> bool:
        import ray

        done, _ = ray.wait([self.ref], timeout=0, fetch_local=True)
        return bool(done)

    def wait(self, timeout: float | None = None) -> None:
        import ray

        ray.wait([self.ref], timeout=timeout, fetch_local=True)

    def get(self, timeout: float | None = None):
        """The job's result; mp.TimeoutError when not back in time, or when its worker was lost (a
        forked pool's lost job never comes back either: the caller's timeout path handles both)."""
        import ray
        from ray.exceptions import GetTimeoutError, RayError, RayTaskError

        try:
            return ray.get(self.ref, timeout=timeout)
        except GetTimeoutError:
            raise mp.TimeoutError() from None
        except RayTaskError as err:  # the job itself raised: the caller sees that exception, as from a pool
            raise err.as_instanceof_cause() from None
        except RayError as err:  # worker died or task cancelled
            raise mp.TimeoutError(f"simulation task lost: {type(err).__name__}") from None


class RayTasks:
    """The multiprocessing.Pool surface SimPool uses (apply_async, terminate, join), as Ray tasks."""

    def __init__(self, workers: int):
        import ray

        self.workers = workers
        self._task = ray.remote(_call).options(num_cpus=1, max_retries=SIM_RETRIES)
        self._pending: dict[Any, tuple[RayResult, Callable | None]] = {}
        self._guard = threading.Lock()
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None

    def apply_async(self, fn, args: tuple, callback: Callable | None = None) -> RayResult:
        if self._closed.is_set():
            raise ValueError("the simulation pool is closed")
        result = RayResult(self._task.remote(fn, args))
        with self._guard:
            self._pending[result.ref] = (result, callback)
            if self._watcher is None:
                # callbacks run in one thread, as a pool's result handler runs them
                self._watcher = threading.Thread(target=self._watch, name="genesis-ray-sims", daemon=True)
                self._watcher.start()
        return result

    def _watch(self) -> None:
        import ray

        while not self._closed.is_set():
            with self._guard:
                refs = list(self._pending)
            if not refs:
                self._closed.wait(CALLBACK_POLL_S)
                continue
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=CALLBACK_POLL_S, fetch_local=True)
            for ref in done:
                with self._guard:
                    result, callback = self._pending.pop(ref, (None, None))
                if callback is None or self._closed.is_set():
                    continue
                try:
                    value = result.get(0)
                except Exception:  # a failed job calls no callback, as in a pool; its owner's get() sees why
                    continue
                callback(value)

    def terminate(self) -> None:
        import ray

        self._closed.set()
        with self._guard:
            refs, self._pending = list(self._pending), {}
        for ref in refs:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already finished or its worker already gone
                pass

    def join(self) -> None:
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join()
