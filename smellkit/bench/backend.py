"""The layers the build stands on (sandbox, injectors, project loading), behind one seam.

`build` only talks to a `Backend`; the default one calls smellkit's sandbox and injection engine.
Tests swap single members for fakes (a hanging test run, a patch that does not apply) without
monkeypatching modules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smellkit.config import RepoSpec
    from smellkit.injectors.base import InjectionContext
    from smellkit.models import (
        Candidate,
        CandidateReport,
        Difficulty,
        Finding,
        Injection,
        InjectionFailure,
        InjectionSkip,
    )
    from smellkit.project import LoadOptions, Project
    from smellkit.sandbox.environment import Environment
    from smellkit.sandbox.runner import Runner
    from smellkit.sandbox.testmap import TestMap
    from smellkit.sandbox.testrun import CoveredRun, TestRun

Options = Mapping[str, Any] | None
LineCoverage = Mapping[str, float] | None
"""The share of each definition's statements the tests run (`TestMap.line_coverage`)."""


def _smells() -> list[str]:
    from smellkit.injectors.registry import injectors

    return list(injectors())


def _fetch(spec: RepoSpec, cache: Path) -> Path:
    from smellkit.sandbox.checkout import fetch

    return fetch(spec, cache)


def _prepare(spec: RepoSpec, checkout: Path, cache: Path) -> Environment:
    from smellkit.sandbox.environment import prepare
    from smellkit.sandbox.runner import LocalRunner

    return prepare(spec, checkout, cache, LocalRunner())  # installing needs the network


def _test_map(spec: RepoSpec, env: Environment, checkout: Path, runner: Runner,
              seed: int) -> TestMap:
    from smellkit.sandbox.testmap import build_test_map

    return build_test_map(spec, env, checkout, runner, seed=seed)


def _runner(name: str, spec: RepoSpec, env: Environment, cache: Path) -> Runner:
    from smellkit.sandbox.runners import make_runner

    return make_runner(name, cache)


def load_for_build(path: Path | LoadOptions) -> Project:
    """The repository as a build analyses it: with the repeatable inference budget, so that its
    cases depend only on the code (the smelly versions inherit this configuration), whatever
    `[tool.smellkit]` says. `smellkit candidates` and `inject` load the same way."""
    from smellkit.config import REPEATABLE_INFERENCE_BUDGET
    from smellkit.project import LoadOptions, Project

    options = LoadOptions.of(path)
    config = options.configuration().merged(inference_budget=REPEATABLE_INFERENCE_BUDGET)
    return Project.load(options.model_copy(update={"config": config}))


_CONTEXTS: dict[int, InjectionContext] = {}
_CONTEXTS_LOCK = threading.Lock()


def _context(project: Project, covered: frozenset[str],
             line_coverage: LineCoverage) -> InjectionContext:
    """One injection context per project and coverage, shared by every smell and candidate:
    parsed files and analyses are reused (the engine guarantees the same results)."""
    from smellkit.injectors.base import InjectionContext

    with _CONTEXTS_LOCK:
        found = _CONTEXTS.get(id(project))
        if found is None or found.project is not project or found.covered != covered or \
                found.line_coverage != line_coverage:
            _CONTEXTS.clear()  # one repository at a time: let the previous one go
            found = _CONTEXTS[id(project)] = InjectionContext(
                project, covered=covered, line_coverage=line_coverage)
        return found


def _find_candidates(project: Project, smell: str, covered: frozenset[str],
                     line_coverage: LineCoverage, seed: int, options: Options,
                     exclude: Sequence[str] | None,
                     ) -> tuple[list[Candidate], CandidateReport]:
    from smellkit.injectors import engine

    return engine.discover(project, smell, options=options, covered=covered,
                           line_coverage=line_coverage, seed=seed,
                           context=_context(project, covered, line_coverage), exclude=exclude)


