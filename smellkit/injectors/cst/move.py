"""Moving a method's code into another class and module without changing what it does.

Shared by the feature envy injector (a method leaves the class whose data it uses) and the god
class injector (a collaborator's methods join the class holding it). Moving code is safe only when
every name it reads means the same thing at its new home, so this module finds the names a method
reads from its module's globals (they are imported at the top of the moved body, from the module
they came from, which then is already loaded) and refuses what cannot move as text: decorators,
`super()`, `__class__`, name-mangled attributes, nested classes, `global`/`nonlocal`, a rebound
`self`, and names read at definition time (defaults, annotations) that the new module lacks.
"""

from __future__ import annotations

import functools
import importlib
import keyword
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

import libcst as cst
from libcst.metadata import (
    BuiltinScope,
    ClassScope,
    GlobalScope,
    MetadataWrapper,
    Scope,
    ScopeProvider,
)

from smellkit.errors import InjectionRefused
from smellkit.facts import Name
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.graphs.index import Index
from smellkit.injectors.cst.edit import subtree
from smellkit.injectors.cst.imports import is_docstring


@dataclass(frozen=True)
class Moved:
    """A method's definition rewritten for its new home, and what it needs there."""

    function: cst.FunctionDef
    imports: tuple[str, ...]
    """Import statements the destination module needs at its top (names read by the `def`)."""
    type_checking: tuple[str, ...] = ()
    """Imports of names read only by postponed annotations that the destination cannot import
    at its top without an import cycle: for an `if TYPE_CHECKING:` block (`hoist` only)."""


def find_class(module: cst.Module, name: str) -> cst.ClassDef | None:
    """A class defined at the top level of a module."""
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == name:
            return statement
    return None


def find_method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement
    return None


def has_future_annotations(module: cst.Module) -> bool:
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) \
                        and small.module.value == "__future__" \
                        and not isinstance(small.names, cst.ImportStar) \
                        and any(alias.name.value == "annotations" for alias in small.names
                                if isinstance(alias.name, cst.Name)):
                    return True
    return False


def annotation_nodes(function: cst.FunctionDef) -> set[int]:
    found: set[int] = set()
    for node in subtree(function):
        if isinstance(node, cst.Annotation):
            found.update(id(item) for item in subtree(node))
    return found


def _type_checking_names(module: cst.Module) -> set[str]:
    """Names bound at the top level only under `if TYPE_CHECKING:` (imports and aliases such
    as `SchemaType = type[Schema]`): absent when the code runs."""
    found: set[str] = set()
    for statement in module.body:
        if isinstance(statement, cst.If) and "TYPE_CHECKING" in cst.Module(
                body=[]).code_for_node(statement.test):
            for node in subtree(statement.body):
                if isinstance(node, (cst.AssignTarget, cst.AnnAssign)) \
                        and isinstance(node.target, cst.Name):
                    found.add(node.target.value)
                elif isinstance(node, (cst.ClassDef, cst.FunctionDef)):
                    found.add(node.name.value)
    return found


def _annotation_globals(function: cst.FunctionDef, bound: Mapping[str, str]) -> set[str]:
    """Module-level names (of `bound`) that the function's annotations name directly (not as
    the attribute part of a dotted name)."""
    inside = annotation_nodes(function)
    attributes = {id(node.attr) for node in subtree(function) if isinstance(node, cst.Attribute)}
    return {node.value for node in subtree(function) if isinstance(node, cst.Name)
            and id(node) in inside and id(node) not in attributes and node.value in bound}


def definition_time_nodes(function: cst.FunctionDef) -> set[int]:
    """Nodes evaluated when the `def` runs: defaults and annotations of its own parameters."""
    found: set[int] = set()
    params = function.params
    for param in [*params.posonly_params, *params.params, *params.kwonly_params,
                  *(item for item in (params.star_arg, params.star_kwarg)
                    if isinstance(item, cst.Param))]:
        for part in (param.default, param.annotation):
            if part is not None:
                found.update(id(item) for item in subtree(part))
    if function.returns is not None:
        found.update(id(item) for item in subtree(function.returns))
    return found


