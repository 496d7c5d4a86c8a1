"""The shape of long functions: nesting depth, and the blocks that could be functions of their own.

A block is a contiguous run of statements of one statement list (a function body, or the body of an
`if`, `for`, `with`, `try`, ...). It is *extractable* when it reads like a function body: it binds
locals of its own that nothing after it reads (`locals`), reads few names bound before it
(`inputs`), and at most one name it binds is read after it (`outputs`, the would-be return value).
It must not leave the function on its own (`return`, `yield`, `global`), nor jump out of a loop
around it (`break`, `continue`).

The analysis is a def-use approximation, not a data-flow analysis. Names are events in evaluation
order (an assignment's value before its targets); a name the block reads before binding it is an
input; a name it binds is an output when a later statement may read that value (backward liveness
along the statement list: a simple statement that rebinds a name ends its life, a branch may not),
or when a loop around the block reads it before the block (the next iteration does). Nested
functions, lambdas and comprehensions contribute the outer names they read.

Blocks are chosen outside in: along a statement list, of the blocks starting before the first one
ends, the one that ends first (the smallest closed responsibility), grown while the next statement
carries on its computation; the statement lists inside statements no block covers are searched the
same way. A block may not span more than `MAX_BLOCK_SHARE` of the function.

Runs in the worker that parses a file, on the tree already there; functions with fewer than
`MIN_FUNCTION_LINES` lines of code (docstring excluded) are skipped before any work, and so is what
they define.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from itertools import compress
from typing import Any, NamedTuple

MIN_FUNCTION_LINES = 40
"""Functions with fewer lines (from the first statement after the docstring) get no shape."""

MIN_BLOCK_LINES = 4
MIN_BLOCK_STATEMENTS = 3  # nested statements included
MAX_BLOCK_INPUTS = 6
MAX_BLOCK_SHARE = 0.6
"""A block spanning more than this share of the function's code is the function, not a part."""

MAX_BLOCK_RUN = 40
"""At most this many statements of one list per block: keeps the search near linear."""


class Block(NamedTuple):
    """An extractable run of statements, lines inclusive."""

    start_line: int
    end_line: int
    statements: int  # statements in the block, nested ones included
    depth: int  # nesting depth of the block's statements (0: the function body)
    inputs: tuple[str, ...]  # names bound before the block and read in it
    outputs: tuple[str, ...]  # at most one: a name the block binds that is read after it
    locals: tuple[str, ...]  # names the block binds first and only it reads (never empty)
    loop_locals: tuple[str, ...]  # those of its locals bound only as `for` targets


class FunctionShape(NamedTuple):
    """Shape facts of one function or method of at least `MIN_FUNCTION_LINES` lines of code."""

    qualname: str
    start_line: int
    end_line: int
    code_lines: int  # first statement after the docstring to the last line
    statements: int  # nested statements included, nested functions excluded
    max_depth: int  # deepest nesting of compound statements (an `elif` is not deeper)
    asserts: int  # `assert` statements (each one a decision in the cyclomatic complexity)
    blocks: tuple[Block, ...]  # non-overlapping extractable blocks, by line


# --------------------------------------------------------------------------------------------
# Finding functions.

_COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
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


def function_blocks(tree: ast.Module, module: str) -> tuple[FunctionShape, ...]:
    """Shapes of every long enough function in the module, qualified as the facts qualify them."""
    shapes: list[FunctionShape] = []
    stack: list[tuple[list[ast.stmt], str]] = [(tree.body, module)]
    while stack:
        statements, prefix = stack.pop()
        for node in statements:
            kind = type(node)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                qualname = f"{prefix}.{node.name}"  # type: ignore[attr-defined]
                shape, nested = _shape(node, qualname)  # type: ignore[arg-type]
                if shape is not None:
                    shapes.append(shape)
                stack.append((nested, qualname))
            elif kind is ast.ClassDef:
                stack.append((node.body, f"{prefix}.{node.name}"))  # type: ignore[attr-defined]
            elif kind in _COMPOUND:
                for child in _statement_lists(node):
                    stack.append((child, prefix))
    shapes.sort(key=lambda shape: (shape.start_line, shape.qualname))
    return tuple(shapes)


def _statement_lists(node: ast.stmt) -> list[list[ast.stmt]]:
    found: list[list[ast.stmt]] = []
    body = getattr(node, "body", None)
    if body:
        found.append(body)
    orelse = getattr(node, "orelse", None)
    if orelse:
        found.append(orelse)
    for handler in getattr(node, "handlers", ()):
        found.append(handler.body)
    for case in getattr(node, "cases", ()):
        found.append(case.body)
    finalbody = getattr(node, "finalbody", None)
    if finalbody:
        found.append(finalbody)
    return found


