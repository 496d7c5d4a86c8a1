"""Top-level module code as the sequence it is: which of several assignments a later top-level
call sees.

The points-to solver is flow-insensitive: a name assigned twice points to both values everywhere.
At the top level of a module, statements that are not inside an `if`, loop, `try` or `with` run
once, in order, so a call there sees the last such assignment before it (`a = dec1; a = dec2;
@a ...` applies `dec2`; `d = {"k": f}; d["k"] = g; d["k"]()` calls `g`). The last assignment is
taken only when nothing could have changed the value in between: the name (or the container
under it) is assigned nowhere else (no assignment in a branch, a loop, a function or a class body,
no `global` rebinding, no import, no in-place operator, `del` or mutating method), and no call runs
between that assignment and the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from smellkit.facts import Attr, CallSite, DictLit, Expr, Name, Sub

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

_READERS = frozenset({"get", "items", "keys", "values", "copy"})
"""Methods that leave a container as it is."""


class _Module(NamedTuple):
    writes: dict[Expr, list[tuple[int, Expr]]]
    """A name or a constant-key subscript of one -> (line, value) of its unconditional
    top-level assignments."""
    unsafe: frozenset[str]
    """Names that may change in other ways."""
    call_lines: tuple[int, ...]
    """Lines where a top-level call runs code."""


def _root(expr: Expr, constant_keys: bool = True) -> str | None:
    """The name under a chain of subscripts (with constant keys unless told otherwise)."""
    while isinstance(expr, Sub):
        if constant_keys and expr.key is None:
            return None
        expr = expr.base
    return expr.id if isinstance(expr, Name) else None


def _prefixes(expr: Expr) -> list[Expr]:
    found: list[Expr] = []
    while isinstance(expr, Sub):
        expr = expr.base
        found.append(expr)
    return found


class Sequence:
    """The last unconditional top-level assignment a top-level call sees, per module."""

    def __init__(self, index: Index):
        self.index = index
        self.modules: dict[str, _Module] = {}

    def last_write(self, module: str, expr: Expr, line: int) -> Expr | None:
        """The value `expr` (a name, or constant-key subscripts of one) has at top-level line
        `line` of `module`, when one assignment surely decides it; else None."""
        root = _root(expr)
        if root is None:
            return None
        table = self.modules.get(module)
        if table is None:
            table = self.modules[module] = self._table(module)
        if root in table.unsafe:
            return None
        before = [write for write in table.writes.get(expr, ()) if write[0] < line]
        if not before:
            return None
        start, value = max(before, key=lambda write: write[0])
        for prefix in _prefixes(expr):  # `d = {...}` again after `d["k"] = g`
            if any(start < other < line for other, _ in table.writes.get(prefix, ())):
                return None
        if any(start < other < line for other in table.call_lines):
            return None
        return value

    def _table(self, module: str) -> _Module:
        facts = self.index.modules[module]
        straight = set(facts.straight_lines)
        writes: dict[Expr, list[tuple[int, Expr]]] = {}
        unsafe: set[str] = set(self.index.scope_imports.get(module, {}))
        declared = set(facts.globals_declared)
        for item in facts.assignments:
            root = _root(item.target, constant_keys=False)
            if root is None:
                continue
            if item.scope != module:
                if isinstance(item.target, Sub) or (item.scope, root) in declared:
                    unsafe.add(root)
            elif item.line not in straight or _root(item.target) is None:
                unsafe.add(root)
            else:
                writes.setdefault(item.target, []).append((item.line, item.value))
        call_lines: list[int] = []
        for call in facts.calls:
            if call.scope == module:
                call_lines.append(call.line)
            self._method_call(module, call, straight, writes, unsafe)
        for call in facts.protocol_calls:
            if call.scope == module:
                call_lines.append(call.line)
            func = call.func
            if isinstance(func, Attr) and (func.attr.startswith("__i") or
                                           func.attr == "__delitem__"):
                root = _root(func.base, constant_keys=False)
                if root is not None:  # `a += b`, `d[k] += 1`, `del d[k]`
                    unsafe.add(root)
        return _Module(writes, frozenset(unsafe), tuple(sorted(call_lines)))

    @staticmethod
    def _method_call(module: str, call: CallSite, straight: set[int],
                     writes: dict[Expr, list[tuple[int, Expr]]], unsafe: set[str]) -> None:
        """A method called on a container: `update` with known keys at the top level writes
        them; reading methods change nothing; any other may change anything."""
        func = call.func
        if not isinstance(func, Attr) or func.attr in _READERS:
            return
        root = _root(func.base, constant_keys=False)
        if root is None:
            return
        if func.attr != "update" or call.scope != module or call.line not in straight \
                or _root(func.base) is None:
            unsafe.add(root)
            return
        items: list[tuple[str | int | None, Expr]] = []
        for argument in call.args:
            if not isinstance(argument, DictLit):
                unsafe.add(root)
                return
            items.extend(argument.items)
        items.extend((name, value) for name, value in call.kwargs)
        for key, value in items:
            if key is None:
                unsafe.add(root)
                return
            writes.setdefault(Sub(func.base, key), []).append((call.line, value))
