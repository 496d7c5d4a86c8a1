"""The edit of the fields mode: readers' bodies become module-level functions of modules the
package already has.

SmellBench injects without creating files, and a reader tells a module made for the count (one
function, importing back the module that calls it) from one a person wrote. So a body goes
where a person would put such a helper: beside its class, in the class's own module, or into a
helper module the package keeps for shared functions (`utils.py`, `_utils.py`, `helpers.py`;
not `_compat`), only where every import that takes is at a module's top and closes no cycle.
The difficulty decides how far the group spreads (SmellBench's file spans, counted over the
files that change and those whose existing signatures already carry the group): easy 2 files,
medium 3 or more, hard 4 or more while one reader of the same fields stays as it is (a red
herring); the detector needs three signatures in two modules. A body that calls another moved
one (`fields.py`) moves with it into the same module; a private method that only moved bodies
called goes (`unused_after_move`). A difficulty no honest placement reaches is refused, naming
the modules it looked at. Lines longer than the repository's line length are wrapped by the
house style (`cst/restyle.py`), as every edit's are.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

import libcst as cst

from smellkit.config import is_test_path
from smellkit.errors import InjectionRefused
from smellkit.facts import Attr, Name
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.edit import replace
from smellkit.injectors.cst.imports import (
    insert_import,
    is_docstring,
    is_import_line,
    merged,
    without_unused,
)
from smellkit.injectors.data_clumps.body import (
    Extracted,
    class_noun,
    extract,
)
from smellkit.injectors.data_clumps.fields import Group, Reader
from smellkit.injectors.data_clumps.names import function_names, shape, source_of
from smellkit.injectors.data_clumps.plan import CONSTRUCTORS, outside_words
from smellkit.injectors.naming import pick, snake
from smellkit.models import SPANS, Difficulty

_MAX_LAYOUTS = 400


@dataclass(frozen=True)
class Spread:
    """The made edit: changed files, the new functions (qualnames) and the methods they serve."""

    changes: dict[str, str | None]
    functions: tuple[str, ...]
    methods: tuple[str, ...]
    modules: tuple[str, ...]


HELPER_STEMS = frozenset({"utils", "util", "helpers", "helper"})
"""Module names (a leading underscore aside) a package keeps functions shared by its modules in;
a compatibility shim (`_compat`) is no such place."""


def helper_modules(context: InjectionContext, readers: Sequence[Reader]) -> list[str]:
    """The package's existing helper modules (`HELPER_STEMS`) that every reader's module can
    import at its top: nearest package first, none that imports (directly or not) one of them,
    which the new import would turn into a cycle."""
    index = context.index
    first = index.modules[readers[0].module]
    package = first.module if first.is_package else first.module.rpartition(".")[0]
    found: list[str] = []
    while package:
        for name, facts in sorted(index.modules.items()):
            if name.rpartition(".")[0] == package and not facts.is_package and \
                    name.rpartition(".")[2].lstrip("_") in HELPER_STEMS and \
                    not is_test_path(facts.path) and \
                    not any(name == reader.module or reaches(context, name, reader.module)
                            for reader in readers):
                found.append(name)
        package = package.rpartition(".")[0]
    return found


def reaches(context: InjectionContext, source: str, target: str) -> bool:
    """Whether importing `source` runs `target` at load time (eager imports only)."""
    import networkx as nx

    graph = context.index.import_graph
    if source not in graph or target not in graph:
        return False
    eager = nx.subgraph_view(graph, filter_edge=lambda a, b: bool(graph.edges[a, b]["eager"]))
    return bool(nx.has_path(eager, source, target))


def layouts(context: InjectionContext, group: Group, difficulty: Difficulty,
            rng: random.Random) -> Iterator[tuple[list[Reader], str | None]]:
    """(the readers to move, the helper module taking their bodies or None for beside their
    classes), in order of preference: enough signatures in enough modules for the detector,
    spanning the difficulty's files; easy and medium move the fewest, hard the most while one
    reader stays. Raises `InjectionRefused`, naming the modules, when none does."""
    readers = list(group.readers)
    rng.shuffle(readers)
    index = context.index
    holder_paths = {holder.path for holder in group.holders}
    holder_modules = {holder.module for holder in group.holders}
    least, most = SPANS[difficulty]
    # two bodies at least: one function beside the constructor is a signature, not a clump;
    # one is enough where two functions already take the group (it then joins a chain of
    # real signatures: click's `shell_complete` and `_resolve_context`)
    calls = sum(not holder.is_class and holder.qualname.rpartition(".")[2] not in CONSTRUCTORS
                for holder in group.holders)
    sizes = list(range(1 if calls >= 2 else 2,
                       len(readers) + (0 if difficulty == "hard" else 1)))
    if difficulty != "easy":  # every body of the group where it reaches the span
        sizes.reverse()
    helpers: dict[frozenset[str], list[str]] = {}
    tried = 0
    for size in sizes:
        for chosen in combinations(readers, size):
            tried += 1
            if tried > _MAX_LAYOUTS:
                break
            names = {reader.qualname for reader in chosen}
            if any(not set(reader.calls) <= names for reader in chosen):
                continue  # a body that calls a helper moves only with the helper's
            if size + len(group.holders) < 3:
                continue
            sources = {reader.path for reader in chosen}
            modules = frozenset(reader.module for reader in chosen)
            if modules not in helpers:
                helpers[modules] = helper_modules(context, chosen)
            for helper in (None, *helpers[modules]):
                homes = {helper} if helper else set(modules)
                files = len(sources | holder_paths | (
                    {index.modules[helper].path} if helper else set()))
                if len(homes | holder_modules) < 2 or files < least or \
                        (most is not None and files > most):
                    continue
                yield sorted(chosen, key=_placed), helper
    hint = " while one reader stays" if difficulty == "hard" else ""
    looked = sorted({name for found in helpers.values() for name in found}) or \
        helper_modules(context, readers)
    raise InjectionRefused(
        f"no choice of the {len(readers)} methods reading ({', '.join(group.fields)}) spans "
        f"{'exactly' if most == least else 'at least'} {least} files with 3 signatures in 2 "
        f"modules{hint}, their functions beside their classes (in "
        f"{', '.join(sorted({reader.module for reader in readers}))}) or in a helper module "
        f"of the package ({', '.join(looked) or 'none it can import without a cycle'})")


def _placed(reader: Reader) -> tuple[str, str, int]:
    return reader.path, reader.cls, reader.line


def spread(context: InjectionContext, group: Group, moved: list[Reader], helper: str | None,
           rng: random.Random) -> Spread:
    """Move each chosen reader's body into a module-level function beside its class (`helper`
    None) or at the end of the existing module `helper`; its fields lead the new signature in
    the order of its class's constructor (`Length(min, max, equal, error)` gives `(min, max,
    equal, error, value, message)`), as a hand-written helper would take them."""
    index = context.index
    home = {reader.qualname: helper or reader.module for reader in moved}
    named: dict[str, tuple[str, Extracted]] = {}
    taken = {word for reader in moved for word in re.findall(
        r"\w+", source_of(context, reader))}
    for module in set(home.values()):
        taken.update(re.findall(r"\w+", context.source(index.modules[module].path)))
    shapes: dict[str, str] = {}
    """Per method name, the shape of the first function's name (`validate_{}`): the bodies of
    one method of several classes get names alike (`validate_any_of`, `validate_none_of`)."""
    for reader in _helpers_first(moved):
        helpers = {qualname.rpartition(".")[2]: (named[qualname][0], _fields_of(moved, qualname))
                   for qualname in reader.calls}
        item = extract(context, reader.path, reader.module, index.definitions[reader.qualname],
                       reader.fields, home[reader.qualname], helpers=helpers,
                       stored_calls=set(reader.stored_calls))
        if helper is None and (item.imports or item.type_checking):
            raise InjectionRefused(f"the body of {reader.qualname} would need an import beside "
                                   "its own class")  # a name its module binds otherwise
        if helper is not None:
            _refuse_cycles(context, item, reader, helper, moved)
        avoid = {*move.module_bindings(index, reader.module),
                 *move.module_bindings(index, home[reader.qualname]), *group.fields, *taken,
                 *(name for name, _ in named.values()), *move.names_in(item.function),
                 *(re.findall(r"\w+", " ".join(item.imports)))}
        method = reader.qualname.rpartition(".")[2]
        noun = snake(class_noun(reader.cls.rpartition(".")[2]))
        options = function_names(context, reader, rng)
        if method in options and method not in move.module_bindings(
                index, home[reader.qualname]):  # its only mention in the span is its `def`
            avoid.discard(method)
        if sum(other.qualname.rpartition(".")[2] == method for other in moved) > 1:
            # the bodies of one method of several classes each say whose they are
            options.sort(key=lambda option: shape(option, noun) == option)
        if method in shapes:
            options.sort(key=lambda option: shape(option, noun) != shapes[method])
        name = pick(options, avoid, what=f"the function holding the body of {reader.qualname}")
        shapes.setdefault(method, shape(name, noun))
        named[reader.qualname] = (name, item)
    dropped = unused_after_move(context, moved)
    trees: dict[str, cst.Module] = {}
    replacements: dict[str, dict[cst.CSTNode, cst.CSTNode]] = {}
    removed: dict[str, set[cst.FunctionDef]] = {}
    new_imports: dict[str, list[str]] = {}
    beside: dict[str, list[tuple[str, cst.FunctionDef]]] = {}
    for reader in moved:
        name, item = named[reader.qualname]
        tree = trees.setdefault(reader.path, context.module(reader.path))
        replacements.setdefault(reader.path, {})[item.method] = item.method \
            if reader.qualname in dropped else _delegating(tree, item, name, reader.fields)
        new_imports.setdefault(reader.path, [])
        if reader.qualname in dropped:
            removed.setdefault(reader.path, set()).add(item.method)
        elif helper is not None:
            new_imports[reader.path].append(_import_into(context, reader.module, helper, name))
        beside.setdefault(reader.path, []).append(
            (reader.cls.rpartition(".")[2], item.function.with_changes(name=cst.Name(name))))
    changes: dict[str, str | None] = {}
    for path, tree in trees.items():
        module_name = _module_of(context, path)
        new = replace(tree, replacements[path])
        if removed.get(path):
            new = new.visit(_Drop({id(node) for node in removed[path]}))
        if helper is None:
            new = _beside_classes(new, beside[path])
        for statement in merged(sorted(new_imports[path])):
            new = _insert_import(new, statement)
        changes[path] = without_unused(context, module_name, tree, new).code
    if helper is not None:
        changes[index.modules[helper].path] = _appended(
            context, helper, [item for part in beside.values() for _, item in part],
            [statement for _, item in named.values() for statement in item.imports])
    functions = tuple(f"{home[reader.qualname]}.{named[reader.qualname][0]}" for reader in moved)
    return Spread(changes, functions, tuple(reader.qualname for reader in moved),
                  tuple(sorted(set(home.values()))))


def _refuse_cycles(context: InjectionContext, item: Extracted, reader: Reader, helper: str,
                   moved: Sequence[Reader]) -> None:
    """Refuses a body the helper module could hold only with an import that closes a cycle
    once the readers' modules import it, one only type checkers read, or annotations evaluated
    there that its own module postponed."""
    modules = {other.module for other in moved}
    for statement in item.imports:
        source = statement.split()[1]
        if any(source == module or reaches(context, source, module) for module in modules):
            raise InjectionRefused(f"{helper} would import {source} for the body of "
                                   f"{reader.qualname}, which imports {helper} then: a cycle")
    if item.type_checking:
        raise InjectionRefused(f"the body of {reader.qualname} names types {helper} could "
                               "import only for type checking")
    if item.future and not move.has_future_annotations(
            context.module(context.index.modules[helper].path)):
        raise InjectionRefused(f"{helper} evaluates the annotations of {reader.qualname}'s "
                               "body, which its module postpones")


def _beside_classes(tree: cst.Module, functions: Sequence[tuple[str, cst.FunctionDef]]
                    ) -> cst.Module:
    """The module with each function right after the top-level class it served (in order):
    defined before any later statement of the module can call the method."""
    body: list[cst.BaseStatement] = []
    wanted = {cls for cls, _ in functions}
    for statement in tree.body:
        body.append(statement)
        if isinstance(statement, cst.ClassDef) and statement.name.value in wanted:
            wanted.discard(statement.name.value)
            body.extend(function.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * 2)
                        for cls, function in functions if cls == statement.name.value)
    if wanted:
        raise InjectionRefused(f"{', '.join(sorted(wanted))} is not defined at the top level "
                               "of its module: no place beside it for a function")
    return tree.with_changes(body=body)


def _appended(context: InjectionContext, helper: str, functions: Sequence[cst.FunctionDef],
              imports: Sequence[str]) -> str:
    """The helper module's text with the functions at its end and the imports they need at its
    top (relative where it imports its siblings so)."""
    tree = context.module(context.index.modules[helper].path)
    relative = _uses_relative(context, helper)
    new = tree.with_changes(body=[*tree.body, *(
        function.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * 2)
        for function in functions)])
    for statement in merged(sorted({_relative(helper, item) if relative else item
                                    for item in imports})):
        new = _insert_import(new, statement)
    return new.code


def unused_after_move(context: InjectionContext, moved: Sequence[Reader]) -> set[str]:
    """Private methods whose body moves and that only moved bodies called: the functions that
    took those bodies over call the new function instead, so the method would be left unused
    (and untested); it goes, as it would in a hand-made move. Any other call that may reach it,
    a read of it as a value or by a string, or a mention in tests or examples keeps it."""
    index = context.index
    graph = context.analysis.call_graph
    callers = {reader.qualname for reader in moved}
    helpers = {qualname for reader in moved for qualname in reader.calls}
    found: set[str] = set()
    for qualname in sorted(helpers & callers):
        name = qualname.rpartition(".")[2]
        if not name.startswith("_") or name.startswith("__") or outside_words(context)[name]:
            continue
        kept = False
        for facts in index.modules.values():
            if any(access.attr == name and not access.called for access in facts.accesses) or \
                    any(value == name for value, _ in facts.string_constants):
                kept = True
                break
            for call in facts.calls:
                func = call.func
                if not (isinstance(func, Attr) and func.attr == name) and \
                        not (isinstance(func, Name) and func.id == name):
                    continue
                if call.scope in callers and any(
                        qualname in reader.calls for reader in moved
                        if reader.qualname == call.scope):
                    continue
                reached = {callee for callee, data in graph.succ[call.scope].items()
                           if call.line in data.get("lines", ())
                           and callee.rpartition(".")[2] == name} \
                    if graph.has_node(call.scope) else set()
                if not reached or qualname in reached:
                    kept = True
                    break
            if kept:
                break
        if not kept:
            found.add(qualname)
    return found


class _Drop(cst.CSTTransformer):
    """Remove the methods given by node identity."""

    def __init__(self, nodes: set[int]):
        super().__init__()
        self.nodes = nodes

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
                          ) -> cst.FunctionDef | cst.RemovalSentinel:
        return cst.RemovalSentinel.REMOVE if id(original_node) in self.nodes else updated_node


def _helpers_first(readers: Sequence[Reader]) -> list[Reader]:
    """The readers ordered so that each comes after the helpers it calls."""
    ordered: list[Reader] = []
    left = list(readers)
    while left:
        done = {reader.qualname for reader in ordered}
        ready = [reader for reader in left if set(reader.calls) <= done]
        if not ready:
            raise InjectionRefused("the moved methods call each other in a cycle")
        ordered.extend(ready)
        left = [reader for reader in left if reader not in ready]
    return ordered


def _fields_of(readers: Sequence[Reader], qualname: str) -> tuple[str, ...]:
    return next(reader.fields for reader in readers if reader.qualname == qualname)


def _insert_import(tree: cst.Module, statement: str) -> cst.Module:
    """`insert_import`, set apart by a blank line from imports of other top-level packages
    (the standard library's above the repository's own, as isort groups them)."""
    new = insert_import(tree, statement)
    for inserted, after in zip(new.body, new.body[1:]):
        if isinstance(inserted, cst.SimpleStatementLine) and \
                cst.Module(body=[]).code_for_node(inserted).strip() == statement:
            if not is_import_line(after) and not after.leading_lines and \
                    isinstance(after, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                blank = 2 if isinstance(after, (cst.ClassDef, cst.FunctionDef)) else 1
                new = replace(new, {after: after.with_changes(
                    leading_lines=[cst.EmptyLine(indent=False)] * blank)})
            break
    top = _top_package(statement)
    for before, after in zip(new.body, new.body[1:]):
        if isinstance(after, cst.SimpleStatementLine) and \
                cst.Module(body=[]).code_for_node(after).strip() == statement:
            code = cst.Module(body=[]).code_for_node(before).strip()
            if is_import_line(before) and _top_package(code) != top and \
                    not after.leading_lines:
                return replace(new, {after: after.with_changes(
                    leading_lines=[cst.EmptyLine(indent=False)])})
            break
    return new


def _top_package(statement: str) -> str:
    """The top-level package an import names (`.` for a relative one)."""
    match = re.match(r"(?:from|import)\s+(\.|[\w]+)", statement)
    return match.group(1) if match else ""


def _module_of(context: InjectionContext, path: str) -> str:
    for module, facts in context.index.modules.items():
        if facts.path == path:
            return module
    raise InjectionRefused(f"{path} is not a module of the repository")


def _call_text(self_name: str, fields: Sequence[str], function: cst.FunctionDef,
               dropped: Sequence[str] = ()) -> list[str]:
    """The arguments of the delegating call: the fields, then the method's own parameters (but
    those the function does without)."""
    params = function.params
    args = [f"{self_name}.{field}" for field in fields]
    args.extend(param.name.value for param in params.params[1:]
                if param.name.value not in dropped)
    if isinstance(params.star_arg, cst.Param):
        args.append(f"*{params.star_arg.name.value}")
    args.extend(f"{param.name.value}={param.name.value}" for param in params.kwonly_params)
    if params.star_kwarg is not None:
        args.append(f"**{params.star_kwarg.name.value}")
    return args


def returns_value(function: cst.FunctionDef) -> bool:
    """Whether the function's own body returns a value or yields (nested scopes aside): its
    delegating call must then hand the result back."""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Yield, cst.Await)) or (
                isinstance(node, cst.Return) and node.value is not None):
            return True
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(node.children)
    return False


def _delegating(tree: cst.Module, item: Extracted, name: str,
                fields: Sequence[str]) -> cst.FunctionDef:
    """The method with its body replaced by `return name(self.a, self.b, ..., own args)` (a
    plain call where the body returns nothing), its docstring kept."""
    method = item.method
    assert isinstance(method.body, cst.IndentedBlock)
    self_name = method.params.params[0].name.value
    args = _call_text(self_name, fields, method, item.dropped)
    keyword = "return " if returns_value(method) else ""
    text = f"{keyword}{name}({', '.join(args)})"
    statement = cst.parse_statement(text, config=tree.config_for_parsing)
    body = list(method.body.body)
    kept = [body[0]] if body and is_docstring(body[0]) else []
    return method.with_changes(body=method.body.with_changes(body=[*kept, statement]))


def _import_into(context: InjectionContext, importer: str, module: str, name: str) -> str:
    """The import of the new function in the module it came from, relative when that module
    imports its siblings relatively."""
    facts = context.index.modules[importer]
    if _uses_relative(context, importer):
        return move.relative_import(importer, module, name) if not facts.is_package \
            else f"from .{module.rpartition('.')[2]} import {name}"
    return f"from {module} import {name}"


def _uses_relative(context: InjectionContext, module: str) -> bool:
    """Whether a module imports from its own package relatively (`from .x import y`)."""
    path = context.index.modules[module].path
    return re.search(r"^\s*from \.", context.source(path), re.MULTILINE) is not None


def _relative(module: str, statement: str) -> str:
    """`from pkg.sibling import x` as `from .sibling import x` for a module of package `pkg`."""
    package = module.rpartition(".")[0]
    match = re.match(r"from ([\w.]+) import (.+)$", statement)
    if not package or match is None:
        return statement
    source, names = match.groups()
    if source.startswith(f"{package}.") and "." not in source[len(package) + 1:]:
        return f"from .{source[len(package) + 1:]} import {names}"
    return statement
