"""kill -9 of `genesis batch` takes its workers (and their simulations) down with it: orphaned workers
would go on generating, writing to the knowledge base and printing BrokenPipe tracebacks."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _gone_within(pids: set[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


# A parent that starts a spawned worker the way the batch pool does (through child_main, importing the
# worker's module only then) and a simulation pool the way a generation does, then waits to be killed.
_PARENT = """
import multiprocessing as mp, os, sys, time
from genesis.parent_death import child_main
from genesis.simulate import SimPool

if __name__ == "__main__":
    worker = mp.get_context("spawn").Process(target=child_main, args=(os.getpid(), "time:sleep", 60))
    worker.start()
    pool = SimPool(2)
    pool.submit(time.sleep, 60)
    time.sleep(1)
    print("ready", flush=True)
    time.sleep(60)
"""


def test_workers_and_simulations_die_with_a_parent_killed_with_9(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(_PARENT)
    parent = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    children: set[int] = set()
    try:
        assert parent.stdout.readline().strip() == "ready"
        children = _descendants(parent.pid)
        assert len(children) >= 3, children  # the spawned worker and two simulation processes
        parent.kill()
        parent.wait()
        survivors = _gone_within(children, 5)
        assert not survivors, [_cmdline(p)[:150] for p in survivors]
    finally:
        parent.kill()
        parent.wait()
        for pid in children:  # what this test started, should the check have failed
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_kill_9_of_a_batch_takes_its_workers_down(tmp_path):
    queries = tmp_path / "queries.txt"
    queries.write_text("hold the bridge against three waves\ndefend two fronts with staggered waves\n")
    env = {**os.environ, "GENESIS_WORKSPACE": str(tmp_path / "ws")}
    subprocess.run([sys.executable, "-m", "genesis", "init", str(tmp_path / "ws")], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    batch = subprocess.Popen([sys.executable, "-m", "genesis", "batch", str(queries), "--workers", "2",
                              "--out", str(tmp_path / "out")], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    doomed: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(doomed) < 2 and time.monotonic() < deadline:  # the two workers (and their children)
            time.sleep(0.5)
            doomed = _descendants(batch.pid)
        time.sleep(3)  # the workers are generating
        doomed |= _descendants(batch.pid)
        assert len(doomed) >= 2, "the batch started no workers"
        batch.kill()
        batch.wait()
        survivors = _gone_within(doomed, 5)
        assert not survivors, f"processes of the killed batch still run: {[_cmdline(p)[:150] for p in survivors]}"
    finally:
        batch.kill()
        batch.wait()
        for pid in doomed:  # what this test started, should the check have failed
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
