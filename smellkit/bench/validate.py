"""The validation loop: a case is kept only if its selected tests pass on the original code and on
the smelly version, and run and guard the smelly code (`adequacy`); every other outcome becomes a
`Rejection` that says why.

Runs on the original are shared between cases that select the same tests (one pristine copy per
repository, run once per distinct selection); each smelly version gets its own copy, removed once
its verdict is recorded. The run on the smelly version is made under coverage, so the same run
says whether the tests pass and what they run.
"""

from __future__ import annotations

import random
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from smellkit.bench.adequacy import (
    Measurement,
    SmellyCode,
    SourceFile,
    added_lines,
    break_function,
    measure,
    module_of,
    statement_runs,
)
from smellkit.config import RepoSpec
from smellkit.errors import SmellkitError
from smellkit.injectors.verify import passing_on_smelly
from smellkit.models import (
    MIN_CHANGED_LINES_EXECUTED,
    Case,
    Injection,
    Rejection,
    RejectionStage,
    TestAdequacy,
)
from smellkit.project import Project
from smellkit.sandbox.environment import Environment
from smellkit.sandbox.runner import Runner
from smellkit.sandbox.testmap import TestMap
from smellkit.sandbox.testrun import CoveredRun, LineContexts, TestRun

RunTests = Callable[[Environment, Path, RepoSpec, Sequence[str], Runner], TestRun]
RunCovered = Callable[[Environment, Path, RepoSpec, Sequence[str], Runner], CoveredRun]
ApplyPatch = Callable[[Path, str], None]
CopyTree = Callable[[Path, Path], Path]

