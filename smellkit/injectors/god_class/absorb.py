"""A class absorbs responsibility clusters of module-level functions (the god class injector's
second form, the inverse of "move functions to a module of their own").

A cluster is the functions of another module `S` that the holder's module `M` calls, with the
functions of `S` they call in turn. Absorbing it: each function's code joins the holder `H` as a
static method of the same name where it is free (`member_name`; the globals it reads imported at
the top of its body, from `S`, already loaded then), and `S` keeps a thin function of the same
signature that returns `H.<name>(...)` with its arguments passed on as received, so every caller
inside and outside the repository runs the same code on the same arguments. `S` names `H` through
an import at its top, its own or a new one. A module that importing `M` imports (an import
cycle) could reach `H` only through an import inside the thin function: it is a source only
where the repository imports its own modules inside functions itself (click, Jinja2), as
elsewhere that import would be a tell (marshmallow, WTForms).

Refused, conservatively: decorated, asynchronous and generator functions; functions called while
modules are being imported (the holder could then be used before its module has run); a holder
whose module the package does not import eagerly; a function whose name, and every name built
from its words, the holder (or a class related to it) already has or looks up as a hook; and
whatever `_feature_envy_move` refuses to move as text.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.facts import Name
from smellkit.graphs.index import Index
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.edit import parameter_names, subtree
from smellkit.injectors.cst.house import line_limit
from smellkit.injectors.cst.imports import (
    bound_name,
    drop_unused_imports,
    insert_import,
    is_docstring,
    left_unused,
    without_unused,
)
from smellkit.injectors.god_class import tidy
from smellkit.injectors.god_class.planning import (
    IDIOM_PLACES,
    Cluster,
    Function,
    cyclic,
    dodges_cycles_in_functions,
)
from smellkit.injectors.naming import MIN_WORD, meaningful, overlaps, pick, snake, words


def absorb(context: InjectionContext, holder: str, chosen: list[Cluster]
           ) -> tuple[dict[str, str | None], list[Function], dict[str, str]]:
    """New texts of the holder's file and of each cluster's file, the functions the holder
    absorbed (as static methods) and why the others stayed (by qualname). Raises
    `InjectionRefused`."""
    index = context.index
    place = move.top_level(index, holder)
    holder_path = context.path_of(holder)
    if place is None or holder_path is None:
        raise InjectionRefused(f"{holder} is not defined at the top level of its module")
    holder_module, holder_name = place
    if "staticmethod" in move.module_bindings(index, holder_module):
        raise InjectionRefused(f"{holder_module} rebinds staticmethod")
    taken = set(move.members(index, holder))
    looked_up = looked_up_prefixes(context, holder)
    holder_tree = context.module(holder_path)
    holder_node = move.find_class(holder_tree, holder_name)
    if holder_node is None:
        raise InjectionRefused(f"{holder} is not where the index puts it")
    holder_line = index.definitions[holder].start_line
    changes: dict[str, str | None] = {}
    methods: list[tuple[cst.FunctionDef, str, str, frozenset[str]]] = []
    imports: list[str] = []
    absorbed: list[Function] = []
    refused: dict[str, str] = {}
    for cluster in chosen:
        path = context.path_of(cluster.functions[0].qualname)
        if path is None or path == holder_path:
            raise InjectionRefused(f"{cluster.module} is the holder's module")
        tree = context.module(path)
        wrapper = context.wrapper(path)
        postponed = move.has_future_annotations(tree) and move.has_future_annotations(
            holder_tree)
        shims: dict[int, cst.FunctionDef] = {}
        patched = frozenset(move.reexported(index, cluster.module, (
            context.source(item.path) for item in context.project.files)))
        replacing = move.replaced(cluster.module, (
            context.source(item.path) for item in context.project.files))
        reference = _holder_reference(index, cluster.module, holder)
        local = reference is None and cyclic(context.analysis, cluster.module, holder)
        if local and not dodges_cycles_in_functions(context.analysis):
            raise InjectionRefused(f"{cluster.module} could name {holder_name} only by importing "
                                   f"it inside functions: importing {holder_module} imports "
                                   f"{cluster.module}, and the repository's own code imports its "
                                   f"modules so in fewer than {IDIOM_PLACES} places")
        relative = any(item.level for item in index.modules[cluster.module].imports)
        importing = (move.relative_import(cluster.module, holder_module, holder_name)
                     if relative else f"from {holder_module} import {holder_name}")
        bound = move.module_bindings(index, cluster.module).get(holder_name)
        if reference is None and bound not in (None, holder):
            raise InjectionRefused(f"{cluster.module} binds {holder_name} to something else")
        for function in cluster.functions:
            node = _find_function(tree, function.name) if function.owner is None else \
                _find_method(tree, function)
            try:
                if node is None:
                    raise InjectionRefused(f"{function.qualname} is not where the index puts it")
                name = member_name(context, function, holder, taken, looked_up)
                if name != function.name:
                    function = replace(function, new_name=name)
                head = (reference or holder_name).partition(".")[0]
                if head in parameter_names(node.params):  # it would hide the holder
                    raise InjectionRefused(f"a parameter of {function.name} is named {head}")
                _check_function(node, holder_name, taken)
                _check_bound_before(index, holder_module, node, holder_line, postponed)
                if function.owner is None:
                    moved = move.move_method(index, cluster.module, tree, node, holder_module,
                                             replacement=cst.Name("_"), postponed=postponed,
                                             wrapper=wrapper, static=True, patched=patched)
                    code = moved.function
                else:
                    instance = _instance_name(context, function, node)
                    moved = move.move_method(index, cluster.module, tree, node, holder_module,
                                             replacement=cst.Name(instance),
                                             postponed=postponed, wrapper=wrapper)
                    code = _renamed_first(moved.function, instance)
            except InjectionRefused as refusal:
                refused[function.qualname] = str(refusal)
                continue
            if function.owner is None:  # a function one level deeper: so is its docstring
                code = reindented_docstring(code, tree.default_indent)
            methods.append((code, name, cluster.module, replacing))
            imports.extend(moved.imports)
            shims[id(node)] = _shim(node, reference or holder_name, name,
                                    line_limit(context.source(path)),
                                    1 if function.owner is None else 2,
                                    importing if local else None)
            taken.add(name)
            absorbed.append(function)
        if shims:
            result = tree.visit(_Shims(shims))
            if reference is None and bound == holder and not local:  # for type checking only
                result = without_type_checking_import(result, holder_name)
            result = drop_unused_imports(result, tree, patched)
            kept = left_unused(tree, result)
            if kept:  # names the repository patches on the module: kept, yet a tell
                raise InjectionRefused(f"{path} would keep {', '.join(sorted(kept))} imported "
                                       "for nothing (other code reads it from there)")
            if reference is None and not local:  # at its top, as it imports its package
                result = insert_import(result, importing)
            changes[path] = result.code
    if not methods:  # every function refused: the caller chooses again without them
        if refused:
            return {}, [], refused
        raise InjectionRefused("nothing to absorb")
    tidying = tidy.Holder(index, holder_module, holder_name,
                          move.module_bindings(index, holder_module))
    members: list[cst.BaseStatement] = []
    for code, name, source, patched in methods:
        siblings = {item.name: item.absorbed_name for item in absorbed
                    if item.module == source and item.owner is None}
        code, hoisted = tidy.tidied(code, source, tidying, siblings, patched)
        imports.extend(hoisted)
        method = move.as_method_of_class(code, name).with_changes(
            decorators=[cst.Decorator(cst.Name("staticmethod"))])
        members.append(method)
    holder_tree = move.replace_node(holder_tree, holder_node,
                                    move.append_to_class(holder_node, members))
    for line in dict.fromkeys(imports):
        holder_tree = insert_import(holder_tree, line)
    # the holder's module may have imported a function it now holds as a method
    holder_tree = without_unused(context, holder_module, context.module(holder_path), holder_tree)
    changes[holder_path] = holder_tree.code
    return changes, absorbed, refused


def member_name(context: InjectionContext, function: Function, holder: str,
                taken: set[str], hooks: frozenset[str]) -> str:
    """The absorbed function's name in the holder: its own (`update_values`, `_format_error`)
    when the holder, its lineage and what it absorbed so far leave it free; else the
    function's words with one more, a word of its class (`_format_length_error`,
    `get_zsh_completion_args`), of its parameters (`week_of_day`) or of the holder's
    vocabulary. Never a name the repository looks up as a hook (`hooks`, see
    `looked_up_prefixes`), never the class's whole name glued on as a prefix, never numbered;
    refused when nothing is free."""
    own = function.name
    parts = words(own) or [own.strip("_")]
    holder_module, _, holder_name = holder.rpartition(".")
    params = context.index.definitions[function.qualname].params
    params = params[1:] if function.owner else params  # not the instance
    owner = words(function.owner.rpartition(".")[2]) if function.owner else []
    if any(len(word) < MIN_WORD for word in owner):
        owner = []  # a phrase (`OneOf`): none of its words stands for it (`one`)
    pool = [word for word in dict.fromkeys([
        *owner, *(word for param in params for word in words(param.name)),
        *context.vocabulary.near(holder_module, holder_name)])
            if meaningful(word) and not overlaps(word, parts)
            and word not in words(holder.partition(".")[0])][:12]  # not `click`
    candidates = [own, *(snake(with_word(parts, word), private=own.startswith("_"))
                         for word in pool)]
    free = [name for name in candidates if not name.startswith(tuple(hooks))]
    if not free:
        raise InjectionRefused(f"the repository looks up members named "
                               f"{sorted(hooks)[0]}<name> by name, so {own} would become a hook")
    return pick(free, taken, what=f"{function.qualname} in {holder}")


def with_word(parts: list[str], word: str) -> list[str]:
    """`word` where a person puts a qualifier: after a name ending in a short word (`week_of`
    -> `week_of_day`), else before its last meaningful word (`format_error` ->
    `format_length_error`, `get_completion_args` -> `get_zsh_completion_args`, `now` ->
    `session_now`)."""
    if len(parts[-1]) < MIN_WORD:
        return [*parts, word]
    at = max((position for position, part in enumerate(parts) if meaningful(part)),
             default=len(parts) - 1)
    return [*parts[:at], word, *parts[at:]]


def without_type_checking_import(module: cst.Module, name: str) -> cst.Module:
    """The module without its `if TYPE_CHECKING:` import of `name` (the block gone with its
    last statement): the import the thin functions need moves to the top, where it runs."""
    body: list[cst.BaseStatement] = []
    for statement in module.body:
        block = statement.body if isinstance(statement, cst.If) and "TYPE_CHECKING" in \
            module.code_for_node(statement.test) and statement.orelse is None else None
        if not isinstance(block, cst.IndentedBlock):
            body.append(statement)
            continue
        inner: list[cst.BaseStatement] = []
        for line in block.body:
            small = line.body[0] if isinstance(line, cst.SimpleStatementLine) \
                and len(line.body) == 1 else None
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                kept = [alias for alias in small.names if bound_name(alias) != name]
                if not kept:
                    continue
                if len(kept) != len(small.names):
                    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    line = line.with_changes(body=[small.with_changes(names=kept)])
            inner.append(line)
        if inner:
            body.append(statement.with_changes(body=block.with_changes(body=inner)))
    return module.with_changes(body=body)


class _Shims(cst.CSTTransformer):
    """Puts each thin function or method in the place of the definition it stands for."""

    def __init__(self, shims: dict[int, cst.FunctionDef]):
        super().__init__()
        self.shims = shims

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        return self.shims.get(id(original_node), updated_node)


def _find_method(module: cst.Module, function: Function) -> cst.FunctionDef | None:
    assert function.owner is not None
    cls = move.find_class(module, function.owner.rpartition(".")[2])
    return move.find_method(cls, function.name) if cls is not None else None


def _instance_name(context: InjectionContext, function: Function,
                   node: cst.FunctionDef) -> str:
    """What the absorbed method calls the instance it now takes, after the class it came from:
    the class's words and the word of the repository base it extends (`date_time_field` for
    `DateTime(Field)`, `enum_field`), or its words alone (`token`, `select_multiple_field`);
    none the method already uses. Never one word of it (`time` for a `DateTime`, `one` for a
    `OneOf`: `one_of_validator`)."""
    assert function.owner is not None
    cls_name = function.owner.rpartition(".")[2]
    parts = [part for part in words(cls_name) if len(part) > 1] or ["item"]
    base = [part for name in context.index.mro(function.owner)[1:2]
            for part in words(name.rpartition(".")[2])]
    kind = base[-1:] if base and not set(base) & set(words(cls_name)) else []  # not `FieldABC`
    candidates = [snake([*parts, *kind]), snake(parts),
                  *context.vocabulary.names(function.module, cls_name, head=parts[-1:],
                                            rng=random.Random(function.qualname))]
    return pick(candidates, move.names_in(node), what=f"the {cls_name} in {function.name}")


def reindented_docstring(function: cst.FunctionDef, delta: str) -> cst.FunctionDef:
    """The function with its docstring's continuation lines indented by `delta` more: what a
    person does when a function moves into a class (`inspect.cleandoc` reads it the same)."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return function
    first = body.body[0]
    if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1 or \
            not isinstance(first.body[0], cst.Expr):
        return function
    string = first.body[0].value
    if not isinstance(string, cst.SimpleString) or "\n" not in string.value:
        return function
    head, *rest = string.value.split("\n")
    text = "\n".join([head, *(f"{delta}{line}" if line.strip() else line for line in rest)])
    line = first.with_changes(body=[first.body[0].with_changes(
        value=string.with_changes(value=text))])
    return function.with_changes(body=body.with_changes(body=[line, *body.body[1:]]))


