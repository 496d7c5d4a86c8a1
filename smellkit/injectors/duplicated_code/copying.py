"""What makes a private copy of a helper safe in another module, and the copy itself.

A module-level function `h` of module B can be copied into module D when every global name it
reads means the same object in D as in B (one import target, or one builtin nobody shadows), bound
before the copy by a top-level import that runs; when it writes no global; and when nothing in it
depends on where it lives (`super`, `__name__`, frames, `locals()`).
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import libcst as cst

from smellkit._internal import pyast
from smellkit.analysis.usage import module_level_names
from smellkit.errors import InjectionRefused
from smellkit.facts import DefRef, FileFacts, Name
from smellkit.graphs.index import Index
from smellkit.injectors.cst.rename import Identifiers, Rename
from smellkit.models import MIN_CHANGED_LINES_EXECUTED

_RISKY = frozenset({"super", "__class__", "locals", "vars", "eval", "exec", "globals", "__name__",
                    "__file__", "__qualname__", "__module__", "__spec__", "__package__",
                    "__builtins__", "__dict__"})


def _tables(table: symtable.SymbolTable) -> Iterator[symtable.SymbolTable]:
    yield table
    for child in table.get_children():
        yield from _tables(child)


def function_table(source: str, path: str, parts: list[str],
                   top: symtable.SymbolTable | None = None) -> symtable.SymbolTable | None:
    """The symbol table of the def at `parts` below the module (`[f]` or `[Class, method]`;
    the last of each name, as Python binds the last); `top`: the module's, when made already."""
    if top is None:
        try:
            top = symtable.symtable(source, path, "exec")
        except (SyntaxError, ValueError):
            return None
    table = top
    for position, name in enumerate(parts):
        kind = "function" if position == len(parts) - 1 else "class"
        found = [child for child in table.get_children()
                 if child.get_name() == name and child.get_type() == kind]
        if not found:
            return None
        table = found[-1]
    return table


def global_reads(table: symtable.SymbolTable) -> set[str]:
    """Global names the function and its nested scopes read; refused when it cannot move."""
    names: set[str] = set()
    for scope in _tables(table):
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            if symbol.is_declared_global():
                raise InjectionRefused(f"it declares `global {name}`")
            if name in _RISKY and symbol.is_referenced():
                raise InjectionRefused(f"it uses `{name}`, which depends on where the code lives")
            if symbol.is_global() and symbol.is_referenced():
                names.add(name)
    return names


def renamable_locals(table: symtable.SymbolTable) -> list[str]:
    """Locals of the function (not parameters, imports or globals), in name order."""
    return sorted(symbol.get_name() for symbol in table.get_symbols()
                  if symbol.is_local() and symbol.is_assigned() and not symbol.is_parameter()
                  and not symbol.is_imported() and not symbol.is_global()
                  and not symbol.is_namespace())


class Binding(NamedTuple):
    """What a module-level name means in a module, where it is bound (0 for builtins, -1 for a
    definition of the module), and how another module can import the same object."""

    meaning: str
    line: int
    source: str | None  # the module to import it from; None for builtins
    statement: str | None  # the import statement that binds it elsewhere


def _assigned_once(facts: FileFacts, name: str) -> int | None:
    """The line of the one module-level assignment of `name` (no `global` rebinding), else None."""
    lines = [item.line for item in facts.assignments if item.scope == facts.module
             and isinstance(item.target, Name) and item.target.id == name
             and not isinstance(item.value, DefRef)]
    if len(lines) != 1 or any(bound == name for _, bound in facts.globals_declared):
        return None
    return lines[0]


