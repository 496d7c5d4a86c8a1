"""How an argument is written where a pasted body reads its parameter: bound to a local over
several lines as black writes it, or written in where it is read when it is plain text."""

from __future__ import annotations

import libcst as cst


class _Continuations(cst.CSTVisitor):
    def __init__(self) -> None:
        self.indents: list[int] = []

    def visit_ParenthesizedWhitespace(self, node: cst.ParenthesizedWhitespace) -> None:
        if node.indent:
            self.indents.append(len(node.last_line.value))


class _Shift(cst.CSTTransformer):
    def __init__(self, by: int) -> None:
        super().__init__()
        self.by = by

    def leave_ParenthesizedWhitespace(
            self, original_node: cst.ParenthesizedWhitespace,
            updated_node: cst.ParenthesizedWhitespace) -> cst.ParenthesizedWhitespace:
        if not updated_node.indent:
            return updated_node
        width = max(0, len(updated_node.last_line.value) + self.by)
        return updated_node.with_changes(last_line=cst.SimpleWhitespace(" " * width))


def dedented(value: cst.BaseExpression) -> cst.BaseExpression:
    """An argument spread over lines, bound to a local: its lines moved left by as much as
    the call's argument list indented them, so the closing bracket lines up with the
    assignment, as black writes it (not four columns further in). One whose lines were held
    together only by the call's brackets (`f"a"` newline `f"b"`) gets brackets of its own:
    `x = (` ... `)`, or its second line would be a statement of its own."""
    found = _Continuations()
    value.visit(found)
    if not found.indents:
        return value
    if _one_statement(value):
        result = value.visit(_Shift(-min(found.indents)))
        assert isinstance(result, cst.BaseExpression)
        return result
    result = value.visit(_Shift(4 - min(found.indents)))
    assert isinstance(result, cst.BaseExpression)
    inside = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace("    "))
    closing = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(""))
    return result.with_changes(lpar=[cst.LeftParen(whitespace_after=inside)],
                               rpar=[cst.RightParen(whitespace_before=closing)])


def _one_statement(value: cst.BaseExpression) -> bool:
    """Whether `x = value` written out is one statement."""
    code = cst.Module([]).code_for_node(cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(cst.Name("x"))], value)]))
    try:
        return len(cst.parse_module(code).body) == 1
    except cst.ParserSyntaxError:
        return False


def plain_text(value: cst.BaseExpression, rebound: set[str]) -> bool:
    """A string or f-string on one line whose parts read only names (and their attributes
    and items) the pasted body does not rebind: evaluating it where the parameter was read
    gives the same text, with no effect moved."""
    if "\n" in cst.Module([]).code_for_node(value):
        return False
    if isinstance(value, cst.SimpleString):
        return True
    if isinstance(value, cst.ConcatenatedString):
        return plain_text(value.left, rebound) and plain_text(value.right, rebound)
    if not isinstance(value, cst.FormattedString):
        return False
    for part in value.parts:
        if isinstance(part, cst.FormattedStringExpression) and (
                part.format_spec or not _plain_read(part.expression, rebound)):
            return False
    return True


def _plain_read(node: cst.BaseExpression, rebound: set[str]) -> bool:
    if isinstance(node, cst.Name):
        return node.value not in rebound
    if isinstance(node, cst.Attribute):
        return _plain_read(node.value, rebound)
    if isinstance(node, cst.Subscript):
        return _plain_read(node.value, rebound) and all(
            isinstance(item.slice, cst.Index) and isinstance(item.slice.value, (
                cst.Integer, cst.SimpleString, cst.Name)) and not (isinstance(
                    item.slice.value, cst.Name) and item.slice.value.value in rebound)
            for item in node.slice)
    return False


class _After(cst.CSTVisitor):
    """The names read after one statement of a function (in the order its text runs), and
    the loops around that statement."""

    def __init__(self, statement: cst.CSTNode) -> None:
        self.statement = statement
        self.after = False
        self.read_after: set[str] = set()
        self.nested: set[str] = set()
        self.loops: list[cst.CSTNode] = []
        self.around: list[cst.CSTNode] | None = None
        self._depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.statement:
            self.around = list(self.loops)
            return False
        if isinstance(node, (cst.For, cst.While)):
            self.loops.append(node)
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and self._depth:
            self.nested.update(_all_names(node))
            return False
        if isinstance(node, cst.FunctionDef):
            self._depth += 1
        if isinstance(node, cst.Name) and self.after:
            self.read_after.add(node.value)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if original_node is self.statement:
            self.after = True
        if self.loops and original_node is self.loops[-1]:
            self.loops.pop()


def _all_names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Name(self, inner: cst.Name) -> None:
            found.add(inner.value)

    node.visit(Collect())
    return found


def overwritable(function: cst.FunctionDef, statement: cst.CSTNode) -> set[str]:
    """The caller's names a pasted body may rebind in place of its parameter: none of the
    function's code reads them after the call statement, no nested function reads them, and
    the call is in no loop, or in one loop only, a `for` that binds the name afresh on every
    turn (`for index in indices: self._add_entry(formdata, index=index)`), so the body can
    write `index = ...` itself instead of `entry_index = index` first."""
    found = _After(statement)
    function.visit(found)
    if found.around is None:
        return set()
    names = _all_names(function) - found.read_after - found.nested
    if not found.around:
        return names
    if len(found.around) > 1 or not isinstance(found.around[0], cst.For):
        return set()
    loop = found.around[0]
    assert isinstance(loop, cst.For)
    return names & _all_names(loop.target)
