"""Keeps the simulation's NumPy temporaries on the heap (glibc's malloc).

A tick makes temporaries of a few hundred kilobytes (fog grids, target searches, flow fields).
glibc serves blocks above its mmap threshold (128 KiB until a large block happens to be freed)
with a fresh mapping each time, so every such temporary costs page faults: a third more CPU per
tick at 1000 units, and how much depended on which large arrays the process had freed before.
Fixed thresholds keep blocks up to 32 MiB on the heap and the heap from shrinking below 64 MiB.
"""
from __future__ import annotations

import ctypes
import sys

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_set = False


def keep_temporaries_on_heap() -> None:
    """Once per process; does nothing where the C library has no `mallopt` (not Linux / glibc)."""
    global _set
    if _set:
        return
    _set = True
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)
    mallopt(_M_TRIM_THRESHOLD, 64 << 20)
