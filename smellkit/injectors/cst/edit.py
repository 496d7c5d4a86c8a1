"""libcst edits shared by the dead-code and duplicated-code injectors: find a definition by its
qualified name, insert top-level statements, check that a new name is free.

Only the files being edited are parsed; every edit rebuilds the touched nodes and keeps the rest of
the tree (and so the rest of the text) as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import libcst as cst

Definition = cst.FunctionDef | cst.ClassDef


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The node and every node below it, in no particular order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def parameter_names(params: cst.Parameters) -> set[str]:
    """The names a function's parameters bind, starred ones included (not what their
    annotations or defaults read)."""
    found = [*params.posonly_params, *params.params, *params.kwonly_params,
             params.star_arg, params.star_kwarg]
    return {item.name.value for item in found if isinstance(item, cst.Param)}


def relative_parts(qualname: str, module: str) -> list[str] | None:
    """The names of a definition below its module (`pkg.mod.C.f` -> `[C, f]`)."""
    if not qualname.startswith(module + "."):
        return None
    return qualname[len(module) + 1:].split(".")


def top_index(module: cst.Module, name: str) -> int | None:
    """Position in `module.body` of the def or class statement named `name` (the last one, as
    Python binds the last), or None when it is not a direct top-level statement."""
    found = None
    for position, statement in enumerate(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and \
                statement.name.value == name:
            found = position
    return found


def find_definition(module: cst.Module, parts: Sequence[str]) -> Definition | None:
    """The def or class at `parts`, walking direct children of module, class and function
    bodies only (definitions under `if`/`try` are not addressed)."""
    body: Sequence[cst.CSTNode] = module.body
    node: Definition | None = None
    for name in parts:
        node = None
        for statement in body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and \
                    statement.name.value == name:
                node = statement
        if node is None or not isinstance(node.body, cst.IndentedBlock):
            return None
        body = node.body.body
    return node


class Replace(cst.CSTTransformer):
    """Replace nodes by identity (the original tree's node objects)."""

    def __init__(self, replacements: dict[cst.CSTNode, cst.CSTNode]):
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode,  # type: ignore[override]
                 updated_node: cst.CSTNode) -> cst.CSTNode:
        return self.replacements.get(original_node, updated_node)


def replace(module: cst.Module, replacements: dict[cst.CSTNode, cst.CSTNode]) -> cst.Module:
    result = module.visit(Replace(replacements))
    assert isinstance(result, cst.Module)
    return result


def statement(module: cst.Module, text: str, blank_lines: int = 2) -> cst.BaseStatement:
    """`text` parsed as one statement in the module's style, preceded by blank lines."""
    parsed = cst.parse_statement(text, config=module.config_for_parsing)
    empty = [cst.EmptyLine() for _ in range(blank_lines)]
    return parsed.with_changes(leading_lines=empty)


def insert_top(module: cst.Module, position: int,
               statements: Sequence[cst.BaseStatement]) -> cst.Module:
    """`statements` inserted at `position` of the module body (len(body) appends)."""
    body: list[cst.BaseStatement] = list(module.body)
    body[position:position] = statements
    return module.with_changes(body=body)


def name_free(source: str, name: str) -> bool:
    """Whether `name` appears nowhere in the file as a word (code, comments or strings): a new
    definition of that name can then clash with nothing."""
    return re.search(rf"\b{re.escape(name)}\b", source) is None


def import_text(module: str, names: Sequence[str]) -> str:
    return f"from {module} import {', '.join(names)}"


def absolute_module(tree: cst.Module, node: cst.ImportFrom, module: str, package: bool) -> str:
    """The absolute module a `from` import names, written in `module` (a package's
    `__init__` when `package`)."""
    spec = tree.code_for_node(node.module) if node.module is not None else ""
    if not node.relative:
        return spec
    parts = module.split(".")
    parts = parts[:len(parts) - len(node.relative) + (1 if package else 0)]
    return ".".join([*parts, spec] if spec else parts)
