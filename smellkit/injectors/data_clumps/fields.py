"""Data-clump injection of the third kind: a method's fields passed one by one to a function.

Many classes hold a group of settings that their methods read (`Length` and `NumberRange`
validators both keep `min`, `max` and `message`). The smelly version moves the body of such a
method into a module-level function of a new module of the package, which takes the fields as
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
by the new module: at its top, or, where that would close an import cycle (a name the source
module defines, such as the exception a validator raises), at the top of the function's body,
read when it is called; names only postponed annotations read are imported for type checking
(`cst.move`).
"""

from __future__ import annotations

import random
import re
import weakref
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import combinations

import libcst as cst

from smellkit.config import is_test_path
from smellkit.detectors.data_clumps import DataClumps, DataClumpsOptions, Holder
from smellkit.errors import InjectionRefused
from smellkit.facts import Definition, FileFacts
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.edit import subtree
from smellkit.injectors.cst.imports import is_docstring
from smellkit.injectors.cst.rename import Rename
from smellkit.injectors.data_clumps.plan import CONSTRUCTORS, Planner, class_fields
from smellkit.injectors.naming import meaningful, overlaps, pick, snake, words

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
        extract(context, facts.path, facts.module, definition, fields, helpers={
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
    if "import cycle" in message:
        return "a method whose body reads a global the new module cannot import without a cycle"
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


# -- the moved function -------------------------------------------------------------------------


@dataclass(frozen=True)
class Extracted:
    """A method's body as a module-level function of a new module, and what it needs."""

    method: cst.FunctionDef
    """The method's node in the original tree."""
    function: cst.FunctionDef
    """The new function (named by the caller), its fields first among its parameters."""
    imports: tuple[str, ...]
    """Statements the new module needs at its top."""
    type_checking: tuple[str, ...]
    """Imports for its `if TYPE_CHECKING:` block (names only postponed annotations read)."""
    future: bool
    """The source module postpones annotations (the new module must too)."""
    dropped: tuple[str, ...] = ()
    """Parameters of a special method the body never reads (`form` of a validator's
    `__call__(self, form, field)`): the function does without them, and so does its call."""


def extract(context: InjectionContext, path: str, module: str, definition: Definition,
            fields: Sequence[str],
            helpers: Mapping[str, tuple[str, Sequence[str]]] | None = None,
            stored_calls: AbstractSet[str] = frozenset()) -> Extracted:
    """The method's body as a function taking `fields` and then the method's own parameters;
    refused when the body uses `self` otherwise or cannot move (`cst.move`). `helpers`: the
    methods it calls on `self` whose bodies move too, each as (the function now holding it, its
    fields): `self.m(x)` becomes `function(field, ..., x)`. `stored_calls`: fields holding a
    callable the body calls (`called_fields`)."""
    helpers = helpers or {}
    tree = context.module(path)
    cls, _, name = definition.qualname[len(module) + 1:].rpartition(".")
    node = move.find_class(tree, cls)
    method = move.find_method(node, name) if node is not None else None
    if method is None or not isinstance(method.body, cst.IndentedBlock):
        raise InjectionRefused(f"{definition.qualname} is not a method written on its own lines")
    if method.params.star_kwarg is not None:  # `m(low=1)` would become a second `low`
        raise InjectionRefused(f"{name} takes **{method.params.star_kwarg.name.value}, which "
                               "may hold a keyword named like a field")
    function = method.with_changes(decorators=())
    future = move.has_future_annotations(tree)
    wrapper = context.wrapper(path)
    self_reads, body_globals, def_globals, builtins = move.analyse(
        tree, function, postponed=future, wrapper=wrapper)
    self_name = method.params.params[0].name.value
    _require_field_reads(method, self_name, self_reads, fields, set(helpers), stored_calls)
    renamed = _renamed_locals(context, definition, method, fields,
                              body_globals | def_globals | builtins)
    moved = move.move_method(context.index, module, tree, function, None,
                             replacement=cst.Name(self_name), postponed=future,
                             importer=module, wrapper=wrapper, hoist=True)
    new = moved.function.visit(Rename(renamed))
    assert isinstance(new, cst.FunctionDef)
    new = new.visit(_FieldReads(self_name, set(fields)))
    assert isinstance(new, cst.FunctionDef)
    if helpers:
        new = new.visit(_HelperCalls(self_name, helpers))
        assert isinstance(new, cst.FunctionDef)
    body = list(new.body.body)
    deferred = len(body) - len(method.body.body)  # imports read when called (`cst.move`)
    if body and is_docstring(body[0]):
        if len(body) == 1:
            raise InjectionRefused(f"{name} has nothing but a docstring")
        body = body[1:]
        opening = body[0]
        if isinstance(opening, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            body[0] = opening.with_changes(leading_lines=[
                line for line in opening.leading_lines if line.comment is not None])
    if 0 < deferred < len(body):  # a blank line between those imports and the code
        after = body[deferred]
        if isinstance(after, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and \
                not after.leading_lines:
            body[deferred] = after.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    params = new.params
    own = list(params.params[1:])
    dropped: tuple[str, ...] = ()
    if name.startswith("__"):  # the protocol fixes its signature; a helper would not
        read = {node.value for node in _plain_names(new.body)}
        dropped = tuple(param.name.value for param in own if param.name.value not in read)
        own = [param for param in own if param.name.value not in dropped]
        if own:
            own[-1] = own[-1].with_changes(comma=params.params[-1].comma)
    added = [cst.Param(cst.Name(field), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
        " "))) for field in fields]
    if not own and params.star_arg is cst.MaybeSentinel.DEFAULT and not params.kwonly_params \
            and params.star_kwarg is None:
        added[-1] = added[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = new.with_changes(
        params=params.with_changes(params=[*added, *own]),
        body=new.body.with_changes(body=body), leading_lines=(), decorators=())
    return Extracted(method, new, moved.imports, moved.type_checking, future, dropped)


def _require_field_reads(method: cst.FunctionDef, self_name: str, self_reads: set[int],
                         fields: Sequence[str],
                         helpers: AbstractSet[str] = frozenset(),
                         stored_calls: AbstractSet[str] = frozenset()) -> None:
    """Every `self` in the body reads one of the fields or calls one of `helpers` or of
    `stored_calls` (no other call, write, deletion, nested function or lambda around it), and
    no other name in the method is one of the fields."""
    name = method.name.value
    nested: set[int] = set()
    targets: set[int] = set()
    called: set[int] = set()
    for node in subtree(method.body):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            nested.update(id(item) for item in subtree(node))
        elif isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del,
                               cst.For, cst.CompFor)):
            targets.update(_bound(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets.update(_bound(node.asname.name))
        elif isinstance(node, cst.Call):
            called.add(id(node.func))
    field_reads: set[int] = set()
    skip: set[int] = set()
    for node in subtree(method.body):
        if isinstance(node, cst.Attribute):
            skip.add(id(node.attr))
            if isinstance(node.value, cst.Name) and node.value.value == self_name:
                helper = (node.attr.value in helpers or node.attr.value in stored_calls) and \
                    id(node) in called
                if not helper and (node.attr.value not in fields or id(node) in called
                                   or id(node) in targets):
                    raise InjectionRefused(f"{name} uses {self_name}.{node.attr.value} otherwise "
                                           "than reading a field")
                if id(node) in nested:
                    raise InjectionRefused(f"{name} reads {self_name} in a nested function")
                field_reads.add(id(node.value))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skip.add(id(node.keyword))
    for node in subtree(method.body):
        if not isinstance(node, cst.Name) or id(node) in skip:
            continue
        if node.value == self_name and (id(node) not in field_reads or id(node) not in
                                        self_reads):
            raise InjectionRefused(f"{name} uses {self_name} otherwise than reading its fields")


def _bound(target: cst.BaseExpression) -> set[int]:
    """The nodes a target binds: itself, or the elements of a tuple or list target (not what
    `x.y = ...` or `x[k] = ...` mutates inside the object `x` holds)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return {found for element in target.elements for found in _bound(element.value)}
    if isinstance(target, cst.StarredElement):
        return _bound(target.value)
    return {id(target)}


def _plain_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """The names of variables in a node (not attribute names, nor keywords of arguments)."""
    skip: set[int] = set()
    for item in subtree(node):
        if isinstance(item, cst.Attribute):
            skip.add(id(item.attr))
        elif isinstance(item, cst.Arg) and item.keyword is not None:
            skip.add(id(item.keyword))
        elif isinstance(item, cst.Name) and id(item) not in skip:
            yield item


_JOINING = frozenset({"of", "in", "on", "to", "by", "at", "or"})
"""Short words that join a class's name into a phrase (`AnyOf`, `NoneOf`, `OneOf`)."""


def class_words(cls_name: str) -> list[str]:
    """The words a new name takes from a class's: its meaningful ones, or the whole phrase where
    a joining word makes the class's meaning (`NoneOf` gives `none_of`: `none` alone would read
    as `None`)."""
    parts = words(cls_name)
    if len(parts) > 1 and any(part in _JOINING for part in parts[1:]):
        return parts
    return [word for word in parts if meaningful(word)]


def class_noun(cls_name: str) -> list[str]:
    """The words of a class's name a function's name takes: its last meaningful word
    (`NumberRange` gives `range`), or its phrase (`none_of`)."""
    found = class_words(cls_name)
    return found if not all(map(meaningful, found)) else found[-1:]


def _renamed_locals(context: InjectionContext, definition: Definition, method: cst.FunctionDef,
                    fields: Sequence[str], outside: set[str]) -> dict[str, str]:
    """New names for the method's locals that are named like a field (`message =
    self.message or ...`): the field's parameter would otherwise be the local. A parameter, a
    global or builtin (`max(...)`) named like a field is refused: it cannot be renamed."""
    name = method.name.value
    params = method.params
    for param in [*params.posonly_params, *params.params, *params.kwonly_params,
                  *(item for item in (params.star_arg, params.star_kwarg)
                    if isinstance(item, cst.Param))]:
        if param.name.value in fields:
            raise InjectionRefused(f"{name} names a field, {param.name.value}, as a parameter")
    clashing = sorted({node.value for node in _plain_names(method.body)} & set(fields))
    if not clashing:
        return {}
    for field in clashing:
        if field in outside:
            raise InjectionRefused(f"{name} names a field, {field}, as a global or builtin")
    if any(isinstance(node, (cst.Import, cst.ImportFrom)) or (
            isinstance(node, cst.Name) and node.value in ("locals", "vars", "eval", "exec"))
           for node in subtree(method.body)):
        raise InjectionRefused(f"{name} names a field, {clashing[0]}, as a variable it cannot "
                               "rename (it imports or reads its locals dynamically)")
    taken = {*move.names_in(method), *fields, *outside}
    renamed: dict[str, str] = {}
    rng = random.Random(definition.qualname)
    noun = class_noun(definition.parent.rpartition(".")[2])
    for field in clashing:
        own = [word for word in words(field) if meaningful(word)] or [field]
        first = [snake([*noun, *own])] if noun and not overlaps(noun[-1], own) else []
        found = context.vocabulary.names(
            definition.qualname.rpartition(".")[0].rpartition(".")[0], definition.parent, name,
            head=[word for word in words(field) if meaningful(word)] or [field], rng=rng, most=1)
        renamed[field] = pick((item for item in [*first, *found] if item != field), taken,
                              what=f"the local {field} of {name}")
        taken.add(renamed[field])
    return renamed


class _HelperCalls(cst.CSTTransformer):
    """`self.m(x)` becomes `function(field, ..., x)` for each moved helper `m`."""

    def __init__(self, self_name: str, helpers: Mapping[str, tuple[str, Sequence[str]]]):
        super().__init__()
        self.self_name = self_name
        self.helpers = helpers

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.value.value == self.self_name and func.attr.value in self.helpers:
            name, fields = self.helpers[func.attr.value]
            added = [cst.Arg(cst.Name(field)) for field in fields]
            return updated_node.with_changes(func=cst.Name(name),
                                             args=[*added, *updated_node.args])
        return updated_node


class _FieldReads(cst.CSTTransformer):
    """`self.field` becomes `field`."""

    def __init__(self, self_name: str, fields: set[str]):
        super().__init__()
        self.self_name = self_name
        self.fields = fields

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        value = updated_node.value
        if isinstance(value, cst.Name) and value.value == self.self_name and \
                updated_node.attr.value in self.fields:
            return cst.Name(updated_node.attr.value, lpar=updated_node.lpar,
                            rpar=updated_node.rpar)
        return updated_node


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
