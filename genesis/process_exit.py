"""Leaving a finished `genesis` process without the interpreter's teardown.

At exit CPython frees the objects of every loaded module one by one. After a generation (some 3,600
modules: litellm, openai, langgraph, chromadb, onnxruntime...) that took 1-2 s of CPU, all of it after
the result was printed. `exit_now` does what the interpreter does before that teardown (wait for the
non-daemon threads, run the atexit handlers, flush stdout and stderr), then leaves with os._exit, as
multiprocessing's worker processes do.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

BROKEN_STDOUT = 120   # the interpreter's own status when it cannot flush stdout at exit


def exit_status(code: object) -> int:
    """The process status `sys.exit(code)` gives: None is 0, an int itself, anything else is printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def exit_now(code: object) -> NoReturn:
    status = exit_status(code)
    # the interpreter's first step of exiting: threading's exit hooks, then a join of every non-daemon thread
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):    # a closed pipe (`genesis ... | head`) or a closed stream
            status = status or BROKEN_STDOUT
    os._exit(status)
