"""Seeded behaviour-changing mutants of one function, made with libcst (for the equivalence
mutation study, `bench_equivalence.py`).

Each kind lists the sites it can change inside the target function (nested code included) and
changes one of them, chosen by a seeded random draw; a kind with no site in the function does
not apply to it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

KINDS = ("flip_comparison", "off_by_one", "dropped_default", "swapped_arguments",
         "changed_constant", "changed_exception", "argument_mutation")

_FLIPS: dict[type[cst.BaseCompOp], Callable[[], cst.BaseCompOp]] = {
    cst.LessThan: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThan,
    cst.GreaterThan: cst.LessThanEqual, cst.LessThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual, cst.NotEqual: cst.Equal, cst.Is: cst.IsNot, cst.IsNot: cst.Is,
    cst.In: cst.NotIn, cst.NotIn: cst.In,
}


@dataclass(frozen=True)
class Mutant:
    kind: str
    qualname: str
    """The mutated function, relative to its module."""
    description: str
    source: str
    line: int
    """The first line of the module the mutant changes (1-based, in the original): with the
    function and the kind, the site's key in the study's classification (stable across builds,
    unlike instance ids)."""


def _is_site(kind: str, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
    if kind == "flip_comparison":
        return isinstance(node, cst.ComparisonTarget) and type(node.operator) in _FLIPS
    if kind == "off_by_one":
        return isinstance(node, cst.Integer)
    if kind == "dropped_default":
        return isinstance(node, cst.Param) and node.default is not None and \
            not (isinstance(node.default, cst.Name) and node.default.value == "None") and \
            node in function.params.params + function.params.kwonly_params
    if kind == "swapped_arguments":
        return isinstance(node, cst.Call) and \
            sum(1 for arg in node.args if arg.keyword is None and not arg.star) >= 2 and \
            not any(arg.star for arg in node.args[:2])
    if kind == "changed_constant":
        return (isinstance(node, cst.SimpleString) and not node.value.startswith(('"""', "'''"))
                and "b" not in node.prefix.lower()) or \
            (isinstance(node, cst.Name) and node.value in ("True", "False"))
    if kind == "changed_exception":
        return isinstance(node, cst.Raise) and isinstance(node.exc, cst.Call)
    return False


class _Sites(cst.CSTVisitor):
    def __init__(self, kind: str, function: cst.FunctionDef):
        self.kind, self.function = kind, function
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if _is_site(self.kind, node, self.function):
            self.found.append(node)
        return True


class _Change(cst.CSTTransformer):
    def __init__(self, kind: str, target: cst.CSTNode):
        self.kind, self.target = kind, target

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode
                 ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        if original is not self.target:
            return updated
        if isinstance(updated, cst.ComparisonTarget):
            return updated.with_changes(operator=_FLIPS[type(updated.operator)]())
        if isinstance(updated, cst.Integer):
            return updated.with_changes(value=str(int(updated.value, 0) + 1))
        if isinstance(updated, cst.Param):
            return updated.with_changes(default=cst.Name("None"))
        if isinstance(updated, cst.Call):
            first, second, *rest = updated.args
            return updated.with_changes(args=[second.with_changes(comma=first.comma),
                                              first.with_changes(comma=second.comma), *rest])
        if isinstance(updated, cst.SimpleString):
            quote = updated.value[len(updated.prefix)]
            body = updated.value[len(updated.prefix) + 1:-1]
            return updated.with_changes(value=f"{updated.prefix}{quote}{body}~{quote}")
        if isinstance(updated, cst.Name):
            return updated.with_changes(value="False" if updated.value == "True" else "True")
        if isinstance(updated, cst.Raise) and isinstance(updated.exc, cst.Call):
            raised = cst.Name("LookupError" if _name(updated.exc.func) == "RuntimeError"
                              else "RuntimeError")
            return updated.with_changes(exc=updated.exc.with_changes(func=raised))
        return updated


def _name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""


