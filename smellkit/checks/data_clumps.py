"""Structural checks of data clumps.

- `data_clumps.not_together` {names, functions, max_holders}: at most `max_holders` of the
  functions (those still defined) take every one of the names as parameters.
"""

from __future__ import annotations

from typing import Any

from smellkit.analysis.context import Context
from smellkit.checks import check_kind


@check_kind("data_clumps.not_together")
def _not_together(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """At most `max_holders` of the functions (those still defined) take all the names."""
    names = set(params["names"])
    limit = int(params.get("max_holders", 1))
    holders = [name for name in params["functions"]
               if (definition := context.index.definitions.get(name)) is not None
               and names <= {param.name for param in definition.params}]
    listed = ", ".join(sorted(names))
    if len(holders) <= limit:
        return True, f"({listed}) travel together through {len(holders)} of the functions"
    return False, f"({listed}) travel together through {', '.join(holders)}"
