"""Bypassed helpers: a one-expression function whose expression other modules spell out again.

A method of a module-level class counts too, `self` standing for the receiver
(`stream.next_if(x) is not None` for `TokenStream.skip_if`).

`def term_len(x): return len(strip_ansi(x))` makes one place responsible for how a length is
measured; `len(strip_ansi(line))` written out in other modules bypasses it, so a change of the rule
(say, also dropping OSC sequences) must be made at every copy. A copy is the helper's return
expression with each parameter standing for any expression (the same one wherever the parameter
occurs), every other name meaning the same thing as in the helper's module. Only helpers whose
expression is distinctive count: it makes at least two calls, or one call of something other than
a builtin that does more than hand the parameters on (`Markup(value)` is just a call of
`Markup`), not only calls of builtins and of the builtin types' methods on its parameters
(`sorted(self.keys())` is an idiom of the language; a module constant in it is knowledge), and it
has at least `MIN_NODES` syntax nodes.

The source of the modules that could hold a copy (they call every function the expression calls)
is parsed with `ast` once per run. The search needs no call graph: on big code a forked child
makes it while the call graph is built (`helper_copies`, one of the detector's `early` analyses).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from smellkit._internal import pyast
from smellkit.analysis.context import Context, read_lines
from smellkit.analysis.keys import Scopes
from smellkit.config import is_test_path
from smellkit.detectors.base import Example
from smellkit.facts import Attr, FileFacts, Name
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.models import Finding, Location, Severity

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

BUILTIN_METHODS = frozenset(
    name for kind in (dict, list, str, bytes, set, frozenset, tuple, int, float)
    for name in dir(kind) if not name.startswith("_"))
"""Methods of the builtin types: a helper built only from these and builtins is an idiom."""
MIN_NODES = 4
MAX_NODES = 40
_REFUSED = (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.ListComp,
            ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Starred, ast.JoinedStr)


class Source(Protocol):
    """What the search reads: the index and the files' lines (a detector's `Context` is one)."""

    @property
    def index(self) -> Index: ...

    def lines(self, path: str) -> list[str]: ...


class _IndexSource:
    """The index and the lines of its project's files, read once each."""

    def __init__(self, index: Index):
        self.index = index
        self.root = Path(index.root or ".")
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            self._lines[path] = read_lines(self.root, path)
        return self._lines[path]


@dataclass(frozen=True)
class Helper:
    """A module-level function whose body is one `return <expression>` (a docstring aside)."""

    qualname: str
    module: str
    path: str
    line: int
    params: tuple[str, ...]
    expr: ast.expr = field(compare=False, hash=False)
    calls: frozenset[str]
    """The last name of every function the expression calls (`sub` for `_ansi_re.sub`)."""
    free: tuple[str, ...]
    """Names the expression reads besides its parameters."""
    method: bool = False
    """A method of a module-level class: `self` is its first parameter, standing for the
    receiver of a call."""


def _called(node: ast.expr) -> str | None:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _forwards(expr: ast.expr, params: tuple[str, ...]) -> bool:
    """A call that only hands the parameters on: its copies are plain calls of the callee."""
    return isinstance(expr, ast.Call) and not expr.keywords and all(
        isinstance(arg, ast.Name) and arg.id in params for arg in expr.args)


def function_body(context: Source, facts: FileFacts, qualname: str) -> list[ast.stmt] | None:
    """The statements of a (non-async) function's body, its docstring left out, parsed from its
    own lines; None when they do not parse as one function."""
    definition = context.index.definitions[qualname]
    text = "\n".join(context.lines(facts.path)[definition.start_line - 1:definition.end_line])
    try:
        tree = pyast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body


