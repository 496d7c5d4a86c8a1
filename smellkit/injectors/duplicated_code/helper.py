"""The code to copy (a module-level function or a method), what its names mean, and the imports a
module needs so that a copy there reads the same objects.
"""

from __future__ import annotations

import ast
import re
import symtable
from typing import NamedTuple

import libcst as cst

from smellkit._internal import pyast
from smellkit.analysis.usage import module_level_names
from smellkit.config import TEST_DIRS
from smellkit.detectors.duplicated_code import DuplicatedCodeOptions
from smellkit.errors import InjectionRefused
from smellkit.facts import FileFacts
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit, move
from smellkit.injectors.duplicated_code import copying

MIN_CODE_LINES: int = DuplicatedCodeOptions.default("min_lines")
"""The detector's default `min-lines`: shorter code's copies would not be reported."""
PLAIN_DECORATORS = frozenset({"property", "staticmethod", "classmethod"})
_MANGLED = re.compile(r"\b__\w*[A-Za-z0-9]_?\b")


class Helper(NamedTuple):
    qualname: str
    name: str
    module: str
    path: str
    node: cst.FunctionDef
    reads: dict[str, copying.Binding]  # global name -> what it means in B
    annotation_only: frozenset[str]
    future: bool
    locals_: list[str]
    decorator: str | None  # property, staticmethod or classmethod (methods only)


