"""Interface segregation: an interface too wide for those who implement it or use it.

An interface is an abstract base or a protocol of the repository: a class deriving from `abc.ABC` or
`typing.Protocol` (or with `abc.ABCMeta` as metaclass), with methods decorated `@abstractmethod`, or
whose methods only raise `NotImplementedError` (or another of `abstract-errors`). Its methods are
the ones its implementers must provide: the abstract ones (every method of a protocol).

Two rules, either one reports the interface (Martin's "clients should not be forced to depend upon
interfaces that they do not use"):

- Implementers: at least `min-implementers` concrete subclasses each stub at least `stub-share`
  of the interface: their override is only `pass`, `...`, `return None` or a `raise
  NotImplementedError`, or refuses the member outright (only `raise AttributeError`, often as a
  property, so that `hasattr` stays false), or (for a base that raises) they leave the raising
  method as it is.
- Clients: at least `min-clients` functions that take the interface as a parameter annotation (or
  classes that hold it as an annotated attribute) each call or read at most `client-share` of its
  methods through it, and two of them use no method in common.

What is not reported:

- An abstract base whose implementers implement everything.
- A base class with hook methods that do nothing by default (`def on_start(self): pass`, a
  visitor's `visit_*`): hooks are not abstract, so they are not part of an interface, and an
  implementer that does not override one has not stubbed anything.
- Test doubles: implementers in test modules are left out (`include-test-implementers`).
- Partial bases: a subclass that leaves a raising method as it is but has subclasses of its own is
  a step towards the implementers, not one of them; a subclass with a base from outside the
  repository in between (a compiled mixin) may get the method from there, and a class attribute
  (`name = "int8"` for an abstract property) implements the method it shadows.
- Clients that all use the same few methods, or overlapping ones: there is no seam to split along.
  The methods of a class that holds the interface as an attribute are one client (its delegating
  properties are not clients each).

Clients are found through annotations: the call graph resolves calls to the concrete classes the
values come from, which says nothing about the type a client was written against.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import Field

from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.config import is_test_path
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.detectors.interface_segregation.clients import record_clients
from smellkit.facts import Definition
from smellkit.graphs.index import Index
from smellkit.models import Finding, Location, Severity

ABSTRACT_DECORATORS = frozenset({
    "abstractmethod", "abc.abstractmethod", "abstractproperty", "abc.abstractproperty",
    "abstractclassmethod", "abc.abstractclassmethod", "abstractstaticmethod",
    "abc.abstractstaticmethod",
})
ABC_BASES = frozenset({"abc.ABC", "ABC"})
ABC_METACLASSES = frozenset({"abc.ABCMeta", "ABCMeta"})
PROTOCOL_BASES = frozenset({"typing.Protocol", "typing_extensions.Protocol", "Protocol"})
_FUNCTION_KINDS = frozenset({"method"})
_REFUSING = re.compile(r"\braise\s+(?:builtins\.)?AttributeError\b")
"""An override that refuses an interface member rather than stubbing it."""
_NEUTRAL_BASES = frozenset({
    "object", "builtins.object", "<builtin>.object", "abc.ABC", "ABC", "typing.Generic",
    "Generic", *PROTOCOL_BASES,
})


class InterfaceSegregationOptions(DetectorOptions):
    min_methods: int = Field(
        default=3, ge=2, description="An interface needs at least this many abstract methods to "
        "be reported (a narrow interface cannot be split).")
    min_implementers: int = Field(
        default=2, ge=1, description="Implementers rule: at least this many implementers must "
        "each stub at least `stub-share` of the interface.")
    stub_share: float = Field(
        default=1 / 3, gt=0, le=1, description="Implementers rule: the share of the interface's "
        "methods an implementer stubs to count.")
    min_clients: int = Field(
        default=2, ge=1, description="Clients rule: at least this many clients (functions that "
        "take the interface as an annotated parameter or attribute and use it) ...")
    client_share: float = Field(
        default=0.5, gt=0, le=1, description="... each using at most this share of its methods "
        "(every client must: one that uses most of it means the interface fits), two of them "
        "with no method in common (a seam to split along).")
    abstract_errors: tuple[str, ...] = Field(
        default=("NotImplementedError", "AbstractMethodError"), description="Exceptions whose "
        "raising, as a method's only statement, makes the method abstract.")
    include_test_implementers: bool = Field(
        default=False, description="Count implementers in test modules (fakes and mocks stub "
        "on purpose).")


@dataclass
class Interface:
    """An interface of the repository and what its implementers and clients make of it."""

    qualname: str
    kind: str  # abc | protocol | raises
    methods: dict[str, str]  # method name -> qualname of its abstract definition
    implementers: dict[str, list[str]] = field(default_factory=dict)
    """Concrete subclass -> the interface methods it stubs (names)."""
    stub_definitions: dict[str, list[str]] = field(default_factory=dict)
    """Concrete subclass -> qualnames of its stubbing definitions (inherited raises excluded)."""
    clients: dict[str, set[str]] = field(default_factory=dict)
    """Client (a function, or a class through its attribute) -> the interface methods it uses."""


class InterfaceSegregation(Detector[InterfaceSegregationOptions]):
    """Abstract bases and protocols whose implementers stub much of them, or whose clients each
    use little of them."""

    smell = Smell(
        name="interface_segregation",
        description=("An abstract base or protocol (3+ abstract methods) that several implementers "
                     "stub in good part (pass, ..., raise NotImplementedError), or whose clients "
                     "each use only a small part of; the finding lists the stubs and the subsets "
                     "used, the seams to split it along."),
        phrases=(
            "an interface segregation problem: an interface that forces its implementers or "
            "clients to depend on methods they do not use",
            "an interface segregation problem: a base class or protocol that is too wide for the "
            "classes that implement or use it",
        ),
        needs_call_graph=False,
    )
    Options = InterfaceSegregationOptions

    def detect(self, context: Context) -> Iterable[Finding]:
        interfaces = self.interfaces(context)
        if not interfaces:
            return
        record_clients(context, interfaces)
        for qualname in sorted(interfaces):
            finding = self._judge(context, interfaces[qualname])
            if finding is not None:
                yield finding

    def interfaces(self, context: Context, min_methods: int | None = None) -> \
            dict[str, Interface]:
        """Every interface of the repository (of at least `min_methods` methods, the option by
        default) with its implementers and what they stub; clients are not looked for."""
        options = self.options
        raising = re.compile(r"\braise\s+(?:[\w.]+\.)?(?:"
                             + "|".join(re.escape(name) for name in options.abstract_errors)
                             + r")\b")
        interfaces = _interfaces(context, raising, options.abstract_errors,
                                 options.min_methods if min_methods is None else min_methods)
        for interface in interfaces.values():
            self._implementers(context, interface, raising)
        return interfaces

    def raises(self, context: Context, definition: Definition) -> bool:
        """The method's body only raises one of the abstract errors."""
        raising = re.compile(r"\braise\s+(?:[\w.]+\.)?(?:"
                             + "|".join(re.escape(name) for name in self.options.abstract_errors)
                             + r")\b")
        return _raises(context, definition, raising)

    def refuses(self, context: Context, definition: Definition) -> bool:
        """The member's body only raises AttributeError: an override that says the class does
        not have it (as a property, `hasattr` and `getattr` with a default stay false)."""
        return _raises(context, definition, _REFUSING)

    # -- implementers -------------------------------------------------------------------------

    def _implementers(self, context: Context, interface: Interface,
                      raising: re.Pattern[str]) -> None:
        """Each concrete subclass and the interface methods it stubs: an override that is a stub
        or raises, or (for a protocol or a raising base) no override at all.

        A class that inherits such a method but has subclasses is a partial base, not an
        implementer; one with a base from outside the repository between it and the interface
        (a compiled mixin) may get the method from there, so only its own stubs count."""
        index = context.index
        for cls in index.descendants(interface.qualname):
            facts = context.file_of(cls)
            if facts is None or _is_protocol(index, cls):
                continue
            if not self.options.include_test_implementers and is_test_path(facts.path):
                continue
            if _has_abstract(context, cls, interface, raising):
                continue  # an interface itself, in between
            if interface.kind == "protocol" and _only_stubs(index, cls):
                continue  # extends the protocol without saying so (no `Protocol` base)
            order = index.mro(cls)
            outside = any(base not in index.classes and base not in _NEUTRAL_BASES
                          for base in order[:order.index(interface.qualname)]
                          if interface.qualname in order)
            stubbed: list[str] = []
            definitions: list[str] = []
            refused = False
            concrete = True
            for name in sorted(interface.methods):
                definition = _provider(index, order, interface.qualname, name)
                if definition is None:
                    continue  # an attribute of a class below the interface provides it
                if any(decorator in ABSTRACT_DECORATORS for decorator in definition.decorators):
                    concrete = False  # cannot be instantiated: not an implementer
                    break
                if index.class_of.get(definition.qualname) == interface.qualname:
                    if not outside and (interface.kind != "abc"
                                        or _raises(context, definition, raising)):
                        stubbed.append(name)  # keeps the protocol's stub or the base's raise
                        refused = True
                elif definition.is_stub or _raises(context, definition, raising) \
                        or _raises(context, definition, _REFUSING):
                    stubbed.append(name)
                    definitions.append(definition.qualname)
            if not concrete or (refused and index.subclasses(cls)):
                continue
            interface.implementers[cls] = stubbed
            interface.stub_definitions[cls] = definitions

    # -- the verdict --------------------------------------------------------------------------

    def _judge(self, context: Context, interface: Interface) -> Finding | None:
        options = self.options
        size = len(interface.methods)
        stubbing = {cls: stubbed for cls, stubbed in interface.implementers.items()
                    if stubbed and len(stubbed) / size >= options.stub_share - 1e-9}
        by_implementers = len(stubbing) >= options.min_implementers
        clients = {client: used for client, used in interface.clients.items() if used}
        by_clients = (len(clients) >= options.min_clients and all(
            len(used) / size <= options.client_share + 1e-9 for used in clients.values())
            and _disjoint_pair(list(clients.values())))
        if not (by_implementers or by_clients):
            return None
        location = context.location(interface.qualname)
        if location is None:
            return None
        worst = max((len(stubbed) / size for stubbed in stubbing.values()), default=0.0)
        far = [by_implementers and by_clients,
               by_implementers and len(stubbing) >= 2 * options.min_implementers,
               by_implementers and worst >= 2 / 3]
        severity: Severity
        if sum(far) >= 2:
            severity = "error"
        elif by_implementers:
            severity = "warning"
        else:
            severity = "info"
        confidence = min(0.95, (0.6 if by_implementers else 0.45) + 0.1 * sum(far))
        rules = []
        if by_implementers:
            rules.append(f"implementers stubbing >= {options.stub_share:.2f} of it >= "
                         f"{options.min_implementers}")
        if by_clients:
            rules.append(f"clients using <= {options.client_share:.2f} of it >= "
                         f"{options.min_clients}")
        name = interface.qualname.rpartition(".")[2]
        parts = []
        if by_implementers:
            shown = ", ".join(
                f"{cls.rpartition('.')[2]} ({len(stubbing[cls])})" for cls in sorted(stubbing)[:4])
            parts.append(f"{len(stubbing)} implementers stub part of it: {shown}")
        if by_clients:
            parts.append(f"{len(clients)} clients each use at most "
                         f"{max(len(used) for used in clients.values())} of its methods")
        message = (f"{name} declares {size} methods, but " + "; ".join(parts)
                   + "; split it along the groups its users need")
        related: list[Location] = []
        for cls in sorted(stubbing):
            found = context.location(cls)
            if found is not None:
                related.append(found)
            for stub in interface.stub_definitions.get(cls, []):
                stub_location = context.location(stub)
                if stub_location is not None:
                    related.append(stub_location)
        if by_clients:
            for client in sorted(clients):
                client_location = context.location(client)
                if client_location is not None:
                    related.append(client_location)
        return Finding(
            smell=self.name, location=location, severity=severity,
            confidence=round(confidence, 2), message=message,
            evidence={
                "rule": " or ".join(rules) + f" (interface of >= {options.min_methods} methods)",
                "kind": interface.kind,
                "size": size,
                "methods": sorted(interface.methods),
                "implementers": {cls: sorted(stubbed)
                                 for cls, stubbed in sorted(interface.implementers.items())},
                "stubbing_implementers": len(stubbing),
                "clients": {client: sorted(used) for client, used in sorted(clients.items())},
                "unused_by_clients": sorted(set(interface.methods) - set().union(
                    *clients.values())) if clients else [],
            },
            related=tuple(related))


