"""Where a class calls a method of another class, for the feature envy injector: discovery from
the facts and the points-to analysis (`calls` rewrites the calls found).

Two forms of call qualify, written directly in a method of the holder `A`:

- through an attribute: `self.<attr>.m(...)`, `<attr>` a plain instance attribute of `A`;
- through a name: `x.m(...)`, `x` a parameter or local of the method (not `self`).

Either way every class the receiver may be an instance of and that has a method `m` must
dispatch it to the same method `B.m`, so calling a copy of `B.m`'s code on that receiver does what
the call did (for the other classes the call could only fail: the points-to analysis
over-approximates calls that the code guards, such as `if isinstance(self.type, IntRange)`).
When the receiver may also hold an object from outside the repository, which could have a method
of that name (`close`), unless the receiver's declared type agrees with every class the analysis
sees (a parameter, or an attribute only ever set from one, annotated with exactly one class of the
repository: then that class or a subclass), only private names that no common type defines are
accepted. The declared type also stands in where the analysis sees no value flow in at all (a
visitor method called by name).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from smellkit.analysis.access import data_access, is_dunder, is_property
from smellkit.analysis.context import Context
from smellkit.facts import Attr, CallSite, Expr, Iter, Name, Param
from smellkit.graphs.index import Index


@dataclass(frozen=True)
class Site:
    """One call of `B.m` in a method (`scope`) of the holder, at (line, col) of its file."""

    holder: str
    scope: str
    line: int
    col: int
    attribute: str | None
    """`self.<attribute>.m(...)`; None for a call through a name."""
    receiver: str | None
    """`<receiver>.m(...)`; None for a call through an attribute."""


def call_sites(analysis: Context) -> Iterator[tuple[Site, str]]:
    """Every qualifying call in a method of a class, with the method of another class it calls."""
    index = analysis.index
    queries: list[tuple[str, Expr]] = []
    found: list[tuple[Site, str]] = []
    for facts in index.modules.values():
        for call in facts.calls:
            func = call.func
            holder = index.class_of.get(call.scope)
            definition = index.definitions.get(call.scope)
            if not isinstance(func, Attr) or holder is None or definition is None \
                    or not definition.params or definition.decorators:
                continue
            self_name = definition.params[0].name
            receiver = func.base
            if isinstance(receiver, Attr) and isinstance(receiver.base, Name) \
                    and receiver.base.id == self_name:
                site = Site(holder, call.scope, call.line, call.col, receiver.attr, None)
            elif isinstance(receiver, Name) and receiver.id != self_name:
                site = Site(holder, call.scope, call.line, call.col, None, receiver.id)
            else:
                continue
            queries.append((call.scope, receiver))
            found.append((site, func.attr))
    solver = index.calls.solver
    values = solver.values_of(queries) if solver is not None else [set() for _ in queries]
    for (site, name), options in zip(found, values):
        classes = {value[2:] for value in options
                   if value.startswith("i:") and value[2:] in index.classes}
        if len(classes) != len(options) or not options:
            # Values the analysis cannot follow flow in: the declared type, when every class
            # the analysis sees agrees with it, says what they are.
            declared = _declared(analysis, site)
            if declared is not None and all(declared in index.mro(cls) for cls in classes):
                classes = {declared, *index.descendants(declared)}
            elif not classes or not _private(name):
                continue  # an outside object may answer the call with a method of its own
        # A class without the method would make the call fail: the analysis over-approximates
        # (the call is guarded), so only the classes that have it must agree.
        targets = {index.lookup_method(cls, name) for cls in classes} - {None}
        if len(targets) != 1:
            continue
        (callee,) = targets
        if callee is None or index.class_of.get(callee) in (None, site.holder):
            continue
        yield site, callee


def _declared(analysis: Context, site: Site) -> str | None:
    """The one class of the repository the receiver is declared to hold: a parameter annotated
    with just that class (not `Optional`, not a union) and never rebound in the method, or an
    attribute of the holder that is only ever assigned such a parameter or annotated so."""
    index = analysis.index
    if site.receiver is not None:
        facts = analysis.file_of(site.scope)
        if facts is None or any(item.scope == site.scope and isinstance(item.target, Name)
                                and item.target.id == site.receiver
                                for item in facts.assignments):
            return None
        return _annotated_param(index, site.scope, site.receiver)
    found: set[str | None] = set()
    for cls in index.mro(site.holder):
        info = index.classes.get(cls)
        for item in info.attributes if info is not None else ():
            if item.name != site.attribute:
                continue
            if item.annotation:
                found.add(_one_class(index, item.scope, item.annotation))
            elif isinstance(item.value, Name):
                found.add(_annotated_param(index, item.scope, item.value.id))
            else:
                found.add(None)
    return found.pop() if len(found) == 1 else None


def _annotated_param(index: Index, scope: str, name: str) -> str | None:
    definition = index.definitions.get(scope)
    for param in definition.params if definition is not None else ():
        if param.name == name and param.kind in ("positional_only", "positional",
                                                 "keyword_only"):
            return _one_class(index, scope, param.annotation)
    return None


def _one_class(index: Index, scope: str, annotation: tuple[str, ...]) -> str | None:
    if len(annotation) != 1:
        return None
    head, _, rest = annotation[0].partition(".")
    resolved = index.resolve_name(scope, head)
    if resolved is None:
        return None
    target = index.resolve_dotted(f"{resolved}.{rest}") if rest else resolved
    return target if target in index.classes else None


_OUTSIDE_METHODS = frozenset(
    name for kind in (object, str, bytes, list, dict, set, tuple, io.IOBase, io.TextIOWrapper)
    for name in dir(kind))


def _private(name: str) -> bool:
    """A private name no common outside type defines: no outside object answers a call to it."""
    return name.startswith("_") and name not in _OUTSIDE_METHODS


def own_data(analysis: Context, method: str) -> set[str]:
    """Data attributes (properties included, not methods) of its own class that a method uses
    through `self` (the detector counts both as data once they are foreign), less
    those it navigates through (`self.current.type`, or `c = self.current; c.type`) and those it
    calls (`self.formatter_class(...)`): once the method has moved, the detector counts the
    former as links and the latter as collaboration, not as data it envies."""
    index = analysis.index
    entry = data_access(analysis).methods.get(method)
    definition = index.definitions.get(method)
    facts = analysis.file_of(method)
    if entry is None or definition is None or facts is None or not definition.params:
        return set()
    self_name = definition.params[0].name
    scopes = {method, *(name for name in index.definitions if name.startswith(f"{method}."))}

    def own_field(expr: Expr) -> str | None:
        if isinstance(expr, Attr) and isinstance(expr.base, Name) and expr.base.id == self_name:
            return expr.attr
        return None

    receivers = [access.receiver for access in facts.accesses if access.scope in scopes]
    navigated = {name for receiver in receivers if (name := own_field(receiver))}
    bound = {assignment.target.id: name for assignment in facts.assignments
             if assignment.scope in scopes and isinstance(assignment.target, Name)
             and (name := own_field(assignment.value))}
    navigated.update(bound[receiver.id] for receiver in receivers
                     if isinstance(receiver, Name) and receiver.id in bound)
    graph = analysis.attribute_graph
    called = {target for scope in scopes if scope in graph
              for target, data in graph[scope].items() if data.get("method")}
    return {name for name in entry.through_self
            if ((found := index.definitions.get(name)) is None or found.kind != "method"
                or is_property(found))
            and name.rpartition(".")[2] not in navigated and name not in called}


def plain_attribute(analysis: Context, holder: str, attribute: str) -> bool:
    """An instance attribute assigned by the class (no property, method or class attribute), so
    reading it twice gives the same object."""
    index = analysis.index
    assigned = False
    for cls in index.mro(holder):
        if attribute in index.children.get(cls, {}):
            return False
        info = index.classes.get(cls)
        if info is None:
            continue
        for item in info.attributes:
            if item.name == attribute:
                if item.kind != "instance":
                    return False
                assigned = True
    return assigned


def only_called_there(analysis: Context, method: str, scopes: set[str]) -> bool:
    """Nothing calls or names the method except those scopes; its name is in no string."""
    index = analysis.index
    graph = analysis.call_graph
    if method in graph and set(graph.predecessors(method)) - scopes:
        return False
    attributes = analysis.attribute_graph
    if method in attributes and set(attributes.predecessors(method)) - scopes:
        return False
    name = method.rpartition(".")[2]
    return not any(value == name for facts in index.modules.values()
                   for value, _ in facts.string_constants)


def look_alikes(analysis: Context, cls: str, method: str, holder: str,
                attribute: str | None, exclude: frozenset[str] = frozenset()) -> list[str]:
    """Look-alikes that are not envious: other methods of the envied class that read as much of
    its data (at home), else methods of the holder that reach the collaborator through the same
    attribute without reading its data (delegation), else methods of other classes that call
    the envied class's methods but use more of their own class than of its data (clients).
    `exclude`: names that cannot be herrings (the methods the smell involves)."""
    index = analysis.index

    def at_home(needed: int) -> list[str]:
        return [qualname for name, qualname in sorted(index.children.get(cls, {}).items())
                if qualname != method and index.definitions[qualname].kind == "method"
                and not is_dunder(name) and len(own_data(analysis, qualname)) >= needed]

    found = at_home(min(len(own_data(analysis, method)), 3))
    facts = analysis.file_of(holder)
    if not found and attribute is not None and facts is not None:
        users = {access.scope for access in facts.accesses
                 if isinstance(access.receiver, Attr) and access.receiver.attr == attribute
                 and isinstance(access.receiver.base, Name)
                 and index.class_of.get(access.scope) == holder}
        found = sorted(users - {qualname for qualname in users if is_dunder(
            qualname.rpartition(".")[2])})
    found = [name for name in found if name not in exclude]
    if not found:
        found = [name for name in _clients(analysis, cls, method) if name not in exclude]
    if not found:  # methods reading two of its fields are at home too
        found = [name for name in at_home(2) if name not in exclude]
    return found[:2]


def _clients(analysis: Context, cls: str, method: str) -> list[str]:
    """Methods of classes outside the envied class's lineage that call its other methods, and
    use no more of its data than of their own class (collaboration, not envy)."""
    index = analysis.index
    graph = analysis.call_graph
    lineage = set(index.mro(cls))
    callers = {caller for qualname in index.children.get(cls, {}).values()
               if qualname != method and qualname in graph
               for caller in graph.predecessors(qualname)}
    access = data_access(analysis)
    found = []
    for caller in sorted(callers):
        owner = index.class_of.get(caller)
        entry = access.methods.get(caller)
        if owner is None or entry is None or owner in lineage or cls in index.mro(owner) \
                or is_dunder(caller.rpartition(".")[2]):
            continue
        foreign = {name for name, use in access.data_uses(entry).items()
                   if use.owner in lineage}
        if len(foreign) <= len(entry.local) + len(access.calls(entry)):
            found.append(caller)
    return found


# -- the other direction: a class hands its own method's work to an object it holds -----------


@dataclass(frozen=True)
class Held:
    cls: str
    """The class of the object held."""
    asserted: bool
    """Known from the constructor's assertion only: the analysis sees no value stored there,
    so code that receives the holder from that object needs its type declared."""


def held_objects(analysis: Context) -> dict[str, dict[str, Held]]:
    """class -> plain instance attribute its constructor sets -> the one class of the
    repository (unrelated to it) whose instances the points-to analysis sees stored there.

    Such an object is a collaborator the class owns (`self.opts = SchemaOpts(meta)`,
    `self.stack = FilterStack()`): the natural wrong home of a method that works on the
    owner's data, reached as `self.<attribute>.m(self, ...)`. Where no value flows in that the
    analysis sees (the object comes from the class's users), the constructor's own check says
    what it is: the attribute set from a parameter it asserts to be an instance of one class
    (`assert isinstance(unbound_field, UnboundField)`; `_asserted`)."""
    index = analysis.index
    queries: list[tuple[str, Expr]] = []
    keys: list[tuple[str, str]] = []
    asserted: dict[tuple[str, str], str | None] = {}
    for cls, info in sorted(index.classes.items()):
        seen: set[str] = set()
        for item in info.attributes:
            definition = index.definitions.get(item.scope)
            if item.kind != "instance" or item.name in seen or definition is None \
                    or definition.name != "__init__" or not definition.params \
                    or index.class_of.get(item.scope) != cls:
                continue
            seen.add(item.name)
            if isinstance(item.value, Name):
                asserted[(cls, item.name)] = _asserted(analysis, item.scope, item.value.id)
            if plain_attribute(analysis, cls, item.name):
                queries.append((item.scope, Attr(Name(definition.params[0].name), item.name)))
                keys.append((cls, item.name))
    solver = index.calls.solver
    if solver is None or not queries:
        return {}
    found: dict[str, dict[str, Held]] = {}
    for (cls, attribute), values in zip(keys, solver.values_of(queries)):
        classes = {value[2:] for value in values if value.startswith("i:")}
        checked = asserted.get((cls, attribute))
        if not values and checked is not None:
            classes = {checked}  # (an instance of a subclass runs the same inherited code)
        elif len(classes) != 1 or len(values) != 1:
            continue  # nothing seen, several kinds of object, or objects from outside
        (held,) = classes
        if held in index.classes and held != cls and held not in index.mro(cls) \
                and cls not in index.mro(held):
            found.setdefault(cls, {})[attribute] = Held(held, not values)
    return found


def _asserted(analysis: Context, scope: str, name: str) -> str | None:
    """The one class of the repository that a constructor asserts its parameter `name` is an
    instance of (`assert isinstance(name, C)` in its body), the parameter never rebound."""
    index = analysis.index
    definition = index.definitions.get(scope)
    facts = analysis.file_of(scope)
    if definition is None or facts is None \
            or name not in {param.name for param in definition.params} \
            or any(item.scope == scope and item.target == Name(name) for item in facts.assignments):
        return None
    text = "\n".join(analysis.lines(facts.path)[definition.start_line - 1:definition.end_line])
    found = {match.group(1) for match in re.finditer(
        rf"\bassert\s+isinstance\(\s*{re.escape(name)}\s*,\s*([A-Za-z_][\w.]*)\s*\)", text)}
    if len(found) != 1:
        return None
    return _one_class(index, scope, tuple(found))


def self_calls(analysis: Context) -> Iterator[tuple[Site, str]]:
    """`self.m(...)` written directly in a method of the class that defines `m` (not in its
    constructor, which may run before the collaborator is set): each with the method `m`."""
    for call, cls, self_name, callee in _own_method_calls(analysis.index):
        yield Site(cls, call.scope, call.line, call.col, None, self_name), callee


def inherited_calls(analysis: Context, method: str) -> list[Site]:
    """`self.m(...)` written directly in an undecorated method (its constructor aside) of a
    subclass of `m`'s class that inherits `m` rather than overriding it: the calls a subclass
    makes to the method, each with the subclass as its holder."""
    index = analysis.index
    cls = index.class_of.get(method)
    name = method.rpartition(".")[2]
    found = []
    for facts in index.modules.values():
        for call in facts.calls:
            func = call.func
            owner = index.class_of.get(call.scope)
            definition = index.definitions.get(call.scope)
            if not isinstance(func, Attr) or func.attr != name or not isinstance(func.base, Name) \
                    or owner is None or owner == cls or definition is None \
                    or not definition.params or definition.decorators \
                    or definition.name == "__init__" \
                    or func.base.id != definition.params[0].name \
                    or index.lookup_method(owner, name) != method \
                    or any(index.lookup_method(sub, name) != method
                           for sub in index.descendants(owner)):
                continue  # (a subclass's override would no longer be called)
            found.append(Site(owner, call.scope, call.line, call.col, None, func.base.id))
    return found


def typed_calls(analysis: Context, method: str) -> list[Site]:
    """`x.m(...)` or `self.<attr>.m(...)` written in any function or method outside `m`'s
    class, whose receiver the analysis is sure holds an object of `m`'s class that runs `m`
    itself: the points-to analysis sees only instances of classes of the repository there, or,
    where it sees no value flow in at all, the receiver is a parameter (or an attribute set from
    one) annotated with one class. Every such class, and every subclass of it, must dispatch the
    call to `m` (an override would no longer run once the call goes to the new home; the
    analysis's instance of a class also stands for what an annotation or `self` promises, which
    a subclass may fill). Each
    site's holder is the class of its function ("" for a module-level function); `attribute`
    names the attribute of `self.<attr>.m(...)`, `receiver` the name of `x.m(...)` (or `self`)."""
    index = analysis.index
    cls = index.class_of.get(method)
    name = method.rpartition(".")[2]
    lineage = set(index.mro(cls)) if cls is not None else set()
    queries: list[tuple[str, Expr]] = []
    found: list[Site] = []
    for facts in index.modules.values():
        for call in facts.calls:
            func = call.func
            if not isinstance(func, Attr) or func.attr != name:
                continue
            owner = index.class_of.get(call.scope)
            definition = index.definitions.get(call.scope)
            if definition is None or definition.decorators:
                continue
            own = definition.params[0].name if owner is not None and definition.params else None
            base = func.base
            if isinstance(base, Name) and base.id != own:
                site = Site(owner or "", call.scope, call.line, call.col, None, base.id)
            elif isinstance(base, Attr) and isinstance(base.base, Name) and own is not None \
                    and base.base.id == own and owner is not None \
                    and plain_attribute(analysis, owner, base.attr):
                site = Site(owner, call.scope, call.line, call.col, base.attr, own)
            else:
                continue  # `self.m()` (a subclass's, `inherited_calls`) or a receiver computed
            if owner in lineage:
                continue  # the class's own code: it keeps calling the forwarding method
            queries.append((call.scope, base))
            found.append(site)
    solver = index.calls.solver
    if solver is None or not queries:
        return []
    typed = []
    for site, values in zip(found, solver.values_of(queries)):
        classes = {value[2:] for value in values if value.startswith("i:")}
        if not values:  # no value the analysis follows: the declared type, if any, says
            declared = _declared(analysis, site if site.attribute is None else Site(
                site.holder, site.scope, site.line, site.col, site.attribute, None))
            classes = {declared, *index.descendants(declared)} if declared is not None else set()
        elif len(classes) != len(values) or not classes <= set(index.classes):
            continue  # an object from outside (or None) may answer the call otherwise
        if classes and all(index.lookup_method(kind, name) == method
                           and all(index.lookup_method(sub, name) == method
                                   for sub in index.descendants(kind)) for kind in classes):
            typed.append(site)
    return typed


def calls_named(analysis: Context, scope: str, name: str) -> int:
    """How many calls of a method named `name` (`<anything>.name(...)`) a function makes."""
    facts = analysis.file_of(scope)
    return sum(1 for call in facts.calls if call.scope == scope
               and isinstance(call.func, Attr) and call.func.attr == name) \
        if facts is not None else 0


def _own_method_calls(index: Index) -> Iterator[tuple[CallSite, str, str, str]]:
    """`self.m(...)` calls written in an undecorated method (its constructor aside) of a class
    that defines the method `m`: each call with its class, the name of `self` and `m`."""
    for facts in index.modules.values():
        for call in facts.calls:
            func = call.func
            cls = index.class_of.get(call.scope)
            definition = index.definitions.get(call.scope)
            if not isinstance(func, Attr) or not isinstance(func.base, Name) or cls is None \
                    or definition is None or not definition.params or definition.decorators \
                    or definition.name == "__init__" \
                    or func.base.id != definition.params[0].name:
                continue
            callee = index.children.get(cls, {}).get(func.attr)
            if callee is not None and index.definitions[callee].kind == "method":
                yield call, cls, func.base.id, callee


# -- a class hands its own method the object it should belong to, as an argument --------------


@dataclass(frozen=True)
class Passed:
    """`self.m(..., x, ...)` in a method of the class defining `m`, where the argument `x` is
    always an instance of one class of the repository, bound to the parameter `param` of `m`."""

    site: Site
    param: str
    receiver: str
    classes: frozenset[str]


def passed_objects(analysis: Context) -> Iterator[tuple[Passed, str]]:
    """Every `self.m(...)` call in a method of `m`'s class (its constructor aside) that passes
    a name of the calling method to a named parameter of `m`, with the one repository class
    (unrelated to `m`'s) whose instances the points-to analysis sees in that name; each with
    the method `m`. Such an object is a collaborator the class lends its work to: the natural
    wrong home of a method that reads the lender's data (`error_store` passed to
    `Schema._invoke_field_validators`)."""
    index = analysis.index
    queries: list[tuple[str, Expr]] = []
    found: list[tuple[Site, str, str, str]] = []
    for call, cls, self_name, callee in _own_method_calls(index):
        target = index.definitions[callee]
        if len(target.params) < 2:
            continue
        named = _bound_arguments(target.params[1:], call.args, call.kwargs)
        for param, value in named.items():
            if isinstance(value, Name) and value.id != self_name:
                site = Site(cls, call.scope, call.line, call.col, None, value.id)
                queries.append((call.scope, value))
                found.append((site, callee, param, value.id))
    solver = index.calls.solver
    if solver is None or not queries:
        return
    for (site, callee, param, receiver), values in zip(found, solver.values_of(queries)):
        classes = {value[2:] for value in values if value.startswith("i:")}
        if len(classes) != 1 or len(values) != 1:
            continue  # nothing seen, several kinds of object, None, or objects from outside
        (passed,) = classes
        cls = site.holder
        if passed in index.classes and passed != cls and passed not in index.mro(cls) \
                and cls not in index.mro(passed):
            yield Passed(site, param, receiver, frozenset(classes)), callee


def _bound_arguments(params: Sequence[Param], args: Sequence[Expr],
                     kwargs: Sequence[tuple[str | None, Expr]]) -> dict[str, Expr]:
    """The arguments of a call bound to the (non-self) parameters they fill, by name; empty
    when `*args` or `**kwargs` hide which is which."""
    if any(isinstance(arg, Iter) for arg in args) or any(key is None for key, _ in kwargs):
        return {}
    positional = [param for param in params if param.kind in ("positional_only", "positional")]
    if len(args) > len(positional):
        return {}
    bound = {param.name: arg for param, arg in zip(positional, args)}
    for key, value in kwargs:
        if key is not None:
            bound[key] = value
    return bound


def holds_data(analysis: Context, cls: str) -> bool:
    """Whether instances of the class (or of its bases) carry attributes of their own: a
    collaborator with state, not a sentinel or a marker."""
    index = analysis.index
    return any(item.kind == "instance" for base in index.mro(cls)
               if (info := index.classes.get(base)) is not None for item in info.attributes)
