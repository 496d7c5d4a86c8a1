"""What the earlier version of a function looked like: the body before its last revisions.

A function retired for a rewrite is not its replacement byte for byte; it is the code as it was
before the revisions the live one received since. The revisions undone here are the ones
libraries commonly make late and that never change what the rest of the body does:

- `guard`: the early exit at the top (`if value is None: return None`) added for a bug report;
- `format`: f-strings, written as `str.format` calls before the library required Python 3.6;
- `untyped`: the parameter and return annotations added when the library took up typing;
- `super`: `super(Class, self)`, written before the library dropped Python 2;
- `else`: the `else:` before a closing `return` that a linter later had removed
  (`no-else-return`);
- `inline`: a value used once, before a later revision named it (`chain = ...` then `f(chain)`);
- `short`: an exception bound to `e`, before a linter asked for a longer name.

The seed picks which of those that apply are undone (at least one when any applies).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

import libcst as cst


def earlier_version(function: cst.FunctionDef, keep: Sequence[str], rng: random.Random,
                    width: int = 10_000, owner: str | None = None
                    ) -> tuple[cst.FunctionDef, tuple[str, ...]]:
    """`function` (a method of the class named `owner`, if given) with some of the late
    revisions undone, and their names; a revision that would drop a name of `keep` (a call
    the dead cluster hangs on) or widen a line past `width` columns (the function's own
    indentation left out) is left."""
    undone: list[str] = []
    width = max(width, _widest(function))
    applicable = [(name, revision) for name, revision in _revisions(owner)
                  if _changes(function, revision, keep, width)]
    if not applicable:
        return function, ()
    rng.shuffle(applicable)
    chosen = [item for item in applicable if rng.random() < 0.6] or applicable[:1]
    for name, revision in sorted(chosen, key=lambda item: _ORDER.index(item[0])):
        changed = revision(function)
        if _keeps(changed, keep, width):
            function = changed
            undone.append(name)
    return function, tuple(undone)


def _changes(function: cst.FunctionDef, revision: Callable[[cst.FunctionDef], cst.FunctionDef],
             keep: Sequence[str], width: int) -> bool:
    changed = revision(function)
    return not changed.deep_equals(function) and _keeps(changed, keep, width)


def _keeps(function: cst.FunctionDef, keep: Sequence[str], width: int) -> bool:
    code = cst.Module(body=[function]).code
    return all(re.search(rf"\b{re.escape(name)}\b", code) for name in keep) and \
        _widest(function) <= width


def _widest(function: cst.FunctionDef) -> int:
    return max((len(line) for line in cst.Module(body=[function]).code.splitlines()), default=0)


def without_guard(function: cst.FunctionDef) -> cst.FunctionDef:
    """The function without the `if ...: return/raise ...` opening its body, when at least two
    statements follow it (a guard before a lone `return` is the function itself)."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) < 3:
        return function
    first = body.body[0]
    if not isinstance(first, cst.If) or first.orelse is not None or \
            not isinstance(first.body, cst.IndentedBlock) or len(first.body.body) != 1:
        return function
    only = first.body.body[0]
    if not isinstance(only, cst.SimpleStatementLine) or len(only.body) != 1 or \
            not isinstance(only.body[0], (cst.Return, cst.Raise)):
        return function
    rest = list(body.body[1:])
    rest[0] = rest[0].with_changes(leading_lines=())
    return function.with_changes(body=body.with_changes(body=rest))


class _OldFormat(cst.CSTTransformer):
    """f-strings (with plain expressions and text format specs) as `"...".format(...)`; not
    those in an implicit concatenation, where a call cannot stand."""

    def __init__(self) -> None:
        super().__init__()
        self.joined: set[cst.FormattedString] = set()

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        for side in (node.left, node.right):
            if isinstance(side, cst.FormattedString):
                self.joined.add(side)

    def leave_FormattedString(self, original_node: cst.FormattedString,
                              updated_node: cst.FormattedString) -> cst.BaseExpression:
        if original_node in self.joined:
            return updated_node
        text: list[str] = []
        args: list[cst.Arg] = []
        for part in updated_node.parts:
            if isinstance(part, cst.FormattedStringText):
                text.append(part.value)
                continue
            if not isinstance(part, cst.FormattedStringExpression):
                return updated_node
            if part.equal is not None or any(not isinstance(item, cst.FormattedStringText)
                                             for item in part.format_spec or ()):
                return updated_node
            spec = "".join(item.value for item in part.format_spec or ()
                           if isinstance(item, cst.FormattedStringText))
            text.append("{" + (f"!{part.conversion}" if part.conversion else "")
                        + (f":{spec}" if spec else "") + "}")
            value = part.expression
            if isinstance(value, cst.Tuple) and not value.lpar:
                value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            args.append(cst.Arg(value=value))
        if not args:
            return updated_node
        prefix = updated_node.start[:-1].replace("f", "").replace("F", "")
        quote = updated_node.start[len(updated_node.start.rstrip("'\"")):]
        literal = cst.SimpleString(f"{prefix}{quote}{''.join(text)}{updated_node.end}")
        return cst.Call(func=cst.Attribute(value=literal, attr=cst.Name("format")), args=args,
                        lpar=updated_node.lpar, rpar=updated_node.rpar)


