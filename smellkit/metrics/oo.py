"""Object-oriented metrics of classes and methods, from the index, the call and attribute graphs.

Counting conventions shared by every metric here:

- The *methods* of a class are the functions defined directly in its body (under `if`/`try` too),
  of every kind: constructors, special methods, properties, static and class methods. Methods with
  one name (a property's getter and setter, `typing.overload` variants) count once, as the index
  keeps one definition per qualified name. Inherited methods are not the class's methods.
- The *code* of a method is its body plus the lambdas and functions nested in it (see `_code`).
- An *own access* is `self.x` or `cls.x` on the method's first parameter (not in static methods),
  also from lambdas and nested functions inside it. Its name is looked up through the MRO: a name
  that finds a method is a method use (a property is a method here, except for LAA, where
  Lanza-Marinescu count accessor use as data access); a name that finds a nested class is ignored;
  any other name is a *data attribute*, wherever (or whether) it is assigned: in this class, in a
  base class, or only at run time.
- The *cohesion methods* (LCOM4, LCOM*, TCC) are the class's methods minus constructors and
  destructors (`__init__`, `__new__`, `__post_init__`, `__del__`) and minus stubs (a body of only
  a docstring, `pass`, `...`, `raise NotImplementedError` or `return None`): Python constructors
  assign every attribute and would link every method, which is why Bieman and Kang leave them
  out, and abstract stubs access nothing by design.
- Other classes are the repository's classes; classes from outside it are not seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from smellkit._internal.collector import collector_paused
from smellkit.facts import Definition, Expr, FileFacts, Name
from smellkit.metrics._code import code_owners

if TYPE_CHECKING:
    import networkx as nx

    from smellkit.graphs.index import Index

CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__", "__del__"})
_PROPERTY_DECORATORS = ("property", "cached_property", "functools.cached_property",
                        "abc.abstractproperty")
_DATA, _PROPERTY, _METHOD, _OTHER = range(4)


class ClassMetrics(NamedTuple):
    """Size, coupling, cohesion and inheritance of one class; None where a ratio is undefined."""

    wmc: int
    """Weighted Methods per Class (Chidamber-Kemerer 1994) with McCabe's CC as the weight, as
    Lanza-Marinescu use it: the sum of radon's CC over every `def` statement in the class body
    (each variant of a property or overload counts; `@overload` stubs do not)."""
    nom: int
    """Number Of Methods (Lanza-Marinescu 2006): the class's methods, by name."""
    noa: int
    """Number Of Attributes (Lanza-Marinescu 2006): distinct names the class itself assigns, in its
    body (annotation-only declarations included) or through `self`/`cls` in its methods; names of
    its methods and nested classes and `__dunder__` names left out; inherited attributes count
    only if the class assigns them again."""
    cbo: int
    """Coupling Between Object classes (Chidamber-Kemerer): the number of other classes coupled
    to this one in either direction, two classes being coupled when the code of a method of one
    calls a method of the other, instantiates it, or uses one of its attributes (per the call
    graph and the attribute graph). As in their 1991 definition ("non-inheritance related
    couples"), an ancestor or descendant does not count: `super().__init__()` and inherited
    attributes used through `self` are the class's own business."""
    rfc: int
    """Response For a Class (Chidamber-Kemerer 1994): the size of the union of M, the class's
    methods, and R, every distinct callee (in the repository or outside it) of their code, one
    call deep."""
    lcom4: int
    """Lack of Cohesion Of Methods 4 (Hitz-Montazeri 1995): the number of connected components of
    the graph of cohesion methods with an edge where two methods use a common data attribute or
    one uses (calls, or reads as a property) the other; 0 without cohesion methods."""
    lcom_star: float | None
    """LCOM* (Henderson-Sellers 1996): (mean over attributes of the methods using each - m) /
    (1 - m), over the m cohesion methods and the data attributes they use (so that every attribute
    is used at least once and the value lies in [0, 1]); None when m < 2 or no attribute is used."""
    tcc: float | None
    """Tight Class Cohesion (Bieman-Kang 1995): the share of pairs of visible cohesion methods
    (public names, and special `__x__` methods) that use a common data attribute, directly or
    through the class's own methods they call, transitively; None with fewer than two."""
    dit: int
    """Depth of Inheritance Tree (Chidamber-Kemerer 1994), as
    `smellkit.graphs.classes.depth_of_inheritance` counts it: `object` is depth 0 and a base from
    outside the repository counts one level."""
    noc: int
    """Number Of Children (Chidamber-Kemerer 1994): direct subclasses in the repository."""


