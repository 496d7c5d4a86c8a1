"""What the data-clump and shotgun-surgery injector tests share: injections into fixture
repositories, round trips through `verify`, behaviour runs, and surveys of real packages.

A case is a folder `tests/injectors/fixtures/<smell>/<case>/` with the repository in `before/` and
the expected smelly version of every changed file in `after_<difficulty>/`; `test_fixtures.py`
compares them for every injector (SMELLKIT_REGENERATE=1 rewrites the `after_*` folders).
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from smellkit._internal import plugins
from smellkit.errors import InjectionRefused
from smellkit.injectors import registry
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.engine import find_candidates, inject, make_injector, record, verify
from smellkit.injectors.patches import apply_patch
from smellkit.models import DIFFICULTIES, Candidate, Difficulty, Injection
from smellkit.project import Project

FIXTURES = Path(__file__).parent / "fixtures"
NO_FILTER = {"min-file-lines": 0}


def available_injectors(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The built-in registry without injectors whose module is not written yet (the registry
    refuses to load otherwise), and without third-party plugins."""
    registry.injectors.cache_clear()
    names = tuple(item for item in registry.BUILTIN_INJECTORS
                  if importlib.util.find_spec(item.partition(":")[0]) is not None)
    monkeypatch.setattr(registry, "BUILTIN_INJECTORS", names)
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    yield
    registry.injectors.cache_clear()


def load(root: Path) -> Project:
    return Project.load(root, use_cache=False, jobs=1)


def case_dir(smell: str, case: str) -> Path:
    return FIXTURES / smell / case


def inject_case(smell: str, case: str, difficulty: Difficulty,
                seed: int = 0) -> tuple[Project, Injection]:
    project = load(case_dir(smell, case) / "before")
    result = inject(project, smell, difficulty, seed=seed, options=NO_FILTER)
    assert isinstance(result, Injection), result
    return project, result


def smelly_copy(root: Path, injection: Injection, scratch: Path) -> Path:
    """A copy of the repository at `root` with the smelly patch applied."""
    copy = scratch / "smelly"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    apply_patch(copy, injection.smelly_patch)
    return copy


def run_main(root: Path, module: str) -> str:
    """What `python -m module` prints, run from `root`."""
    result = subprocess.run([sys.executable, "-m", module], cwd=root, capture_output=True,
                            text=True, timeout=60, check=True,
                            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin",
                                 "PYTHONDONTWRITEBYTECODE": "1"})
    return result.stdout


def assert_round_trip(root: Path, injection: Injection, project: Project) -> None:
    result = verify(root, injection, original=project)
    failed_original = [item.detail for item in result.checks_original if not item.passed]
    passed_smelly = [item.detail for item in result.checks_smelly if item.passed]
    assert result.ok, (result.problems, result.model_dump(exclude={"checks_original",
                                                                   "checks_smelly"}),
                       failed_original, passed_smelly)
    assert result.imports is True
    assert result.checks_original and result.checks_smelly


# -- real packages ----------------------------------------------------------------------------


@dataclass
class Survey:
    """Per difficulty: candidates offered, injections made, and those whose round trip holds."""

    candidates: int = 0
    unfiltered: int = 0
    made: dict[str, int] = field(default_factory=dict)
    verified: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    refusals: dict[str, list[str]] = field(default_factory=dict)

    def row(self, name: str) -> str:
        cells = "  ".join(f"{level} {self.made.get(level, 0)}/{self.verified.get(level, 0)}"
                          for level in DIFFICULTIES)
        return (f"{name}: {self.candidates} candidates ({self.unfiltered} without the 500-line "
                f"filter); made/verified: {cells}")


def survey(root: Path, smell: str, *, per_difficulty: int = 3) -> Survey:
    """Try every candidate (without the file-size filter) at every difficulty, seeded as the
    engine seeds them; verify up to `per_difficulty` of the injections made at each."""
    project = Project.load(root)
    result = Survey()
    result.candidates = len(find_candidates(project, smell))
    pool: list[Candidate] = find_candidates(project, smell, options=NO_FILTER)
    result.unfiltered = len(pool)
    injector = make_injector(smell, NO_FILTER)
    context = InjectionContext(project)  # one context: the analyses are built once
    for difficulty in DIFFICULTIES:
        made = verified = 0
        for candidate in pool:
            rng = random.Random(f"0|{smell}|{difficulty}|{candidate.target.qualname}")
            try:
                edit = injector.inject(context, candidate, difficulty, rng)
                outcome = record(context, injector, candidate, difficulty, 0, edit)
            except InjectionRefused as refusal:
                result.refusals.setdefault(difficulty, []).append(
                    f"{candidate.target.qualname}: {refusal.message}")
                continue
            made += 1
            if made > per_difficulty:
                continue
            check = verify(root, outcome, original=project)
            if check.ok:
                verified += 1
            else:
                result.failures.append(f"{difficulty} {outcome.id}: {check.problems} "
                                       f"{check.model_dump(exclude={'checks_original'})}")
        result.made[difficulty] = made
        result.verified[difficulty] = verified
    return result
