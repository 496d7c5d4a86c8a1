"""The imports an absorbed function opens with, tidied as a person moving it would tidy them.

`move.move_method` imports what a moved body reads at the top of the body, so that nothing
can close an import cycle. In the holder's module several of those read oddly: a sibling
function absorbed by the same class imported back from the module it left (its thin function
there only calls the holder again), a name of the standard library the holder's module already
binds under another name (`from collections.abc import Mapping` beside the module's own
`Mapping as _Mapping`), or one it binds already, and modules outside the repository that cannot
close a cycle (`import functools`) repeated in each method instead of once at the top. Each
becomes what a person writes: `Holder.sibling(...)`, `_Mapping`, nothing, and one import at the
top of the module. The source module's own globals are still read from it when called (in the
body, or as `source.name` where the holder's module binds it): bound at the top of the holder's
module, they would miss whatever replaces them later (click's tests patch `_compat.isatty`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
import networkx as nx

from smellkit.graphs.index import Index
from smellkit.injectors.cst.edit import subtree
from smellkit.injectors.cst.imports import is_docstring
from smellkit.injectors.cst.move import names_in


@dataclass(frozen=True)
class Holder:
    """What the tidying needs to know of the holder and its module."""

    index: Index
    module: str
    name: str
    bindings: dict[str, str]
    """Names the holder's module binds at its top level, by target (`move.module_bindings`),
    with the imports moved to its top so far."""


def _outside(index: Index, module: str) -> bool:
    """A module outside the repository: importing it cannot close an import cycle."""
    return not any(module == name or module.startswith(f"{name}.")
                   or name.startswith(f"{module}.") for name in index.modules)


class _Renamer(cst.CSTTransformer):
    """Reads of some names replaced by expressions; attribute names, keywords and
    parameters left alone."""

    def __init__(self, names: Mapping[str, str]):
        super().__init__()
        self.names = names

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        text = self.names.get(original_node.value)
        return updated_node if text is None else cst.parse_expression(text)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        """`ma_fields.Inferred` is renamed as a whole (in `leave_Attribute`), not its parts."""
        return not (isinstance(node.value, cst.Name)
                    and f"{node.value.value}.{node.attr.value}" in self.names)

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        if isinstance(original_node.value, cst.Name):
            text = self.names.get(f"{original_node.value.value}.{original_node.attr.value}")
            if text is not None:
                return cst.parse_expression(text)
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)

    def leave_Param(self, original_node: cst.Param, updated_node: cst.Param) -> cst.Param:
        return updated_node.with_changes(name=original_node.name)


def tidied(function: cst.FunctionDef, source: str, holder: Holder,
           siblings: Mapping[str, str], patched: frozenset[str]
           ) -> tuple[cst.FunctionDef, list[str]]:
    """The absorbed `function` (from module `source`) with its opening imports tidied, and the
    imports to add at the top of the holder's module. `siblings`: the functions of `source`
    the holder absorbed, by name, with their names as its static methods; one that code
    replaces on `source` (`patched`, see `replaced`) stays imported from there."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return function, []
    lines = list(body.body)
    at = 1 if lines and is_docstring(lines[0]) else 0
    renames: dict[str, str] = {}
    hoisted: list[str] = []
    kept: list[cst.BaseStatement] = []
    end = at
    while end < len(lines) and _is_import_line(lines[end]):
        end += 1
    written = names_in(function.with_changes(body=body.with_changes(
        body=[*lines[:at], *lines[end:]])))  # but the imports' own dotted names
    end = at
    while end < len(lines) and _is_import_line(lines[end]):
        line = lines[end]
        assert isinstance(line, cst.SimpleStatementLine)
        small = line.body[0]
        assert isinstance(small, (cst.Import, cst.ImportFrom))
        aliases = [alias for alias in small.names] if not isinstance(
            small.names, cst.ImportStar) else []
        left = [alias for alias in aliases
                if not _settle(small, alias, source, holder, siblings, patched, renames,
                               hoisted, written, body)]
        if left and len(left) == len(aliases):
            kept.append(line)
        elif left:
            last = left[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            kept.append(line.with_changes(body=[small.with_changes(names=[*left[:-1], last])]))
        end += 1
    if end == at or (not renames and not hoisted and len(kept) == end - at):
        return function, []
    rest = lines[end:]
    if not kept and rest:  # the blank line below the imports goes with them
        rest[0] = rest[0].with_changes(leading_lines=[])
    new = function.with_changes(body=body.with_changes(body=[*lines[:at], *kept, *rest]))
    if renames:
        renamed = new.visit(_Renamer(renames))
        assert isinstance(renamed, cst.FunctionDef)
        new = renamed
    return new, hoisted


def _is_import_line(line: cst.BaseStatement) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(
        line.body[0], (cst.Import, cst.ImportFrom))


def _dotted(node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node)


def _settle(small: cst.Import | cst.ImportFrom, alias: cst.ImportAlias, source: str,
            holder: Holder, siblings: Mapping[str, str], patched: frozenset[str],
            renames: dict[str, str], hoisted: list[str], written: set[str],
            function_body: cst.CSTNode) -> bool:
    """Whether the import of `alias` goes (its reads renamed in `renames`, or the import
    moved to the top in `hoisted`); False: it stays at the top of the body. A name the
    function writes (`written`) is never what a read is renamed to."""
    name = _dotted(alias.name)
    bound = _dotted(alias.asname.name) if alias.asname is not None else name.partition(".")[0]
    if isinstance(small, cst.ImportFrom):
        if small.relative or small.module is None:
            if _relative_module(small, holder) == source:
                return False  # its own global: read when called (see below)
            return _hoisted_from_neighbour(small, alias, holder, hoisted, bound)
        module = _dotted(small.module)
        target = f"{module}.{name}"
    else:
        module = target = name
        if alias.asname is None and "." in name:
            return False  # `import a.b` binds `a`: left as it is
    if target == holder.module:  # the holder's own module: its names are globals there
        reads = _attributes_of(function_body, bound)
        attrs = {id(node.attr) for node in subtree(function_body)
                 if isinstance(node, cst.Attribute)}
        bare = {node.value for node in subtree(function_body)
                if isinstance(node, cst.Name) and id(node) not in attrs}
        if reads is not None and all(  # no local of that name either
                holder.bindings.get(attr) == f"{holder.module}.{attr}" and attr not in bare
                for attr in reads):
            renames.update({f"{bound}.{attr}": attr for attr in reads})
            return True
        return False
    if module == source and name in siblings and name not in patched:
        renames[bound] = f"{holder.name}.{siblings[name]}"
        return True
    if module == source:  # read from it when called, as before, where a replacement lands
        owner = sorted(key for key, value in holder.bindings.items()  # (click's tests patch
                       if value == module and key not in written)  # `_compat.isatty`)
        if owner and isinstance(small, cst.ImportFrom):
            renames[bound] = f"{owner[0]}.{name}"
            return True
        return False
    same = sorted(key for key, value in holder.bindings.items()
                  if value == target and (key == bound or key not in written))
    if bound in same:
        return True  # the holder's module binds it so already
    if isinstance(small, cst.ImportFrom):  # `utils.is_generator` where `utils` is bound
        owner = sorted(key for key, value in holder.bindings.items()
                       if value == module and key not in written)
        if owner:
            renames[bound] = f"{owner[0]}.{name}"
            return True
    if isinstance(small, cst.ImportFrom) and \
            _hoisted_from_neighbour(small, alias, holder, hoisted, bound, module):
        return True
    if not _outside(holder.index, module):
        return False  # read when called, as the repository's own imports were
    if same:
        renames[bound] = same[0]
        return True
    if bound in holder.bindings:
        return False  # the name means something else there
    hoisted.append(cst.Module([]).code_for_node(small.with_changes(
        names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)])).strip())
    holder.bindings[bound] = target
    return True


