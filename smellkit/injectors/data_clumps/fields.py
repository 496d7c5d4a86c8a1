"""Data-clump injection of the third kind: a method's fields passed one by one to a function.

Many classes hold a group of settings that their methods read (`Length` and `NumberRange`
validators both keep `min`, `max` and `message`). The smelly version moves the body of such a
method into a module-level function (beside the class, or in a helper module the package
already has: `spread.py`), which takes the fields as
parameters (after them, the method's own): the method keeps its signature and becomes
`return check_range(self.min, self.max, self.message, form, field)`. Once the group travels
through three signatures in two modules (the moved functions, and existing signatures that
already take it, such as the constructors `__init__(self, min, max, message)`), it is a data
clump. The ground truth is the original (the inverse of Preserve Whole Object and of Move
Function).

Why it is sound: each field is read once when the method is called instead of when the body
reaches the read, which is the same value when nothing can assign the field in between and the
field is always there. So a field qualifies when it is set only in constructors, anywhere in the
repository (by attribute name, whatever the receiver), is never a method or property, and is
always set: a class attribute with a value, an assignment at the top level of the constructor's
body (through `super().__init__` calls), or a dataclass field. A method qualifies when it uses
`self` for nothing but reading such fields (no write, `self` passed on or closed over,
`super()`, `__class__`), calling a field only where it holds a callable set on the instance
(`self.values_formatter(self.values)` in WTForms' `AnyOf`: no class attribute would bind `self`
to it), and calling methods of its own class that qualify themselves and no subclass
overrides (`Range.__call__` calling `self._format_error(...)`): those move with it, and its
moved body calls the functions that took theirs over, handing on their fields, so the group
travels down a chain of signatures as real clumps do (`validate_range(min, max, error, ...)`
calling `format_range_error(min, max, error, ...)`). It also names no field otherwise (a local
or builtin `min` would be shadowed by the parameter), and every global it reads can be imported
at the top of the module that takes it, without closing an import cycle (`cst.move`; nothing is
imported inside the function). The function itself is made in `body.py`.
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

import libcst as cst

from smellkit.config import is_test_path
from smellkit.detectors.data_clumps import DataClumps, DataClumpsOptions, Holder
from smellkit.errors import InjectionRefused
from smellkit.facts import Definition, FileFacts
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.data_clumps.body import extract
from smellkit.injectors.data_clumps.plan import CONSTRUCTORS, Planner, class_fields

PROTOCOL = CONSTRUCTORS | frozenset({
    "__init_subclass__", "__set_name__", "__getattr__", "__getattribute__", "__setattr__",
    "__delattr__", "__del__", "__class_getitem__", "__getstate__", "__setstate__",
    "__reduce__", "__reduce_ex__", "__copy__", "__deepcopy__"})
"""Methods whose body runs while the object is built or copied: fields may be missing."""
KEPT_DECORATORS = frozenset({
    "property", "cached_property", "functools.cached_property", "cache", "functools.cache",
    "lru_cache", "functools.lru_cache", "contextmanager", "contextlib.contextmanager"})
"""Decorators that stay on the method and wrap it alike when its body delegates (a generator
method's call still returns the generator). Others may register the code object (jinja2's
`internalcode` hides its frames from tracebacks) or inspect it: refused."""
_MAX_FIELDS = 12


@dataclass(frozen=True)
class Reader:
    """A method that uses `self` only to read `fields` (in the class's order)."""

    qualname: str
    cls: str
    path: str
    module: str
    line: int
    fields: tuple[str, ...]
    """Its own field reads and those of the methods it calls, in the class's order."""
    calls: tuple[str, ...] = ()
    """Readers of its class it calls on `self` (qualnames): they move with it, and the moved
    body calls the functions that took theirs over, handing them their fields."""
    stored_calls: tuple[str, ...] = ()
    """Fields holding a callable that its body calls (`self.values_formatter(values)`)."""


@dataclass(frozen=True)
class Group:
    """Fields that several readers read, and the existing signatures that take them already."""

    fields: tuple[str, ...]
    readers: tuple[Reader, ...]
    holders: tuple[Holder, ...]
    """Existing signatures (one per override key) with every field as a parameter."""


_READERS: weakref.WeakKeyDictionary[InjectionContext, dict[str, Reader]] = \
    weakref.WeakKeyDictionary()
_HOLDERS: weakref.WeakKeyDictionary[InjectionContext, list[Holder]] = \
    weakref.WeakKeyDictionary()


def readers(context: InjectionContext, planner: Planner, *, min_fields: int) -> dict[str, Reader]:
    """Every method whose body can move out with its fields as parameters (cached), counting
    the definitions turned away by rule. A method that also calls other such methods of its
    class on `self` qualifies too, the fields they read joining its own (`helper_calls`)."""
    if context not in _READERS:
        found: dict[str, Reader] = {}
        calling: list[tuple[FileFacts, Definition]] = []
        for facts in sorted(context.index.modules.values(), key=lambda item: item.path):
            for definition in facts.definitions:
                if definition.kind != "method" or definition.parent not in context.index.classes:
                    continue
                rule, reader = _reader(context, planner, facts, definition, min_fields)
                if rule == CALLS_METHODS:
                    calling.append((facts, definition))
                elif rule:
                    context.discard(rule)
                elif reader is not None:
                    found[reader.qualname] = reader
        plain = dict(found)
        for facts, definition in calling:
            callees = helper_calls(context, planner, facts, definition, plain)
            rule, reader = _reader(context, planner, facts, definition, min_fields,
                                   callees=callees) if callees else (CALLS_METHODS, None)
            if rule:
                context.discard(rule)
            elif reader is not None:
                found[reader.qualname] = reader
        _READERS[context] = found
    return _READERS[context]


CALLS_METHODS = "a method that writes through self or calls its methods"


def helper_calls(context: InjectionContext, planner: Planner, facts: FileFacts,
                 definition: Definition, plain: dict[str, Reader]) -> dict[str, Reader] | None:
    """The readers a method calls on `self` (by method name), when it writes nothing through
    `self` and every method it calls there is an undecorated reader of its own class that no
    subclass overrides (the call then always runs that body, and nothing else); else None."""
    index = context.index
    cls = definition.parent
    own = [access for access in facts.accesses if access.scope == definition.qualname
           and access.own]
    if any(access.write for access in own):
        return None
    found: dict[str, Reader] = {}
    callable_fields: set[str] | None = None
    for access in own:
        if not access.called:
            continue
        qualname = f"{cls}.{access.attr}"
        if qualname not in plain:
            if callable_fields is None:
                callable_fields = called_fields(context, planner, cls)
            if access.attr in callable_fields:
                continue  # a stored callable, called as a function would call it
        reader = plain.get(qualname)
        if reader is None or access.attr.startswith("__") or \
                index.definitions[qualname].decorators or \
                index.member(cls, access.attr) != qualname or any(
                access.attr in index.children.get(sub, {}) for sub in index.descendants(cls)):
            return None  # a property, cached or context-managing helper is no plain call (and
            # a special method's function may do without some of its parameters)
        found[access.attr] = reader
    return found or None


def _reader(context: InjectionContext, planner: Planner, facts: FileFacts,
            definition: Definition, min_fields: int, *,
            callees: dict[str, Reader] | None = None) -> tuple[str, Reader | None]:
    """(the rule that turns the method away or "", the reader); `callees`: the readers it may
    call on `self`, by method name."""
    index = context.index
    cls = definition.parent
    if is_test_path(facts.path):
        return "test code", None
    if definition.name in PROTOCOL or definition.is_stub:
        return "", None  # not a candidate at all: no discard count
    if not definition.params or definition.params[0].kind != "positional" or \
            {"staticmethod", "classmethod"} & set(definition.decorators):
        return "", None
    self_name = definition.params[0].name
    own = [access for access in facts.accesses if access.scope == definition.qualname
           and access.own]
    callees = callees or {}
    reads = {access.attr for access in own if access.attr not in callees}
    reads.update(field for callee in callees.values() for field in callee.fields)
    if len(reads) < min_fields:
        return "", None  # reads too few fields to carry a clump: most methods
    if definition.is_async:
        return "a coroutine reading its fields (a call cannot stand for its body)", None
    if not set(definition.decorators) <= KEPT_DECORATORS:
        return "a decorated method reading its fields", None
    called = {access.attr for access in own if access.called and access.attr not in callees}
    if any(access.write for access in own) or (
            called and not called <= called_fields(context, planner, cls)):
        return CALLS_METHODS, None
    text = planner.span(facts.path, definition)
    if len(re.findall(rf"\b{re.escape(self_name)}\b", text)) != len(own) + 1:
        return "a method that uses self otherwise than reading its fields", None
    stable = stable_fields(context, planner, cls)
    if not reads <= stable:
        return ("a method reading attributes of self that are not fields set once when the "
                "object is built"), None
    if context.path_of(cls) != facts.path or move.top_level(index, cls) is None:
        return "a method of a nested class", None
    if not context.is_covered(definition.qualname) or \
            not context.well_covered(definition.qualname):
        return "a method the tests run too little of", None
    fields = tuple(field_order(context, cls, reads))
    try:
        extract(context, facts.path, facts.module, definition, fields, facts.module, helpers={
            name: (name, callee.fields) for name, callee in callees.items()}, stored_calls=called)
    except InjectionRefused as refusal:
        return _rule_of(refusal.message), None
    return "", Reader(definition.qualname, cls, facts.path, facts.module,
                      definition.start_line, fields,
                      tuple(sorted(callee.qualname for callee in callees.values())),
                      tuple(sorted(called)))


def field_order(context: InjectionContext, cls: str, fields: set[str]) -> list[str]:
    """`fields` in the order the class assigns them in its constructor, those its constructor
    takes as parameters in the order it takes them (`Length(min, max, equal, error)` gives
    `min, max, equal, error` whatever the order of the assignments): every new signature lists
    a group the way the repository's own does, and all of one class's alike."""
    index = context.index
    items = index.classes[cls].attributes
    assigned = list(dict.fromkeys([  # the constructor's assignments first
        *(item.name for item in items if item.kind == "instance"
          and item.scope.rpartition(".")[2] in CONSTRUCTORS), *(item.name for item in items)]))
    params: list[str] = []
    for klass in index.mro(cls):
        init = index.children.get(klass, {}).get("__init__")
        if init is not None and init in index.definitions:
            params = [param.name for param in index.definitions[init].params[1:]]
            break
    taken = iter(sorted((name for name in assigned if name in params), key=params.index))
    order = [next(taken) if name in params else name for name in assigned]
    return sorted(fields, key=lambda item: (order.index(item) if item in order else len(order),
                                            item))


def _rule_of(message: str) -> str:
    """A refusal's message as a discard rule (without the method's name)."""
    if "close a cycle" in message:
        return "a method whose body reads a global its new home cannot import without a cycle"
    if "names a field" in message:
        return "a method that also binds or reads a field's name (a parameter would shadow it)"
    return "a method whose body cannot move to a module-level function"


def stable_fields(context: InjectionContext, planner: Planner, cls: str) -> set[str]:
    """Public fields of the class (2+ letters) that are always set and never reassigned after
    construction, and are no method or property."""
    index = context.index
    if any("__getattribute__" in index.children.get(item, {}) for item in index.mro(cls)):
        return set()
    found: set[str] = set()
    for name in class_fields(index, cls) | _class_values(context, cls):
        if name.startswith("_") or len(name) < 2:
            continue
        members = [index.member(cls, name), *(index.children.get(sub, {}).get(name)
                                              for sub in index.descendants(cls))]
        if any(member is not None and member in index.definitions
               and index.definitions[member].kind != "class" for member in members):
            continue  # a method or property here or in a subclass
        if not {scope.rpartition(".")[2] for scope in planner.writes.get(name, ())} \
                <= CONSTRUCTORS:
            continue
        if all(_always_set(context, klass, name) for klass in [cls, *index.descendants(cls)]):
            found.add(name)
    return found


def called_fields(context: InjectionContext, planner: Planner, cls: str) -> set[str]:
    """Stable fields that hold a callable the methods may call (`self.values_formatter(v)`,
    WTForms' `AnyOf`): set on the instance only, never at class level in the class, its bases
    or subclasses, so `self.f(x)` calls the stored object as `f(x)` does (a function stored on
    the class would be bound and get `self` first)."""
    index = context.index
    classes = [*(item for item in index.mro(cls) if item in index.classes),
               *index.descendants(cls)]
    at_class = {item.name for klass in classes if klass in index.classes
                for item in index.classes[klass].attributes if item.kind == "class"}
    return stable_fields(context, planner, cls) - at_class


def _class_values(context: InjectionContext, cls: str) -> set[str]:
    info = context.index.classes[cls]
    return {item.name for item in info.attributes if item.kind == "class"
            and item.value is not None}


def _always_set(context: InjectionContext, cls: str, name: str) -> bool:
    """The attribute exists on every instance of `cls`: a class attribute with a value (or an
    annotated one of a class without a constructor: a dataclass field), or assigned at the top
    level of the constructor that runs, following `super().__init__` calls."""
    index = context.index
    mro = [item for item in index.mro(cls) if item in index.classes]
    for klass in mro:
        for item in index.classes[klass].attributes:
            if item.name == name and item.kind == "class" and item.value is not None:
                return True
    constructors = [klass for klass in mro if "__init__" in index.children.get(klass, {})]
    if not constructors:
        return any(item.name == name and item.kind == "class" and item.annotation
                   for klass in mro for item in index.classes[klass].attributes)
    for klass in constructors:
        sets, chains = _constructor_sets(context, klass, name)
        if sets:
            return True
        if not chains:
            return False
    return False


def _constructor_sets(context: InjectionContext, cls: str, name: str) -> tuple[bool, bool]:
    """(the class's `__init__` assigns `self.<name>` at the top level of its body, it calls
    `super().__init__` there)."""
    path = context.path_of(cls)
    top = move.top_level(context.index, cls)
    if path is None or top is None:
        return False, False
    node = move.find_class(context.module(path), top[1])
    method = move.find_method(node, "__init__") if node is not None else None
    if method is None or not isinstance(method.body, cst.IndentedBlock) or \
            not method.params.params:
        return False, False
    self_name = method.params.params[0].name.value
    sets = chains = False
    for statement in method.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            targets: list[cst.BaseExpression] = []
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, (cst.Tuple, cst.List)):
                        targets.extend(element.value for element in target.target.elements)
                    else:
                        targets.append(target.target)
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets.append(small.target)
            sets = sets or any(
                isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == self_name and target.attr.value == name
                for target in targets)
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                func = small.value.func
                chains = chains or (
                    isinstance(func, cst.Attribute) and func.attr.value == "__init__"
                    and isinstance(func.value, cst.Call) and isinstance(func.value.func, cst.Name)
                    and func.value.func.value == "super")
    return sets, chains


