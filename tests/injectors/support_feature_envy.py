"""Shared by the feature envy and god class injector tests: fixture repositories before and
after, and the round-trip properties of an injection.

A fixture is `tests/injectors/fixtures/<smell>/<case>/before/` (the clean repository) and
`after_<difficulty>/` (the files the injection changes or creates, as expected; a deleted file is
absent and listed in `after_<difficulty>/DELETED`). SMELLKIT_REGENERATE=1 rewrites the `after_`
folders from the injector's output, to review with `git diff`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from smellkit.injectors.engine import inject, verify
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.models import Difficulty, Injection, InjectionSkip
from smellkit.project import Project

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = {"min-file-lines": 0}


def injected(root: Path, smell: str, difficulty: Difficulty) -> Injection:
    outcome = inject(Project.load(root), smell, difficulty, options=SMALL)
    assert not isinstance(outcome, InjectionSkip), outcome.reason
    return outcome


def smelly_files(root: Path, injection: Injection, scratch: Path) -> dict[str, str | None]:
    """The text of every file the smelly patch touches (None: deleted), after applying it."""
    copy = scratch / "smelly"
    shutil.copytree(root, copy)
    apply_patch(copy, injection.smelly_patch)
    return {path: (copy / path).read_text(encoding="utf-8") if (copy / path).exists() else None
            for path in patched_paths(injection.smelly_patch)}


def check_after(case: Path, difficulty: Difficulty, files: dict[str, str | None]) -> None:
    """The changed files equal the stored `after_<difficulty>` files (or regenerate them)."""
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
              for path in after.rglob("*") if path.is_file() and path.name != "DELETED"}
    deleted_file = after / "DELETED"
    deleted = deleted_file.read_text(encoding="utf-8").split() if deleted_file.exists() else []
    assert {path: text for path, text in files.items() if text is not None} == stored
    assert sorted(path for path, text in files.items() if text is None) == deleted


def assert_round_trip(root: Path, injection: Injection) -> None:
    """Compiles and imports, flagged only when smelly, restored exactly, checks flip."""
    result = verify(root, injection)
    assert result.compiles and result.imports is not False, result.problems
    assert result.flagged_smelly, "the detector misses the injected smell"
    assert not result.flagged_original
    assert result.restores_exactly, result.problems
    assert all(item.passed for item in result.checks_original), result.checks_original
    assert not any(item.passed for item in result.checks_smelly), result.checks_smelly
    assert result.ok, result.problems


def behaviour(root: Path, code: str) -> str:
    """What `code` prints when run against the repository at `root` (a fresh interpreter)."""
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                            text=True, timeout=60, check=True,
                            env={**os.environ, "PYTHONPATH": str(root),
                                 "PYTHONDONTWRITEBYTECODE": "1"})
    return result.stdout


def same_behaviour(root: Path, injection: Injection, scratch: Path, code: str) -> None:
    """The smelly repository prints what the original prints."""
    copy = scratch / "behaviour"
    shutil.copytree(root, copy)
    apply_patch(copy, injection.smelly_patch)
    before = behaviour(root, code)
    assert before.strip()
    assert behaviour(copy, code) == before


def real_code_yield(package: tuple[str, str], smell: str) -> tuple[int, dict[str, str]]:
    """On a PyPI package's `src/`: how many candidates the injector offers, and for each
    difficulty the id of the first injection (candidates in their sampled order) that passes
    every round-trip property, "" when none does. A success that fails a property fails."""
    import random

    from smellkit.injectors.base import Edit, InjectionContext
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
            edit = injector.inject(context, candidate, difficulty, random.Random(0))
            outcome = record(context, injector, candidate, difficulty, 0, edit) \
                if isinstance(edit, Edit) else edit
            if isinstance(outcome, Injection):
                result = verify(root, outcome, original=project)
                assert result.ok, (outcome.id, result.problems, result.checks_original,
                                   result.checks_smelly, result.flagged_smelly,
                                   result.flagged_original)
                found[difficulty] = outcome.id
                break
    return len(candidates), found