class MethodMetrics(NamedTuple):
    """Lanza-Marinescu (Object-Oriented Metrics in Practice, 2006) measures of one method's code."""

    atfd: int
    """Access To Foreign Data: distinct attributes of unrelated classes (neither the method's class
    nor its ancestors nor its descendants) read or written directly or through a property, per
    the attribute graph. Calls of explicit getter methods are not counted."""
    laa: float | None
    """Locality of Attribute Accesses: local / (local + ATFD), local being the distinct data
    attributes (properties included) of the method's class and its ancestors that it uses; None
    when the method uses no attribute of either kind."""
    fdp: int
    """Foreign Data Providers: the number of classes the ATFD attributes belong to."""
    noav: int
    """Number Of Accessed Variables: distinct parameters (but `self`/`cls`), local names bound,
    names declared `global`/`nonlocal`, and attributes read or written (each distinct receiver
    expression and name; method uses and `__dunder__` names left out). Names only read and never
    bound in the method (module globals) are not counted: the facts do not record name reads."""


# --------------------------------------------------------------------------------------------


def _is_property(definition: Definition) -> bool:
    return any(decorator in _PROPERTY_DECORATORS or decorator.endswith(
        (".setter", ".getter", ".deleter", ".cached_property")) for decorator in
        definition.decorators)


def _self_name(definition: Definition) -> str | None:
    if not definition.params or "staticmethod" in definition.decorators:
        return None
    return definition.params[0].name


class _Model:
    """What the metrics need from the facts, independent of the graphs; built once per index."""

    def __init__(self, index: Index):
        self.index = index
        self.owners = code_owners(index)
        self.methods: dict[str, dict[str, str]] = {}
        """Class -> method name -> method qualname."""
        for qualname, cls in index.class_of.items():
            self.methods.setdefault(cls, {})[index.definitions[qualname].name] = qualname
        self.statements: dict[str, list[Definition]] = {}
        """Class -> every `def` statement of its body (one per variant of a name)."""
        self.stubs: set[str] = set()
        """Methods whose every variant is a stub."""
        not_stub: set[str] = set()
        for facts in index.modules.values():
            for definition in facts.definitions:
                if definition.kind == "method":
                    self.statements.setdefault(definition.parent, []).append(definition)
                    (self.stubs if definition.is_stub else not_stub).add(definition.qualname)
        self.stubs -= not_stub
        self._kinds: dict[tuple[str, str], int] = {}
        self.data: dict[str, set[str]] = {}
        """Method -> data attributes it uses through self."""
        self.properties: dict[str, set[str]] = {}
        """Method -> properties it reads through self."""
        self.uses: dict[str, set[str]] = {}
        """Method -> methods of its own class it calls or reads through self."""
        self.names: dict[str, set[str]] = {}
        """Method -> parameters, local and global names of its code (for NOAV)."""
        self.variables: dict[str, set[tuple[Expr, str]]] = {}
        """Method -> (receiver, attribute) it reads or writes (for NOAV)."""
        self._collect()

    def member_kind(self, cls: str, name: str) -> int:
        """Whether `name` on an instance of `cls` is data, a property, a method or other."""
        found = self._kinds.get((cls, name))
        if found is None:
            target = self.index.lookup_method(cls, name)
            definition = self.index.definitions.get(target) if target else None
            if definition is None:
                dunder = name.startswith("__") and name.endswith("__")
                found = _OTHER if dunder else _DATA  # `__class__`, `__dict__`: machinery
            elif definition.kind == "method":
                found = _PROPERTY if _is_property(definition) else _METHOD
            elif definition.kind == "class":
                found = _OTHER
            else:
                found = _DATA
            self._kinds[(cls, name)] = found
        return found

    def _collect(self) -> None:
        index = self.index
        definitions = index.definitions
        method_of = self.owners.methods
        self_names: dict[str, Name | None] = {}
        for qualname in index.class_of:
            self.data[qualname] = set()
            self.properties[qualname] = set()
            self.uses[qualname] = set()
            self.variables[qualname] = set()
            names = self.names[qualname] = set()
            for scope in self.owners.scopes(qualname):
                names.update(param.name for param in definitions[scope].params)
            self_name = _self_name(definitions[qualname])
            self_names[qualname] = Name(self_name) if self_name is not None else None
            if self_name is not None:
                names.discard(self_name)
        for facts in index.modules.values():
            for access in facts.accesses:
                method = method_of.get(access.scope)
                if method is None:
                    continue
                name = access.attr
                # `self` in a lambda or nested function of the method is the method's own
                own = access.own if access.scope == method else (
                    self_names[method] is not None and access.receiver == self_names[method])
                kind = self.member_kind(index.class_of[method], name) if own else _DATA
                if own:
                    if kind == _DATA:
                        self.data[method].add(name)
                    elif kind in (_PROPERTY, _METHOD):
                        if kind == _PROPERTY:
                            self.properties[method].add(name)
                        target = self.methods[index.class_of[method]].get(name)
                        if target is not None:
                            self.uses[method].add(target)
                if not (access.called or kind == _METHOD
                        or (name.startswith("__") and name.endswith("__"))):
                    self.variables[method].add((access.receiver, name))
            for assignment in facts.assignments:
                target_expr = assignment.target
                if isinstance(target_expr, Name):
                    method = method_of.get(assignment.scope)
                    if method is not None and target_expr.id not in index.children.get(
                            assignment.scope, ()):
                        self.names[method].add(target_expr.id)
            for scope, declared in facts.globals_declared:
                method = method_of.get(scope)
                if method is not None:
                    self.names[method].add(declared)