class Examined(NamedTuple):
    """What the text of a definition says about copying it (no libcst needed)."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    decorator: str | None
    table: symtable.SymbolTable
    reads: dict[str, copying.Binding]


class Sources:
    """Per file, the `ast` tree and the symbol table of the module, made once: candidate
    discovery examines many definitions of the same few files."""

    def __init__(self, context: InjectionContext):
        self.context = context
        self.parsed: dict[str, tuple[ast.Module, symtable.SymbolTable | None]] = {}

    def of(self, path: str) -> tuple[ast.Module, symtable.SymbolTable | None]:
        if path not in self.parsed:
            source = self.context.source(path)
            try:
                table: symtable.SymbolTable | None = symtable.symtable(source, path, "exec")
            except (SyntaxError, ValueError):
                table = None
            self.parsed[path] = (pyast.parse(source), table)
        return self.parsed[path]


def examine(context: InjectionContext, qualname: str,
            sources: Sources | None = None) -> Examined:
    """The checks on a definition's text alone: a def at the top of its module or class, at
    most one plain built-in decorator (methods), no name-mangled attribute (methods), enough
    lines of code, and every global it reads bound once; refused with the reason otherwise."""
    index = context.index
    module = index.module_of.get(qualname)
    definition = index.definitions.get(qualname)
    if module is None or definition is None:
        raise InjectionRefused(f"`{qualname}` is not in the index")
    facts = index.modules[module]
    parts = edit.relative_parts(qualname, module) or []
    tree, top = (sources or Sources(context)).of(facts.path)
    function = _ast_definition(tree, parts) if len(parts) in (1, 2) else None
    if function is None:
        raise InjectionRefused(f"`{qualname}` is not a def at the top of its module or class")
    decorator = _decorator(function, len(parts) == 2)
    if decorator == "":
        raise InjectionRefused(f"`{qualname}` has a decorator that may register or wrap it")
    if len(parts) == 2:
        lines = context.source(facts.path).splitlines()
        start = min([function.lineno, *(item.lineno for item in function.decorator_list)])
        code = "\n".join(lines[start - 1:function.end_lineno])
        if any(not name.endswith("__") for name in _MANGLED.findall(code)):
            raise InjectionRefused(f"`{qualname}` uses a name-mangled attribute")
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    if not body or 1 + (function.end_lineno or 0) - body[0].lineno + 1 < MIN_CODE_LINES:
        raise InjectionRefused(f"`{qualname}` has fewer than {MIN_CODE_LINES} lines of code")
    table = copying.function_table(context.source(facts.path), facts.path, parts, top)
    if table is None:
        raise InjectionRefused(f"no symbol table for `{qualname}`")
    try:
        names = copying.global_reads(table)
    except InjectionRefused as refusal:
        raise InjectionRefused(f"`{qualname}` cannot move: {refusal.message}") from refusal
    names |= copying.signature_reads(function)
    reads: dict[str, copying.Binding] = {}
    for name in sorted(names):
        bound = copying.binding(index, facts, name)
        if bound is None:
            raise InjectionRefused(f"`{qualname}` reads `{name}`, a rebound or unknown name")
        reads[name] = bound
    return Examined(function, decorator, table, reads)


def copyable(context: InjectionContext, qualname: str, sources: Sources | None = None) -> bool:
    """Whether `examine` accepts the definition (to pick candidates)."""
    try:
        examine(context, qualname, sources)
    except InjectionRefused:
        return False
    return True


def helper(context: InjectionContext, qualname: str) -> Helper:
    """The function `pkg.mod.f` or method `pkg.mod.C.m` to copy; refused when it cannot move."""
    index = context.index
    examined = examine(context, qualname)
    module = index.module_of[qualname]
    facts = index.modules[module]
    parts = edit.relative_parts(qualname, module) or []
    node = edit.find_definition(context.module(facts.path), parts)
    if not isinstance(node, cst.FunctionDef):
        raise InjectionRefused(f"`{qualname}` is not a def at the top of its module or class")
    code = context.module(facts.path).code_for_node(node)
    if len(parts) == 2 and any(not name.endswith("__") for name in _MANGLED.findall(code)):
        raise InjectionRefused(f"`{qualname}` uses a name-mangled attribute")
    return Helper(qualname, index.definitions[qualname].name, module, facts.path, node,
                  examined.reads, frozenset(copying.annotation_only(examined.function)),
                  copying.has_future_annotations(facts),
                  copying.renamable_locals(examined.table), examined.decorator)


def _ast_definition(tree: ast.Module,
                    parts: list[str]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    body: list[ast.stmt] = tree.body
    found: ast.AST | None = None
    for name in parts:
        matches = [item for item in body if isinstance(
            item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.name == name]
        if not matches:
            return None
        found = matches[-1]
        body = matches[-1].body
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _decorator(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> str | None:
    """None for no decorator, the name of one plain built-in decorator of a method, or "" for
    anything else."""
    if not function.decorator_list:
        return None
    (first, *rest) = function.decorator_list
    if method and not rest and isinstance(first, ast.Name) and first.id in PLAIN_DECORATORS:
        return first.id
    return ""


class Bindings(NamedTuple):
    """How a copy in module D reads what the original reads: the imports D needs, as (module,
    statement), and the names it reads through a module D imports already (`Node` ->
    `nodes.Node`)."""

    imports: list[tuple[str, str]]
    qualified: dict[str, str]

    def applied(self, node: cst.FunctionDef) -> cst.FunctionDef:
        """The original with the qualified names written as D reads them: what copies of it
        are made from."""
        return copying.qualified(node, self.qualified)

    def free(self, mapping: dict[str, str]) -> dict[str, str]:
        """The local renames that shadow no module a qualified name is read through."""
        modules = {dotted.partition(".")[0] for dotted in self.qualified.values()}
        return {old: new for old, new in mapping.items() if new not in modules}


def bindings(context: InjectionContext, helper: Helper, module: str,
             insert_line: int) -> Bindings:
    """What module D needs so the copy reads what the original reads; refused when the copy
    cannot read the same objects there. A name D does not bind is imported; where that import
    cannot be added (the name is a word of D already, as in `nodes.Node`, or importing it could
    close a cycle), it is read through a module D imports at top level before the copy when
    that module's attribute is the same object (`nodes.Node`, as D writes it elsewhere). A name
    read only in annotations is read so whenever D imports the module it comes from (D's way of
    annotating), and so are the names of string annotations D does not bind; the code keeps
    the original's text where an import allows (what makes the copy a copy)."""
    index = context.index
    facts = index.modules[module]
    source = context.source(facts.path)
    _refuse_replaced(context, helper, module)
    if helper.future != copying.has_future_annotations(facts) and helper.annotation_only:
        raise InjectionRefused(f"{facts.path} and {helper.path} evaluate annotations "
                               "differently")
    imports: list[tuple[str, str]] = []
    qualified: dict[str, str] = {}
    for name, meaning in helper.reads.items():
        bound = copying.binding(index, facts, name)
        if bound is not None:
            if bound.meaning != meaning.meaning:
                raise InjectionRefused(f"`{name}` does not mean `{meaning.meaning}` in "
                                       f"{facts.path}")
            if bound.line < 0 or bound.line >= insert_line:
                raise InjectionRefused(f"`{name}` is bound after the copy's place in "
                                       f"{facts.path}")
            continue
        if meaning.statement is None or meaning.source is None:
            raise InjectionRefused(f"`{name}` cannot be bound in {facts.path}")
        dotted = _through_module(context, helper, module, name, meaning, insert_line)
        if dotted is not None and name in helper.annotation_only and \
                dotted.rpartition(".")[0] == _bound_module(context, module, meaning.source):
            qualified[name] = dotted  # D imports the name's module: it annotates `nodes.Node`
            continue
        cycle = meaning.source == module or module in eager_reach(context, meaning.source)
        if not edit.name_free(source, name) or cycle:
            if dotted is not None:
                qualified[name] = dotted
                continue
            if cycle:
                raise InjectionRefused(f"importing `{name}` into {facts.path} could close an "
                                       "import cycle")
            raise InjectionRefused(f"`{name}` cannot be bound in {facts.path}")
        imports.append((meaning.source, relative(
            meaning.statement, meaning.source, module,
            allowed=any(item.level for item in context.index.modules[module].imports))))
    home = index.modules[helper.module]
    bound_in_d = {item.bound for item in facts.imports if item.scope == module}
    for name in sorted(copying.string_annotation_names(helper.node) - set(helper.reads)):
        if name in bound_in_d or name in index.children.get(module, {}) or \
                name in module_level_names(facts):
            continue  # D binds it (an import for type checking will do in a string)
        meant = _annotation_meaning(context, home, name)
        dotted = None if meant is None else _through_module(
            context, helper, module, name, copying.Binding(meant[0], 0, meant[1], None),
            insert_line)
        if dotted is not None:
            qualified[name] = dotted
    return Bindings(imports, qualified)