def _renamed_first(function: cst.FunctionDef, name: str) -> cst.FunctionDef:
    """The function with its first parameter (the instance) renamed."""
    first, *rest = function.params.params
    return function.with_changes(params=function.params.with_changes(
        params=[first.with_changes(name=cst.Name(name)), *rest]))


def _find_function(module: cst.Module, name: str) -> cst.FunctionDef | None:
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement
    return None


FRAME_NAMES = frozenset({
    "_getframe", "currentframe", "stack", "getouterframes", "getinnerframes", "f_back",
    "tb_frame", "tb_next", "extract_stack", "format_stack", "print_stack", "walk_stack",
})
"""Names through which code looks at its callers' frames (a thin function adds a frame)."""


_LOOKUP = re.compile(r"""\b(?:getattr|hasattr)\(\s*[^,()]+,\s*f["']([A-Za-z_][A-Za-z0-9_]*)\{""")


def looked_up_prefixes(context: InjectionContext, holder: str) -> frozenset[str]:
    """Prefixes of member names that the modules of the holder and its bases look up by a
    computed name (`getattr(self.__class__, f"validate_{name}")`): a member so named becomes
    a hook the class calls (an inline validator), so none is added under such a name."""
    paths = {path for cls in context.index.mro(holder) if (path := context.path_of(cls))}
    return frozenset(match.group(1) for path in sorted(paths)
                     for match in _LOOKUP.finditer(context.source(path)))


