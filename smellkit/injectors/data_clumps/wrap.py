"""Lines the injection lengthens, laid out as the repository's formatter lays out its own.

Exploded signatures and call sites grow by a parameter or an argument per field; a line past the
repository's limit is a tell no formatter would leave. The limit is the repository's configured
line length (ruff's or black's `line-length`, else flake8's `max-line-length`, a tenth more where
bugbear's B950 stands in for E501), else black's 88. A longer signature or call gets its
parameters or arguments on one line of their own, or one per line with a trailing comma, as black
(and ruff's formatter) does.
"""

from __future__ import annotations

import configparser
import sys
from collections.abc import Set as AbstractSet
from functools import lru_cache
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DEFAULT_LINE_LENGTH = 88
"""black's and ruff's default."""
_MARKERS = ("pyproject.toml", "setup.cfg", "tox.ini", ".flake8", "setup.py", ".git")
_EMPTY = cst.Module(body=[])


def line_length(root: Path) -> int:
    """The line length the repository at (or just above) `root` configures; 88 when it says
    nothing. `root` is the analysed folder, so a `src/` layout finds the checkout's files."""
    return _line_length(root.resolve())


@lru_cache(maxsize=64)
def _line_length(root: Path) -> int:
    for folder in (root, *list(root.parents)[:2]):
        if not any((folder / name).exists() for name in _MARKERS):
            continue
        found = _pyproject_length(folder / "pyproject.toml")
        for name in ("setup.cfg", "tox.ini", ".flake8"):
            found = found or _flake8_length(folder / name)
        return found or DEFAULT_LINE_LENGTH
    return DEFAULT_LINE_LENGTH


def _pyproject_length(path: Path) -> int | None:
    try:
        tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    for name in ("ruff", "black"):
        value = tool.get(name, {}).get("line-length") if isinstance(tool, dict) else None
        if isinstance(value, int) and value > 0:
            return value
    return None


def _flake8_length(path: Path) -> int | None:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    if not parser.has_option("flake8", "max-line-length"):
        return None
    try:
        length = int(parser.get("flake8", "max-line-length"))
    except ValueError:
        return None
    selected = parser.get("flake8", "select", fallback="") + \
        parser.get("flake8", "extend-select", fallback="")
    ignored = parser.get("flake8", "ignore", fallback="") + \
        parser.get("flake8", "extend-ignore", fallback="")
    if "B9" in selected and "E501" in ignored:
        return length + length // 10  # B950: the limit plus 10%
    return length


def wrapped_signature(function: cst.FunctionDef, limit: int, indent: int = 0, *,
                      layout: str | None = None) -> cst.FunctionDef:
    """The function with its parameters on a line of their own, or one per line, when its
    one-line `def` (at column `indent`) is longer than `limit`, as black lays them out.
    `layout`: how the original signature spread over lines (`layout_of`); it keeps doing so,
    as black keeps a trailing comma's layout."""
    if "#" in _EMPTY.code_for_node(function.params):
        return function  # a comment among the parameters: a new layout would lose it
    texts = _param_texts(function.params)
    returns = f" -> {_EMPTY.code_for_node(function.returns.annotation)}" \
        if function.returns is not None else ""
    prefix = "async " if function.asynchronous is not None else ""
    header = f"{prefix}def {function.name.value}({', '.join(texts)}){returns}:"
    if layout is None and indent + len(header) <= limit:
        return function
    inner = f"    {', '.join(texts)}"
    if indent + len(inner) > limit or layout == "each":
        inner = ",\n".join(f"    {text}" for text in texts) + ","
    parsed = cst.parse_statement(
        f"{prefix}def {function.name.value}(\n{inner}\n){returns}:\n    pass\n")
    assert isinstance(parsed, cst.FunctionDef)
    return function.with_changes(params=parsed.params,
                                 whitespace_before_params=parsed.whitespace_before_params)