def require_movable(function: cst.FunctionDef, *, static: bool = False) -> None:
    """Refused when this method's text (`static`: this function's, as a static method) cannot
    move to another class."""
    name = function.name.value
    if function.decorators:
        raise InjectionRefused(f"{name} is decorated")
    if function.asynchronous is not None:
        raise InjectionRefused(f"{name} is a coroutine")
    params = function.params
    if not static and (not params.params or params.posonly_params):
        raise InjectionRefused(f"{name} has no plain `self` parameter")
    self_name = params.params[0].name.value if not static else None
    for node in subtree(function.body):
        if isinstance(node, cst.Name) and node.value in ("super", "__class__"):
            raise InjectionRefused(f"{name} uses {node.value}")
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            raise InjectionRefused(f"{name} declares global or nonlocal names")
        if isinstance(node, cst.ClassDef):
            raise InjectionRefused(f"{name} defines a class")
        if isinstance(node, cst.Name) and node.value.startswith("__") \
                and not node.value.endswith("__"):
            raise InjectionRefused(f"{name} uses the name-mangled {node.value}")
        if isinstance(node, cst.Param) and node.name.value == self_name:
            raise InjectionRefused(f"{name} has a nested function whose parameter shadows "
                                   f"{self_name}")


def _function_scope(scopes: Mapping[cst.CSTNode, Scope | None],
                    function: cst.FunctionDef) -> Scope | None:
    first = function.body.body[0] if function.body.body else None
    return scopes.get(first) if first is not None else None


def _scopes_within(scopes: Mapping[cst.CSTNode, Scope | None], nodes: set[int],
                   function: cst.FunctionDef) -> list[Scope]:
    """The scopes whose accesses may come from inside the function (its own, nested, around)."""
    found: dict[int, Scope] = {}
    for node in subtree(function):
        scope = scopes.get(node)
        if scope is not None:
            found.setdefault(id(scope), scope)
    return list(found.values())


def analyse(module: cst.Module, function: cst.FunctionDef, *, postponed: bool,
            wrapper: MetadataWrapper | None = None, static: bool = False
            ) -> tuple[set[int], set[str], set[str], set[str]]:
    """(ids of the Name nodes that read `self`, globals read in the body, globals read when the
    `def` runs, builtins read) of a method of `module` (its node, from that very tree; `wrapper`
    wraps that tree when the caller keeps one). `static`: a function with no `self`.

    `postponed`: annotations are not evaluated where the code goes (`from __future__ import
    annotations` both there and here), so names read only by annotations are not needed."""
    wrapper = wrapper or MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider)
    inside = {id(node) for node in subtree(function)}
    all_annotations = annotation_nodes(function)
    annotations = all_annotations if postponed else set()
    definition_time = definition_time_nodes(function)
    own = _function_scope(scopes, function)
    self_name = function.params.params[0].name.value if not static else None
    self_reads: set[int] = set()
    body_globals: set[str] = set()
    def_globals: set[str] = set()
    builtins: set[str] = set()
    for scope in _scopes_within(scopes, inside, function):
        for access in scope.accesses:
            node = access.node
            if id(node) not in inside or id(node) in annotations:
                continue
            if not isinstance(node, cst.Name):
                if id(node) in all_annotations:
                    continue  # a name inside a string annotation: never evaluated
                raise InjectionRefused(f"{function.name.value} reads a name through a string")
            referents = access.referents
            if own is not None and self_name is not None and node.value == self_name \
                    and any(item.scope is own and item.name == self_name for item in referents):
                self_reads.add(id(node))
                continue
            kinds = {type(item.scope) for item in referents}
            if GlobalScope in kinds:
                (def_globals if id(node) in definition_time else body_globals).add(node.value)
            elif BuiltinScope in kinds or not referents:
                builtins.add(node.value)
            elif ClassScope in kinds and id(node) in definition_time:
                raise InjectionRefused(f"{function.name.value} reads its class's {node.value} when "
                                       "defined")
    return self_reads, body_globals, def_globals, builtins


