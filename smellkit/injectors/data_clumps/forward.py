"""Data clumps by forwarding wrappers: a function's parameter group handed on through new wrappers.

A module-level function `f(a, b, c, ...)` called from other modules gets wrappers that take the
same group and forward it (`def _f_from_x(a, b, c, d=None): return f(a, b, c, d)`); the calls of
the other modules are pointed at the wrappers, so the group travels through several signatures in
several modules. Why it keeps behaviour:

- every parameter of `f` is a plain positional-or-keyword one (no `*args`, `**kwargs`,
  keyword-only or positional-only), so a wrapper with the same names, order and defaults accepts
  exactly the calls `f` accepts and binds them the same way; it forwards every value positionally;
- defaults are copied only when they are immutable literals (`None`, `True`, numbers, strings), so
  passing the copy is the same as leaving the argument out;
- a rewired call keeps its arguments as written (same order, same keywords) and refuses starred
  ones; only the callee's name changes, to a wrapper bound where `f` was bound (after the module's
  imports, which bind `f` at module level), so evaluation order is unchanged;
- wrappers registered in a table go through a decorator that returns the function itself.
The ground truth is the original: the wrappers gone, the calls pointing at `f` again.
"""

from __future__ import annotations

import io
import random
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import PositionProvider

from smellkit.errors import InjectionRefused
from smellkit.facts import Name
from smellkit.injectors.base import Edit, InjectionContext
from smellkit.injectors.cst.imports import after_last_import
from smellkit.injectors.data_clumps.plan import Planner, outside_words
from smellkit.models import Difficulty, StructuralCheck, TargetLevel

_LITERAL_NAMES = frozenset({"None", "True", "False"})


@dataclass
class Forward:
    """A function whose calls from other modules can go through forwarding wrappers."""

    qualname: str
    name: str
    path: str
    module: str
    params: tuple[str, ...]
    defaults: tuple[str | None, ...]
    """The default's source text, or None for a required parameter."""
    group: tuple[str, ...]
    """The names the detector counts (two letters or more)."""
    sites: dict[str, list[int]] = field(default_factory=dict)
    """Caller module path -> lines of the rewirable calls of `f` there."""


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value in _LITERAL_NAMES
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    return isinstance(node, (cst.Integer, cst.Float, cst.SimpleString))


def _function_node(module: cst.Module, name: str) -> cst.FunctionDef | None:
    found = [item for item in module.body
             if isinstance(item, cst.FunctionDef) and item.name.value == name]
    return found[0] if len(found) == 1 else None


def forwards(planner: Planner, flagged: frozenset[str]) -> list[Forward]:
    """Every function that qualifies, with at least one rewirable call in another module."""
    context = planner.context
    found: list[Forward] = []
    for facts in sorted(planner.index.modules.values(), key=lambda item: item.path):
        for definition in facts.definitions:
            if definition.kind != "function" or definition.is_async or definition.decorators:
                continue
            name = definition.name
            if name.startswith("__") or name.startswith("test") or definition.qualname in flagged:
                continue
            params = definition.params
            if any(param.kind != "positional" for param in params):
                continue
            group = tuple(param.name for param in params if len(param.name) >= 2)
            if len(group) < 3 or name in {param.name for param in params}:
                continue
            sites = _sites(planner, definition.qualname, name, facts.path)
            if not sites:
                continue
            node = _function_node(context.module(facts.path), name)
            if node is None or node.asynchronous or node.decorators or [
                    param.name.value for param in node.params.params] != [
                    param.name for param in params]:
                continue
            if any(isinstance(item.target, Name) and item.target.id == name
                   and getattr(item.value, "qualname", None) != definition.qualname
                   for item in facts.assignments if item.scope == facts.module):
                continue  # rebound at module level: callers may get something else
            module = context.module(facts.path)
            defaults: list[str | None] = []
            for param in node.params.params:
                if param.default is None:
                    defaults.append(None)
                elif _literal(param.default):
                    defaults.append(module.code_for_node(param.default))
                else:
                    break
            else:
                found.append(Forward(definition.qualname, name, facts.path, facts.module,
                                     tuple(param.name for param in params), tuple(defaults),
                                     group, sites))
    return found


