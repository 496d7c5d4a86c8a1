"""The validation loop: a case is kept only if its selected tests pass on the original code and on
the smelly version; every other outcome becomes a `Rejection` that says why.

Runs on the original are shared between cases that select the same tests (one pristine copy per
repository, run once per distinct selection); each smelly version gets its own copy, removed once
its verdict is recorded.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from smellkit.config import RepoSpec
from smellkit.errors import SmellkitError
from smellkit.models import Case, Injection, Rejection, RejectionStage
from smellkit.sandbox.environment import Environment
from smellkit.sandbox.runner import Runner
from smellkit.sandbox.testmap import TestMap
from smellkit.sandbox.testrun import TestRun

RunTests = Callable[[Environment, Path, RepoSpec, Sequence[str], Runner], TestRun]
ApplyPatch = Callable[[Path, str], None]
CopyTree = Callable[[Path, Path], Path]

_LISTED = 5  # node ids named in a rejection reason


def describe_failure(run: TestRun, version: str, timeout: float) -> str:
    """One sentence: which tests did not pass on which version, and how (hung, failed, ...)."""
    if run.timed_out:
        return (f"the selected tests timed out on the {version} version after {timeout:g}s "
                f"({run.summary()})")
    if run.hung:
        names = ", ".join(run.hung[:_LISTED])
        return f"{len(run.hung)} selected test(s) hung on the {version} version: {names}"
    bad = [*run.failed, *run.errors]
    missing = [test for test in run.requested if test not in run.passed and test not in bad]
    parts = []
    if bad:
        parts.append(f"{len(bad)} selected test(s) fail on the {version} version: "
                     + ", ".join(bad[:_LISTED]) + (" ..." if len(bad) > _LISTED else ""))
    if missing:
        parts.append(f"{len(missing)} did not pass (skipped or not run): "
                     + ", ".join(missing[:_LISTED]))
    first = next((run.messages[test] for test in bad if run.messages.get(test)), "")
    if first:
        parts.append(f"first error: {first.strip().splitlines()[-1][:200]}")
    return "; ".join(parts) or f"the run on the {version} version failed ({run.summary()})"


@dataclass
class Validator:
    """Validates injections of one repository; safe to call from several threads at once."""

    spec: RepoSpec
    env: Environment
    checkout: Path
    test_map: TestMap
    runner: Runner
    work_dir: Path
    run_tests: RunTests
    apply_patch: ApplyPatch
    copy_tree: CopyTree
    seed: int = 0
    limit: int = 10
    """Tests selected per qualname (SmellBench: at most 10 per method)."""
    _original: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _runs: dict[tuple[str, ...], tuple[TestRun, float]] = field(default_factory=dict)
    _run_locks: dict[tuple[str, ...], threading.Lock] = field(default_factory=dict)

    def select(self, injection: Injection) -> tuple[str, ...]:
        """Tests covering the candidate's target and every definition it involves (by name, so
        definitions that keep their name in the smelly version count too)."""
        names = {injection.candidate.target.qualname,
                 *(item.location.qualname for item in injection.targets),
                 *(item.qualname for item in injection.locations)}
        covered = self.test_map.by_qualname
        for name in list(names):  # a class or module: the tests of the code inside it
            if not self.test_map.tests_for(name):
                names.update(item for item in covered if item.startswith(f"{name}."))
        return self.test_map.select(sorted(names), limit=self.limit, seed=self.seed)

    def _original_copy(self) -> Path:
        with self._lock:
            if self._original is None:
                target = self.work_dir / "original"
                shutil.rmtree(target, ignore_errors=True)
                self._original = self.copy_tree(self.checkout, target)
            return self._original

    def run_original(self, tests: tuple[str, ...]) -> tuple[TestRun, float]:
        """The selected tests on the original code, run once per distinct selection."""
        with self._lock:
            lock = self._run_locks.setdefault(tests, threading.Lock())
        with lock:
            if tests not in self._runs:
                root = self._original_copy()
                started = time.perf_counter()
                run = self.run_tests(self.env, root, self.spec, tests, self.runner)
                self._runs[tests] = (run, time.perf_counter() - started)
            return self._runs[tests]

    def validate(self, injection: Injection) -> Case | Rejection:
        """Select tests, run them on the original, apply the smelly patch to a fresh copy, run
        them again; any problem is a Rejection naming the stage and the reason."""
        timings: dict[str, float] = {}

        def reject(stage: RejectionStage, reason: str) -> Rejection:
            return Rejection(key=injection.id, repo=self.spec.name, stage=stage, reason=reason,
                             smell=injection.smell, difficulty=injection.difficulty,
                             injection_id=injection.id,
                             candidate=injection.candidate.target.qualname,
                             timings={key: round(value, 3) for key, value in timings.items()})

        tests = self.select(injection)
        if not tests:
            return reject("select", "no healthy test of the repository covers the target or "
                                    "the code it involves")
        try:
            original, seconds = self.run_original(tests)
        except SmellkitError as error:
            return reject("original", f"the tests could not run on the original: {error}")
        timings["original"] = seconds
        if not original.ok:
            return reject("original", describe_failure(original, "original",
                                                       self.spec.timeouts.test))
        copy = self.work_dir / "cases" / injection.id
        shutil.rmtree(copy, ignore_errors=True)
        try:
            started = time.perf_counter()
            try:
                self.copy_tree(self.checkout, copy)
                self.apply_patch(copy / self.spec.source_path, injection.smelly_patch)
            except SmellkitError as error:
                return reject("apply", f"the smelly patch does not apply: {error}")
            timings["apply"] = time.perf_counter() - started
            started = time.perf_counter()
            try:
                smelly = self.run_tests(self.env, copy, self.spec, tests, self.runner)
            except SmellkitError as error:
                return reject("smelly", f"the tests could not run on the smelly version: "
                                        f"{error}")
            timings["smelly"] = time.perf_counter() - started
            if not smelly.ok:
                return reject("smelly", describe_failure(smelly, "smelly",
                                                         self.spec.timeouts.test))
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        return Case(**dict(injection), repo=self.spec.name, revision=self.spec.revision,
                    source_path=self.spec.source_path, tests_path=self.spec.tests_path,
                    tests=tests, timings={key: round(value, 3) for key, value in timings.items()})