class _SelfReplacer(cst.CSTTransformer):
    def __init__(self, reads: set[int], replacement: cst.BaseExpression):
        self.reads = reads
        self.replacement = replacement

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name
                   ) -> cst.BaseExpression:
        return self.replacement.deep_clone() if id(original_node) in self.reads else updated_node


def module_bindings(index: Index, module: str) -> dict[str, str]:
    """Names bound at the top level of a module: definitions (by qualname), imports (by target)
    and assigned names (by `module.name`)."""
    bound = {name: qualname for name, qualname in index.children.get(module, {}).items()}
    bound.update(index.scope_imports.get(module, {}))
    facts = index.modules.get(module)
    if facts is not None:
        for assignment in facts.assignments:
            target = assignment.target
            if assignment.scope == module and isinstance(target, Name):
                bound.setdefault(target.id, f"{module}.{target.id}")
    return bound


def reexported(index: Index, module: str, sources: Iterable[str] = ()) -> set[str]:
    """Names other modules import from `module`, that it exports, or that code in `sources`
    reads as an attribute of it (`utils.should_strip_ansi`, monkeypatched by a test helper):
    its imports of them stay even when its own code no longer reads them."""
    found = set(index.modules[module].dunder_all or ()) if module in index.modules else set()
    stem = re.escape(module.rpartition(".")[2])
    for text in sources:
        found.update(re.findall(rf"(?<![\w.]){stem}\.([A-Za-z_]\w*)", text))
    for facts in index.modules.values():
        for item in facts.imports:
            parent, _, name = item.target.rpartition(".")
            if parent == module:
                found.add(name)
    return found


def replaced(module: str, sources: Iterable[str]) -> frozenset[str]:
    """Names of `module` (or of a class, by its qualname) that code replaces: assigned as its
    attributes (a statement `utils.now = ...` or `click.utils.now = ...`), set with
    `setattr(utils, "now", ...)` (a test's `monkeypatch.setattr(click.utils, "now", ...)`,
    `mock.patch.object`) or patched by dotted name (`patch("pkg.utils.now")`,
    `monkeypatch.setattr("pkg.utils.now", ...)`). Code that reads such a name elsewhere than
    from `module` misses the replacement."""
    stem = re.escape(module.rpartition(".")[2])
    patterns = (rf"(?m)^[ \t]*(?:\w+\.)*{stem}\.(\w+)\s*=(?!=)",  # not `x: m.T = ...`
                rf"(?:setattr|patch\.object)\(\s*(?:\w+\.)*{stem}\s*,\s*['\"](\w+)",
                rf"(?:setattr|patch)\(\s*['\"]{re.escape(module)}\.(\w+)['\"]")
    return frozenset(name for text in sources for pattern in patterns
                     for name in re.findall(pattern, text))


def _import_of(index: Index, source: str, name: str) -> str:
    """A statement binding `name` as module `source` binds it at its top level: its own import
    repeated, or an import of the name from `source` itself (already loaded by then)."""
    facts = index.modules.get(source)
    for item in (facts.imports if facts else ()):
        if item.scope == source and item.bound == name and not item.type_only:
            if item.is_from:
                module, _, member = item.target.rpartition(".")
                alias = f" as {name}" if member != name else ""
                return f"from {module} import {member}{alias}"
            alias = f" as {name}" if item.target.partition(".")[0] != name else ""
            return f"import {item.target if alias else name}{alias}"
    return f"from {source} import {name}"


def _safe_at_top(index: Index, statement: str, importer: str | None) -> bool:
    """An import at the top of `importer` (the module that will hold the moved code, or that
    imports the new module holding it) cannot close an import cycle: it names a module outside
    the repository, or one that does not import `importer`, directly or not."""
    import networkx as nx

    words = statement.split()
    module = words[1]
    if words[0] == "from" and len(words) == 4 and f"{module}.{words[3]}" in index.modules:
        module = f"{module}.{words[3]}"  # `from pkg import submodule` runs the submodule
    inside = [name for name in index.modules
              if module == name or module.startswith(f"{name}.") or name.startswith(f"{module}.")]
    if not inside:
        return True
    graph = index.import_graph
    eager = nx.subgraph_view(graph, filter_edge=lambda a, b: bool(graph.edges[a, b]["eager"]))
    return importer is not None and importer in graph and module in graph \
        and not nx.has_path(eager, module, importer)


