"""Shared by the injector tests: fixture repositories before and after, one injection at a
chosen candidate, the round-trip properties, behaviour runs, and counts on real code.

A fixture is `tests/injectors/fixtures/<smell>/<case>/before/` (the clean repository) and
`after_<difficulty>/` (the files the injection changes or creates, as expected).
SMELLKIT_REGENERATE=1 rewrites the `after_` folders from the injector's output, to review with
`git diff`.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext, Injector
from smellkit.injectors.engine import find_candidates, inject, verify
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.models import DIFFICULTIES, Candidate, Difficulty, Injection, InjectionSkip
from smellkit.project import Project

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = {"min-file-lines": 0}


def load(root: Path) -> Project:
    return Project.load(root, use_cache=False, jobs=1)


def attempt(injector: Injector[Any], context: InjectionContext, candidate: Candidate,
            difficulty: Difficulty, rng: random.Random | None = None) -> Edit | InjectionRefused:
    """The injector's edit, or its refusal (the exception the engine turns into a skip)."""
    try:
        return injector.inject(context, candidate, difficulty, rng or random.Random(0))
    except InjectionRefused as refusal:
        return refusal


def injected(root: Path, smell: str, difficulty: Difficulty,
             target: str | None = None) -> Injection:
    """The injection at the candidate centred on `target`, or at the first sampled one."""
    project = load(root)
    candidate = None
    if target is not None:
        (candidate,) = [item for item in find_candidates(project, smell, options=SMALL)
                        if item.target.qualname == target]
    outcome = inject(project, smell, difficulty, candidate=candidate, options=SMALL)
    assert not isinstance(outcome, InjectionSkip), outcome.reason
    return outcome


def smelly_files(root: Path, injection: Injection, scratch: Path) -> dict[str, str | None]:
    """The text of every file the smelly patch touches (None: deleted), after applying it."""
    copy = scratch / "smelly"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    apply_patch(copy, injection.smelly_patch)
    return {path: (copy / path).read_text(encoding="utf-8") if (copy / path).exists() else None
            for path in patched_paths(injection.smelly_patch)}


def check_after(case: Path, difficulty: Difficulty, files: dict[str, str | None]) -> None:
    """The changed files equal the stored `after_<difficulty>` files (or regenerate them); a
    deleted file is absent there and listed in `after_<difficulty>/DELETED`."""
    after = case / f"after_{difficulty}"
    if os.environ.get("SMELLKIT_REGENERATE"):
        shutil.rmtree(after, ignore_errors=True)
        for path, text in files.items():
            target = after / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if text is not None:
                target.write_text(text, encoding="utf-8")
        deleted = sorted(path for path, text in files.items() if text is None)
        if deleted:
            (after / "DELETED").write_text("\n".join(deleted) + "\n", encoding="utf-8")
    stored = {path.relative_to(after).as_posix(): path.read_text(encoding="utf-8")
              for path in after.rglob("*") if path.is_file() and path.name != "DELETED"
              and "__pycache__" not in path.parts}
    deleted_file = after / "DELETED"
    deleted = deleted_file.read_text(encoding="utf-8").split() if deleted_file.exists() else []
    assert {path: text for path, text in files.items() if text is not None} == stored
    assert sorted(path for path, text in files.items() if text is None) == deleted


def assert_round_trip(root: Path, injection: Injection, original: Project | None = None) -> None:
    """Compiles and imports, flagged only when smelly, restored exactly, checks flip."""
    result = verify(root, injection, original=original)
    assert result.compiles and result.imports is not False, result.problems
    assert result.flagged_smelly, "the detector misses the injected smell"
    assert not result.flagged_original, "the detector already flags the original"
    assert result.restores_exactly, result.problems
    assert all(item.passed for item in result.checks_original), result.checks_original
    assert not any(item.passed for item in result.checks_smelly), result.checks_smelly
    assert result.ok, result.problems


def real_code_counts(root: Path, smell: str, sample: int) -> dict[str, dict[str, int]]:
    """Per difficulty: candidates, edits the injector makes (that compile), and how many of the
    first `sample` of them pass every round-trip property once recorded by the engine."""
    from smellkit.injectors.base import InjectionContext
    from smellkit.injectors.engine import make_injector

    project = Project.load(root)
    found = find_candidates(project, smell)
    injector = make_injector(smell)
    context = InjectionContext(project)  # one context: each file is parsed by libcst once
    counts: dict[str, dict[str, int]] = {}
    for difficulty in DIFFICULTIES:
        row = {"candidates": len(found), "injected": 0, "sampled": 0, "verified": 0}
        for candidate in found:
            edit = attempt(injector, context, candidate, difficulty)
            if not isinstance(edit, Edit):
                continue
            for path, text in edit.changes.items():
                compile(text or "", path, "exec", dont_inherit=True)
            row["injected"] += 1
            if row["sampled"] < sample:
                outcome = inject(project, smell, difficulty, candidate=candidate)
                assert not isinstance(outcome, InjectionSkip), outcome.reason
                result = verify(root, outcome, original=project)
                assert result.ok, (outcome.id, result.problems, result.model_dump())
                row["sampled"] += 1
                row["verified"] += 1
        counts[difficulty] = row
    return counts


