"""A pytest plugin copied next to each test run (it imports only the stdlib, pytest, coverage).

It gives smellkit three things pytest lacks without extra packages: outcomes written line by line
as JSON (so a run killed halfway still says what passed and which test was running), a coverage
context per test node id (exact for parametrized tests, unlike `dynamic_context =
test_function`, which names functions by module `__name__` and merges parameters), and a per-test
time limit that turns a hang into a failure instead of a lost run.

Controlled by environment variables: SMELLKIT_RESULTS (JSONL path), SMELLKIT_PER_TEST (seconds),
SMELLKIT_CONTEXTS ("1": switch coverage contexts), SMELLKIT_DESELECT (JSON list of node ids or
fnmatch patterns to deselect).
"""

from __future__ import annotations

import faulthandler
import fnmatch
import json
import os
import signal
import sys
from typing import Any

import pytest

_RESULTS = os.environ.get("SMELLKIT_RESULTS")
_LIMIT = float(os.environ.get("SMELLKIT_PER_TEST") or 0)
_CONTEXTS = os.environ.get("SMELLKIT_CONTEXTS") == "1"
_DESELECT_FILE = os.environ.get("SMELLKIT_DESELECT")
_handle = open(_RESULTS, "a", encoding="utf-8") if _RESULTS else None  # noqa: SIM115
_timed_out: set[str] = set()


class TestTimeout(BaseException):
    """Raised in the test by the alarm; BaseException so `except Exception` cannot swallow it."""

    __test__ = False


def _write(record: dict[str, Any]) -> None:
    if _handle is not None and not _handle.closed:
        _handle.write(json.dumps(record) + "\n")
        _handle.flush()
        os.fsync(_handle.fileno())


def _coverage() -> Any:
    if not _CONTEXTS:
        return None
    try:
        import coverage
    except ImportError:
        return None
    return coverage.Coverage.current()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _DESELECT_FILE:
        return
    with open(_DESELECT_FILE, encoding="utf-8") as handle:
        patterns = json.load(handle)
    exact = set(patterns)
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        gone = item.nodeid in exact or any(fnmatch.fnmatchcase(item.nodeid, p) for p in patterns)
        (drop if gone else keep).append(item)
    for item in drop:
        _write({"event": "deselected", "nodeid": item.nodeid})
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _write({"event": "collect-error", "nodeid": report.nodeid,
                "message": str(report.longrepr)[-3000:]})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _write({"event": "start", "nodeid": item.nodeid})
    cov = _coverage()
    if cov is not None:
        cov.switch_context(item.nodeid)
    if _LIMIT > 0:
        def expire(signum: int, frame: Any) -> None:
            _timed_out.add(item.nodeid)
            raise TestTimeout(f"test ran longer than {_LIMIT:g}s (per-test limit)")

        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, _LIMIT)
        # A hang the alarm cannot interrupt (C code holding the interpreter) ends the process;
        # the "start" line without an "end" names the culprit.
        faulthandler.dump_traceback_later(_LIMIT * 2 + 10, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        if _LIMIT > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            faulthandler.cancel_dump_traceback_later()
        if cov is not None:
            cov.switch_context("")
        _write({"event": "end", "nodeid": item.nodeid})


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    outcome: str = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    record: dict[str, Any] = {"event": "report", "nodeid": report.nodeid, "when": report.when,
                              "outcome": outcome, "duration": round(report.duration, 4)}
    if report.failed or outcome == "skipped":
        longrepr = report.longrepr
        if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
            record["message"] = str(longrepr[2])
        else:
            crash = getattr(longrepr, "reprcrash", None)
            record["message"] = str(longrepr)[-3000:]
            if crash is not None:
                record["crash"] = str(crash.message)[:500]
    if report.nodeid in _timed_out:
        record["timeout"] = True
    _write(record)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the results file when pytest ends (also after an internal error): a suite that
    turns warnings into errors must not see smellkit's file left open."""
    if _handle is not None and not _handle.closed:
        _handle.close()
