"""Splitting one long line at a bracket, as black would (or under the opening bracket, in a
file that hangs its continuation lines): the brackets a line holds and which one to split
(`Collect`, `choose`), and the node rebuilt over several lines (`split`). `layout.py` decides
which lines to split.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

OPENERS = {"(", "[", "{"}
CLOSERS = {")", "]", "}"}


@dataclass
class _Bracket:
    """One bracketed list of items on a line: where it is and how to rebuild it."""

    node: cst.CSTNode
    items: list[Any]
    opened: CodeRange
    """The span of the whole bracketed construct (its start line is the long line)."""
    first: CodeRange
    """The first item's span (its start column is right after the opening bracket)."""
    last: CodeRange
    """The last item's span (its end is at the closing bracket)."""
    trailing_comma_allowed: bool = True
    hugged: bool = False
    """Its items already sit on a line of their own, between the brackets' lines."""
    continued: bool = False
    """An expression alone on a line inside a bracket: split at its operators, where it is."""
    invisible: bool = False
    """Not a bracket but an expression black puts in parentheses of its own (a condition, a
    value returned or assigned, with operators at its top)."""


_OPERATORS = (cst.BooleanOperation, cst.IfExp, cst.BinaryOperation, cst.Comparison,
              cst.UnaryOperation)
_EMPTY_TRAILERS = re.compile(r"\(\s*\)|\[\s*\]")
_SIGNATURE_END = re.compile(r"\s*,?\s*\)\s*(->.*)?:\s*(#.*)?")


def _last_bracket(tail: str) -> bool:
    """Whether the text after a bracket opens no other (empty call brackets aside, as in
    `.strip()`): black splits the last bracket of a line."""
    rest = _EMPTY_TRAILERS.sub("", tail)
    return depth_before(rest, len(rest)) <= 0 and not any(
        char in OPENERS for char in _code_part(rest))


def _code_part(text: str) -> str:
    """`text` without its string literals and comment."""
    kept = []
    position = 0
    while position < len(text):
        char = text[position]
        if char == "#":
            break
        if char in "'\"":
            end = text.find(char, position + 1)
            position = len(text) if end < 0 else end + 1
            continue
        kept.append(char)
        position += 1
    return "".join(kept)