def binding(index: Index, facts: FileFacts, name: str) -> Binding | None:
    """The binding of a module-level name, or None when it is rebound, type-only or unknown."""
    module = facts.module
    for item in facts.imports:
        if item.scope == module and item.bound == name:
            if item.type_only or name in module_level_names(facts):
                return None
            meaning = index.resolve_dotted(item.target) or item.target
            if item.is_from:
                source, _, attribute = item.target.rpartition(".")
                alias = "" if attribute == name else f" as {name}"
                return Binding(meaning, item.line, source,
                               f"from {source} import {attribute}{alias}")
            alias = "" if item.target == name else f" as {name}"
            return Binding(meaning, item.line, item.target, f"import {item.target}{alias}")
    if name in index.children.get(module, {}) and name not in module_level_names(facts):
        return Binding(index.children[module][name], -1, module, f"from {module} import {name}")
    line = _assigned_once(facts, name)
    if line is not None:
        return Binding(f"{module}.{name}", line, module, f"from {module} import {name}")
    if name in module_level_names(facts) or index.star_imports.get(module):
        return None
    if hasattr(builtins, name):
        return Binding(f"builtins.{name}", 0, None, None)
    return None


def signature_reads(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names read where the def runs, in the module's scope: defaults and annotations (the
    function's symbol table does not list them)."""
    args = function.args
    parts: list[ast.AST | None] = [*args.defaults, *args.kw_defaults, function.returns]
    parts.extend(arg.annotation for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                            args.vararg, args.kwarg) if arg is not None)
    return {node.id for part in parts if part is not None for node in ast.walk(part)
            if isinstance(node, ast.Name)}