# -- groups -------------------------------------------------------------------------------------


def closed(readers: Sequence[Reader]) -> list[Reader]:
    """The readers whose helpers are all among them (a body that calls a helper moves only
    with the helper's)."""
    kept = list(readers)
    while True:
        names = {reader.qualname for reader in kept}
        left = [reader for reader in kept if set(reader.calls) <= names]
        if len(left) == len(kept):
            return kept
        kept = left


def existing_holders(context: InjectionContext) -> list[Holder]:
    """The detector's holders of the original (signatures and field sets), cached."""
    if context not in _HOLDERS:
        _HOLDERS[context] = DataClumps(DataClumpsOptions()).holders(context.index)
    return _HOLDERS[context]


def groups(context: InjectionContext, found: dict[str, Reader], *, min_fields: int,
           max_fields: int) -> Iterator[Group]:
    """Field groups (closed: every field all their readers share) read by readers, with the
    existing signatures that take them, where readers and holders make 3 signatures."""
    counts: dict[tuple[str, ...], list[Reader]] = defaultdict(list)
    for reader in found.values():
        for triple in combinations(sorted(reader.fields[:_MAX_FIELDS]), min_fields):
            counts[triple].append(reader)
    holders = existing_holders(context)
    seen: set[frozenset[str]] = set()
    for _, sharing in sorted(counts.items()):
        sharing = closed(sharing)
        if not sharing:
            continue
        common = frozenset.intersection(*(frozenset(item.fields) for item in sharing))
        if common in seen or len(common) > max_fields:
            continue
        seen.add(common)
        moved = {reader.qualname for reader in sharing}
        keys: dict[str, Holder] = {}
        for holder in holders:
            if common <= set(holder.names) and holder.qualname not in moved:
                keys.setdefault(holder.key, holder)
        if len(sharing) + len(keys) < 3:
            continue
        first = sharing[0]
        order = list(first.fields)
        yield Group(tuple(sorted(common, key=order.index)),
                    tuple(sorted(sharing, key=lambda item: (item.path, item.line))),
                    tuple(keys.values()))
