"""Wrapping the lines an edit added that outgrow the repository's line length, as its formatter
would: black's way (the bracket's contents on one indented line, or one item a line with a
trailing comma, the closing bracket on its own line: click, jinja2, marshmallow and WTForms all
format with black or ruff), or the hanging way of a file whose continuation lines line up with
the opening bracket.

Only the lines an edit added are split (`splits.py` says where and how): a call's arguments, a
signature's parameters, a class's bases, a `from` import's names, a literal, a comprehension, a
condition or value with operators in parentheses of its own. Whitespace, parentheses and trailing
commas are all that change, so the code means the same; a line that nothing can shorten (a long
string, a chain of attributes) stays as it is, and a long comment is reflowed.
"""

from __future__ import annotations

import ast
import difflib
import io
import textwrap
import tokenize

import libcst as cst
from libcst.metadata import MetadataWrapper

from smellkit._internal import pyast
from smellkit.injectors.cst import windows
from smellkit.injectors.cst.splits import (
    CLOSERS,
    OPENERS,
    Collect,
    Statements,
    choose,
    replace,
    split,
)

_PASSES = 8
"""Splits of one line's brackets, outermost first (a split can leave an item still too long)."""


def added_lines(before: str | None, after: str) -> set[int]:
    """Line numbers (from 1) of `after` that `before` does not have in place."""
    new = after.splitlines()
    if before is None:
        return set(range(1, len(new) + 1))
    old = before.splitlines()
    head = 0  # the lines both begin and end with are matched without difflib (an edit is small)
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail],
                                      new[head:len(new) - tail], autojunk=False)
    found: set[int] = set()
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            found.update(range(head + start + 1, head + end + 1))
    return found


def long_lines(before: str | None, after: str, limit: int) -> list[int]:
    """The added lines of `after` longer than `limit`."""
    lines = after.splitlines()
    return sorted(number for number in added_lines(before, after)
                  if len(lines[number - 1].rstrip()) > limit)


def hanging(code: str) -> bool:
    """Whether the file continues bracketed lines the hanging way (`f(a,\\n  b)`) more often
    than black's (`f(\\n    a, b\\n)`)."""
    opened_at_end = continued = 0
    open_brackets: list[tuple[int, bool]] = []  # (line, whether content follows on that line)
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.OP and token.string in CLOSERS and open_brackets:
                line, content_follows = open_brackets.pop()
                continued += content_follows and token.start[0] > line
            if previous is not None and previous.type == tokenize.OP and \
                    previous.string in OPENERS and open_brackets:
                line, _ = open_brackets[-1]
                if token.type == tokenize.NL:
                    opened_at_end += 1
                elif token.start[0] == line and token.string not in CLOSERS:
                    open_brackets[-1] = (line, True)
            if token.type == tokenize.OP and token.string in OPENERS:
                open_brackets.append((token.start[0], False))
            previous = token
    except (tokenize.TokenError, SyntaxError):
        return False
    return continued > opened_at_end


def wrap_added_lines(text: str, before: str | None, limit: int) -> str:
    """`text` with the lines it adds to `before` (None: all of them) that outgrow `limit` split
    at their brackets, in the file's own style. Each statement to wrap is edited on its own
    (`windows.py`): the rest of the text stays byte for byte."""
    added = added_lines(before, text)
    lines = text.splitlines(keepends=True)
    long = [number for number in sorted(added) if _width(lines[number - 1]) > limit]
    if not long:
        return text
    tree = pyast.parse(text)
    reflowed = _reflowed_comments(tree, lines, set(long), limit)
    if reflowed != lines:  # line numbers moved
        lines = reflowed
        tree = pyast.parse("".join(lines))
        added = added_lines(before, "".join(lines))
        long = [number for number in sorted(added) if _width(lines[number - 1]) > limit]
    hang = hanging(before if before is not None else text)
    unit = indent_unit(tree, lines)
    found = {window for number in long
             if (window := windows.innermost(tree, number, lines)) is not None}
    for window in sorted(found, key=lambda item: -item.start):
        human = {lines[number - 1] for number in range(window.start, window.end + 1)
                 if number not in added}
        source, offset = windows.cut(lines, window)
        try:
            module = wrap(cst.parse_module(source), human, limit, hang, unit)
        except cst.ParserSyntaxError:
            continue
        lines = windows.paste(lines, window, module.code, offset)
    return "".join(lines)


_NOT_PROSE = ("#!", "# type:", "# noqa", "# pragma", "# fmt:", "# pylint:", "# mypy:")


def _reflowed_comments(tree: ast.Module, lines: list[str], long: set[int],
                       limit: int) -> list[str]:
    """`lines` with the long comment lines among `long` (a comment moved deeper with its code,
    say) reflowed over as many comment lines as they need; lines inside strings and comments
    that are directives or have no room to break stay."""
    in_strings = {number for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.end_lineno is not None and node.end_lineno > node.lineno
                  for number in range(node.lineno, node.end_lineno + 1)}
    result: list[str] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        if number not in long or number in in_strings or not stripped.startswith("# ") or \
                stripped.startswith(_NOT_PROSE) or "://" in stripped:
            result.append(line)
            continue
        indent = line[:len(line) - len(stripped)]
        newline = line[len(line.rstrip("\r\n")):] or "\n"
        pieces = textwrap.wrap(stripped[2:].rstrip(), width=limit - len(indent) - 2,
                               break_long_words=False, break_on_hyphens=False)
        if len(pieces) < 2 or any(len(indent) + 2 + len(piece) > limit for piece in pieces):
            result.append(line)
            continue
        result.extend(f"{indent}# {piece}{newline}" for piece in pieces)
    return result


def indent_unit(tree: ast.Module, lines: list[str]) -> str:
    """One level of the module's indentation: what its first indented body adds."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.stmt) and isinstance(body, list) and body and \
                isinstance(body[0], ast.stmt) and body[0].lineno > node.lineno:
            outer, inner = lines[node.lineno - 1], lines[body[0].lineno - 1]
            outer_indent = outer[:len(outer) - len(outer.lstrip())]
            inner_indent = inner[:len(inner) - len(inner.lstrip())]
            if inner_indent.startswith(outer_indent) and len(inner_indent) > len(outer_indent):
                return inner_indent[len(outer_indent):]
    return "    "


def _width(line: str) -> int:
    return len(line.rstrip("\r\n").rstrip())


def wrap(module: cst.Module, human: set[str], limit: int, hang: bool,
         unit: str = "    ") -> cst.Module:
    """The module with its lines longer than `limit` split at their brackets, except the lines
    in `human` (the repository's own, kept as they are); `unit`: one level of indentation."""
    for _ in range(_PASSES):
        code = module.code
        lines = code.splitlines(keepends=True)
        long = [number for number, line in enumerate(lines, start=1)
                if _width(line) > limit and line not in human]
        if not long:
            return module
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        collect = Collect(set(long), code.splitlines())
        statements = Statements()
        wrapper.visit(collect)
        wrapper.visit(statements)
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        for number in long:
            line = lines[number - 1].rstrip("\r\n")
            chosen = choose(collect.found.get(number, []), line, limit)
            if chosen is not None:
                replacements[chosen.node] = split(chosen, module, line,
                                                   statements.indent.get(number, 0), limit,
                                                   hang, unit)
        if not replacements:
            return module
        module = replace(module, replacements)
    return module


