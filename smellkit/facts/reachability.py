"""Statements that can never run, and the names a module reads.

Runs in the parse workers beside `facts.extract`. Statement lists are walked with a tiny
control-flow rule (a block ends at `return`, `raise`, `continue`, `break`, a `while True` loop
without `break`, or an `if`/`try`/`match` whose every branch ends); expressions are only scanned
for the names and attributes they read (the rest of the facts keep names only where a call
resolver needs them), so dead-code detection can tell any use from none. In the workers that scan
is part of the facts' own walk (`Reads`), so this module walks statements only. Stdlib only; no
inference: `sys.exit()` and friends are not treated as exits.
"""

from __future__ import annotations

import ast
import re
from typing import Any, NamedTuple


class Span(NamedTuple):
    """Lines `start`..`end` of `scope` (a module or definition qualname) that can never run."""

    scope: str
    start: int
    end: int
    reason: str  # return | raise | continue | break | loop | branches | false | true


class Liveness(NamedTuple):
    unreachable: tuple[Span, ...]
    names: tuple[str, ...]
    """Every identifier read as a bare name anywhere in the file (annotations, string
    annotations included), sorted."""
    attributes: tuple[str, ...]
    """Every attribute name read (`obj.name` in a load), sorted."""
    prefixes: tuple[str, ...]
    """Name prefixes an f-string completes at run time (`f"visit_{kind}"` gives `visit_`)."""


NO_LIVENESS = Liveness((), (), (), ())
"""What facts extracted without detail hold."""


_EXITS: dict[type[ast.AST], str] = {
    ast.Return: "return", ast.Raise: "raise", ast.Continue: "continue", ast.Break: "break",
}
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "type_comment", "kind", "id", "attr", "n", "s", "conversion",
    "is_async", "level", "module", "name", "names", "arg", "asname", "lineno", "col_offset",
    "end_lineno", "end_col_offset", "tag",
})
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRAILING_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_JOINED, _FORMATTED = ast.JoinedStr, ast.FormattedValue
_NAME, _LOAD, _ATTRIBUTE = ast.Name, ast.Load, ast.Attribute
_CALL, _CONSTANT = ast.Call, ast.Constant
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRY = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
_STRUCTURED = frozenset({*_EXITS, ast.If, ast.While, ast.For, ast.AsyncFor, *_TRY, ast.With,
                         ast.AsyncWith, *_FUNCTIONS, ast.ClassDef, ast.Match, ast.AnnAssign})
"""Statements that end a block, hold statements or read annotations; the rest only read."""


def _fields(kind: type[ast.AST]) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(name for name in kind._fields
                                       if name not in _LEAF_FIELDS)
    return fields


def _constant(test: ast.expr) -> bool | None:
    """The truth of a condition written as a literal (`0`, `False`, `not True`), else None."""
    negate = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negate = not negate
        test = test.operand
    if isinstance(test, ast.Constant) and test.value is not Ellipsis:
        return bool(test.value) != negate
    return None