def _code_start(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    body = node.body
    first = body[0]
    if (type(first) is ast.Expr and type(first.value) is ast.Constant
            and isinstance(first.value.value, str)):
        if len(body) == 1:
            return None
        first = body[1]
    return first.lineno


# --------------------------------------------------------------------------------------------
# One function: the walk.


class _Stmt(NamedTuple):
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
    items: list[_Stmt]
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


class _Walk:
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
        items: list[_Stmt] = []
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
            if kind not in _COMPOUND:
                # a simple statement reads its names before it binds any (but for `:=`)
                chunk = events[start:stop]
                reads = {name for _, name, bound in chunk if not bound}
                items.append(_Stmt(first, node.end_lineno or first, True, count, leaves, start,
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
            items.append(_Stmt(first, node.end_lineno or first, False, count, leaves, start, stop,
                               range(lists, len(self.lists)), reads, stores, loaded, live))
        self.lists.append(_List(items, depth, loop_start))
        return total, escapes

    def statement(self, node: ast.stmt, kind: type, depth: int,
                  loop_start: int) -> tuple[int, int]:
        self.statements += 1
        self.yields = False
        if kind in _COMPOUND:
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
                if type(value) is list:
                    for item in value:
                        kind = type(item)
                        while kind is attribute:
                            item = item.value
                            kind = type(item)
                        if kind is name_type:
                            append((item.lineno, item.id, type(item.ctx) is not load))
                        elif kind not in leaves:
                            push(item)
                else:
                    kind = type(value)
                    while kind is attribute:
                        value = value.value
                        kind = type(value)
                    if kind is name_type:
                        append((value.lineno, value.id, type(value.ctx) is not load))
                    elif kind not in leaves:
                        push(value)

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


# --------------------------------------------------------------------------------------------
# One function: the block search.


def _shape(node: ast.FunctionDef | ast.AsyncFunctionDef,
           qualname: str) -> tuple[FunctionShape | None, list[ast.stmt]]:
    """The function's shape if it is long enough, and where to look for functions inside it
    (nowhere when it is too short: what it defines is shorter still)."""
    code_start = _code_start(node)
    end = node.end_lineno or node.lineno
    if code_start is None or end - code_start + 1 < MIN_FUNCTION_LINES:
        return None, []
    walk = _Walk()
    body = node.body
    if body[0].lineno < code_start:
        body = body[1:]
    walk.body(body, 0, 0)
    blocks = _blocks(walk, node, code_start, end)
    return FunctionShape(qualname, node.lineno, end, end - code_start + 1, walk.statements,
                         walk.max_depth, walk.asserts, blocks), walk.nested


def _blocks(walk: _Walk, node: ast.FunctionDef | ast.AsyncFunctionDef,
            code_start: int, end: int) -> tuple[Block, ...]:
    if not walk.events or not walk.lists:
        return ()
    args = node.args
    params = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg:
        params.add(args.vararg.arg)
    if args.kwarg:
        params.add(args.kwarg.arg)
    search = _Search(walk, params, MAX_BLOCK_SHARE * (end - code_start + 1))
    search.statement_list(len(walk.lists) - 1)  # the function body: the last list walked
    search.found.sort()
    return tuple(search.found)


class _Search:
    """Greedy, outside in: along a statement list, the shortest extractable block at each
    statement, grown while the next statement carries on its computation; the statement lists
    inside a statement no block covers are searched the same way."""

    def __init__(self, walk: _Walk, params: set[str], max_lines: float) -> None:
        self.walk = walk
        self.max_lines = max_lines
        self.found: list[Block] = []
        _, names, flags = zip(*walk.events)
        local_names = set(compress(names, flags))
        local_names |= params
        local_names -= walk.declared
        self.local_names = local_names
        loads: dict[str, list[int]] = {}
        for line, name, is_store in walk.events:
            if not is_store and name in local_names:
                loads.setdefault(name, []).append(line)
        for lines in loads.values():
            lines.sort()
        self.loads = loads

    def read_between(self, name: str, low: int, high: int) -> bool:
        lines = self.loads.get(name)
        if not lines:
            return False
        at = bisect_left(lines, low)
        return at < len(lines) and lines[at] < high

    def statement_list(self, index: int) -> None:
        """Blocks of one statement list: of the blocks starting before the first one closes, the
        one that closes first, the earliest of those (most blocks, so the smallest
        responsibilities, each with its set-up); then on after it."""
        statements, depth, loop_start = self.walk.lists[index]
        count = len(statements)
        if (statements[-1].last - statements[0].first + 1 < MIN_BLOCK_LINES
                or sum(statement.size for statement in statements) < MIN_BLOCK_STATEMENTS):
            for position in range(count):
                self.inside(statements[position], depth)
            return
        reads, stores, live_after = self.prepare(statements)
        i = 0
        while i < count:
            # (where it first closes, where it ends, first statement)
            best: tuple[int, int, int] | None = None
            k = i
            while k < count and (best is None or k <= best[0]):
                found = self.block_at(statements, k, loop_start, reads, stores, live_after)
                if found is not None and (best is None or found[0] < best[0]):
                    best = (*found, k)
                k += 1
            if best is None:
                for position in range(i, count):
                    self.inside(statements[position], depth)
                return
            _, j, k = best
            for position in range(i, k):
                self.inside(statements[position], depth)
            inputs: set[str] = set()
            bound: set[str] = set()
            for position in range(k, j + 1):
                inputs |= reads[position] - bound
                bound |= stores[position]
            first = statements[k].first
            outputs = bound & live_after[j]
            if loop_start:
                outputs.update(name for name in bound
                               if self.read_between(name, loop_start, first))
            own = bound - outputs - inputs
            assigned = {name for _, name, kind in
                        self.walk.events[statements[k].start:statements[j].stop]
                        if kind is True}
            self.found.append(Block(first, statements[j].last,
                                    sum(item.size for item in statements[k:j + 1]), depth,
                                    tuple(sorted(inputs)), tuple(sorted(outputs)),
                                    tuple(sorted(own)), tuple(sorted(own - assigned))))
            i = j + 1

    def inside(self, statement: _Stmt, depth: int) -> None:
        """Search the statement lists directly inside a statement no block covers."""
        for child in statement.lists:
            if self.walk.lists[child].depth == depth + 1:
                self.statement_list(child)

    def prepare(self, statements: list[_Stmt]) -> tuple[
            list[frozenset[str]], list[frozenset[str]], list[frozenset[str]]]:
        """Per statement: local names read before it binds them, local names it binds, and the
        names whose value after it is read later (backward liveness along the list)."""
        local_names = self.local_names
        declared = self.walk.declared
        reads = [local_names.intersection(statement.reads) for statement in statements]
        stores = [statement.stores - declared if declared else statement.stores
                  for statement in statements]
        list_end = statements[-1].last
        loads = self.loads
        empty: frozenset[str] = frozenset()
        live = {name for name in empty.union(*stores) if loads.get(name, (0,))[-1] > list_end}
        live_after: list[frozenset[str]] = [empty] * len(statements)
        for position in range(len(statements) - 1, -1, -1):
            statement = statements[position]
            live_after[position] = frozenset(live)
            if statement.simple:
                live -= statement.stores
            live |= statement.live
        return reads, stores, live_after  # type: ignore[return-value]

    def block_at(self, statements: list[_Stmt], i: int, loop_start: int,
                 reads: list[frozenset[str]], stores: list[frozenset[str]],
                 live_after: list[frozenset[str]]) -> tuple[int, int] | None:
        """Where the shortest block starting at statement i ends, and where it ends once grown
        over the statements that carry on its computation; None if there is no block."""
        head = statements[i]
        if head.escapes:
            return None
        first = head.first
        limit = self.max_lines + first - 1  # the last line a block starting here may end on
        inputs: set[str] = set()
        bound: set[str] = set()
        carried: set[str] = set()  # names a loop around the block reads before it
        total = 0
        closing: int | None = None
        found: int | None = None
        for j in range(i, min(len(statements), i + MAX_BLOCK_RUN)):
            statement = statements[j]
            last = statement.last
            if statement.escapes or last > limit:
                break
            read = reads[j]
            if found is not None and read.isdisjoint(bound):
                break  # the next statement starts something else
            if read:
                inputs |= read - bound
                if len(inputs) > MAX_BLOCK_INPUTS:
                    break
            new = stores[j] - bound
            if new:
                bound |= new
                if loop_start:
                    carried.update(name for name in new
                                   if self.read_between(name, loop_start, first))
                    if len(carried) > 1:
                        break
            total += statement.size
            if total < MIN_BLOCK_STATEMENTS or last - first + 1 < MIN_BLOCK_LINES:
                continue
            live = live_after[j]
            outputs = carried if live.isdisjoint(bound) else carried | (live & bound)
            # at most one result, and a local of its own (not an input it rebinds)
            if len(outputs) <= 1 and not bound.issubset(inputs | outputs):
                found = j
                if closing is None:
                    closing = j
            elif found is not None:
                break
        return None if closing is None or found is None else (closing, found)
