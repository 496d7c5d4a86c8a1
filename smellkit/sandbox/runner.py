"""Running one command with a time limit, locally or elsewhere, behind one small protocol.

A test suite that hangs, or forks children that hang, must not hang the build: the local runner
starts each command in a new session and kills the whole process group on time-out.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

OUTPUT_LIMIT = 200_000
"""Characters of stdout/stderr kept (the tail): enough to read a failure, bounded in memory."""


class RunResult(BaseModel):
    """What a command did; `timed_out` commands were killed and their returncode is meaningless."""

    model_config = ConfigDict(frozen=True)

    command: list[str] | str
    returncode: int
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe(self, lines: int = 20) -> str:
        """A short account for error messages: how it ended and the last lines of output."""
        how = (f"timed out after {self.seconds:.0f}s" if self.timed_out
               else f"exited with {self.returncode}")
        tail = "\n".join((self.stdout + "\n" + self.stderr).strip().splitlines()[-lines:])
        return f"{how}: {tail}" if tail else how


@runtime_checkable
class Runner(Protocol):
    """Runs a command (argv list, or a string for the shell) in `cwd` with exactly `env`.

    `mounts` lists extra folders the command reads (the virtualenv, its interpreter) so runners
    that isolate the file system can make them visible; the local runner sees everything.
    """

    def run(self, command: list[str] | str, *, cwd: Path, env: Mapping[str, str],
            timeout: float, mounts: Sequence[Path] = ()) -> RunResult: ...


def _tail(data: bytes | str | None) -> str:
    if data is None:
        return ""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text[-OUTPUT_LIMIT:]


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process's whole session (it is its own group leader), then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.kill()


class LocalRunner:
    """Subprocesses on this machine (the default runner)."""

    def run(self, command: list[str] | str, *, cwd: Path, env: Mapping[str, str],
            timeout: float, mounts: Sequence[Path] = ()) -> RunResult:
        argv = ["/bin/bash", "-c", command] if isinstance(command, str) else list(command)
        started = time.perf_counter()
        try:
            process = subprocess.Popen(
                argv,
                cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
        except OSError as error:
            return RunResult(command=command, returncode=127, stderr=str(error),
                             seconds=time.perf_counter() - started)
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(process)
            # Grandchildren holding the pipes are dead too, so this returns promptly.
            stdout, stderr = process.communicate()
        finally:
            if process.poll() is None:  # KeyboardInterrupt while waiting
                kill_group(process)
        # A command that exits while a forked child lives on would leave the child running.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        return RunResult(command=command, returncode=process.returncode, stdout=_tail(stdout),
                         stderr=_tail(stderr), seconds=time.perf_counter() - started,
                         timed_out=timed_out)
