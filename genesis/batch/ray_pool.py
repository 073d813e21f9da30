"""Batch queries as Ray tasks on a Ray cluster, with one committer actor for the shared KB.

Each query is a task needing as many CPUs as the simulation processes its generation runs, so Ray
never schedules more validation work on a node than it has cores. Ray reuses its worker processes,
so each one pays the pipeline's imports once. Workers on other machines must see the same paths
(the batch folder, the KB's source files): a shared file system; the KB index can live on a chroma
server (`genesis kb serve`). File locks are not trusted across machines, so every commit to the KB
goes through one actor (`KBCommitterActor`), and workers read the KB without locks.
"""
from __future__ import annotations

import hashlib
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from genesis.batch.worker import Job, JobOutcome, run_job

LEASE_S = 600.0       # a worker that died holding the KB's write lease loses it after this long
POLL_S = 0.05
ENV_PREFIX = "GENESIS_"  # settings the driver passes to every task (never credentials: set those on the nodes)


class RayUnavailable(RuntimeError):
    """ray is not installed or the cluster cannot be reached."""


def _ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs the ray package: pip install 'genesis-rts[ray]'") from None
    return ray


class KBCommitterActor:
    """The KB's only writer while a batch runs on the cluster: a lease for picking ids (held across
    KnowledgeBase.writing()), and commits applied one at a time (an actor runs one call at a time)."""

    def __init__(self, root: str, server: str | None):
        from genesis.kb.store import KnowledgeBase, use_committer

        use_committer(None)
        self.kb = KnowledgeBase(root, server=server or "")
        self.holder: str | None = None
        self.until = 0.0

    def acquire(self, owner: str) -> bool:
        now = time.monotonic()
        if self.holder in (None, owner) or now > self.until:
            self.holder, self.until = owner, now + LEASE_S
            return True
        return False

    def release(self, owner: str) -> None:
        if self.holder == owner:
            self.holder = None

    def commit(self, bundle, overwrite: bool) -> tuple[str, Any, str]:
        from genesis.kb.common import KBError

        try:
            return "ok", self.kb.commit(bundle, overwrite=overwrite), ""
        except KBError as err:  # re-raised by name on the worker, so callers catch what they always catch
            return "error", type(err).__name__, str(err)

    def ensure_fresh(self) -> None:
        self.kb.refresh()


class RayCommitter:
    """The worker side of KBCommitterActor (genesis.kb.store.Committer)."""

    def __init__(self, actor):
        self.actor = actor
        self.owner = f"{socket.gethostname()}:{os.getpid()}"

    @contextmanager
    def writing(self) -> Iterator[None]:
        ray = _ray()
        while not ray.get(self.actor.acquire.remote(self.owner)):
            time.sleep(POLL_S)
        try:
            yield
        finally:
            ray.get(self.actor.release.remote(self.owner))

    def commit(self, bundle, overwrite: bool):
        from genesis.kb import common

        status, value, message = _ray().get(self.actor.commit.remote(bundle, overwrite))
        if status == "error":
            error = getattr(common, value, common.KBError)
            raise (error if isinstance(error, type) and issubclass(error, common.KBError) else common.KBError)(message)
        return value

    def ensure_fresh(self) -> None:
        _ray().get(self.actor.ensure_fresh.remote())


def run_on_ray(job: Job, env: dict[str, str], committer) -> JobOutcome:
    """The task body: the driver's Genesis settings, KB commits through the committer, then the job."""
    from genesis.kb.store import use_committer

    os.environ.update(env)
    use_committer(RayCommitter(committer))
    try:
        return run_job(job)
    finally:
        use_committer(None)


class RayPool:
    """`with RayPool(address, size, kb_root, kb_server) as pool: for job, outcome in pool.run(jobs): ...`"""

    def __init__(self, address: str | None, size: int | None, kb_root: Path, kb_server: str | None,
                 cpus_per_query: int):
        self.address, self.requested = address, size
        self.kb_root, self.kb_server = Path(kb_root), kb_server
        self.cpus_per_query = cpus_per_query
        self.size = size or 1
        self._started_ray = False
        self._running: dict[Any, Job] = {}

    def __enter__(self) -> RayPool:
        ray = _ray()
        if not ray.is_initialized():
            try:
                ray.init(address=self.address or None, include_dashboard=False, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as err:
                raise RayUnavailable(f"cannot start or reach the Ray cluster {self.address or '(local)'}: {err}") from None
            self._started_ray = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.cpus_per_query = max(1, min(self.cpus_per_query, cpus))
        self.size = self.requested or max(1, cpus // self.cpus_per_query)
        name = "genesis-kb-" + hashlib.sha256(str(self.kb_root.resolve()).encode()).hexdigest()[:12]
        # One committer per KB on the cluster, whichever driver asks first (shards of one array share
        # it); on a standing cluster it outlives this driver, so another shard's commits never lose it.
        self.committer = ray.remote(KBCommitterActor).options(
            name=name, get_if_exists=True, num_cpus=0, lifetime="detached" if self.address else None,
        ).remote(str(self.kb_root), self.kb_server)
        ray.get(self.committer.ensure_fresh.remote())
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(kill=exc_type is not None)

    def run(self, jobs: list[Job], on_start: Callable[[Job], None] | None = None) -> Iterator[tuple[Job, JobOutcome]]:
        ray = _ray()
        task = ray.remote(run_on_ray).options(num_cpus=self.cpus_per_query, max_retries=0)
        env = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}
        queue = list(jobs)
        while queue or self._running:
            while queue and len(self._running) < self.size:
                job = queue.pop(0)
                self._running[task.remote(job, env, self.committer)] = job
                if on_start:
                    on_start(job)
            ready, _ = ray.wait(list(self._running), num_returns=1)
            job = self._running.pop(ready[0])
            try:
                outcome = ray.get(ready[0])
            except Exception as err:  # the task's worker died (node lost, OOM) or raised outside run_job
                outcome = JobOutcome(job.index, "crashed", f"Ray task failed: {type(err).__name__}: {err}"[:500], 0.0)
            yield job, outcome

    def close(self, kill: bool = False) -> None:
        ray = _ray()
        if kill:
            for ref in self._running:
                ray.cancel(ref, force=True)
        self._running = {}
        if self._started_ray:
            ray.shutdown()