class _Functions(cst.CSTVisitor):
    """Every function of a module by qualified name (classes and functions, nested)."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.found: dict[str, cst.FunctionDef] = {}

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append(node.name.value)
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.stack.append(node.name.value)
        if not _is_overload(node):  # a stub the implementation after it replaces: never run
            self.found.setdefault(".".join(self.stack), node)
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()


def _is_overload(node: cst.FunctionDef) -> bool:
    """Whether `node` is a `@typing.overload` stub (`@overload`, `@t.overload`...)."""
    return any(_name(decorator.decorator) == "overload" for decorator in node.decorators)


def functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """Every function of `module` by qualified name: the first definition of a name, its
    `@overload` stubs left out."""
    finder = _Functions()
    module.visit(finder)
    return finder.found


def _argument_mutation(module: cst.Module, function: cst.FunctionDef) -> cst.Module | None:
    """A first statement that changes the first argument in place (an attribute set on an
    object, an item appended to a list)."""
    params = [param.name.value for param in function.params.params
              if param.name.value != "cls"]
    if not params or not isinstance(function.body, cst.IndentedBlock):
        return None
    name = params[0]
    statement = cst.parse_statement(
        f"setattr({name}, '_mutated', True) if hasattr({name}, '__dict__') and not "
        f"isinstance({name}, type) else ({name}.append(None) if isinstance({name}, list) "
        "else None)\n")
    body = list(function.body.body)
    at = 1 if body and isinstance(body[0], cst.SimpleStatementLine) and \
        isinstance(body[0].body[0], cst.Expr) and \
        isinstance(body[0].body[0].value, cst.SimpleString) else 0
    changed = function.with_changes(body=function.body.with_changes(
        body=[*body[:at], statement, *body[at:]]))
    return module.deep_replace(function, changed)  # type: ignore[return-value]


def mutate(module: cst.Module, found: dict[str, cst.FunctionDef], qualname: str, kind: str,
           seed: int) -> Mutant | None:
    """One mutant of the function `qualname` (relative to its module) of `module` (whose
    `functions` are `found`), or None when the kind has no site there."""
    sites = _sites(found, qualname, kind)
    if not sites:
        return None
    return _apply(module, qualname, kind, random.Random(f"{seed}:{qualname}:{kind}").choice(sites))


def mutate_at(module: cst.Module, found: dict[str, cst.FunctionDef], qualname: str, kind: str,
              line: int, text: str = "") -> Mutant | None:
    """The mutant of `kind` in `qualname` whose change starts at `line` (a classified mutant's
    key), the one whose description names `text` where the line has several sites; None when
    the code has no such site any more."""
    at_line = [mutant for site in _sites(found, qualname, kind) or ()
               if (mutant := _apply(module, qualname, kind, site)) is not None and
               mutant.line == line]
    return next((mutant for mutant in at_line if text and text in mutant.description),
                at_line[0] if at_line else None)


def _sites(found: dict[str, cst.FunctionDef], qualname: str, kind: str
           ) -> list[cst.CSTNode | cst.FunctionDef] | None:
    """The nodes the kind can change in the function (the function itself for an argument
    mutation), or None when the module has no such function."""
    function = found.get(qualname)
    if function is None:
        return None
    if kind == "argument_mutation":
        return [function]
    sites = _Sites(kind, function)
    function.body.visit(sites) if kind != "dropped_default" else function.params.visit(sites)
    return sites.found


def _apply(module: cst.Module, qualname: str, kind: str, target: cst.CSTNode) -> Mutant | None:
    if kind == "argument_mutation":
        assert isinstance(target, cst.FunctionDef)
        changed = _argument_mutation(module, target)
        if changed is None:
            return None
        return Mutant(kind, qualname, "the first argument changed in place", changed.code,
                      _first_change(module.code, changed.code))
    described = module.code_for_node(target).strip().splitlines()[0][:80]
    mutated = module.visit(_Change(kind, target))
    if mutated.code == module.code:
        return None
    return Mutant(kind, qualname, f"{kind} at `{described}`", mutated.code,
                  _first_change(module.code, mutated.code))


def _first_change(before: str, after: str) -> int:
    old, new = before.splitlines(), after.splitlines()
    return next((number for number, (one, two) in enumerate(zip(old, new), 1) if one != two),
                min(len(old), len(new)) + 1)
