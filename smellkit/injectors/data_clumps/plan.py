"""Which functions take a parameter object they only read fields of, and how they are called.

Data-clump injection replaces such a parameter by the fields it reads ("inline parameter
object"), so every call site must be known and rewritable. The analysis here is deliberately
conservative: a function qualifies only when its parameter is used for field reads (or handed on
whole to another qualifying function), no field is ever reassigned outside the class's
constructor, and every call of the function's name in the repository resolves to it with the
object passed as a plain name or attribute chain.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from smellkit.config import DEFAULT_EXCLUDE_DIRS
from smellkit.facts import Attr, CallSite, Definition, Expr, FileFacts, Name, Param
from smellkit.graphs.index import Index
from smellkit.injectors.base import InjectionContext
from smellkit.project import is_environment

CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__"})
SAFE_DECORATORS = frozenset({"staticmethod", "classmethod"})


@dataclass(frozen=True)
class Site:
    """One call of an exploded function: where, and which argument carries the object."""

    path: str
    scope: str
    line: int
    name: str
    callee: str
    position: int | None
    """Index among the call's positional arguments, or None when passed by keyword."""
    keyword: str | None
    positional_count: int


@dataclass
class Taker:
    """A function that takes an instance of the class as `param` and only reads its fields."""

    definition: Definition
    path: str
    param: str
    kind: str
    reads: frozenset[str]
    hands_to: frozenset[str] = frozenset()
    """Other takers this one passes the object to, whole."""
    sites: list[Site] = field(default_factory=list)

    @property
    def qualname(self) -> str:
        return self.definition.qualname


_WORD = re.compile(r"[A-Za-z_]\w*")
_OUTSIDE: weakref.WeakKeyDictionary[InjectionContext, Counter[str]] = \
    weakref.WeakKeyDictionary()
_OUTSIDE_FILES = 5000


def _code_words(source: str) -> Counter[str]:
    words: Counter[str] = Counter()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.NAME:
                words[token.string] += 1
            elif token.type == tokenize.STRING and "f" in token.string.split("'")[0].split(
                    '"')[0].lower():
                words.update(_WORD.findall(token.string))
    except (tokenize.TokenError, SyntaxError):
        words.update(_WORD.findall(source))
    return words


def outside_words(context: InjectionContext) -> Counter[str]:
    """Words of the Python files under the root that the analysis leaves out (tests, examples,
    docs), cached: code there may call a function or import a name an injection changes."""
    cached = _OUTSIDE.get(context)
    if cached is None:
        indexed = {facts.path for facts in context.index.modules.values()}
        cached = Counter()
        root = context.root
        seen = 0
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(name for name in dirs if not name.startswith(".")
                             and name not in DEFAULT_EXCLUDE_DIRS
                             and not is_environment(Path(folder, name)))
            for name in sorted(files):
                path = Path(folder, name)
                relative = path.relative_to(root).as_posix()
                if not name.endswith(".py") or relative in indexed or seen >= _OUTSIDE_FILES:
                    continue
                seen += 1
                try:
                    cached.update(set(_WORD.findall(path.read_text(encoding="utf-8",
                                                                   errors="replace"))))
                except OSError:
                    continue
        _OUTSIDE[context] = cached
    return cached


_PLAIN_KINDS = ("positional", "positional_only", "keyword_only")


def _own_params(definition: Definition) -> list[Param]:
    """The parameters callers pass: without the instance or class of a method."""
    params = list(definition.params)
    bound = definition.kind == "method" and "staticmethod" not in definition.decorators
    return params[1:] if bound else params


def _simple(expr: Expr) -> bool:
    """A name or an attribute chain: evaluating it once per field is as good as once."""
    while isinstance(expr, Attr):
        expr = expr.base
    return isinstance(expr, Name)


def class_fields(index: Index, cls: str) -> set[str]:
    """Annotated class attributes (dataclass, NamedTuple) and attributes set in `__init__`."""
    info = index.classes.get(cls)
    if info is None:
        return set()
    found = {item.name for item in info.attributes if item.kind == "class" and item.annotation}
    found.update(item.name for item in info.attributes
                 if item.kind == "instance" and item.scope.rpartition(".")[2] in CONSTRUCTORS)
    return {name for name in found if not name.startswith("__")}