def _helper(context: Source, facts: FileFacts, qualname: str) -> Helper | None:
    definition = context.index.definitions[qualname]
    method = definition.kind == "method"
    if definition.decorators or definition.is_async or any(
            param.kind not in ("positional", "positional_only") or param.default is not None
            for param in definition.params) or not definition.params:
        return None
    body = function_body(context, facts, qualname)
    if body is None or len(body) != 1 or not isinstance(body[0], ast.Return) \
            or body[0].value is None:
        return None
    expr = body[0].value
    nodes = list(ast.walk(expr))
    params = tuple(param.name for param in definition.params)
    if not MIN_NODES <= len(nodes) <= MAX_NODES or any(isinstance(node, _REFUSED)
                                                       for node in nodes):
        return None
    calls = [name for node in nodes if isinstance(node, ast.Call)
             if (name := _called(node)) is not None]
    names = {node.id for node in nodes if isinstance(node, ast.Name)}
    if not calls or not set(params) <= names or definition.name in names:
        return None  # no call, an unused parameter, or recursion
    if len(calls) < 2 and (all(name in BUILTIN_NAMES for name in calls) or _forwards(expr, params)):
        return None  # `str(value)`, `Markup(value)`: a call of someone else's function
    if all(name in BUILTIN_NAMES or name in BUILTIN_METHODS for name in calls) and \
            names - set(params) <= BUILTIN_NAMES:
        return None  # `sorted(self.keys())`: an idiom of the language, nobody's knowledge
    if method and any(isinstance(node, ast.Attribute) and node.attr.startswith("__")
                      for node in nodes):
        return None  # name-mangled or dunder attributes mean something else elsewhere
    free = tuple(sorted(names - set(params)))
    return Helper(qualname, facts.module, facts.path, definition.start_line, params, expr,
                  frozenset(calls), free, method)


def helpers(context: Source) -> list[Helper]:
    """Every module-level one-expression function outside tests, by qualname."""
    found: list[Helper] = []
    for facts in sorted(context.index.modules.values(), key=lambda item: item.path):
        if is_test_path(facts.path):
            continue
        for definition in facts.definitions:
            if not ((definition.kind == "function" and definition.parent == facts.module) or
                    (definition.kind == "method" and not definition.name.startswith("__")
                    and context.index.definitions[definition.parent].parent == facts.module)):
                continue
            measure = definition.measure
            if measure is not None and measure.sloc > 12:
                continue
            helper = _helper(context, facts, definition.qualname)
            if helper is not None:
                found.append(helper)
    return found


class Copies:
    """Finds copies of helpers' expressions, parsing each module at most once."""

    def __init__(self, context: Source):
        self.context = context
        self.nodes: dict[str, dict[object, list[tuple[int, ast.AST]]] | None] = {}
        self.called: dict[str, set[str]] = {}
        self.words: dict[str, frozenset[str]] = {}

    def _calls(self, facts: FileFacts) -> set[str]:
        if facts.path not in self.called:
            names: set[str] = set()
            for call in facts.calls:
                func = call.func
                if isinstance(func, Name):
                    names.add(func.id)
                elif isinstance(func, Attr):
                    names.add(func.attr)
            self.called[facts.path] = names
        return self.called[facts.path]

    def _words(self, path: str) -> frozenset[str]:
        """Every identifier-like word of the module's text: a copy must contain the helper's
        names, so most modules are ruled out without being parsed."""
        if path not in self.words:
            self.words[path] = frozenset(_WORD.findall("\n".join(self.context.lines(path))))
        return self.words[path]

    def _nodes(self, path: str) -> dict[object, list[tuple[int, ast.AST]]] | None:
        """The module's nodes by shape (`_shape`), each list in `ast.walk` order; one parse and
        one walk per module, however many helpers are looked for (a walk per helper made this
        the slowest part of a scan of a large repository)."""
        if path not in self.nodes:
            try:
                tree = pyast.parse("\n".join(self.context.lines(path)))
            except SyntaxError:
                self.nodes[path] = None
                return None
            table: dict[object, list[tuple[int, ast.AST]]] = {}
            for position, node in enumerate(ast.walk(tree)):
                table.setdefault(_shape(node), []).append((position, node))
            self.nodes[path] = table
        return self.nodes[path]

    def of(self, helper: Helper) -> list[tuple[str, int, str]]:
        """(path, line, module) of each copy of the helper's expression in other modules."""
        found: list[tuple[str, int, str]] = []
        shape = _shape(helper.expr, helper.params)
        words = set(helper.free) | {node.attr for node in ast.walk(helper.expr)
                                    if isinstance(node, ast.Attribute)}
        for facts in sorted(self.context.index.modules.values(), key=lambda item: item.path):
            if facts.module == helper.module or is_test_path(facts.path) or \
                    not helper.calls <= self._calls(facts) or \
                    not words <= self._words(facts.path):
                continue
            table = self._nodes(facts.path)
            if table is None:
                continue
            scopes: Scopes | None = None
            for node in _candidates(table, shape, helper):
                bound: dict[str, str] = {}
                if not match(helper.expr, node, helper.params, bound):
                    continue
                line = getattr(node, "lineno", 0)
                scopes = scopes or Scopes(facts)
                if self._same_names(helper, facts, scopes, line) and \
                        not self._own_receiver(helper, bound, scopes.at(line)):
                    found.append((facts.path, line, facts.module))
        return found

    def _own_receiver(self, helper: Helper, bound: dict[str, str], scope: str) -> bool:
        """Whether a method helper's `self` stands for the `self` of a class outside the
        helper's hierarchy: `self.evaluate(arg[0])` there calls that class's own method."""
        if not helper.method or bound.get(helper.params[0]) != _SELF:
            return False
        index = self.context.index
        owner = helper.qualname.rpartition(".")[0]
        definition = index.definitions.get(scope)
        while definition is not None and definition.kind != "class":
            definition = index.definitions.get(definition.parent)
        return definition is not None and owner not in index.mro(definition.qualname)

    def _same_names(self, helper: Helper, facts: FileFacts, scopes: Scopes, line: int) -> bool:
        """Every free name of the expression means there what it means in the helper."""
        scope = scopes.at(line)
        for name in helper.free:
            here = meaning(self.context, scope, name)
            there = meaning(self.context, helper.qualname, name)
            if here is None and there is None and name in BUILTIN_NAMES:
                continue
            if here is None or here != there:
                return False
        return True


