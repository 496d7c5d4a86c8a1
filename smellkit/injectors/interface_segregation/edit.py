"""The libcst half of interface segregation: declare methods in an interface, refuse them in
implementers (in their bodies, or through a mixin from a new module).

Edits append statements to class bodies or put a base first in a class's bases; everything else
of each file is kept as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.cst.imports import after_last_import, is_import_line


@dataclass
class ClassEdit:
    """What to do to one class: methods to append, mixins to put first in its bases."""

    methods: list[str] = field(default_factory=list)
    """Source of (decorated) `def` statements, unindented, appended to the class body."""
    mixins: list[str] = field(default_factory=list)


@dataclass
class FileEdit:
    classes: dict[tuple[str, ...], ClassEdit] = field(default_factory=dict)
    """Class path below the module (`("Outer", "Inner")`) -> its edit."""
    imports: list[str] = field(default_factory=list)


def _function(source: str, blank_line: bool) -> cst.BaseStatement:
    statement = cst.parse_statement(source)
    if blank_line:
        statement = statement.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    return statement


class _Apply(cst.CSTTransformer):
    def __init__(self, edits: dict[tuple[str, ...], ClassEdit]):
        super().__init__()
        self.edits = edits
        self.stack: list[str] = []
        self.done: set[tuple[str, ...]] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # classes inside functions are not addressed

    def leave_ClassDef(self, original_node: cst.ClassDef,
                       updated_node: cst.ClassDef) -> cst.ClassDef:
        path = tuple(self.stack)
        self.stack.pop()
        edit = self.edits.get(path)
        if edit is None:
            return updated_node
        if path in self.done:
            raise InjectionRefused(f"class {'.'.join(path)} is defined twice in its module")
        self.done.add(path)
        if not isinstance(updated_node.body, cst.IndentedBlock):
            raise InjectionRefused(f"class {'.'.join(path)} has a one-line body")
        body = list(updated_node.body.body)
        if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and all(
                isinstance(small, cst.Pass) for small in body[0].body):
            body = []  # `class C(Base): pass` gets real members instead
        body.extend(_function(source, bool(body) or position > 0)
                    for position, source in enumerate(edit.methods))
        result = updated_node.with_changes(body=updated_node.body.with_changes(body=body))
        if edit.mixins:
            bases = [cst.Arg(cst.parse_expression(name), comma=cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" "))) for name in edit.mixins]
            old = list(updated_node.bases)
            if not old:
                bases[-1] = bases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            result = result.with_changes(
                bases=[*bases, *old],
                lpar=cst.LeftParen() if isinstance(updated_node.lpar, cst.MaybeSentinel)
                else updated_node.lpar,
                rpar=cst.RightParen() if isinstance(updated_node.rpar, cst.MaybeSentinel)
                else updated_node.rpar)
        return result


def apply(module: cst.Module, edit: FileEdit) -> str:
    """The module's new text."""
    visitor = _Apply(edit.classes)
    new = module.visit(visitor)
    missing = set(edit.classes) - visitor.done
    if missing:
        raise InjectionRefused(f"class {'.'.join(sorted(missing)[0])} is not a plain class "
                               "statement")
    if edit.imports:
        new = _add_imports(new, edit.imports)
    return new.code


def _add_imports(module: cst.Module, imports: Sequence[str]) -> cst.Module:
    body = list(module.body)
    position = after_last_import(body)
    if position == 0 and body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr):
        position = 1  # after the docstring
    statements = [cst.parse_statement(line) for line in dict.fromkeys(imports)]
    if position == 1 and not is_import_line(body[0]):  # right after the docstring: a blank line
        statements[0] = statements[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    return module.with_changes(body=[*body[:position], *statements, *body[position:]])


def signature(params: cst.Parameters) -> str:
    """A parameter list without annotations, every default None (a declaration that only raises
    never reads them, and the defaults' names may not exist in the interface's module)."""
    def one(param: cst.Param, star: str = "", default: bool = True) -> str:
        suffix = "=None" if default and param.default is not None else ""
        return f"{star}{param.name.value}{suffix}"

    parts = [one(param) for param in params.posonly_params]
    if params.posonly_params:
        parts.append("/")
    parts.extend(one(param) for param in params.params)
    if isinstance(params.star_arg, cst.Param):
        parts.append(one(params.star_arg, "*", False))
    elif params.kwonly_params:
        parts.append("*")
    parts.extend(one(param) for param in params.kwonly_params)
    if params.star_kwarg is not None:
        parts.append(one(params.star_kwarg, "**", False))
    return ", ".join(parts)


def find_function(module: cst.Module, parts: Sequence[str]) -> cst.FunctionDef | None:
    body: Sequence[cst.CSTNode] = module.body
    node: cst.CSTNode | None = None
    for name in parts:
        node = next((item for item in body if isinstance(item, (cst.FunctionDef, cst.ClassDef))
                     and item.name.value == name), None)
        if node is None:
            return None
        if isinstance(node, cst.ClassDef):
            if not isinstance(node.body, cst.IndentedBlock):
                return None
            body = node.body.body
    return node if isinstance(node, cst.FunctionDef) else None
