"""A pasted body simplified by what its call site knows, as a person inlining a helper by hand
would: `store_error([message])` pasted reads `messages = [message]`, so the helper's
`if not isinstance(messages, dict):` always runs and its `elif isinstance(messages, list):`
never does. Keeping those branches would leave code no test can run at that site.

Only tests that cannot have effects are decided, and only from facts that hold where they are
read: a local bound to a display, a literal or a fresh builtin (`dict(...)`) has that type until
it is rebound; its truth is known until anything else reads it (a read could mutate it or
hand it on); a module constant bound once to a string, number or bool equals itself and has its
type. The decided tests are `isinstance(name, builtin types)`, `name is None`,
`name is not None`, the truth of `name`, `CONSTANT == CONSTANT` and `!=`, and `not`, `and`,
`or` over them. An `if` they decide is replaced by the branch that runs (its comments kept),
and statements after a `return` or `raise` in the same block are dropped.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.facts import Name as NameExpr
from smellkit.facts.types import Const
from smellkit.injectors.deep_inlining.fold import _decided, _simplified, mentions_of
from smellkit.injectors.deep_inlining.names import names_of

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_BUILTIN_TYPES: dict[str, type] = {
    name: getattr(builtins, name)
    for name in ("bool", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str",
                 "tuple")}
_CONSTANT_TYPES = frozenset({"bool", "bytes", "int", "str"})
"""Types whose values equal themselves (`float` aside: NaN does not)."""
_ENDS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


@dataclass(frozen=True)
class Known:
    """What is certain about a name at one point of the pasted body."""

    kind: type | None
    """Its type (`type(None)` for None); None when only its being bound is known."""
    truth: bool | None = None
    """Its truth, None when unknown."""
    constant: bool = False
    """A module constant: it equals itself."""


Facts = dict[str, Known]


def module_constants(types: Mapping[str, str]) -> Facts:
    """Facts for module constants read by the pasted body, from their value's type name
    (`SCHEMA = "_schema"`: "str"); other types are left out."""
    return {name: Known(_BUILTIN_TYPES[kind], constant=True) for name, kind in types.items()
            if kind in _CONSTANT_TYPES}


def simplified(body: Sequence[cst.BaseStatement], facts: Mapping[str, Known],
               shadowed: frozenset[str] = frozenset()) -> list[cst.BaseStatement]:
    """The statements with the tests their call site decides replaced by the branch that runs.
    `shadowed`: names that do not mean the builtin here (`isinstance`, `dict`...)."""
    captured = _captured(body)  # a nested function could rebind or empty them when called
    walk = _Walk(shadowed, captured)
    out, _, _ = walk.block(list(body), {name: fact for name, fact in facts.items()
                                        if name not in captured})
    return out


def _captured(body: Sequence[cst.CSTNode]) -> frozenset[str]:
    """Names read or bound inside functions, lambdas and classes defined in the body."""
    found: set[str] = set()

    class Nested(cst.CSTVisitor):
        def _inside(self, node: cst.CSTNode) -> bool:
            found.update(mentions_of([node]))
            found.update(_bound(node))
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return self._inside(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return self._inside(node)

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return self._inside(node)

    for node in body:
        node.visit(Nested())
    return frozenset(found)


def _display_truth(node: cst.BaseExpression) -> bool | None:
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        if any(isinstance(item, cst.StarredElement) for item in node.elements):
            return True if any(not isinstance(item, cst.StarredElement)
                               for item in node.elements) else None
        return bool(node.elements)
    if isinstance(node, cst.Dict):
        if any(isinstance(item, cst.DictElement) for item in node.elements):
            return True
        return None if node.elements else False
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return None if value is None else bool(value)
    if isinstance(node, cst.Integer):
        return int(node.value, 0) != 0
    return None


_DISPLAY_TYPES: tuple[tuple[type[cst.CSTNode], type], ...] = (
    (cst.List, list), (cst.ListComp, list), (cst.Tuple, tuple), (cst.Dict, dict),
    (cst.DictComp, dict), (cst.Set, set), (cst.SetComp, set), (cst.FormattedString, str),
    (cst.Integer, int), (cst.Float, float))


class _Walk:
    def __init__(self, shadowed: frozenset[str], captured: frozenset[str] = frozenset()):
        self.shadowed = shadowed
        self.captured = captured

    def _builtin(self, node: cst.BaseExpression) -> type | None:
        if isinstance(node, cst.Name) and node.value in _BUILTIN_TYPES and \
                node.value not in self.shadowed:
            return _BUILTIN_TYPES[node.value]
        return None

    def value_fact(self, node: cst.BaseExpression, facts: Facts) -> Known | None:
        """What binding a name to `node` makes certain about it."""
        for shape, kind in _DISPLAY_TYPES:
            if isinstance(node, shape):
                return Known(kind, _display_truth(node))
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            value = node.evaluated_value
            if value is None:
                return None
            return Known(type(value), bool(value), constant=True)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return Known(bool, node.value == "True")
            if node.value == "None":
                return Known(type(None), False)
            found = facts.get(node.value)
            if found is None or found.constant:  # an immutable value: all is still known
                return found
            return replace(found, truth=None)  # an alias: either name could empty it
        if isinstance(node, cst.Call):
            made = self._builtin(node.func)
            if made is not None and made is not bool:
                return Known(made)
        return None

    def _literal(self, node: cst.BaseExpression) -> Known | None:
        """What is known of a literal read in a test (a string, a number: nothing to run)."""
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer,
                             cst.Float)):
            return self.value_fact(node, {})
        return None

    # -- tests ------------------------------------------------------------------------------

    def _atom(self, node: cst.BaseExpression, facts: Facts, truthy: frozenset[str],
              ) -> bool | None:
        """The value of an effect-free test on known names, None when it is not decided."""
        if node.lpar and not isinstance(node, cst.Tuple):
            node = node.with_changes(lpar=[], rpar=[])
        if isinstance(node, cst.Name):
            found = facts.get(node.value)
            return found.truth if found is not None and (
                node.value in truthy or found.constant) else None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
                node.func.value == "isinstance" and "isinstance" not in self.shadowed and \
                len(node.args) == 2 and all(arg.keyword is None and not arg.star
                                            for arg in node.args):
            subject, kinds = node.args[0].value, node.args[1].value
            found = facts.get(subject.value) if isinstance(subject, cst.Name) else \
                self._literal(subject)
            if found is None or found.kind is None:
                return None
            wanted = [kinds] if not isinstance(kinds, cst.Tuple) else [
                item.value for item in kinds.elements if isinstance(item, cst.Element)]
            if isinstance(kinds, cst.Tuple) and len(wanted) != len(kinds.elements):
                return None
            classes = [self._builtin(item) for item in wanted]
            if not classes or any(kind is None for kind in classes):
                return None
            return any(issubclass(found.kind, kind) for kind in classes if kind is not None)
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            operator = node.comparisons[0].operator
            right = node.comparisons[0].comparator
            found = facts.get(node.left.value) if isinstance(node.left, cst.Name) else \
                self._literal(node.left)
            if found is None:
                return None
            if isinstance(right, cst.Name) and right.value == "None" and \
                    isinstance(operator, (cst.Is, cst.IsNot)):
                if found.kind is None or found.kind is not type(None):
                    # bound to something that is not None (kind None: a fresh object)
                    return isinstance(operator, cst.IsNot)
                return isinstance(operator, cst.Is)
            if found.constant and isinstance(right, cst.Name) and \
                    isinstance(node.left, cst.Name) and right.value == node.left.value and \
                    isinstance(operator, (cst.Equal, cst.NotEqual)):
                return isinstance(operator, cst.Equal)
        return None

    def decide(self, test: cst.BaseExpression, facts: Facts) -> tuple[
            bool | None, cst.BaseExpression]:
        """The test's truth when the facts decide it, else the test with decided halves of its
        `and`s and `or`s dropped where that keeps its truth (or the test as written)."""
        atoms = _Atoms(self, facts, _truth_readable(test, self.shadowed))
        visited = atoms.written(test) if isinstance(test, cst.Name) else test.visit(atoms)
        assert isinstance(visited, cst.BaseExpression)
        rewritten: cst.BaseExpression = visited
        if not atoms.inserted:
            return None, test
        value = _decided(rewritten)
        if value is not None:
            return value, test
        shorter = _simplified(rewritten)
        if any(node in atoms.inserted for node in _nodes(shorter)):
            return None, test
        return None, shorter

    # -- statements -------------------------------------------------------------------------

    def block(self, body: list[cst.BaseStatement], facts: Facts,
              ) -> tuple[list[cst.BaseStatement], Facts, bool]:
        """The statements simplified, the facts after them, and whether they always end the
        block (`return`, `raise`...): what follows is never run."""
        out: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []  # comments of a dropped `if`, kept on what follows
        for statement in body:
            new, facts, ended = self.statement(statement, facts)
            if not new:
                pending.extend(_leading(statement))
                continue
            if pending:
                new[0] = _with_leading(new[0], pending)
                pending = []
            out.extend(new)
            if ended:
                return out, facts, True
        return out, facts, False

    def statement(self, statement: cst.BaseStatement, facts: Facts,
                  ) -> tuple[list[cst.BaseStatement], Facts, bool]:
        if isinstance(statement, cst.SimpleStatementLine):
            facts = dict(facts)
            for small in statement.body:
                self._small(small, facts)
            return [statement], facts, any(isinstance(small, _ENDS) for small in statement.body)
        if isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock):
            return self._if(statement, facts)
        # loops, `try`, `with`, definitions: what they bind or read anywhere is unknown inside
        facts = _forget(facts, statement)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return [statement], facts, False
        changes: dict[str, object] = {}
        for field in ("body", "orelse", "finalbody"):
            part = getattr(statement, field, None)
            if isinstance(part, cst.IndentedBlock):
                changes[field] = self._suite(part, facts)
            elif isinstance(part, (cst.Else, cst.Finally)) and \
                    isinstance(part.body, cst.IndentedBlock):
                changes[field] = part.with_changes(body=self._suite(part.body, facts))
        if isinstance(statement, (cst.Try, cst.TryStar)):
            changes["handlers"] = [
                handler.with_changes(body=self._suite(handler.body, facts))
                if isinstance(handler.body, cst.IndentedBlock) else handler
                for handler in statement.handlers]
        return [statement.with_changes(**changes)], facts, False

    def _suite(self, block: cst.IndentedBlock, facts: Facts) -> cst.IndentedBlock:
        inner, _, _ = self.block(list(block.body), dict(facts))
        return block.with_changes(body=inner or [cst.SimpleStatementLine([cst.Pass()])])

    def _small(self, small: cst.BaseSmallStatement, facts: Facts) -> None:
        """The facts after one small statement, updated in place."""
        target: cst.BaseExpression | None = None
        value: cst.BaseExpression | None = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target, value = small.target, small.value
        fact = self.value_fact(value, facts) if value is not None and \
            isinstance(target, cst.Name) else None
        for name in mentions_of([small]):
            if name in facts and not facts[name].constant:
                facts[name] = replace(facts[name], truth=None)  # a read may mutate it
        for name in _bound(small):
            facts.pop(name, None)
        if isinstance(target, cst.Name) and fact is not None and \
                target.value not in self.captured:
            facts[target.value] = fact

    def _if(self, statement: cst.If, facts: Facts,
            ) -> tuple[list[cst.BaseStatement], Facts, bool]:
        value, test = self.decide(statement.test, facts)
        if value is None:  # a decided test runs only effect-free checks, if anything
            touched = _test_reads(statement.test, self.shadowed)[2]
            facts = {name: replace(fact, truth=None) if name in touched and not fact.constant
                     else fact for name, fact in facts.items()
                     if name not in _bound(statement.test)}  # `if (x := ...)`
        if value is None:
            assert isinstance(statement.body, cst.IndentedBlock)
            body, after_body, body_ends = self.block(list(statement.body.body), dict(facts))
            orelse: cst.If | cst.Else | None = statement.orelse
            after_else, else_ends = facts, False
            if isinstance(orelse, cst.If):
                rest, after_else, else_ends = self.statement(orelse, facts)
                orelse = rest[0].with_changes(leading_lines=[]) if len(rest) == 1 and \
                    isinstance(rest[0], cst.If) else (
                        cst.Else(body=cst.IndentedBlock(body=rest)) if rest else None)
            elif isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
                kept, after_else, else_ends = self.block(list(orelse.body.body), dict(facts))
                orelse = orelse.with_changes(body=orelse.body.with_changes(
                    body=kept or [cst.SimpleStatementLine([cst.Pass()])]))
            new = statement.with_changes(
                test=test, body=statement.body.with_changes(
                    body=body or [cst.SimpleStatementLine([cst.Pass()])]), orelse=orelse)
            joined = after_else if body_ends else after_body if else_ends else \
                _join(after_body, after_else)
            return [new], joined, body_ends and else_ends
        if value:
            assert isinstance(statement.body, cst.IndentedBlock)
            taken: list[cst.BaseStatement] = list(statement.body.body)
        elif isinstance(statement.orelse, cst.If):
            taken = [statement.orelse.with_changes(leading_lines=[])]
        elif isinstance(statement.orelse, cst.Else) and \
                isinstance(statement.orelse.body, cst.IndentedBlock):
            taken = list(statement.orelse.body.body)
        else:
            taken = []
        out, facts, ended = self.block(taken, facts)
        if out and statement.leading_lines:
            out[0] = _with_leading(out[0], statement.leading_lines)
        return out, facts, ended


class _Atoms(cst.CSTTransformer):
    """Decided atoms of a test written `True` or `False` (the nodes written are kept)."""

    def __init__(self, walk: _Walk, facts: Facts, truthy: frozenset[str]):
        super().__init__()
        self.walk, self.facts, self.truthy = walk, facts, truthy
        self.inserted: list[cst.CSTNode] = []

    def written(self, node: cst.BaseExpression) -> cst.BaseExpression:
        value = self.walk._atom(node, self.facts, self.truthy)
        if value is None:
            return node
        written = cst.Name("True" if value else "False", lpar=node.lpar, rpar=node.rpar)
        self.inserted.append(written)
        return written

    def visit_Call(self, node: cst.Call) -> bool:
        return False  # an argument is no test

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return False

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call,
                   ) -> cst.BaseExpression:
        return self.written(updated_node)

    def leave_Comparison(self, original_node: cst.Comparison,
                         updated_node: cst.Comparison) -> cst.BaseExpression:
        return self.written(updated_node)

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation,
                               updated_node: cst.BooleanOperation) -> cst.BaseExpression:
        left, right = updated_node.left, updated_node.right
        return updated_node.with_changes(
            left=self.written(left) if isinstance(left, cst.Name) else left,
            right=self.written(right) if isinstance(right, cst.Name) else right)

    def leave_UnaryOperation(self, original_node: cst.UnaryOperation,
                             updated_node: cst.UnaryOperation) -> cst.BaseExpression:
        if isinstance(updated_node.operator, cst.Not) and \
                isinstance(updated_node.expression, cst.Name):
            written = self.written(updated_node.expression)
            if written is not updated_node.expression:
                return updated_node.with_changes(expression=written)
        return updated_node


def _truth_readable(test: cst.BaseExpression, shadowed: frozenset[str]) -> frozenset[str]:
    """Names whose truth the test may read from the facts: each bare truth test of them runs
    before anything else in the test reads them (`f(x) or not x`: the call could empty `x`
    first; `not x or f(x)` is decided before the call), checks of type and identity aside."""
    readable, spoilt, _ = _test_reads(test, shadowed)
    return frozenset(readable - spoilt)


def _test_reads(test: cst.BaseExpression, shadowed: frozenset[str],
                ) -> tuple[set[str], set[str], set[str]]:
    """Of a test: the names it tests the truth of, those of them read before by something
    else, and all the names something other than a check reads."""
    touched: set[str] = set()
    readable: set[str] = set()
    spoilt: set[str] = set()

    def walk(node: cst.BaseExpression) -> None:
        if isinstance(node, cst.BooleanOperation):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            walk(node.expression)
        elif isinstance(node, cst.Name):
            (spoilt if node.value in touched else readable).add(node.value)
        elif not _checks_only(node, shadowed):
            touched.update(mentions_of([node]))

    walk(test)
    return readable, spoilt, touched


def _checks_only(node: cst.BaseExpression, shadowed: frozenset[str]) -> bool:
    """`x is None`, `isinstance(x, dict)`: reads nothing could change."""
    plain = (cst.Name, cst.SimpleString, cst.Integer, cst.Float)
    if isinstance(node, cst.Comparison):
        return isinstance(node.left, plain) and all(
            isinstance(item.operator, (cst.Is, cst.IsNot)) and isinstance(item.comparator, plain)
            for item in node.comparisons)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
        node.func.value == "isinstance" and "isinstance" not in shadowed and all(
            isinstance(arg.value, cst.Name) and not arg.keyword for arg in node.args)


def _nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            found.append(node)
            return True

    node.visit(Collect())
    return found


def _read(facts: Facts, node: cst.CSTNode) -> Facts:
    """The facts after `node` is evaluated: the truth of the names it reads is no longer
    certain (a test calling `f(x)` could empty `x`)."""
    mentioned = mentions_of([node])
    return {name: replace(fact, truth=None) if name in mentioned and not fact.constant
            else fact for name, fact in facts.items()}  # a constant's value is immutable


def _forget(facts: Facts, statement: cst.CSTNode) -> Facts:
    """The facts that hold throughout and after a compound statement: nothing about the names
    it binds anywhere, nor the truth of those it reads."""
    bound = _bound(statement)
    return {name: fact for name, fact in _read(facts, statement).items() if name not in bound}


def _leading(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return statement.leading_lines
    return ()


def _with_leading(statement: cst.BaseStatement,
                  lines: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    """The statement with comment lines of dropped code before its own."""
    if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return statement.with_changes(leading_lines=[*lines, *statement.leading_lines])
    return statement


def _bound(node: cst.CSTNode) -> set[str]:
    """Every name a statement may bind: targets, definitions, parameters, imports, `global`
    names."""
    found = set(names_of([node]).bound)

    class Others(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            found.add(node.name.value)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            found.add(node.name.value)

        def visit_Param(self, node: cst.Param) -> None:
            found.add(node.name.value)

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            name = node.evaluated_alias or node.evaluated_name
            found.add(name.split(".")[0])

        def visit_Global(self, node: cst.Global) -> None:
            found.update(item.name.value for item in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            found.update(item.name.value for item in node.names)

    node.visit(Others())
    return found


def _join(one: Facts, other: Facts) -> Facts:
    """What holds after either of two branches."""
    out: Facts = {}
    none = type(None)
    for name, fact in one.items():
        theirs = other.get(name)
        if theirs is None or (theirs.kind != fact.kind and none in (theirs.kind, fact.kind)):
            continue  # unknown in one, or None in one only
        out[name] = fact if theirs == fact else Known(
            fact.kind if theirs.kind == fact.kind else None,
            fact.truth if theirs.truth == fact.truth else None)
    return out


def shadowing(nodes: Sequence[cst.CSTNode]) -> frozenset[str]:
    """Builtin names a module or a body binds anywhere (a `dict` of its own, a local `list`):
    there the pasted `isinstance(x, dict)` may not mean the builtin."""
    bound: set[str] = set()
    for node in nodes:
        bound |= _bound(node)
    return frozenset(bound & {"isinstance", *_BUILTIN_TYPES})


def constant_types(context: InjectionContext,
                   needs: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """The type names of the module constants a pasted body reads (`SCHEMA`: "str"), each
    bound once in its module, to a literal; `needs` maps each global read to its module and
    meaning (`marshmallow.exceptions.SCHEMA`)."""
    found: dict[str, str] = {}
    for name, (_, meant) in needs.items():
        module, _, own = meant.rpartition(".")
        facts = context.index.modules.get(module)
        if facts is None:
            continue
        bindings = [item for item in facts.assignments if item.target == NameExpr(own)]
        if len(bindings) == 1 and bindings[0].scope == module and \
                isinstance(bindings[0].value, Const):
            found[name] = bindings[0].value.type_name
    return found


def builtins_read(needs: Mapping[str, tuple[str, str]]) -> frozenset[str]:
    """The globals of `needs` that do not mean the builtin of their name."""
    return frozenset(name for name, (_, meant) in needs.items() if meant != f"<builtin>.{name}")
