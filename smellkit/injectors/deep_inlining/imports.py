"""Imports the smelly host module needs for the globals pasted code reads. Every line copies
how the name was bound where the code came from, and is refused when that binding is
conditional, for type checking only, or module state that changes (an import would copy it)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import libcst as cst

from smellkit._internal import pyast
from smellkit.errors import InjectionRefused
from smellkit.injectors.cst.imports import add_imports, after_last_import, without_unused
from smellkit.injectors.deep_inlining.inline import meaning

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext


def imports_for(context: InjectionContext, qualname: str,
             needs: dict[str, tuple[str, str]]) -> list[str]:
    """Import statements for the globals pasted code reads that the host module does not bind
    yet (refused when the host binds the name to something else)."""
    host = context.index.module_of[qualname]
    type_only = {item.bound for item in context.index.modules[host].imports
                 if item.scope == host and item.type_only}
    lines: list[str] = []
    for name, (origin, meant) in sorted(needs.items()):
        here = meaning(context, host, name)
        if name in type_only:
            raise InjectionRefused(f"{host} imports {name} for type checking only; pasted code "
                                   "would read it at run time")
        if here == meant:
            continue
        if here is not None:
            raise InjectionRefused(f"{name} means {meant} where it was written and {here} in "
                                   f"{host}")
        lines.append(import_line(context, origin, name, host))
    return list(dict.fromkeys(lines))


def with_imports(context: InjectionContext, qualname: str, path: str, module: cst.Module,
                 imports: Sequence[str]) -> str:
    """The new text of the host file: the imports added to its `from` import of the same
    module, or after its last top-level import; and the imports of the callees no longer called
    in the file dropped, as a person pasting their bodies would (an unused import gives the
    paste away)."""
    host = context.index.module_of[qualname]
    facts = context.index.modules[host]
    if imports:
        body = list(module.body)
        position = after_last_import(body)
        if position == 0:
            raise InjectionRefused(f"{path} has no top-level import to add {', '.join(imports)} "
                                   "after")
        pairs = [(_source(line), line) for line in imports]
        module = add_imports(module, module, position, pairs, host, facts.is_package,
                             in_order=True)
    return without_unused(context, host, context.module(path), module).code


def _source(line: str) -> str:
    """The module an import line imports from (`from a.b import c` -> a.b, `import a.b` -> a.b)."""
    words = line.split()
    return words[1]


def unconditional(context: InjectionContext, module: str, name: str) -> bool:
    """The module binds `name` in a statement of its own top level (not under `if`/`try`,
    where the binding may not happen: a platform-specific import, an optional dependency)."""
    known = _TOP_LEVEL.setdefault(context, {})
    if module not in known:  # parsed once per module and context: asked once per name
        known[module] = _top_level(context.source(context.index.modules[module].path))
    return name in known[module]


_TOP_LEVEL: WeakKeyDictionary[InjectionContext, dict[str, frozenset[str]]] = \
    WeakKeyDictionary()


def _top_level(text: str) -> frozenset[str]:
    found: set[str] = set()
    for statement in pyast.parse(text).body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(statement.name)
        elif isinstance(statement, ast.Import):
            found |= {alias.asname or alias.name.split(".")[0] for alias in statement.names}
        elif isinstance(statement, ast.ImportFrom):
            found |= {alias.asname or alias.name for alias in statement.names}
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else \
                [statement.target]
            found |= {node.id for target in targets for node in ast.walk(target)
                      if isinstance(node, ast.Name)}
    return frozenset(found)


def import_line(context: InjectionContext, origin: str, name: str, host: str) -> str:
    facts = context.index.modules[origin]
    if not unconditional(context, origin, name):
        raise InjectionRefused(f"{origin} binds {name} conditionally: importing it may fail")
    for item in facts.imports:
        if item.scope == origin and item.bound == name:
            if item.type_only:
                raise InjectionRefused(f"{name} is imported for type checking only in {origin}")
            if item.is_from:
                source, _, attribute = item.target.rpartition(".")
                return f"from {source} import {attribute}" + (
                    f" as {name}" if attribute != name else "")
            if item.target == name or item.target.startswith(name + "."):
                return f"import {item.target}"
            return f"import {item.target} as {name}"
    import networkx as nx

    graph = context.index.import_graph
    if origin in graph and host in graph and nx.has_path(graph, origin, host) and \
            not _imports_already(context, host, origin):
        raise InjectionRefused(f"importing {name} from {origin} into {host} could make an import "
                               "cycle")
    assigned = [item for item in facts.assignments if item.scope == origin
                and getattr(item.target, "id", None) == name]
    if len(assigned) > 1 or any(declared == name for _, declared in facts.globals_declared):
        raise InjectionRefused(f"{origin}.{name} is module state that changes: importing it would "
                               "copy it")
    return f"from {origin} import {name}"


def _imports_already(context: InjectionContext, host: str, origin: str) -> bool:
    """The host imports from `origin` at its top level at run time already (`from .formatting
    import HelpFormatter`): one more name from it makes no import cycle that is not there."""
    return any(item.scope == host and not item.type_only and unconditional(
        context, host, item.bound) and (item.target == origin or item.target.rpartition(".")[0]
                                        == origin)
               for item in context.index.modules[host].imports)
