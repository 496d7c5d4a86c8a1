"""Size and complexity per function, class and module, in one pass over the tree already parsed.

Cyclomatic complexity (McCabe 1976) and Halstead's counts (Halstead 1977) are exactly those of
radon 6 (`radon.visitors.ComplexityVisitor` with its defaults, `HalsteadVisitor` run on the same
node), but computed by one iterative walk instead of radon's visitors: radon re-walks every function
body once per enclosing scope and dispatches by method name per node, which together cost more than
the parse.
`tests/metrics/test_complexity.py` checks the parity against radon itself, definition by definition.

The rules reproduced from radon:

- CC of a function: 1 + its decision points, not counting nested functions and classes. Decision
  points: `if`/`elif`, conditional expressions, each `for`/`async for`/`while` (+1 with `else`),
  each comprehension `for` (+1 per `if` in it), each `and`/`or` operand after the first, each
  `except` handler (+1 for a `try ... else`), each `match` case except a bare capture or `_`, and
  each `assert` (its condition adds nothing more). Decorators, defaults and annotations are not
  counted; `try`/`except*` (TryStar) adds nothing, as in radon.
- CC of a class: radon's `Class.complexity`, i.e. `real // methods + (methods > 1)` where `real` is
  1 + the decision points of the class body + the CC of its methods; `cc_total` keeps `real`.
- CC of the module: radon's `total_complexity` (nested functions and classes are not included).
- Halstead: operators are the `BinOp`, `UnaryOp`, `BoolOp`, `AugAssign` and `Compare` nodes (one per
  comparison operator), distinct by the operator's class name; operands are their direct operands,
  distinct by (innermost enclosing function name, key) where the key is a name's id, an attribute's
  name, a constant's value, and the node itself for anything else. Function headers (decorators,
  defaults, annotations) are never visited; class headers are. A class is measured as radon would
  measure the class node alone (its own body has no enclosing function).

Raw counts are read from the text, guided by the tree (for docstrings and string literals), instead
of radon's `raw.analyze`, which tokenizes the file again and costs more than parsing it. Where they
differ from radon.raw:

- `lloc` is the number of statements (the definition's own excluded); radon also counts `else:`,
  `except ...:`, `finally:`, `case ...:` and decorator lines, and counts a line with a colon not at
  its end (a dict display, a lambda, a slice, an annotation) as two.
- `comments` counts comment-only lines; radon's `comments` also counts trailing comments, and radon
  counts a comment line inside brackets as a source line.
- `multi` counts the non-blank lines of string statements (docstrings), single-line ones included;
  radon files single-line docstrings under `single_comments`. `blank` counts every whitespace-only
  line, as radon does (also inside strings); `sloc = loc - blank - comments - multi`.
- Lines are split at `\\n`, `\\r\\n` and `\\r` only, as the parser does (`str.splitlines` also
  splits at form feeds and other separators, which would shift line numbers).
"""

from __future__ import annotations

import ast
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import Any, NamedTuple


class CodeMeasure(NamedTuple):
    """Counts of one function, class or module; derived metrics are properties."""

    cc: int  # cyclomatic complexity (radon's rules; a class: radon's per-method average)
    loc: int  # physical lines
    lloc: int  # logical lines: statements
    sloc: int  # source lines: not blank, not comment-only, not docstring
    comments: int  # comment-only lines
    multi: int  # non-blank lines of docstrings
    blank: int
    h1: int  # distinct operators
    h2: int  # distinct operands
    n1: int  # total operators
    n2: int  # total operands
    cc_total: int  # a class: radon's real_complexity (1 + body + methods); else equal to cc

    @property
    def volume(self) -> float:
        """Halstead volume V = N log2(h)."""
        vocabulary = self.h1 + self.h2
        return (self.n1 + self.n2) * math.log2(vocabulary) if vocabulary else 0.0

    @property
    def difficulty(self) -> float:
        """Halstead difficulty D = h1/2 * N2/h2."""
        return (self.h1 * self.n2) / (2 * self.h2) if self.h2 else 0.0

    @property
    def effort(self) -> float:
        return self.difficulty * self.volume

    @property
    def mi(self) -> float:
        """Maintainability index as radon's `mi_visit(code, multi=True)` computes it (0-100).

        radon passes the logical line count where the formula says SLOC, and takes the comment
        percentage (comments plus docstring lines) over SLOC.
        """
        volume = self.volume
        if volume <= 0 or self.lloc <= 0:
            return 100.0
        comment_percent = (self.comments + self.multi) / self.sloc * 100 if self.sloc else 0.0
        raw = (171 - 5.2 * math.log(volume) - 0.23 * self.cc - 16.2 * math.log(self.lloc)
               + 50 * math.sin(math.sqrt(2.46 * math.radians(comment_percent))))
        return min(max(0.0, raw * 100 / 171.0), 100.0)