def _split_value(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The value or condition of a statement black may put in parentheses of its own."""
    if isinstance(node, (cst.Return, cst.AnnAssign, cst.AugAssign)) or (
            isinstance(node, cst.Assign) and len(node.targets) == 1):
        value = node.value
    elif isinstance(node, (cst.If, cst.While)):
        value = node.test
    else:
        return None
    return value if isinstance(value, _OPERATORS) and not value.lpar else None


def _items(node: cst.CSTNode) -> list[Any] | None:
    """The node's bracketed items when it is a bracket this module splits."""
    if isinstance(node, cst.Call):
        return list(node.args)
    if isinstance(node, cst.FunctionDef):
        params = node.params
        star: list[Any] = [params.star_arg] if isinstance(
            params.star_arg, (cst.Param, cst.ParamStar)) else []
        slash = [params.posonly_ind] if isinstance(params.posonly_ind, cst.ParamSlash) else []
        return [*params.posonly_params, *slash, *params.params, *star, *params.kwonly_params,
                *([params.star_kwarg] if params.star_kwarg is not None else [])]
    if isinstance(node, cst.ClassDef):
        return [*node.bases, *node.keywords] if isinstance(node.lpar, cst.LeftParen) else None
    if isinstance(node, cst.ImportFrom):
        return list(node.names) if not isinstance(node.names, cst.ImportStar) else None
    if isinstance(node, (cst.List, cst.Set, cst.Dict)):
        return list(node.elements)
    if isinstance(node, cst.Tuple):
        return list(node.elements) if node.lpar else None
    if isinstance(node, _COMPREHENSIONS) and (
            not isinstance(node, cst.GeneratorExp) or node.lpar):
        return [node.key if isinstance(node, cst.DictComp) else node.elt]
    return None


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def depth_before(line: str, column: int) -> int:
    """Brackets opened on `line` before `column` and not closed there (strings and comments
    aside); below zero when the line closes brackets opened on earlier lines."""
    depth = position = 0
    while position < min(column, len(line)):
        char = line[position]
        if char == "#":
            break
        if char in "'\"":
            quote = line[position:position + 3] if line[position:position + 3] == char * 3 \
                else char
            position += len(quote)
            while position < len(line) and not line.startswith(quote, position):
                position += 2 if line[position] == "\\" else 1
            position += len(quote)
            continue
        depth += (char in OPENERS) - (char in CLOSERS)
        position += 1
    return depth


class Collect(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lines: set[int], source: Sequence[str]):
        super().__init__()
        self.lines = lines
        self.source = source
        """The module's lines: a bracket inside another bracket of its line is not split
        before that one (black splits the outermost)."""
        self.found: dict[int, list[_Bracket]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        super().on_visit(node)
        value = _split_value(node)
        if value is not None:
            span = self.get_metadata(PositionProvider, value)
            if span.start.line == span.end.line and span.start.line in self.lines and \
                    depth_before(self.source[span.start.line - 1], span.start.column) <= 0:
                self.found.setdefault(span.start.line, []).append(_Bracket(
                    value, [value], span, span, span, invisible=True))
        if isinstance(node, (cst.BooleanOperation, cst.IfExp)):
            self._continued(node)
        items = _items(node)
        if items:
            span = self.get_metadata(PositionProvider, node)
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                # the header alone: the body's lines are not this bracket's (a parameter's
                # own span leaves out its default)
                last = self.get_metadata(PositionProvider, node.params if isinstance(
                    node, cst.FunctionDef) else items[-1])
                span = CodeRange(span.start, last.end)
            if span.start.line in self.lines and depth_before(
                    self.source[span.start.line - 1], span.start.column) <= 0:
                line = span.start.line
                first = self.get_metadata(PositionProvider, items[0])
                last = span if isinstance(node, cst.FunctionDef) else \
                    self.get_metadata(PositionProvider, items[-1])
                tail = self.source[line - 1][span.end.column:]
                signature = isinstance(node, (cst.FunctionDef, cst.ClassDef))
                if first.start.line == last.end.line == line and (
                        _SIGNATURE_END.fullmatch(tail) if signature else _last_bracket(tail)):
                    sole_generator = len(items) == 1 and isinstance(
                        getattr(items[0], "value", None), cst.GeneratorExp)
                    self.found.setdefault(line, []).append(_Bracket(
                        node, items, span, first, last, not sole_generator))
            self._hugged(node, items, span)
        return True

    def _continued(self, node: cst.BooleanOperation | cst.IfExp) -> None:
        """Operators that fill a line of their own inside a bracket opened on an earlier line
        (moved code, indented deeper): black splits before them, not at a call's bracket."""
        first, last = (node.left, node.right) if isinstance(node, cst.BooleanOperation) \
            else (node.body, node.orelse)
        start = self.get_metadata(PositionProvider, first).start
        end = self.get_metadata(PositionProvider, last).end
        span = CodeRange(start, end)  # inside its parentheses, when it has some
        line = span.start.line
        if line != span.end.line or line not in self.lines:
            return
        text = self.source[line - 1]
        if text[:span.start.column].strip() or text[span.end.column:].strip() not in ("", ","):
            return
        self.found.setdefault(line, []).append(_Bracket(
            node, [node], span, span, span, invisible=True, continued=True))

    def _hugged(self, node: cst.CSTNode, items: list[Any], span: CodeRange) -> None:
        """A bracket whose items share a line of their own (`f(\\n    a, b\\n)`) that is too
        long: black then puts one item a line."""
        first = self.get_metadata(PositionProvider, items[0])
        last = self.get_metadata(PositionProvider, items[-1])
        line = first.start.line
        if line == span.start.line or line != last.end.line or line not in self.lines or \
                len(items) < 2 or isinstance(node, _COMPREHENSIONS):
            return
        text = self.source[line - 1]
        after = text[last.end.column:].strip()
        if text[:first.start.column].strip() or after not in ("", ","):
            return
        self.found.setdefault(line, []).append(_Bracket(
            node, items, span, first, last, hugged=True))


def choose(brackets: Sequence[_Bracket], line: str, limit: int) -> _Bracket | None:
    """black's right-hand split: the bracket that closes last on the line, outermost first,
    among those whose head (the line up to the bracket) fits; a condition or value with
    operators at its top goes in parentheses of its own first."""
    invisible = [bracket for bracket in brackets if bracket.invisible]
    if invisible:
        return min(invisible, key=lambda bracket: bracket.opened.start.column)
    fitting = [bracket for bracket in brackets if bracket.first.start.column <= limit]
    if not fitting:
        return None
    return max(fitting, key=lambda bracket: (bracket.last.end.column,
                                             -bracket.opened.start.column))


def _newline(indent: str, relative: bool = True) -> cst.ParenthesizedWhitespace:
    """A line break followed by `indent` (after the block's own indentation when `relative`)."""
    return cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[],
                                       indent=relative, last_line=cst.SimpleWhitespace(indent))


def _comma(after: cst.BaseParenthesizableWhitespace) -> cst.Comma:
    return cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=after)