def annotation_only(tree: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names the function reads only in annotations."""
    in_annotations: set[str] = set()
    elsewhere: set[str] = set()
    annotations: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
    annotated_ids = {id(item) for annotation in annotations for item in ast.walk(annotation)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (in_annotations if id(node) in annotated_ids else elsewhere).add(node.id)
    return in_annotations - elsewhere


def has_future_annotations(facts: FileFacts) -> bool:
    return any(item.target == "__future__.annotations" for item in facts.imports)


def copy_of(node: cst.FunctionDef, name: str, mapping: dict[str, str]) -> cst.FunctionDef:
    """The function under a new name, its locals renamed, without the lines above it."""
    body, params = node.body, node.params
    if mapping:
        renamed = body.visit(Rename(mapping))
        assert isinstance(renamed, cst.BaseSuite)
        body = renamed
        renamed_params = params.visit(_RenameParams(mapping))
        assert isinstance(renamed_params, cst.Parameters)
        params = renamed_params
    return node.with_changes(name=cst.Name(name), body=body, params=params,
                             leading_lines=[cst.EmptyLine(), cst.EmptyLine()])


class _RenameParams(cst.CSTTransformer):
    """Rename the parameters themselves; their defaults and annotations run in the module's
    scope and keep their names."""

    def __init__(self, mapping: dict[str, str]):
        super().__init__()
        self.mapping = mapping

    def visit_Param(self, node: cst.Param) -> bool:
        return False

    def leave_Param(self, original_node: cst.Param, updated_node: cst.Param) -> cst.Param:
        new = self.mapping.get(original_node.name.value)
        return updated_node.with_changes(name=cst.Name(new)) if new else updated_node


def binds(node: cst.FunctionDef, name: str) -> bool:
    """Whether the def's code (its nested scopes too) binds `name`: a parameter, an assignment
    or loop target, an import, a nested def or class."""
    code = cst.Module(body=[node.with_changes(leading_lines=())]).code
    function = pyast.parse(code).body[0]
    for item in ast.walk(function):
        if isinstance(item, ast.Name):
            bound = item.id if not isinstance(item.ctx, ast.Load) else None
        elif isinstance(item, ast.arg):
            bound = item.arg
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = item.name if item is not function else None
        elif isinstance(item, ast.alias):
            bound = item.asname or item.name.partition(".")[0]
        else:
            bound = None
        if bound == name:
            return True
    return False


def qualified(node: cst.FunctionDef, names: dict[str, str]) -> cst.FunctionDef:
    """The def with each global name of `names` read through a module instead (`Node` ->
    `nodes.Node`), in its code and in the strings a type checker reads as annotations."""
    if not names:
        return node
    result = node.visit(_Qualify(names))
    assert isinstance(result, cst.FunctionDef)
    return result


def string_annotation_names(node: cst.FunctionDef) -> set[str]:
    """Bare names read in the def's string annotations (`-> "Node"`, `t.cast("Node", x)`):
    no symbol table lists them, yet a type checker and pyflakes resolve them in the module."""
    visitor = _Qualify({})
    node.visit(visitor)
    found: set[str] = set()
    for text in visitor.strings:
        try:
            expression = pyast.parse(text, mode="eval")
        except SyntaxError:
            continue
        found.update(item.id for item in ast.walk(expression) if isinstance(item, ast.Name))
    return found


class _Qualify(Identifiers):
    """`name` -> `module.name` where `name` is read (not attribute or keyword names), and in
    string annotations (`-> "Node"`, `t.cast("Node", ...)`) whose text is a plain expression."""

    def __init__(self, names: dict[str, str]):
        super().__init__()
        self.names = names
        self.annotations = 0
        self.cast_strings: set[cst.CSTNode] = set()
        self.strings: list[str] = []  # the annotation strings met, as written

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.annotations += 1

    def leave_Annotation(self, original_node: cst.Annotation,
                         updated_node: cst.Annotation) -> cst.Annotation:
        self.annotations -= 1
        return updated_node

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        called = func.attr.value if isinstance(func, cst.Attribute) else \
            func.value if isinstance(func, cst.Name) else None
        if called == "cast" and node.args:
            self.cast_strings.add(node.args[0].value)

    def leave_Name(self, original_node: cst.Name,
                   updated_node: cst.Name) -> cst.BaseExpression:
        dotted = self.names.get(original_node.value)
        return cst.parse_expression(dotted) if dotted else updated_node

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        return updated_node.with_changes(name=original_node.name)  # a recursive helper's own

    def leave_SimpleString(self, original_node: cst.SimpleString,
                           updated_node: cst.SimpleString) -> cst.SimpleString:
        if not self.annotations and original_node not in self.cast_strings:
            return updated_node
        text = updated_node.raw_value
        if updated_node.prefix or "\\" in text:
            return updated_node
        self.strings.append(text)
        if not any(re.search(rf"\b{re.escape(name)}\b", text) for name in self.names):
            return updated_node
        try:
            expression = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return updated_node
        rewritten = expression.visit(_Qualify(self.names))
        assert isinstance(rewritten, cst.BaseExpression)
        return updated_node.with_changes(
            value=f"{updated_node.quote}{cst.Module(body=[]).code_for_node(rewritten)}"
                  f"{updated_node.quote}")


def matches_as_clone(original: cst.FunctionDef, copy: cst.FunctionDef) -> bool:
    """Whether the clone detector's type-2 hash of the copy equals the original's: bodies that
    repeat one or two statement forms are compared exactly, so renaming can hide a copy."""
    from smellkit.project.parsing import FileProblem, SourceFile, parse_file

    first = cst.Module(body=[original.with_changes(leading_lines=())]).code
    second = cst.Module(body=[copy.with_changes(leading_lines=())]).code
    start = first.count("\n") + 3
    text = f"{first}\n\n{second}"
    facts = parse_file(SourceFile("copy.py", "copy.py", "copy", False), text.encode(), 1 << 30)
    if isinstance(facts, FileProblem):
        return False
    spans = memoryview(facts.fingerprints.spans).cast("i")
    normal = memoryview(facts.fingerprints.normal).cast("q")
    firsts = {spans[2 * index]: normal[index] for index in range(len(normal))}
    return 1 in firsts and start in firsts and firsts[1] == firsts[start]


def renamed_copy(node: cst.FunctionDef, name: str, mapping: dict[str, str]) -> cst.FunctionDef:
    """The copy with `mapping` applied when the detector still matches it as a clone (renaming
    is what makes it type 2), else the verbatim copy: a hidden copy would be no case at all."""
    if mapping:
        renamed = copy_of(node, name, mapping)
        if matches_as_clone(node, renamed):
            return renamed
    return copy_of(node, name, {})


def reported_together(original: cst.FunctionDef, copies: list[cst.FunctionDef]) -> bool:
    """Whether the duplicated-code detector (default options) reports the original and every
    copy as clones: each in a module of its own, as the injection leaves them. Its thresholds
    depend on the group (a renamed pair needs `min-lines-renamed` lines of code, or a body of
    `min-lines` lines holding `min-statements-renamed` statements; three copies need only
    `min-lines`), so asking the detector itself is what keeps injector and check agreeing."""
    from smellkit.analysis.context import Context
    from smellkit.detectors.duplicated_code import DuplicatedCode, DuplicatedCodeOptions
    from smellkit.project import Project

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        package = root / "clones"
        package.mkdir()
        (package / "__init__.py").write_text("", encoding="utf-8")
        paths = []
        for number, node in enumerate([original, *copies]):
            stem = "copy_" + "x" * (number + 1)  # module names only, never seen in a case
            (package / f"{stem}.py").write_text(
                cst.Module(body=[node.with_changes(leading_lines=())]).code, encoding="utf-8")
            paths.append(f"clones/{stem}.py")
        project = Project.load(root, use_cache=False, jobs=1)
        detector = DuplicatedCode(DuplicatedCodeOptions())
        found = {location.path for finding in detector.detect(Context(project))
                 for location in (finding.location, *finding.related)}
    return set(paths) <= found


def dead_switches(node: cst.FunctionDef, calls: list[cst.Call], receiver: bool) -> list[str]:
    """Parameters with a literal default, never rebound, that an `if` of the function tests on
    its own (`if shorten:`, `if not strict:`, `if limit is None:`) and that none of `calls` passes
    (`receiver`: the calls name the first parameter as `obj.m(...)`), when the side of those
    branches a copy reached only by these calls never takes holds more statements than the
    adequacy rule lets go unrun. click's `format_filename(shorten=False)` copied where every
    call leaves `shorten` out keeps `if shorten:` whose body no test can run there."""
    code = cst.Module(body=[node.with_changes(leading_lines=())]).code
    try:
        function = pyast.parse(code).body[0]
    except (SyntaxError, IndexError):
        return []
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or any(
            arg.star for call in calls for arg in call.args):
        return []
    args = function.args
    positional = [*args.posonlyargs, *args.args][1 if receiver else 0:]
    defaults = dict(zip([arg.arg for arg in [*args.posonlyargs, *args.args]][-len(args.defaults):],
                        args.defaults)) if args.defaults else {}
    defaults.update({arg.arg: default for arg, default in zip(args.kwonlyargs, args.kw_defaults)
                     if default is not None})
    names = [arg.arg for arg in positional]
    rebound = {item.id for item in ast.walk(function)
               if isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Load)}
    unpassed = {name for name, default in defaults.items()
                if isinstance(default, ast.Constant) and name not in rebound and not any(
                    any(arg.keyword is not None and arg.keyword.value == name for arg in call.args)
                    or (name in names and sum(arg.keyword is None for arg in call.args)
                        > names.index(name))
                    for call in calls)}
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    total = sum(1 for statement in body for item in ast.walk(statement)
                if isinstance(item, ast.stmt))
    dead = 0
    found: list[str] = []
    for item in (item for statement in body for item in ast.walk(statement)):
        if not isinstance(item, ast.If):
            continue
        switch = _switch(item.test, defaults, unpassed)
        if switch is None:
            continue
        name, taken = switch
        side = item.orelse if taken else item.body
        dead += sum(1 for statement in side for inner in ast.walk(statement)
                    if isinstance(inner, ast.stmt))
        if side and name not in found:
            found.append(name)
    if not total or dead <= total * (1 - MIN_CHANGED_LINES_EXECUTED):
        return []
    return found


def _switch(test: ast.expr, defaults: dict[str, ast.expr],
            unpassed: set[str]) -> tuple[str, bool] | None:
    """The unpassed parameter the test reads alone and whether it holds with the default:
    `p`, `not p`, `p is None`, `p is not None`; None for any other test."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (ast.Is, ast.IsNot)) and \
            isinstance(test.comparators[0], ast.Constant) and \
            test.comparators[0].value is None and isinstance(test.left, ast.Name):
        name = test.left.id
        if name not in unpassed:
            return None
        default = defaults[name]
        holds = isinstance(default, ast.Constant) and default.value is None
        return name, (holds != isinstance(test.ops[0], ast.IsNot)) != negated
    if isinstance(test, ast.Name) and test.id in unpassed:
        default = defaults[test.id]
        assert isinstance(default, ast.Constant)
        return test.id, bool(default.value) != negated
    return None