# --------------------------------------------------------------------------------------------
# Node table: what the walk does with each node type, and which fields hold child nodes.

(_SKIP, _GENERIC, _STMT, _CONST, _ATTR, _CALL, _BINOP, _UNARY, _BOOL, _COMPARE, _IFEXP, _COMP,
 _STRSPAN, _EXPR, _ASSIGN, _AUG, _IF, _LOOP, _TRY, _MATCH, _ASSERT, _FUNC, _CLASS) = range(23)

_NOT_CHILDREN = frozenset({
    "ctx", "op", "ops", "id", "attr", "name", "asname", "arg", "module", "names", "level", "kind",
    "conversion", "is_async", "type_comment", "type_ignores", "tag", "simple", "rest",
    "kwd_attrs",
})

_SPECIAL: dict[str, int] = {
    "Name": _SKIP, "MatchSingleton": _SKIP, "MatchStar": _SKIP, "alias": _SKIP,
    "Pass": _STMT, "Break": _STMT, "Continue": _STMT, "Global": _STMT, "Nonlocal": _STMT,
    "Import": _STMT, "ImportFrom": _STMT,
    "Constant": _CONST, "Attribute": _ATTR, "Call": _CALL, "BinOp": _BINOP, "UnaryOp": _UNARY,
    "BoolOp": _BOOL, "Compare": _COMPARE, "IfExp": _IFEXP, "comprehension": _COMP,
    "JoinedStr": _STRSPAN, "Expr": _EXPR, "Assign": _ASSIGN, "AugAssign": _AUG, "If": _IF,
    "For": _LOOP, "AsyncFor": _LOOP, "While": _LOOP, "Try": _TRY, "Match": _MATCH,
    "Assert": _ASSERT, "FunctionDef": _FUNC, "AsyncFunctionDef": _FUNC, "ClassDef": _CLASS,
}


def _node_table() -> dict[type, tuple[int, tuple[str, ...]]]:
    table: dict[type, tuple[int, tuple[str, ...]]] = {type(None): (_SKIP, ())}
    table.update((type(node), (_SKIP, ())) for node in (ast.Load(), ast.Store(), ast.Del()))
    classes = [ast.AST]
    while classes:  # every node class, without touching the deprecated aliases in `ast`
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        fields = tuple(field for field in cls._fields if field not in _NOT_CHILDREN)
        code = _SPECIAL.get(cls.__name__, _STMT if issubclass(cls, ast.stmt) else _GENERIC)
        table.setdefault(cls, (code, fields))
    return table


_TABLE = _node_table()


def _operand_key(node: Any) -> Any:
    """How radon's HalsteadVisitor tells operands apart (within one function's context)."""
    kind = type(node)
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        return node.attr
    if kind is ast.Constant:
        return node.value
    return node


# --------------------------------------------------------------------------------------------
# The walk.