def _rebuild(node: cst.CSTNode, items: list[Any], opening: cst.BaseParenthesizableWhitespace,
             closing: cst.BaseParenthesizableWhitespace | None) -> cst.CSTNode:
    """The node with `items` and `opening` after its opening bracket; `closing` before its
    closing bracket (None: the last item's comma carries the line break)."""
    empty = cst.SimpleWhitespace("")
    if closing is not None:
        last = items[-1]
        if isinstance(last, cst.Arg):
            items[-1] = last.with_changes(whitespace_after_arg=closing)
        elif isinstance(last, cst.Param):
            items[-1] = last.with_changes(whitespace_after_param=closing)
    if isinstance(node, cst.Call):
        return node.with_changes(args=items, whitespace_before_args=opening)
    if isinstance(node, cst.FunctionDef):
        params = node.params
        counts = [len(params.posonly_params), 1 if isinstance(params.posonly_ind, cst.ParamSlash)
                  else 0, len(params.params), 1 if isinstance(params.star_arg, (
                      cst.Param, cst.ParamStar)) else 0, len(params.kwonly_params),
                  1 if params.star_kwarg is not None else 0]
        parts: list[list[Any]] = []
        start = 0
        for count in counts:
            parts.append(items[start:start + count])
            start += count
        posonly, slash, plain, star, kwonly, kwargs = parts
        return node.with_changes(whitespace_before_params=opening, params=params.with_changes(
            posonly_params=posonly, posonly_ind=slash[0] if slash else params.posonly_ind,
            params=plain, star_arg=star[0] if star else params.star_arg, kwonly_params=kwonly,
            star_kwarg=kwargs[0] if kwargs else None))
    if isinstance(node, cst.ClassDef):  # the last base carries `closing`, as a call's does
        bases = [item for item in items if item.keyword is None]
        return node.with_changes(
            bases=bases, keywords=items[len(bases):],
            lpar=node.lpar.with_changes(whitespace_after=opening)
            if isinstance(node.lpar, cst.LeftParen) else node.lpar,
            rpar=node.rpar.with_changes(whitespace_before=empty)
            if isinstance(node.rpar, cst.RightParen) else node.rpar)
    if isinstance(node, cst.ImportFrom):
        return node.with_changes(names=items, lpar=cst.LeftParen(whitespace_after=opening),
                                 rpar=cst.RightParen(whitespace_before=closing or empty))
    if isinstance(node, (cst.List, cst.Set, cst.Dict)):
        opener = node.lbracket if isinstance(node, cst.List) else node.lbrace
        closer = node.rbracket if isinstance(node, cst.List) else node.rbrace
        changes = {"lbracket" if isinstance(node, cst.List) else "lbrace":
                   opener.with_changes(whitespace_after=opening),
                   "rbracket" if isinstance(node, cst.List) else "rbrace":
                   closer.with_changes(whitespace_before=closing or empty)}
        return node.with_changes(elements=items, **changes)
    assert isinstance(node, cst.Tuple)
    lpar = [node.lpar[0].with_changes(whitespace_after=opening), *node.lpar[1:]]
    rpar = [*node.rpar[:-1], node.rpar[-1].with_changes(whitespace_before=closing or empty)]
    return node.with_changes(elements=items, lpar=lpar, rpar=rpar)


