"""Feature envy: a method that works with another class's data more than with its own.

The rule is Lanza and Marinescu's ("Object-Oriented Metrics in Practice", 2006), over distinct
attributes: ATFD > FEW (attributes of other classes the method uses; FEW = 2), LAA < 1/3 (the share
of its own class's attributes among all it uses) and FDP <= FEW (how many classes those foreign
attributes come from). The envied class is the one that provides most of them; it must provide at
least three, at least half of them, and more than the method uses of its own class.

What counts (the attribute graph, receivers typed by the call graph's points-to analysis):

- Attributes of instances or classes of the repository, read or written, however they are reached:
  `self.order.customer.address.city` uses `Address.city`. Properties count as data, never as calls.
- An attribute whose value is itself an object of a repository class (`Order.customer` above) is a
  link the method navigates, not data it uses: it is left out of ATFD and FDP (listed in the
  evidence as `navigated`). So a delegation through a chain (`return self.a.b.c.x`) uses one
  foreign attribute.
- Attributes of the method's own class and its ancestors are local, whatever the receiver: `__eq__`
  reading `other.x` of the same class uses its own data. The methods of its own class it calls are
  local too (`own-calls-are-local`, as entity-placement detectors count them): a method built on its
  class's behaviour cannot move without it.
- Calls of another object's methods are collaboration, not data: a method that only forwards calls
  is a delegation, not envy.
- Dunder methods and implementations of an abstract method of a base class are skipped by
  default: Python or the class hierarchy fixes where they live, they cannot move to the envied
  class alone. So is test code, which inspects the objects it tests.

Severity: `error` when the envied class provides at least twice FEW + 1 attributes and LAA is
under a third of its threshold, `info` when ATFD is just past FEW and the method uses some data of
its own (or of a second class), else `warning`. Confidence grows with the envied class's share of
the foreign attributes and falls with LAA and with a tie between two envied classes.
"""

from __future__ import annotations

import gc
import weakref
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from smellkit.detectors._usage import is_test_path
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.detectors.context import Context
from smellkit.facts import Attr, Definition, Expr, FileFacts, Iter, Name, Sub
from smellkit.models import Finding, Location, Severity

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
            with collector_paused():
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


_SHARED: weakref.WeakKeyDictionary[Context, DataAccess] = weakref.WeakKeyDictionary()


def data_access(context: Context) -> DataAccess:
    """The `DataAccess` of this context, built on first use."""
    found = _SHARED.get(context)
    if found is None:
        with collector_paused():
            found = _SHARED[context] = DataAccess(context)
    return found


