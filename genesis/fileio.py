"""Atomic file writes, a tolerant JSON reader and an inter-process file lock.

Batch workers run as separate processes that share the knowledge base, the rubrics and the
output folders, so every shared file is replaced atomically (readers see the old or the new
content, never a torn write) and read-modify-write sequences hold a `FileLock`.
"""
from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

# libyaml: ~10x faster, same documents
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def parse_yaml(text: str) -> Any:
    """A YAML document read safely (raises yaml.YAMLError like yaml.safe_load)."""
    return yaml.load(text, Loader=_YAML_LOADER)


def dump_yaml(data: Any, **options: Any) -> str:
    """`data` as a YAML document of plain types (like yaml.safe_dump; `options` are its options)."""
    return yaml.dump(data, Dumper=_YAML_DUMPER, **options)


def read_json_object(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The JSON object stored at `path`, or None when it is missing, unreadable, torn or not an object."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return None
    return data if isinstance(data, dict) else None


def fsync_dir(path: Path) -> None:
    """Make a rename inside `path` durable (the directory entry itself must reach the disk)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same directory, fsync, then os.replace."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates 0600 files; keep the mode of the file we replace, else the usual 0644
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 2, sort_keys: bool = False) -> None:
    """JSON with a trailing newline (diff-friendly), written atomically."""
    text = json.dumps(obj, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
    atomic_write_text(path, text + "\n")


class LockTimeout(TimeoutError):
    """Another process held the lock for longer than the timeout."""


# Locks this process holds, per (lock file, thread): [mode, depth, fd]. flock conflicts between two
# descriptors of the same process, so without this a nested acquisition would deadlock itself.
_held: dict[tuple[str, int], list[Any]] = {}
_held_guard = threading.Lock()


class FileLock:
    """`with FileLock(path):` — an flock on `path` (created if missing), exclusive or shared.

    Waits at most `timeout` seconds, then raises LockTimeout naming the file. Re-entrant within
    one thread (a nested acquisition of a lock the thread already holds exclusively is free);
    upgrading a held shared lock to exclusive is refused, as it could deadlock two readers.
    The lock is released when the holder exits, also if it crashes (the kernel drops flocks).
    """

    def __init__(self, path: str | os.PathLike[str], timeout: float = 60.0, shared: bool = False, poll: float = 0.05):
        self.path = Path(path)
        self.timeout = timeout
        self.shared = shared
        self.poll = poll
        self._key = (str(self.path.resolve()), threading.get_ident())

    def acquire(self) -> None:
        with _held_guard:
            held = _held.get(self._key)
            if held is not None:
                if held[0] == "shared" and not self.shared:
                    raise RuntimeError(f"cannot upgrade a shared lock on {self.path} to exclusive")
                held[1] += 1
                return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        op = (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, op)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeout(
                        f"timed out after {self.timeout:g}s waiting for the lock {self.path} "
                        "(another genesis process is holding it; retry, or remove the file if no such process runs)"
                    ) from None
                time.sleep(self.poll)
        with _held_guard:
            _held[self._key] = ["shared" if self.shared else "exclusive", 1, fd]

    def release(self) -> None:
        with _held_guard:
            held = _held.get(self._key)
            if held is None:
                return
            held[1] -= 1
            if held[1] > 0:
                return
            del _held[self._key]
        fcntl.flock(held[2], fcntl.LOCK_UN)
        os.close(held[2])

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
