"""The attribute-access graph: which functions read and write which attributes of which class.

Edges go from a scope (function, method, lambda or module) to an attribute node named
`pkg.mod.Class.attr` (node attributes `kind="attribute"`, `owner`, `name`). Edge attributes:
`reads` and `writes` (counts), `own` (some access went through the method's own `self` / `cls`),
`method` (the attribute is a method: it was called, or the owner defines it as a function that is
not a property), and the sorted `lines`. Scopes are nodes with their definition's `kind`, except
that a method which is itself accessed is one node with the attribute's `kind="attribute"`.

The owner is the first class in the MRO that assigns or defines the attribute, else the class the
access started from: the method's class for `self.x`, the receiver's class for `obj.x`, where the
receiver's class comes from the call graph's points-to analysis (accesses on receivers of unknown
type are left out). Dunder attributes (`__class__`, `__dict__`) are left out too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

from smellkit._internal.collector import paused_gc
from smellkit.facts import AttributeAccess, Name

if TYPE_CHECKING:
    from smellkit.graphs.index import Index
    from smellkit.graphs.pointsto import Solver


Resolved = list[tuple[AttributeAccess, str, bool]]
"""Each access whose class is known, with the attribute's owner and whether it went through the
method's own `self` / `cls`: what the graph is made of."""


def build_attribute_graph(index: Index) -> nx.DiGraph:
    """Scope -> `Class.attr` edges for every access whose class is known; see the module doc."""
    solver = index.calls.solver
    with paused_gc():
        found = index.__dict__.get("_attribute_accesses")
        if found is None:
            found = keep_accesses(index, solver)
        return graph_of(index, found)


def keep_accesses(index: Index, solver: Solver | None) -> Resolved:
    """The resolved accesses, kept on the index for the graph and for saving it
    (graphs/stored.py)."""
    found = index.__dict__["_attribute_accesses"] = resolve_accesses(index, solver)
    return found


def keep_graph(index: Index, solver: Solver) -> None:
    """The accesses and their graph, kept on the index while its call graph is still being
    built (`build_attribute_graph` would ask for that call graph)."""
    index.__dict__["attribute_graph"] = graph_of(index, keep_accesses(index, solver))


def _build(index: Index, solver: Solver | None) -> nx.DiGraph:
    return graph_of(index, resolve_accesses(index, solver))


def resolve_accesses(index: Index, solver: Solver | None) -> Resolved:
    members: dict[str, set[str]] = {}
    for qualname, info in index.classes.items():
        names = {attribute.name for attribute in info.attributes}
        names.update(index.children.get(qualname, {}))
        members[qualname] = names

    owners: dict[tuple[str, str], str] = {}

    def owner_of(cls: str, name: str) -> str:
        key = (cls, name)
        found = owners.get(key)
        if found is None:
            found = cls
            for candidate in index.mro(cls):
                if name in members.get(candidate, ()):
                    found = candidate
                    break
            owners[key] = found
        return found

    own_class: dict[tuple[str, str], str | None] = {}
    foreign: list[AttributeAccess] = []
    found: list[tuple[AttributeAccess, str, bool]] = []
    class_of = index.class_of
    for facts in index.modules.values():
        for access in facts.accesses:
            name = access.attr
            if name.startswith("__") and name.endswith("__"):
                continue
            if access.own and isinstance(access.receiver, Name):  # `_own_class`'s common case
                cls = class_of.get(access.scope)
            else:
                cls = _own_class(index, solver, access, own_class)
            if cls is not None:
                found.append((access, owner_of(cls, name), True))
            elif solver is not None:
                foreign.append(access)
    if foreign and solver is not None:
        values = solver.values_of([(access.scope, access.receiver) for access in foreign])
        classes = index.classes
        for access, options in zip(foreign, values):
            if not options:
                continue
            typed = [value for value in options if value[0] in "ic" and value[2:] in classes]
            if typed:
                for value in sorted(typed):
                    found.append((access, owner_of(value[2:], access.attr), False))
    return found


def _own_class(index: Index, solver: Solver | None, access: AttributeAccess,
               memo: dict[tuple[str, str], str | None]) -> str | None:
    """The class of `self` / `cls` when the access goes through it, else None."""
    receiver = access.receiver
    if not isinstance(receiver, Name):
        return None
    if access.own:
        return index.class_of.get(access.scope)
    key = (access.scope, receiver.id)
    if key not in memo:  # the `self` of an enclosing method, in a nested function or lambda
        cls = None
        where = solver.binding(access.scope, receiver.id) if solver is not None else None
        if where is not None and where != access.scope and where in index.class_of:
            definition = index.definitions[where]
            if definition.params and definition.params[0].name == receiver.id \
                    and "staticmethod" not in definition.decorators:
                cls = index.class_of[where]
        memo[key] = cls
    return memo[key]


def graph_of(index: Index, found: Resolved) -> nx.DiGraph:
    """The graph of resolved accesses (their lines as the facts give them now)."""
    edges: dict[str, dict[str, dict[str, Any]]] = {}
    """Scope -> attribute node -> the edge's attributes (`lines` a set until the end)."""
    nodes: dict[str, tuple[str, str]] = {}
    methods: dict[str, bool] = {}
    targets: dict[tuple[str, str], str] = {}
    for access, owner, own in found:
        name = access.attr
        target = targets.get((owner, name))
        if target is None:
            target = targets[(owner, name)] = f"{owner}.{name}"
            nodes[target] = (owner, name)
            methods[target] = _is_method(index, target)
        by_target = edges.get(access.scope)
        if by_target is None:
            by_target = edges[access.scope] = {}
        edge = by_target.get(target)
        if edge is None:
            edge = by_target[target] = {"reads": 0, "writes": 0, "own": False,
                                        "method": methods[target], "lines": set()}
        if access.write:
            edge["writes"] += 1
        else:
            edge["reads"] += 1
        if own:
            edge["own"] = True
        if access.called:
            edge["method"] = True
        edge["lines"].add(access.line)
    graph = nx.DiGraph()
    graph.add_nodes_from((target, {"kind": "attribute", "owner": owner, "name": name})
                         for target, (owner, name) in sorted(nodes.items()))
    scopes = sorted(edges)
    definitions = index.definitions
    # a method that is itself accessed stays an attribute node
    graph.add_nodes_from((scope, {"kind": definition.kind if (
        definition := definitions.get(scope)) else "module"})
        for scope in scopes if scope not in nodes)
    ordered: list[tuple[str, str, dict[str, Any]]] = []
    for scope in scopes:
        by_target = edges[scope]
        for target in sorted(by_target):
            edge = by_target[target]
            edge["lines"] = sorted(edge["lines"])
            ordered.append((scope, target, edge))
    graph.add_edges_from(ordered)
    return graph


def _is_method(index: Index, qualname: str) -> bool:
    """Whether `qualname` is a function definition that is not read as a property."""
    definition = index.definitions.get(qualname)
    return definition is not None and definition.kind != "class" \
        and not any(decorator in ("property", "functools.cached_property", "cached_property")
                    or decorator.endswith((".setter", ".getter", ".deleter"))
                    for decorator in definition.decorators)
