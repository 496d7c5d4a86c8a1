"""The moved function of the fields mode: a method's body as a module-level function that takes
the fields it read from `self` as parameters (`fields.py` finds the methods, `spread.py` places
the functions).

The body reads each field through its parameter (`self.min` becomes `min`); a local named like
a field is renamed from the repository's words; calls of other moved methods on `self` hand the
fields on; a body reading a global its destination could only import at its top by closing
an import cycle is refused (no import left inside the function); and expressions the
`self.` prefixes had wrapped over several lines are joined back where they now fit.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.facts import Definition
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.edit import subtree
from smellkit.injectors.cst.house import line_limit
from smellkit.injectors.cst.imports import is_docstring
from smellkit.injectors.cst.rename import Rename
from smellkit.injectors.naming import meaningful, overlaps, pick, snake, words


@dataclass(frozen=True)
class Extracted:
    """A method's body as a module-level function of an existing module, and what it needs."""

    method: cst.FunctionDef
    """The method's node in the original tree."""
    function: cst.FunctionDef
    """The new function (named by the caller), its fields first among its parameters."""
    imports: tuple[str, ...]
    """Statements the destination module needs at its top."""
    type_checking: tuple[str, ...]
    """Imports for its `if TYPE_CHECKING:` block (names only postponed annotations read)."""
    future: bool
    """The source module postpones annotations (the destination must too)."""
    dropped: tuple[str, ...] = ()
    """Parameters of a special method the body never reads (`form` of a validator's
    `__call__(self, form, field)`): the function does without them, and so does its call."""


