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
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

_T = TypeVar("_T")
_A = TypeVar("_A")

MIN_DEFINITIONS = 5000
"""Below this many definitions the work is too short to pay for a fork."""

STANDBY_FILES = 300
"""From this many files on, a scan starts a `Standby` child (it has about `MIN_DEFINITIONS`)."""


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
        self._then: Callable[[], object] | None = None

    @classmethod
    def start(cls, function: Callable[[_A], _T], argument: _A, *, fork: bool = True,
              then: Callable[[], object] | None = None) -> Background[_A, _T]:
        """Fork a child computing `function(argument)` (when `fork` and the platform allows).

        `then` runs in the child after it has sent its result (work nobody waits for, such as
        writing a cache entry; `join` waits for it); without a child, `result` runs it."""
        if not (fork and can_fork()):
            background = cls(function, argument, None, None)
            background._then = then
            return background
        reader, writer = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no memory or process slots left: compute here instead
            os.close(reader)
            os.close(writer)
            return cls.start(function, argument, fork=False, then=then)
        if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
            status = 1
            try:
                os.close(reader)
                data = pickle.dumps(function(argument), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(writer, "wb") as stream:
                    stream.write(data)
                if then is not None:
                    then()
                status = 0
            finally:
                os._exit(status)
        os.close(writer)
        return cls(function, argument, pid, reader)

    def result(self) -> _T:
        """The child's result; computed here when there is no child or it failed."""
        if self._pid is None or self._reader is None:
            value = self._function(self._argument)
            if self._then is not None:
                self._then()
                self._then = None
            return value
        with os.fdopen(self._reader, "rb") as stream:
            data = stream.read()  # until the child closes its end: the result is complete
        self._reader = None
        try:
            found: _T = pickle.loads(data)
            return found
        except (pickle.UnpicklingError, EOFError, ValueError, AttributeError, ImportError):
            self.join()
            return self._function(self._argument)  # the child failed: its error shows here

    def join(self) -> None:
        """Wait for the child to finish (after `result`, only its `then` work is left)."""
        if self._pid is not None:
            if self._reader is not None:
                os.close(self._reader)
                self._reader = None
            os.waitpid(self._pid, 0)
            self._pid = None

    def cancel(self) -> None:
        """Stop and reap the child (the parent failed and will not ask for the result)."""
        if self._pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        self.join()


class Standby:
    """A child forked while the process is still small, waiting to compute one function.

    Forking a process that holds gigabytes is dear where a page fault is (a virtual machine):
    every page either side writes afterwards is copied, and reading a Python object writes its
    reference count. A child forked before the facts are loaded shares almost nothing, so later
    work in it costs the parent no copies; it gets its input by pipe instead. A job is sent with
    its length first, so that other children holding a copy of the pipe do not delay it.
    """

    def __init__(self, pid: int, jobs: int, results: int):
        self._pid: int | None = pid
        self._jobs: int | None = jobs
        self._results = results

    @classmethod
    def start(cls) -> Standby | None:
        """The waiting child; None where forking is unavailable or fails."""
        if not can_fork():
            return None
        job_reader, job_writer = os.pipe()
        result_reader, result_writer = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for end in (job_reader, job_writer, result_reader, result_writer):
                os.close(end)
            return None
        if pid == 0:
            status = 1
            try:
                os.close(job_writer)
                os.close(result_reader)
                _serve(job_reader, result_writer)
                status = 0
            finally:
                os._exit(status)
        os.close(job_reader)
        os.close(result_writer)
        return cls(pid, job_writer, result_reader)

    def submit(self, function: Callable[[_A], _T], argument: _A) -> Background[_A, _T]:
        """`function(argument)` in the waiting child (both pickled by value and name); the
        returned handle computes it here if the child fails. One job per standby."""
        pid, jobs = self._pid, self._jobs
        if pid is None or jobs is None:
            raise RuntimeError("this standby child was used or closed already")
        self._pid = self._jobs = None
        try:
            data = pickle.dumps((function, argument), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # not picklable: the child is let go, the handle computes it here
            data = b""
        try:
            with os.fdopen(jobs, "wb") as stream:
                stream.write(len(data).to_bytes(8, "little") + data)
        except OSError:  # the child died: the handle reaps it and computes here
            pass
        return Background(function, argument, pid, self._results)

    def close(self) -> None:
        """Let the child go without a job (nothing happens if a job was submitted)."""
        pid, jobs = self._pid, self._jobs
        if pid is None or jobs is None:
            return
        self._pid = self._jobs = None
        with contextlib.suppress(OSError):
            os.write(jobs, bytes(8))
        os.close(jobs)
        os.close(self._results)
        os.waitpid(pid, 0)


@contextlib.contextmanager
def standing_by(wanted: bool = True) -> Iterator[Standby | None]:
    """A `Standby` child for the block (when `wanted` and possible), let go at its end if the
    block gave it no job."""
    standby = Standby.start() if wanted else None
    try:
        yield standby
    finally:
        if standby is not None:
            standby.close()


def _serve(jobs: int, results: int) -> None:
    """In the standby child: read one job, compute it, write the pickled result."""
    with os.fdopen(jobs, "rb") as stream:
        size = int.from_bytes(stream.read(8) or bytes(8), "little")
        data = stream.read(size) if size else b""
    if not data:
        return
    function, argument = pickle.loads(data)
    result = pickle.dumps(function(argument), protocol=pickle.HIGHEST_PROTOCOL)
    with os.fdopen(results, "wb") as stream:
        stream.write(result)