def old_format(function: cst.FunctionDef) -> cst.FunctionDef:
    result = function.visit(_OldFormat())
    assert isinstance(result, cst.FunctionDef)
    return result


def untyped(function: cst.FunctionDef) -> cst.FunctionDef:
    """A function without its parameter and return annotations."""
    tight = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""))

    def bare(param: cst.Param) -> cst.Param:
        if param.annotation is None:
            return param
        return param.with_changes(annotation=None, equal=tight) if param.default is not None \
            else param.with_changes(annotation=None)

    params = function.params
    if function.returns is None and not any(
            isinstance(item, cst.Param) and item.annotation is not None
            for item in [*params.posonly_params, *params.params, *params.kwonly_params,
                         params.star_arg, params.star_kwarg]):
        return function
    bared = params.with_changes(
        posonly_params=[bare(item) for item in params.posonly_params],
        params=[bare(item) for item in params.params],
        kwonly_params=[bare(item) for item in params.kwonly_params],
        star_arg=bare(params.star_arg) if isinstance(params.star_arg, cst.Param)
        else params.star_arg,
        star_kwarg=bare(params.star_kwarg) if params.star_kwarg is not None else None)
    # without its annotations the signature fits on one line, as the formatter writes it
    header = cst.parse_module(f"def f({', '.join(_pieces(bared))}): pass\n").body[0]
    assert isinstance(header, cst.FunctionDef)
    return function.with_changes(returns=None, params=header.params,
                                 whitespace_before_params=cst.SimpleWhitespace(""))


def _pieces(params: cst.Parameters) -> list[str]:
    """Each parameter's own code (no comma, no surrounding layout), with the `/` and `*`
    markers, in order."""
    empty = cst.Module(body=[])

    def code(param: cst.Param) -> str:
        return empty.code_for_node(param.with_changes(
            comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=cst.SimpleWhitespace(""),
            whitespace_after_star=cst.SimpleWhitespace(""))).strip()

    pieces = [code(item) for item in params.posonly_params]
    if params.posonly_params:
        pieces.append("/")
    pieces.extend(code(item) for item in params.params)
    if isinstance(params.star_arg, cst.Param):
        pieces.append(code(params.star_arg))
    elif isinstance(params.star_arg, cst.ParamStar):
        pieces.append("*")
    pieces.extend(code(item) for item in params.kwonly_params)
    if params.star_kwarg is not None:
        pieces.append(code(params.star_kwarg))
    return pieces



def with_else(function: cst.FunctionDef) -> cst.FunctionDef:
    """The closing `return` of the body in the `else:` of the `if` right before it, when that
    `if` (with no `else` of its own) ends in a `return` too."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) < 2:
        return function
    branch, last = body.body[-2], body.body[-1]
    if not isinstance(branch, cst.If) or branch.orelse is not None or \
            not isinstance(branch.body, cst.IndentedBlock) or not _returns(last) or \
            not _returns(branch.body.body[-1]):
        return function
    assert isinstance(last, cst.SimpleStatementLine)
    if any(line.comment is not None for line in last.leading_lines):
        return function  # a comment on the closing return would lose its place
    last = last.with_changes(leading_lines=())
    orelse = cst.Else(body=cst.IndentedBlock(body=[last]))
    return function.with_changes(body=body.with_changes(
        body=[*body.body[:-2], branch.with_changes(orelse=orelse)]))


def _returns(statement: cst.CSTNode | None) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
        isinstance(statement.body[0], cst.Return)


class _OldSuper(cst.CSTTransformer):
    """`super()` as `super(Owner, first)`, not inside nested functions or classes."""

    def __init__(self, owner: str, first: str):
        super().__init__()
        self.owner, self.first = owner, first

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    visit_ClassDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        if isinstance(func, cst.Name) and func.value == "super" and not updated_node.args:
            return updated_node.with_changes(args=[
                cst.Arg(cst.Name(self.owner), comma=cst.Comma(
                    whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(cst.Name(self.first))])
        return updated_node


def old_super(owner: str) -> Callable[[cst.FunctionDef], cst.FunctionDef]:
    def revision(function: cst.FunctionDef) -> cst.FunctionDef:
        params = [*function.params.posonly_params, *function.params.params]
        if not params or not isinstance(function.body, cst.IndentedBlock) or any(
                _decorator_name(item.decorator) == "staticmethod" for item in function.decorators):
            return function
        body = function.body.visit(_OldSuper(owner, params[0].name.value))
        assert isinstance(body, cst.IndentedBlock)
        return function.with_changes(body=body)
    return revision


def _decorator_name(node: cst.BaseExpression) -> str:
    return node.value if isinstance(node, cst.Name) else ""


def revisable(function: cst.FunctionDef, owner: str | None = None) -> bool:
    """Whether some late revision of the function can be undone."""
    return any(_changes(function, revision, (), max(88, _widest(function)))
               for _, revision in _revisions(owner))


class _Names(cst.CSTVisitor):
    """How many times each name occurs in the code visited."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] = self.counts.get(node.value, 0) + 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `x.name` is no use of `name`
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # nor is `f(name=x)`
        return False


