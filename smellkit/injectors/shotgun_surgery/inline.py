"""The libcst codemod of helper inlining: calls of an imported one-expression helper replaced by
its expression.

In one module, every call `helper(a, b)` of a name bound by `from m import helper` becomes the
helper's return expression with `a` and `b` in place of its parameters; the import of the helper
gives way to imports of the names the expression needs from the same module. Soundness rests on
the checks here and in `safe_order`: every reference to the helper is a plain positional call;
no local in scope shadows a name the expression reads; an argument that is not a plain name,
attribute or literal is only substituted when the expression evaluates nothing but name and
attribute loads and literals before the last parameter, and uses each parameter exactly once,
in order, outside conditional parts (`and`, `or`, `x if c else y`), so arguments are evaluated
once, in the same order, before anything that could observe them.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ClassScope, GlobalScope

from smellkit.errors import InjectionRefused
from smellkit.injectors.shotgun_surgery.edit import (
    Inlined,
    analysed,
    defined,
    imported,
    last_alias,
)

_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.Integer,
          cst.Float, cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ConcatenatedString)
_SIMPLE = (cst.Name, cst.SimpleString, cst.Integer, cst.Float)


def safe_order(expr: ast.expr, params: Sequence[str]) -> bool:
    """Whether any argument may be substituted (see the module docstring)."""
    events: list[str] = []

    def walk(node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            events.append(f"param:{node.id}" if node.id in params else "load")
        elif isinstance(node, ast.Constant):
            events.append("load")
        elif isinstance(node, ast.Attribute):
            if not walk(node.value):
                return False
            events.append("load")
        elif isinstance(node, ast.Call):
            if not walk(node.func) or not all(walk(arg) for arg in node.args) or \
                    not all(walk(item.value) for item in node.keywords):
                return False
            events.append("effect")
        elif isinstance(node, ast.BinOp):
            if not walk(node.left) or not walk(node.right):
                return False
            events.append("effect")
        elif isinstance(node, ast.UnaryOp):
            if not walk(node.operand):
                return False
            events.append("effect")
        elif isinstance(node, ast.Compare):
            if len(node.ops) != 1 or not walk(node.left) or not walk(node.comparators[0]):
                return False
            events.append("effect")
        elif isinstance(node, ast.Subscript):
            if not walk(node.value) or not walk(node.slice):
                return False
            events.append("effect")
        elif isinstance(node, (ast.Tuple, ast.List)):
            return all(walk(item) for item in node.elts)
        else:
            return False  # conditional or unusual parts: evaluation may skip an argument
        return True

    if not walk(expr):
        return False
    used = [event.partition(":")[2] for event in events if event.startswith("param:")]
    if used != list(params):
        return False
    last = max(number for number, event in enumerate(events) if event.startswith("param:"))
    return "effect" not in events[:last]


def _simple(node: cst.BaseExpression) -> bool:
    """A plain name, attribute chain or literal: evaluating it earlier or twice changes nothing."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, _SIMPLE)


class _Substitute(cst.CSTTransformer):
    """Parameters of the helper's expression replaced by a call's arguments."""

    def __init__(self, values: dict[str, cst.BaseExpression]):
        super().__init__()
        self.values = values

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        value = self.values.get(original_node.value)
        if value is None:
            return updated_node
        if isinstance(value, _ATOMS) or value.lpar:
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if isinstance(original_node.value, cst.Name) and \
                original_node.value.value in self.values:
            return updated_node.with_changes(value=self.values[original_node.value.value])
        return updated_node  # a call's argument needs no parentheses of its own


