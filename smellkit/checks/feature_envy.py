"""Structural checks of feature envy.

- `feature_envy.not_envious` {method, envied}: the method (if still defined) reads no more
  attributes of the envied class (or its bases) than it uses of its own class.
"""

from __future__ import annotations

from typing import Any

from smellkit.analysis.access import data_access
from smellkit.analysis.context import Context
from smellkit.checks import check_kind


@check_kind("feature_envy.not_envious")
def _not_envious(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The method reads no more attributes of the envied class than it uses of its own class
    (its own attributes and the methods of its own class it calls); passes when it is gone."""
    method, envied = params["method"], params["envied"]
    access = data_access(context)
    entry = access.methods.get(method)
    if method not in context.index.definitions:
        return True, f"{method} is not defined"
    if entry is None:
        return True, f"{method} reads no attributes"
    lineage = set(context.index.mro(envied)) if envied in context.index.classes else {envied}
    foreign = {name for name, use in access.data_uses(entry).items() if use.owner in lineage}
    own = len(entry.local) + len(access.calls(entry))
    passed = len(foreign) <= own
    return passed, (f"{method} reads {len(foreign)} attributes of {envied} and uses {own} of its "
                    "own class's attributes and methods")