def _sites(planner: Planner, qualname: str, name: str, home: str) -> dict[str, list[int]]:
    """Calls of the function from other modules, as `name(...)` with `name` imported at module
    level and no starred argument; per module, only when every call of that name there is one.
    Calls in code the tests do not reach are left calling the function (still sound)."""
    graph = planner.graph
    by_path: dict[str, list[int]] = defaultdict(list)
    uncovered: dict[str, int] = defaultdict(int)
    refused: set[str] = set()
    for path, call in planner.calls_by_name.get(name, ()):
        if path == home or not isinstance(call.func, Name) or call.func.id != name:
            if path != home:
                refused.add(path)
            continue
        data = graph.get_edge_data(call.scope, qualname) if graph.has_node(call.scope) else None
        starred = any(getattr(arg, "tag", "") == "iter" for arg in call.args) or any(
            key is None for key, _ in call.kwargs)
        if data is None or call.line not in data.get("lines", ()) or starred \
                or call.scope == planner.facts_of[path].module:
            refused.add(path)
            continue
        if not planner.context.is_covered(call.scope):
            uncovered[path] += 1
            continue
        by_path[path].append(call.line)
    result: dict[str, list[int]] = {}
    for path, lines in sorted(by_path.items()):
        facts = planner.facts_of[path]
        bindings = [item for item in facts.imports if item.bound == name]
        if path in refused or len(bindings) != 1 or bindings[0].target != qualname \
                or bindings[0].scope != facts.module or bindings[0].type_only:
            continue
        if bare_uses(planner.context.source(path), name) != len(lines) + uncovered[path] + 1:
            continue  # used other ways too (passed as a value, named again)
        result[path] = sorted(lines)
    return result


def bare_uses(source: str, name: str) -> int:
    """How often `name` occurs in code as a name of its own: not as a part of a dotted name
    (`pkg.name`, `obj.name`), counting every mention inside f-strings."""
    count = 0
    previous = ""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return -1  # unreadable: counts as "used other ways", the module is refused
    for number, token in enumerate(tokens):
        if token.type == tokenize.NAME and token.string == name:
            following = tokens[number + 1].string if number + 1 < len(tokens) else ""
            if previous != "." and following != ".":
                count += 1
        elif token.type == tokenize.STRING and re.match(r"[A-Za-z]*[fF]", token.string):
            count += len(re.findall(rf"(?<![.\w]){re.escape(name)}\b", token.string))
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = token.string
    return count


# -- editing ----------------------------------------------------------------------------------


def signature(forward: Forward, names: tuple[str, ...] | None = None) -> str:
    names = names or forward.params
    return ", ".join(name if default is None else f"{name}={default}"
                     for name, default in zip(names, forward.defaults))


def wrapper_text(name: str, forward: Forward, callee: str, names: tuple[str, ...] | None = None,
                 decorator: str | None = None) -> str:
    names = names or forward.params
    head = f"@{decorator}\n" if decorator else ""
    return (f"{head}def {name}({signature(forward, names)}):\n"
            f"    return {callee}({', '.join(names)})\n")


def free_name(context: InjectionContext, planner: Planner, paths: list[str], name: str) -> bool:
    """`name` is no word of the files, nor of code outside the analysis."""
    return not any(planner.words(path, name) for path in paths) and \
        not outside_words(context)[name]


