"""Keeping Python's cyclic garbage collector off the big, long-lived, acyclic analysis data.

Facts and graphs are millions of small objects without reference cycles; every full collection
walks all of them, which on a pandas-sized repository costs seconds per collection. Building them
with the collector paused, then freezing them out of its sight, removes that cost without turning
the collector off for the caller's own code.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, ParamSpec, TypeVar


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


_P = ParamSpec("_P")
_R = TypeVar("_R")


def collector_paused(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a metric with the cyclic collector paused: it makes many small acyclic objects, and
    each full collection would walk all of them for nothing."""

    @wraps(function)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with paused_gc(freeze=False):
            return function(*args, **kwargs)

    return paused


_T = TypeVar("_T")


class Derived:
    """Structures computed once from the whole object they hang off (an index, a detector run),
    built with the collector paused and kept as long as that object lives."""

    def derived(self, build: Callable[..., _T], *args: Any) -> _T:
        """`build(self, *args)`, computed on first use."""
        cache: dict[tuple[Any, ...], Any] = self.__dict__.setdefault("_derived", {})
        key = (build, *args)
        if key not in cache:
            with paused_gc():
                cache[key] = build(self, *args)
        found: _T = cache[key]
        return found

    def provide(self, build: Callable[..., _T], value: _T, *args: Any) -> None:
        """Record `value` as `build(self, *args)`: computed elsewhere (in a forked child)."""
        key = (build, *args)
        self.__dict__.setdefault("_derived", {})[key] = value
