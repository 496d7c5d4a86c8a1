"""Interface segregation's clients: who uses an interface through an annotated parameter or
attribute, and which of its methods they use there (the detector's second rule)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from smellkit.analysis.context import Context
from smellkit.facts import Attr, Name

if TYPE_CHECKING:
    from smellkit.detectors.interface_segregation import Interface


def record_clients(context: Context, interfaces: dict[str, Interface]) -> None:
    """Who uses an interface through a parameter or an attribute annotated with it, and which of
    its methods they call or read there: a function for a parameter, the whole class for an
    attribute (its methods are one client: delegating properties are not clients each)."""
    index = context.index
    short_names = {qualname.rpartition(".")[2] for qualname in interfaces}
    for imported in index.scope_imports.values():  # `import ... as Alias` of an interface
        for bound, target in imported.items():
            if target.rpartition(".")[2] in short_names and bound not in short_names:
                short_names.add(bound)
    # scope -> receiver expression -> the interface it is annotated with
    receivers: dict[str, dict[object, str]] = defaultdict(dict)
    client_of: dict[str, str] = {}  # scope -> client: the function, or the class of the attribute
    attributes: dict[str, dict[str, str]] = defaultdict(dict)  # class -> attribute -> interface
    for qualname, definition in index.definitions.items():
        if definition.kind not in ("function", "method", "nested_function"):
            continue
        for param in definition.params:
            for dotted in param.annotation:
                if dotted.rpartition(".")[2] not in short_names:
                    continue
                resolved = index.resolve_reference(definition.parent, dotted)
                if resolved in interfaces:
                    receivers[qualname][Name(param.name)] = resolved
                    client_of[qualname] = qualname
    for cls, info in index.classes.items():
        for attribute in info.attributes:
            for dotted in attribute.annotation:
                if dotted.rpartition(".")[2] not in short_names:
                    continue
                resolved = index.resolve_reference(attribute.scope, dotted)
                if resolved in interfaces and resolved != cls:
                    attributes[cls][attribute.name] = resolved
    for cls, annotated in attributes.items():
        for method in index.children.get(cls, {}).values():
            definition = index.definitions[method]
            if definition.kind != "method" or not definition.params:
                continue
            own = definition.params[0].name
            for name, target in annotated.items():
                receivers[method][Attr(Name(own), name)] = target
            client_of.setdefault(method, cls)
    if not receivers:
        return
    for facts in index.modules.values():
        for access in facts.accesses:
            scope_receivers = receivers.get(access.scope)
            if scope_receivers is None:
                continue
            annotated_with = scope_receivers.get(access.receiver)
            if annotated_with is None:
                continue
            interface = interfaces[annotated_with]
            used = interface.clients.setdefault(client_of[access.scope], set())
            if access.attr in interface.methods:
                used.add(access.attr)
