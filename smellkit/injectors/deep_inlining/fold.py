"""Literal arguments written where a pasted body reads them, and the branches they decide
dropped, as a person pasting a helper by hand would: `self.writeline("else:")` pasted reads
`self.write("else:")` after the newline bookkeeping, not `x = "else:"` followed by an
`if node is not None and ...` that can never run (its lines no test could run either).

Only what is certain is folded: a parameter the body never rebinds, bound to `None`, `True`,
`False`, a number or a string, substituted where it still parses (a number not as the object of
an attribute, `0.real`; a string not inside an f-string, whose quotes it could end); an
`if` whose test those literals decide (`is None`, `is not None`, `not`, `and`, `or`, truth)
replaced by the branch that runs; `1 + 0` written `1`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import libcst as cst

from smellkit.injectors.cst.rename import Identifiers

_FALSE = frozenset({"None", "False"})


class _Uses(cst.CSTVisitor):
    """Where names are read that some literals could not stand for."""

    def __init__(self) -> None:
        self.objects: set[str] = set()
        """Objects of attributes: `0.real` does not parse."""
        self.formatted: set[str] = set()
        """Parts of f-strings: a string's quotes could end the f-string (before 3.12)."""
        self.compared: set[str] = set()
        """Operands of `==` and `!=`: `x != True` is no way to write a test."""
        self._in_fstring = 0

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if any(isinstance(item.operator, (cst.Equal, cst.NotEqual)) for item in node.comparisons):
            for operand in (node.left, *(item.comparator for item in node.comparisons)):
                if isinstance(operand, cst.Name):
                    self.compared.add(operand.value)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._in_fstring += 1

    def leave_FormattedString(self, original_node: cst.FormattedString) -> None:
        self._in_fstring -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            self.objects.add(node.value.value)

    def visit_Name(self, node: cst.Name) -> None:
        if self._in_fstring:
            self.formatted.add(node.value)


def unsafe_names(body: Sequence[cst.CSTNode]) -> Callable[[str, cst.BaseExpression], bool]:
    """Whether a literal may not replace a name of `body`: a number read as an attribute's
    object, a string read inside an f-string, any literal compared with `==` or `!=`."""
    uses = _Uses()
    for node in body:
        node.visit(uses)

    def unsafe(name: str, value: cst.BaseExpression) -> bool:
        if name in uses.compared:
            return True
        if isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation)):
            return name in uses.objects
        if isinstance(value, cst.SimpleString):
            return name in uses.formatted
        return False

    return unsafe


class _Substitute(Identifiers):
    def __init__(self, values: Mapping[str, cst.BaseExpression]):
        super().__init__()
        self.values = values

    def leave_Name(self, original_node: cst.Name,
                   updated_node: cst.Name) -> cst.BaseExpression:
        value = self.values.get(original_node.value)
        return value.deep_clone() if value is not None else updated_node

    def leave_BinaryOperation(self, original_node: cst.BinaryOperation,
                              updated_node: cst.BinaryOperation) -> cst.BaseExpression:
        left, right = updated_node.left, updated_node.right
        if isinstance(left, cst.Integer) and isinstance(right, cst.Integer) and \
                isinstance(updated_node.operator, (cst.Add, cst.Subtract)) and \
                not updated_node.lpar and not (left.lpar or right.lpar):
            total = int(left.value, 0) + (1 if isinstance(updated_node.operator, cst.Add)
                                          else -1) * int(right.value, 0)
            if total >= 0:
                return cst.Integer(str(total))
        return updated_node


def fold(body: Sequence[cst.BaseStatement],
         values: Mapping[str, cst.BaseExpression]) -> list[cst.BaseStatement]:
    """The statements with `values` substituted for their names and the `if`s they decide
    replaced by the branch that runs."""
    if not values:
        return list(body)
    transformer = _Substitute(values)
    substituted = [statement.visit(transformer) for statement in body]
    return _statements([item for item in substituted
                        if isinstance(item, cst.BaseStatement)])


