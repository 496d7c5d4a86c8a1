"""Structural checks of deep inlining.

- `deep_inlining.calls_one_of` {caller, callees}: the caller calls at least one of the callees
  (a helper the injection moved, which may live where it was or where it moved).
"""

from __future__ import annotations

from typing import Any

from smellkit.analysis.context import Context
from smellkit.checks import check_kind


@check_kind("deep_inlining.calls_one_of")
def _calls_one_of(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The caller calls at least one of the callees (a helper that may live in either place)."""
    caller, callees = params["caller"], list(params["callees"])
    graph = context.call_graph
    found = [callee for callee in callees if graph.has_edge(caller, callee)]
    if found:
        return True, f"{caller} calls {found[0]}"
    return False, f"{caller} calls none of {', '.join(callees)}"