_LISTED = 5  # node ids named in a rejection reason
POOL_LIMIT = 300
"""Tests run under coverage on the smelly version when selecting again (moved or copied code)."""
VALIDATION_FORMAT = 7
"""Part of each validation outcome's key in the work log: a change in what validation checks
makes a resumed build validate again instead of reusing verdicts of the old rules."""


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
    run_covered: RunCovered
    run_until_failure: RunTests
    seed: int = 0
    limit: int = 10
    """Tests selected per qualname (SmellBench: at most 10 per method)."""
    project: Project | None = None
    """The original's project (of the spec's source path), to hold each smelly version to its
    structural checks; None leaves that out."""
    _original: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _runs: dict[tuple[str, ...], tuple[TestRun, float]] = field(default_factory=dict)
    _run_locks: dict[tuple[str, ...], threading.Lock] = field(default_factory=dict)

    def select(self, injection: Injection) -> tuple[str, ...]:
        """At most `limit` tests for the candidate's target, each definition it involves (by
        name, so definitions that keep their name in the smelly version count too) and each red
        herring (the code an agent must leave alone: a test has to notice when it does not). A
        class or a changed module without tests of its own gets `limit` tests spread over the
        code inside it, not every test of every member; a module the case does not change (where
        a helper it repeats lives) gets none: its tests would run unrelated code."""
        changed = set(injection.files)
        names = {injection.candidate.target.qualname,
                 *(item.location.qualname for item in injection.targets),
                 *(item.qualname for item in injection.locations
                   if item.kind != "module" or item.path in changed),
                 *(item.qualname for item in injection.red_herrings)}
        chosen: set[str] = set()
        for name in sorted(names):
            if self.test_map.tests_for(name):
                chosen.update(self.test_map.select([name], limit=self.limit, seed=self.seed))
            else:
                members = sorted(item for item in self.test_map.by_qualname
                                 if item.startswith(f"{name}."))
                chosen.update(self._spread(name, [self.test_map.tests_for(item)
                                                  for item in members]))
        return tuple(sorted(chosen))

    def _spread(self, name: str, groups: Iterable[Sequence[str]],
                limit: int | None = None) -> set[str]:
        """Up to `limit` (by default the validator's) tests taken in turn from each group (each
        shuffled with the seed), so they run as many of the groups as they can."""
        limit = self.limit if limit is None else limit
        rng = random.Random(f"{self.seed}:{name}")
        queues = [rng.sample(list(group), len(group)) for group in groups if group]
        chosen: set[str] = set()
        while queues and len(chosen) < limit:
            for queue in list(queues):
                while queue and queue[0] in chosen:
                    queue.pop(0)
                if not queue:
                    queues.remove(queue)
                    continue
                chosen.add(queue.pop(0))
                if len(chosen) >= limit:
                    break
        return chosen

    def _covering(self, lines: Iterable[str], runs: dict[tuple[str, int], set[str]]
                  ) -> set[str]:
        """At most `limit` tests that together run as many of `lines` ("path:statement") as
        `runs` shows tests running: each pick the test running most of those left (the
        fastest, then the first by name, on a tie)."""
        left: dict[str, set[str]] = {}
        for item in lines:
            path, _, line = item.rpartition(":")
            for test in runs.get((path, int(line)), set()) - {""}:
                left.setdefault(test, set()).add(item)
        chosen: set[str] = set()
        while left and len(chosen) < self.limit:
            best = min(left, key=lambda test: (-len(left[test]),
                                               self.test_map.durations.get(test, 0), test))
            chosen.add(best)
            done = left.pop(best)
            left = {test: rest - done for test, rest in left.items() if rest - done}
        return chosen

    def outcome_key(self, injection: Injection) -> str:
        """The work log's key for this injection's verdict under these validation rules."""
        return f"validate|{injection.id}|{VALIDATION_FORMAT}:{self.limit}"

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
            if self.project is not None:
                started = time.perf_counter()
                passing = passing_on_smelly(self.project, copy / self.spec.source_path,
                                            injection)
                timings["checks"] = time.perf_counter() - started
                if passing:
                    return reject("smelly", "the smelly version already passes its check(s), "
                                            "so a patch that changes nothing would pass them "
                                            "too: " + "; ".join(passing))
            started = time.perf_counter()
            try:
                smelly = self.run_covered(self.env, copy, self.spec, tests, self.runner)
            except SmellkitError as error:
                return reject("smelly", f"the tests could not run on the smelly version: "
                                        f"{error}")
            timings["smelly"] = time.perf_counter() - started
            if not smelly.run.ok:
                return reject("smelly", describe_failure(smelly.run, "smelly",
                                                         self.spec.timeouts.test))
            started = time.perf_counter()
            try:
                verdict = self._adequacy(injection, copy, tests, smelly)
            except SmellkitError as error:
                verdict = f"the tests could not be run to measure adequacy: {error}"
            finally:
                timings["adequacy"] = time.perf_counter() - started
            if isinstance(verdict, str):
                return reject("adequacy", verdict)
            tests, adequacy = verdict
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        return Case(**dict(injection), repo=self.spec.name, revision=self.spec.revision,
                    source_path=self.spec.source_path, tests_path=self.spec.tests_path,
                    tests=tests, test_adequacy=adequacy,
                    timings={key: round(value, 3) for key, value in timings.items()})

    def _adequacy(self, injection: Injection, copy: Path, tests: tuple[str, ...],
                  smelly: CoveredRun) -> tuple[tuple[str, ...], TestAdequacy] | str:
        """The tests and their adequacy, selected again once from the smelly version's own
        coverage if the first selection falls short; or why the case must be rejected.
        Functions are broken only once coverage shows the tests run enough of the code."""
        code = SmellyCode.read(copy / self.spec.source_path, injection)
        found = measure(code, injection, smelly.lines, tests)
        problems = found.adequacy.problems(MIN_CHANGED_LINES_EXECUTED, breaks=False)
        if not problems:
            adequacy = self._break_each(code, copy, found)
            problems = adequacy.problems(MIN_CHANGED_LINES_EXECUTED)
            if not problems:
                return tests, adequacy
        wider = self._reselect(injection, code, copy, tests, smelly,
                               found.adequacy.lines_not_executed)
        if wider is None:
            return "; ".join(problems)
        again = "even with tests selected again from the smelly version: "
        tests, estimate = wider
        short = measure(code, injection, estimate, tests).adequacy.problems(
            MIN_CHANGED_LINES_EXECUTED, breaks=False)
        if short:
            return again + "; ".join(short)
        original, _ = self.run_original(tests)
        if not original.ok:
            return again + describe_failure(original, "original", self.spec.timeouts.test)
        smelly = self.run_covered(self.env, copy, self.spec, tests, self.runner)
        if not smelly.run.ok:
            return again + describe_failure(smelly.run, "smelly", self.spec.timeouts.test)
        found = measure(code, injection, smelly.lines, tests)
        problems = found.adequacy.problems(MIN_CHANGED_LINES_EXECUTED, breaks=False)
        if not problems:
            adequacy = self._break_each(code, copy, found)
            problems = adequacy.problems(MIN_CHANGED_LINES_EXECUTED)
        if problems:
            return again + "; ".join(problems)
        return tests, adequacy.model_copy(update={"reselected": True})

    def _break_each(self, code: SmellyCode, copy: Path, found: Measurement) -> TestAdequacy:
        """Each changed function broken in turn, only the tests that run it run again (fastest
        first), stopping at the first that fails; the record says which test caught it."""
        caught: dict[tuple[str, int], str] = {}
        for function, runners in found.to_break:
            target = copy / self.spec.source_path / function.path
            text = code.files[function.path].text
            target.write_bytes(break_function(text, function).encode("utf-8"))
            try:
                ordered = sorted(runners, key=lambda test: self.test_map.durations.get(test, 0))
                run = self.run_until_failure(self.env, copy, self.spec, ordered, self.runner)
            finally:
                target.write_bytes(text.encode("utf-8"))
            noticed = [*run.failed, *run.hung, *run.errors]
            if noticed or run.timed_out:
                caught[(function.path, function.start)] = noticed[0] if noticed else ordered[0]
        functions = tuple(item.model_copy(update={"caught_by": caught.get((item.path,
                                                                            item.line))})
                          for item in found.adequacy.functions)
        return found.adequacy.model_copy(update={
            "functions": functions, "sensitive": all(item.sensitive for item in functions)})

    def _reselect(self, injection: Injection, code: SmellyCode, copy: Path,
                  tests: tuple[str, ...], smelly: CoveredRun, missed: Sequence[str]
                  ) -> tuple[tuple[str, ...], LineContexts] | None:
        """The tests plus, for each changed function and target, up to `limit` tests that run
        it on the smelly version: found by running a pool (the original's tests of the code the
        patch touches first, then of the files it changes; at most `POOL_LIMIT`) under coverage.
        Also the lines both runs ran, to estimate the new selection's coverage before running
        it. `missed`: the changed lines ("path:statement") the tests leave unrun. None when
        the pool finds nothing new."""
        pool = [test for test in self._pool(injection) if test not in tests][:POOL_LIMIT]
        if not pool:
            return None
        wide = self.run_covered(self.env, copy, self.spec, pool, self.runner)
        found = measure(code, injection, wide.lines, wide.run.passed)
        names = [*(item.qualname for item in found.adequacy.functions),
                 *found.adequacy.live_targets()]
        # first the tests that run the changed lines the selection misses (a branch only one
        # test in a hundred reaches), then the rest of each function's share spread at random
        chosen = set(tests) | self._covering(missed, statement_runs(code, wide.lines,
                                                                     wide.run.passed))
        for name in dict.fromkeys(names):
            runners = {test for function, tests_of in found.runners.items()
                       if function == name or function.startswith(f"{name}.")
                       for test in tests_of}
            chosen.update(self._spread(name, [sorted(runners)],
                                       limit=self.limit - len(runners & chosen)))
        if chosen == set(tests):
            return None
        lines: LineContexts = {}
        for run in (smelly, wide):
            for path, by_line in run.lines.items():
                merged = lines.setdefault(path, {})
                for line, contexts in by_line.items():
                    merged[line] = tuple(sorted({*merged.get(line, ()), *contexts}))
        return tuple(sorted(chosen)), lines

    def _pool(self, injection: Injection) -> list[str]:
        """Healthy tests of the original likely to run the smelly code, most likely first."""
        rng = random.Random(f"{self.seed}:{injection.id}:pool")
        source = self.checkout / self.spec.source_path
        touched: set[str] = set()
        for path, lines in added_lines(injection.ground_truth_patch).items():
            original = SourceFile.read(source, path) if path.endswith(".py") else None
            if original is not None:
                touched.update(function.qualname for line in lines
                               if (function := original.enclosing(line)) is not None)
        modules = {module_of(path, source) for path in injection.files}
        nearby = {test for name, tests_of in self.test_map.by_qualname.items()
                  if any(name == module or name.startswith(f"{module}.") for module in modules)
                  for test in tests_of}
        first = sorted({test for name in touched for test in self.test_map.tests_for(name)})
        rest = sorted(nearby.difference(first))
        return [*rng.sample(first, len(first)), *rng.sample(rest, len(rest))]
