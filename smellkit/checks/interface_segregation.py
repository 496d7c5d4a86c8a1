"""Structural checks of interface segregation.

- `interface_segregation.not_required` {interface, methods}: the interface (if still defined)
  declares none of the methods as abstract, as a stub or as raising.
- `interface_segregation.no_stubs` {classes, methods}: none of the classes (those still defined)
  gets one of the methods from a stub, its own or inherited.
"""

from __future__ import annotations

from typing import Any

from smellkit.checks import check_kind
from smellkit.detectors.interface_segregation import (
    InterfaceSegregation,
    InterfaceSegregationOptions,
)


def _stub_like(context: Any, qualname: str) -> bool:
    """A stub, a raise of an abstract error, or a refusal (only raises AttributeError)."""
    definition = context.index.definitions.get(qualname)
    if definition is None:
        return False
    if definition.is_stub:
        return True
    detector = InterfaceSegregation(InterfaceSegregationOptions())
    return detector.raises(context, definition) or detector.refuses(context, definition)


@check_kind("interface_segregation.not_required")
def _not_required(context: Any, params: dict[str, Any]) -> tuple[bool, str]:
    """The interface (if it still exists) declares none of the methods as abstract or raising:
    a role it does not need was moved out of it."""
    interface = params["interface"]
    children = context.index.children.get(interface, {})
    required = [name for name in params["methods"] if name in children and (
        _stub_like(context, children[name]) or any(
            "abstract" in decorator for decorator in
            context.index.definitions[children[name]].decorators))]
    if required:
        return False, f"{interface} still requires {', '.join(required)}"
    return True, f"{interface} does not require {', '.join(params['methods'])}"


@check_kind("interface_segregation.no_stubs")
def _no_stubs(context: Any, params: dict[str, Any]) -> tuple[bool, str]:
    """None of the classes gets one of the methods from a stub (its own or inherited)."""
    index = context.index
    stubs = []
    for cls in params["classes"]:
        if cls not in index.classes:
            continue
        for name in params["methods"]:
            found = index.lookup_method(cls, name)
            if found is not None and _stub_like(context, found):
                stubs.append(f"{cls.rpartition('.')[2]}.{name}")
    if stubs:
        return False, f"stubbed: {', '.join(stubs[:5])}"
    return True, "no stubs left"