def split(bracket: _Bracket, module: cst.Module, line: str, block_indent: int, limit: int,
           hang: bool, unit: str) -> cst.CSTNode:
    """The bracket split over lines: black's way or, `hang`, the hanging way."""
    if bracket.continued:
        assert isinstance(bracket.node, cst.BaseExpression)
        line_indent = len(line) - len(line.lstrip())
        return _operator_lines(bracket.node, _newline(" " * (line_indent - block_indent)))
    if bracket.invisible:
        assert isinstance(bracket.node, cst.BaseExpression)
        return _parenthesized(bracket.node, module, line, block_indent, limit, unit)
    if isinstance(bracket.node, _COMPREHENSIONS):
        return _split_comprehension(bracket.node, module, line, block_indent, limit, unit)
    texts = [module.code_for_node(item).strip().removesuffix(",").rstrip()
             for item in bracket.items]
    line_indent = len(line) - len(line.lstrip())
    items = list(bracket.items)
    if bracket.hugged:  # one item a line, where they are
        inner = " " * (line_indent - block_indent)
        outer = " " * max(0, line_indent - len(unit) - block_indent)
        for position in range(len(items) - 1):
            items[position] = items[position].with_changes(comma=_comma(_newline(inner)))
        items[-1] = items[-1].with_changes(comma=_comma(_newline(outer)))
        empty = cst.SimpleWhitespace("")  # the line break before the bracket is the comma's now
        if isinstance(items[-1], cst.Arg):
            items[-1] = items[-1].with_changes(whitespace_after_arg=empty)
        elif isinstance(items[-1], cst.Param):
            items[-1] = items[-1].with_changes(whitespace_after_param=empty)
        return _rebuild(bracket.node, items, _newline(inner), None)
    if hang:
        column = bracket.first.start.column
        if column + max(len(text) for text in texts) + 2 <= limit:
            width = column
            for position in range(len(items) - 1):
                width += len(texts[position]) + 2
                following = width + len(texts[position + 1]) + 1
                breaks = following > limit
                after = _newline(" " * column, relative=False) if breaks else \
                    cst.SimpleWhitespace(" ")
                if breaks:
                    width = column
                items[position] = items[position].with_changes(comma=_comma(after))
            if isinstance(items[-1].comma, cst.Comma):
                items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return _rebuild(bracket.node, items, cst.SimpleWhitespace(""), None)
    inner = " " * (line_indent - block_indent) + unit
    outer = " " * (line_indent - block_indent)
    hug = ", ".join(texts)
    has_trailing = isinstance(bracket.items[-1].comma, cst.Comma)
    literal = isinstance(bracket.node, (cst.List, cst.Set, cst.Dict, cst.Tuple, cst.ImportFrom))
    if not has_trailing and not (literal and len(items) > 1) and \
            line_indent + len(unit) + len(hug) <= limit:
        for position in range(len(items) - 1):
            items[position] = items[position].with_changes(
                comma=_comma(cst.SimpleWhitespace(" ")))
        items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return _rebuild(bracket.node, items, _newline(inner), _newline(outer))
    for position in range(len(items) - 1):
        items[position] = items[position].with_changes(comma=_comma(_newline(inner)))
    if bracket.trailing_comma_allowed:
        items[-1] = items[-1].with_changes(comma=_comma(_newline(outer)))
        return _rebuild(bracket.node, items, _newline(inner), None)
    generator = getattr(items[-1], "value", None)  # a sole argument: one clause a line
    if isinstance(generator, cst.GeneratorExp):
        items[-1] = items[-1].with_changes(value=generator.with_changes(
            for_in=_clauses(generator.for_in, _newline(inner))))
    items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return _rebuild(bracket.node, items, _newline(inner), _newline(outer))


def _parenthesized(node: cst.BaseExpression, module: cst.Module, line: str,
                   block_indent: int, limit: int, unit: str) -> cst.BaseExpression:
    """The expression in parentheses on lines of their own; split before its loosest operators
    (a conditional's `if` and `else`, else every `and` and `or`) when still too long."""
    line_indent = len(line) - len(line.lstrip())
    inner = _newline(" " * (line_indent - block_indent) + unit)
    outer = _newline(" " * (line_indent - block_indent))
    if line_indent + len(unit) + len(module.code_for_node(node)) > limit:
        node = _operator_lines(node, inner)
    return node.with_changes(lpar=[cst.LeftParen(whitespace_after=inner)],
                             rpar=[cst.RightParen(whitespace_before=outer)])