# -- interfaces -------------------------------------------------------------------------------


def _interfaces(context: Context, raising: re.Pattern[str], errors: tuple[str, ...],
                min_methods: int) -> dict[str, Interface]:
    """Every class of the repository that is an interface of at least `min_methods` methods."""
    index = context.index
    found: dict[str, Interface] = {}
    wanted = frozenset(errors)
    may_raise = {module for module, facts in index.modules.items()
                 if not wanted.isdisjoint(facts.liveness.names)
                 or not wanted.isdisjoint(facts.liveness.attributes)}
    for cls in sorted(index.classes):
        info = index.classes[cls]
        members = [index.definitions[qualname]
                   for qualname in index.children.get(cls, {}).values()
                   if index.definitions[qualname].kind in _FUNCTION_KINDS]
        decorated = [member for member in members if not _is_dunder(member.name) and any(
            decorator in ABSTRACT_DECORATORS for decorator in member.decorators)]
        protocol = any(name.rpartition(".")[2] == "Protocol" for name in info.base_names) \
            and _is_protocol(index, cls)
        if protocol:
            methods = {member.name: member.qualname for member in members
                       if not _is_dunder(member.name)}
            kind = "protocol"
        else:
            methods = {member.name: member.qualname for member in decorated}
            if index.module_of.get(cls) in may_raise:
                methods.update((member.name, member.qualname) for member in members
                               if not member.name.startswith("_") and member.name not in methods
                               and _raises(context, member, raising))
            abc_style = info.metaclass in ABC_METACLASSES or (any(
                name.rpartition(".")[2] == "ABC" for name in info.base_names) and any(
                base in ABC_BASES for base in index.bases(cls)))
            kind = "abc" if abc_style or decorated else "raises"
        if len(methods) >= min_methods:
            found[cls] = Interface(cls, kind, methods)
    return found