def _model(index: Index) -> _Model:
    return index.derived(_Model)


# --------------------------------------------------------------------------------------------
# Classes.


def _overload(definition: Definition) -> bool:
    return any(decorator == "overload" or decorator.endswith(".overload")
               for decorator in definition.decorators)


def _visible(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _components(nodes: list[str], edges: Iterable[tuple[str, str]]) -> int:
    parent = {node: node for node in nodes}

    def find(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    count = len(nodes)
    for first, second in edges:
        root_first, root_second = find(first), find(second)
        if root_first != root_second:
            parent[root_first] = root_second
            count -= 1
    return count


def _cohesion(model: _Model, cls: str,
              uses: dict[str, set[str]]) -> tuple[int, float | None, float | None]:
    """(LCOM4, LCOM*, TCC) of one class."""
    methods = model.methods.get(cls, {})
    members = [qualname for name, qualname in methods.items()
               if name not in CONSTRUCTORS and qualname not in model.stubs]
    empty: set[str] = set()
    data = {method: model.data.get(method, empty) for method in members}
    member_set = set(members)
    edges: list[tuple[str, str]] = []
    first_user: dict[str, str] = {}
    for method in members:
        for attribute in data[method]:
            other = first_user.setdefault(attribute, method)
            if other != method:
                edges.append((method, other))
        edges.extend((method, used) for used in uses.get(method, empty)
                     if used in member_set and used != method)
    lcom4 = _components(members, edges)

    used_attributes = len(first_user)
    count = len(members)
    lcom_star = None
    if count >= 2 and used_attributes:
        mean = sum(len(attributes) for attributes in data.values()) / used_attributes
        lcom_star = (mean - count) / (1 - count)

    visible = [method for method in members if _visible(model.index.definitions[method].name)]
    tcc = None
    if len(visible) >= 2:
        reach = {method: _reachable_data(model, uses, method) for method in visible}
        pairs = len(visible) * (len(visible) - 1) // 2
        connected = sum(1 for position, first in enumerate(visible)
                        for second in visible[position + 1:]
                        if not reach[first].isdisjoint(reach[second]))
        tcc = connected / pairs
    return lcom4, lcom_star, tcc


def _reachable_data(model: _Model, uses: dict[str, set[str]], method: str) -> set[str]:
    """Data attributes a method uses directly or through its class's methods it calls."""
    seen = {method}
    stack = [method]
    found: set[str] = set()
    while stack:
        current = stack.pop()
        found.update(model.data.get(current, ()))
        for used in uses.get(current, ()):
            if used not in seen:
                seen.add(used)
                stack.append(used)
    return found


def _noa(index: Index, cls: str) -> int:
    defined = index.children.get(cls, {})
    names = {attribute.name for attribute in index.classes[cls].attributes}
    return sum(1 for name in names
               if name not in defined and not (name.startswith("__") and name.endswith("__")))


def _call_uses(model: _Model, call_graph: nx.DiGraph) -> dict[str, set[str]]:
    """Method -> methods of its class it uses, through `self` or by calls not through `self`."""
    index = model.index
    method_of = model.owners.methods
    uses = {method: set(used) for method, used in model.uses.items()}
    for caller, callee in call_graph.edges():
        method = method_of.get(caller)
        if method is not None and index.class_of.get(callee) == index.class_of[method]:
            uses[method].add(callee)
    return uses


def _couplings(model: _Model, call_graph: nx.DiGraph,
               attribute_graph: nx.DiGraph) -> dict[str, set[str]]:
    index = model.index
    coupled: dict[str, set[str]] = {}
    lineage: dict[str, frozenset[str]] = {}

    def ancestry(cls: str) -> frozenset[str]:
        found = lineage.get(cls)
        if found is None:
            found = lineage[cls] = frozenset(index.mro(cls))
        return found

    def couple(first: str | None, second: str | None) -> None:
        if (first is None or second is None or first == second
                or second in ancestry(first) or first in ancestry(second)):
            return
        coupled.setdefault(first, set()).add(second)
        coupled.setdefault(second, set()).add(first)

    class_of = model.owners.classes
    for caller, callee in call_graph.edges():
        user = class_of.get(caller)
        if user is not None:
            couple(user, callee if callee in index.classes else class_of.get(callee))
    nodes = attribute_graph.nodes
    for scope, attribute in attribute_graph.edges():
        user = class_of.get(scope)
        if user is not None:
            owner = nodes[attribute].get("owner")
            couple(user, owner if owner in index.classes else None)
    return coupled


def _rfc(model: _Model, cls: str, call_graph: nx.DiGraph) -> int:
    methods = set(model.methods.get(cls, {}).values())
    response = set(methods)
    nested: set[str] = set()
    for method in methods:
        scopes = model.owners.scopes(method)
        for scope in scopes:
            if scope in call_graph:
                response.update(call_graph.successors(scope))
        nested.update(scopes[1:])
    return len(response - nested)  # lambdas and inner functions are part of a method's code


@collector_paused
def class_metrics(index: Index, *, call_graph: nx.DiGraph | None = None,
                  attribute_graph: nx.DiGraph | None = None) -> dict[str, ClassMetrics]:
    """`ClassMetrics` of every class of the repository, by qualified name.

    The graphs default to the index's; pass others to measure against a different resolution.
    """
    from smellkit.graphs.classes import inheritance_depths  # networkx: only when measuring
    calls = index.call_graph if call_graph is None else call_graph
    attributes = index.attribute_graph if attribute_graph is None else attribute_graph
    model = _model(index)
    uses = _call_uses(model, calls)
    coupled = _couplings(model, calls, attributes)
    hierarchy = index.class_graph
    depths = inheritance_depths(hierarchy)
    result: dict[str, ClassMetrics] = {}
    for cls in index.classes:
        wmc = _wmc(model, cls)
        lcom4, lcom_star, tcc = _cohesion(model, cls, uses)
        result[cls] = ClassMetrics(
            wmc=wmc, nom=len(model.methods.get(cls, {})), noa=_noa(index, cls),
            cbo=len(coupled.get(cls, ())), rfc=_rfc(model, cls, calls), lcom4=lcom4,
            lcom_star=lcom_star, tcc=tcc, dit=depths.get(cls, 0),
            noc=hierarchy.in_degree(cls) if cls in hierarchy else 0)
    return result


def _wmc(model: _Model, cls: str) -> int:
    return sum(definition.measure.cc for definition in model.statements.get(cls, ())
               if definition.measure is not None and not _overload(definition))


def own_code_parts(facts: FileFacts) -> dict[str, int]:
    """The parts of the metrics that one file's own code decides alone, by qualified name: a
    class's WMC (the CC of its methods) and the names a method binds (the first half of NOAV).
    When a change leaves the graphs as they were, only these move (scanning/incremental.py)."""
    from smellkit.graphs.index import Index

    index = Index([facts])
    model = _Model(index)
    parts = {cls: _wmc(model, cls) for cls in index.classes}
    parts.update((method, len(model.names[method])) for method in index.class_of)
    return parts


# --------------------------------------------------------------------------------------------
# Methods.


@collector_paused
def method_metrics(index: Index, *,
                   attribute_graph: nx.DiGraph | None = None) -> dict[str, MethodMetrics]:
    """`MethodMetrics` of every method of the repository, by qualified name."""
    import networkx as nx
    attributes = index.attribute_graph if attribute_graph is None else attribute_graph
    model = _model(index)
    method_of = model.owners.methods
    hierarchy = index.class_graph
    related: dict[str, frozenset[str]] = {}
    local: dict[str, set[str]] = {}
    foreign: dict[str, set[str]] = {}
    nodes = attributes.nodes
    for scope, attribute, data in attributes.edges(data=True):
        if data.get("method"):
            continue
        method = method_of.get(scope)
        if method is None:
            continue
        node = nodes[attribute]
        owner, name = node.get("owner"), node.get("name")
        if owner not in index.classes or name is None:
            continue
        if model.member_kind(owner, name) not in (_DATA, _PROPERTY):
            continue
        cls = index.class_of[method]
        if cls not in related:
            family = set(index.mro(cls))
            if cls in hierarchy:
                family.update(nx.ancestors(hierarchy, cls))
            related[cls] = frozenset(family)
        if owner in index.mro(cls):
            local.setdefault(method, set()).add(name)
        elif owner not in related[cls]:
            foreign.setdefault(method, set()).add(attribute)
    empty: set[str] = set()
    result: dict[str, MethodMetrics] = {}
    for method in index.class_of:
        own = local.get(method, empty) | model.data.get(method, empty) | model.properties.get(
            method, empty)
        outside = foreign.get(method, empty)
        accessed = len(own) + len(outside)
        result[method] = MethodMetrics(
            atfd=len(outside), laa=len(own) / accessed if accessed else None,
            fdp=len({nodes[attribute].get("owner") for attribute in outside}),
            noav=len(model.names[method]) + len(model.variables[method]))
    return result
