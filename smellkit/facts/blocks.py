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
from typing import NamedTuple

from smellkit.facts._block_walk import COMPOUND, Stmt, Walk

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
            elif kind in COMPOUND:
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
# One function: the block search.


def _shape(node: ast.FunctionDef | ast.AsyncFunctionDef,
           qualname: str) -> tuple[FunctionShape | None, list[ast.stmt]]:
    """The function's shape if it is long enough, and where to look for functions inside it
    (nowhere when it is too short: what it defines is shorter still)."""
    code_start = _code_start(node)
    end = node.end_lineno or node.lineno
    if code_start is None or end - code_start + 1 < MIN_FUNCTION_LINES:
        return None, []
    walk = Walk()
    body = node.body
    if body[0].lineno < code_start:
        body = body[1:]
    walk.body(body, 0, 0)
    blocks = _blocks(walk, node, code_start, end)
    return FunctionShape(qualname, node.lineno, end, end - code_start + 1, walk.statements,
                         walk.max_depth, walk.asserts, blocks), walk.nested


def _blocks(walk: Walk, node: ast.FunctionDef | ast.AsyncFunctionDef,
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

    def __init__(self, walk: Walk, params: set[str], max_lines: float) -> None:
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

    def inside(self, statement: Stmt, depth: int) -> None:
        """Search the statement lists directly inside a statement no block covers."""
        for child in statement.lists:
            if self.walk.lists[child].depth == depth + 1:
                self.statement_list(child)

    def prepare(self, statements: list[Stmt]) -> tuple[
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

    def block_at(self, statements: list[Stmt], i: int, loop_start: int,
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
