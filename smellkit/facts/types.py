"""The fact types: what `smellkit.facts` extracts from one file, as immutable named tuples.

They pickle fast between worker processes and into the cache (`smellkit.project._pickling`), and the
expressions that matter for call resolution are kept in a tiny intermediate form (`Expr`) instead
of `ast` nodes, so the resolver never needs the tree again.
"""

from __future__ import annotations

from typing import NamedTuple

from smellkit.facts.blocks import FunctionShape
from smellkit.facts.fingerprints import Fingerprints
from smellkit.facts.reachability import Liveness
from smellkit.metrics.complexity import CodeMeasure

FACTS_SCHEMA = 18
"""Bump whenever a fact type changes shape: cached facts of another schema are never read."""

# --------------------------------------------------------------------------------------------
# The expression form used by the call resolver. Every form ends with a `tag` naming its kind:
# named tuples compare as plain tuples, so without it `Name("str")` would equal `Const("str")`
# (and the two would be merged when equal forms are shared, or confused as dictionary keys).


class Name(NamedTuple):
    id: str
    tag: str = "name"


class Attr(NamedTuple):
    base: Expr
    attr: str
    tag: str = "attr"


class CallOf(NamedTuple):
    """The value returned by call number `index` of the same file."""

    index: int  # type: ignore[assignment]  # shadows tuple.index; the name is part of the API
    tag: str = "call"


class Sub(NamedTuple):
    """`base[key]`; `key` is None when it is not a constant."""

    base: Expr
    key: str | int | None
    tag: str = "sub"


class DefRef(NamedTuple):
    """A function, lambda or class defined in this file, by qualified name."""

    qualname: str
    tag: str = "def"


class Seq(NamedTuple):
    """A list, tuple or set display."""

    items: tuple[Expr, ...]
    tag: str = "seq"


class DictLit(NamedTuple):
    items: tuple[tuple[str | int | None, Expr], ...]
    tag: str = "dict"


class Alts(NamedTuple):
    """Any one of several values (`a if c else b`, `a or b`)."""

    options: tuple[Expr, ...]
    tag: str = "alts"


class Iter(NamedTuple):
    """An element of an iterable (`for x in base`)."""

    base: Expr
    tag: str = "iter"


class Const(NamedTuple):
    type_name: str
    tag: str = "const"


class Unknown(NamedTuple):
    tag: str = "unknown"


Expr = Name | Attr | CallOf | Sub | DefRef | Seq | DictLit | Alts | Iter | Const | Unknown
UNKNOWN = Unknown()

# --------------------------------------------------------------------------------------------
# Facts.


class Param(NamedTuple):
    name: str
    kind: str  # positional_only | positional | var_positional | keyword_only | var_keyword
    annotation: tuple[str, ...]  # dotted names mentioned by the annotation, None excluded
    default: Expr | None


class Definition(NamedTuple):
    qualname: str
    name: str
    kind: str  # class | function | method | nested_function | lambda
    parent: str  # qualname of the enclosing definition or module
    start_line: int
    end_line: int
    col: int
    decorators: tuple[str, ...]  # dotted text of each decorator's callee, e.g. "functools.wraps"
    params: tuple[Param, ...]
    returns: tuple[str, ...]  # dotted names in the return annotation
    is_async: bool
    is_stub: bool  # body is only pass / ... / raise NotImplementedError / return None
    measure: CodeMeasure | None


class ClassAttribute(NamedTuple):
    name: str
    line: int
    kind: str  # class | instance
    annotation: tuple[str, ...]
    value: Expr | None
    scope: str  # the method (or class body) that assigns it


class ClassInfo(NamedTuple):
    qualname: str
    bases: tuple[Expr, ...]
    base_names: tuple[str, ...]  # dotted text of each base (`Base` for `Base[T]`), "" if none
    metaclass: str | None
    attributes: tuple[ClassAttribute, ...]


class CallSite(NamedTuple):
    scope: str  # qualname of the enclosing function, lambda or module
    func: Expr
    args: tuple[Expr, ...]  # `*xs` becomes `Iter(xs)`
    kwargs: tuple[tuple[str | None, Expr], ...]  # None name: **mapping
    line: int
    col: int
    implicit: bool  # a decorator application, not written as a call
    namespace: str = ""  # where names in the call are looked up: the class for a class body


class Assignment(NamedTuple):
    scope: str  # where the target is bound: a name in a class body binds in the class
    target: Expr  # Name, Attr or Sub
    value: Expr
    line: int
    annotation: tuple[str, ...]


class Return(NamedTuple):
    scope: str
    value: Expr


class AttributeAccess(NamedTuple):
    scope: str
    receiver: Expr
    attr: str
    write: bool
    called: bool  # the attribute is immediately called: `obj.attr(...)`
    own: bool  # the receiver is the method's own `self` or `cls`
    line: int


class ImportFact(NamedTuple):
    scope: str
    bound: str  # the local name the import binds ("*" for a star import)
    target: str  # absolute dotted name: a module, or module.attribute
    line: int
    is_from: bool
    level: int
    type_only: bool  # under `if TYPE_CHECKING:`; never executed


class FileFacts(NamedTuple):
    path: str  # relative to the project root, POSIX
    module: str
    is_package: bool
    definitions: tuple[Definition, ...]
    classes: tuple[ClassInfo, ...]
    calls: tuple[CallSite, ...]
    assignments: tuple[Assignment, ...]
    returns: tuple[Return, ...]
    accesses: tuple[AttributeAccess, ...]
    imports: tuple[ImportFact, ...]
    globals_declared: tuple[tuple[str, str], ...]  # (scope, name) for `global` / `nonlocal`
    dunder_all: tuple[str, ...] | None
    measure: CodeMeasure
    string_constants: tuple[tuple[str, int], ...]  # (value, line) of short string literals
    liveness: Liveness  # unreachable statements, names and attributes read (reachability.py)
    fingerprints: Fingerprints  # statement hashes for clone detection (fingerprints.py)
    shapes: tuple[FunctionShape, ...]  # long functions: nesting, extractable blocks (blocks.py)
    detailed: bool = True
    """False when extracted for graphs and metrics only: then `liveness`, `fingerprints` and
    `shapes`, which only the detectors read, are left empty (`smellkit.facts.extract`)."""
