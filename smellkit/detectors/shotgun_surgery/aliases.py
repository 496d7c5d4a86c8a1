"""Bypassed type aliases, a form of shotgun surgery: a module-level type alias whose expansion
other modules write out again in their annotations instead of naming the alias.

`StrSequenceOrSet = typing.Union[typing.Sequence[str], typing.AbstractSet[str]]` makes one place
say which collections of names an API accepts; `only: typing.Union[typing.Sequence[str],
typing.AbstractSet[str]] | None` written in another module bypasses it, so widening the type
(say, to any iterable) must be made at every copy. An alias is a module-level name bound once,
outside tests, to a typing subscript (`t.Callable[..., t.Any]`, `dict[str, Any]`), a union
(`A | B` with a subscript or `None` among its parts), an annotation `X: TypeAlias = ...`, or a
`type X = ...` statement (Python 3.12); aliases written under `if TYPE_CHECKING:` count as well,
their uses being string annotations or postponed ones.

Expansions are compared normalised (`normalise`): every name by the dotted name it refers to
after import resolution (`t.Union` and `typing.Union` alike, `typing_extensions` as `typing`),
`Union[A, B]`, `Optional[A]` and `A | B` as one unordered union. A copy is an annotation (of a
parameter, a return, an annotated assignment; a string annotation parsed) in another module
holding the expansion, or a union holding all of its members (`A | B | None` holds `A | B`).
Only expansions of at least `MIN_LEAVES` names count (`Callable[[Any], Any]` is a validator in
one annotation and a serializer in the next; four names make one piece of knowledge). A copy
counts in any other module, whether it imports from the alias's module or not: writing the type
out is what drops the import, so a copy must not need it to be seen; and a private alias counts
like a public one (the privacy is a convention inside the package, the type is still named in
one place).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from smellkit._internal import pyast
from smellkit.analysis.context import Context
from smellkit.analysis.keys import Scopes
from smellkit.config import is_test_path
from smellkit.detectors.base import Example
from smellkit.detectors.shotgun_surgery.helpers import Source, scattered
from smellkit.facts import FileFacts, Name
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.models import Finding

MIN_LEAVES = 4
"""Fewer names make no alias whose copies say the same thing: `Callable[[Any], Any]` is a
validator in one annotation and a serializer or a key function in the next."""

Norm = tuple[object, ...]
"""A normalised type expression: ("name", dotted), ("const", repr), ("sub", base, args),
("list", items), ("union", frozenset of members) or ("other", dump)."""

_GENERIC_MODULES = ("typing.", "typing_extensions.", "collections.abc.")
_GENERIC_BUILTINS = frozenset({"type", "list", "dict", "tuple", "set", "frozenset"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BINDING = re.compile(r"^(?:type\s+\w+|\s*\w+\s*(?::[^=\n]*)?=[^=\n][^\n]*[\[|])", re.M)
"""A line that may bind a type alias: modules without one are not parsed."""


@dataclass(frozen=True)
class Alias:
    """A module-level type alias."""

    qualname: str
    module: str
    path: str
    line: int
    expansion: Norm
    value: ast.expr = field(compare=False, hash=False)
    words: frozenset[str]
    """The last part of every name the expansion reads: a module without all of them as words
    holds no copy and is not parsed."""
    type_checking: bool
    """Defined under `if TYPE_CHECKING:`: it exists for the type checker only."""

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]


class Names:
    """How a module's names resolve to dotted names: its module-level imports (those under
    TYPE_CHECKING too, annotations read them), its own definitions and variables, builtins."""

    def __init__(self, source: Source, facts: FileFacts):
        self.index = source.index
        self.module = facts.module
        self.imports = {item.bound: item for item in facts.imports
                        if item.scope == facts.module and item.bound != "*"}
        self.bound = {bound: item.target for bound, item in self.imports.items()}
        self.own = {definition.name for definition in facts.definitions
                    if definition.parent == facts.module} | {
            item.target.id for item in facts.assignments
            if item.scope == facts.module and isinstance(item.target, Name)}

    def dotted(self, node: ast.expr) -> str | None:
        """The dotted name a `Name` or attribute chain refers to, or None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        head = node.id
        if head in self.bound:
            base = self.bound[head]
        elif head in self.own:
            base = f"{self.module}.{head}"
        elif head in BUILTIN_NAMES:
            base = head
        else:
            return None
        return canonical(self.index, ".".join([base, *reversed(parts)]))


def canonical(index: object, dotted: str) -> str:
    """A dotted name through the re-exports of the repository's modules (`pkg.Alias` imported
    in `pkg/__init__.py` from `pkg.types` is `pkg.types.Alias`), `typing_extensions` as
    `typing`."""
    modules = getattr(index, "modules", {})
    for _ in range(8):
        module, _, attr = dotted.rpartition(".")
        facts = modules.get(module)
        item = None if facts is None else next(
            (item for item in facts.imports if item.scope == module and item.bound == attr),
            None)
        if item is None or item.target == dotted:
            break
        dotted = item.target
    if dotted.startswith("typing_extensions."):
        dotted = "typing." + dotted.partition(".")[2]
    return dotted