def _name_counts(node: cst.CSTNode) -> dict[str, int]:
    visitor = _Names()
    node.visit(visitor)
    return visitor.counts


class _Rename(cst.CSTTransformer):
    def __init__(self, old: str, new: cst.BaseExpression):
        super().__init__()
        self.old, self.new = old, new

    def leave_Name(self, original_node: cst.Name,
                   updated_node: cst.Name) -> cst.BaseExpression:
        return self.new if updated_node.value == self.old else updated_node

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)  # `x.name` is no use of it

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


_ATOMS = (cst.Call, cst.Attribute, cst.Name, cst.Subscript, cst.SimpleString, cst.Integer)


def inlined(function: cst.FunctionDef) -> cst.FunctionDef:
    """The first `name = value` of the body whose name the next statement line reads once (and
    nothing else reads), with the value written there instead; only a value that needs no
    parentheses where it lands."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return function
    counts = _name_counts(function)
    statements = list(body.body)
    if len(statements) < 3:
        return function  # a one-line body would read as a wrapper
    for number in range(len(statements) - 1):
        first, second = statements[number], statements[number + 1]
        if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1 or \
                not isinstance(second, cst.SimpleStatementLine) or len(second.body) != 1 or \
                any(line.comment is not None for line in first.leading_lines):
            continue
        assign = first.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or \
                not isinstance(assign.targets[0].target, cst.Name) or \
                not isinstance(assign.value, _ATOMS):
            continue
        name = assign.targets[0].target.value
        if counts.get(name) != 2 or _name_counts(second).get(name) != 1 or \
                _name_counts(assign.value).get(name):
            continue
        changed = second.visit(_Rename(name, assign.value.with_changes(lpar=(), rpar=())))
        assert isinstance(changed, cst.SimpleStatementLine)
        statements[number:number + 2] = [changed.with_changes(leading_lines=first.leading_lines)]
        return function.with_changes(body=body.with_changes(body=statements))
    return function


class _Handlers(cst.CSTTransformer):
    def __init__(self, counts: dict[str, int]):
        super().__init__()
        self.counts = counts

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler,
                            updated_node: cst.ExceptHandler) -> cst.ExceptHandler:
        bound = updated_node.name
        if bound is None or not isinstance(bound.name, cst.Name) or \
                bound.name.value not in ("error", "exc", "err", "exception") or \
                "e" in self.counts:
            return updated_node
        old = bound.name.value
        inside = _name_counts(original_node)
        if inside.get(old) != self.counts.get(old):
            return updated_node  # read outside the handler too
        result = updated_node.visit(_Rename(old, cst.Name("e")))
        assert isinstance(result, cst.ExceptHandler)
        return result


def short_handlers(function: cst.FunctionDef) -> cst.FunctionDef:
    """Exceptions bound to `error`, `exc` or `err` bound to `e` (when the function has no `e`)."""
    result = function.visit(_Handlers(_name_counts(function)))
    assert isinstance(result, cst.FunctionDef)
    return result


def _revisions(owner: str | None) -> list[tuple[str, Callable[[cst.FunctionDef],
                                                              cst.FunctionDef]]]:
    found: list[tuple[str, Callable[[cst.FunctionDef], cst.FunctionDef]]] = [
        ("guard", without_guard), ("else", with_else), ("inline", inlined),
        ("format", old_format), ("short", short_handlers), ("untyped", untyped)]
    if owner is not None:
        found.insert(4, ("super", old_super(owner)))
    return found


_ORDER = ["guard", "else", "inline", "format", "super", "short", "untyped"]