@contextmanager
def collector_paused() -> Iterator[None]:
    """Many small objects and no cycles: on a heap as big as a project's graphs, the cyclic
    garbage collector would only cost time."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


# ------------------------------------------------------------------------------------------------


class FeatureEnvyOptions(DetectorOptions):
    atfd_above: int = Field(
        default=2, ge=0, description="FEW for ATFD: report a method that uses more than this many "
        "distinct attributes of other classes (links through which it navigates excluded).")
    laa_below: float = Field(
        default=1 / 3, gt=0, le=1, description="LAA must be below this: the share of the "
        "method's own-class attributes among all the attributes it uses.")
    fdp_at_most: int = Field(
        default=2, ge=1, description="FEW for FDP: the foreign attributes come from at most this "
        "many classes (more is a coordinator, not an envious method).")
    min_envied_attributes: int = Field(
        default=3, ge=1, description="The envied class alone must provide at least this many of "
        "the attributes (stricter than ATFD, which counts all foreign classes together).")
    envied_share_at_least: float = Field(
        default=0.5, ge=0, le=1, description="The envied class must hold at least this share of "
        "the foreign attributes the method uses.")
    own_calls_are_local: bool = Field(
        default=True, description="Count the distinct methods of its own class that the method "
        "calls as local uses in LAA (as entity-placement approaches do): a method built on its "
        "class's behaviour cannot move without it.")
    ignore_dunder_methods: bool = Field(
        default=True, description="Skip `__eq__`, `__repr__`, `__init__` and the like: Python "
        "fixes their owner, they cannot move to the envied class.")
    ignore_hook_implementations: bool = Field(
        default=True, description="Skip methods that implement an abstract method of a base "
        "class of the repository (a stub there: `raise NotImplementedError`, `pass`, `...`): the "
        "hierarchy's protocol (template method, strategy) fixes where they live.")
    ignore_tests: bool = Field(
        default=True, description="Skip test code (test folders, test_*.py files): tests "
        "inspect the objects they test.")
    include_functions: bool = Field(
        default=False, description="Also report module-level functions (they have no own class, so "
        "LAA is 0) that use one class's data.")


class FeatureEnvy(Detector[FeatureEnvyOptions]):
    """Methods more interested in another class's data than in their own."""

    name = "feature_envy"
    description = ("A method that uses more attributes of another class than of its own (ATFD > 2, "
                   "LAA < 1/3, FDP <= 2); it probably belongs in the envied class.")
    Options = FeatureEnvyOptions

    def detect(self, context: Context) -> Iterable[Finding]:
        with collector_paused():
            return list(self._detect(context))

    def _detect(self, context: Context) -> Iterator[Finding]:
        access = data_access(context)
        options = self.options
        index = context.index
        candidates = [qualname for qualname, entry in access.methods.items()
                      if len(entry.foreign) > options.atfd_above]
        for qualname in sorted(candidates):
            entry = access.methods[qualname]
            definition = index.definitions.get(qualname)
            if definition is None:
                continue
            if entry.cls is None and not options.include_functions:
                continue
            if options.ignore_dunder_methods and is_dunder(definition.name):
                continue
            if options.ignore_tests and is_test_code(context, qualname):
                continue
            if options.ignore_hook_implementations and _implements_hook(context, entry):
                continue
            finding = self._judge(context, access, entry)
            if finding is not None:
                yield finding

    def _judge(self, context: Context, access: DataAccess, entry: MethodData) -> Finding | None:
        options = self.options
        uses = access.data_uses(entry)
        atfd = len(uses)
        if atfd <= options.atfd_above:
            return None
        by_class: dict[str, list[str]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        for use in uses.values():
            by_class[use.owner].append(use.name)
            counts[use.owner] += use.count
        fdp = len(by_class)
        local_calls = sorted({callee.rpartition(".")[2] for callee in access.calls(entry)}) \
            if options.own_calls_are_local else []
        local = len(entry.local) + len(local_calls)
        laa = local / (local + atfd)
        ranked = sorted(by_class, key=lambda cls: (-len(by_class[cls]), -counts[cls], cls))
        envied = ranked[0]
        envied_attributes = len(by_class[envied])
        share = envied_attributes / atfd
        if (laa >= options.laa_below or fdp > options.fdp_at_most
                or envied_attributes < options.min_envied_attributes
                or share < options.envied_share_at_least or envied_attributes <= local):
            return None
        location = context.location(entry.qualname)
        envied_location = context.location(envied)
        if location is None:
            return None
        tie = len(ranked) > 1 and len(by_class[ranked[1]]) == envied_attributes
        confidence = (0.5 + 0.5 * share) * (1 - laa) * (0.8 if tie else 1.0)
        strong = envied_attributes >= 2 * (options.atfd_above + 1) and laa <= options.laa_below / 3
        weak = atfd == options.atfd_above + 1 and (fdp > 1 or laa > 0)
        severity: Severity = "error" if strong else "info" if weak else "warning"
        navigated = sorted(attribute for attribute in entry.foreign if attribute not in uses)
        envied_name = _display(context, envied)
        where = f" ({envied_location.path})" if envied_location else ""
        mine = (f"only {local} of {_display(context, entry.cls)}'s own attributes and methods"
                if entry.cls else "has no class of its own")
        message = (f"{_display(context, entry.qualname)} uses {envied_attributes} attributes of "
                   f"{envied_name}{where} but {mine}: it may belong in {envied_name}")
        related: tuple[Location, ...] = (envied_location,) if envied_location else ()
        return Finding(
            smell=self.name, location=location, severity=severity,
            confidence=round(max(0.0, min(1.0, confidence)), 2), message=message,
            evidence={
                "rule": f"ATFD > {options.atfd_above} and LAA < {options.laa_below:.2f} and "
                        f"FDP <= {options.fdp_at_most} and the envied class provides at least "
                        f"{options.min_envied_attributes} and {options.envied_share_at_least:.0%}"
                        " of them, more than the local uses",
                "atfd": atfd, "laa": round(laa, 3), "fdp": fdp,
                "local_attributes": sorted(target.rpartition(".")[2] for target in entry.local),
                "local_calls": local_calls,
                "envied_class": envied,
                "envied_share": round(share, 3),
                "accesses": {cls: len(by_class[cls]) for cls in ranked},
                "uses": {cls: counts[cls] for cls in ranked},
                "attributes": {cls: sorted(by_class[cls]) for cls in ranked},
                "navigated": navigated,
            },
            related=related)


def _implements_hook(context: Context, entry: MethodData) -> bool:
    """The method overrides a stub (an abstract method) of a base class."""
    if entry.cls is None:
        return False
    index = context.index
    name = entry.qualname.rpartition(".")[2]
    overridden = index.lookup_method(entry.cls, name, after=entry.cls)
    return overridden is not None and index.definitions[overridden].is_stub


def _display(context: Context, qualname: str) -> str:
    """`Class.method` for a method, `Class` for a class, the name itself otherwise."""
    definition = context.index.definitions.get(qualname)
    if definition is None:
        return qualname
    parent = context.index.definitions.get(definition.parent)
    if parent is not None and parent.kind == "class":
        return f"{parent.name}.{definition.name}"
    return definition.name



# -- examples ------------------------------------------------------------------------------------

_CUSTOMER = r'''class Customer:
    def __init__(self, tier, region, years, vip):
        self.tier, self.region, self.years, self.vip = tier, region, years, vip
'''
_INVOICE = r'''from billing.customer import Customer


class Invoice:
    def __init__(self, customer: Customer, amount: float):
        self.customer = customer
        self.amount = amount

    def discount(self) -> float:
        c = self.customer
        rate = 0.1 if c.vip else 0.0
        if c.tier == "silver" or c.years > 5:
            rate += 0.05
        return rate + (0.01 if c.region == "EU" else 0.0)
'''
_ADDRESS = r'''class Address:
    def __init__(self, street: str, city: str, code: str):
        self.street, self._city, self.code = street, city, code

    @property
    def city(self) -> str:
        return self._city.upper()

    @property
    def abroad(self) -> bool:
        return not self.code.isdigit()
'''
_ORDER = r'''from post.address import Address


class Customer:
    def __init__(self, address: Address):
        self.address = address


class Order:
    def __init__(self, customer: Customer):
        self.customer = customer
'''
_LABEL = r'''from post.order import Order


class Label:
    def __init__(self, order: Order):
        self.order = order

    def text(self) -> str:
        address = self.order.customer.address
        lines = [address.street, f"{address.code} {address.city}"]
        return "\n".join(lines + (["ABROAD"] if address.abroad else []))
'''
_MONEY = r'''class Money:
    def __init__(self, cents: int, currency: str, scale: int):
        self.cents, self.currency, self.scale = cents, currency, scale

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Money) and other.cents == self.cents
                and other.currency == self.currency and other.scale == self.scale)

    def same_kind(self, other: "Money") -> bool:
        return (other.currency, other.scale, other.cents > 0) == (
            self.currency, self.scale, self.cents > 0)
'''
_PARTS = r'''class Account:
    def __init__(self):
        self.owner, self.balance = "x", 0.0


class Loan:
    def __init__(self):
        self.principal, self.rate = 1.0, 0.1


class Card:
    def __init__(self, account: Account):
        self.limit, self.spent, self.account = 1.0, 0.0, account
'''
_REPORT = r'''from parts import Account, Card, Loan


class Report:
    def __init__(self, card: Card):
        self.card = card

    def render(self, account: Account, loan: Loan) -> str:
        return (f"{account.owner} {account.balance} {loan.principal} "
                f"{loan.rate} {self.card.limit} {self.card.spent}")

    def owner(self) -> str:
        return self.card.account.owner
'''

FeatureEnvy.examples = (
    Example("A method that reads four fields of the customer it holds, in another file.",
            {"billing/__init__.py": "", "billing/customer.py": _CUSTOMER,
             "billing/invoice.py": _INVOICE},
            ("billing.invoice.Invoice.discount",)),
    Example("Data of a class two links away (order -> customer -> address), partly properties.",
            {"post/__init__.py": "", "post/address.py": _ADDRESS, "post/order.py": _ORDER,
             "post/label.py": _LABEL},
            ("post.label.Label.text",)),
    Example("Comparing two instances of one class reads the other's data: that is its own data.",
            {"money.py": _MONEY}, ()),
    Example("Reads spread over many classes (a coordinator), and a one-attribute delegation chain.",
            {"parts.py": _PARTS, "report.py": _REPORT}, ()),
)