def _is_protocol(index: Index, cls: str) -> bool:
    info = index.classes.get(cls)
    if info is None:
        return False
    return any(base in PROTOCOL_BASES or base.split("[")[0] in PROTOCOL_BASES
               for base in index.bases(cls))


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _raises(context: Context, definition: Definition, raising: re.Pattern[str]) -> bool:
    """The method's body only raises one of the abstract errors (a docstring aside)."""
    measure = definition.measure
    if measure is None or measure.lloc > 2 or (measure.lloc == 2 and not measure.multi):
        return False
    facts = context.file_of(definition.qualname)
    if facts is None:
        return False
    lines = context.lines(facts.path)[definition.start_line - 1:definition.end_line]
    return raising.search("\n".join(lines)) is not None


def _has_abstract(context: Context, cls: str, interface: Interface,
                  raising: re.Pattern[str]) -> bool:
    """An interface itself, in between: it declares abstract methods, or it has subclasses and
    methods of its own (not the interface's) that only raise."""
    index = context.index
    members = [index.definitions[qualname] for qualname in index.children.get(cls, {}).values()
               if index.definitions[qualname].kind == "method"]
    if any(decorator in ABSTRACT_DECORATORS for member in members
           for decorator in member.decorators):
        return True
    return bool(index.subclasses(cls)) and any(
        member.name not in interface.methods and not _is_dunder(member.name)
        and _raises(context, member, raising) for member in members)


