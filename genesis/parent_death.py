"""Worker processes that die with the process that started them.

A parent killed with -9 cannot stop its children, and an orphaned batch worker (or simulation)
goes on generating and writing to the knowledge base. On Linux the kernel sends the child SIGKILL
when its parent dies (PR_SET_PDEATHSIG, cleared across fork, so every level of children sets it);
elsewhere this is a no-op.
"""
from __future__ import annotations

import ctypes
import importlib
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent (pid `parent`) dies; exit at once if it already has."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return  # not allowed here (a seccomp profile): the parent's own shutdown still stops us
    if os.getppid() != parent:  # the parent died before the request was in place
        os.kill(os.getpid(), signal.SIGKILL)


def child_main(parent: int, target: str, *args: object) -> None:
    """A spawned process's entry point: die with `parent` from the start, then import and call `target`
    ("module:function") with `args`. The import takes seconds for the pipeline, and a parent killed
    meanwhile must take the child down before it starts any work."""
    die_with_parent(parent)
    module, _, name = target.partition(":")
    getattr(importlib.import_module(module), name)(*args)