def layout_of(function: cst.FunctionDef) -> str | None:
    """How a signature spreads over lines: None (it does not), "line" (its parameters on a line
    of their own) or "each" (one per line)."""
    params = function.params
    if "\n" not in _EMPTY.code_for_node(params) and \
            not isinstance(function.whitespace_before_params, cst.ParenthesizedWhitespace):
        return None
    items = [*params.posonly_params, *params.params, *params.kwonly_params]
    breaks = sum(isinstance(item.comma, cst.Comma) and isinstance(
        item.comma.whitespace_after, cst.ParenthesizedWhitespace) for item in items)
    return "each" if len(items) > 1 and breaks >= len(items) - 1 else "line"


def _param_texts(params: cst.Parameters) -> list[str]:
    """Each parameter's text (annotation and default included), with `/` and `*` markers."""

    def text(item: cst.Param, star: str = "") -> str:
        return _EMPTY.code_for_node(item.with_changes(
            comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=cst.SimpleWhitespace(""),
            star=star))

    texts = [text(item) for item in params.posonly_params]
    if params.posonly_params:
        texts.append("/")
    texts.extend(text(item) for item in params.params)
    if isinstance(params.star_arg, cst.Param):
        texts.append(text(params.star_arg, "*"))
    elif isinstance(params.star_arg, cst.ParamStar):
        texts.append("*")
    texts.extend(text(item) for item in params.kwonly_params)
    if params.star_kwarg is not None:
        texts.append(text(params.star_kwarg, "**"))
    return texts


def wrapped_call(call: cst.Call, indent: str, limit: int) -> cst.Call:
    """The call with its arguments on the next line, indented one level past `indent` (the
    leading whitespace of the line the call is on), or one per line with a trailing comma when
    they do not fit on one; its closing parenthesis back at `indent`."""
    args = list(call.args)
    if not args:
        return call
    texts = [_EMPTY.code_for_node(arg.with_changes(
        comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace("")))
        for arg in args]
    inner = indent + "    "
    one_line = len(inner) + len(", ".join(texts)) <= limit
    new: list[cst.Arg] = []
    for number, arg in enumerate(args):
        last = number == len(args) - 1
        if one_line:
            comma: cst.Comma | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT if last else \
                cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            after: cst.BaseParenthesizableWhitespace = _newline(indent) if last else \
                cst.SimpleWhitespace("")
        else:
            comma = cst.Comma(whitespace_after=_newline(indent if last else inner))
            after = cst.SimpleWhitespace("")
        new.append(arg.with_changes(comma=comma, whitespace_after_arg=after))
    return call.with_changes(whitespace_before_args=_newline(inner), args=new)


def _newline(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line starting at `indent` (absolute)."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), empty_lines=[], indent=False,
        last_line=cst.SimpleWhitespace(indent))



Container = cst.List | cst.Tuple | cst.Set | cst.Call


def exploded(node: Container, indent: str, limit: int,
             grown: AbstractSet[int] = frozenset()) -> Container | None:
    """A list, set, parenthesized tuple or call with one element per line, each indented one
    level past `indent` and followed by a comma, the closing bracket back at `indent` (black's
    layout once its elements no longer fit on the line); an element in `grown` (node ids) that
    is a call still too long for its own line is wrapped too. None for a bare tuple."""
    inner = indent + "    "

    def fitted(value: cst.BaseExpression) -> cst.BaseExpression:
        if id(value) in grown and isinstance(value, cst.Call) and \
                len(inner) + len(_EMPTY.code_for_node(value)) + 1 > limit:
            return wrapped_call(value, inner, limit)
        return value

    if isinstance(node, cst.Call):
        args = [arg.with_changes(value=fitted(arg.value)) for arg in node.args]
        return wrapped_call(node.with_changes(args=args), indent, limit)
    if isinstance(node, cst.Tuple) and not node.lpar:
        return None
    elements = list(node.elements)
    laid = [element.with_changes(value=fitted(element.value), comma=cst.Comma(
        whitespace_after=_newline(indent if number == len(elements) - 1 else inner)))
        for number, element in enumerate(elements)]
    if isinstance(node, cst.List):
        return node.with_changes(elements=laid, lbracket=cst.LeftSquareBracket(
            whitespace_after=_newline(inner)), rbracket=cst.RightSquareBracket())
    if isinstance(node, cst.Set):
        return node.with_changes(elements=laid, lbrace=cst.LeftCurlyBrace(
            whitespace_after=_newline(inner)), rbrace=cst.RightCurlyBrace())
    return node.with_changes(elements=laid, lpar=[
        *node.lpar[:-1], cst.LeftParen(whitespace_after=_newline(inner))],
        rpar=[cst.RightParen(), *node.rpar[1:]])