def meaning(context: Source, scope: str, name: str) -> str | None:
    """What a name read in `scope` refers to; a module-level variable (which the index leaves
    to the call resolver) by its dotted name, like an import of it from elsewhere."""
    index = context.index
    found = index.resolve_name(scope, name)
    if found is None:
        module = index.scope_module(scope)
        facts = index.modules.get(module)
        if facts is not None and any(item.scope == module and item.target == Name(name)
                                     for item in facts.assignments):
            return f"{module}.{name}"
        return None
    for _ in range(8):  # `pkg.rules.floor` imported from `math` is `math.floor`
        module, _, attr = found.rpartition(".")
        facts = index.modules.get(module)
        item = None if facts is None else next(
            (item for item in facts.imports if item.scope == module and item.bound == attr
             and not item.type_only), None)
        if item is None:
            break
        found = item.target
    return found


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SELF = ast.dump(ast.Name(id="self", ctx=ast.Load()))


def _candidates(table: dict[object, list[tuple[int, ast.AST]]], shape: object,
                helper: Helper) -> list[ast.AST]:
    """The nodes that can match the helper's expression: those of its shape, or every call (in
    walk order) when a parameter is the callee."""
    expr = helper.expr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
            expr.func.id in helper.params:
        calls = sorted(item for key, items in table.items()
                       if isinstance(key, tuple) and key[0] is ast.Call for item in items)
        return [node for _, node in calls]
    return [node for _, node in table.get(shape, [])]


