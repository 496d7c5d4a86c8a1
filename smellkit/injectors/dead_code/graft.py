"""The imports a dead copy's import joins (at the top of the module, or inside a module-level
`if` or `try`), and a new statement placed right after one of them."""

from __future__ import annotations

import libcst as cst

from smellkit.injectors.cst.edit import absolute_module


def import_statement(tree: cst.Module, name: str, source: str, module: str,
                      package: bool) -> tuple[cst.SimpleStatementLine, cst.ImportFrom] | None:
    """The top-level `from source import name` statement (unaliased) of the module."""
    for line in tree.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if (isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar)
                    and absolute_module(tree, small, module, package) == source
                    and any(isinstance(alias.name, cst.Name) and alias.name.value == name
                            and alias.asname is None for alias in small.names)):
                return line, small
    return None


class _Imports(cst.CSTVisitor):
    """Statement lines of module-level code (inside `if`, `try` and such, not definitions)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[cst.SimpleStatementLine] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self.lines.append(node)
        return False


def nested_import(tree: cst.Module, name: str, source: str, module: str,
                   package: bool) -> tuple[cst.SimpleStatementLine, cst.ImportFrom] | None:
    """`from source import name` (unaliased) inside a module-level `if` or `try`."""
    visitor = _Imports()
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            statement.visit(visitor)
    for line in visitor.lines:
        found = import_statement(cst.Module(body=[line]), name, source, module, package)
        if found is not None:
            return found
    return None


class After(cst.CSTTransformer):
    """Insert a statement right after one statement line (an equal one: the first edit of
    the module rebuilt its nodes), in whatever block holds it."""

    def __init__(self, line: cst.SimpleStatementLine, added: cst.BaseStatement):
        super().__init__()
        self.line, self.added = line, added

    def leave_SimpleStatementLine(
            self, original_node: cst.SimpleStatementLine,
            updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | \
            cst.FlattenSentinel[cst.BaseStatement]:
        if not original_node.deep_equals(self.line):  # the tree was rebuilt by an earlier edit
            return updated_node
        return cst.FlattenSentinel([updated_node, self.added])