def _check_function(function: cst.FunctionDef, holder_name: str, taken: set[str]) -> None:
    """Refuse what would behave differently as a static method or behind a thin function."""
    name = function.name.value
    for node in subtree(function.body):
        if isinstance(node, (cst.Yield, cst.Await)):
            raise InjectionRefused(f"{name} is a generator or awaits")
        if isinstance(node, cst.Name) and node.value in FRAME_NAMES:
            raise InjectionRefused(f"{name} inspects frames ({node.value}): the thin function "
                                   "adds one")
    if holder_name in parameter_names(function.params):  # it would hide the holder
        raise InjectionRefused(f"a parameter of {name} is named {holder_name}")
    definition_time = move.definition_time_nodes(function)
    read = {node.value for node in subtree(function)
            if isinstance(node, cst.Name) and id(node) in definition_time}
    shadowed = sorted(read & taken)
    if shadowed:
        raise InjectionRefused(f"{name} reads {', '.join(shadowed)} when defined, a name the "
                               "holder's class body binds")


def _check_bound_before(index: Index, module: str, function: cst.FunctionDef, line: int,
                        postponed: bool) -> None:
    """Names read when the `def` runs (defaults, annotations unless postponed) run in the class
    body of the holder: the holder's module must bind them before the class statement."""
    nodes = move.definition_time_nodes(function)
    if postponed:
        nodes -= move.annotation_nodes(function)
    read = {node.value for node in subtree(function)
            if isinstance(node, cst.Name) and id(node) in nodes}
    facts = index.modules[module]
    first: dict[str, int] = {}
    for name, qualname in index.children.get(module, {}).items():
        first[name] = index.definitions[qualname].start_line
    for item in facts.imports:
        if item.scope == module and not item.type_only:
            first[item.bound] = min(first.get(item.bound, item.line), item.line)
    for assignment in facts.assignments:
        target = assignment.target
        if assignment.scope == module and isinstance(target, Name):
            first[target.id] = min(first.get(target.id, assignment.line), assignment.line)
    late = sorted(name for name in read if first.get(name, 0) >= line)
    if late:
        raise InjectionRefused(f"{function.name.value} reads {', '.join(late)} when defined, bound "
                               f"in {module} only after the holder")


