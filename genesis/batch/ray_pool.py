"""Batch queries as Ray tasks on a Ray cluster, with one committer actor per KB.

Each query is a task of one CPU; its validation games are Ray tasks of their own (never a pool
forked inside the Ray worker, see genesis.batch.ray_sims), so Ray never runs more simulation work
on a node than it has cores. Ray reuses its worker processes, so each one pays the pipeline's
imports once. Workers on other machines must see the same paths (the batch folder, the KB's
source files): a shared file system; the KB index can live on a chroma server (`genesis kb serve`).

Every task gets the settings the driver resolved (workspace, kb_server, checkpointer, see
genesis.workspace.shipped_env) and a deadline. A task lost to the cluster (its worker or node
died, its deadline passed) is an infra_error, which the batch retries; so are the KB's services
failing under it (genesis.infra).

File locks are not trusted across machines, so every commit to a KB goes through one named,
detached actor in the `genesis` namespace (KBCommitterActor), shared by every driver and shard
using that KB and retired by the last driver that leaves it. Its write lease is short and renewed
by a live holder, so a killed worker holds up the others' commits for one lease at most.
"""
from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genesis.batch.worker import Job, JobOutcome, run_job
from genesis.infra import InfraError

NAMESPACE = "genesis"
LEASE_S = 30.0            # a KB write lease not renewed for this long is free again (its holder died)
RENEW_S = LEASE_S / 3
DRIVER_LEASE_S = 300.0    # a driver not heard of for this long no longer keeps the committer alive
LEASE_WAIT_S = 600.0      # a worker waiting longer than this for the write lease gives up (infra_error)
CALL_TIMEOUT_S = 120.0    # one committer call; a commit indexes a few items
CALL_ATTEMPTS = 4         # a committer call that fails (actor restarting, killed) is retried this often
POLL_S = 0.05
CLIENT_CONNECT_S = 180.0  # how long a ray:// driver keeps trying to connect (each ray.init tries ~30 s)
WAIT_SLICE_S = 5.0        # the driver checks deadlines and renews its committer registration this often


class RayUnavailable(RuntimeError):
    """ray is not installed or the cluster cannot be reached."""


def _ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs the ray package: pip install 'genesis-rts[ray]'") from None
    return ray


def committer_name(kb_root: Path) -> str:
    """One committer per KB on a cluster: named by the KB's resolved path."""
    return "genesis-kb-" + hashlib.sha256(str(Path(kb_root).resolve()).encode()).hexdigest()[:12]


def classify_failure(err: BaseException) -> str:
    """What a task's failure on the driver means: "infra_error" when the cluster lost it (worker or
    node died, cancelled, actor gone) or it failed on a service (genesis.infra.InfraError), else
    "crashed" (the task body itself raised outside the pipeline's own error handling)."""
    from ray.exceptions import RayError, RayTaskError

    from genesis.fileio import LockTimeout
    from genesis.infra import InfraError

    if isinstance(err, RayTaskError):
        return "infra_error" if isinstance(err.cause, (InfraError, LockTimeout)) else "crashed"
    return "infra_error" if isinstance(err, (RayError, InfraError, LockTimeout)) else "crashed"


class KBCommitterActor:
    """The KB's only writer on the cluster: a write lease (held across KnowledgeBase.writing() while
    ids are picked and committed), and commits applied one at a time (an actor runs one call at a
    time). It opens the KB on first use, so a restart never fails on an unreachable chroma server."""

    def __init__(self, root: str, server: str | None, token: str | None = None):
        self.root, self.server, self.token = root, server, token
        self._kb = None
        self.holder: str | None = None
        self.until = 0.0
        self.drivers: dict[str, float] = {}

    def kb(self):
        if self._kb is None:
            from genesis.kb.store import KnowledgeBase, use_committer

            use_committer(None)
            self._kb = KnowledgeBase(self.root, server=self.server or "", token=self.token or "")
        return self._kb

    def acquire(self, owner: str) -> bool:
        """Takes or renews the lease for `owner`; False while another live holder has it."""
        now = time.monotonic()
        if self.holder in (None, owner) or now > self.until:
            self.holder, self.until = owner, now + LEASE_S
            return True
        return False

    def release(self, owner: str) -> None:
        if self.holder == owner:
            self.holder = None

    def commit(self, bundle, overwrite: bool, owner: str) -> tuple[str, Any, str]:
        from genesis.kb.common import KBError

        if not self.acquire(owner):  # its lease expired and another worker holds it now: ids may clash
            return "error", "KBUnavailableError", f"{owner} lost the KB's write lease before committing"
        try:
            return "ok", self.kb().commit(bundle, overwrite=overwrite), ""
        except KBError as err:  # re-raised by name on the worker, so callers catch what they always catch
            return "error", type(err).__name__, str(err)

    def ensure_fresh(self) -> tuple[str, Any, str]:
        from genesis.kb.common import KBError

        try:
            self.kb().refresh()
        except KBError as err:
            return "error", type(err).__name__, str(err)
        return "ok", None, ""

    def join(self, driver: str) -> None:
        self.drivers[driver] = time.monotonic() + DRIVER_LEASE_S

    def leave(self, driver: str) -> bool:
        """The driver is done; the last live one retires the actor (True)."""
        import ray

        self.drivers.pop(driver, None)
        now = time.monotonic()
        self.drivers = {d: t for d, t in self.drivers.items() if t > now}
        if self.drivers or (self.holder is not None and now <= self.until):
            return False
        ray.actor.exit_actor()
        return True


