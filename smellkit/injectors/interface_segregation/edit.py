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
    type_imports: list[str] = field(default_factory=list)
    """Imports only annotations read: written under the module's `if TYPE_CHECKING:`."""


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
    if edit.type_imports:
        new = _add_type_imports(new, edit.type_imports)
    return new.code


def postponed(module: cst.Module) -> bool:
    """Whether the module has `from __future__ import annotations`."""
    return any(isinstance(line, cst.SimpleStatementLine) and any(
        isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name)
        and small.module.value == "__future__" and not isinstance(small.names, cst.ImportStar)
        and any(alias.name.value == "annotations" for alias in small.names)
        for small in line.body) for line in module.body)


def _guard(line: cst.CSTNode) -> bool:
    """A module-level `if TYPE_CHECKING:` (or `if t.TYPE_CHECKING:`) without an else."""
    if not isinstance(line, cst.If) or line.orelse is not None:
        return False
    test = line.test
    return (isinstance(test, cst.Name) and test.value == "TYPE_CHECKING") or (
        isinstance(test, cst.Attribute) and test.attr.value == "TYPE_CHECKING"
        and isinstance(test.value, cst.Name))


def _typing_alias(module: cst.Module) -> str | None:
    """How the module spells `typing.TYPE_CHECKING` with what it imports, if it can."""
    for line in module.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if module.code_for_node(alias.name) == "typing":
                        bound = alias.asname.name if alias.asname else alias.name
                        return f"{module.code_for_node(bound)}.TYPE_CHECKING"
            if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) and \
                    small.module.value == "typing" and \
                    not isinstance(small.names, cst.ImportStar) and \
                    any(alias.name.value == "TYPE_CHECKING" and alias.asname is None
                        for alias in small.names):
                return "TYPE_CHECKING"
    return None


def _add_type_imports(module: cst.Module, imports: Sequence[str]) -> cst.Module:
    """The imports added to the module's `if TYPE_CHECKING:` block (the first one, or a new
    one after its imports, spelled with its `typing` import when it has one)."""
    body = list(module.body)
    for number, line in enumerate(body):
        if _guard(line) and isinstance(line, cst.If) and \
                isinstance(line.body, cst.IndentedBlock):
            inner = list(line.body.body)
            have = {module.code_for_node(item).strip() for item in inner}
            new = [cst.parse_statement(text) for text in dict.fromkeys(imports)
                   if text not in have]
            at = after_last_import(inner)  # with the block's imports, before its classes
            block = line.body.with_changes(body=[*inner[:at], *new, *inner[at:]])
            body[number] = line.with_changes(body=block)
            return module.with_changes(body=body)
    spelled = _typing_alias(module)
    if spelled is None:
        module = _add_imports(module, ["from typing import TYPE_CHECKING"])
        spelled = "TYPE_CHECKING"
        body = list(module.body)
    indent = module.default_indent
    text = f"if {spelled}:\n" + "".join(f"{indent}{line}\n" for line in dict.fromkeys(imports))
    statement = cst.parse_statement(text, config=module.config_for_parsing).with_changes(
        leading_lines=[cst.EmptyLine(indent=False)])
    position = after_last_import(body)
    return module.with_changes(body=[*body[:position], statement, *body[position:]])


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
