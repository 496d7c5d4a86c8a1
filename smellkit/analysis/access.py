"""What methods do with the data of classes: the shared analysis of feature envy and god class.

Built once per detector run from the attribute graph and the call graph: for each method, the
attributes of its own class and of other classes it reads or writes, which of those are links it
only navigates through, and which of its own methods it calls.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from smellkit._internal.collector import paused_gc
from smellkit.analysis.context import Context
from smellkit.config import is_test_path
from smellkit.facts import Attr, Definition, Expr, FileFacts, Iter, Name, Sub

ENUM_PREFIXES = ("enum.", "aenum.")
"""Bases (outside the repository) that make a class an enumeration."""

PROPERTY_DECORATORS = frozenset({
    "property", "builtins.property", "cached_property", "functools.cached_property",
    "abc.abstractproperty", "abstractproperty",
})


def is_property(definition: Definition) -> bool:
    """A getter, setter or deleter of a property (or a cached property)."""
    return any(name in PROPERTY_DECORATORS or name.endswith((".setter", ".getter", ".deleter"))
               for name in definition.decorators)


def is_test_code(context: Context, qualname: str) -> bool:
    """Defined in a test module (under a test folder, or a test_*.py file)."""
    facts = context.file_of(qualname)
    return facts is not None and is_test_path(facts.path)


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def context_parameters(context: Context, methods: Sequence[str], share: float) -> set[str]:
    """The parameter names that at least `share` of `methods` (and three) take: the context each
    call is handed (`ctx` in a CLI framework's command methods, `env` in a build step's), whose
    data is the state the call works in rather than another class's data the class gathers."""
    takers: dict[str, set[str]] = defaultdict(set)
    for qualname in methods:
        definition = context.index.definitions[qualname]
        first = 1 if definition.kind == "method" and "staticmethod" not in definition.decorators \
            else 0
        for param in definition.params[first:]:
            takers[param.name].add(qualname)
    return {name for name, users in takers.items()
            if len(users) >= max(3.0, share * len(methods))}


def read_through(context: Context, qualname: str, names: set[str]) -> set[tuple[str, int, str]]:
    """(scope, line, attribute) of the attributes the method (its nested functions included,
    which see its parameters) reads straight off one of its parameters named in `names`."""
    facts = context.file_of(qualname)
    definition = context.index.definitions.get(qualname)
    if facts is None or definition is None:
        return set()
    params = {param.name for param in definition.params} & names
    return {(access.scope, access.line, access.attr) for access in facts.accesses
            if params and (access.scope == qualname or access.scope.startswith(f"{qualname}."))
            and isinstance(access.receiver, Name)
            and access.receiver.id in params}


_DATA, _METHOD, _VALUE = range(3)
"""Kinds of attribute nodes: data, a method (not a property), a constant-like value."""


@dataclass
class Use:
    """How one method (nested functions and lambdas included) uses one attribute."""

    owner: str
    name: str
    reads: int = 0
    writes: int = 0
    sites: set[tuple[str, int]] = field(default_factory=set)  # (scope, line) of each use

    @property
    def count(self) -> int:
        return self.reads + self.writes


@dataclass
class MethodData:
    """The attributes of repository classes one method uses, own class and foreign apart."""

    qualname: str
    cls: str | None  # None for a module-level function
    local: set[str] = field(default_factory=set)  # attributes of its own class (or ancestors)
    through_self: set[str] = field(default_factory=set)  # those of them used through self/cls
    foreign: dict[str, Use] = field(default_factory=dict)
    refs: set[str] = field(default_factory=set)  # own-class methods named without a call


@dataclass
class _ScopeShape:
    """How expressions flow in one scope, for telling links from data."""

    attribute_receivers: dict[str, set[Expr]] = field(default_factory=dict)  # name -> receivers
    uses_of: dict[Expr, list[tuple[int, str]]] = field(default_factory=dict)  # receiver -> sites
    names_bound_to: dict[Expr, set[str]] = field(default_factory=dict)  # value -> local names


