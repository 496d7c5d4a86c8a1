"""The walk of one function body for `smellkit.facts.blocks`: name events in evaluation order, the
statement lists with their nesting depth, and what leaves a block (`return`, `break`, ...); the
block search reads only this summary, never the tree.
"""

from __future__ import annotations

import ast
from typing import Any, NamedTuple

COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                       ast.Match, *([ast.TryStar] if hasattr(ast, "TryStar") else [])})
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_SCOPES = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                     *_DEFINITIONS})
_LOOPS = frozenset({ast.For, ast.AsyncFor, ast.While})
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "id", "attr", "name", "asname", "arg", "module",
                           "names", "level", "kind", "conversion", "is_async", "type_comment",
                           "type_ignores", "tag", "simple", "rest", "kwd_attrs", "n", "s"})
_CHILDREN: dict[type, tuple[str, ...]] = {
    cls: tuple(field for field in cls._fields if field not in _NOT_CHILDREN)
    for cls in (getattr(ast, name) for name in dir(ast))
    if isinstance(cls, type) and issubclass(cls, ast.AST)
}
_CHILDREN[ast.Constant] = ()



class Stmt(NamedTuple):
    """One statement of a statement list, summarised for the block search."""

    first: int
    last: int
    simple: bool  # not a compound statement: what it binds, it always binds
    size: int  # statements, nested ones included
    escapes: int  # _EXIT | _JUMP: it leaves a block around it
    start: int  # its name events: walk.events[start:stop]
    stop: int
    lists: range  # indexes in walk.lists of the statement lists inside it (nested ones too)
    reads: set[str]  # names it reads before it binds them itself
    stores: set[str]  # names it binds
    loaded: set[str]  # names it reads
    live: set[str]  # names whose earlier value it may read (a branch may not bind)


class _List(NamedTuple):
    items: list[Stmt]
    depth: int
    loop_start: int  # first line of the outermost loop around the list, 0 if none


_SCOPE, _YIELD, _MATCH_NAME, _MATCH_REST = range(4)
_EXIT, _JUMP = 1, 2
_NO_LISTS = range(0)
_LOOP_TARGET = 2
"""The third item of a name event: False (read), True (bound), or this (bound by a `for`)."""
_LEAVES = frozenset({ast.Constant, type(None), ast.Load, ast.Store, ast.Del})
_SPECIAL: dict[type, int] = {
    ast.Yield: _YIELD, ast.YieldFrom: _YIELD,
    ast.MatchAs: _MATCH_NAME, ast.MatchStar: _MATCH_NAME, ast.MatchMapping: _MATCH_REST,
    **{kind: _SCOPE for kind in _SCOPES},
}


def _summarize(events: list[tuple[int, str, bool | int]], start: int, stop: int, reads: set[str],
               stores: set[str], loaded: set[str]) -> None:
    """Add the names of events[start:stop] to what a statement reads first, binds and reads."""
    for index in range(start, stop):
        _, name, is_store = events[index]
        if is_store:
            stores.add(name)
        else:
            loaded.add(name)
            if name not in stores:
                reads.add(name)