def move_method(index: Index, source: str, module: cst.Module, function: cst.FunctionDef,
                destination: str | None, *, replacement: cst.BaseExpression,
                postponed: bool, preamble: Sequence[cst.BaseStatement] = (),
                importer: str | None = None, wrapper: MetadataWrapper | None = None,
                static: bool = False, patched: frozenset[str] = frozenset(),
                hoist: bool = False, quote_checked: bool = False) -> Moved:
    """`function` of module `source`, rewritten to run in another class of module `destination`
    (None: a new module with nothing bound yet, imported by module `importer`): every read of
    its `self` becomes `replacement`, and `preamble` statements open the body. Globals the body
    reads are imported at the top of the body; those read when the `def` runs are imported at
    the top of the destination (`Moved.imports`) when that cannot close an import cycle.
    `wrapper`: a kept metadata wrapper of `module`; `static`: `function` is a module-level
    function that becomes a static method, and the globals its body reads that its module
    defines, or that code replaces as attributes of its module (`patched`, as test helpers
    do), are read from its module when it runs; what the module merely imports is imported
    alike (so the module is not left with imports only the moved code used). `hoist`: the
    globals the body reads are imported at the top of the destination too, as a module-level
    function's are, except where that import could close an import cycle: those stay at the
    top of the body (read when called, once every module is loaded), and names only postponed
    annotations read go to `Moved.type_checking`. `quote_checked`: a name only the `def`'s
    annotations read, which the destination binds for type checkers only or cannot import
    without a cycle, is quoted in them (imported under `if TYPE_CHECKING:` there,
    `Moved.type_checking`, unless the destination binds it so already). Raises
    `InjectionRefused`."""
    require_movable(function, static=static)
    self_reads, body_globals, def_globals, builtins = analyse(
        module, function, postponed=postponed, wrapper=wrapper, static=static)
    here = module_bindings(index, source)
    there = module_bindings(index, destination) if destination else {}
    facts = index.modules.get(source)
    type_only = {item.bound for item in facts.imports if item.type_only} if facts else set()
    type_only |= _type_checking_names(module)
    for name in sorted(builtins):
        if name in there:
            raise InjectionRefused(f"the builtin {name} is rebound in {destination}")
    there_type_only = {item.bound for item in index.modules[destination].imports
                       if item.type_only} if destination in index.modules else set()
    top: list[str] = []
    checking: list[str] = []
    quoted: set[str] = set()
    in_annotations = _annotation_globals(function, here)
    in_defaults = _default_names(function)
    for name in sorted(def_globals):
        if quote_checked and name in in_annotations and name not in in_defaults \
                and name not in there and (name in there_type_only or not _safe_at_top(
                    index, _import_of(index, source, name), destination or importer)):
            checking.append(_import_of(index, source, name))
            quoted.add(name)
            continue
        if quote_checked and name in there_type_only and name in in_annotations \
                and name not in in_defaults:
            quoted.add(name)  # bound for type checkers there already
            continue
        if name in there_type_only:
            raise InjectionRefused(f"{function.name.value} reads {name} when defined, which "
                                   f"{destination} imports only for type checking")
        if name in there and there.get(name) == here.get(name):
            continue
        statement = _import_of(index, source, name)
        if hoist and name in in_annotations and name not in in_defaults \
                and name not in there and name not in type_only \
                and not _safe_at_top(index, statement, destination or importer):
            checking.append(statement)  # the annotation is quoted: read by type checkers only
            quoted.add(name)
            continue
        if name in type_only or name in there or not _safe_at_top(
                index, statement, destination or importer):
            raise InjectionRefused(f"{function.name.value} reads {name} when defined, and "
                                   f"{destination or 'a new module'} does not bind it the same way")
        top.append(statement)
    if postponed:  # never evaluated, yet type checkers and linters read them: bound alike
        for name in sorted(_annotation_globals(function, here) - def_globals):
            if name in there and there.get(name) == here.get(name):
                continue
            statement = _import_of(index, source, name)
            if hoist and name not in there and not _safe_at_top(
                    index, statement, destination or importer):
                checking.append(statement)
                continue
            if name in type_only or name in there or not _safe_at_top(
                    index, statement, destination or importer):
                raise InjectionRefused(f"{function.name.value} names {name} in an annotation, "
                                       f"which {destination or 'a new module'} cannot import "
                                       "the same way")
            top.append(statement)
    needed = []
    for name in sorted(body_globals):
        if name in type_only:
            raise InjectionRefused(f"{function.name.value} reads {name}, imported only for type "
                                   "checking")
        if hoist:
            checked_there = name in there_type_only  # absent there at run time
            if name in there and there.get(name) == here.get(name) and not checked_there:
                continue
            statement = _import_of(index, source, name)
            if name in there and not checked_there:
                raise InjectionRefused(f"{function.name.value} reads {name}, which "
                                       f"{destination} binds otherwise")
            if _safe_at_top(index, statement, destination or importer):
                top.append(statement)
            else:
                needed.append(statement)
            continue
        if static and (name in patched or name in index.children.get(source, {})
                       or name not in here or here[name] == f"{source}.{name}"):
            # read from the function's module when called, as its global was
            needed.append(f"from {source} import {name}")
        elif name not in there or there.get(name) != here.get(name, f"{source}.{name}") \
                or name in there_type_only:  # bound there for type checkers only
            needed.append(_import_of(index, source, name))
    rewritten = function.visit(_SelfReplacer(self_reads, replacement))
    assert isinstance(rewritten, cst.FunctionDef)
    rewritten = _quoted_annotations(index, source, rewritten, destination, here, there)
    if quoted:
        rewritten = _quote_annotations(rewritten, quoted)
    header: list[cst.BaseStatement] = [cst.parse_statement(item) for item in needed]
    header.extend(preamble)
    if header:
        body = list(rewritten.body.body)
        at = 1 if body and is_docstring(body[0]) else 0
        assert isinstance(rewritten.body, cst.IndentedBlock)
        rewritten = rewritten.with_changes(body=rewritten.body.with_changes(
            body=[*body[:at], *header, *body[at:]]))
    return Moved(rewritten, tuple(dict.fromkeys(top)), tuple(dict.fromkeys(checking)))