def _operator_lines(node: cst.BaseExpression,
                    inner: cst.ParenthesizedWhitespace) -> cst.BaseExpression:
    if isinstance(node, cst.IfExp):
        return node.with_changes(whitespace_before_if=inner, whitespace_before_else=inner)
    if not isinstance(node, cst.BooleanOperation):
        return node

    def chain(item: cst.BaseExpression) -> cst.BaseExpression:
        """Before every `and` and `or` outside parentheses (black ranks them alike)."""
        if not isinstance(item, cst.BooleanOperation) or (item.lpar and item is not node):
            return item
        return item.with_changes(left=chain(item.left), right=chain(item.right),
                                 operator=item.operator.with_changes(whitespace_before=inner))

    return chain(node)


Comprehension = cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp


def _split_comprehension(node: Comprehension, module: cst.Module, line: str,
                         block_indent: int, limit: int, unit: str) -> cst.CSTNode:
    """black's split of a comprehension: its contents on one indented line, else one clause
    (the value, each `for`, each `if`) a line."""
    line_indent = len(line) - len(line.lstrip())
    inner = _newline(" " * (line_indent - block_indent) + unit)
    outer = _newline(" " * (line_indent - block_indent))
    text = module.code_for_node(node).strip()
    contents = text[1:-1].strip()
    if line_indent + len(unit) + len(contents) > limit:
        node = node.with_changes(for_in=_clauses(node.for_in, inner))
    if isinstance(node, cst.GeneratorExp):
        lpar = [node.lpar[0].with_changes(whitespace_after=inner), *node.lpar[1:]]
        rpar = [*node.rpar[:-1], node.rpar[-1].with_changes(whitespace_before=outer)]
        return node.with_changes(lpar=lpar, rpar=rpar)
    if isinstance(node, cst.ListComp):
        return node.with_changes(lbracket=node.lbracket.with_changes(whitespace_after=inner),
                                 rbracket=node.rbracket.with_changes(whitespace_before=outer))
    return node.with_changes(lbrace=node.lbrace.with_changes(whitespace_after=inner),
                             rbrace=node.rbrace.with_changes(whitespace_before=outer))


def _clauses(clause: cst.CompFor, inner: cst.ParenthesizedWhitespace) -> cst.CompFor:
    """Every `for` and `if` clause of a comprehension on a line of its own."""
    nested = clause.inner_for_in
    return clause.with_changes(
        whitespace_before=inner,
        ifs=[item.with_changes(whitespace_before=inner) for item in clause.ifs],
        inner_for_in=_clauses(nested, inner) if nested is not None else None)


class Statements(cst.CSTVisitor):
    """The indentation column of the statement holding each line."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.indent: dict[int, int] = {}

    def _record(self, node: cst.CSTNode, header_end: int | None = None) -> None:
        span = self.get_metadata(PositionProvider, node)
        for line in range(span.start.line, (header_end or span.end.line) + 1):
            self.indent[line] = span.start.column

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._record(node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        super().on_visit(node)
        if isinstance(node, cst.BaseCompoundStatement):
            body = self.get_metadata(PositionProvider, node.body)
            self._record(node, body.start.line)
        if isinstance(node, cst.Decorator):
            self._record(node)
        return True


def replace(module: cst.Module, replacements: dict[cst.CSTNode, cst.CSTNode]) -> cst.Module:
    class Replace(cst.CSTTransformer):
        def on_leave(self, original_node: cst.CSTNode,  # type: ignore[override]
                     updated_node: cst.CSTNode) -> cst.CSTNode:
            new = replacements.get(original_node)
            if new is None:
                return updated_node
            if isinstance(new, (cst.FunctionDef, cst.ClassDef)):  # keep the updated body
                assert isinstance(updated_node, (cst.FunctionDef, cst.ClassDef))
                return new.with_changes(body=updated_node.body)
            return new

    result = module.visit(Replace())
    assert isinstance(result, cst.Module)
    return result