class Walk:
    """Walks one function body once: name events in evaluation order, statement lists, depth,
    escapes."""

    def __init__(self) -> None:
        self.events: list[tuple[int, str, bool | int]] = []  # (line, name, bound)
        self.lists: list[_List] = []
        self.declared: set[str] = set()  # global / nonlocal names
        self.max_depth = 0
        self.statements = 0
        self.asserts = 0
        self.yields = False  # the statement being walked yields
        self.header = 0  # where the events of the compound statement just walked leave its header
        self.nested: list[ast.stmt] = []  # functions and classes defined in the function

    def body(self, statements: list[ast.stmt], depth: int, loop_start: int) -> tuple[int, int]:
        """Walk a statement list; its statement count and how it leaves a block around it
        (`_EXIT`: return, yield, global; `_JUMP`: break or continue of a loop around it)."""
        items: list[Stmt] = []
        total = 0
        escapes = 0
        events = self.events
        if depth > self.max_depth:
            self.max_depth = depth
        for node in statements:
            kind = type(node)
            first = node.lineno
            if kind in _DEFINITIONS and node.decorator_list:  # type: ignore[attr-defined]
                first = node.decorator_list[0].lineno  # type: ignore[attr-defined]
            start = len(events)
            lists = len(self.lists)
            count, leaves = self.statement(node, kind, depth, loop_start)
            total += count
            escapes |= leaves
            stop = len(events)
            if kind not in COMPOUND:
                # a simple statement reads its names before it binds any (but for `:=`)
                chunk = events[start:stop]
                reads = {name for _, name, bound in chunk if not bound}
                items.append(Stmt(first, node.end_lineno or first, True, count, leaves, start,
                                   stop, _NO_LISTS, reads,
                                   {name for _, name, bound in chunk if bound}, reads, reads))
                continue
            reads = set()
            stores: set[str] = set()
            # The header, then the statement lists inside, in order. What it may read of the
            # values names had before it: what its header and the parts between its statement
            # lists read, and along each statement list (a branch, a loop body), what is read
            # before a simple statement of that list rebinds it; a header binding (a loop
            # variable, `with ... as`) is seen by the lists.
            loaded: set[str] = set()
            _summarize(events, start, self.header, reads, stores, loaded)
            header_stores = set(stores)
            live = set(loaded)
            position = self.header
            for index in range(lists, len(self.lists)):
                child = self.lists[index]
                if child.depth != depth + 1 or not child.items:
                    continue
                between: set[str] = set()
                _summarize(events, position, child.items[0].start, reads, stores, between)
                loaded |= between
                live |= between
                killed: set[str] = set()
                for item in child.items:
                    reads.update(item.reads - stores)
                    stores.update(item.stores)
                    loaded.update(item.loaded)
                    live.update(name for name in item.live
                                if name not in killed and name not in header_stores)
                    if item.simple:
                        killed |= item.stores
                position = child.items[-1].stop
            between = set()
            _summarize(events, position, stop, reads, stores, between)
            loaded |= between
            live |= between
            items.append(Stmt(first, node.end_lineno or first, False, count, leaves, start, stop,
                               range(lists, len(self.lists)), reads, stores, loaded, live))
        self.lists.append(_List(items, depth, loop_start))
        return total, escapes

    def statement(self, node: ast.stmt, kind: type, depth: int,
                  loop_start: int) -> tuple[int, int]:
        self.statements += 1
        self.yields = False
        if kind in COMPOUND:
            return self.compound(node, kind, depth, loop_start)
        if kind in _DEFINITIONS:
            self.scope(node)
            self.nested.append(node)
            return 1, 0
        if kind is ast.Return:
            self.expression(node.value)  # type: ignore[attr-defined]
            return 1, _EXIT
        if kind is ast.Assert:
            self.asserts += 1
        if kind is ast.Break or kind is ast.Continue:
            return 1, _JUMP
        if kind is ast.Global or kind is ast.Nonlocal:
            self.declared.update(node.names)  # type: ignore[attr-defined]
            return 1, _EXIT
        if kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                bound = alias.asname or alias.name.split(".")[0]
                if bound != "*":
                    self.events.append((node.lineno, bound, True))
            return 1, 0
        if kind is ast.Assign:
            self.expression(node.value)  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                self.expression(target)
            return 1, _EXIT if self.yields else 0
        if kind is ast.AugAssign or kind is ast.AnnAssign:
            target = node.target  # type: ignore[attr-defined]
            self.expression(node.value)  # type: ignore[attr-defined]
            if type(target) is ast.Name:
                if kind is ast.AugAssign:
                    self.events.append((target.lineno, target.id, False))
                if kind is ast.AugAssign or node.value is not None:  # type: ignore[attr-defined]
                    self.events.append((target.lineno, target.id, True))
            else:
                self.expression(target)
            return 1, _EXIT if self.yields else 0
        self.expression(node)
        return 1, _EXIT if self.yields else 0

    def compound(self, node: Any, kind: type, depth: int, loop_start: int) -> tuple[int, int]:
        count = 1
        is_loop = kind in _LOOPS
        if kind is ast.If or kind is ast.While:
            self.expression(node.test)
        elif is_loop:
            self.expression(node.iter)
            start = len(self.events)
            self.expression(node.target)
            self.events[start:] = [(line, name, _LOOP_TARGET)
                                   for line, name, _ in self.events[start:]]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:
                self.expression(item.context_expr)
                self.expression(item.optional_vars)
        elif kind is ast.Match:
            self.expression(node.subject)
        header = len(self.events)
        escapes = _EXIT if self.yields else 0
        if kind is not ast.Match:
            inner_start = loop_start or (node.lineno if is_loop else 0)
            sub_count, sub_escapes = self.body(node.body, depth + 1, inner_start)
            count += sub_count
            escapes |= sub_escapes & _EXIT if is_loop else sub_escapes  # the loop takes jumps
        orelse: list[ast.stmt] = getattr(node, "orelse", None) or []
        if kind is ast.If and len(orelse) == 1 and type(orelse[0]) is ast.If:
            # `elif`: one level, not a statement of its own
            sub_count, sub_escapes = self.compound(orelse[0], ast.If, depth, loop_start)
            count += sub_count - 1
            escapes |= sub_escapes
        elif orelse:
            sub_count, sub_escapes = self.body(orelse, depth + 1, loop_start)
            count += sub_count
            escapes |= sub_escapes
        for handler in getattr(node, "handlers", ()):
            self.expression(handler.type)
            if handler.name:
                self.events.append((handler.lineno, handler.name, True))
            sub_count, sub_escapes = self.body(handler.body, depth + 1, loop_start)
            count += sub_count
            escapes |= sub_escapes
        for case in getattr(node, "cases", ()):
            self.yields = False
            self.expression(case.pattern)
            self.expression(case.guard)
            escapes |= _EXIT if self.yields else 0
            sub_count, sub_escapes = self.body(case.body, depth + 1, loop_start)
            count += sub_count
            escapes |= sub_escapes
        finalbody: list[ast.stmt] = getattr(node, "finalbody", None) or []
        if finalbody:
            sub_count, sub_escapes = self.body(finalbody, depth + 1, loop_start)
            count += sub_count
            escapes |= sub_escapes
        self.header = header  # for the caller: the statements inside have set it too
        return count, escapes

    def expression(self, root: Any) -> None:
        """Name events of a simple statement or an expression; nested scopes go to `scope`.

        Names are recorded as soon as their parent is, so the order of events inside one
        expression is not evaluation order: statements that bind and read (assignments, loop
        headers) walk their parts one after the other instead."""
        if root is None:
            return
        append = self.events.append
        children = _CHILDREN
        special = _SPECIAL
        load = ast.Load
        name_type = ast.Name
        leaves = _LEAVES
        attribute = ast.Attribute
        if type(root) is name_type:
            append((root.lineno, root.id, type(root.ctx) is not load))
            return
        stack: list[Any] = [root]
        pop = stack.pop
        push = stack.append
        while stack:
            node = pop()
            kind = type(node)
            code = special.get(kind)
            if code is not None:
                if code == _SCOPE:
                    self.scope(node)
                    continue
                if code == _YIELD:
                    self.yields = True
                elif code == _MATCH_NAME:
                    if node.name:
                        append((node.lineno, node.name, True))
                elif code == _MATCH_REST and node.rest:
                    append((node.lineno, node.rest, True))
            for field in children[kind]:
                value = getattr(node, field)
                for item in value if type(value) is list else (value,):
                    kind = type(item)
                    while kind is attribute:
                        item = item.value
                        kind = type(item)
                    if kind is name_type:
                        append((item.lineno, item.id, type(item.ctx) is not load))
                    elif kind not in leaves:
                        push(item)

    def scope(self, node: Any) -> None:
        """A nested function, class, lambda or comprehension: the outer names it reads are read
        here; a function or class also binds its own name here."""
        bound: set[str] = set()
        reads: list[tuple[int, str]] = []
        children = _CHILDREN
        stack: list[Any] = [node]
        while stack:
            inner = stack.pop()
            kind = type(inner)
            if kind is ast.Name:
                if type(inner.ctx) is ast.Load:
                    reads.append((inner.lineno, inner.id))
                else:
                    bound.add(inner.id)
                continue
            if kind is ast.Constant:
                continue
            if kind is ast.arg:
                bound.add(inner.arg)
            for field in children[kind]:
                value = getattr(inner, field)
                if type(value) is list:
                    for item in value:
                        if item is not None:
                            stack.append(item)
                elif value is not None:
                    stack.append(value)
        self.events.extend((line, name, False) for line, name in reads if name not in bound)
        if type(node) in _DEFINITIONS:
            self.events.append((node.lineno, node.name, True))