def _hoisted_from_neighbour(small: cst.ImportFrom, alias: cst.ImportAlias, holder: Holder,
                            hoisted: list[str], bound: str, module: str = "") -> bool:
    """Whether the import of `alias` moves to the top of the holder's module because that
    module already imports its module there, outside any cycle (`from .parser import
    split_arg_string` beside core.py's own `from .parser import OptionParser`): it can close no
    new cycle, and an import in the body would read as a dodged one. `module`: the module an
    absolute import names; a relative one is resolved from the holder's module."""
    index = holder.index
    module = module or _relative_module(small, holder) or ""
    if not module:
        return False
    target = f"{module}.{_dotted(alias.name)}"
    if holder.bindings.get(bound) == target:
        return True  # bound so at the top already
    graph = index.import_graph
    if module not in graph or not graph.has_edge(holder.module, module) \
            or not graph.edges[holder.module, module]["eager"] or bound in holder.bindings:
        return False
    eager = nx.subgraph_view(graph, filter_edge=lambda a, b: bool(graph.edges[a, b]["eager"]))
    if nx.has_path(eager, module, holder.module):
        return False
    hoisted.append(cst.Module([]).code_for_node(small.with_changes(
        names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)])).strip())
    holder.bindings[bound] = target
    return True


def _relative_module(small: cst.ImportFrom, holder: Holder) -> str | None:
    """The module a relative `from .x import y` in the holder's module names (None when it
    names none: `from . import x`, or too many dots)."""
    facts = holder.index.modules.get(holder.module)
    if facts is None or small.module is None:
        return None
    package = holder.module.split(".")[:None if facts.is_package else -1]
    depth = len(small.relative) - 1
    if depth >= len(package) and depth:
        return None
    return ".".join([*package[:len(package) - depth], _dotted(small.module)])


def _attributes_of(body: cst.CSTNode, name: str) -> set[str] | None:
    """The attributes read of `name` in `body` (`ma_fields.Inferred` -> Inferred), or None
    when `name` is also read otherwise (passed on, called)."""
    found: set[str] = set()
    through: set[int] = set()
    for node in subtree(body):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and node.value.value == name:
            found.add(node.attr.value)
            through.add(id(node.value))
    for node in subtree(body):
        if isinstance(node, cst.Name) and node.value == name and id(node) not in through \
                and not _in_import(body, node):
            return None
    return found


def _in_import(body: cst.CSTNode, target: cst.Name) -> bool:
    return any(isinstance(node, (cst.Import, cst.ImportFrom)) and any(
        inner is target for inner in subtree(node)) for node in subtree(body))