def normalise(node: ast.expr, names: Names, *, strict: bool = False) -> Norm | None:
    """The normalised form of a type expression; with `strict`, None for any part that is not
    a name, `None`, `...`, a subscript, a list or a `|` union (an alias's value must be all
    type), else such parts become opaque."""
    def walk(item: ast.expr) -> Norm | None:
        if isinstance(item, ast.Name | ast.Attribute):
            dotted = names.dotted(item)
            if dotted is not None:
                return ("name", dotted)
            return None if strict else ("other", ast.dump(item))
        if isinstance(item, ast.Constant) and (item.value is None or item.value is Ellipsis):
            return ("const", repr(item.value))
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and not strict:
            try:
                parsed = pyast.parse(item.value.strip(), mode="eval").body
            except SyntaxError:
                return ("other", ast.dump(item))
            return walk(parsed)
        if isinstance(item, ast.BinOp) and isinstance(item.op, ast.BitOr):
            left, right = walk(item.left), walk(item.right)
            if left is None or right is None:
                return None
            return _union([left, right])
        if isinstance(item, ast.List):
            parts = [walk(element) for element in item.elts]
            return None if any(part is None for part in parts) else ("list", tuple(parts))
        if isinstance(item, ast.Subscript):
            base = walk(item.value)
            elements = item.slice.elts if isinstance(item.slice, ast.Tuple) else [item.slice]
            args = [walk(element) for element in elements]
            if base is None or any(arg is None for arg in args):
                return None
            typed = [arg for arg in args if arg is not None]
            if base == ("name", "typing.Union"):
                return _union(typed)
            if base == ("name", "typing.Optional") and len(typed) == 1:
                return _union([typed[0], ("const", "None")])
            return ("sub", base, tuple(typed))
        return None if strict else ("other", ast.dump(item))

    return walk(node)


def _union(members: list[Norm]) -> Norm:
    flat: set[Norm] = set()
    for member in members:
        if member[0] == "union":
            flat.update(member[1])  # type: ignore[arg-type]
        else:
            flat.add(member)
    return ("union", frozenset(flat))


def leaves(norm: Norm) -> int:
    """Names and constants in a normalised expression."""
    return sum(1 for _ in _nodes(norm))


def holds(norm: Norm, expansion: Norm) -> bool:
    """Whether the normalised annotation contains the expansion (a union: all its members)."""
    if norm == expansion:
        return True
    kind = norm[0]
    if kind == "union":
        members: frozenset[Norm] = norm[1]  # type: ignore[assignment]
        if expansion[0] == "union" and expansion[1] <= members:  # type: ignore[operator]
            return True
        return any(holds(member, expansion) for member in members)
    if kind == "sub":
        return holds(norm[1], expansion) or any(  # type: ignore[arg-type]
            holds(arg, expansion) for arg in norm[2])  # type: ignore[attr-defined]
    if kind == "list":
        return any(holds(item, expansion) for item in norm[1])  # type: ignore[attr-defined]
    return False


def _typing(value: ast.expr, names: Names) -> bool:
    """A subscript of a generic (`typing`, `collections.abc`, a builtin collection), or a `|`
    union with one among its parts or `None`: a type, not a runtime subscript or flag union."""
    if isinstance(value, ast.Subscript):
        base = names.dotted(value.value)
        return base is not None and (base.startswith(_GENERIC_MODULES)
                                     or base in _GENERIC_BUILTINS)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        return any((isinstance(part, ast.Constant) and part.value is None) or _typing(part, names)
                   for part in (value.left, value.right))
    return False


def _nodes(norm: Norm) -> Iterator[tuple[object, object]]:
    """The leaves of a normalised expression, as (kind, value)."""
    kind = norm[0]
    if kind in ("name", "const", "other"):
        yield kind, norm[1]
    elif kind == "sub":
        yield from _nodes(norm[1])  # type: ignore[arg-type]
        for arg in norm[2]:  # type: ignore[attr-defined]
            yield from _nodes(arg)
    else:
        for item in norm[1]:  # type: ignore[attr-defined]
            yield from _nodes(item)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _bindings(tree: ast.Module) -> Iterator[tuple[str, ast.expr, int, bool, bool]]:
    """(name, value, line, declared a TypeAlias, under TYPE_CHECKING) of each module-level
    binding of a name to a value."""
    def block(body: list[ast.stmt], checking: bool) -> Iterator[tuple[str, ast.expr, int, bool,
                                                                      bool]]:
        for statement in body:
            if isinstance(statement, ast.If) and _type_checking(statement.test):
                yield from block(statement.body, True)
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], ast.Name):
                yield statement.targets[0].id, statement.value, statement.lineno, False, checking
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                    and statement.value is not None:
                declared = ast.unparse(statement.annotation).rpartition(".")[2] == "TypeAlias"
                yield statement.target.id, statement.value, statement.lineno, declared, checking
            elif type(statement).__name__ == "TypeAlias":  # `type X = ...` (Python 3.12)
                name, value = (getattr(statement, field, None) for field in ("name", "value"))
                if isinstance(name, ast.Name) and isinstance(value, ast.expr):
                    yield name.id, value, statement.lineno, True, checking

    return block(tree.body, False)


