"""Structural checks: deterministic assertions stored as data, evaluated on any version of a repo.

Each injection carries checks that pass on the original code and fail on the smelly code, in the
spirit of RefactorBench's AST tests. A check is a kind (registered here with `check_kind`) and its
parameters; evaluating it reads the facts and graphs of the version at hand, never its text, so a
solver's refactoring that removes the smell differently from the original still passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from smellkit.models import CheckResult, StructuralCheck

if TYPE_CHECKING:
    from smellkit.analysis.context import Context
    from smellkit.project import Project

CheckFunction = Callable[["Context", dict[str, Any]], tuple[bool, str]]
"""(analyses of the version checked, the check's params) -> (passed, a detail for the reader)."""

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
    """Every registered kind; importing the injectors registers theirs."""
    from smellkit.injectors.registry import injectors

    injectors()
    return dict(_KINDS)


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


def _exists(context: Context, qualname: str) -> bool:
    return qualname in context.index.definitions or qualname in context.index.modules


# -- generic kinds ------------------------------------------------------------------------------


@check_kind("defined")
def _defined(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    qualname = params["qualname"]
    found = _exists(context, qualname)
    return found, f"{qualname} is {'' if found else 'not '}defined"


@check_kind("not_defined")
def _not_defined(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    found, detail = _defined(context, params)
    return not found, detail


@check_kind("no_finding")
def _no_finding(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    from smellkit.detectors.runner import residue

    names: Sequence[str] = params["qualnames"]
    targets = [location for name in names if (location := context.location(name)) is not None]
    if not targets:
        return True, "none of the names exists any more"
    found = residue(context, params["smell"], targets)
    if not found:
        return True, f"no {params['smell']} finding at {', '.join(names)}"
    return False, "; ".join(f"{item.location.qualname}: {item.message}" for item in found[:3])


@check_kind("max_lines")
def _max_lines(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    qualname, limit = params["qualname"], int(params["lines"])
    definition = context.index.definitions.get(qualname)
    if definition is None:
        return True, f"{qualname} is not defined"
    lines = definition.end_line - definition.start_line + 1
    return lines <= limit, f"{qualname} spans {lines} lines (limit {limit})"


@check_kind("calls")
def _calls(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    caller, callee = params["caller"], params["callee"]
    graph = context.call_graph
    found = graph.has_edge(caller, callee)
    return found, f"{caller} {'calls' if found else 'does not call'} {callee}"


@check_kind("not_calls")
def _not_calls(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    found, detail = _calls(context, params)
    return not found, detail