def _default_names(function: cst.FunctionDef) -> set[str]:
    """Names the defaults of the function's own parameters read."""
    params = function.params
    return {node.value for param in [*params.posonly_params, *params.params,
                                     *params.kwonly_params] if param.default is not None
            for node in subtree(param.default) if isinstance(node, cst.Name)}


def _quote_annotations(function: cst.FunctionDef, names: set[str]) -> cst.FunctionDef:
    """The function with its own annotations that name any of `names` written as strings
    (`bucket: "Bucket"`), so that the names are read by type checkers only."""
    empty = cst.Module(body=[])

    def quote(annotation: cst.Annotation | None) -> cst.Annotation | None:
        if annotation is None or not any(isinstance(node, cst.Name) and node.value in names
                                         for node in subtree(annotation)):
            return annotation
        text = empty.code_for_node(annotation.annotation)
        quote_mark = "'" if '"' in text else '"'
        if quote_mark in text or "\n" in text:
            raise InjectionRefused(f"{function.name.value} has an annotation that cannot be "
                                   "quoted")
        return annotation.with_changes(annotation=cst.SimpleString(
            f"{quote_mark}{text}{quote_mark}"))

    params = function.params

    def quoted(items: Sequence[cst.Param]) -> list[cst.Param]:
        return [item.with_changes(annotation=quote(item.annotation)) for item in items]

    star_arg = params.star_arg
    if isinstance(star_arg, cst.Param):
        star_arg = star_arg.with_changes(annotation=quote(star_arg.annotation))
    star_kwarg = params.star_kwarg
    if star_kwarg is not None:
        star_kwarg = star_kwarg.with_changes(annotation=quote(star_kwarg.annotation))
    return function.with_changes(
        params=params.with_changes(posonly_params=quoted(params.posonly_params),
                                   params=quoted(params.params),
                                   kwonly_params=quoted(params.kwonly_params),
                                   star_arg=star_arg, star_kwarg=star_kwarg),
        returns=quote(function.returns))


