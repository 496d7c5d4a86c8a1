"""Bringing an edit's new code into the repository's house style (`house.py`): its added
imports placed (`placement.py`), then its added long lines wrapped (`layout.py`)."""

from __future__ import annotations

import ast

import libcst as cst

from smellkit._internal import pyast
from smellkit.injectors.cst import layout, placement
from smellkit.injectors.cst.house import HouseStyle


def restyle(style: HouseStyle, before: str | None, after: str, module: str,
            package: bool = False) -> str:
    """`after` (the new text of module `module`, which was `before`, None when new) with the
    imports it adds placed and written in the house style and its added long lines wrapped. The
    text comes back as it was when restyling would change what the code means (it never
    should) or the code does not parse."""
    try:
        placed = placement.place_added_imports(after, before, style, module, package)
        wrapped = layout.wrap_added_lines(placed, before, style.line_length)
        if wrapped == after:
            return after
        pyast.parse(placed)
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError):
        return after
    if not _same_code(placed, wrapped):
        return after  # wrapping must not move the syntax tree at all
    return wrapped


def _same_code(old: str, new: str) -> bool:
    try:
        return ast.dump(pyast.parse(old)) == ast.dump(pyast.parse(new))
    except (SyntaxError, ValueError):
        return False
