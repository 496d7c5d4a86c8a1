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

import itertools
import random
from typing import TYPE_CHECKING, NamedTuple

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.cst import edit
from smellkit.injectors.naming import meaningful, snake, words

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_KINDS = (("METHODS", "method"), ("FUNCTIONS", "function"), ("REGISTRY", "registered"))
"""What the table is called, with the decorator that fills it: plainly what it holds (the
holder's methods by name). Words of purpose (`HOOKS`, `HANDLERS`, `CALLBACKS`) would mislead:
the absorbed code is utilities and initialisers, not hooks anyone calls back."""


class Registry(NamedTuple):
    """The table's and the decorator's names in the holder's module."""

    table: str
    decorator: str

    def lookup(self, name: str) -> cst.BaseExpression:
        """`<table>["<name>"]`."""
        return cst.parse_expression(f'{self.table}["{name}"]')


def choose(context: InjectionContext, holder: str, source: str) -> Registry:
    """A table and a decorator named after the class whose methods the table holds
    (`_FIELD_METHODS`, `_field_method`; `_BASE_FORM_FUNCTIONS`), else after what its module is
    about (from the repository's words), that the module uses nowhere (code, comments or
    strings). Raises `InjectionRefused`."""
    module, _, name = holder.rpartition(".")
    rng = random.Random(holder)
    kinds = list(_KINDS)
    rng.shuffle(kinds)
    own = words(name) or [name.strip("_").lower()]
    heads = [snake(own), *[part for part in own if meaningful(part)][-1:],
             *context.vocabulary.names(module, name, rng=rng, most=1)]
    for head in itertools.islice(dict.fromkeys(heads), 12):
        for table, decorator in kinds:
            registry = Registry(f"_{head.upper()}_{table}", f"_{head}_{decorator}")
            if edit.name_free(source, registry.table) and \
                    edit.name_free(source, registry.decorator):
                return registry
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
