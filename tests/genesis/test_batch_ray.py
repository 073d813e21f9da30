"""`genesis batch --ray` with the KB index on a chroma server: the same verdicts as the local worker
pool, and one consistent KB (every source item indexed on the server, nothing else)."""
from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time

import pytest

from genesis.batch import BatchSettings, run_batch
from genesis.kb.store import COLLECTIONS, KnowledgeBase
from genesis.workspace import copy_seed

ray = pytest.importorskip("ray")

QUERIES = [
    "defend two fronts with staggered waves",
    "hold two fronts against staggered waves",           # a paraphrase: fast-tracked from the first
    "escort-free siege: artillery only, break the turret line before the timer runs out",
    "bake a chocolate cake with three layers",           # refused in Stage 1
    "hold the bridge against three waves, each larger than the last",
    "a 2v2 team battle with fixed forces and no production, allies controlled by the AI",
]
CHROMA = "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; sys.exit(app())"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def chroma_server(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", CHROMA, "run", "--path", str(tmp_path / "server"), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import chromadb

    deadline = time.monotonic() + 60
    while True:
        try:
            chromadb.HttpClient(host="localhost", port=port).heartbeat()
            break
        except Exception:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("the chroma server did not start")
            time.sleep(0.5)
    yield f"http://localhost:{port}"
    proc.terminate()
    proc.wait(20)


def _verdicts(summary) -> list[tuple[str, str, bool, bool]]:
    return [(q.query, q.status, q.playable, q.fast_tracked) for q in summary.queries]


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_ray_batch_on_a_chroma_server_matches_the_local_pool(tmp_path, chroma_server, monkeypatch):
    file = tmp_path / "six.txt"
    file.write_text("\n".join(QUERIES) + "\n")

    kb_local, rubrics_local = copy_seed(tmp_path / "local")
    local, _ = run_batch(file, BatchSettings(workers=1, out=tmp_path / "local-batch", kb_root=kb_local,
                                             rubrics_root=rubrics_local))

    kb_ray, rubrics_ray = copy_seed(tmp_path / "ray")
    monkeypatch.setenv("GENESIS_KB_SERVER", chroma_server)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # else ray.init() writes ~/.ray/auth_token, and every later `ray start` needs it
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote, batch_dir = run_batch(file, BatchSettings(out=tmp_path / "ray-batch", kb_root=kb_ray,
                                                          rubrics_root=rubrics_ray, ray_address="local"))
    finally:
        ray.shutdown()

    assert remote.status == "complete" and remote.backend == "ray local"
    assert _verdicts(remote) == _verdicts(local)
    assert sum(q.playable for q in remote.queries) >= 4, [q.reason for q in remote.queries]
    # the KB the committer actor kept: the same items as the local run's, all indexed on the server
    sources = {name: sorted(e.id for e in KnowledgeBase(kb_ray, server=chroma_server).list(name)) for name in COLLECTIONS}
    assert sources == {name: sorted(e.id for e in KnowledgeBase(kb_local, server="").list(name)) for name in COLLECTIONS}
    kb = KnowledgeBase(kb_ray, server=chroma_server)
    assert {name: sorted(kb._index.collections[name].get()["ids"]) for name in COLLECTIONS} == sources
    manifest = json.loads(kb.manifest_path.read_text())
    assert manifest["index"] == f"server {chroma_server}"
    for q in remote.queries:  # each committed scenario is found on the server by its own query
        committed = (json.loads((batch_dir / q.slug / "validation.json").read_text()).get("evolution") or {}).get("committed")
        if committed:
            assert committed["gdd"] in sources["gdds"]
            assert committed["gdd"] in [h.id for h in kb.search("gdds", q.query, k=3)]
    # Ray reused its worker processes: the pipeline's imports were paid once per worker, not per query
    pids = {m for q in remote.queries if (batch_dir / "logs" / f"{q.slug}.log").exists()
            for m in re.findall(r"worker pid (\d+)", (batch_dir / "logs" / f"{q.slug}.log").read_text())}
    ran = sum(1 for q in remote.queries if q.wall_s is not None)
    assert 1 <= len(pids) < ran
