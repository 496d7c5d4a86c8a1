"""One computation in a forked child while the parent goes on with another (POSIX only).

After the call graph, a scan has two independent consumers of it: the detectors and the metric
tables. On a large repository each takes seconds on one core while the other core idles. A forked
child sees the parent's graphs without copying or pickling them, computes its part and sends back
only the small result. Where forking is unavailable, unsafe or not worth it, or the child fails in
any way, the same function runs in the parent instead: the result never depends on which happened.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

_T = TypeVar("_T")
_A = TypeVar("_A")

MIN_DEFINITIONS = 5000
"""Below this many definitions the work is too short to pay for a fork."""


def can_fork() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


class Background(Generic[_A, _T]):
    """`function(argument)`, computed in a forked child when that pays off; `result()` waits."""

    def __init__(self, function: Callable[[_A], _T], argument: _A, pid: int | None,
                 reader: int | None):
        self._function = function
        self._argument = argument
        self._pid = pid
        self._reader = reader

    @classmethod
    def start(cls, function: Callable[[_A], _T], argument: _A, *,
              fork: bool = True) -> Background[_A, _T]:
        """Fork a child computing `function(argument)` (when `fork` and the platform allows)."""
        if not (fork and can_fork()):
            return cls(function, argument, None, None)
        reader, writer = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no memory or process slots left: compute here instead
            os.close(reader)
            os.close(writer)
            return cls(function, argument, None, None)
        if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
            status = 1
            try:
                os.close(reader)
                data = pickle.dumps(function(argument), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(writer, "wb") as stream:
                    stream.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(writer)
        return cls(function, argument, pid, reader)

    def result(self) -> _T:
        """The child's result; computed here when there is no child or it failed."""
        if self._pid is None or self._reader is None:
            return self._function(self._argument)
        with os.fdopen(self._reader, "rb") as stream:
            data = stream.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = self._reader = None
        if status == 0:
            try:
                value: _T = pickle.loads(data)
                return value
            except (pickle.UnpicklingError, EOFError, ValueError):
                pass
        return self._function(self._argument)  # the child failed: its error shows here

    def cancel(self) -> None:
        """Stop and reap the child (the parent failed and will not ask for the result)."""
        if self._pid is None or self._reader is None:
            return
        os.close(self._reader)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        os.waitpid(self._pid, 0)
        self._pid = self._reader = None
