"""String keys scattered over a repository: literal sites and string-keyed registries.

The shotgun-surgery detector's second and third forms read these: where each short string
literal is written (by innermost definition), and which module- or class-level mapping of the
repository a `base["key"]` or `base.get("key")` uses.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Container, Iterator

from smellkit.analysis.context import Context
from smellkit.config import is_test_path
from smellkit.facts import (
    Alts,
    Attr,
    CallOf,
    Const,
    DefRef,
    DictLit,
    Expr,
    FileFacts,
    Iter,
    Name,
    Seq,
    Sub,
    Unknown,
)
from smellkit.models import Location

COMMON_LITERALS = frozenset({  # encodings, error handlers, file modes, platforms, builtins...
    "utf-8", "utf8", "UTF-8", "ascii", "latin-1", "latin1", "utf-16", "utf-32", "cp1252",
    "strict", "replace", "ignore", "surrogateescape", "backslashreplace", "xmlcharrefreplace",
    "rb", "wb", "ab", "r+", "w+", "rb+", "wb+", "True", "False", "None", "self", "cls", "args",
    "kwargs", "name", "value", "values", "key", "keys", "default", "object", "str", "int",
    "float", "bool", "bytes", "list", "dict", "tuple", "set", "type", "stdin", "stdout",
    "stderr", "win32", "cygwin", "linux", "darwin", "posix", "little", "big", "error", "warn",
    "warning", "always", "once", "module", "auto", "both", "left", "right", "none", "all",
    "any", "GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS",
})
DTYPE = re.compile(r"(?:u?int|float|complex|bool|datetime|timedelta|period|interval|object|"
                   r"category|string|str|bytes|Int|UInt|Float|boolean|M8|m8)\d*(?:\[.*\])?")
"""dtype names (numpy, pandas): shared vocabulary, not keys of the repository."""
KEY_LIKE = re.compile(r"[A-Za-z_][\w.\-:/]*")
_NO_SUBSCRIPT = (Name, Const, CallOf, DefRef, Unknown)
_LOOKUPS = frozenset({"get", "pop", "setdefault", "register", "unregister", "lookup"})

Site = tuple[str, str, int]
"""(path, scope qualname, line) of one use of a key."""


class Scopes:
    """The innermost definition around a line of a file, for naming literal sites."""

    def __init__(self, facts: FileFacts):
        items = sorted((d.start_line, -d.end_line, d.qualname) for d in facts.definitions
                       if d.kind != "lambda")
        self.starts = [start for start, _, _ in items]
        self.items = items
        self.module = facts.module

    def at(self, line: int) -> str:
        position = bisect.bisect_right(self.starts, line)
        best = self.module
        for start, negative_end, qualname in self.items[:position]:
            if start <= line <= -negative_end:
                best = qualname  # later starts are nested deeper
        return best


class Registries:
    """String-keyed uses of the repository's module- and class-level mappings."""

    def __init__(self, context: Context):
        self.context = context
        self.index = context.index
        self.module_names = {
            facts.module: {a.target.id for a in facts.assignments
                           if a.scope == facts.module and isinstance(a.target, Name)}
            for facts in self.index.modules.values()}

    def uses(self) -> dict[tuple[str, str], set[Site]]:
        """(registry qualname, key) -> every site outside tests that uses that key."""
        uses: dict[tuple[str, str], set[Site]] = defaultdict(set)
        for facts in self.index.modules.values():
            if is_test_path(facts.path):
                continue
            strings_by_line: dict[int, list[str]] = defaultdict(list)
            for value, line in facts.string_constants:
                strings_by_line[line].append(value)
            keyed: dict[int, list[Sub]] = {}
            for scope, expr, line in _expressions(facts, strings_by_line):
                if type(expr) in _NO_SUBSCRIPT:
                    continue
                found = keyed.get(id(expr))
                if found is None:
                    found = keyed[id(expr)] = _string_subscripts(expr)
                for item in found:
                    registry = self.resolve(scope, item.base)
                    if registry is not None:
                        uses[(registry, str(item.key))].add((facts.path, scope, line))
            for call in facts.calls:
                func = call.func
                if (isinstance(func, Attr) and func.attr in _LOOKUPS and call.args
                        and isinstance(call.args[0], Const) and call.args[0].type_name == "str"
                        and len(strings_by_line.get(call.line, ())) == 1):
                    registry = self.resolve(call.scope, func.base)
                    if registry is not None:
                        key = strings_by_line[call.line][0]
                        uses[(registry, key)].add((facts.path, call.scope, call.line))
        return uses

    def resolve(self, scope: str, base: Expr) -> str | None:
        """The module- or class-level mapping of the repository `base` denotes, by qualname;
        None for locals, parameters and anything from outside (`os.environ`, `typing.Literal`)."""
        index = self.index
        if isinstance(base, Name):
            resolved = index.resolve_name(scope, base.id)
            if resolved is None:  # a variable of the module itself (or a local)
                module = index.scope_module(scope)
                found = f"{module}.{base.id}"
                return found if base.id in self.module_names.get(module, ()) else None
            return resolved if self._owned(resolved) else None
        if isinstance(base, Attr) and isinstance(base.base, Name):
            head = base.base.id
            definition = index.definitions.get(scope)
            if (definition is not None and definition.params and scope in index.class_of
                    and definition.params[0].name == head):
                return f"{index.class_of[scope]}.{base.attr}"  # self.handlers["csv"]
            resolved = index.resolve_name(scope, head)
            if resolved is not None and (resolved in index.modules or resolved in index.classes):
                found = f"{resolved}.{base.attr}"
                return found if self._owned(found) else None
        return None

    def _owned(self, qualname: str) -> bool:
        """A module-level variable or a class (or class attribute) of the repository."""
        index = self.index
        if qualname in index.classes:
            return True  # an enum looked up by member name: Color["RED"]
        owner, _, name = qualname.rpartition(".")
        return name in self.module_names.get(owner, ()) or owner in index.classes

    def location(self, registry: str) -> Location | None:
        """Where the mapping is bound: a module variable or a class attribute."""
        context = self.context
        index = self.index
        owner, _, name = registry.rpartition(".")
        if owner in index.modules:
            facts = index.modules[owner]
            for assignment in facts.assignments:
                if (assignment.scope == owner and isinstance(assignment.target, Name)
                        and assignment.target.id == name):
                    return context.line_location(registry, facts.path, assignment.line,
                                                 "attribute")
        info = index.classes.get(owner)
        class_file = context.file_of(owner)
        if info is not None and class_file is not None:
            for attribute in info.attributes:
                if attribute.name == name:
                    return context.line_location(registry, class_file.path, attribute.line,
                                                 "attribute")
        return context.location(registry)


