"""Bypassed marker decorators, a form of shotgun surgery: a decorator that marks the function it
decorates (sets an attribute on it, or records it in a registry) and hands it back, written out
again in other modules as statements after the definitions instead of being applied.

`@pass_context` is the one place that says how a function asks for the template context
(`f.jinja_pass_arg = _PassArg.context`); `do_title.jinja_pass_arg = _PassArg.context` written
after definitions elsewhere bypasses it, so a change of how the mark is made (another attribute,
a registry) must be made at every copy. A copy is a statement equal to one of the decorator's
marking statements with its parameter standing for the name of a function or class defined in
the module (`wrapper.mark = ...` after `def wrapper`, or where `wrapper = mark(wrapper)` stood),
every other name meaning what it means in the decorator's module. Only modules whose facts show
the mark (an assignment of the attribute, a call of the registry's method) are parsed, once each.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from smellkit._internal import pyast
from smellkit.analysis.context import Context
from smellkit.analysis.keys import Scopes
from smellkit.config import is_test_path
from smellkit.detectors.base import Example
from smellkit.detectors.shotgun_surgery.helpers import function_body, match, meaning, scattered
from smellkit.facts import Attr, FileFacts, Name
from smellkit.models import Finding

MAX_MARKS = 3


@dataclass(frozen=True)
class Marker:
    """A module-level `def mark(f): <1 to 3 marking statements>; return f`."""

    qualname: str
    module: str
    path: str
    line: int
    param: str
    statements: tuple[ast.stmt, ...] = field(compare=False, hash=False)
    free: tuple[str, ...]
    """Names the marking statements read besides the parameter."""
    attrs: frozenset[str]
    """Attributes the statements set on the parameter."""
    calls: frozenset[str]
    """The last name of each function the statements call."""


def _marking(statement: ast.stmt, param: str) -> bool:
    """`param.attr = value` (the value not reading the parameter) or a call that passes the
    parameter, or something of it, to a function that is not the parameter's."""
    def reads(node: ast.AST) -> bool:
        return any(isinstance(item, ast.Name) and item.id == param for item in ast.walk(node))

    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == param and not reads(statement.value))
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        return not reads(call.func) and any(reads(arg) for arg in
                                            [*call.args, *(item.value for item in call.keywords)])
    return False


def _marker(context: Context, facts: FileFacts, qualname: str) -> Marker | None:
    definition = context.index.definitions[qualname]
    params = definition.params
    if definition.decorators or definition.is_async or len(params) != 1 or \
            params[0].kind not in ("positional", "positional_only") or \
            params[0].default is not None:
        return None
    param = params[0].name
    if not any(item.scope == qualname and item.value == Name(param) for item in facts.returns):
        return None  # cheap: most functions do not hand their parameter back
    body = function_body(context, facts, qualname)
    if body is None or not 2 <= len(body) <= MAX_MARKS + 1 or \
            not isinstance(body[-1], ast.Return) or \
            not isinstance(body[-1].value, ast.Name) or body[-1].value.id != param:
        return None
    statements = tuple(body[:-1])
    if not all(_marking(statement, param) for statement in statements):
        return None
    names = {node.id for statement in statements for node in ast.walk(statement)
             if isinstance(node, ast.Name)}
    attrs = frozenset(statement.targets[0].attr for statement in statements
                      if isinstance(statement, ast.Assign)
                      and isinstance(statement.targets[0], ast.Attribute))
    calls = frozenset(
        call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id
        for statement in statements if isinstance(statement, ast.Expr)
        and isinstance(call := statement.value, ast.Call)
        and isinstance(call.func, (ast.Attribute, ast.Name)))
    return Marker(qualname, facts.module, facts.path, definition.start_line, param, statements,
                  tuple(sorted(names - {param})), attrs, calls)


def markers(context: Context) -> list[Marker]:
    """Every module-level marker decorator outside tests."""
    found: list[Marker] = []
    for facts in sorted(context.index.modules.values(), key=lambda item: item.path):
        if is_test_path(facts.path):
            continue
        for definition in facts.definitions:
            measure = definition.measure
            if definition.kind != "function" or definition.parent != facts.module or (
                    measure is not None and measure.sloc > 12):
                continue
            marker = _marker(context, facts, definition.qualname)
            if marker is not None:
                found.append(marker)
    return found


