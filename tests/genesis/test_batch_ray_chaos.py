"""`genesis batch --ray-address` on a real `ray start` cluster (2 CPUs, 127.0.0.1) with the KB index
on a chroma server, while the KB's committer actor, a Ray worker running a query and the chroma
server are killed mid-batch: every query still ends with a real verdict (retried, never an
infra_error or crash left behind), no task hangs, and the KB neither loses nor duplicates a scenario."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import genesis
from genesis.batch.ray_pool import NAMESPACE, committer_name
from genesis.kb.store import COLLECTIONS, KnowledgeBase
from genesis.workspace import copy_seed

ray = pytest.importorskip("ray")

QUERIES = [
    "defend two fronts with staggered waves",
    "hold the bridge against three waves, each larger than the last",
    "a 2v2 team battle with fixed forces and no production, allies controlled by the AI",
    "escort-free siege: artillery only, break the turret line before the timer runs out",
]
CHROMA = "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; sys.exit(app())"
REPO = str(Path(genesis.__file__).resolve().parents[1])
BATCH_TIMEOUT_S = 1500
# Ray turns token authentication on for every `ray start` once ~/.ray/auth_token exists (a local
# ray.init() writes one), and its CLI then cannot reach the cluster: this throwaway cluster opts out
NO_TOKEN = {"RAY_AUTH_MODE": "disabled"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(predicate, timeout_s: float, what: str, poll_s: float = 0.5):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll_s)
    pytest.fail(f"timed out waiting for {what}")


class Chroma:
    """A chroma server that can be killed and started again on the same port and data."""

    def __init__(self, data: Path):
        self.data, self.port, self.proc = data, _free_port(), None

    @property
    def address(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        import chromadb

        self.proc = subprocess.Popen([sys.executable, "-c", CHROMA, "run", "--path", str(self.data), "--host", "127.0.0.1",
                                      "--port", str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def up():
            try:
                chromadb.HttpClient(host="127.0.0.1", port=self.port).heartbeat()
                return True
            except Exception:
                assert self.proc.poll() is None, "the chroma server exited"
                return False
        _wait(up, 60, "the chroma server")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture()
def chroma(tmp_path):
    server = Chroma(tmp_path / "chroma")
    server.start()
    yield server
    server.kill()


@pytest.fixture()
def cluster(tmp_path):
    """`ray start --head --block` in its own session and temp dir: stopping it stops this cluster
    only, and no later `ray.init()` on the machine takes it for a running cluster."""
    import shutil
    import tempfile

    port, client_port = _free_port(), _free_port()
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths live under it
    # none of the test session's GENESIS_* settings: the workers must get them from the driver
    env = {k: v for k, v in os.environ.items() if not k.startswith("GENESIS_")}
    env["PYTHONPATH"] = REPO + os.pathsep + os.environ.get("PYTHONPATH", "")
    env.update(NO_TOKEN)
    head = subprocess.Popen(["ray", "start", "--head", "--block", "--num-cpus=2", "--node-ip-address=127.0.0.1",
                             f"--port={port}", f"--ray-client-server-port={client_port}", "--include-dashboard=false",
                             "--disable-usage-stats", f"--temp-dir={temp}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    address = f"127.0.0.1:{port}"
    try:
        def up():
            probe = subprocess.run(["ray", "status", f"--address={address}"], capture_output=True, text=True, env=env)
            return probe.returncode == 0 and "CPU" in probe.stdout
        _wait(up, 120, "the Ray cluster", poll_s=2)
        yield address
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


def _running_worker(batch: Path) -> tuple[str, int] | None:
    """A query whose generation has started in a Ray worker and has no verdict yet: (slug, worker pid)."""
    for log in sorted((batch / "logs").glob("*.log")) if (batch / "logs").is_dir() else []:
        text = log.read_text(errors="replace")
        pids = re.findall(r"worker pid (\d+)", text)
        if pids and "gdd" in text.split("worker pid")[-1] and not re.search(r"=== (finished|crashed|infra_error)", text.split("worker pid")[-1]):
            return log.stem, int(pids[-1])
    return None


def _finished(batch: Path) -> int:
    try:
        summary = json.loads((batch / "batch.json").read_text())
    except (OSError, ValueError):
        return 0
    return sum(1 for q in summary["queries"] if q["status"] not in ("infra_error",))


@pytest.mark.slow
@pytest.mark.timeout(BATCH_TIMEOUT_S + 300)
def test_a_ray_batch_survives_a_killed_committer_worker_and_chroma_server(tmp_path, cluster, chroma, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", NO_TOKEN["RAY_AUTH_MODE"])  # this process connects too
    kb, rubrics = copy_seed(tmp_path / "ws")
    (tmp_path / "ws" / "genesis.yaml").write_text(f"kb_server: {chroma.address}\n")  # found from the working folder
    file = tmp_path / "four.txt"
    file.write_text("\n".join(QUERIES) + "\n")
    batch = tmp_path / "batch"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GENESIS_", "RAY_"))}
    env["PYTHONPATH"] = REPO
    env["GENESIS_CERTIFICATE"] = "off"  # CI-sized; it reaches the workers only as a setting the driver ships
    env.update(NO_TOKEN)
    proc = subprocess.Popen([sys.executable, "-m", "genesis", "batch", str(file), "--ray-address", cluster, "--out", str(batch)],
                            cwd=tmp_path / "ws", env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t0 = time.monotonic()
    try:
        ray.init(address=cluster, namespace=NAMESPACE, log_to_driver=False)
        # 1. a Ray worker running a query is killed (SIGKILL, as the OOM killer would)
        slug, pid = _wait(lambda: _running_worker(batch), 300, "a query running in a Ray worker")
        os.kill(pid, signal.SIGKILL)
        killed_worker = slug
        # 2. the KB's committer actor is killed (Ray restarts it; callers find it again)
        _wait(lambda: _finished(batch) >= 1, 600, "a first verdict")
        actor = ray.get_actor(committer_name(kb), namespace=NAMESPACE)
        ray.kill(actor, no_restart=False)
        # 3. the chroma server goes down for a while, then comes back on the same port and data
        _wait(lambda: _running_worker(batch), 300, "a query running after the committer was killed")
        chroma.kill()
        time.sleep(8)
        chroma.start()
        output, _ = proc.communicate(timeout=BATCH_TIMEOUT_S - (time.monotonic() - t0))
    finally:
        ray.shutdown()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wall = time.monotonic() - t0
    summary = json.loads((batch / "batch.json").read_text())
    assert proc.returncode in (0, 1), output[-3000:]
    records = summary["queries"]
    assert summary["status"] == "complete" and len(records) == len(QUERIES), output[-3000:]
    # every query ended with a real verdict: nothing left as infra_error or crashed
    assert all(q["status"] not in ("infra_error", "crashed") for q in records), [(q["query"], q["status"], q["reason"]) for q in records]
    assert sum(q["playable"] for q in records) >= 3, [(q["query"], q["reason"]) for q in records]
    assert all(q["verdict"] == "PLAYABLE (certificate skipped)" for q in records if q["playable"])
    by_slug = {q["slug"]: q for q in records}
    assert by_slug[killed_worker]["infra_retries"] >= 1  # the killed worker's query was generated again
    # the driver's clock: per-query wall times add up to no more than the batch's real wall time
    assert summary["wall_s"] <= wall + 1 and sum(q["wall_s"] for q in records) <= summary["wall_s"] + 1
    # the KB: each scenario committed once (a retry never adds it again), every source item indexed on the server
    store = KnowledgeBase(kb, server=chroma.address)
    gdds = store.list("gdds")
    keys = Counter(e.data.get("provenance", {}).get("commit_key") for e in gdds)
    assert all(n == 1 for key, n in keys.items() if key), keys
    for q in records:
        committed = (json.loads((batch / q["slug"] / "validation.json").read_text()).get("evolution") or {}).get("committed")
        if q["playable"] and not q["fast_tracked"]:
            assert committed and keys[str((batch / q["slug"]).resolve())] == 1, q["query"]
    sources = {name: sorted(e.id for e in store.list(name)) for name in COLLECTIONS}
    assert {name: sorted(store._index.collections[name].get()["ids"]) for name in COLLECTIONS} == sources
    # the committer retired with the batch's driver
    ray.init(address=cluster, namespace=NAMESPACE, log_to_driver=False)
    try:
        assert committer_name(kb) not in {a["name"] for a in ray.util.list_named_actors(all_namespaces=True)}
    finally:
        ray.shutdown()