def _statements(body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    out: list[cst.BaseStatement] = []
    for statement in body:
        out.extend(_statement(statement))
    return out


def _block(block: cst.BaseSuite) -> cst.BaseSuite:
    if not isinstance(block, cst.IndentedBlock):
        return block
    inner = _statements(list(block.body))
    return block.with_changes(body=inner or [cst.SimpleStatementLine([cst.Pass()])])


def _statement(statement: cst.BaseStatement) -> list[cst.BaseStatement]:
    if isinstance(statement, cst.If):
        return _if(statement)
    if isinstance(statement, cst.BaseCompoundStatement):
        changes: dict[str, object] = {"body": _block(statement.body)}
        orelse = getattr(statement, "orelse", None)
        if isinstance(orelse, cst.Else):
            changes["orelse"] = orelse.with_changes(body=_block(orelse.body))
        if isinstance(statement, (cst.Try, cst.TryStar)):
            changes["handlers"] = [handler.with_changes(body=_block(handler.body))
                                   for handler in statement.handlers]
            if statement.finalbody is not None:
                changes["finalbody"] = statement.finalbody.with_changes(
                    body=_block(statement.finalbody.body))
        return [statement.with_changes(**changes)]
    return [statement]


def _if(statement: cst.If) -> list[cst.BaseStatement]:
    test = _decided(statement.test)
    if test is None:  # undecided: its branches may still hold decided ones
        statement = statement.with_changes(test=_simplified(statement.test))
        orelse: cst.If | cst.Else | None = statement.orelse
        if isinstance(orelse, cst.If):
            rest = _if(orelse)
            orelse = rest[0].with_changes(leading_lines=[]) if len(rest) == 1 and \
                isinstance(rest[0], cst.If) else (cst.Else(body=cst.IndentedBlock(body=rest))
                                                  if rest else None)
        elif isinstance(orelse, cst.Else):
            orelse = orelse.with_changes(body=_block(orelse.body))
        return [statement.with_changes(body=_block(statement.body), orelse=orelse)]
    if test:
        taken = list(statement.body.body) if isinstance(statement.body,
                                                        cst.IndentedBlock) else []
    elif isinstance(statement.orelse, cst.If):
        taken = [statement.orelse]
    elif isinstance(statement.orelse, cst.Else) and isinstance(statement.orelse.body,
                                                               cst.IndentedBlock):
        taken = list(statement.orelse.body.body)
    else:
        taken = []
    if not isinstance(statement.body, cst.IndentedBlock):
        return [statement]  # a one-line `if x: y`: left as written
    out = _statements(taken)
    first = out[0] if out else None
    if isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and \
            statement.leading_lines:
        out[0] = first.with_changes(leading_lines=[*statement.leading_lines,
                                                   *first.leading_lines])
    return out


def _decided(test: cst.BaseExpression) -> bool | None:
    """The truth of a test the substituted literals decide, None when they do not."""
    if test.lpar:
        test = test.with_changes(lpar=[], rpar=[])
    if isinstance(test, cst.Name) and test.value in (*_FALSE, "True"):
        return test.value == "True"
    if isinstance(test, (cst.Integer, cst.Float)):
        return float(test.value.replace("_", "")) != 0 if isinstance(test, cst.Float) else \
            int(test.value, 0) != 0
    if isinstance(test, cst.SimpleString):
        return len(test.evaluated_value or "") > 0
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _decided(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.left, cst.Name) and isinstance(test.comparisons[0].comparator,
                                                           cst.Name) and \
            test.left.value == test.comparisons[0].comparator.value and \
            isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot)):
        return isinstance(test.comparisons[0].operator, cst.Is)  # a sentinel default written in
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.left, cst.Name) and test.left.value in (*_FALSE, "True"):
        target = test.comparisons[0]
        if isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
            if isinstance(target.operator, cst.Is):
                return test.left.value == "None"
            if isinstance(target.operator, cst.IsNot):
                return test.left.value != "None"
        return None
    if isinstance(test, cst.BooleanOperation):
        left = _decided(test.left)
        if isinstance(test.operator, cst.And) and left is False:
            return False
        if isinstance(test.operator, cst.Or) and left is True:
            return True
        if left is not None:
            return _decided(test.right)
        right = _decided(test.right)
        if isinstance(test.left, cst.Name) and (  # reading a name has no effect to keep
                (isinstance(test.operator, cst.And) and right is False)
                or (isinstance(test.operator, cst.Or) and right is True)):
            return right
    return None