def wrapped_calls(source: str, names: AbstractSet[str], limit: int) -> str:
    """`source` with each line longer than `limit` that holds a call of one of `names` laid
    out as black would: the list, tuple, set or call holding the calls one element per line
    (`raise Error(\\n    check(a, b, c)\\n)`), else the call itself wrapped."""
    lines = source.splitlines()
    long = frozenset(number for number, line in enumerate(lines, 1) if len(line) > limit)
    if not long:
        return source
    wrapper = MetadataWrapper(cst.parse_module(source))
    held = _LongCalls(lines, names, limit, containers=long)
    tree = wrapper.visit(held)
    alone = long - held.handled
    if alone:  # a second look, now knowing which lines no container takes care of
        tree = wrapper.visit(_LongCalls(lines, names, limit, containers=frozenset(held.handled),
                                        alone=alone))
    return tree.code


class _LongCalls(cst.CSTTransformer):
    """Lays out the long lines' calls of the named functions (`wrapped_calls`)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lines: list[str], names: AbstractSet[str], limit: int, *,
                 containers: AbstractSet[int], alone: AbstractSet[int] = frozenset()):
        super().__init__()
        self.lines = lines
        self.names = names
        self.limit = limit
        self.containers = containers
        """Lines whose list, tuple, set or call holding a named call is laid out."""
        self.alone = alone
        """Lines whose named calls are wrapped themselves."""
        self.handled: set[int] = set()

    def _line(self, node: cst.CSTNode) -> int | None:
        """The line of a node that sits on one line, else None."""
        position = self.get_metadata(PositionProvider, node)
        line = position.start.line
        return line if line == position.end.line else None

    def _indent(self, line: int) -> str:
        text = self.lines[line - 1]
        return text[:len(text) - len(text.lstrip())]

    def _named(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
            node.func.value in self.names

    def _lay_out(self, original: Container, updated: Container) -> cst.BaseExpression:
        line = self._line(original)
        if line is None or line not in self.containers or line in self.handled:
            return updated
        values = [item.value for item in (updated.args if isinstance(updated, cst.Call)
                                          else updated.elements)]
        named = {id(value) for value in values if self._named(value)}
        if not named:
            return updated
        laid = exploded(updated, self._indent(line), self.limit, named)
        if laid is None:
            return updated
        self.handled.add(line)
        return laid

    def leave_Call(self, original_node: cst.Call,
                   updated_node: cst.Call) -> cst.BaseExpression:
        line = self._line(original_node)
        if line is not None and line in self.alone and self._named(updated_node):
            return wrapped_call(updated_node, self._indent(line), self.limit)
        return self._lay_out(original_node, updated_node)

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.BaseExpression:
        return self._lay_out(original_node, updated_node)

    def leave_Tuple(self, original_node: cst.Tuple,
                    updated_node: cst.Tuple) -> cst.BaseExpression:
        return self._lay_out(original_node, updated_node)

    def leave_Set(self, original_node: cst.Set, updated_node: cst.Set) -> cst.BaseExpression:
        return self._lay_out(original_node, updated_node)
