"""Atomic writes and the inter-process FileLock."""
from __future__ import annotations

import json
import multiprocessing as mp
import os
from pathlib import Path

import pytest

from genesis import fileio
from genesis.fileio import FileLock, LockTimeout, atomic_write_bytes, atomic_write_json, atomic_write_text


def test_atomic_write_roundtrip_and_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "data.json"
    atomic_write_json(target, {"a": [1, 2], "é": True})
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": [1, 2], "é": True}
    assert target.read_text().endswith("\n")
    atomic_write_text(target, "second")
    assert target.read_text() == "second"
    assert [p.name for p in target.parent.iterdir()] == ["data.json"]


def test_atomic_write_keeps_mode(tmp_path):
    target = tmp_path / "script.sh"
    atomic_write_bytes(target, b"one")
    assert target.stat().st_mode & 0o777 == 0o644
    os.chmod(target, 0o755)
    atomic_write_bytes(target, b"two")
    assert target.stat().st_mode & 0o777 == 0o755


def test_failed_write_leaves_old_content(tmp_path, monkeypatch):
    target = tmp_path / "f.txt"
    atomic_write_text(target, "old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(fileio.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def _try_lock(path: str, shared: bool, queue) -> None:
    try:
        with FileLock(path, timeout=0.3, shared=shared):
            queue.put("acquired")
    except LockTimeout as err:
        queue.put(f"timeout: {err}")


def _in_child(path: Path, shared: bool) -> str:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_try_lock, args=(str(path), shared, queue))
    proc.start()
    proc.join(30)
    return queue.get(timeout=5)


def test_exclusive_lock_blocks_other_process_with_clear_error(tmp_path):
    lock_path = tmp_path / ".lock"
    with FileLock(lock_path):
        result = _in_child(lock_path, shared=True)
    assert result.startswith("timeout") and str(lock_path) in result
    assert _in_child(lock_path, shared=False) == "acquired"  # released on exit


def test_shared_locks_coexist(tmp_path):
    lock_path = tmp_path / ".lock"
    with FileLock(lock_path, shared=True):
        assert _in_child(lock_path, shared=True) == "acquired"
        assert _in_child(lock_path, shared=False).startswith("timeout")


def test_reentrant_in_one_thread_but_no_upgrade(tmp_path):
    lock_path = tmp_path / ".lock"
    with FileLock(lock_path):
        with FileLock(lock_path, timeout=0.1):
            with FileLock(lock_path, shared=True, timeout=0.1):
                pass
        assert _in_child(lock_path, shared=False).startswith("timeout")  # still held by the outer
    with FileLock(lock_path, shared=True):
        with pytest.raises(RuntimeError, match="upgrade"):
            FileLock(lock_path).acquire()


def _increment(path: str, times: int) -> None:
    counter = Path(path)
    for _ in range(times):
        with FileLock(counter.with_suffix(".lock"), timeout=30):
            value = int(counter.read_text())
            atomic_write_text(counter, str(value + 1))


def test_lock_serialises_read_modify_write_across_processes(tmp_path):
    counter = tmp_path / "counter"
    counter.write_text("0")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_increment, args=(str(counter), 25)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert counter.read_text() == "100"