def _string_subscripts(expr: Expr) -> list[Sub]:
    """Every `base["key"]` inside an expression (without a generator: this runs a lot)."""
    found: list[Sub] = []
    stack = [expr]
    seen: set[int] = set()  # interned forms share parts: walk each once
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Sub):
            if isinstance(item.key, str):
                found.append(item)
            stack.append(item.base)
        elif isinstance(item, (Attr, Iter)):
            stack.append(item.base)
        elif isinstance(item, Seq):
            stack.extend(item.items)
        elif isinstance(item, Alts):
            stack.extend(item.options)
        elif isinstance(item, DictLit):
            stack.extend(value for _, value in item.items)
    return found


def _expressions(facts: FileFacts, lines: Container[int]) -> Iterator[tuple[str, Expr, int]]:
    """Expressions of the facts on lines that hold a string literal (a key must be one)."""
    for assignment in facts.assignments:
        if assignment.line in lines:
            yield assignment.scope, assignment.target, assignment.line
            yield assignment.scope, assignment.value, assignment.line
    for call in facts.calls:
        if call.line in lines and not call.implicit:
            yield call.scope, call.func, call.line
            for arg in call.args:
                yield call.scope, arg, call.line
            for _, value in call.kwargs:
                yield call.scope, value, call.line
    for access in facts.accesses:
        if access.line in lines:
            yield access.scope, access.receiver, access.line
