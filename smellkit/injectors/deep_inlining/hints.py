"""Names that only string annotations of moved code read (`ctx: "Context"`), bound in the new
module the way the host binds them for type checkers: in an `if TYPE_CHECKING:` block.

They never run, so they cannot close an import cycle; but without them the new module reads
names it does not define, which type checkers and pyflakes report (and a reader notices).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from smellkit._internal import pyast
from smellkit.errors import InjectionRefused
from smellkit.graphs.builtin_names import BUILTIN_NAMES

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_GUARD = re.compile(r"^if\s+((?:(\w+)\.)?TYPE_CHECKING)\s*:", re.MULTILINE)


def hinted_names(nodes: Iterable[cst.CSTNode]) -> set[str]:
    """Names read inside string annotations (parameters, returns, annotated assignments)."""
    found: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Annotation(self, node: cst.Annotation) -> None:
            for string in _strings(node):
                value = string.evaluated_value
                if not isinstance(value, str):
                    continue
                try:
                    tree = pyast.parse(value.strip(), mode="eval")
                except SyntaxError:
                    continue
                found.update(item.id for item in ast.walk(tree) if isinstance(item, ast.Name))

    for node in nodes:
        node.visit(Collect())
    return found


def _strings(node: cst.CSTNode) -> list[cst.SimpleString | cst.ConcatenatedString]:
    found: list[cst.SimpleString | cst.ConcatenatedString] = []

    class Collect(cst.CSTVisitor):
        def visit_SimpleString(self, inner: cst.SimpleString) -> None:
            found.append(inner)

        def visit_ConcatenatedString(self, inner: cst.ConcatenatedString) -> bool:
            found.append(inner)
            return False

    node.visit(Collect())
    return found


def type_checking_guard(context: InjectionContext, host: str) -> tuple[str, str | None]:
    """How the host guards its type-checking imports (`t.TYPE_CHECKING`, `TYPE_CHECKING`), and
    the name that guard reads (`t`, `TYPE_CHECKING`); `typing.TYPE_CHECKING` read through a
    `from typing import TYPE_CHECKING` when the host has no guard."""
    found = _GUARD.search(context.source(context.index.modules[host].path))
    if found is None:
        return "TYPE_CHECKING", None
    return found.group(1), found.group(2) or "TYPE_CHECKING"


def hint_imports(context: InjectionContext, host: str, names: Iterable[str],
             relative: str) -> list[str]:
    """An import line per name, as the host binds it (its import, at run time or for type
    checking; or its own definition, imported from it as `relative`); refused for a name the
    host does not bind."""
    facts = context.index.modules[host]
    lines: list[str] = []
    for name in sorted(set(names) - BUILTIN_NAMES):
        item = next((item for item in facts.imports if item.bound == name), None)
        if item is not None:
            lines.append(import_text(context, host, item.target, name, item.is_from,
                                     item.level))
        elif name in context.index.children.get(host, {}) or any(
                assignment.scope == host and getattr(assignment.target, "id", None) == name
                for assignment in facts.assignments):
            lines.append(f"from {relative} import {name}")
        else:
            raise InjectionRefused(f"a string annotation of the moved code reads {name}, which "
                                   f"{host} does not bind")
    return lines


def import_text(context: InjectionContext, host: str, target: str, name: str, is_from: bool,
                level: int) -> str:
    """The host's import of `target` as `name`, for a sibling module (relative when the host's
    is and stays inside the package)."""
    if not is_from:
        if target == name or target.startswith(name + "."):
            return f"import {target}"
        return f"import {target} as {name}"
    source, _, attribute = target.rpartition(".")
    alias = f" as {name}" if attribute != name else ""
    if level:
        facts = context.index.modules[host]
        package = host if facts.is_package else host.rpartition(".")[0]
        for _ in range(level - 1):
            package = package.rpartition(".")[0]
        if source == package or source.startswith(package + "."):
            inner = source[len(package) + 1:] if source != package else ""
            return f"from {'.' * level}{inner} import {attribute}{alias}"
    return f"from {source} import {attribute}{alias}"
