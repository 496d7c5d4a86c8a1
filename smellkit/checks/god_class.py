"""Structural checks of god classes.

- `god_class.at_most_methods` {cls, methods}: the class (if still defined) defines no more than
  `methods` methods.
"""

from __future__ import annotations

from typing import Any

from smellkit.analysis.context import Context
from smellkit.checks import check_kind


@check_kind("god_class.at_most_methods")
def _at_most_methods(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The class defines no more methods than it did before it absorbed its collaborators."""
    cls, limit = params["cls"], int(params["methods"])
    index = context.index
    if cls not in index.classes:
        return True, f"{cls} is not defined"
    count = sum(1 for name in index.children.get(cls, {}).values()
                if index.definitions[name].kind == "method")
    return count <= limit, f"{cls} defines {count} methods (limit {limit})"