_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def _quoted_annotations(index: Index, source: str, function: cst.FunctionDef,
                        destination: str | None, here: dict[str, str],
                        there: dict[str, str]) -> cst.FunctionDef:
    """The function with the names in its quoted annotations (`obj: "CoreOption"`) bound in
    the destination: kept when it binds them alike, renamed to the destination's own name for
    the same definition (`"Option"`), else refused, since an undefined name in an annotation
    breaks type checkers and `typing.get_type_hints`. Nested functions' quoted annotations
    too: linters read them alike."""
    facts = index.modules.get(source)
    targets = dict(here)
    for item in facts.imports if facts else ():
        if item.scope == source:
            targets.setdefault(item.bound, item.target)
    by_target = {target: name for name, target in sorted(there.items(), reverse=True)}

    def rename(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(0)
            target = targets.get(name)
            if name in BUILTIN_NAMES or keyword.iskeyword(name) or (
                    name in there and (target is None or there[name] == target)):
                return name
            if target is not None and destination is not None and target in by_target:
                return by_target[target]
            raise InjectionRefused(f"{function.name.value} names {name} in a quoted "
                                   f"annotation, which {destination or 'a new module'} "
                                   "does not bind")
        return _IDENTIFIER.sub(one, text)

    class Quoted(cst.CSTTransformer):
        def __init__(self) -> None:
            super().__init__()
            self.depth = 0

        def visit_Annotation(self, node: cst.Annotation) -> bool:
            self.depth += 1
            return True

        def leave_Annotation(self, original_node: cst.Annotation,
                             updated_node: cst.Annotation) -> cst.Annotation:
            self.depth -= 1
            return updated_node

        def leave_SimpleString(self, original_node: cst.SimpleString,
                               updated_node: cst.SimpleString) -> cst.SimpleString:
            if not self.depth or updated_node.prefix != "":
                return updated_node
            quote = updated_node.quote
            inner = updated_node.value[len(quote):-len(quote)]
            renamed = rename(inner)
            return updated_node if renamed == inner else \
                updated_node.with_changes(value=f"{quote}{renamed}{quote}")

    result = function.visit(Quoted())
    assert isinstance(result, cst.FunctionDef)
    return result


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier written in a node (to pick a fresh local name)."""
    return {item.value for item in subtree(node) if isinstance(item, cst.Name)}


def as_method_of_class(function: cst.FunctionDef, name: str) -> cst.FunctionDef:
    """The definition renamed, with one blank line above it and no comments carried along."""
    return function.with_changes(name=cst.Name(name), leading_lines=[cst.EmptyLine(indent=False)])


def append_to_class(cls: cst.ClassDef, members: Sequence[cst.BaseStatement]) -> cst.ClassDef:
    body = cls.body
    if not isinstance(body, cst.IndentedBlock):
        raise InjectionRefused(f"class {cls.name.value} is written on one line")
    return cls.with_changes(body=body.with_changes(body=[*body.body, *members]))


def replace_node(module: cst.Module, old: cst.CSTNode,
                 new: cst.CSTNode | cst.RemovalSentinel) -> cst.Module:
    """The module with one node (by identity) replaced or removed, the rest untouched. Only the
    top-level statement holding the node is visited (a whole big module costs seconds)."""
    body: list[cst.CSTNode] = list(module.body)
    holder = next((statement for statement in module.body if _holds(statement, old)), None) \
        or next((statement for statement in module.body
                 if any(node is old for node in subtree(statement))), None)
    for position, statement in enumerate(body):
        if statement is holder:
            replaced = new if statement is old else statement.visit(_Replace(old, new))
            if isinstance(replaced, cst.RemovalSentinel):
                return module.with_changes(body=[*body[:position], *body[position + 1:]])
            assert isinstance(replaced, cst.CSTNode)
            body[position] = replaced
            return module.with_changes(body=body)
    result = module.visit(_Replace(old, new))
    assert isinstance(result, cst.Module)
    return result


def _holds(statement: cst.CSTNode, node: cst.CSTNode) -> bool:
    """The statement is the node or a class whose body lists it (the common cases, found
    without walking a whole class: libcst's `children` is slow)."""
    if statement is node:
        return True
    return isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock) \
        and any(member is node for member in statement.body.body)


NodeT = TypeVar("NodeT", bound=cst.CSTNode)


class _Replace(cst.CSTTransformer):
    def __init__(self, old: cst.CSTNode, new: cst.CSTNode | cst.RemovalSentinel):
        self.old, self.new = old, new

    def on_leave(self, original_node: NodeT, updated_node: NodeT
                 ) -> NodeT | cst.RemovalSentinel | cst.FlattenSentinel[NodeT]:
        if original_node is self.old:
            return cast(NodeT, self.new)
        return updated_node


def add_base(cls: cst.ClassDef, name: str) -> cst.ClassDef:
    """The class with one more base, last among the bases (a trailing comma is kept); an
    explicit `object` base gives way to it (`object` before another base has no valid MRO)."""
    bases = list(cls.bases)
    new = cst.Arg(cst.Name(name))
    for at, base in enumerate(bases):
        if isinstance(base.value, cst.Name) and base.value.value == "object" \
                and base.keyword is None:
            bases[at] = base.with_changes(value=cst.Name(name))
            return cls.with_changes(bases=bases)
    if bases and isinstance(bases[-1].comma, cst.Comma):
        new = new.with_changes(comma=bases[-1].comma)
        bases[-1] = bases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cls.with_changes(bases=[*bases, new])


def relative_import(module: str, target: str, name: str) -> str:
    """`from .x import N` when `target` is a sibling of `module`, else an absolute import."""
    package, _, _ = module.rpartition(".")
    parent, _, stem = target.rpartition(".")
    if package and parent == package:
        return f"from .{stem} import {name}"
    return f"from {target} import {name}"


def top_level(index: Index, qualname: str) -> tuple[str, str] | None:
    """(module, name) of a class or function defined at the top level of its module."""
    definition = index.definitions.get(qualname)
    if definition is None or definition.parent not in index.modules:
        return None
    return definition.parent, definition.name


SAFE_EXTERNAL_BASES = frozenset({
    "object", "builtins.object", "<builtin>.object", "typing.Generic", "abc.ABC",
    "typing_extensions.Generic",
})
"""Bases from outside the repository that define no method a moved one could collide with."""


def unsafe_base(index: Index, cls: str) -> str | None:
    """An outside base somewhere in the class's ancestry whose members are unknown, or None."""
    for ancestor in index.mro(cls):
        if ancestor in index.classes:
            for base in index.bases(ancestor):
                if base not in index.classes and base not in SAFE_EXTERNAL_BASES \
                        and standard_members(base) is None:
                    return base
    return None


_SIDE_EFFECTS_ON_IMPORT = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle",
                                     "turtledemo", "__main__"})


@functools.cache
def standard_members(base: str) -> frozenset[str] | None:
    """The names a class of the builtins or the standard library answers (`dir`), read from
    this interpreter; None for any other base. Another Python's version of the class may differ
    by a rare new member, so a moved name is checked against these and the repository's own."""
    module, _, name = base.rpartition(".")
    if module == "<builtin>":
        module = "builtins"
    top = module.partition(".")[0]
    if not name or top in _SIDE_EFFECTS_ON_IMPORT or \
            (top != "builtins" and top not in sys.stdlib_module_names):
        return None
    try:
        found = getattr(importlib.import_module(module), name)
    except Exception:  # an absent or platform-only module: unknown, as any outside base
        return None
    return frozenset(dir(found)) if isinstance(found, type) else None


def members(index: Index, cls: str) -> set[str]:
    """Names defined or assigned by the class, its ancestors and its descendants."""
    found: set[str] = set()
    for related in [*index.mro(cls), *index.descendants(cls)]:
        found.update(index.children.get(related, {}))
        for base in index.bases(related):
            found.update(standard_members(base) or ())
        info = index.classes.get(related)
        if info is not None:
            found.update(attribute.name for attribute in info.attributes)
    return found
