"""Keeping Python's cyclic garbage collector off the big, long-lived, acyclic analysis data.

Facts and graphs are millions of small objects without reference cycles; every full collection
walks all of them, which on a pandas-sized repository costs seconds per collection. Building them
with the collector paused, then freezing them out of its sight, removes that cost without turning
the collector off for the caller's own code.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(*, freeze: bool = True) -> Iterator[None]:
    """Pause collection while the block builds data; then move what survived to the permanent
    generation (when `freeze`) and restore the collector's previous state."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if collecting:
            gc.enable()
