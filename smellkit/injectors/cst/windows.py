"""Small pieces of a big module, edited with libcst on their own.

libcst's metadata and transformers cost seconds on a module of a few thousand lines (click's
`core.py`), and restyling an edit touches a handful of statements. So the statements to change
are found with `ast` (fast), cut out as a few lines that parse alone (an indented statement under
`if 1:`, a compound statement's header over a `pass`), edited, and spliced back; every other
byte of the module stays as it was.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

_HEADERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
            ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)
"""Compound statements whose header can be cut out alone (not `elif`, `else`, `except`)."""


@dataclass(frozen=True)
class Window:
    """Lines `start` to `end` (from 1, inclusive) of a module: one statement, or the header of
    a compound statement (`header`)."""

    start: int
    end: int
    header: bool = False


def bodies(tree: ast.Module) -> Iterator[tuple[list[ast.stmt], bool]]:
    """Every list of statements in the module, and whether it is nested in another statement."""
    yield tree.body, False
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            value = getattr(node, name, None)
            if node is not tree and isinstance(value, list) and value and \
                    isinstance(value[0], ast.stmt):
                yield value, True
        for handler in getattr(node, "handlers", ()):
            yield handler.body, True
        for case in getattr(node, "cases", ()):
            yield case.body, True


def innermost(tree: ast.Module, line: int, lines: list[str]) -> Window | None:
    """The smallest statement holding `line`: a simple statement whole, or the header of a
    compound one when the line is in its header; None when the line is in no statement that
    can be cut out (a decorator, an `elif`)."""
    found: Window | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.end_lineno is None or \
                not node.lineno <= line <= node.end_lineno:
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            header_end = body[0].lineno - 1
            if header_end < node.lineno:  # `def f(): return x`: one line
                window = Window(node.lineno, node.end_lineno)
            elif line <= header_end and isinstance(node, _HEADERS) and \
                    not lines[node.lineno - 1].lstrip().startswith("elif"):
                window = Window(node.lineno, header_end, header=True)
            else:
                continue
        else:
            window = Window(node.lineno, node.end_lineno)
        if found is None or window.end - window.start <= found.end - found.start:
            found = window
    return found


def newline_of(text: str) -> str:
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def cut(lines: list[str], window: Window) -> tuple[str, int]:
    """The window's lines (each with its line end) as source that parses alone, and how many
    lines were put before them."""
    first = lines[window.start - 1]
    indent = first[:len(first) - len(first.lstrip())]
    newline = newline_of(first) if first.endswith("\n") else "\n"
    prefix = f"if 1:{newline}" if indent else ""
    text = "".join(lines[window.start - 1:window.end])
    if not text.endswith("\n"):
        text += newline
    if window.header:
        unit = "\t" if "\t" in indent else "    "
        text += f"{indent}{unit}pass{newline}"
    return prefix + text, 1 if prefix else 0


def paste(lines: list[str], window: Window, edited: str, offset: int) -> list[str]:
    """`lines` with the window replaced by the edited source `cut` gave (its extra lines
    dropped; the last line's end kept as it was)."""
    new = edited.splitlines(keepends=True)[offset:]
    if window.header:
        new = new[:-1]
    last = lines[window.end - 1]
    if new and not last.endswith("\n"):
        new[-1] = new[-1].rstrip("\r\n")
    return [*lines[:window.start - 1], *new, *lines[window.end:]]


@dataclass(frozen=True)
class ImportRun:
    """Consecutive import statements of one body (lines `start` to `end`), the statement after
    them (its first line, and whether it defines a function or class)."""

    start: int
    end: int
    nested: bool
    following: int | None
    definition: bool


def import_runs(tree: ast.Module) -> list[ImportRun]:
    runs = []
    for body, nested in bodies(tree):
        position = 0
        while position < len(body):
            if not isinstance(body[position], (ast.Import, ast.ImportFrom)):
                position += 1
                continue
            end = position
            while end < len(body) and isinstance(body[end], (ast.Import, ast.ImportFrom)):
                end += 1
            after = body[end] if end < len(body) else None
            first = None if after is None else min(
                [after.lineno, *(item.lineno for item in getattr(after, "decorator_list", ()))])
            runs.append(ImportRun(body[position].lineno, body[end - 1].end_lineno or
                             body[end - 1].lineno, nested, first, isinstance(
                                 after, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))))
            position = end
    return runs


def blank_lines(lines: list[str], end: int, following: int | None) -> int:
    """Blank lines right after line `end`, before line `following`."""
    count = 0
    for number in range(end + 1, following or end + 1):
        if lines[number - 1].strip():
            break
        count += 1
    return count


def local_gaps(lines: list[str], runs: list[ImportRun]) -> list[bool]:
    """For each function-local import block followed by a statement: whether a blank line
    sets it apart."""
    return [blank_lines(lines, run.end, run.following) > 0 for run in runs
            if run.nested and run.following is not None]
