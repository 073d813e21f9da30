"""Hosted-model etiquette: a per-model limit on requests in flight, and how long a server asks us to wait.

The limit is N slots per (model, endpoint); a request holds one slot, an flock on one of N files in
a per-user temp folder, so every process on this machine (batch and experiment workers included)
shares it and a killed process frees its slot at once.
"""
from __future__ import annotations

import email.utils
import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from genesis.fileio import FileLock, LockTimeout

SLOT_DIR = Path(tempfile.gettempdir()) / f"genesis-model-slots-{os.getuid()}"
_POLL_S = 0.05


class SlotWaitTimeout(TimeoutError):
    """Every slot of a model stayed busy for the whole wait."""


@contextmanager
def model_slot(model: str, api_base: str | None, limit: int, wait_s: float) -> Iterator[int]:
    """Holds one of `limit` slots of this model for the duration of the block; yields its number."""
    key = hashlib.sha256(f"{model}|{api_base or ''}".encode()).hexdigest()[:16]
    deadline = time.monotonic() + wait_s
    while True:
        for number in range(limit):
            lock = FileLock(SLOT_DIR / f"{key}.{number}.lock", timeout=0)
            try:
                lock.acquire()
            except LockTimeout:
                continue
            try:
                yield number
            finally:
                lock.release()
            return
        if time.monotonic() >= deadline:
            raise SlotWaitTimeout(f"all {limit} request slots of {model} stayed busy for {wait_s:.0f} s "
                                  "(raise max_concurrency, or run fewer workers)")
        time.sleep(_POLL_S)


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's Retry-After (seconds or an HTTP date) on a litellm error, if it sent one."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if email.utils.parsedate_tz(value) else None
        if parsed is None:
            return None
        seconds = parsed.timestamp() - time.time()
    return max(0.0, seconds)