def extract(context: InjectionContext, path: str, module: str, definition: Definition,
            fields: Sequence[str], destination: str,
            helpers: Mapping[str, tuple[str, Sequence[str]]] | None = None,
            stored_calls: AbstractSet[str] = frozenset()) -> Extracted:
    """The method's body as a function of the existing module `destination` (the method's own,
    or a helper module of its package) taking `fields` and then the method's own parameters;
    refused when the body uses `self` otherwise or cannot move (`cst.move`), or when a global it
    reads could only be imported inside the function (the destination's top import would close
    a cycle: no person writes a helper so). `helpers`: the
    methods it calls on `self` whose bodies move too, each as (the function now holding it, its
    fields): `self.m(x)` becomes `function(field, ..., x)`. `stored_calls`: fields holding a
    callable the body calls (`called_fields`)."""
    helpers = helpers or {}
    tree = context.module(path)
    cls, _, name = definition.qualname[len(module) + 1:].rpartition(".")
    node = move.find_class(tree, cls)
    method = move.find_method(node, name) if node is not None else None
    if method is None or not isinstance(method.body, cst.IndentedBlock):
        raise InjectionRefused(f"{definition.qualname} is not a method written on its own lines")
    if method.params.star_kwarg is not None:  # `m(low=1)` would become a second `low`
        raise InjectionRefused(f"{name} takes **{method.params.star_kwarg.name.value}, which "
                               "may hold a keyword named like a field")
    function = method.with_changes(decorators=())
    future = move.has_future_annotations(tree)
    wrapper = context.wrapper(path)
    self_reads, body_globals, def_globals, builtins = move.analyse(
        tree, function, postponed=future, wrapper=wrapper)
    self_name = method.params.params[0].name.value
    _require_field_reads(method, self_name, self_reads, fields, set(helpers), stored_calls)
    renamed = _renamed_locals(context, definition, method, fields,
                              body_globals | def_globals | builtins)
    moved = move.move_method(context.index, module, tree, function, destination,
                             replacement=cst.Name(self_name), postponed=future,
                             wrapper=wrapper, hoist=True)
    new = moved.function.visit(Rename(renamed))
    assert isinstance(new, cst.FunctionDef)
    new = new.visit(_FieldReads(self_name, set(fields)))
    assert isinstance(new, cst.FunctionDef)
    if helpers:
        new = new.visit(_HelperCalls(self_name, helpers))
        assert isinstance(new, cst.FunctionDef)
    body = list(new.body.body)
    if len(body) > len(method.body.body):  # imports `cst.move` left to be read when called
        raise InjectionRefused(
            f"the body of {definition.qualname} reads a global that {destination} could only "
            "import inside the function (at its top the import would close a cycle)")
    if body and is_docstring(body[0]):
        if len(body) == 1:
            raise InjectionRefused(f"{name} has nothing but a docstring")
        body = body[1:]
        opening = body[0]
        if isinstance(opening, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            body[0] = opening.with_changes(leading_lines=[
                line for line in opening.leading_lines if line.comment is not None])
    params = new.params
    own = list(params.params[1:])
    dropped: tuple[str, ...] = ()
    if name.startswith("__"):  # the protocol fixes its signature; a helper would not
        read = {node.value for node in _plain_names(new.body)}
        dropped = tuple(param.name.value for param in own if param.name.value not in read)
        own = [param for param in own if param.name.value not in dropped]
        if own:
            own[-1] = own[-1].with_changes(comma=params.params[-1].comma)
    added = [cst.Param(cst.Name(field), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
        " "))) for field in fields]
    if not own and params.star_arg is cst.MaybeSentinel.DEFAULT and not params.kwonly_params \
            and params.star_kwarg is None:
        added[-1] = added[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = new.with_changes(
        params=params.with_changes(params=[*added, *own]),
        body=new.body.with_changes(body=body), leading_lines=(), decorators=())
    joined = new.visit(_Rejoined(line_limit(context.source(path))))
    assert isinstance(joined, cst.FunctionDef)
    return Extracted(method, joined, moved.imports, moved.type_checking, future,
                     dropped)


_OPENING = ("(", "[", "{")
_CLOSING = (")", "]", "}")


def joined_lines(code: str) -> str | None:
    """Code wrapped over several lines inside brackets, on one line (`f(\n    a, b\n)` as
    `f(a, b)`); None where a comment, a string over lines, a line continuation or a trailing
    comma before a closing bracket (kept exploded by the formatters) forbids it."""
    if "#" in code or '"""' in code or "'''" in code or "\\\n" in code:
        return None
    lines = [line.strip() for line in code.strip().splitlines()]
    text = lines[0]
    for line in lines[1:]:
        if text.endswith(",") and line.startswith(_CLOSING):
            return None
        text += line if text.endswith(_OPENING) or line.startswith(_CLOSING) else f" {line}"
    return text


class _Rejoined(cst.CSTTransformer):
    """Statements and `if`/`while` tests that the `self.` of the method's field reads had made
    too long for one line, joined back onto one where they now fit (as the formatter that
    wrapped them would)."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit
        self.depth = 0
        self.elifs: set[int] = set()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.depth += 1

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        self.depth -= 1
        return updated_node

    def _fits(self, width: int) -> bool:
        return 4 * self.depth + width <= self.limit

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement:
        code = cst.Module(body=[]).code_for_node(updated_node.with_changes(leading_lines=()))
        if "\n" not in code.strip():
            return updated_node
        text = joined_lines(code)
        if text is None or not self._fits(len(text)):
            return updated_node
        try:
            statement = cst.parse_statement(text)
        except cst.ParserSyntaxError:
            return updated_node
        return statement.with_changes(leading_lines=updated_node.leading_lines)

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        return self._header(updated_node, 5 if id(original_node) in self.elifs else 3)

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> cst.While:
        return self._header(updated_node, 6)

    def visit_If(self, node: cst.If) -> None:
        if isinstance(node.orelse, cst.If):
            self.elifs.add(id(node.orelse))

    def _header(self, node: _Tested, keyword: int) -> _Tested:
        code = cst.Module(body=[]).code_for_node(node.test)
        if "\n" not in code:
            return node
        text = joined_lines(code)
        if text is None:
            return node
        if text.startswith("(") and text.endswith(")") and node.test.lpar:
            text = text[1:-1]  # `if (a and b):` reads `if a and b:` once on one line
        if not self._fits(keyword + len(text) + 1):
            return node
        try:
            test = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return node
        return node.with_changes(test=test, whitespace_before_test=cst.SimpleWhitespace(" "))


def _require_field_reads(method: cst.FunctionDef, self_name: str, self_reads: set[int],
                         fields: Sequence[str],
                         helpers: AbstractSet[str] = frozenset(),
                         stored_calls: AbstractSet[str] = frozenset()) -> None:
    """Every `self` in the body reads one of the fields or calls one of `helpers` or of
    `stored_calls` (no other call, write, deletion, nested function or lambda around it), and
    no other name in the method is one of the fields."""
    name = method.name.value
    nested: set[int] = set()
    targets: set[int] = set()
    called: set[int] = set()
    for node in subtree(method.body):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            nested.update(id(item) for item in subtree(node))
        elif isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del,
                               cst.For, cst.CompFor)):
            targets.update(_bound(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets.update(_bound(node.asname.name))
        elif isinstance(node, cst.Call):
            called.add(id(node.func))
    field_reads: set[int] = set()
    skip: set[int] = set()
    for node in subtree(method.body):
        if isinstance(node, cst.Attribute):
            skip.add(id(node.attr))
            if isinstance(node.value, cst.Name) and node.value.value == self_name:
                helper = (node.attr.value in helpers or node.attr.value in stored_calls) and \
                    id(node) in called
                if not helper and (node.attr.value not in fields or id(node) in called
                                   or id(node) in targets):
                    raise InjectionRefused(f"{name} uses {self_name}.{node.attr.value} otherwise "
                                           "than reading a field")
                if id(node) in nested:
                    raise InjectionRefused(f"{name} reads {self_name} in a nested function")
                field_reads.add(id(node.value))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skip.add(id(node.keyword))
    for node in subtree(method.body):
        if not isinstance(node, cst.Name) or id(node) in skip:
            continue
        if node.value == self_name and (id(node) not in field_reads or id(node) not in
                                        self_reads):
            raise InjectionRefused(f"{name} uses {self_name} otherwise than reading its fields")


def _bound(target: cst.BaseExpression) -> set[int]:
    """The nodes a target binds: itself, or the elements of a tuple or list target (not what
    `x.y = ...` or `x[k] = ...` mutates inside the object `x` holds)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return {found for element in target.elements for found in _bound(element.value)}
    if isinstance(target, cst.StarredElement):
        return _bound(target.value)
    return {id(target)}


def _plain_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """The names of variables in a node (not attribute names, nor keywords of arguments)."""
    skip: set[int] = set()
    for item in subtree(node):
        if isinstance(item, cst.Attribute):
            skip.add(id(item.attr))
        elif isinstance(item, cst.Arg) and item.keyword is not None:
            skip.add(id(item.keyword))
        elif isinstance(item, cst.Name) and id(item) not in skip:
            yield item


_JOINING = frozenset({"of", "in", "on", "to", "by", "at", "or"})
"""Short words that join a class's name into a phrase (`AnyOf`, `NoneOf`, `OneOf`)."""


def class_words(cls_name: str) -> list[str]:
    """The words a new name takes from a class's: its meaningful ones, or the whole phrase where
    a joining word makes the class's meaning (`NoneOf` gives `none_of`: `none` alone would read
    as `None`)."""
    parts = words(cls_name)
    if len(parts) > 1 and any(part in _JOINING for part in parts[1:]):
        return parts
    return [word for word in parts if meaningful(word)]


def class_noun(cls_name: str) -> list[str]:
    """The words of a class's name a function's name takes: its last meaningful word
    (`NumberRange` gives `range`), or its phrase (`none_of`)."""
    found = class_words(cls_name)
    return found if not all(map(meaningful, found)) else found[-1:]


def _renamed_locals(context: InjectionContext, definition: Definition, method: cst.FunctionDef,
                    fields: Sequence[str], outside: set[str]) -> dict[str, str]:
    """New names for the method's locals that are named like a field (`message =
    self.message or ...`): the field's parameter would otherwise be the local. A parameter, a
    global or builtin (`max(...)`) named like a field is refused: it cannot be renamed."""
    name = method.name.value
    params = method.params
    for param in [*params.posonly_params, *params.params, *params.kwonly_params,
                  *(item for item in (params.star_arg, params.star_kwarg)
                    if isinstance(item, cst.Param))]:
        if param.name.value in fields:
            raise InjectionRefused(f"{name} names a field, {param.name.value}, as a parameter")
    clashing = sorted({node.value for node in _plain_names(method.body)} & set(fields))
    if not clashing:
        return {}
    for field in clashing:
        if field in outside:
            raise InjectionRefused(f"{name} names a field, {field}, as a global or builtin")
    if any(isinstance(node, (cst.Import, cst.ImportFrom)) or (
            isinstance(node, cst.Name) and node.value in ("locals", "vars", "eval", "exec"))
           for node in subtree(method.body)):
        raise InjectionRefused(f"{name} names a field, {clashing[0]}, as a variable it cannot "
                               "rename (it imports or reads its locals dynamically)")
    taken = {*move.names_in(method), *fields, *outside}
    renamed: dict[str, str] = {}
    rng = random.Random(definition.qualname)
    noun = class_noun(definition.parent.rpartition(".")[2])
    for field in clashing:
        own = [word for word in words(field) if meaningful(word)] or [field]
        first = [snake([*noun, *own])] if noun and not overlaps(noun[-1], own) else []
        found = context.vocabulary.names(
            definition.qualname.rpartition(".")[0].rpartition(".")[0], definition.parent, name,
            head=[word for word in words(field) if meaningful(word)] or [field], rng=rng, most=1)
        renamed[field] = pick((item for item in [*first, *found] if item != field), taken,
                              what=f"the local {field} of {name}")
        taken.add(renamed[field])
    return renamed


_Tested = TypeVar("_Tested", cst.If, cst.While)


class _HelperCalls(cst.CSTTransformer):
    """`self.m(x)` becomes `function(field, ..., x)` for each moved helper `m`."""

    def __init__(self, self_name: str, helpers: Mapping[str, tuple[str, Sequence[str]]]):
        super().__init__()
        self.self_name = self_name
        self.helpers = helpers

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.value.value == self.self_name and func.attr.value in self.helpers:
            name, fields = self.helpers[func.attr.value]
            added = [cst.Arg(cst.Name(field)) for field in fields]
            return updated_node.with_changes(func=cst.Name(name),
                                             args=[*added, *updated_node.args])
        return updated_node


class _FieldReads(cst.CSTTransformer):
    """`self.field` becomes `field`."""

    def __init__(self, self_name: str, fields: set[str]):
        super().__init__()
        self.self_name = self_name
        self.fields = fields

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        value = updated_node.value
        if isinstance(value, cst.Name) and value.value == self.self_name and \
                updated_node.attr.value in self.fields:
            return cst.Name(updated_node.attr.value, lpar=updated_node.lpar,
                            rpar=updated_node.rpar)
        return updated_node