class _Unit:
    """Running counts of a module, function or class while its subtree is walked."""

    __slots__ = ("children_cc", "context", "decisions", "functions", "is_function", "methods_cc",
                 "n1", "n2", "node", "operands", "operators", "own_operands", "parent",
                 "statements")

    def __init__(self, node: ast.AST | None, parent: _Unit | None, context: str | None,
                 is_function: bool):
        self.node = node
        self.parent = parent
        self.context = context  # innermost function name for the unit's own region, or None
        self.is_function = is_function
        self.decisions = 0
        self.statements = 0
        self.n1 = 0
        self.n2 = 0
        self.operators: set[str] = set()
        self.own_operands: set[Any] = set()
        self.operands: set[tuple[str | None, Any]] = set()
        self.functions = 0  # direct child functions (methods, for a class)
        self.methods_cc = 0  # sum of their CC
        self.children_cc = 0  # sum of (cc - 1) of direct functions and (real - 1) of classes


class _Result(NamedTuple):
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    cc: int
    cc_total: int
    statements: int
    h1: int
    h2: int
    n1: int
    n2: int


class _Walker:
    def __init__(self) -> None:
        self.results: list[_Result] = []
        self.docstrings: list[tuple[int, int]] = []  # (first, last) line of string statements
        self.strings: list[tuple[int, int]] = []  # (first, last) line of multi-line literals

    def walk(self, roots: Iterable[ast.AST | None], unit: _Unit, count_cc: bool,
             count_halstead: bool) -> None:
        """Visit `roots` and everything below them, adding to `unit` (nested units recurse)."""
        stack: list[Any] = list(roots)
        pop = stack.pop
        push = stack.append
        extend = stack.extend
        table = _TABLE
        key = _operand_key
        constant_type = ast.Constant
        name_type = ast.Name
        attribute_type = ast.Attribute
        decisions = statements = n1 = n2 = 0
        operators = unit.operators
        operands = unit.own_operands
        while stack:
            node = pop()
            code, fields = table[type(node)]
            if code == _SKIP:
                continue
            if code == _CONST:
                if node.end_lineno != node.lineno:
                    self.strings.append((node.lineno, node.end_lineno))
                continue
            if code == _ATTR:
                node = node.value
                while type(node) is attribute_type:
                    node = node.value
                if type(node) is not name_type:
                    push(node)
                continue
            if code == _CALL:
                func = node.func
                if type(func) is not name_type:
                    push(func)
                for arg in node.args:
                    if type(arg) is not name_type:
                        push(arg)
                for keyword in node.keywords:
                    push(keyword.value)
                continue
            if code <= _STMT:  # _GENERIC or _STMT; _SKIP is handled above
                if code == _STMT:
                    statements += 1
                for field in fields:
                    value = getattr(node, field)
                    if type(value) is list:
                        extend(value)
                    elif value is not None:
                        push(value)
                continue
            if code == _ASSIGN:
                statements += 1
                extend(node.targets)
                push(node.value)
                continue
            if code == _EXPR:
                statements += 1
                value = node.value
                if type(value) is constant_type and isinstance(value.value, (str, bytes)):
                    self.docstrings.append((node.lineno, node.end_lineno))
                push(value)
                continue
            if code == _COMPARE:
                if count_halstead:
                    count = len(node.ops)
                    n1 += count
                    n2 += count + 1
                    for op in node.ops:
                        operators.add(type(op).__name__)
                    operands.add(key(node.left))
                    for comparator in node.comparators:
                        operands.add(key(comparator))
                push(node.left)
                extend(node.comparators)
                continue
            if code == _BINOP:
                if count_halstead:
                    n1 += 1
                    n2 += 2
                    operators.add(type(node.op).__name__)
                    operands.add(key(node.left))
                    operands.add(key(node.right))
                push(node.left)
                push(node.right)
                continue
            if code == _UNARY:
                if count_halstead:
                    n1 += 1
                    n2 += 1
                    operators.add(type(node.op).__name__)
                    operands.add(key(node.operand))
                push(node.operand)
                continue
            if code == _BOOL:
                values = node.values
                if count_cc:
                    decisions += len(values) - 1
                if count_halstead:
                    n1 += 1
                    n2 += len(values)
                    operators.add(type(node.op).__name__)
                    for value in values:
                        operands.add(key(value))
                extend(values)
                continue
            if code == _IF:
                statements += 1
                if count_cc:
                    decisions += 1
                push(node.test)
                extend(node.body)
                extend(node.orelse)
                continue
            if code == _IFEXP:
                if count_cc:
                    decisions += 1
                push(node.test)
                push(node.body)
                push(node.orelse)
                continue
            if code == _FUNC:
                statements += 1
                self.function(node, unit)
                continue
            if code == _CLASS:
                statements += 1
                self.klass(node, unit)
                continue
            if code == _ASSERT:
                statements += 1
                if count_cc:
                    decisions += 1
                self.walk((node.test, node.msg), unit, False, count_halstead)
                continue
            if code == _AUG:
                statements += 1
                if count_halstead:
                    n1 += 1
                    n2 += 2
                    operators.add(type(node.op).__name__)
                    operands.add(key(node.target))
                    operands.add(key(node.value))
                push(node.target)
                push(node.value)
                continue
            if code == _COMP:
                if count_cc:
                    decisions += 1 + len(node.ifs)
            elif code == _LOOP:
                statements += 1
                if count_cc:
                    decisions += 1 + bool(node.orelse)
            elif code == _TRY:
                statements += 1
                if count_cc:
                    decisions += len(node.handlers) + bool(node.orelse)
            elif code == _MATCH:
                statements += 1
                if count_cc:
                    cases = node.cases
                    wildcard = any(getattr(case.pattern, "pattern", False) is None
                                   for case in cases)
                    decisions += max(0, len(cases) - wildcard)
            elif code == _STRSPAN and node.end_lineno != node.lineno:
                self.strings.append((node.lineno, node.end_lineno))
            for field in fields:
                value = getattr(node, field)
                if type(value) is list:
                    extend(value)
                elif value is not None:
                    push(value)
        unit.decisions += decisions
        unit.statements += statements
        unit.n1 += n1
        unit.n2 += n2

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, parent: _Unit) -> None:
        # Neither radon visitor looks at decorators, defaults or annotations; they are walked
        # only to find multi-line string literals, which a one-line header cannot hold.
        header: list[ast.AST | None] = [decorator for decorator in node.decorator_list
                                        if decorator.end_lineno != decorator.lineno]
        if node.body[0].lineno > node.lineno + 1:
            header.extend((node.args, node.returns, *getattr(node, "type_params", ())))
        if header:
            self.walk(header, parent, False, False)
        unit = _Unit(node, parent, node.name, True)
        self.walk(node.body, unit, True, True)
        cc = 1 + unit.decisions
        self._finish(unit, cc, cc)
        parent.functions += 1
        parent.methods_cc += cc
        parent.children_cc += cc - 1

    def klass(self, node: ast.ClassDef, parent: _Unit) -> None:
        unit = _Unit(node, parent, None, False)
        header: list[ast.AST | None] = [*node.bases, *node.keywords, *node.decorator_list,
                                        *getattr(node, "type_params", ())]
        self.walk(header, unit, False, True)
        self.walk(node.body, unit, True, True)
        real = 1 + unit.decisions + unit.methods_cc
        methods = unit.functions
        cc = int(real / methods) + (methods > 1) if methods else real
        self._finish(unit, cc, real)
        parent.children_cc += real - 1

    def _finish(self, unit: _Unit, cc: int, cc_total: int) -> None:
        """Record the unit's measure and fold its counts into the enclosing unit."""
        operands = unit.operands
        context = unit.context
        operands.update([(context, value) for value in unit.own_operands])
        node = unit.node
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        self.results.append(_Result(node, cc, cc_total, unit.statements, len(unit.operators),
                                    len(operands), unit.n1, unit.n2))
        parent = unit.parent
        assert parent is not None
        parent.statements += unit.statements
        parent.n1 += unit.n1
        parent.n2 += unit.n2
        parent.operators |= unit.operators
        target = parent.context
        if unit.is_function or target is None:
            parent.operands |= operands
        else:  # a class inside a function: its own region belongs to that function's context
            parent.operands.update([(target if where is None else where, value)
                                    for where, value in operands])


