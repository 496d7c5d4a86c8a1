"""The edit of the fields mode: readers' bodies become functions of new modules of the package.

The difficulty decides how far the group spreads (SmellBench's file spans): easy moves bodies
out of one module into one new module beside it, where the group already has a signature in the
source module (a constructor) so that three signatures in two modules carry it; medium spreads
over three or more files (two new modules, or readers of two modules); hard over four or more,
and leaves one reader of the same fields as it is (a red herring). A body that calls another
moved one (`fields.py`) moves with it, possibly to another new module, which it then imports;
a private method that only moved bodies called goes (`unused_after_move`). Medium and hard give
each class's bodies a module of their own first (`validate_range` with `format_range_error`);
one class's bodies go to two new modules only where one calls the other (`forwarding`): the
group then travels down a chain, where two unrelated functions in two modules would only pad
the span. A single moved body is enough where two functions already take the group (it joins
their chain). The new
modules hold code alone (no docstring the repository's authors did not write); their lines
longer than the repository's line length are wrapped by the house style (`cst/restyle.py`), as
every edit's are.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import libcst as cst

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
from smellkit.injectors.data_clumps.names import function_names, module_stems, shape, source_of
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


def layout(group: Group, difficulty: Difficulty,
           rng: random.Random) -> tuple[list[Reader], int]:
    """(the readers to move, how many new modules take them): enough signatures in enough
    modules for the detector, spanning the difficulty's files; easy and medium move the fewest,
    hard the most while one reader stays."""
    readers = list(group.readers)
    rng.shuffle(readers)
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
    if difficulty != "easy":  # medium: every body of the group where its classes' methods
        # then fill a module each (`validate_range` with `format_range_error`, the same for
        # `Length`), rather than one body cut off from the rest of its class
        sizes.reverse()
    for split in (False, True):  # a class's methods kept in one module where possible
        tried = 0
        for size in sizes:
            for chosen in combinations(readers, size):
                tried += 1
                if tried > _MAX_LAYOUTS:
                    break
                names = {reader.qualname for reader in chosen}
                if any(not set(reader.calls) <= names for reader in chosen):
                    continue  # a body that calls a helper moves only with the helper's
                sources = {reader.path for reader in chosen}
                classes = len({reader.cls for reader in chosen})
                counts = list(range(1, min(size if split else classes, 3) + 1))
                if difficulty != "easy" and not split:  # a module per class's bodies first
                    counts = [*counts[-1:], *counts[:-1]]
                for count in counts:
                    files = len(sources | holder_paths) + count
                    if size + len(group.holders) < 3 or count + len(holder_modules) < 2:
                        continue
                    if files < least or (most is not None and files > most):
                        continue
                    if split and not forwarding(chunks(sorted(chosen, key=_placed), count)):
                        continue  # one class's bodies in two modules with nothing between
                    return sorted(chosen, key=_placed), count
    hint = " while one reader stays" if difficulty == "hard" else ""
    raise InjectionRefused(f"no choice of the {len(readers)} methods reading "
                           f"({', '.join(group.fields)}) spans "
                           f"{'exactly' if most == least else 'at least'} {least} files with 3 "
                           f"signatures in 2 modules{hint}")


def _placed(reader: Reader) -> tuple[str, str, int]:
    return reader.path, reader.cls, reader.line


def forwarding(parts: Sequence[Sequence[Reader]]) -> bool:
    """Whether every new module that holds some of a class's bodies while another holds others
    calls into that other module or is called from it: the group then travels from one
    function to the next (`validate_range` handing `min, max, error` to `format_error`), where
    two unrelated one-line functions in two modules would only pad the span."""
    home = {reader.qualname: number for number, part in enumerate(parts) for reader in part}
    for number, part in enumerate(parts):
        classes = {reader.cls for reader in part}
        others = {home[reader.qualname] for other in parts if other is not part for reader in other
                  if reader.cls in classes}
        if not others:
            continue
        linked = any(home.get(callee) in others for reader in part for callee in reader.calls) \
            or any(home[reader.qualname] in others and any(home.get(callee) == number
                                                          for callee in reader.calls)
                   for other in parts for reader in other)
        if not linked:
            return False
    return True


def chunks(items: Sequence[Reader], count: int) -> list[list[Reader]]:
    """`items` (in order) cut into `count` runs, a class's methods kept in one run where there
    are enough classes, else runs as even as possible."""
    classes: list[list[Reader]] = []
    for item in items:
        if classes and classes[-1][0].cls == item.cls:
            classes[-1].append(item)
        else:
            classes.append([item])
    if len(classes) >= count:
        size, extra = divmod(len(classes), count)
        found: list[list[Reader]] = []
        at = 0
        for number in range(count):
            step = size + (1 if number < extra else 0)
            found.append([reader for group in classes[at:at + step] for reader in group])
            at += step
        return found
    size, extra = divmod(len(items), count)
    found = []
    at = 0
    for number in range(count):
        step = size + (1 if number < extra else 0)
        found.append(list(items[at:at + step]))
        at += step
    return found


def spread(context: InjectionContext, group: Group, moved: list[Reader], count: int,
           rng: random.Random) -> Spread:
    """Move each chosen reader's body into a function of one of `count` new modules; its
    fields lead the new signature in the order of its class's constructor (`Length(min, max,
    equal, error)` gives `(min, max, equal, error, value, message)`), as a hand-written helper
    would take them."""
    index = context.index
    changes: dict[str, str | None] = {}
    trees: dict[str, cst.Module] = {}
    replacements: dict[str, dict[cst.CSTNode, cst.CSTNode]] = {}
    new_imports: dict[str, list[str]] = {}
    functions: list[str] = []
    taken_paths: set[str] = set()
    removed: dict[str, set[cst.FunctionDef]] = {}
    parts = chunks(moved, count)
    module_of: dict[str, str] = {}
    placed: dict[int, tuple[str, str]] = {}
    whole_first = rng.random() < 0.5  # one shape for all of the case's modules
    entries = [[reader for reader in part if reader.qualname not in {
        callee for other in part for callee in other.calls}] or part[:1] for part in parts]
    # modules serving one body name themselves first: theirs are the most telling names
    for number in sorted(range(len(parts)), key=lambda item: len(entries[item]) != 1):
        part, first = parts[number], entries[number][0]
        folder = first.path.rpartition("/")[0]
        facts = index.modules[first.module]
        package = first.module if facts.is_package else first.module.rpartition(".")[0]
        bound = set(move.module_bindings(index, package)) if package in index.modules else set()
        stems = [stem for stem in module_stems(context, first, rng,
                                                alone=len(entries[number]) == 1,
                                                whole_first=whole_first)
                 if stem not in bound and _join(folder, stem) not in taken_paths]
        path = context.module_path(folder, stems)
        taken_paths.add(path)
        stem = path.rpartition("/")[2][:-3]
        module = f"{package}.{stem}" if package else stem
        placed[number] = (path, module)
        module_of.update((reader.qualname, module) for reader in part)
    paths = [placed[number] for number in range(len(parts))]
    # helpers first: a body that calls one is written with the name of its function
    named: dict[str, tuple[str, Extracted]] = {}
    taken = {word for reader in moved for word in re.findall(
        r"\w+", source_of(context, reader))}
    shapes: dict[str, str] = {}
    """Per method name, the shape of the first function's name (`validate_{}`): the bodies of
    one method of several classes get names alike (`validate_any_of`, `validate_none_of`)."""
    for reader in _helpers_first(moved):
        helpers = {qualname.rpartition(".")[2]: (named[qualname][0], _fields_of(moved, qualname))
                   for qualname in reader.calls}
        item = extract(context, reader.path, reader.module, index.definitions[reader.qualname],
                       reader.fields, helpers=helpers, stored_calls=set(reader.stored_calls))
        imports = [f"from {module_of[qualname]} import {named[qualname][0]}"
                   for qualname in reader.calls
                   if module_of[qualname] != module_of[reader.qualname]]
        if imports:
            item = dataclasses.replace(item, imports=(*item.imports, *imports))
        avoid = {*move.module_bindings(index, reader.module), *group.fields, *taken,
                 *(name for name, _ in named.values()), *move.names_in(item.function),
                 *(re.findall(r"\w+", " ".join(item.imports)))}
        method = reader.qualname.rpartition(".")[2]
        noun = snake(class_noun(reader.cls.rpartition(".")[2]))
        options = function_names(context, reader, rng)
        if method in options:  # its only mention in the span is its own `def`
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
    for part, (path, module) in zip(parts, paths):
        extracted = [(reader, named[reader.qualname][1]) for reader in part]
        names = [named[reader.qualname][0] for reader in part]
        for (reader, item), name in zip(extracted, names):
            functions.append(f"{module}.{name}")
            tree = context.module(reader.path)
            trees[reader.path] = tree
            replacements.setdefault(reader.path, {})[item.method] = item.method \
                if reader.qualname in dropped else _delegating(
                    tree, item, name, reader.fields)
            if reader.qualname in dropped:
                removed.setdefault(reader.path, set()).add(item.method)
                continue
            new_imports.setdefault(reader.path, []).append(
                _import_into(context, reader.module, module, name))
        changes[path] = _new_module(context, module, extracted, names)
    for path, tree in trees.items():
        module_name = _module_of(context, path)
        new = replace(tree, replacements[path])
        if removed.get(path):
            new = new.visit(_Drop({id(node) for node in removed[path]}))
        for statement in merged(sorted(new_imports[path])):
            new = _insert_import(new, statement)
        changes[path] = without_unused(context, module_name, tree, new).code
    return Spread(changes, tuple(functions), tuple(reader.qualname for reader in moved),
                  tuple(sorted({item.rpartition(".")[0] for item in functions})))


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


def _join(folder: str, stem: str) -> str:
    return f"{folder}/{stem}.py" if folder else f"{stem}.py"


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


def _new_module(context: InjectionContext, module: str,
                extracted: list[tuple[Reader, Extracted]], names: list[str]) -> str:
    """The new module's text: its imports, grouped as isort does, then the functions. No module
    docstring: one would be prose the repository's authors never wrote."""
    lines: list[str] = []
    if any(item.future for _, item in extracted):
        lines.append("from __future__ import annotations\n")
    relative = _uses_relative(context, extracted[0][0].module)
    variables: dict[str, str] = {}
    extracted = [(reader, dataclasses.replace(
        item, imports=_own_type_variables(context, reader, item.imports, variables),
        type_checking=_own_type_variables(context, reader, item.type_checking, variables)))
        for reader, item in extracted]
    imports = [_relative(module, statement) if relative else statement
               for _, item in extracted for statement in item.imports]
    for text in variables.values():
        needed = _typing_import(context, extracted[0][0].path, text)
        if needed is None:
            raise InjectionRefused("the moved code's type variable is declared with a call "
                                   "the new module cannot import")
        imports.append(needed)
    external = sorted({item for item in imports if not item.startswith("from .")})
    local = sorted({item for item in imports if item.startswith("from .")})
    checking = sorted({_relative(module, statement) if relative else statement
                       for _, item in extracted for statement in item.type_checking})
    alias = next((match.group(1) for item in external
                  if (match := re.fullmatch(r"import typing as (\w+)", item))), None)
    if checking and alias is None:
        external = sorted({*external, "import typing"})
    own = module.partition(".")[0]
    sections = [merged([item for item in external if _top_package(item) != own]),
                [*merged([item for item in external if _top_package(item) == own]),
                 *merged(local)]]
    lines.extend("\n".join(section) + "\n" for section in sections if section)
    if checking:
        lines.append(f"if {alias or 'typing'}.TYPE_CHECKING:\n" + "".join(
            f"    {statement}\n" for statement in merged(checking)))
    if variables:
        lines.append("".join(f"{text}\n" for text in variables.values()))
    text = "\n".join(lines)
    for (_, item), name in zip(extracted, names):
        function = item.function.with_changes(name=cst.Name(name))
        text += ("\n\n" if text else "") + cst.Module(body=[function]).code
    return text


def _own_type_variables(context: InjectionContext, reader: Reader, statements: Sequence[str],
                        found: dict[str, str]) -> tuple[str, ...]:
    """`statements` without the private type variables they import from the reader's module
    (`from marshmallow.validate import _T`): the new module declares its own, as a generic
    function moved to another module does (`_T = typing.TypeVar("_T")`, added to `found`), and
    imports no private name of the module it came from."""
    declared = _type_variables(context, reader.path)
    kept: list[str] = []
    for statement in statements:
        match = re.fullmatch(r"from ([\w.]+) import (.+)", statement)
        if match is None or match.group(1) != reader.module:
            kept.append(statement)
            continue
        names = [name.strip() for name in match.group(2).split(",")]
        found.update((name, declared[name]) for name in names if name in declared)
        rest = [name for name in names if name not in declared]
        if rest:
            kept.append(f"from {match.group(1)} import {', '.join(rest)}")
    return tuple(kept)


def _type_variables(context: InjectionContext, path: str) -> dict[str, str]:
    """Private module-level type variables of a module, with their declaring line
    (`_T = typing.TypeVar("_T")`)."""
    found: dict[str, str] = {}
    for statement in context.module(path).body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                isinstance(small.targets[0].target, cst.Name) and \
                small.targets[0].target.value.startswith("_") and \
                isinstance(small.value, cst.Call) and \
                re.fullmatch(r"(\w+\.)?TypeVar", cst.Module(body=[]).code_for_node(
                    small.value.func)):
            found[small.targets[0].target.value] = \
                cst.Module(body=[]).code_for_node(small).strip()
    return found


def _typing_import(context: InjectionContext, path: str, declaration: str) -> str | None:
    """The source module's import of what a type variable's declaration calls (`import typing`
    for `typing.TypeVar`, `import typing as t` for `t.TypeVar`, `from typing import TypeVar`),
    or None when it has none of its own to copy."""
    match = re.search(r"=\s*(?:(\w+)\.)?TypeVar\(", declaration)
    bound = (match.group(1) if match else None) or "TypeVar"
    for statement in context.module(path).body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(
                small.names, cst.ImportStar) and len(small.names) == 1 and \
                small.names[0].evaluated_alias in (bound, None) and \
                (small.names[0].evaluated_alias or small.names[0].evaluated_name) == bound:
            return cst.Module(body=[]).code_for_node(small).strip()
    return None


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
