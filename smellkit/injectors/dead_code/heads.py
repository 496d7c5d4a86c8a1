"""Dead statements inside a live function, each calling the earlier version of its callee.

The shapes a person leaves behind when a function moves on from an old helper:

- `disabled`: the old call kept under `if False:` (before a `return` or `raise` of the new
  call, or as the `if` branch whose `else` holds the new one);
- `after_raise`: a branch that used to fall back on the old helper now raises, and the old
  call was left below the `raise`.

No statement is left below a `return`: a reader takes it for a slip, not a leftover.

Statements placed away from the live call read only the function's parameters and module
names, never a local bound elsewhere in the function.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from typing import NamedTuple

import libcst as cst

from smellkit._internal import pyast
from smellkit.errors import InjectionRefused
from smellkit.injectors.cst import edit
from smellkit.injectors.dead_code.copies import Link, parameter_names, redirected

SHAPES = ("disabled", "after_raise")


class _Found(NamedTuple):
    line: cst.SimpleStatementLine
    block: cst.IndentedBlock


class _Spots(cst.CSTVisitor):
    """In a function's own code (not nested definitions, lambdas or comprehensions): the first
    statement line calling the callee with its block, and the `if` blocks ending in a
    `raise`."""

    def __init__(self, item: Link):
        super().__init__()
        self.item = item
        self.blocks: list[cst.IndentedBlock] = []
        self.line: cst.SimpleStatementLine | None = None
        self.call: _Found | None = None
        self.raising: list[cst.IndentedBlock] = []

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.blocks.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.line = node

    def visit_If(self, node: cst.If) -> None:
        block = node.body
        if isinstance(block, cst.IndentedBlock) and block.body:
            last = block.body[-1]
            if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and \
                    isinstance(last.body[0], cst.Raise):
                self.raising.append(block)

    def _skip(self, node: cst.CSTNode) -> bool:
        return False

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _skip
    visit_FunctionDef = visit_ClassDef = _skip

    def visit_Call(self, node: cst.Call) -> None:
        func, item = node.func, self.item
        if item.style in ("name", "reexport"):
            hit = isinstance(func, cst.Name) and func.value == item.bound
        elif item.style == "method":
            hit = isinstance(func, cst.Attribute) and func.attr.value == item.bound
        else:
            hit = (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                   and func.value.value == item.bound
                   and func.attr.value == item.callee.rpartition(".")[2])
        if hit and self.call is None and self.line is not None and self.blocks and \
                self.line in self.blocks[-1].body and len(self.line.body) == 1:
            self.call = _Found(self.line, self.blocks[-1])


def graft(module: cst.Module, function: cst.FunctionDef, item: Link, new: str,
          rng: random.Random) -> tuple[cst.FunctionDef, str]:
    """`function` with a dead statement calling `new` (the copy of `item.callee`), in the
    first shape that fits (below a raise, else under `if False:`), and that shape's name."""
    if item.style == "local" or not isinstance(function.body, cst.IndentedBlock):
        raise InjectionRefused("the callee is imported inside the function")
    spots = _Spots(item)
    function.body.visit(spots)
    if spots.call is None:
        raise InjectionRefused(f"no statement of its own calls `{item.callee}`")
    line, block = spots.call
    dead = redirected(line.with_changes(leading_lines=()), [(item, new)])[0]
    assert isinstance(dead, cst.SimpleStatementLine)
    small = dead.body[0]
    unsafe = _locals(module, function) & _reads(module, dead)
    shapes = [shape for shape in SHAPES if shape != "disabled"]
    rng.shuffle(shapes)
    for shape in [*shapes, "disabled"]:  # `if False:` fits almost anywhere: the last resort
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        if shape == "disabled":
            body = list(block.body)
            at = body.index(line)
            if isinstance(small, (cst.Return, cst.Raise)):  # the live one follows it
                body.insert(at, _if_false(dead, None, line.leading_lines))
            else:
                body[at] = _if_false(dead, line.with_changes(leading_lines=()),
                                     line.leading_lines)
            replacements[block] = block.with_changes(body=body)
        elif unsafe:
            continue
        elif shape == "after_raise" and spots.raising and \
                isinstance(small, (cst.Return, cst.Expr, cst.Assign)):
            target = rng.choice(spots.raising)
            replacements[target] = target.with_changes(body=[*target.body, dead])
        else:
            continue
        changed = edit.replace(cst.Module(body=[function]), replacements).body[0]
        assert isinstance(changed, cst.FunctionDef)
        return changed, shape
    raise InjectionRefused(f"no dead statement fits `{function.name.value}` (its call of "
                           f"`{item.callee}` reads locals, and no branch ends in a raise)")


def _if_false(dead: cst.SimpleStatementLine, live: cst.SimpleStatementLine | None,
              leading: Sequence[cst.EmptyLine]) -> cst.If:
    orelse = cst.Else(body=cst.IndentedBlock(body=[live])) if live is not None else None
    return cst.If(test=cst.Name("False"), body=cst.IndentedBlock(body=[dead]), orelse=orelse,
                  leading_lines=leading)


def _locals(module: cst.Module, function: cst.FunctionDef) -> set[str]:
    """Names the function binds other than its parameters."""
    tree = pyast.parse(module.code_for_node(function.with_changes(decorators=(),
                                                                  leading_lines=())))
    bound: set[str] = set()
    for node in ast.walk(tree.body[0]):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound - parameter_names(function)


def _reads(module: cst.Module, line: cst.SimpleStatementLine) -> set[str]:
    """Names the line reads, but for those its comprehensions and lambdas bind themselves
    (an assignment's target read on its right side still counts: `x = f(x)`)."""
    tree = pyast.parse(module.code_for_node(line.with_changes(leading_lines=())).strip())
    own = {node.id for scope in ast.walk(tree) if isinstance(scope, ast.comprehension)
           for node in ast.walk(scope.target) if isinstance(node, ast.Name)}
    own.update(arg.arg for scope in ast.walk(tree) if isinstance(scope, ast.Lambda)
               for arg in ast.walk(scope.args) if isinstance(arg, ast.arg))
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)} - own