def _refuse_replaced(context: InjectionContext, helper: Helper, module: str) -> None:
    """Refuses a copy in module D that would miss what code replaces while the tests run: a
    global the original reads that is replaced on its module B (click's `CliRunner` sets
    `utils.should_strip_ansi`, which a copy of `echo` in termui.py would not read), one read
    that is replaced on D (the original never saw that), or the helper itself replaced on its
    module or class (its redirected calls would bypass the replacement)."""
    home = helper.qualname.rpartition(".")[0]
    reads = set(helper.reads)
    for owner, names in ((helper.module, reads), (module, reads), (home, {helper.name})):
        hit = sorted(names & _replaced_on(context, owner))
        if hit:
            raise InjectionRefused(f"code replaces `{owner}.{hit[0]}` while tests run: a copy "
                                   f"in {context.index.modules[module].path} would not behave "
                                   "alike")


def _replaced_on(context: InjectionContext, owner: str) -> frozenset[str]:
    """Names of module or class `owner` that code replaces (`move.replaced`), read once per
    repository: every caller module of every helper asks again."""
    return context.once(("duplicated_code", "replaced", owner),
                        lambda: move.replaced(owner, replacing_sources(context)))


def replacing_sources(context: InjectionContext) -> tuple[str, ...]:
    """The text of the code that can replace module attributes while the tests run: the
    project's files and the tests beside its source folder (`tests/` next to `src/`)."""

    def compute() -> tuple[str, ...]:
        texts = [context.source(item.path) for item in context.project.files]
        root = context.root
        known = {(root / item.path).resolve() for item in context.project.files}
        folders = [root / name for name in TEST_DIRS]
        if root.name == "src":
            folders.extend(root.parent / name for name in TEST_DIRS)
        for folder in folders:
            for path in sorted(folder.rglob("*.py")) if folder.is_dir() else ():
                if path.resolve() not in known:
                    texts.append(path.read_text(encoding="utf-8", errors="replace"))
        return tuple(texts)

    return context.once(("duplicated_code", "replacing sources"), compute)


def _bound_module(context: InjectionContext, module: str, target: str) -> str | None:
    """The name module D binds module `target` to at top level (`nodes` for `from . import
    nodes`), None when it imports no such module."""
    for item in context.index.modules[module].imports:
        if item.scope == module and not item.type_only and item.target == target and \
                "." not in item.bound:
            return item.bound
    return None


def _annotation_meaning(context: InjectionContext, facts: FileFacts,
                        name: str) -> tuple[str, str] | None:
    """What a name of the original's string annotations means in its module B, and the module
    it comes from: a definition of B, or an import (one for type checking too)."""
    index = context.index
    if name in index.children.get(facts.module, {}):
        return index.children[facts.module][name], facts.module
    for item in facts.imports:
        if item.scope == facts.module and item.bound == name and item.is_from:
            meaning = index.resolve_dotted(item.target)
            if meaning is not None:
                return meaning, item.target.rpartition(".")[0]
    return None


def _through_module(context: InjectionContext, helper: Helper, module: str, name: str,
                    meaning: copying.Binding, insert_line: int) -> str | None:
    """`m.name` when module D binds `m` to a module once, by a top-level import that runs
    before the copy, whose attribute `name` is the object the original reads, and no module
    it imports eagerly imports D (the attribute would be missing while D loads); modules other
    than the one the name comes from are tried last. None when no such module is imported, or
    when the copy's code binds `m` or the name itself."""
    index = context.index
    facts = index.modules[module]
    found: list[tuple[bool, str]] = []
    for item in facts.imports:
        target = item.target
        if item.scope != module or item.type_only or "." in item.bound or \
                target not in index.modules or item.line >= insert_line:
            continue
        bound = copying.binding(index, facts, item.bound)
        if bound is None or bound.meaning != target or \
                index.resolve_dotted(f"{target}.{name}") != meaning.meaning or \
                module in eager_reach(context, target):
            continue
        found.append((target != meaning.source, item.bound))
    for _, qualifier in sorted(found):
        if copying.binds(helper.node, qualifier) or copying.binds(helper.node, name):
            continue
        return f"{qualifier}.{name}"
    return None


def eager_reach(context: InjectionContext, start: str) -> set[str]:
    """Modules that importing `start` imports too, at module level."""
    graph = context.index.import_graph
    if start not in graph:
        return set()
    seen, stack = {start}, [start]
    while stack:
        for _, target, data in graph.out_edges(stack.pop(), data=True):
            if data.get("eager") and target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def relative(statement: str, source: str, module: str, *, allowed: bool = True) -> str:
    """`from pkg.mod import x` as `from .mod import x` when written in a sibling module, if
    `allowed` (the package imports its siblings relatively: marshmallow's absolute imports
    stay absolute)."""
    package, _, last = source.rpartition(".")
    prefix = f"from {source} import "
    if allowed and package and package == module.rpartition(".")[0] and \
            statement.startswith(prefix):
        return f"from .{last} import " + statement[len(prefix):]
    return statement