def behaviour(root: Path, probe: str | list[str]) -> str:
    """What a probe prints when run in a fresh interpreter importing from `root`: a script, or
    expressions `module:expression` whose repr is printed one per line."""
    if isinstance(probe, list):
        probe = ("import importlib\n"
                 f"for text in {probe!r}:\n"
                 "    module, _, rest = text.partition(':')\n"
                 "    print(repr(eval(rest, vars(importlib.import_module(module)))))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True,
                            text=True, timeout=60, check=True,
                            env={**os.environ, "PYTHONPATH": str(root),
                                 "PYTHONDONTWRITEBYTECODE": "1"})
    return result.stdout


def same_behaviour(root: Path, injection: Injection, scratch: Path,
                   probe: str | list[str]) -> None:
    """The smelly repository prints what the original prints."""
    copy = scratch / "behaviour"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    apply_patch(copy, injection.smelly_patch)
    before = behaviour(root, probe)
    assert before.strip()
    assert behaviour(copy, probe) == before


def real_code(root: Path, smell: str, tries: int, verified: int) -> dict[str, dict[str, int]]:
    """Per difficulty: candidates, injections made among the first `tries` candidates (seeded
    order), and how many of the first `verified` of them pass every round-trip property (each
    one that is verified must pass)."""
    project = load(root)
    candidates = find_candidates(project, smell, options=SMALL)
    counts: dict[str, dict[str, int]] = {}
    for difficulty in DIFFICULTIES:
        made: list[Injection] = []
        for candidate in candidates[:tries]:
            outcome = inject(project, smell, difficulty, candidate=candidate, options=SMALL)
            if isinstance(outcome, Injection):
                made.append(outcome)
        for injection in made[:verified]:
            assert_round_trip(root, injection, original=project)
        counts[difficulty] = {"candidates": len(candidates), "tried": min(tries,
                                                                          len(candidates)),
                              "injected": len(made), "verified": min(verified, len(made))}
    return counts


def own_tests_pass(top: Path, injection: Injection, scratch: Path,
                   arguments: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """The project's own test suite (an sdist's `tests/`) run on the smelly version: the
    injection must not change behaviour the project tests. Deprecation warnings are not errors
    here: an older release's tests meet a newer pytest. `arguments` go to pytest (`--ignore`
    for tests whose optional dependency is missing)."""
    copy = scratch / "project"
    shutil.copytree(top, copy, ignore=shutil.ignore_patterns("__pycache__", ".complete"))
    apply_patch(copy / "src", injection.smelly_patch)
    environment = {**os.environ, "PYTHONPATH": str(copy / "src")}
    environment.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", "-W", "ignore::DeprecationWarning", *arguments, "tests"], cwd=copy,
        env=environment, capture_output=True, text=True, check=False)


def first_injection(root: Path, smell: str, difficulty: Difficulty) -> Injection:
    """The first injection, in seeded candidate order, at this difficulty."""
    project = load(root)
    for candidate in find_candidates(project, smell, options=SMALL):
        outcome = inject(project, smell, difficulty, candidate=candidate, options=SMALL)
        if isinstance(outcome, Injection):
            return outcome
    raise AssertionError(f"no {difficulty} {smell} injection in {root}")


def real_code_yield(package: tuple[str, str], smell: str) -> tuple[int, dict[str, str]]:
    """On a PyPI package's `src/`: how many candidates the injector offers, and for each
    difficulty the id of the first injection (candidates in their sampled order) that passes
    every round-trip property, "" when none does. A success that fails a property fails."""
    from smellkit.injectors.base import InjectionContext
    from smellkit.injectors.engine import find_candidates, make_injector, record
    from smellkit.models import DIFFICULTIES
    from tests.support.pypi import sdist

    root = sdist(*package) / "src"
    project = Project.load(root)
    context = InjectionContext(project)
    injector = make_injector(smell, SMALL)
    candidates = find_candidates(project, smell, options=SMALL, context=context)
    found: dict[str, str] = {}
    for difficulty in DIFFICULTIES:
        found[difficulty] = ""
        for candidate in candidates:
            try:
                outcome = record(context, injector, candidate, difficulty, 0,
                                 injector.inject(context, candidate, difficulty,
                                                 random.Random(0)))
            except InjectionRefused:
                continue
            if isinstance(outcome, Injection):
                result = verify(root, outcome, original=project)
                assert result.ok, (outcome.id, result.problems, result.checks_original,
                                   result.checks_smelly, result.flagged_smelly,
                                   result.flagged_original)
                found[difficulty] = outcome.id
                break
    return len(candidates), found