class InlineCalls(cst.CSTTransformer):
    """Replace the given calls by the body with their arguments in place of the params, and
    the helper's import by the names the body needs (`keep`: the helper's own name stays)."""

    def __init__(self, calls: set[cst.Call], params: Sequence[str],
                 body: cst.BaseExpression, alias: cst.ImportAlias | None,
                 statement: cst.ImportFrom | None, adds: Sequence[str], keep: bool, *,
                 receiver: bool = False):
        super().__init__()
        self.receiver = receiver
        """A method's calls: the receiver stands for `self`."""
        self.keep = keep
        self.free_slots: set[cst.CSTNode] = set()
        self.discarded: set[cst.CSTNode] = set()
        """Calls standing as statements of their own, whose value nobody reads."""
        self.calls = calls
        self.params = params
        self.body = body
        self.alias = alias
        self.statement = statement
        self.adds = adds
        self.replaced = 0
        self.beside: cst.SimpleStatementLine | None = None
        """A line of its own for the added names, after the helper's import when that
        imports the helper alone (the module imports one name a line)."""

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node not in self.calls:
            return updated_node
        self.replaced += 1  # arguments from the updated node: inner calls are inlined already
        args = [arg.value for arg in updated_node.args]
        if self.receiver:
            assert isinstance(updated_node.func, cst.Attribute)
            args.insert(0, updated_node.func.value)
        values = dict(zip(self.params, args))
        expr = self.body.visit(_Substitute(values))
        assert isinstance(expr, cst.BaseExpression)
        if original_node in self.discarded and isinstance(expr, cst.Comparison) and \
                isinstance(expr.left, cst.Call) and all(
                    isinstance(item.operator, (cst.Is, cst.IsNot))
                    and isinstance(item.comparator, cst.Name) and item.comparator.value == "None"
                    for item in expr.comparisons):
            # `stream.skip_if("colon")` as a statement: a person writes the call, not a
            # comparison whose result is thrown away
            return expr.left.with_changes(lpar=original_node.lpar, rpar=original_node.rpar)
        if (isinstance(expr, cst.Tuple) and not expr.lpar) or \
                (not isinstance(expr, _ATOMS) and original_node not in self.free_slots):
            return expr.with_changes(lpar=[cst.LeftParen(), *original_node.lpar],
                                     rpar=[*original_node.rpar, cst.RightParen()])
        return expr.with_changes(lpar=original_node.lpar, rpar=original_node.rpar)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> \
            cst.ImportFrom | cst.RemovalSentinel:
        old_names, new_names = original_node.names, updated_node.names
        if original_node is not self.statement or isinstance(old_names, cst.ImportStar) or \
                isinstance(new_names, cst.ImportStar):
            return updated_node
        names: list[cst.ImportAlias] = []
        for old, alias in zip(old_names, new_names):
            if old is not self.alias or self.alias is None:
                names.append(alias)
                continue
            added = sorted(self.adds)
            if self.keep and added and len(old_names) == 1:
                self.beside = cst.SimpleStatementLine([cst.ImportFrom(
                    module=original_node.module, relative=original_node.relative,
                    names=[cst.ImportAlias(name=cst.Name(name)) for name in added])])
                return updated_node
            if self.keep:  # the helper's own name stays importable from here
                names.append(alias.with_changes(comma=cst.Comma(
                    whitespace_after=cst.SimpleWhitespace(" "))) if added else alias)
            for number, name in enumerate(added):
                last = number == len(added) - 1
                names.append(cst.ImportAlias(
                    name=cst.Name(name), comma=alias.comma if last else cst.Comma(
                        whitespace_after=cst.SimpleWhitespace(" "))))
        if not names:
            return cst.RemoveFromParent()
        if old_names[-1] is self.alias and self.alias is not None:
            names[-1] = last_alias(names[-1], self.alias, updated_node)
        return updated_node.with_changes(names=names)


    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine
                                  ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] \
            | cst.RemovalSentinel:
        if self.beside is None or not any(small is self.statement
                                          for small in original_node.body):
            return updated_node
        beside, self.beside = self.beside, None
        return cst.FlattenSentinel([updated_node, beside])


