"""One writer per scenario folder: `genesis new` and `genesis resume` hold the folder's lock for the
whole run, and a second run into the same folder is refused before it writes anything.

The lock is an flock on a file in a per-user temp folder, keyed by the folder's resolved path: the
scenario folder itself gets no extra file, and a killed run frees the folder at once (the kernel
drops the flock). The holder's pid goes into the file so the refusal can name it.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from genesis.fileio import FileLock, LockTimeout

LOCK_DIR = Path(tempfile.gettempdir()) / f"genesis-folder-locks-{os.getuid()}"


class FolderBusy(RuntimeError):
    """Another genesis run is writing the scenario folder."""


def _lock_path(folder: Path) -> Path:
    return LOCK_DIR / f"{hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:24]}.lock"


@contextmanager
def sole_writer(folder: Path) -> Iterator[None]:
    """Holds `folder`'s lock for the block; FolderBusy at once when another process holds it."""
    path = _lock_path(Path(folder))
    lock = FileLock(path, timeout=0)
    try:
        lock.acquire()
    except LockTimeout:
        try:
            holder = f" (pid {int(path.read_text().strip())})"
        except (OSError, ValueError):
            holder = ""
        raise FolderBusy(f"{folder} is being written by another genesis run{holder}: wait for it to finish, "
                         "or give this run another --out folder") from None
    try:
        path.write_text(str(os.getpid()))
        yield
    finally:
        lock.release()