@dataclass(frozen=True)
class CommitterSpec:
    """How a task finds (or starts) the KB's committer: the actor is looked up by name on every
    failure, so a killed or restarted committer is found again."""

    name: str
    kb_root: str
    server: str | None
    token: str | None = field(default=None, repr=False)

    def handle(self):
        ray = _ray()
        return ray.remote(KBCommitterActor).options(
            name=self.name, namespace=NAMESPACE, get_if_exists=True, lifetime="detached", num_cpus=0,
            max_restarts=-1, max_task_retries=0,
        ).remote(self.kb_root, self.server, self.token)


class RayCommitter:
    """The worker side of KBCommitterActor (genesis.kb.store.Committer)."""

    def __init__(self, spec: CommitterSpec):
        self.spec = spec
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._actor = None

    def call(self, method: str, *args):
        """One committer call, retried on a fresh handle while the actor is being restarted or replaced."""
        from ray.exceptions import GetTimeoutError, RayActorError

        from genesis.infra import retry_delay
        from genesis.kb.common import KBUnavailableError

        ray = _ray()
        last: Exception | None = None
        for attempt in range(1, CALL_ATTEMPTS + 1):
            try:
                if self._actor is None:
                    self._actor = self.spec.handle()
                return ray.get(getattr(self._actor, method).remote(*args), timeout=CALL_TIMEOUT_S)
            except (RayActorError, GetTimeoutError, ValueError) as err:  # ValueError: name taken by a dying actor
                last, self._actor = err, None
                time.sleep(retry_delay(attempt, base_s=0.5, max_s=5.0))
        raise KBUnavailableError(f"the KB's committer ({self.spec.name}) did not answer: {type(last).__name__}: {last}")

    @staticmethod
    def _raise(status: str, name: str, message: str) -> None:
        from genesis.kb import common

        if status == "error":
            error = getattr(common, name, common.KBError)
            raise (error if isinstance(error, type) and issubclass(error, common.KBError) else common.KBError)(message)

    @contextmanager
    def writing(self) -> Iterator[None]:
        from genesis.kb.common import KBUnavailableError

        deadline = time.monotonic() + LEASE_WAIT_S
        while not self.call("acquire", self.owner):
            if time.monotonic() > deadline:
                raise KBUnavailableError(f"waited {LEASE_WAIT_S:.0f} s for the KB's write lease")
            time.sleep(POLL_S)
        stop = threading.Event()
        renewer = threading.Thread(target=self._renew, args=(stop,), name="genesis-kb-lease", daemon=True)
        renewer.start()
        try:
            yield
        finally:
            stop.set()
            renewer.join()
            self.call("release", self.owner)

    def _renew(self, stop: threading.Event) -> None:
        """Keeps the lease while this process lives; a killed holder stops renewing and loses it."""
        while not stop.wait(RENEW_S):
            try:
                self.call("acquire", self.owner)
            except Exception:  # the commit itself reports a lost lease or committer
                return

    def commit(self, bundle, overwrite: bool):
        status, value, message = self.call("commit", bundle, overwrite, self.owner)
        self._raise(status, value, message)
        return value

    def ensure_fresh(self) -> None:
        self._raise(*self.call("ensure_fresh"))


@contextmanager
def task_environment(env: dict[str, str]) -> Iterator[None]:
    """Exactly the driver's GENESIS_* settings for one task (the worker's own, e.g. inherited from
    whoever ran `ray start`, are set aside); a reused worker process gets its own back afterwards."""
    saved = dict(os.environ)
    for key in [k for k in os.environ if k.startswith("GENESIS_")]:
        del os.environ[key]
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_on_ray(job: Job, env: dict[str, str], committer: CommitterSpec) -> JobOutcome:
    """The task body: the driver's settings, KB commits through the committer, simulations as Ray
    tasks (never a pool forked in this worker), then the job."""
    from genesis.batch.ray_sims import RayTasks
    from genesis.kb.store import use_committer
    from genesis.simulate import use_pool_factory

    with task_environment(env):
        use_committer(RayCommitter(committer))
        use_pool_factory(RayTasks)
        try:
            return run_job(job)
        finally:
            use_committer(None)
            use_pool_factory(None)


@dataclass
class _Running:
    job: Job
    started: float