def _provider(index: Index, order: list[str], interface: str, name: str) -> Definition | None:
    """What provides `name` to a class with this MRO: a method (the interface's own, at worst),
    or None when a class below the interface sets it as an attribute (`name = "int8"`)."""
    for cls in order:
        child = index.children.get(cls, {}).get(name)
        if child is not None:
            return index.definitions.get(child)
        if cls == interface:
            return None
        info = index.classes.get(cls)
        if info is not None and any(attribute.name == name for attribute in info.attributes):
            return None
    return None


def _only_stubs(index: Index, cls: str) -> bool:
    members = [index.definitions[qualname] for qualname in index.children.get(cls, {}).values()
               if index.definitions[qualname].kind == "method"]
    return bool(members) and all(member.is_stub for member in members)


# -- clients ----------------------------------------------------------------------------------


def _disjoint_pair(subsets: list[set[str]]) -> bool:
    """Two clients use no method in common: there is a seam to split along."""
    return any(first.isdisjoint(second) for position, first in enumerate(subsets)
               for second in subsets[position + 1:])


# -- examples ---------------------------------------------------------------------------------

_STORAGE = r'''from abc import ABC, abstractmethod


class Storage(ABC):
    @abstractmethod
    def read(self, key): ...

    @abstractmethod
    def write(self, key, value): ...

    @abstractmethod
    def delete(self, key): ...

    @abstractmethod
    def list_keys(self, prefix): ...

    @abstractmethod
    def lock(self, key): ...

    @abstractmethod
    def unlock(self, key): ...
'''

