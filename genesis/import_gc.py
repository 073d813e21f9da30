"""The cyclic garbage collector around the pipeline's import and run.

Loading the pipeline (litellm, openai, langgraph...: some 3,600 modules) allocates over a million objects
that live as long as the run. With the collector on, it walks them again and again while they load (some
900 collections, full ones among them) and in every full collection of the run afterwards, in this process
and in the simulation workers forked from it. `long_lived` loads with the collector off, then keeps what was
loaded out of every collection's sight (gc.freeze; the forked workers inherit that) until the run ends.
"""
from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def long_lived(load: Callable[[], T]) -> Iterator[T]:
    """`load()` with the collector off; what exists then is frozen for the block (unfrozen after it, so a
    process that goes on, such as a test's, can collect it again)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        loaded = load()
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
    try:
        yield loaded
    finally:
        gc.unfreeze()