def _simplified(test: cst.BaseExpression) -> cst.BaseExpression:
    """`True and x` as `x`, `x or None` as `x`: the literal half of an `if`'s test dropped."""
    if isinstance(test, cst.BooleanOperation) and not test.lpar:
        left, right = _decided(test.left), _decided(test.right)
        if (left is True and isinstance(test.operator, cst.And)) or (
                left is False and isinstance(test.operator, cst.Or)):
            return _simplified(test.right)
        if (right is True and isinstance(test.operator, cst.And)) or (
                right is False and isinstance(test.operator, cst.Or)):
            return _simplified(test.left)  # the test's truth is the left half's
    return test


def mentions_of(body: Sequence[cst.CSTNode]) -> Counter[str]:
    """How often each name is mentioned (attribute and keyword names aside)."""
    found: Counter[str] = Counter()

    class Count(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found[node.value] += 1

    for node in body:
        node.visit(Count())
    return found


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return name in mentions_of([node])


def _overwrites(statement: cst.BaseStatement, name: str) -> bool:
    """`name = value` where the value does not read the name: what the name held is lost."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.Assign):
        targets = [target.target for target in small.targets]
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        targets = [small.target]
    else:
        return False
    return all(isinstance(target, cst.Name) and target.value == name for target in targets) \
        and small.value is not None and not _mentions(small.value, name)


def propagate(bindings: Sequence[tuple[str, cst.BaseExpression]],
              body: Sequence[cst.BaseStatement],
              ) -> tuple[list[tuple[str, cst.BaseExpression]], list[cst.BaseStatement]]:
    """Parameters bound to a literal that the pasted body rebinds, written as one function is:
    the `if`s the literal decides before the first rebinding dropped, and the binding itself
    when the body overwrites it unread. `index = None` then `if index is None: index = last + 1`
    becomes `index = last + 1`."""
    kept: list[tuple[str, cst.BaseExpression]] = []
    out = list(body)
    for name, value in bindings:
        if not (isinstance(value, cst.Name) and value.value in (*_FALSE, "True")):
            kept.append((name, value))
            continue
        out, dead = _propagate_one(name, value, out)
        if not dead:
            kept.append((name, value))
    return kept, out


def _propagate_one(name: str, value: cst.BaseExpression, body: list[cst.BaseStatement],
                   ) -> tuple[list[cst.BaseStatement], bool]:
    """The body with the `if`s that `name = value` decides dropped, and whether the binding is
    overwritten before anything reads it."""
    done: list[cst.BaseStatement] = []
    todo = list(body)
    while todo:
        statement = todo.pop(0)
        if _overwrites(statement, name):
            return [*done, statement, *todo], True
        if not _mentions(statement, name):
            done.append(statement)
            continue
        if isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock):
            test = statement.test.visit(_Substitute({name: value}))
            if isinstance(test, cst.BaseExpression) and _decided(test) is not None:
                todo = [*_if(statement.with_changes(test=test)), *todo]
                continue
        return [*done, statement, *todo], False
    return done, False


_DISPLAYS = (cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp,
             cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Integer,
             cst.Float)


class _NoneTests(cst.CSTTransformer):
    def __init__(self, names: set[str]):
        super().__init__()
        self.names = names

    def leave_Comparison(self, original_node: cst.Comparison,
                         updated_node: cst.Comparison) -> cst.BaseExpression:
        if len(updated_node.comparisons) != 1 or not isinstance(updated_node.left, cst.Name) \
                or updated_node.left.value not in self.names:
            return updated_node
        target = updated_node.comparisons[0]
        if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
            return updated_node
        if isinstance(target.operator, cst.Is):
            return cst.Name("False", lpar=updated_node.lpar, rpar=updated_node.rpar)
        if isinstance(target.operator, cst.IsNot):
            return cst.Name("True", lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node


def never_none(bindings: Sequence[tuple[str, cst.BaseExpression]],
               body: Sequence[cst.BaseStatement],
               rebound: set[str]) -> list[cst.BaseStatement]:
    """The body with `name is None` decided where `name` is bound before it to a display or a
    literal (`end_tokens = ("name:endcall",)`) and never rebound: a person pasting the helper
    would not keep `if end_tokens is not None:` over a tuple written two lines above."""
    names = {name for name, value in bindings if isinstance(value, _DISPLAYS)} - rebound
    if not names:
        return list(body)
    transformer = _NoneTests(names)
    decided = [statement.visit(transformer) for statement in body]
    return _statements([item for item in decided if isinstance(item, cst.BaseStatement)])