class DataAccess:
    """Which attributes every method uses, built once per analysis context from the attribute
    graph and shared by the detectors that need it (feature envy, god class)."""

    def __init__(self, context: Context):
        self.index = index = context.index  # no reference to the context: it keys the cache
        self.attribute_graph = context.attribute_graph
        self.call_graph = context.call_graph
        self._scope_owner: dict[str, str | None] = {}
        self._lineage: dict[str, frozenset[str]] = {}
        self._declared: dict[str, frozenset[str]] = {}
        self._enums: dict[str, bool] = {}
        self._links: dict[tuple[str, str], bool] = {}
        self._calls: dict[str, frozenset[str]] = {}
        self._shapes: dict[str, _ScopeShape] = {}
        self._shaped: set[str] = set()
        self._resolved_sites: dict[str, frozenset[tuple[int, str]]] = {}
        self.methods: dict[str, MethodData] = {}
        graph = self.attribute_graph
        nodes = graph.nodes
        targets_seen: dict[str, tuple[str, str, int] | None] = {}
        for scope, targets in graph.adjacency():
            method = self.method_of(scope)
            if method is None or not targets:
                continue
            entry = self.methods.get(method)
            if entry is None:
                entry = self.methods[method] = MethodData(method, index.class_of.get(method))
            lineage = self.lineage(entry.cls) if entry.cls is not None else frozenset()
            for target, data in targets.items():
                if target in targets_seen:
                    seen = targets_seen[target]
                else:
                    seen = targets_seen[target] = self._target(target, nodes[target])
                if seen is None:
                    continue
                owner, name, kind = seen
                if owner in lineage:
                    if kind == _METHOD:  # a method of its own, named or called: a use
                        entry.refs.add(target)
                    else:  # a callable stored in an attribute is still data of the class
                        entry.local.add(target)
                        if data.get("own"):
                            entry.through_self.add(target)
                    continue
                if kind != _DATA or data.get("method"):  # calling what another object holds
                    continue  # is collaboration
                use = entry.foreign.get(target)
                if use is None:
                    use = entry.foreign[target] = Use(owner, name)
                use.reads += data.get("reads", 0) or 0
                use.writes += data.get("writes", 0) or 0
                use.sites.update((scope, line) for line in data.get("lines", ()) or ())

    def _target(self, target: str, attrs: dict[str, Any]) -> tuple[str, str, int] | None:
        """(owner, name, kind) of an attribute node; None when it is no repository class's."""
        index = self.index
        owner = attrs.get("owner")
        name = attrs.get("name") or target.rpartition(".")[2]
        kind = _DATA
        defined = index.definitions.get(target)
        if defined is not None and defined.kind == "method":
            owner = owner or defined.parent  # a property's node is also its getter's scope
            kind = _DATA if is_property(defined) else _METHOD
        if owner not in index.classes:
            return None
        if kind == _DATA and (name not in self.declared(owner) or name.isupper()
                              or self.is_enum(owner)):
            # An attribute the class never has is a value that flowed in from elsewhere (the
            # points-to analysis is flow-insensitive); a constant or an enum member is a value.
            # Neither is another object's state.
            kind = _VALUE
        return owner, name, kind

    # -- classes ----------------------------------------------------------------------------

    def lineage(self, cls: str) -> frozenset[str]:
        """The class and its ancestors: whose attributes are its own."""
        found = self._lineage.get(cls)
        if found is None:
            found = self._lineage[cls] = frozenset(self.index.mro(cls))
        return found

    def is_enum(self, cls: str) -> bool:
        found = self._enums.get(cls)
        if found is None:
            found = self._enums[cls] = any(base.startswith(ENUM_PREFIXES)
                                           for base in self.index.mro(cls)[1:])
        return found

    def declared(self, cls: str) -> frozenset[str]:
        """Names a class or its ancestors of the repository define or assign."""
        found = self._declared.get(cls)
        if found is None:
            index = self.index
            names: set[str] = set()
            for ancestor in index.mro(cls):
                info = index.classes.get(ancestor)
                if info is not None:
                    names.update(attribute.name for attribute in info.attributes)
                names.update(index.children.get(ancestor, ()))
            found = self._declared[cls] = frozenset(names)
        return found

    # -- scopes -----------------------------------------------------------------------------

    def method_of(self, scope: str) -> str | None:
        """The method or module-level function a scope belongs to (nested functions and lambdas
        belong to the definition around them); None for module and class bodies."""
        if scope in self._scope_owner:
            return self._scope_owner[scope]
        definitions = self.index.definitions
        found: str | None = None
        current = definitions.get(scope)
        while current is not None:
            if current.kind in ("method", "function"):
                found = current.qualname
                break
            if current.kind not in ("nested_function", "lambda"):
                break
            current = definitions.get(current.parent)
        self._scope_owner[scope] = found
        return found

    def calls(self, entry: MethodData) -> frozenset[str]:
        """Methods of its own class (or its ancestors) that a method calls or names, nested
        functions and lambdas included; recursion left out."""
        found = self._calls.get(entry.qualname)
        if found is not None:
            return found
        index = self.index
        graph = self.call_graph
        names = set(entry.refs)
        if entry.cls is not None:
            lineage = self.lineage(entry.cls)
            scopes = [entry.qualname]
            while scopes:
                scope = scopes.pop()
                if scope in graph:
                    names.update(callee for callee in graph.successors(scope)
                                 if index.class_of.get(callee) in lineage)
                scopes.extend(child for child in index.children.get(scope, {}).values()
                              if index.definitions[child].kind in ("nested_function", "lambda"))
        names.discard(entry.qualname)
        found = self._calls[entry.qualname] = frozenset(names)
        return found

    # -- navigation -------------------------------------------------------------------------

    def is_link(self, attribute: str, use: Use) -> bool:
        """True when the method navigates through the attribute (`order.customer` in
        `order.customer.name`) rather than using it as data: somewhere the value it reads is the
        receiver of an access the attribute graph resolved to a repository class, directly or
        through a local name bound to it (`customer = order.customer; customer.name`)."""
        for scope in sorted({scope for scope, _ in use.sites}):
            key = (scope, attribute)
            found = self._links.get(key)
            if found is None:
                found = self._links[key] = self._navigates(scope, use.name)
            if found:
                return True
        return False

    def _navigates(self, scope: str, name: str) -> bool:
        shape = self._shape(scope)
        resolved = self._resolved(scope)
        for receiver in shape.attribute_receivers.get(name, ()):
            value = Attr(receiver, name)
            outer = list(shape.uses_of.get(value, ()))
            for bound in shape.names_bound_to.get(value, ()):
                outer.extend(shape.uses_of.get(Name(bound), ()))
            if any(site in resolved for site in outer):
                return True
        return False

    def _shape(self, scope: str) -> _ScopeShape:
        """Receivers and local bindings of a scope, from its module's facts (read once)."""
        found = self._shapes.get(scope)
        if found is not None:
            return found
        module = self.index.scope_module(scope)
        facts = self.index.modules.get(module)
        if facts is not None and module not in self._shaped:
            self._shaped.add(module)
            with paused_gc():
                self._read_shapes(facts)
        return self._shapes.setdefault(scope, _ScopeShape())

    def _read_shapes(self, facts: FileFacts) -> None:
        shapes = self._shapes
        for access in facts.accesses:
            shape = shapes.get(access.scope)
            if shape is None:
                shape = shapes[access.scope] = _ScopeShape()
            shape.attribute_receivers.setdefault(access.attr, set()).add(access.receiver)
            receiver = access.receiver
            while isinstance(receiver, (Sub, Iter)):  # `a.items[0].x`, `for i in a.items`
                shape.uses_of.setdefault(receiver, []).append((access.line, access.attr))
                receiver = receiver.base
            shape.uses_of.setdefault(receiver, []).append((access.line, access.attr))
        for assignment in facts.assignments:
            if isinstance(assignment.target, Name):
                value = assignment.value
                while isinstance(value, (Sub, Iter)):
                    value = value.base
                shape = shapes.get(assignment.scope)
                if shape is None:
                    shape = shapes[assignment.scope] = _ScopeShape()
                shape.names_bound_to.setdefault(value, set()).add(assignment.target.id)

    def _resolved(self, scope: str) -> frozenset[tuple[int, str]]:
        """(line, name) of every access of the scope that the attribute graph resolved."""
        found = self._resolved_sites.get(scope)
        if found is None:
            graph = self.attribute_graph
            sites: set[tuple[int, str]] = set()
            if scope in graph:
                nodes = graph.nodes
                for target, data in graph.adj[scope].items():
                    name = nodes[target].get("name") or target.rpartition(".")[2]
                    sites.update((line, name) for line in data.get("lines", ()) or ())
            found = self._resolved_sites[scope] = frozenset(sites)
        return found

    def data_uses(self, entry: MethodData) -> dict[str, Use]:
        """The foreign attributes used as data (links left out)."""
        return {attribute: use for attribute, use in sorted(entry.foreign.items())
                if not self.is_link(attribute, use)}


def data_access(context: Context) -> DataAccess:
    """The `DataAccess` of this context, built on first use."""
    return context.derived(DataAccess)