class _Rewire(cst.CSTTransformer):
    """Point the planned calls at the wrapper and insert the new text after the last import."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, name: str, wrapper: str, lines: list[int]):
        super().__init__()
        self.name = name
        self.wrapper = wrapper
        self.lines = lines
        self.done: list[int] = []

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = original.func
        if isinstance(func, cst.Name) and func.value == self.name:
            line = self.get_metadata(PositionProvider, original).start.line
            if line in self.lines:
                self.done.append(line)
                return updated.with_changes(func=cst.Name(self.wrapper))
        return updated


def _insertion(module: cst.Module) -> int | None:
    """Index after the last top-level import, if nothing before it runs code but imports,
    assignments of plain values and undecorated function definitions."""
    last = after_last_import(module.body) - 1
    if last < 0:
        return None
    for statement in module.body[:last]:
        if isinstance(statement, cst.FunctionDef) and not statement.decorators:
            continue
        if isinstance(statement, cst.SimpleStatementLine) and all(
                isinstance(small, (cst.Import, cst.ImportFrom, cst.Expr, cst.Assign,
                                   cst.AnnAssign)) for small in statement.body):
            if any(isinstance(node, cst.Call) for small in statement.body
                   for node in _walk(small)):
                return None
            continue
        if isinstance(statement, (cst.If, cst.Try)) and not any(
                isinstance(node, cst.Call) for node in _walk(statement)):
            continue
        return None
    return last + 1


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class _All(cst.CSTVisitor):
        def on_visit(self, item: cst.CSTNode) -> bool:
            found.append(item)
            return True

    node.visit(_All())
    return found


def rewire(context: InjectionContext, path: str, name: str, wrapper: str, lines: list[int],
           added: str, imported: str = "") -> str | None:
    """The caller module with its calls of `name` on `lines` renamed to `wrapper`, the import
    line `imported` right after its last import and the definitions `added` after that; None if
    that cannot be done exactly."""
    source = context.source(path)
    module = context.module(path)
    at = _insertion(module)
    if at is None:
        return None
    transformer = _Rewire(name, wrapper, lines)
    changed = context.wrapper(path).visit(transformer)
    if sorted(transformer.done) != sorted(lines):
        return None
    positions = context.wrapper(path).resolve(PositionProvider)
    end = positions[module.body[at - 1]].end.line
    newline = module.default_newline
    lines_of = changed.code.splitlines(keepends=True)
    blank = 0
    while end + blank < len(lines_of) and not lines_of[end + blank].strip():
        blank += 1
    block = (imported + newline * 2 + added).replace("\n", newline) + newline * max(0, 2 - blank)
    text = "".join(lines_of[:end]) + block + "".join(lines_of[end:])
    if text == source or "\t" in added:
        return None
    return text


# -- the edit of one difficulty ---------------------------------------------------------------


def make_edit(context: InjectionContext, planner: Planner, forward: Forward,
              difficulty: Difficulty, rng: random.Random) -> Edit:
    """Easy: two wrappers in one caller module (2 files). Medium: a forwarding module beside
    `f` whose wrapper renames a defaulted parameter, and a wrapper in one caller module that
    delegates to it (3 files). Hard: the forwarding wrapper registered through a decorator in a
    module-level table of a module of its own, wrappers in up to two caller modules, and a
    look-alike function that takes only part of the group left alone as a red herring (4+
    files)."""
    name = forward.name
    callers = sorted(forward.sites)
    chosen = sorted(rng.sample(callers, min(len(callers), 2 if difficulty == "hard" else 1)))
    changes: dict[str, str | None] = {}
    wrappers: list[str] = []
    herrings: list[str] = []
    if difficulty == "hard":
        herrings = _look_alikes(planner, forward, chosen)
        if not herrings:
            raise InjectionRefused(f"no function takes part of ({', '.join(forward.group)}) to "
                                   "serve as a red herring")
    inner_module = ""
    inner = f"_forward_{name}"
    folder = forward.path.rpartition("/")[0]
    if difficulty != "easy":
        new_path = context.free_path(folder, f"_{name}_forwarding")
        stem = new_path.rpartition("/")[2].removesuffix(".py")
        facts = planner.facts_of[forward.path]
        package = facts.module if facts.is_package else facts.module.rpartition(".")[0]
        inner_module = f"{package}.{stem}" if package else stem
        inner = f"{name}_forwarded"
        names = _renamed(planner, forward) if difficulty == "medium" else forward.params
        parts = [f'"""Forwarding of the arguments of {name}."""\n\n'
                 f"from {_relative(inner_module, forward.module)} import {name}\n"]
        decorator = None
        if difficulty == "hard":
            table_path = context.free_path(folder, "_forwarding_table")
            table = table_path.rpartition("/")[2].removesuffix(".py")
            table_module = f"{package}.{table}" if package else table
            changes[table_path] = (
                '"""Wrappers that forward arguments, by name."""\n\n'
                "FORWARDS = {}\n\n\ndef forwarding(function):\n"
                "    FORWARDS[function.__name__] = function\n"
                "    return function\n")
            parts.append(f"from {_relative(inner_module, table_module)} import forwarding\n")
            decorator = "forwarding"
        parts.append("\n\n")
        parts.append(wrapper_text(inner, forward, name, names, decorator))
        changes[new_path] = "".join(parts)
        wrappers.append(f"{inner_module}.{inner}")
    for path in chosen:
        facts = planner.facts_of[path]
        stem = facts.module.rpartition(".")[2]
        outer = f"_{name}_from_{stem}"
        new_names = [outer] if difficulty != "easy" else [outer, inner]
        if not all(free_name(context, planner, [path], item) for item in new_names):
            raise InjectionRefused(f"{', '.join(new_names)} would clash with a name in {path}")
        if difficulty == "easy":
            added = (wrapper_text(inner, forward, name) + "\n\n"
                     + wrapper_text(outer, forward, inner))
            wrappers.append(f"{facts.module}.{inner}")
        else:
            added = wrapper_text(outer, forward, inner)
        imported = "" if difficulty == "easy" else \
            f"from {_relative(facts.module, inner_module)} import {inner}\n"
        text = rewire(context, path, name, outer, forward.sites[path], added, imported)
        if text is None:
            raise InjectionRefused(f"the calls of {name} in {path} cannot be rewired exactly")
        changes[path] = text
        wrappers.append(f"{facts.module}.{outer}")
    functions = [forward.qualname, *wrappers]
    listed = ", ".join(forward.group)
    checks = (
        StructuralCheck(
            kind="data_clumps.not_together",
            description=(f"the parameters ({listed}) no longer travel together through "
                         f"{', '.join(item.rpartition('.')[2] for item in functions)}"),
            params={"names": list(forward.group), "functions": functions, "max_holders": 1}),
        StructuralCheck(
            kind="no_finding",
            description=f"no data clump is reported at {', '.join(functions)}",
            params={"smell": "data_clumps", "qualnames": functions}),
    )
    targets: tuple[tuple[str, TargetLevel], ...] = tuple(
        (item, "method") for item in [*wrappers, forward.qualname])
    return Edit(changes=changes, targets=targets, checks=checks,
                involved=tuple(sorted({scope for path in chosen
                                       for scope in _scopes(planner, path, forward)})),
                red_herrings=tuple(herrings[:3]),
                summary=(f"forwarded ({listed}) of {forward.qualname} through "
                         f"{len(wrappers)} wrappers in {len(changes)} files ({difficulty})"))


def _renamed(planner: Planner, forward: Forward) -> tuple[str, ...]:
    """One defaulted parameter renamed (`encoding_value`), if three others keep their names:
    the inner wrapper is only called positionally, by the wrappers made with it."""
    for number, (param, default) in enumerate(zip(forward.params, forward.defaults)):
        others = [item for item in forward.group if item != param]
        new = f"{param}_value"
        if default is not None and len(param) >= 3 and len(others) >= 3 \
                and new not in forward.params:
            return (*forward.params[:number], new, *forward.params[number + 1:])
    return forward.params


def _look_alikes(planner: Planner, forward: Forward, chosen: list[str]) -> list[str]:
    """Functions (not methods' overrides of one another: any definition) that take two or more
    of the group's names but not all of them: they look like part of the clump and are not."""
    group = set(forward.group)
    found: list[tuple[bool, str]] = []
    for facts in planner.index.modules.values():
        for definition in facts.definitions:
            if definition.kind not in ("function", "method") or \
                    definition.qualname == forward.qualname:
                continue
            names = {param.name for param in definition.params}
            if 2 <= len(names & group) < len(group):
                found.append((facts.path not in chosen, definition.qualname))
    return [qualname for _, qualname in sorted(found)]


def _scopes(planner: Planner, path: str, forward: Forward) -> list[str]:
    return [call.scope for call in planner.facts_of[path].calls
            if call.line in forward.sites.get(path, ()) and isinstance(call.func, Name)
            and call.func.id == forward.name and call.scope in planner.index.definitions]


def _relative(importer: str, imported: str) -> str:
    """`.name` when both modules are in one package (as the package's own imports are
    written), else the absolute name."""
    package, _, stem = imported.rpartition(".")
    if package and importer.rpartition(".")[0] == package:
        return f".{stem}"
    return imported