def _has_break(body: list[ast.stmt]) -> bool:
    """Whether a `break` in `body` leaves the loop that owns `body` (nested loops excluded)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)  # a loop's else belongs to the outer loop
            continue
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, name, ()))
    return False


def _only_imports(body: list[ast.stmt]) -> bool:
    return all(isinstance(item, (ast.Import, ast.ImportFrom, ast.Pass)) for item in body)


def _generator_marker(rest: list[ast.stmt]) -> bool:
    """`return` then a lone `yield`: the idiom that makes an empty generator function."""
    return (len(rest) == 1 and isinstance(rest[0], ast.Expr)
            and isinstance(rest[0].value, (ast.Yield, ast.YieldFrom)))


class Reads:
    """What a module reads: bare names, attribute names and f-string name prefixes.

    `facts.extract` fills one during its own walk of every node (a second walk here would cost
    as much again) and calls `annotations` only for the parts it does not read as names;
    `liveness` without one walks the expressions itself."""

    __slots__ = ("attributes", "names", "prefixes")

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.attributes: set[str] = set()
        self.prefixes: set[str] = set()

    def fstring(self, node: ast.JoinedStr) -> None:
        """The prefixes an f-string completes: `f"visit_{kind}"` gives `visit_`."""
        values = node.values
        for position, part in enumerate(values[:-1]):
            if (part.__class__ is _CONSTANT and part.value.__class__ is str
                    and values[position + 1].__class__ is _FORMATTED):
                head = _TRAILING_NAME.search(part.value)
                if head is not None and "_" in head.group() and len(head.group()) > 2:
                    self.prefixes.add(head.group())

    def expressions(self, *nodes: ast.AST | None, strings: bool = False) -> None:
        """Add what `nodes` and everything below them read; `strings`: also the identifiers in
        string constants (string annotations)."""
        add = self.names.add
        attributes = self.attributes
        stack: list[Any] = [node for node in nodes if node is not None]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            kind = node.__class__
            if kind is _NAME:
                if node.ctx.__class__ is _LOAD:
                    add(node.id)
            elif kind is _ATTRIBUTE:
                if node.ctx.__class__ is _LOAD:
                    attributes.add(node.attr)
                push(node.value)
            elif kind is _CALL:
                push(node.func)
                extend(node.args)
                for keyword in node.keywords:
                    push(keyword.value)
            elif kind is _JOINED:
                self.fstring(node)
                extend(node.values)
            elif kind is _CONSTANT:
                if strings and node.value.__class__ is str:
                    self.names.update(_IDENTIFIER.findall(node.value))
            else:
                fields = _FIELDS.get(kind) or _fields(kind)
                for field in fields:
                    value = getattr(node, field, None)
                    if value.__class__ is list:
                        for item in value:
                            if isinstance(item, ast.AST):
                                push(item)
                    elif isinstance(value, ast.AST):
                        push(value)

    def annotations(self, *nodes: ast.AST | None) -> None:
        """Names an annotation reads, inside string annotations too (`Optional["Node"]`)."""
        self.expressions(*nodes, strings=True)


class _Walker:
    def __init__(self, reads: Reads | None) -> None:
        self.spans: list[Span] = []
        self.reads = reads  # None: the caller collects what is read in its own walk

    def expressions(self, *nodes: ast.AST | None) -> None:
        if self.reads is not None:
            self.reads.expressions(*nodes)

    def report(self, scope: str, body: list[ast.stmt], reason: str) -> None:
        if body:
            self.spans.append(Span(scope, body[0].lineno,
                                   body[-1].end_lineno or body[-1].lineno, reason))

    def block(self, body: list[ast.stmt], scope: str, dead: bool) -> str | None:
        """Walk a statement list; the reason it never falls through, or None if it may."""
        for position, statement in enumerate(body):
            reason = self.statement(statement, scope, dead)
            if reason is not None:
                rest = body[position + 1:]
                if rest and not dead and not _generator_marker(rest):
                    self.report(scope, rest, reason)
                for item in rest:
                    self.statement(item, scope, True)
                return reason
        return None

    def statement(self, node: ast.stmt, scope: str, dead: bool) -> str | None:
        kind = type(node)
        reads = self.reads
        if kind not in _STRUCTURED:  # most statements: only what they read matters
            if reads is not None:
                reads.expressions(node)
            return None
        exit_reason = _EXITS.get(kind)
        if exit_reason is not None:
            self.expressions(node)
            return exit_reason
        if kind is ast.If:
            return self._if(node, scope, dead)  # type: ignore[arg-type]
        if kind is ast.While:
            return self._while(node, scope, dead)  # type: ignore[arg-type]
        if kind in (ast.For, ast.AsyncFor):
            loop: ast.For = node  # type: ignore[assignment]
            if reads is not None:
                reads.expressions(loop.target, loop.iter)
            self.block(loop.body, scope, dead)
            self.block(loop.orelse, scope, dead)
            return None
        if kind in _TRY:
            return self._try(node, scope, dead)  # type: ignore[arg-type]
        if kind in (ast.With, ast.AsyncWith):
            with_node: ast.With = node  # type: ignore[assignment]
            if reads is not None:
                reads.expressions(*with_node.items)
            self.block(with_node.body, scope, dead)
            return None  # a context manager may swallow what ends its body
        if kind in _FUNCTIONS:
            function: ast.FunctionDef = node  # type: ignore[assignment]
            if reads is not None:
                args = function.args
                reads.expressions(*function.decorator_list, *args.defaults, *args.kw_defaults)
                reads.annotations(function.returns, *(
                    arg.annotation for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                               args.vararg, args.kwarg) if arg is not None))
            self.block(function.body, f"{scope}.{function.name}" if scope else function.name,
                       dead)
            return None
        if kind is ast.ClassDef:
            cls: ast.ClassDef = node  # type: ignore[assignment]
            if reads is not None:
                reads.expressions(*cls.decorator_list, *cls.bases, *cls.keywords)
            self.block(cls.body, f"{scope}.{cls.name}" if scope else cls.name, dead)
            return None
        if kind is ast.Match:
            return self._match(node, scope, dead)  # type: ignore[arg-type]
        if kind is ast.AnnAssign:
            annotated: ast.AnnAssign = node  # type: ignore[assignment]
            if reads is not None:
                reads.expressions(annotated.target, annotated.value)
                reads.annotations(annotated.annotation)
            return None
        if reads is not None:
            reads.expressions(node)
        return None

    def _if(self, node: ast.If, scope: str, dead: bool) -> str | None:
        self.expressions(node.test)
        truth = _constant(node.test)
        if truth is False and not dead and not _only_imports(node.body):
            self.report(scope, node.body, "false")
        if truth is True and not dead:
            self.report(scope, node.orelse, "true")
        body = self.block(node.body, scope, dead or truth is False)
        orelse = self.block(node.orelse, scope, dead or truth is True)
        if truth is True:
            return body
        if truth is False:
            return orelse
        return "branches" if body and orelse else None

    def _while(self, node: ast.While, scope: str, dead: bool) -> str | None:
        self.expressions(node.test)
        truth = _constant(node.test)
        if truth is False and not dead:
            self.report(scope, node.body, "false")
        self.block(node.body, scope, dead or truth is False)
        self.block(node.orelse, scope, dead)
        if truth is True and not _has_break(node.body):
            return "loop"
        return None

    def _try(self, node: ast.Try, scope: str, dead: bool) -> str | None:
        body = self.block(node.body, scope, dead)
        handlers = True
        for handler in node.handlers:
            self.expressions(handler.type)
            handlers = self.block(handler.body, scope, dead) is not None and handlers
        orelse = self.block(node.orelse, scope, dead)
        final = self.block(node.finalbody, scope, dead)
        if final is not None:
            return final
        return "branches" if (body or orelse) and handlers else None

    def _match(self, node: ast.Match, scope: str, dead: bool) -> str | None:
        self.expressions(node.subject)
        ends = True
        for case in node.cases:
            self.expressions(case.pattern, case.guard)
            ends = self.block(case.body, scope, dead) is not None and ends
        last = node.cases[-1] if node.cases else None
        exhaustive = (last is not None and last.guard is None
                      and isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None)
        return "branches" if ends and exhaustive else None


def liveness(tree: ast.Module, module: str = "", reads: Reads | None = None) -> Liveness:
    """Unreachable spans (scopes qualified by `module`), and the names and attributes the module
    reads: those in `reads` when the caller collected them from every node of `tree` (see
    `Reads`), else found here."""
    own = reads is None
    if reads is None:
        reads = Reads()
    walker = _Walker(reads if own else None)
    walker.block(tree.body, module, False)
    return Liveness(tuple(walker.spans), tuple(sorted(reads.names)),
                    tuple(sorted(reads.attributes)), tuple(sorted(reads.prefixes)))