_BACKENDS = r'''from storage.base import Storage


class DiskStorage(Storage):
    def __init__(self, root):
        self.root = root

    def read(self, key):
        with open(f"{self.root}/{key}") as handle:
            return handle.read()

    def write(self, key, value):
        with open(f"{self.root}/{key}", "w") as handle:
            handle.write(value)

    def delete(self, key):
        import os
        os.remove(f"{self.root}/{key}")

    def list_keys(self, prefix):
        import os
        return [name for name in os.listdir(self.root) if name.startswith(prefix)]

    def lock(self, key):
        pass

    def unlock(self, key):
        pass


class HttpStorage(Storage):
    def __init__(self, session, base):
        self.session, self.base = session, base

    def read(self, key):
        return self.session.get(f"{self.base}/{key}").text

    def write(self, key, value):
        raise NotImplementedError("read-only")

    def delete(self, key):
        raise NotImplementedError("read-only")

    def list_keys(self, prefix):
        return self.session.get(f"{self.base}/?prefix={prefix}").json()

    def lock(self, key):
        pass

    def unlock(self, key):
        pass
'''

_COMPLETE_BACKENDS = r'''from storage.base import Storage


class MemoryStorage(Storage):
    def __init__(self):
        self.data, self.locks = {}, set()

    def read(self, key):
        return self.data[key]

    def write(self, key, value):
        self.data[key] = value

    def delete(self, key):
        del self.data[key]

    def list_keys(self, prefix):
        return [key for key in self.data if key.startswith(prefix)]

    def lock(self, key):
        self.locks.add(key)

    def unlock(self, key):
        self.locks.discard(key)


class LoggedStorage(MemoryStorage):
    def write(self, key, value):
        print("write", key)
        super().write(key, value)
'''

_SHAPES = r'''from typing import Protocol


class Drawable(Protocol):
    def draw(self, canvas) -> None: ...
    def bounds(self) -> tuple: ...
    def rotate(self, degrees: float) -> None: ...
    def scale(self, factor: float) -> None: ...
    def to_svg(self) -> str: ...
    def to_json(self) -> dict: ...


def render(item: Drawable, canvas) -> None:
    item.draw(canvas)


def fit(item: Drawable, width: float) -> None:
    left, top, right, bottom = item.bounds()
    item.scale(width / (right - left))


def export(item: Drawable) -> str:
    return item.to_svg()
'''

_EVENTS = r'''class Listener:
    """Override the events you care about; every hook does nothing by default."""

    def on_start(self, job):
        pass

    def on_progress(self, job, done):
        pass

    def on_error(self, job, error):
        pass

    def on_finish(self, job):
        pass


class ProgressBar(Listener):
    def on_progress(self, job, done):
        print(f"{job}: {done:.0%}")


class ErrorMailer(Listener):
    def on_error(self, job, error):
        print(f"mail: {job} failed with {error}")


class Timer(Listener):
    def on_start(self, job):
        self.started = job

    def on_finish(self, job):
        print("done", job)
'''

InterfaceSegregation.examples = (
    Example("an abstract base two backends stub in good part (locking, writing)",
            {"storage/__init__.py": "", "storage/base.py": _STORAGE,
             "storage/backends.py": _BACKENDS},
            ("storage.base.Storage",)),
    Example("a protocol whose three clients each use one or two of six methods",
            {"shapes/__init__.py": "", "shapes/api.py": _SHAPES}, ("shapes.api.Drawable",)),
    Example("an abstract base its implementers implement in full",
            {"storage/__init__.py": "", "storage/base.py": _STORAGE,
             "storage/memory.py": _COMPLETE_BACKENDS}, ()),
    Example("a listener base whose hooks do nothing by default: implementers override a few",
            {"jobs/__init__.py": "", "jobs/events.py": _EVENTS}, ()),
)