class _Calls(cst.CSTVisitor):
    """Each call by its callee node, the nodes inside f-strings, and the expressions that sit
    where any expression may stand without parentheses (an argument, an element, a statement's
    value or test)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_func: dict[cst.CSTNode, cst.Call] = {}
        self.in_fstring: set[cst.CSTNode] = set()
        self.free_slots: set[cst.CSTNode] = set()
        self.discarded: set[cst.CSTNode] = set()
        self.depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Arg, cst.Element, cst.Return, cst.Assign, cst.AnnAssign,
                             cst.AugAssign, cst.Expr, cst.Index, cst.DictElement)):
            value = getattr(node, "value", None)
            if value is not None and not (isinstance(node, cst.Arg) and node.star):
                self.free_slots.add(value)
            if isinstance(node, cst.Expr):
                self.discarded.add(node.value)
        elif isinstance(node, (cst.If, cst.While, cst.Assert)):
            self.free_slots.add(node.test)
        return super().on_visit(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.depth += 1
        return True

    def leave_FormattedString(self, original_node: cst.FormattedString) -> None:
        self.depth -= 1

    def visit_Call(self, node: cst.Call) -> bool:
        self.by_func[node.func] = node
        if self.depth:
            self.in_fstring.add(node)
        return True


def inline_helper(source: str, bound: str, body: cst.BaseExpression, params: Sequence[str],
                  free: Sequence[str], adds: Sequence[str], ordered: bool, *,
                  keep: bool = False, leave: frozenset[int] = frozenset(),
                  home: bool = False) -> Inlined:
    """Replace every call of the helper imported as `bound` by its expression `body`; `adds`
    are the names to import in its place (beside it with `keep`: other code may import the
    helper from this module), `ordered` whether `safe_order` holds. The calls on the lines
    `leave` stay calls (the import stays for them). `home`: the module defines the helper
    (nothing to import; the definition stays). Refused with the reason when the module
    cannot be rewritten."""
    module, scopes, positions = analysed(source)
    alias: cst.ImportAlias | None = None
    statement: cst.ImportFrom | None = None
    if home:
        scope, assignment = defined(module, scopes, bound)
    else:
        found = imported(module, scopes, bound)
        scope, assignment, statement, alias = found
    if any(name in scope.assignments for name in adds):
        raise InjectionRefused(f"one of {', '.join(adds)} is already a name of the module")
    visitor = _Calls()
    module.visit(visitor)
    calls: set[cst.Call] = set()
    lines: list[int] = []
    left = 0
    for access in assignment.references:
        node = access.node
        call = visitor.by_func.get(node)
        if call is None or access.is_annotation or access.is_type_hint:
            raise InjectionRefused(f"{bound} is used other than by calling it")
        if positions[call].start.line in leave:
            left += 1
            continue
        if call in visitor.in_fstring:
            raise InjectionRefused(f"{bound} is called inside an f-string")
        if len(call.args) != len(params) or any(arg.keyword is not None or arg.star
                                                 for arg in call.args):
            raise InjectionRefused(f"a call of {bound} passes keywords or a star argument")
        values = {name: arg.value for name, arg in zip(params, call.args)}
        if any(isinstance(value, (cst.GeneratorExp, cst.Yield, cst.Await, cst.NamedExpr))
               for value in values.values()):
            raise InjectionRefused(f"an argument of {bound} is a generator, a yield, an await or a "
                                   "walrus")
        if not ordered and not all(_simple(value) for value in values.values()):
            raise InjectionRefused(f"an argument of {bound} could change what the expression "
                                   "evaluates first")
        here = scopes.get(call)
        while here is not None and not isinstance(here, GlobalScope):
            if any(name in here.assignments for name in free) and (
                    not isinstance(here, ClassScope) or here is scopes.get(call)):
                raise InjectionRefused(f"a local name at line {positions[call].start.line} shadows "
                                       "one the expression reads")
            here = here.parent
        calls.add(call)
        lines.append(positions[call].start.line)
    if not calls:
        raise InjectionRefused(f"every call of {bound} is in code the tests do not run" if left
                               else f"{bound} is imported but never called")
    transformer = InlineCalls(calls, params, body, alias, statement, adds, keep or left > 0)
    transformer.free_slots = visitor.free_slots
    transformer.discarded = visitor.discarded
    result = module.visit(transformer)
    if transformer.replaced != len(calls):
        raise InjectionRefused("not every call could be replaced (a call inside another's "
                               "arguments)")
    return Inlined(result.code, tuple(sorted(lines)))


def inline_method(source: str, name: str, lines: set[int], body: cst.BaseExpression,
                  params: Sequence[str], free: Sequence[str], ordered: bool) -> Inlined:
    """Replace the calls `receiver.name(...)` on `lines` (those that reach the method) by its
    expression, `receiver` in place of `self`; `free` are builtins the expression reads."""
    module, scopes, positions = analysed(source)
    visitor = _Calls()
    module.visit(visitor)
    calls: set[cst.Call] = set()
    for func, call in visitor.by_func.items():
        if not isinstance(func, cst.Attribute) or func.attr.value != name:
            continue
        line = positions[call].start.line
        if line not in lines:
            raise InjectionRefused(f"the call of .{name} on line {line} may reach another method")
        if call in visitor.in_fstring:
            raise InjectionRefused(f".{name} is called inside an f-string")
        if len(call.args) != len(params) - 1 or any(arg.keyword is not None or arg.star
                                                     for arg in call.args):
            raise InjectionRefused(f"a call of .{name} passes keywords or a star argument")
        values = [func.value, *(arg.value for arg in call.args)]
        if any(isinstance(value, (cst.GeneratorExp, cst.Yield, cst.Await, cst.NamedExpr))
               for value in values):
            raise InjectionRefused(f"an argument of .{name} is a generator, a yield, an await or a "
                                   "walrus")
        if not ordered and not all(_simple(value) for value in values):
            raise InjectionRefused(f"an argument of .{name} could change what the expression "
                                   "evaluates first")
        here = scopes.get(call)
        while here is not None:
            if any(item in here.assignments for item in free):
                raise InjectionRefused(f"a name at line {line} shadows a builtin the expression "
                                       "reads")
            here = here.parent if not isinstance(here, GlobalScope) else None
        calls.add(call)
    if {positions[call].start.line for call in calls} != lines:
        raise InjectionRefused(f"not every planned call of .{name} was found")
    transformer = InlineCalls(calls, params, body, None, None, (), False, receiver=True)
    transformer.free_slots = visitor.free_slots
    transformer.discarded = visitor.discarded
    result = module.visit(transformer)
    if transformer.replaced != len(calls):
        raise InjectionRefused("not every call could be replaced")
    return Inlined(result.code, tuple(sorted(positions[call].start.line for call in calls)))
