"""Where the value of a pasted body goes: its `return`s become what the call statement did
with the call's value (returned, assigned, or dropped), guard clauses becoming if/else so the
pasted code has one way out, as the call had."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from smellkit.errors import InjectionRefused

Make = Callable[[cst.BaseExpression | None], list[cst.BaseStatement]]
"""What a `return value` becomes where the body is pasted."""


def exits(body: Sequence[cst.BaseStatement], form: str,
           statement: cst.SimpleStatementLine) -> list[cst.BaseStatement]:
    """The pasted body with its returns turned into what the call statement did with the
    value: kept for `return f()`, else assigned or dropped, guard clauses becoming if/else."""
    if form == "return":
        out = list(body)
        if not (out and _returns_last(out[-1])):
            out.append(cst.SimpleStatementLine([cst.Return(cst.Name("None"))]))
        return out
    small = statement.body[0]

    def make(value: cst.BaseExpression | None) -> list[cst.BaseStatement]:
        if form == "assign":
            assert isinstance(small, cst.Assign)
            target = small.targets[0].target
            if isinstance(target, cst.Name) and isinstance(value, cst.Name) and \
                    target.value == value.value:
                return []  # `x = x`: the value is already where the caller wants it
            if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and \
                    _same_names(target, value):
                return []  # `value, args = value, args`
            return [cst.SimpleStatementLine([small.with_changes(
                value=value if value is not None else cst.Name("None"))])]
        if value is None or isinstance(value, (cst.Name, cst.SimpleString, cst.Integer,
                                                cst.Float)):
            return []
        return [cst.SimpleStatementLine([cst.Expr(value)])]

    return _single_exit(list(body), make)


def _same_names(target: cst.Tuple, value: cst.Tuple) -> bool:
    """Whether both tuples are the same plain names in the same order."""
    def plain(node: cst.Tuple) -> list[str | None]:
        return [item.value.value if isinstance(item.value, cst.Name) else None
                for item in node.elements]
    names = plain(target)
    return None not in names and names == plain(value)


def _returns_last(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and \
        isinstance(statement.body[-1], cst.Return)


class _HasReturn(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Return(self, node: cst.Return) -> None:
        self.found = True


def _has_return(node: cst.CSTNode) -> bool:
    visitor = _HasReturn()
    node.visit(visitor)
    return visitor.found


def _block(statements: list[cst.BaseStatement]) -> cst.IndentedBlock:
    return cst.IndentedBlock(body=statements or [cst.SimpleStatementLine([cst.Pass()])])


def _single_exit(body: list[cst.BaseStatement], make: Make) -> list[cst.BaseStatement]:
    """Mirror of the site finder's guard rule: a return ends a path; a top-level `if` whose
    branch returns takes the rest of the body as its `else`."""
    out: list[cst.BaseStatement] = []
    for position, statement in enumerate(body):
        if _returns_last(statement):
            assert isinstance(statement, cst.SimpleStatementLine)
            *before, last = statement.body
            assert isinstance(last, cst.Return)
            made = make(last.value)
            if before:
                out.append(statement.with_changes(body=before))
            elif made:
                made[0] = made[0].with_changes(leading_lines=statement.leading_lines)
            out.extend(made)
            return out
        if not _has_return(statement):
            out.append(statement)
            continue
        if not isinstance(statement, cst.If) or not isinstance(statement.body,
                                                                cst.IndentedBlock):
            raise InjectionRefused("returns inside a loop, with or try block")
        branch = _single_exit(list(statement.body.body), make)
        orelse = statement.orelse
        if orelse is None:
            rest = _single_exit(body[position + 1:], make)
            if not branch and rest:  # `if x: return` guarding the rest: `if not x: rest`
                out.append(statement.with_changes(test=_negated(statement.test),
                                                  body=statement.body.with_changes(body=rest)))
                return out
            out.append(statement.with_changes(
                body=statement.body.with_changes(body=branch or [cst.SimpleStatementLine(
                    [cst.Pass()])]), orelse=_else(rest)))
            return out
        new_orelse: cst.BaseStatement | cst.Else
        if isinstance(orelse, cst.If):
            (new_orelse,) = _single_exit([orelse], make)
        elif isinstance(orelse.body, cst.IndentedBlock):
            new_orelse = orelse.with_changes(body=_block(_single_exit(
                list(orelse.body.body), make)))
        else:
            raise InjectionRefused("a one-line else")
        out.append(statement.with_changes(body=_block(branch).with_changes(
            header=statement.body.header, footer=statement.body.footer), orelse=new_orelse))
        return out
    out.extend(make(None))
    return out


def _else(rest: list[cst.BaseStatement]) -> cst.If | cst.Else | None:
    """The rest of a body after a guard clause as its `else`, or as an `elif` when the rest is
    one uncommented `if` (as a person would write the guards' chain)."""
    if not rest:
        return None
    if len(rest) == 1 and isinstance(rest[0], cst.If) and not any(
            line.comment for line in rest[0].leading_lines):
        return rest[0].with_changes(leading_lines=[])
    return cst.Else(body=_block(rest))


_LOOSE = (cst.BooleanOperation, cst.IfExp, cst.NamedExpr, cst.Lambda)
"""Expressions that bind more loosely than `not`: negated, they need parentheses."""


def _negated(test: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and \
            not test.lpar:
        return test.expression
    if isinstance(test, _LOOSE) and not test.lpar:
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=test)
