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
from collections.abc import Callable, Sequence
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
from smellkit.bench.selection import Need, cover, member_needs, selection_budget, target_methods
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
TARGET_WEIGHT = 4
"""What running a target (or a target method) is worth against running other involved code."""
TARGET_DEPTH = 3
"""Tests wanted per target and per changed function when the budget allows: one may run the
code without checking what it returns, a second or third usually does."""
POOL_LIMIT = 300
"""Tests run under coverage on the smelly version when selecting again (moved or copied code)."""
VALIDATION_FORMAT = 8
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
    """Tests per target method (SmellBench: at most 10 per method): a case selects at most
    this many times its target methods (`selection.target_methods`)."""
    project: Project | None = None
    """The original's project (of the spec's source path), to hold each smelly version to its
    structural checks; None leaves that out."""
    _original: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _runs: dict[tuple[str, ...], tuple[TestRun, float]] = field(default_factory=dict)
    _run_locks: dict[tuple[str, ...], threading.Lock] = field(default_factory=dict)

    def budget(self, injection: Injection) -> int:
        """The most tests the case may select: `limit` per target method."""
        return selection_budget(injection, self.limit)

    def select(self, injection: Injection) -> tuple[str, ...]:
        """Few tests, within the case's budget, that run its targets, the definitions it
        involves (by name, so definitions that keep their name in the smelly version count too)
        and its red herrings (the code an agent must leave alone: a test has to notice when it
        does not), chosen by greedy set cover over the original's test map (`selection`). A
        class or a changed module without tests of its own stands for the covered code inside
        it; a module the case does not change (where a helper it repeats lives) for nothing:
        its tests would run unrelated code."""
        return cover(self._map_needs(injection), self.budget(injection),
                     seed=f"{self.seed}:{injection.id}", durations=self.test_map.durations)

    def _map_needs(self, injection: Injection) -> dict[str, Need]:
        """What `select` wants run, by the original's test map."""
        changed = set(injection.files)
        targets = {injection.candidate.target.qualname,
                   *(item.location.qualname for item in injection.targets),
                   *target_methods(injection)}
        others = {*(item.qualname for item in injection.locations
                    if item.kind != "module" or item.path in changed),
                  *(item.qualname for item in injection.red_herrings)} - targets
        needs: dict[str, Need] = {}
        members: dict[str, Need] = {}
        for name in sorted(targets | others):
            weight = TARGET_WEIGHT if name in targets else 1
            tests = self.test_map.tests_for(name)
            if tests:
                needs[name] = Need(frozenset(tests), depth=TARGET_DEPTH if name in targets
                                   else 1, weight=weight)
            else:
                for member, need in member_needs(name, self.test_map.by_qualname,
                                                 weight=weight).items():
                    if need.weight >= members.get(member, need).weight:
                        members[member] = need
        for member, need in members.items():
            needs.setdefault(member, need)
        return needs

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
        uncaught: set[str] = set()
        if not problems:
            adequacy = self._break_each(code, copy, found)
            problems = adequacy.problems(MIN_CHANGED_LINES_EXECUTED)
            if not problems:
                return tests, self._bounded(injection, adequacy)
            uncaught = {item.qualname for item in adequacy.functions if not item.sensitive}
        wider = self._reselect(injection, code, copy, tests, smelly, uncaught)
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
        return tests, self._bounded(injection, adequacy).model_copy(update={"reselected": True})

    def _bounded(self, injection: Injection, adequacy: TestAdequacy) -> TestAdequacy:
        """The record with the bound the selection kept to, and what it was counted from."""
        return adequacy.model_copy(update={"target_methods": target_methods(injection),
                                           "test_budget": self.budget(injection)})

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
                  tests: tuple[str, ...], smelly: CoveredRun, uncaught: set[str]
                  ) -> tuple[tuple[str, ...], LineContexts] | None:
        """A new selection within the case's budget, by greedy set cover over the smelly
        version's own coverage: of the tests selected first and a pool (the original's tests of
        the code the patch touches first, then of the files it changes; at most `POOL_LIMIT`)
        run under coverage. The cover wants each live target run, each changed function run by
        up to `TARGET_DEPTH` tests (by as many as the budget allows when `uncaught`: breaking
        it went unnoticed), each live changed line run, and what `select` wants (by the
        original's map). Also the lines both runs ran, to estimate the new selection's coverage
        before running it. None when the pool finds nothing new."""
        pool = [test for test in self._pool(injection) if test not in tests][:POOL_LIMIT]
        if not pool:
            return None
        wide = self.run_covered(self.env, copy, self.spec, pool, self.runner)
        lines: LineContexts = {}
        for run in (smelly, wide):
            for path, by_line in run.lines.items():
                merged = lines.setdefault(path, {})
                for line, contexts in by_line.items():
                    merged[line] = tuple(sorted({*merged.get(line, ()), *contexts}))
        passing = {*smelly.run.passed, *wide.run.passed}
        found = measure(code, injection, lines, passing)
        budget = self.budget(injection)
        needs: dict[str, Need] = {}
        for name in found.adequacy.live_targets():
            runners = {test for function, tests_of in found.runners.items()
                       if function == name or function.startswith(f"{name}.")
                       for test in tests_of}
            needs[f"target {name}"] = Need(frozenset(runners), weight=TARGET_WEIGHT)
        for item in found.adequacy.functions:
            needs[f"function {item.qualname}"] = Need(
                frozenset(item.tests), weight=TARGET_WEIGHT,
                depth=budget if item.qualname in uncaught else TARGET_DEPTH)
        runs = statement_runs(code, lines, passing)
        for counted in found.counted:
            path, _, number = counted.rpartition(":")
            ran = runs.get((path, int(number)), set())
            if "" not in ran:  # code run while the tests load needs no test of its own
                needs[f"line {counted}"] = Need(frozenset(ran))
        needs.update(self._map_needs(injection))  # what the first selection wanted, too
        chosen = cover(needs, budget, seed=f"{self.seed}:{injection.id}:again",
                       durations=self.test_map.durations)
        if not chosen or set(chosen) == set(tests):
            return None
        return chosen, lines

    def _pool(self, injection: Injection) -> list[str]:
        """Healthy tests of the original likely to run the smelly code, most likely first: the
        tests of the code the ground-truth patch touches, then every test of what `select`
        wants run (of which the first selection took only a few), then those of the modules
        the case changes."""
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
        wanted = sorted({test for need in self._map_needs(injection).values()
                         for test in need.tests}.difference(first))
        rest = sorted(nearby.difference(first, wanted))
        return [*rng.sample(first, len(first)), *rng.sample(wanted, len(wanted)),
                *rng.sample(rest, len(rest))]