# --------------------------------------------------------------------------------------------
# Lines.

_LINE_BREAK = re.compile(r"\r\n?")


class _Lines(NamedTuple):
    total: int
    blank: list[int]  # sorted line numbers of each kind
    comments: list[int]
    multi: list[int]

    def measure(self, first: int, last: int) -> tuple[int, int, int, int]:
        """(loc, blank, comments, multi) of lines first..last."""
        return (last - first + 1,
                bisect_right(self.blank, last) - bisect_left(self.blank, first),
                bisect_right(self.comments, last) - bisect_left(self.comments, first),
                bisect_right(self.multi, last) - bisect_left(self.multi, first))


def _without(lines: list[int], spans: list[tuple[int, int]]) -> list[int]:
    """`lines` minus those inside any of `spans` (inclusive)."""
    if not lines or not spans:
        return lines
    drop: set[int] = set()
    for first, last in spans:
        start = bisect_left(lines, first)
        stop = bisect_right(lines, last)
        if start < stop:
            drop.update(lines[start:stop])
    return [line for line in lines if line not in drop] if drop else lines


def _classify_lines(source: str, docstrings: list[tuple[int, int]],
                    strings: list[tuple[int, int]]) -> _Lines:
    if "\r" in source:
        source = _LINE_BREAK.sub("\n", source)
    texts = source.split("\n")
    if not texts[-1]:
        texts.pop()
    blank = [number for number, text in enumerate(texts, 1) if not text or text.isspace()]
    comments = [number for number, text in enumerate(texts, 1)
                if "#" in text and text.lstrip()[:1] == "#"]
    # A '#' line inside a multi-line string is not a comment; the string's first line is code.
    comments = _without(comments, [(first + 1, last) for first, last in strings])
    multi: list[int] = []
    if docstrings:
        lines: set[int] = set()
        for first, last in docstrings:
            lines.update(range(first, last + 1))
        multi = sorted(lines.difference(blank))
    return _Lines(len(texts), blank, comments, multi)