def parse(source: Source, path: str) -> ast.Module | None:
    try:
        return pyast.parse("\n".join(source.lines(path)))
    except SyntaxError:
        return None


def aliases(source: Source) -> list[Alias]:
    """Every module-level type alias outside tests, bound once in its module."""
    found: list[Alias] = []
    for facts in sorted(source.index.modules.values(), key=lambda item: item.path):
        if is_test_path(facts.path) or not _BINDING.search("\n".join(source.lines(facts.path))):
            continue
        tree = parse(source, facts.path)
        if tree is None:
            continue
        bindings = list(_bindings(tree))
        module_level = [item.target.id for item in facts.assignments
                        if item.scope == facts.module and isinstance(item.target, Name)]
        bound = [name for name, *_ in bindings]
        names = Names(source, facts)
        for name, value, line, declared, checking in bindings:
            once = max(bound.count(name), module_level.count(name)) == 1
            if not once or not (declared or isinstance(value, ast.Subscript | ast.BinOp)):
                continue
            norm = normalise(value, names, strict=True)
            if norm is None or not (declared or _typing(value, names)) or leaves(norm) < MIN_LEAVES:
                continue
            words = frozenset(str(dotted).rpartition(".")[2] for kind, dotted in _nodes(norm)
                              if kind == "name")
            found.append(Alias(f"{facts.module}.{name}", facts.module, facts.path, line, norm,
                               value, words, checking))
    return found


def annotated(tree: ast.Module) -> Iterator[tuple[ast.expr, int]]:
    """Every annotation of the module with the line of the definition or statement holding
    it (a parameter's: its own line)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                        *(item for item in (arguments.vararg, arguments.kwarg) if item)]:
                if arg.annotation is not None:
                    yield arg.annotation, arg.lineno
            if node.returns is not None:
                yield node.returns, node.lineno
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation, node.lineno


def copies(source: Source, alias: Alias) -> list[tuple[str, int, str]]:
    """(path, line, module) of each annotation of another module holding the alias's
    expansion, in a module that may mean it (see the module docstring)."""
    found: list[tuple[str, int, str]] = []
    for facts in sorted(source.index.modules.values(), key=lambda item: item.path):
        if facts.module == alias.module or is_test_path(facts.path):
            continue
        if not alias.words <= set(_WORD.findall("\n".join(source.lines(facts.path)))):
            continue
        tree = parse(source, facts.path)
        if tree is None:
            continue
        names = Names(source, facts)
        for annotation, line in annotated(tree):
            norm = normalise(annotation, names)
            if norm is not None and holds(norm, alias.expansion):
                found.append((facts.path, line, facts.module))
    return sorted(found)


def alias_findings(context: Context, minimum: int) -> Iterator[Finding]:
    """One finding per alias whose expansion is written out at least `minimum` times in other
    modules, at the first copy."""
    index = context.index
    for alias in aliases(context):
        found = copies(context, alias)
        if len(found) < minimum:
            continue
        places = [context.line_location(Scopes(index.modules[module]).at(line), path, line)
                  for path, line, module in found]
        files = {path for path, _, _ in found}
        definition = context.line_location(alias.qualname, alias.path, alias.line, "attribute")
        yield scattered(
            places, definition, len(found) / minimum / 2,
            message=(f"`{alias.qualname}` is the one place that names its type, but "
                     f"{len(found)} annotations in {len(files)} other modules write the type out "
                     "instead: changing the alias will not change them."),
            evidence={"rule": f"type alias written out >= {minimum} times in other modules",
                      "form": "alias", "alias": alias.qualname, "occurrences": len(found),
                      "files": len(files)})


ALIAS_EXAMPLES = (
    Example(
        "a type alias written out in the annotations of another module",
        {"pkg/__init__.py": "",
         "pkg/types.py": ("import typing\n\n"
                          "Names = typing.Union[typing.Sequence[str], typing.AbstractSet[str]]\n"),
         "pkg/schema.py": ("import typing as t\n\nfrom pkg import types\n\n\n"
                           "def load(only: t.Union[t.Sequence[str], t.AbstractSet[str]]):\n"
                           "    return only\n\n\n"
                           "def dump(exclude: t.Sequence[str] | t.AbstractSet[str] | None,\n"
                           "         many: types.Names):\n"
                           "    return exclude, many\n")},
        ("pkg.schema.load",)),
    Example(
        "the alias named where its type is meant is the cure",
        {"pkg/__init__.py": "",
         "pkg/types.py": ("import typing\n\n"
                          "Names = typing.Union[typing.Sequence[str], typing.AbstractSet[str]]\n"),
         "pkg/schema.py": ("from pkg import types\n\n\n"
                           "def load(only: types.Names):\n    return only\n\n\n"
                           "def dump(exclude: types.Names | None):\n    return exclude\n")},
        ()),
)
