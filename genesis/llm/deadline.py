"""A total deadline on a blocking call that only knows timeouts between bytes.

An HTTP client's read timeout restarts with every byte, so a server trickling its reply holds the
call (and the per-model slot around it) for as long as it likes. The call runs in a daemon thread
and the caller stops waiting at the deadline; the abandoned request finishes at the server's pace
but holds no slot and blocks nothing (a daemon thread does not keep the process alive).
"""
from __future__ import annotations

import contextvars
import threading
from typing import Callable, TypeVar

R = TypeVar("R")


class CallDeadlineExceeded(TimeoutError):
    """The call had not returned when its total deadline passed."""


def call_with_deadline(fn: Callable[[], R], seconds: float, what: str) -> R:
    """`fn()`, or CallDeadlineExceeded once `seconds` have passed; `fn`'s own exceptions propagate."""
    outcome: dict[str, object] = {}
    context = contextvars.copy_context()  # what the caller's context holds, the call sees too

    def run() -> None:
        try:
            outcome["value"] = context.run(fn)
        except BaseException as exc:  # handed to the waiting caller, who raises it
            outcome["error"] = exc

    worker = threading.Thread(target=run, name=f"deadline:{what}", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise CallDeadlineExceeded(f"{what}: no complete reply within {seconds:g} s (timeout)")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