def _findings(project: Project, smell: str) -> list[Finding]:
    from smellkit.detectors.runner import run_detectors

    return run_detectors(project, [smell], respect_suppressions=False, hedged=True)


def _check_options(options: Mapping[str, Mapping[str, Any]], path: Path | None) -> None:
    from smellkit.injectors import engine

    engine.check_options(options, path=path)


def _inject(project: Project, smell: str, difficulty: Difficulty, candidate: Candidate,
            covered: frozenset[str], line_coverage: LineCoverage, seed: int,
            options: Options) -> Injection | InjectionSkip | InjectionFailure:
    from smellkit.injectors import engine

    return engine.inject(project, smell, difficulty, candidate=candidate, seed=seed,
                         options=options, covered=covered, line_coverage=line_coverage,
                         context=_context(project, covered, line_coverage))


def _run_tests(env: Environment, root: Path, spec: RepoSpec, tests: Sequence[str],
               runner: Runner) -> TestRun:
    from smellkit.sandbox.testrun import run_tests

    return run_tests(env, root, spec, tests, runner)


def _run_covered(env: Environment, root: Path, spec: RepoSpec, tests: Sequence[str],
                 runner: Runner) -> CoveredRun:
    from smellkit.sandbox.testrun import run_tests_covered

    return run_tests_covered(env, root, spec, tests, runner)


def _run_until_failure(env: Environment, root: Path, spec: RepoSpec, tests: Sequence[str],
                       runner: Runner) -> TestRun:
    from smellkit.sandbox.testrun import run_tests

    return run_tests(env, root, spec, tests, runner, first_failure=True)


def _apply_patch(root: Path, patch: str) -> None:
    from smellkit.injectors.patches import apply_patch

    apply_patch(root, patch)


def _copy_tree(src: Path, dest: Path) -> Path:
    from smellkit.sandbox.checkout import copy_tree

    return copy_tree(src, dest)


@dataclass(frozen=True)
class Backend:
    """Every outside step of a build, as plain callables."""

    smells: Callable[[], list[str]] = _smells
    fetch: Callable[[RepoSpec, Path], Path] = _fetch
    prepare: Callable[[RepoSpec, Path, Path], Environment] = _prepare
    runner: Callable[[str, RepoSpec, Environment, Path], Runner] = _runner
    test_map: Callable[[RepoSpec, Environment, Path, Runner, int], TestMap] = _test_map
    load_project: Callable[[Path], Project] = load_for_build
    findings: Callable[[Project, str], list[Finding]] = _findings
    """The findings of one smell on a project (the original's, once per repository and
    smell)."""
    check_options: Callable[[Mapping[str, Mapping[str, Any]], Path | None],
                            None] = _check_options
    find_candidates: Callable[[Project, str, frozenset[str], LineCoverage, int, Options,
                               Sequence[str] | None],
                              tuple[list[Candidate], CandidateReport]] = _find_candidates
    """Candidates of one smell: the covered qualnames and their line coverage (test map),
    the seed, the injector's options, the exclusion globs."""
    inject: Callable[[Project, str, Difficulty, Candidate, frozenset[str], LineCoverage, int,
                      Options], Injection | InjectionSkip | InjectionFailure] = _inject
    run_tests: Callable[[Environment, Path, RepoSpec, Sequence[str], Runner],
                        TestRun] = _run_tests
    run_covered: Callable[[Environment, Path, RepoSpec, Sequence[str], Runner],
                          CoveredRun] = _run_covered
    """The tests under coverage, a context per test (how well they run the smelly code)."""
    run_until_failure: Callable[[Environment, Path, RepoSpec, Sequence[str], Runner],
                                TestRun] = _run_until_failure
    """The tests, stopping at the first that fails (does any notice a broken function?)."""
    apply_patch: Callable[[Path, str], None] = _apply_patch
    copy_tree: Callable[[Path, Path], Path] = _copy_tree


def default_backend() -> Backend:
    return Backend()