def _holder_reference(index: Index, module: str, holder: str) -> str | None:
    """How `module` already names the holder when its code runs (`Token`, `sql.Token`), so a
    thin function need not import it again; None when it does not (or only for type
    checking)."""
    facts = index.modules.get(module)
    if facts is None:
        return None
    type_only = {item.bound for item in facts.imports if item.type_only}
    holder_module, _, holder_name = holder.rpartition(".")
    for name, target in sorted(move.module_bindings(index, module).items()):
        if name in type_only:
            continue
        if target == holder:
            return name
        if target == holder_module:
            return f"{name}.{holder_name}"
    return None


def _shim(function: cst.FunctionDef, reference: str, name: str = "", limit: int = 88,
          depth: int = 1, importing: str | None = None) -> cst.FunctionDef:
    """The function with its body replaced by a call of the holder's static method, every
    argument passed on as received (its docstring kept). `reference`: how the module names the
    holder (`Token`, `sql.Token`). `importing`: the import that binds it first, inside the
    function (`from .core import Context`), where the module could not import it at its top
    without a cycle and the repository imports its own modules so elsewhere; otherwise the
    module names it at its top, as an import in the body would read as a dodged cycle. A call
    longer than `limit` columns (its body `depth` levels in) is wrapped as black wraps it."""
    params = function.params
    parts = [item.name.value for item in (*params.posonly_params, *params.params)]
    if isinstance(params.star_arg, cst.Param):
        parts.append(f"*{params.star_arg.name.value}")
    parts.extend(f"{item.name.value}={item.name.value}" for item in params.kwonly_params)
    if params.star_kwarg is not None:
        parts.append(f"**{params.star_kwarg.name.value}")
    body = function.body
    assert isinstance(body, cst.IndentedBlock)
    first = body.body[0] if body.body else None
    docstring = [first] if first is not None and is_docstring(first) else []
    name = name or function.name.value
    head = f"{'' if _returns_nothing(function) else 'return '}{reference}.{name}"
    call = cst.parse_statement(_call(head, parts, "    " * depth, limit))
    if importing:  # a blank line after it, as click and Jinja2 write theirs
        statements = [*docstring, cst.parse_statement(importing),
                      call.with_changes(leading_lines=[cst.EmptyLine(indent=False)])]
    else:
        statements = [*docstring, call]
    return function.with_changes(body=body.with_changes(body=statements))


def _returns_nothing(function: cst.FunctionDef) -> bool:
    """No `return` in the function gives a value (nor one in code nested in it, to be safe):
    it always returns None, so its thin function calls the holder's method as a statement, as
    a person delegates a procedure (`return OptionParser.show(self, file)` in a method
    annotated `-> None` reads as machine-made)."""
    return not any(isinstance(node, cst.Return) and node.value is not None
                   for node in subtree(function.body))


def _call(head: str, arguments: list[str], indent: str, limit: int) -> str:
    """`head(arguments)` on one line when it fits in `limit` columns at `indent`; else the
    arguments on a line of their own, or one per line with a trailing comma when even that
    line is too long (black's forms)."""
    line = f"{head}({', '.join(arguments)})"
    if len(indent) + len(line) <= limit or not arguments:
        return line
    inner = ", ".join(arguments)
    if len(indent) + 4 + len(inner) <= limit:
        return f"{head}(\n    {inner}\n)"
    return f"{head}(\n" + "".join(f"    {argument},\n" for argument in arguments) + ")"
