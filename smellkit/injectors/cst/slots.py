"""Whether a new class some host inherits declares `__slots__`.

A mixin that a slotted class inherits must declare `__slots__ = ()`, or its instances gain a
`__dict__` (jinja2's undefined types, click's parsing state). A repository that never writes
`__slots__` (marshmallow, WTForms) never gets one either: `__slots__ = ()` in every new mixin is
a tell.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.injectors.cst import edit

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

SLOTS_LINE = "__slots__ = ()"


def declares_slots(node: cst.ClassDef) -> bool:
    """Whether the class body assigns `__slots__` directly."""
    if not isinstance(node.body, cst.IndentedBlock):
        return False
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            targets = [item.target for item in small.targets] if isinstance(small, cst.Assign) \
                else [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
            if any(isinstance(target, cst.Name) and target.value == "__slots__"
                   for target in targets):
                return True
    return False


def uses_slots(context: InjectionContext, classes: Iterable[str]) -> bool:
    """Whether one of `classes`, or a repository class it inherits from, declares
    `__slots__`: then a mixin they inherit keeps their instances' layout only with its own."""
    index = context.index
    for heir in classes:
        for cls in index.mro(heir):
            path = context.path_of(cls)
            module = index.module_of.get(cls)
            if path is None or module is None or not cls.startswith(f"{module}."):
                continue
            node = edit.find_definition(context.module(path),
                                        cls[len(module) + 1:].split("."))
            if isinstance(node, cst.ClassDef) and declares_slots(node):
                return True
    return False