class Planner:
    """The repository-wide facts the data-clump injector needs, computed once per context."""

    def __init__(self, context: InjectionContext):
        self.context = context
        self.index = context.index
        self.graph = context.analysis.call_graph
        self.facts_of: dict[str, FileFacts] = {facts.path: facts
                                               for facts in self.index.modules.values()}
        self.calls_by_name: dict[str, list[tuple[str, CallSite]]] = defaultdict(list)
        self.writes: dict[str, set[str]] = defaultdict(set)
        self.annotated: dict[str, list[tuple[FileFacts, Definition]]] = defaultdict(list)
        """class -> the functions with a parameter that holds its instances (by its annotation
        or, unannotated, by what every caller passes)."""
        self.typed: dict[tuple[str, str], str] = {}
        """(function, parameter) -> the one class of the repository the parameter holds."""
        self._words: dict[str, Counter[str]] = {}
        untyped: list[tuple[FileFacts, Definition, str]] = []
        for facts in self.index.modules.values():
            for call in facts.calls:
                if call.implicit:
                    continue
                func = call.func
                name = func.id if isinstance(func, Name) else \
                    func.attr if isinstance(func, Attr) else None
                if name is not None:
                    self.calls_by_name[name].append((facts.path, call))
            for definition in facts.definitions:
                if definition.kind not in ("function", "method"):
                    continue
                for param in _own_params(definition):
                    cls = self._annotated_class(definition, param.annotation)
                    if cls is not None:
                        self.typed[definition.qualname, param.name] = cls
                    elif not param.annotation and param.kind in _PLAIN_KINDS:
                        untyped.append((facts, definition, param.name))
            for access in facts.accesses:
                if access.write:
                    self.writes[access.attr].add(access.scope)
            for assignment in facts.assignments:
                if isinstance(assignment.target, Attr):
                    self.writes[assignment.target.attr].add(assignment.scope)

        self._type_by_callers(untyped)
        for facts in self.index.modules.values():
            for definition in facts.definitions:
                classes = {self.typed[key] for param in definition.params
                           if (key := (definition.qualname, param.name)) in self.typed}
                for cls in sorted(classes):
                    self.annotated[cls].append((facts, definition))

    def _annotated_class(self, definition: Definition, annotation: tuple[str, ...]) -> str | None:
        for text in annotation:
            cls = self.index.resolve_reference(definition.qualname, text)
            if cls is not None and cls in self.index.classes:
                return cls
        return None

    def _type_by_callers(self, untyped: list[tuple[FileFacts, Definition, str]]) -> None:
        """Unannotated parameters that the points-to analysis sees receive instances of one
        class of the repository and nothing else (most libraries annotate little): a parameter
        named `token` that every caller passes a `Token` is as good a parameter object as one
        annotated so. A parameter that also receives an outside object, a class or a function
        stays untyped."""
        solver = self.index.calls.solver
        if solver is None or not untyped:
            return
        values = solver.values_of([(definition.qualname, Name(name))
                                   for _, definition, name in untyped])
        for (_, definition, name), found in zip(untyped, values):
            classes = {value[2:] for value in found if value.startswith("i:")}
            if len(classes) == 1 and len(found) == 1:
                (cls,) = classes
                if cls in self.index.classes:
                    self.typed[definition.qualname, name] = cls

    def param_class(self, definition: Definition, name: str) -> str | None:
        """The one class of the repository a parameter holds instances of, or None."""
        return self.typed.get((definition.qualname, name))

    def words(self, path: str, name: str) -> int:
        """How often `name` occurs as a word in a file's code (f-strings included; comments,
        docstrings and other string literals not)."""
        if path not in self._words:
            self._words[path] = _code_words(self.context.source(path))
        return self._words[path][name]

    def free_names(self, taker: Taker, names: set[str]) -> bool:
        """None of `names` is already a name (local, global, parameter) inside the taker."""
        text = self.span(taker.path, taker.definition)
        return not any(re.search(rf"(?<![.\w]){re.escape(name)}\b", text) for name in names)

    def span(self, path: str, definition: Definition) -> str:
        lines = self.context.source(path).splitlines()
        return "\n".join(lines[definition.start_line - 1:definition.end_line])

    # -- takers ---------------------------------------------------------------------------------

    def takers(self, cls: str) -> dict[str, Taker]:
        """Every function that takes `cls` and qualifies, its call sites planned."""
        found: dict[str, Taker] = {}
        for facts, definition in self.annotated.get(cls, ()):
            taker = self._taker(facts, definition, cls)
            if taker is not None:
                found[taker.qualname] = taker
        # hand-offs must reach qualifying functions; drop the rest until nothing changes
        changed = True
        while changed:
            changed = False
            for qualname in list(found):
                if not found[qualname].hands_to <= found.keys():
                    del found[qualname]
                    changed = True
        for qualname in list(found):
            if not self.plan_sites(found[qualname], found):
                del found[qualname]
        # a function whose callers lost their plan cannot be exploded on its own
        changed = True
        while changed:
            changed = False
            for qualname in list(found):
                if not found[qualname].hands_to <= found.keys():
                    del found[qualname]
                    changed = True
        return found

    def _taker(self, facts: FileFacts, definition: Definition, cls: str) -> Taker | None:
        index = self.index
        if definition.kind not in ("function", "method") or definition.is_async:
            return None
        name = definition.name
        if name.startswith("__") or name.startswith("test"):
            return None
        if not set(definition.decorators) <= SAFE_DECORATORS:
            return None
        params = list(definition.params)
        first = 1 if definition.kind == "method" and "staticmethod" not in \
            definition.decorators else 0
        chosen = [param for param in params[first:]
                  if self.param_class(definition, param.name) == cls]
        if len(chosen) != 1:
            return None
        param = chosen[0]
        if param.default is not None or param.kind not in (
                "positional", "positional_only", "keyword_only"):
            return None
        if definition.kind == "method" and self.overridden(definition):
            return None
        reads: set[str] = set()
        uses = 0
        for access in facts.accesses:
            if access.scope != definition.qualname or access.receiver != Name(param.name):
                continue
            if access.write or access.called or access.attr.startswith("__"):
                return None
            reads.add(access.attr)
            uses += 1
        if not reads <= class_fields(index, cls):
            return None
        for attr in reads:
            member = index.member(cls, attr)
            if member is not None and index.definitions[member].kind != "class":
                return None  # a method or property, not a field
            if not {scope.rpartition(".")[2] for scope in self.writes.get(attr, ())} <= \
                    CONSTRUCTORS:
                return None  # reassigned somewhere: reading it later could differ
        hands: set[str] = set()
        for call in facts.calls:
            if call.scope != definition.qualname:
                continue
            passed = sum(arg == Name(param.name) for arg in call.args) + sum(
                value == Name(param.name) for _, value in call.kwargs)
            if passed:
                called = call.func.id if isinstance(call.func, Name) else \
                    call.func.attr if isinstance(call.func, Attr) else None
                targets = [callee for callee, data in self.graph.succ[definition.qualname].items()
                           if call.line in data.get("lines", ())
                           and callee.rpartition(".")[2] == called]
                if len(targets) != 1:
                    return None
                hands.add(targets[0])
                uses += passed
        if not reads and not hands:
            return None
        text = self.span(facts.path, definition)
        if len(re.findall(rf"\b{re.escape(param.name)}\b", text)) != uses + 1:
            return None  # used some other way (a closure, a bare read, a docstring mention)
        return Taker(definition, facts.path, param.name, param.kind, frozenset(reads),
                     frozenset(hands))

    def overridden(self, definition: Definition) -> bool:
        index = self.index
        cls = definition.parent
        for base in index.mro(cls)[1:]:
            if base not in index.classes and base not in ("object", "<builtin>.object"):
                return True  # an external base may declare it
            if definition.name in index.children.get(base, {}):
                return True
        return any(definition.name in index.children.get(sub, {})
                   for sub in index.descendants(cls))

    # -- call sites -----------------------------------------------------------------------------

    def plan_sites(self, taker: Taker, takers: dict[str, Taker]) -> bool:
        """Every call of the taker's name must resolve to it and pass the object plainly."""
        definition = taker.definition
        name = definition.name
        index = self.index
        params = list(definition.params)
        bound = 1 if definition.kind == "method" and "staticmethod" not in \
            definition.decorators else 0
        position = [param.name for param in params].index(taker.param)
        sites: list[Site] = []
        for path, call in self.calls_by_name.get(name, ()):
            data = self.graph.get_edge_data(call.scope, taker.qualname) if \
                self.graph.has_node(call.scope) else None
            if data is None or call.line not in data.get("lines", ()):
                return False  # a call of this name that may reach something else
            if any(getattr(arg, "tag", "") == "iter" for arg in call.args) or any(
                    key is None for key, _ in call.kwargs):
                return False
            func = call.func
            offset = bound
            if bound and isinstance(func, Attr) and isinstance(func.base, Name):
                target = index.resolve_name(call.scope, func.base.id)
                if target is not None and target in index.classes:
                    return False  # `Class.method(obj, ...)`: unusual, refuse
            if bound and isinstance(func, Name):
                return False
            keyword = [value for key, value in call.kwargs if key == taker.param]
            if keyword:
                if not _simple(keyword[0]):
                    return False
                sites.append(Site(path, call.scope, call.line, name, taker.qualname, None,
                                  taker.param, len(call.args)))
                continue
            at = position - offset
            if taker.kind == "keyword_only" or at >= len(call.args):
                return False
            arg = call.args[at]
            if not _simple(arg):
                return False
            sites.append(Site(path, call.scope, call.line, name, taker.qualname, at, None,
                              len(call.args)))
        if not sites:
            return False  # only reached dynamically (a visitor, a callback): refuse
        imports = [item for facts in self.index.modules.values() for item in facts.imports
                   if item.target.rpartition(".")[2] == name]
        if any(item.bound != name for item in imports):
            return False  # imported under another name: calls of the alias are not planned
        expected = len(sites) + 1 + len(imports)
        total = sum(self.words(path, name) for path in self.facts_of)
        if total != expected:
            return False  # referenced without being called: passed around as a value
        if outside_words(self.context)[name]:
            return False  # named by tests or examples the analysis does not see
        taker.sites = sites
        return True


def closure(takers: dict[str, Taker], chosen: set[str]) -> set[str]:
    """The chosen functions plus every taker they hand the object to, whole: once exploded, a
    function has no object left to hand on, only its fields."""
    result = set(chosen)
    stack = list(chosen)
    while stack:
        for other in takers[stack.pop()].hands_to:
            if other not in result:
                result.add(other)
                stack.append(other)
    return result


def files_of(takers: dict[str, Taker], chosen: set[str], cls_path: str | None) -> set[str]:
    files = {takers[name].path for name in chosen}
    files.update(site.path for name in chosen for site in takers[name].sites)
    if cls_path is not None:
        files.add(cls_path)
    return files


