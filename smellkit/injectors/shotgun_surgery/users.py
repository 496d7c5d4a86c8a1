"""What the three kinds of shotgun-surgery injection share: the modules that import the shared
responsibility (a constant, a helper, a decorator) and so may receive its copies.

A `User` is one such module: where it uses the imported name, and in which definitions. The
constant's, the helper's and the decorator's injections each pick users and rewrite them, and each
asks the same questions: where is a name written as a word, is it spelled in a string, which
names must a module import for code moved into it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from smellkit._internal import pyast
from smellkit.analysis.context import Context
from smellkit.analysis.keys import Scopes
from smellkit.config import is_test_path
from smellkit.errors import InjectionRefused
from smellkit.facts import FileFacts, Name
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.data_clumps.plan import outside_words


@dataclass(frozen=True)
class User:
    """A module that imports the constant (or helper, or decorator) by name at module level."""

    module: str
    path: str
    bound: str
    lines: tuple[int, ...]
    scopes: tuple[str, ...]
    tied: bool
    """It also imports something else from the constant's module, so the detector links the
    copies to the constant even when the value is one plain word."""


def word_lines(source: str, name: str) -> list[int]:
    """The line of each occurrence of `name` as a word (not an attribute), one per occurrence."""
    pattern = re.compile(rf"(?<![.\w]){re.escape(name)}\b")
    return [number for number, line in enumerate(source.splitlines(), 1)
            for _ in pattern.findall(line.split("#")[0])]


def home_reads(source: str, name: str, *, attribute: bool = False) -> list[int]:
    """The lines where a module reads `name` (a loaded name; `attribute`: also `x.name`, a
    method's calls): the uses that keep a definition alive in its own module. Words in
    docstrings, comments, `__all__` and the definition itself are no reads."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    return sorted(node.lineno for node in ast.walk(tree) if (
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)) or (
        attribute and isinstance(node, ast.Attribute) and node.attr == name
        and isinstance(node.ctx, ast.Load)))


def uses_outside_import(source: str, name: str, line: int) -> list[int]:
    """`word_lines` of `name` but those of the import statement starting on `line`: a
    parenthesised `from m import (\n    A,\n    NAME,\n)` names it on a line of its own, which
    is no use of it."""
    last = _import_ends(source).get(line, line)
    return [number for number in word_lines(source, name) if not line <= number <= last]


@lru_cache(maxsize=32)
def _import_ends(source: str) -> dict[int, int]:
    """The last line of each import statement, by its first line."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return {}
    return {node.lineno: node.end_lineno or node.lineno for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))}


def spelled(context: InjectionContext) -> frozenset[str]:
    """Every short string literal of the analysed code: a name spelled in a string may be
    looked up or imported by name (jinja2's compiled templates import `internalcode` from
    `jinja2.runtime` because `runtime.exported` lists it)."""
    return context.analysis.derived(_spelled)


def _spelled(analysis: Context) -> frozenset[str]:
    return frozenset(value for facts in analysis.index.modules.values()
                     for value, _ in facts.string_constants)


def collect_users(context: InjectionContext,
                  find: Callable[[FileFacts], tuple[User, bool] | None],
                  ) -> tuple[tuple[User, ...], frozenset[str]]:
    """Every module's use of one piece of knowledge, in path order, and the paths whose import of
    it must stay (`find` says, per module, whether it uses it and whether its import stays)."""
    users: list[User] = []
    keep: set[str] = set()
    for other in sorted(context.index.modules.values(), key=lambda item: item.path):
        found = find(other)
        if found is not None:
            users.append(found[0])
            if found[1]:
                keep.add(other.path)
    return tuple(users), frozenset(keep)


def importing_user(context: InjectionContext, facts: FileFacts, module: str,
                   name: str) -> tuple[User, bool] | None:
    """A module importing the helper by name at module level, and whether the import must stay
    (re-exported, star-imported, spelled in a string, or possibly imported by tests or examples
    from there)."""
    if facts.module == module or is_test_path(facts.path):
        return None
    imports = [item for item in facts.imports if item.scope == facts.module
               and item.is_from and not item.type_only and item.target == f"{module}.{name}"]
    if len(imports) != 1 or any(assignment.target == Name(imports[0].bound)
                                for assignment in facts.assignments):
        return None
    name = imports[0].bound  # perhaps an alias: `from m import helper as short`
    lines = uses_outside_import(context.source(facts.path), name, imports[0].line)
    if not lines:
        return None
    keep = must_keep(context, facts, name)
    scopes = Scopes(facts)
    return User(facts.module, facts.path, name, tuple(lines),
                tuple(sorted({scopes.at(number) for number in lines})), False), keep


def must_keep(context: InjectionContext, facts: FileFacts, name: str) -> bool:
    """Whether a name the module imports must stay bound there, used or not: it is
    re-exported, star-imported, spelled in a string of the module (jinja2's `runtime.exported`
    lists what compiled templates import from there), or possibly imported from there by tests
    or examples."""
    outside = outside_words(context)
    return any(value == name for value, _ in facts.string_constants) or \
        name in (facts.dunder_all or ()) or any(
        item.target == f"{facts.module}.{name}" for other in context.index.modules.values()
        for item in other.imports) or any(
        facts.module in targets for targets in context.index.star_imports.values()) or bool(
        outside[name] and outside[facts.module.rpartition(".")[2]])


def refuse_unused(user: User, keep: frozenset[str], facts: FileFacts) -> None:
    """Refuse a module whose import of the name must stay (`must_keep`) when the rewrite leaves
    it unused: an unused import gives the smelly code away (`__all__` counts as a use)."""
    if user.path in keep and user.bound not in (facts.dunder_all or ()):
        raise InjectionRefused(f"the import of {user.bound} must stay in {user.path} (named in "
                               "a string there, re-exported or imported from there) and would "
                               "be left unused")


def needed_imports(context: InjectionContext, qualname: str, module: str,
                   free: Sequence[str], user: User) -> list[str]:
    """Names of `module` the user module must import for code moved there from `qualname`
    that reads `free`; refused when it cannot (a name that means something else there)."""
    index = context.index
    adds: list[str] = []
    for name in free:
        there = index.resolve_name(qualname, name)
        here = index.resolve_name(user.module, name)
        if there is not None and here == there:
            continue
        if here is not None or word_lines(context.source(user.path), name):
            raise InjectionRefused(f"{name} means something else in {user.path}")
        if there is None and any(  # a module-level variable of the helper's module
                item.scope == module and item.target == Name(name)
                for item in index.modules[module].assignments):
            there = f"{module}.{name}"
        if there is None or there in index.modules or there.startswith("<builtin>."):
            raise InjectionRefused(f"{name} cannot be imported from {module}")
        adds.append(name)
    return adds