def _shows(facts: FileFacts, marker: Marker) -> bool:
    """Whether the module's facts show a statement that could be a copy."""
    if marker.attrs and not any(isinstance(item.target, Attr) and item.target.attr in marker.attrs
                                for item in facts.assignments):
        return False
    return not marker.calls or any(
        (call.func.attr if isinstance(call.func, Attr) else
         call.func.id if isinstance(call.func, Name) else None) in marker.calls
        for call in facts.calls)


def _blocks(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def copies(context: Context, marker: Marker) -> list[tuple[str, int, str]]:
    """(path, line, qualname of the definition marked) of each copy in other modules: the
    first marking statement, when all of them follow the definition's block."""
    found: list[tuple[str, int, str]] = []
    for facts in sorted(context.index.modules.values(), key=lambda item: item.path):
        if facts.module == marker.module or is_test_path(facts.path) or \
                not _shows(facts, marker):
            continue
        try:
            tree = pyast.parse("\n".join(context.lines(facts.path)))
        except SyntaxError:
            continue
        scopes = Scopes(facts)
        everywhere: dict[str, list[ast.stmt]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                everywhere.setdefault(ast.dump(ast.Name(id=node.name, ctx=ast.Load())),
                                      []).append(node)
        for block in _blocks(tree):
            for position, statement in enumerate(block):
                bound: dict[str, str] = {}
                if not match(marker.statements[0], statement, (marker.param,), bound) or \
                        bound.get(marker.param) not in everywhere:
                    continue
                rest = block[position + 1:position + len(marker.statements)]
                if len(rest) != len(marker.statements) - 1 or not all(
                        match(pattern, item, (marker.param,), dict(bound))
                        for pattern, item in zip(marker.statements[1:], rest)):
                    continue
                here = [item for item in everywhere[bound[marker.param]] if item in block]
                before = [item for item in everywhere[bound[marker.param]]
                          if item.lineno < statement.lineno]
                if not here and not before:
                    continue
                marked = scopes.at((here or before)[-1].lineno)
                if all(meaning(context, marked, name) == meaning(context, marker.qualname, name)
                       for name in marker.free):
                    found.append((facts.path, statement.lineno, marked))
    return sorted(found)


def marker_findings(context: Context, minimum: int) -> Iterator[Finding]:
    """One finding per marker decorator written out at least `minimum` times elsewhere."""
    for marker in markers(context):
        found = copies(context, marker)
        if len(found) < minimum:
            continue
        places = [context.line_location(marked, path, line) for path, line, marked in found]
        files = {path for path, _, _ in found}
        definition = context.location(marker.qualname)
        yield scattered(
            places, definition, len(found) / minimum / 2,
            message=(f"`{marker.qualname}` is the one place that says how a definition is "
                     f"marked, but {len(found)} definitions in {len(files)} other modules are "
                     "marked by hand: changing the decorator will not change them."),
            evidence={"rule": f"marker decorator written out >= {minimum} times in other "
                              "modules", "form": "decorator", "decorator": marker.qualname,
                      "occurrences": len(found), "files": len(files)})


MARKER_EXAMPLES = (
    Example(
        "a marking decorator written out by hand after two definitions of another module",
        {"pkg/__init__.py": "",
         "pkg/marks.py": ("def pass_context(f):\n    f.needs_context = True\n    return f\n"),
         "pkg/filters.py": ("def title(context, value):\n    return value.title()\n\n\n"
                            "title.needs_context = True\n\n\n"
                            "def upper(context, value):\n    return value.upper()\n\n\n"
                            "upper.needs_context = True\n")},
        ("pkg.filters.title",)),
    Example(
        "the decorator applied where it is needed is the cure",
        {"pkg/__init__.py": "",
         "pkg/marks.py": ("def pass_context(f):\n    f.needs_context = True\n    return f\n"),
         "pkg/filters.py": ("from pkg.marks import pass_context\n\n\n"
                            "@pass_context\ndef title(context, value):\n"
                            "    return value.title()\n\n\n"
                            "@pass_context\ndef upper(context, value):\n"
                            "    return value.upper()\n")},
        ()),
)