# --------------------------------------------------------------------------------------------


def _measure(lines: _Lines, first: int, last: int, statements: int, cc: int, cc_total: int,
             h1: int, h2: int, n1: int, n2: int) -> CodeMeasure:
    loc, blank, comments, multi = lines.measure(first, last)
    return CodeMeasure(
        cc=cc, loc=loc, lloc=statements, sloc=max(0, loc - blank - comments - multi),
        comments=comments, multi=multi, blank=blank, h1=h1, h2=h2, n1=n1, n2=n2,
        cc_total=cc_total)


def measure_module(tree: ast.Module, source: str) -> tuple[CodeMeasure, dict[tuple[int, int],
                                                                             CodeMeasure]]:
    """The module's measure and one per function and class, keyed by (line, column)."""
    walker = _Walker()
    module = _Unit(None, None, None, False)
    walker.walk(tree.body, module, True, True)
    module.operands.update([(None, value) for value in module.own_operands])
    lines = _classify_lines(source, walker.docstrings, walker.strings)
    measures: dict[tuple[int, int], CodeMeasure] = {}
    for result in walker.results:
        node = result.node
        measures[(node.lineno, node.col_offset)] = _measure(
            lines, node.lineno, node.end_lineno or node.lineno, result.statements, result.cc,
            result.cc_total, result.h1, result.h2, result.n1, result.n2)
    cc = 1 + module.decisions + module.children_cc
    module_measure = _measure(lines, 1, lines.total, module.statements, cc, cc,
                              len(module.operators), len(module.operands), module.n1, module.n2)
    return module_measure, measures