class RayPool:
    """`with RayPool(address, size, kb_root, kb_server, env) as pool: for job, outcome in pool.run(jobs): ...`
    (the chroma server's token, if any, is env's GENESIS_KB_TOKEN)."""

    def __init__(self, address: str | None, size: int | None, kb_root: Path, kb_server: str | None,
                 cpus_per_query: int, env: dict[str, str], deadline_s: float):
        from genesis.workspace import SETTINGS

        self.address, self.requested = address, size
        self.spec = CommitterSpec(committer_name(kb_root), str(Path(kb_root).resolve()), kb_server,
                                  env.get(SETTINGS["kb_token"]))
        self.cpus_per_query = cpus_per_query
        self.env = dict(env)
        self.deadline_s = deadline_s
        self.size = size or 1
        self.driver = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._started_ray = False
        self._running: dict[Any, _Running] = {}
        self.committer = None

    def __enter__(self) -> RayPool:
        ray = _ray()
        if not ray.is_initialized():
            self._connect(ray)
            self._started_ray = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.size = self.requested or max(1, cpus // max(1, self.cpus_per_query))
        self.committer = RayCommitter(self.spec)
        try:
            self.committer.call("join", self.driver)
            self.committer.ensure_fresh()  # an unreachable chroma server fails the batch here, before any task
        except BaseException:
            self.close()  # __exit__ does not run when __enter__ raises
            raise
        return self

    def _connect(self, ray) -> None:
        """ray.init; through Ray Client (ray://) retried for CLIENT_CONNECT_S. One ray.init gives up after
        about 30 s (3 attempts), and on a loaded head that is not always enough: the client server may not
        listen yet (a head still starting), and each driver waits for a server process of its own
        (a new Python importing ray, which the head's proxy itself waits 30 s for)."""
        deadline = time.monotonic() + (CLIENT_CONNECT_S if (self.address or "").startswith("ray://") else 0.0)
        while True:
            try:
                ray.init(address=self.address or None, namespace=NAMESPACE, include_dashboard=False,
                         log_to_driver=False)
                return
            except ConnectionError as err:
                if time.monotonic() < deadline:
                    continue
                raise RayUnavailable(f"cannot reach the Ray cluster {self.address or '(local)'}: {err}") from None
            except (RuntimeError, ValueError) as err:
                raise RayUnavailable(f"cannot start or reach the Ray cluster {self.address or '(local)'}: {err}") from None

    def __exit__(self, exc_type, *exc) -> None:
        self.close(kill=exc_type is not None)

    def run(self, jobs: list[Job], on_start: Callable[[Job], None] | None = None) -> Iterator[tuple[Job, JobOutcome]]:
        ray = _ray()
        task = ray.remote(run_on_ray).options(num_cpus=1, max_retries=0)  # the batch retries, see genesis.infra
        queue = list(jobs)
        joined = time.monotonic()
        while queue or self._running:
            while queue and len(self._running) < self.size:
                job = queue.pop(0)
                self._running[task.remote(job, self.env, self.spec)] = _Running(job, time.perf_counter())
                if on_start:
                    on_start(job)
            ready, _ = ray.wait(list(self._running), num_returns=1, timeout=WAIT_SLICE_S)
            if time.monotonic() - joined > DRIVER_LEASE_S / 3:
                try:
                    self.committer.call("join", self.driver)
                    joined = time.monotonic()
                except InfraError:  # the committer is being restarted: the tasks retry their own calls
                    pass
            for ref in ready:
                yield self._outcome(ref, self._running.pop(ref))
            yield from self._overdue()

    def _outcome(self, ref, running: _Running) -> tuple[Job, JobOutcome]:
        job, wall = running.job, round(time.perf_counter() - running.started, 2)
        try:
            outcome = _ray().get(ref)
        except Exception as err:  # the task's worker died (killed, node lost, OOM) or it raised outside run_job
            return job, JobOutcome(job.index, classify_failure(err), f"Ray task failed: {type(err).__name__}: {err}"[:500], wall)
        # the driver's clock: what the query really took, including anything after the pipeline returned
        return job, JobOutcome(outcome.index, outcome.kind, outcome.reason, wall)

    def _overdue(self) -> Iterator[tuple[Job, JobOutcome]]:
        now = time.perf_counter()
        for ref, running in list(self._running.items()):
            if now - running.started > self.deadline_s:
                _ray().cancel(ref, force=True)
                del self._running[ref]
                yield running.job, JobOutcome(running.job.index, "infra_error",
                                              f"no result after the task deadline of {self.deadline_s:.0f} s: "
                                              "cancelled as hung", round(now - running.started, 2))

    def close(self, kill: bool = False) -> None:
        ray = _ray()
        if kill:
            for ref in self._running:
                ray.cancel(ref, force=True)
        self._running = {}
        if self.committer is not None:
            try:  # not through call(): that would start the committer again once leave() retired it
                ray.get(ray.get_actor(self.spec.name, namespace=NAMESPACE).leave.remote(self.driver), timeout=CALL_TIMEOUT_S)
            except Exception:  # the reply of a retiring actor is its exit
                pass
            self.committer = None
        if self._started_ray:
            ray.shutdown()
