"""Generic check kinds, phrased on qualified names and the call graph.

- `defined` / `not_defined` {qualname}: a definition or module of that name exists (or not).
- `no_finding` {smell, qualnames}: the smell's detector reports nothing at those names (passes
  when none of them exists any more).
- `max_lines` {qualname, lines}: the definition spans at most that many lines (or is gone).
- `calls` / `not_calls` {caller, callee}: the call graph has that edge (or not).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from smellkit.analysis.context import Context
from smellkit.checks import check_kind


def _exists(context: Context, qualname: str) -> bool:
    return qualname in context.index.definitions or qualname in context.index.modules


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
