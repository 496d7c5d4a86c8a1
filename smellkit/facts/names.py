"""Names written in code: dotted chains, the names an annotation mentions, relative imports.

Pure functions of `ast` nodes and module names, shared by fact extraction and the injectors.
"""

from __future__ import annotations

import ast

from smellkit._internal import pyast


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def annotation_names(node: ast.AST | None) -> tuple[str, ...]:
    """Dotted names a type annotation mentions: `Optional["a.B"] | C` gives ("a.B", "C")."""
    if node is None:
        return ()
    found: list[str] = []
    stack: list[ast.AST] = [node]
    while stack:
        item = stack.pop()
        name = dotted(item)
        if name is not None:
            if name not in ("None", "typing.Optional", "Optional", "Union", "typing.Union"):
                found.append(name)
        elif isinstance(item, ast.Constant) and isinstance(item.value, str):
            try:
                stack.append(pyast.parse(item.value, mode="eval").body)
            except SyntaxError:
                continue
        elif isinstance(item, ast.Subscript):
            base = dotted(item.value)
            if base in ("Optional", "typing.Optional", "Union", "typing.Union",
                        "Annotated", "typing.Annotated", "ClassVar", "typing.ClassVar",
                        "Final", "typing.Final"):
                inner = item.slice
                items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
                if base and base.endswith("Annotated"):
                    items = items[:1]
                stack.extend(reversed(items))
            elif base is not None:
                found.append(base)
        elif isinstance(item, ast.BinOp) and isinstance(item.op, ast.BitOr):
            stack.append(item.right)
            stack.append(item.left)
    return tuple(found)


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """Absolute module for `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target or ""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    if target:
        parts.append(target)
    return ".".join(parts)
