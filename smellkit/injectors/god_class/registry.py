"""The hard god class's indirection: a module-level registry in the holder's module.

At hard, the holder's module gains a table and a decorator that enters a function in it under
its name, both defined just before the holder's class statement. The methods the holder gained
(the absorbed functions, or the collaborators' initialisers) are decorated with it, innermost,
so the table holds the very function objects the class holds; the code that reached them by name
(the thin functions left in the other modules, the holder's own constructor) now looks them up
in the table. Every call runs the same function on the same arguments as before: the solver has
to see through module state, a decorator and a lookup by string to find where the work went.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.cst import edit

_CHOICES = (("_REGISTRY", "_registered"), ("_HANDLERS", "_handler"),
            ("_ABSORBED", "_absorbed"))


class Registry(NamedTuple):
    """The table's and the decorator's names in the holder's module."""

    table: str
    decorator: str

    def lookup(self, name: str) -> cst.BaseExpression:
        """`<table>["<name>"]`."""
        return cst.parse_expression(f'{self.table}["{name}"]')


def choose(source: str) -> Registry:
    """Two names the holder's module does not use anywhere (code, comments or strings).
    Raises `InjectionRefused`."""
    for table, decorator in _CHOICES:
        if edit.name_free(source, table) and edit.name_free(source, decorator):
            return Registry(table, decorator)
    raise InjectionRefused("the holder's module already uses every registry name tried")


def decorate(function: cst.FunctionDef, registry: Registry) -> cst.FunctionDef:
    """The method with the registering decorator innermost (it sees the plain function)."""
    return function.with_changes(
        decorators=[*function.decorators, cst.Decorator(cst.Name(registry.decorator))])


def install(module: cst.Module, class_name: str, registry: Registry) -> cst.Module:
    """The module with the table and the decorator defined right before the class statement
    (which takes two blank lines above it; its comments stay with it)."""
    position = edit.top_index(module, class_name)
    if position is None:
        raise InjectionRefused(f"class {class_name} is not a top-level statement")
    cls = module.body[position]
    assert isinstance(cls, cst.ClassDef)
    lines = list(cls.leading_lines)
    blank = 0
    while blank < len(lines) and lines[blank].comment is None:
        blank += 1
    table = cst.parse_statement(f"{registry.table} = {{}}\n",
                                config=module.config_for_parsing)
    function = cst.parse_statement(
        f"def {registry.decorator}(function):\n"
        f"{module.default_indent}{registry.table}[function.__name__] = function\n"
        f"{module.default_indent}return function\n", config=module.config_for_parsing)
    two = [cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)]
    added = [table.with_changes(leading_lines=lines[:blank] if blank else two),
             function.with_changes(leading_lines=two)]
    moved = cls.with_changes(leading_lines=[*two, *lines[blank:]])
    body = list(module.body)
    body[position:position + 1] = [*added, moved]
    return module.with_changes(body=body)