def _shape(node: ast.AST, params: tuple[str, ...] = ()) -> object:
    """What any node matching `node` as a pattern (`match`) shares with it: its type, and the
    callee's or attribute's name unless a parameter stands there."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id not in params:
            return ast.Call, func.id
        if isinstance(func, ast.Attribute):
            return ast.Call, "." + func.attr
        return ast.Call, None
    if isinstance(node, ast.Attribute):
        return ast.Attribute, node.attr
    if isinstance(node, ast.BinOp | ast.UnaryOp | ast.BoolOp):
        return type(node), type(node.op)
    return type(node)


def match(pattern: ast.AST, node: ast.AST, params: tuple[str, ...],
           bound: dict[str, str]) -> bool:
    """Whether `node` is `pattern` with each parameter standing for one expression."""
    if isinstance(pattern, ast.Name) and pattern.id in params:
        if not isinstance(node, ast.expr) or isinstance(node, ast.Starred):
            return False
        dump = ast.dump(node)
        return bound.setdefault(pattern.id, dump) == dump
    if type(pattern) is not type(node):
        return False
    for name, value in ast.iter_fields(pattern):
        if name == "ctx":
            continue
        other = getattr(node, name, None)
        if isinstance(value, list):
            if not isinstance(other, list) or len(value) != len(other):
                return False
            if not all(match(item, counterpart, params, bound) if isinstance(item, ast.AST)
                       else item == counterpart for item, counterpart in zip(value, other)):
                return False
        elif isinstance(value, ast.AST):
            if not isinstance(other, ast.AST) or not match(value, other, params, bound):
                return False
        elif value != other:
            return False
    return True


def helper_copies(index: Index) -> dict[str, list[tuple[str, int, str]]]:
    """Every helper's copies in other modules, by the helper's qualname, in `helpers` order."""
    source = _IndexSource(index)
    copies = Copies(source)
    return {helper.qualname: copies.of(helper) for helper in helpers(source)}


def bypassed(context: Context, min_copies: int) -> Iterator[tuple[str, list[tuple[str, int,
                                                                                  str]]]]:
    """Each helper (by qualname) with at least `min_copies` copies in other modules, and the
    copies."""
    for qualname, found in context.index.derived(helper_copies).items():
        if len(found) >= min_copies:
            yield qualname, found


def severity_of(ratio: float) -> Severity:
    """How far past the threshold (1.0 = just there): info, warning from 1, error from 2."""
    return "error" if ratio >= 2.0 else "warning" if ratio >= 1.0 else "info"


def scattered(places: list[Location], definition: Location | None, ratio: float, message: str,
              evidence: dict[str, object]) -> Finding:
    """A finding of knowledge written out in many places: at the first place, the others and the
    definition that should have been used related."""
    return Finding(smell="shotgun_surgery", location=places[0], severity=severity_of(ratio),
                   confidence=0.7, message=message, evidence=evidence,
                   related=(*places[1:], *((definition,) if definition is not None else ())))


def helper_findings(context: Context, minimum: int) -> Iterator[Finding]:
    """One finding per bypassed helper, at its first copy."""
    index = context.index
    for helper, copies in bypassed(context, minimum):
        places = [context.line_location(Scopes(index.modules[module]).at(line), path, line)
                  for path, line, module in copies]
        files = {path for path, _, _ in copies}
        definition = context.location(helper)
        yield scattered(
            places, definition, len(copies) / minimum / 2,
            message=(f"`{helper}` is the one place for its expression, but "
                     f"{len(copies)} places in {len(files)} other modules write it out "
                     "instead of calling it: changing the helper will not change them."),
            evidence={"rule": f"helper's expression copied >= {minimum} times in other modules",
                      "form": "helper", "helper": helper,
                      "occurrences": len(copies), "files": len(files)})


HELPER_EXAMPLES = (
    Example(
        "a helper's expression written out in another module instead of calling the helper",
        {"pkg/__init__.py": "",
         "pkg/text.py": ("import re\n\n_ansi = re.compile('\\x1b\\\\[[0-9;]*m')\n\n\n"
                         "def strip_ansi(value):\n    return _ansi.sub('', value)\n\n\n"
                         "def visible_len(value):\n    return len(strip_ansi(value))\n"),
         "pkg/table.py": ("from pkg.text import strip_ansi\n\n\n"
                          "def widths(rows):\n"
                          "    return [len(strip_ansi(cell)) for row in rows for cell in row]\n"
                          "\n\ndef pad(cell, width):\n"
                          "    return cell + ' ' * (width - len(strip_ansi(cell)))\n")},
        ("pkg.table.widths",)),
    Example(
        "a wrapper that only hands its parameter on is no responsibility of its own",
        {"pkg/__init__.py": "",
         "pkg/markup.py": ("from html import escape\n\n\n"
                           "def safe(value):\n    return escape(value)\n"),
         "pkg/page.py": ("from html import escape\n\n\n"
                         "def title(text):\n    return escape(text)\n\n\n"
                         "def body(text):\n    return escape(text)\n")},
        ()),
)
