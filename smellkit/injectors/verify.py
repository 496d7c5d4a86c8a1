"""Round-trip verification of an injection record, on a scratch copy of the repository.

The properties every case must have: the smelly code compiles and imports; the smell's detector
flags the target in the smelly version and not in the original; the ground-truth patch restores the
original byte for byte; every structural check passes on the original and fails on the smell.

Nothing is read from or written to the user's fact cache: the copy lives in a temporary folder,
removed afterwards, and its files that the patch leaves alone take the original's facts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel

from smellkit.checks import evaluate
from smellkit.detectors.runner import residue
from smellkit.errors import PatchError
from smellkit.facts import FileFacts
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.models import CheckResult, Injection
from smellkit.project import Project, Survey
from smellkit.sandbox.checkout import ignored_in_copies


class RoundTrip(BaseModel):
    """What `verify` found; `ok` when every property holds."""

    compiles: bool = False
    imports: bool | None = None
    """None when the original itself cannot be imported here (a missing dependency)."""
    flagged_smelly: bool = False
    flagged_original: bool = True
    restores_exactly: bool = False
    checks_original: list[CheckResult] = []
    checks_smelly: list[CheckResult] = []
    problems: list[str] = []

    @property
    def ok(self) -> bool:
        return (self.compiles and self.imports is not False and self.flagged_smelly
                and not self.flagged_original and self.restores_exactly
                and all(item.passed for item in self.checks_original)
                and not any(item.passed for item in self.checks_smelly) and not self.problems)


def _source_root(project: Project, paths: list[str]) -> Path:
    """The folder the patched modules' names count from (`src/` in a src layout)."""
    chosen = [facts for facts in project.files if facts.path in paths] or project.files
    for facts in chosen:
        depth = facts.module.count(".") + 1 + (1 if facts.is_package else 0)
        parts = facts.path.split("/")
        return project.root.joinpath(*parts[: len(parts) - depth])
    return project.root


def _imports(folder: Path, modules: list[str]) -> str | None:
    """None if every module imports in a fresh interpreter from `folder`, else the error."""
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    result = subprocess.run([sys.executable, "-c", code, *modules], cwd=folder,
                            capture_output=True, text=True, timeout=120, check=False,
                            env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin",
                                 "PYTHONDONTWRITEBYTECODE": "1"})
    if result.returncode == 0:
        return None
    return (result.stderr.strip().splitlines() or ["import failed"])[-1]


def _flagged(project: Project, smell: str, qualnames: list[str]) -> bool:
    from smellkit.analysis.context import Context

    context = Context(project)
    targets = [location for name in qualnames if (location := context.location(name))]
    return bool(targets) and bool(residue(context, smell, targets))


def _same(original: Path, copy: Path, paths: list[str]) -> list[str]:
    differ = []
    for path in paths:
        left, right = original / path, copy / path
        if left.exists() != right.exists() or (left.exists() and
                                               left.read_bytes() != right.read_bytes()):
            differ.append(path)
    return differ


def _unchanged(original: Project, copy: Survey, changed: set[str]) -> dict[str, FileFacts]:
    """The original's facts of the files the patch leaves alone, by the copy's content keys:
    same path, module name and bytes, so the same facts (`original` is `root` as it is now)."""
    by_path = {facts.path: facts for facts in original.files}
    known: dict[str, FileFacts] = {}
    for source, key, _ in copy.inventory.items:
        facts = by_path.get(source.path)
        if facts is not None and source.path not in changed and facts.module == source.module \
                and facts.is_package == source.is_package:
            known[key] = facts
    return known


def smelly_version(original: Project, copy: Path, injection: Injection) -> Project:
    """The project of `copy`, a copy of `original`'s folder with the smelly patch applied;
    files the patch leaves alone take the original's facts, so only the patched ones are read."""
    survey = Survey.take(copy, config=original.config, use_cache=False)
    return Project.from_survey(survey, known=_unchanged(
        original, survey, set(patched_paths(injection.smelly_patch))))


def passing_on_smelly(original: Project, copy: Path, injection: Injection) -> list[str]:
    """The case's structural checks that already pass on the smelly version at `copy`: each
    would score a patch that changes nothing as a fix (the smell's detector does not see
    what was injected, or a check asks for what the smelly code already does)."""
    return [f"{item.check.description} ({item.detail})" if item.detail else item.check.description
            for item in evaluate(smelly_version(original, copy, injection), injection.checks)
            if item.passed]


def verify(root: str | Path, injection: Injection, *, original: Project | None = None,
           check_imports: bool = True) -> RoundTrip:
    """Check every round-trip property of `injection`, made from the repository at `root`
    (loaded without the fact cache unless `original`, its project, is given)."""
    root = Path(root)
    original = original or Project.load(root, use_cache=False)
    result = RoundTrip()
    target_names = [target.location.qualname for target in injection.targets]
    result.checks_original = evaluate(original, injection.checks)
    result.flagged_original = _flagged(
        original, injection.smell, [injection.candidate.target.qualname,
                                    *(name for name in target_names
                                      if name in original.index.definitions)])
    with tempfile.TemporaryDirectory(prefix="smellkit-verify-") as scratch:
        copy = Path(scratch) / "repo"
        shutil.copytree(root, copy, ignore=ignored_in_copies, symlinks=True)
        try:
            apply_patch(copy, injection.smelly_patch)
        except PatchError as error:
            result.problems.append(f"smelly patch: {error}")
            return result
        changed = [path for path in patched_paths(injection.smelly_patch)
                   if (copy / path).exists() and path.endswith(".py")]
        try:
            for path in changed:
                compile((copy / path).read_bytes(), path, "exec", dont_inherit=True)
            result.compiles = True
        except SyntaxError as error:
            result.problems.append(f"{error.filename}: {error.msg} (line {error.lineno})")
        smelly = smelly_version(original, copy, injection)
        modules = sorted({facts.module for facts in smelly.files if facts.path in changed})
        existing = [name for name in modules if name in original.index.modules]
        clean = check_imports and _imports(_source_root(original, changed), existing) is None
        if modules and clean:
            failure = _imports(_source_root(smelly, changed), modules)
            result.imports = failure is None
            if failure:
                result.problems.append(f"smelly code does not import: {failure}")
        result.flagged_smelly = _flagged(smelly, injection.smell, target_names)
        result.checks_smelly = evaluate(smelly, injection.checks)
        try:
            apply_patch(copy, injection.ground_truth_patch)
        except PatchError as error:
            result.problems.append(f"ground-truth patch: {error}")
            return result
        differ = _same(root, copy, patched_paths(injection.smelly_patch))
        result.restores_exactly = not differ
        if differ:
            result.problems.append(f"not restored byte for byte: {', '.join(differ)}")
    return result

