"""The libcst rewrites of a method the feature envy injector moves: a parameter added for the
object it used to belong to, a parameter turned into `self`, reads through an alias turned back
into `self`, annotations set or dropped, and the imports it still needs."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Sequence

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.cst import move
from smellkit.injectors.cst.edit import subtree
from smellkit.injectors.cst.rename import Rename


def with_receiver(function: cst.FunctionDef, name: str) -> cst.FunctionDef:
    """The method with a new second parameter `name` (the object it used to be a method of),
    laid out as the first one is (same line or a line of its own)."""
    params = function.params
    first, *rest = params.params
    new = cst.Param(cst.Name(name))
    if isinstance(first.comma, cst.Comma) and (rest or params.star_arg != cst.MaybeSentinel.DEFAULT
                                               or params.kwonly_params or params.star_kwarg):
        new = new.with_changes(comma=first.comma)
    return function.with_changes(params=params.with_changes(params=[first, new, *rest]))


def argument_as_self(function: cst.FunctionDef, param: str) -> cst.FunctionDef:
    """The method without its parameter `param`, every read of which reads the method's first
    parameter instead: the object it was passed is now the one it belongs to."""
    if param in rebound(function.body):
        raise InjectionRefused(f"{function.name.value} rebinds its parameter {param}")
    params = function.params
    own = params.params[0].name.value

    def without(items: Sequence[cst.Param]) -> list[cst.Param]:
        kept = [item for item in items if item.name.value != param]
        if kept and len(kept) < len(items) and items[-1].name.value == param:
            kept[-1] = kept[-1].with_changes(comma=items[-1].comma)  # the layout of the last
        return kept

    kwonly = without(params.kwonly_params)
    star = params.star_arg
    if isinstance(star, cst.ParamStar) and not kwonly:
        star = cst.MaybeSentinel.DEFAULT
    positional = without(params.params)
    if star == cst.MaybeSentinel.DEFAULT and not kwonly and params.star_kwarg is None \
            and positional:
        positional[-1] = positional[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new_params = params.with_changes(params=positional, kwonly_params=kwonly, star_arg=star,
                                     posonly_params=without(params.posonly_params))
    body = function.body.visit(Rename({param: own}))
    assert isinstance(body, cst.BaseSuite)
    return function.with_changes(params=new_params, body=body)


def through_self(function: cst.FunctionDef, alias: str, via: str) -> cst.FunctionDef:
    """The moved method reading `<alias>.<via>` (the object it now belongs to, reached back
    through the instance it was given) as its own first parameter, unless the method assigns
    that attribute."""
    def held(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
            and node.value.value == alias and node.attr.value == via

    for node in subtree(function.body):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)) \
                and any(held(part) for part in subtree(node.target)):
            return function
    own = function.params.params[0].name.value

    class Replace(cst.CSTTransformer):
        def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute
                            ) -> cst.BaseExpression:
            return cst.Name(own) if held(original_node) else updated_node

    body = function.body.visit(Replace())
    assert isinstance(body, cst.BaseSuite)
    return function.with_changes(body=body)


def annotated(function: cst.FunctionDef, param: str, cls_name: str,
              quoted: bool = True) -> cst.FunctionDef:
    """The method with its parameter `param` annotated with the class's name, quoted when the
    class is imported for type checkers only."""
    params = function.params
    name: cst.BaseExpression = cst.SimpleString(f'"{cls_name}"') if quoted else cst.Name(cls_name)
    return function.with_changes(params=params.with_changes(params=[
        item.with_changes(annotation=cst.Annotation(name))
        if item.name.value == param else item for item in params.params]))


def typed(function: cst.FunctionDef) -> bool:
    """Whether the method annotates its signature (a parameter besides `self`, or what it
    returns): the parameter a move adds is then annotated too, as its neighbours are."""
    params = function.params
    rest = [*params.posonly_params, *params.params, *params.kwonly_params][1:]
    return function.returns is not None or any(item.annotation is not None for item in rest)


def unannotated(function: cst.FunctionDef, param: str) -> cst.FunctionDef:
    """The method with parameter `param` unannotated (every other node kept as it is, so the
    analyses of its module still apply)."""
    params = function.params

    def plain(items: Sequence[cst.Param]) -> list[cst.Param]:
        return [item.with_changes(annotation=None) if item.name.value == param else item
                for item in items]

    return function.with_changes(params=params.with_changes(
        params=plain(params.params), kwonly_params=plain(params.kwonly_params),
        posonly_params=plain(params.posonly_params)))


def rebound(node: cst.CSTNode) -> set[str]:
    """Names bound anywhere inside `node` (assigned, looped over, imported, parameters of
    nested functions, declared global or nonlocal)."""
    found: set[str] = set()
    targets: list[cst.CSTNode] = []
    for item in subtree(node):
        if isinstance(item, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.NamedExpr,
                             cst.For, cst.CompFor)):
            targets.append(item.target)
        elif isinstance(item, cst.AsName):
            targets.append(item.name)
        elif isinstance(item, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.NameItem)):
            found.add(item.name.value)
    for target in targets:
        found.update(part.value for part in subtree(target) if isinstance(part, cst.Name)
                     and not _attribute_part(target, part))
    return found


def _attribute_part(target: cst.CSTNode, name: cst.Name) -> bool:
    """Whether `name` is read inside `target` rather than bound (`self.x = ...`, `a[i] = ...`)."""
    return any(isinstance(node, (cst.Attribute, cst.Subscript)) and any(
        part is name for part in subtree(node)) for node in subtree(target))


def still_read(statements: Iterable[str], function: cst.FunctionDef) -> list[str]:
    """The import statements whose names the function still reads (the annotation of a
    parameter it lost needs none)."""
    names = move.names_in(function)
    kept = []
    for statement in statements:
        last = statement.rpartition(" ")[2]
        bound = last if statement.startswith("from ") or " as " in statement \
            else last.partition(".")[0]
        if bound in names:
            kept.append(statement)
    return kept


def self_attribute(function: cst.FunctionDef, attribute: str) -> cst.Attribute:
    return cst.Attribute(value=cst.Name(function.params.params[0].name.value),
                         attr=cst.Name(attribute))


def in_class(function: cst.FunctionDef) -> str:
    """The method's code one level in, as libcst indents a class body: the lines of a
    multi-line string (a docstring) stay as they are, so its value does not change."""
    code = cst.Module(body=[cst.ClassDef(name=cst.Name("_"),
                                         body=cst.IndentedBlock(body=[function]))]).code
    return code.partition("\n")[2]


def wrapped(function: cst.FunctionDef, limit: int) -> cst.FunctionDef:
    """The method (one level into a class) with its parameters on a line of their own when its
    `def` line would pass `limit` columns, one a line when that line would too, as black and
    ruff's formatter wrap it: the parameter the move adds can push a signature over the
    repository's line length."""
    code = in_class(function).lstrip("\n")
    if len(code.partition("\n")[0]) <= limit:  # the `def` line (after any blank lines)
        return function
    params = function.params
    ordered = [*params.posonly_params, *params.params,
               *([params.star_arg] if isinstance(params.star_arg, cst.Param) else []),
               *params.kwonly_params, *([params.star_kwarg] if params.star_kwarg else [])]
    if not ordered or isinstance(params.star_arg, cst.ParamStar) or params.posonly_ind != \
            cst.MaybeSentinel.DEFAULT:
        return function  # a bare `*` or `/` marker: left as written
    empty = cst.Module(body=[])
    texts = [empty.code_for_node(item.with_changes(
        comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=cst.SimpleWhitespace(""),
        star=item.star if isinstance(item.star, str) else "")) for item in ordered]
    inner = f"    {', '.join(texts)}"
    if len(inner) + 4 > limit:  # still too long one level in: one parameter a line
        inner = ",\n".join(f"    {text}" for text in texts) + ","
    parsed = cst.parse_statement(f"def {function.name.value}(\n{inner}\n):\n    pass\n")
    assert isinstance(parsed, cst.FunctionDef)
    return function.with_changes(params=parsed.params,
                                 whitespace_before_params=parsed.whitespace_before_params)


FORMATTER_LIMITS = (79, 88, 99, 100, 120)
"""The line lengths formatters and linters are set to (pycodestyle, black, ruff, ...)."""


def line_length(source: str) -> int:
    """The line length a module's formatter keeps its code to: the longest line of code (no
    comment, docstring or string literal, which formatters leave long) rounded up to the
    common formatter limit above it, so new lines stay within what the module allows."""
    skipped: set[int] = set()
    ends: dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING or tokenize.tok_name[token.type] == "FSTRING_START":
                skipped.update(range(token.start[0], token.end[0] + 1))
            elif token.type == tokenize.COMMENT:
                ends[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError):
        return FORMATTER_LIMITS[1]
    lengths = [len(line[:ends.get(number, len(line))].rstrip())
               for number, line in enumerate(source.splitlines(), 1) if number not in skipped]
    longest = max(lengths, default=0)
    return next((limit for limit in FORMATTER_LIMITS if limit >= longest), longest)
