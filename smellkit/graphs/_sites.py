"""Which call sites the points-to solver resolves, and their numbers: the written calls, the
implicit calls Python makes (operators, `with`, `for`, ...) that may reach code of the repository,
and the reads and writes of attributes that call a property or a descriptor.

Stored resolutions (`smellkit.graphs.stored`) keep targets by these numbers, so they are computed
here once, from the facts, the same way for the solver and for a stored graph's reuse.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from smellkit.facts import Attr, CallOf, CallSite, Definition

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

ENTER = frozenset({"__enter__", "__aenter__"})
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "functools.cached_property"})


def call_sites(index: Index) -> tuple[list[CallSite], dict[str, int], dict[str, list[int | None]]]:
    """Every call site the solver resolves, in its order (the numbers stored resolutions use):
    the written calls of each module, the implicit ones of each module that may reach code of
    the repository (a special method some class of it defines), then a read or write of each
    property or descriptor attribute; with where each module's written calls start, and the
    number of each implicit call of a module (None: it cannot reach the repository's code)."""
    sites: list[CallSite] = []
    offset: dict[str, int] = {}
    protocol_numbers: dict[str, list[int | None]] = {}
    for module, facts in index.modules.items():
        offset[module] = len(sites)
        sites.extend(facts.calls)
    methods = defined_methods(index.definitions.values())
    for module, facts in index.modules.items():
        numbers: list[int | None] = []
        for site in facts.protocol_calls:
            if reaches_code(site, methods):
                numbers.append(len(sites))
                sites.append(site)
            else:
                numbers.append(None)
        protocol_numbers[module] = numbers
    names = attribute_call_names(index)
    if names:
        for facts in index.modules.values():
            sites.extend(CallSite(access.scope, Attr(access.receiver, access.attr), (), (),
                                  access.line, 0, True, "", "write" if access.write else "read")
                         for access in facts.accesses if access.attr in names)
    return sites, offset, protocol_numbers


def defined_methods(definitions: Iterable[Definition]) -> frozenset[str]:
    """Names of the methods the classes define."""
    return frozenset(definition.name for definition in definitions
                     if definition.kind == "method")


def reaches_code(site: CallSite, methods: frozenset[str]) -> bool:
    """Whether an implicit call may run code of the repository: a special method is called only
    when some class defines it (`with` is always followed: its target is the manager itself when
    no class defines `__enter__`)."""
    name = getattr(site.func, "attr", None)
    return site.protocol != "dunder" or name in methods or name in ENTER


def property_methods(index: Index) -> frozenset[str]:
    """Methods that are property getters, setters or deleters: reading or assigning the
    attribute calls them."""
    return frozenset(
        definition.qualname for definition in index.definitions.values()
        if definition.kind == "method" and any(
            decorator in _PROPERTY_DECORATORS or decorator.endswith((".setter", ".getter",
                                                                     ".deleter"))
            for decorator in definition.decorators))


def attribute_call_names(index: Index) -> frozenset[str]:
    """Attribute names whose reads and writes may call code: properties, and class attributes
    assigned a call's value when some class of the repository is a descriptor."""
    names = {qualname.rpartition(".")[2] for qualname in property_methods(index)}
    descriptors = any(qualname.rpartition(".")[2] in ("__get__", "__set__")
                      for qualname in index.class_of)
    if descriptors:
        for facts in index.modules.values():
            for info in facts.classes:
                names.update(attribute.name for attribute in info.attributes
                             if attribute.kind == "class" and isinstance(attribute.value, CallOf))
    return frozenset(names)
