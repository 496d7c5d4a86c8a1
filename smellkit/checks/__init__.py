"""Structural checks: deterministic assertions stored as data, evaluated on any version of a repo.

Each injection carries checks that pass on the original code and fail on the smelly code, in the
spirit of RefactorBench's AST tests. A check is a kind (registered here with `check_kind`) and its
parameters; evaluating it reads the facts and graphs of the version at hand, never its text, so a
solver's refactoring that removes the smell differently from the original still passes.

The kinds live beside this registry, the generic ones in `generic` and one module per smell; the
injectors only write checks as data. So scoring evaluates them without libcst or the injectors.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from smellkit.models import CheckResult, StructuralCheck

if TYPE_CHECKING:
    from smellkit.analysis.context import Context
    from smellkit.project import Project

CheckFunction = Callable[["Context", dict[str, Any]], tuple[bool, str]]
"""(analyses of the version checked, the check's params) -> (passed, a detail for the reader)."""

ENTRY_POINT_GROUP = "smellkit.checks"
"""Plugins name a module under this entry-point group; importing it registers its kinds."""

BUILTIN_CHECKS = (
    "smellkit.checks.generic",
    "smellkit.checks.feature_envy",
    "smellkit.checks.god_class",
    "smellkit.checks.data_clumps",
    "smellkit.checks.shotgun_surgery",
    "smellkit.checks.dead_code",
    "smellkit.checks.interface_segregation",
    "smellkit.checks.deep_inlining",
    "smellkit.checks.duplicated_code",
)
"""The modules holding the built-in kinds: the generic ones, then one per smell in DESIGN.md's
order. Each registers its kinds with `check_kind` on import."""

_KINDS: dict[str, CheckFunction] = {}


def check_kind(name: str) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check kind under `name` (prefix smell-specific kinds with the smell)."""

    def register(function: CheckFunction) -> CheckFunction:
        if name in _KINDS and _KINDS[name] is not function:
            raise ValueError(f"check kind {name!r} is registered twice")
        _KINDS[name] = function
        return function

    return register


def check_kinds() -> dict[str, CheckFunction]:
    """Every registered kind: the built-in check modules' and the plugins', loaded on first use."""
    _load()
    return dict(_KINDS)


@cache
def _load() -> None:
    for name in BUILTIN_CHECKS:
        importlib.import_module(name)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        point.load()


def evaluate(project: Project | Context, checks: Iterable[StructuralCheck]) -> list[CheckResult]:
    """The result of each check on this version of the repository."""
    from smellkit.analysis.context import Context

    context = project if isinstance(project, Context) else Context(project)
    kinds = check_kinds()
    results: list[CheckResult] = []
    for check in checks:
        function = kinds.get(check.kind)
        if function is None:
            results.append(CheckResult(check=check, passed=False,
                                       detail=f"unknown check kind {check.kind!r}"))
            continue
        passed, detail = function(context, dict(check.params))
        results.append(CheckResult(check=check, passed=passed, detail=detail))
    return results
