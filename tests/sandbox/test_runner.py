"""The local runner: output captured, exact environment, and a time-out kills the whole group."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from smellkit.sandbox.runner import LocalRunner, Runner


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_runs_argv_with_exactly_the_given_environment(tmp_path: Path) -> None:
    result = LocalRunner().run([sys.executable, "-c", "import os; print(os.environ['ONLY'], "
                                "len(os.environ))"], cwd=tmp_path, env={"ONLY": "yes"},
                               timeout=30)
    assert result.ok and not result.timed_out
    assert result.stdout.split()[0] == "yes"
    assert int(result.stdout.split()[1]) <= 3  # nothing of ours leaks in (LC_CTYPE may be set)


def test_shell_string_in_cwd_with_stderr_and_returncode(tmp_path: Path) -> None:
    result = LocalRunner().run("pwd; echo oops >&2; exit 3", cwd=tmp_path,
                               env={"PATH": os.environ["PATH"]}, timeout=30)
    assert result.returncode == 3 and not result.ok
    assert result.stdout.strip() == str(tmp_path) and result.stderr.strip() == "oops"
    assert "exited with 3" in result.describe()


def test_missing_program_is_a_result_not_an_exception(tmp_path: Path) -> None:
    result = LocalRunner().run(["/no/such/program"], cwd=tmp_path, env={}, timeout=5)
    assert result.returncode == 127 and "No such file" in result.stderr


def test_timeout_kills_the_command_and_its_children(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = (f"sleep 300 & echo $! > {pids}; echo $$ >> {pids}; "
              "python3 -c 'import time; time.sleep(300)'")
    started = time.monotonic()
    result = LocalRunner().run(script, cwd=tmp_path, env={"PATH": os.environ["PATH"]},
                               timeout=1.5)
    assert result.timed_out and not result.ok
    assert time.monotonic() - started < 20
    child, shell = (int(line) for line in pids.read_text().split())
    deadline = time.monotonic() + 5
    while (_alive(child) or _alive(shell)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the background child survived the time-out"
    assert not _alive(shell)
    assert "timed out" in result.describe()


def test_a_child_left_behind_by_a_finished_command_is_killed(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    result = LocalRunner().run(f"(sleep 300 >/dev/null 2>&1 &  echo $! > {pids}); echo done",
                               cwd=tmp_path, env={"PATH": os.environ["PATH"]}, timeout=30)
    assert result.ok and result.stdout.strip() == "done"
    pid = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_local_runner_satisfies_the_protocol() -> None:
    assert isinstance(LocalRunner(), Runner)
