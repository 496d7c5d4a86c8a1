"""Where the refusals of a widened interface live at medium and hard: mixins in new modules.

One group of folded-in methods per mixin, one mixin per new module next to the interface's. At
hard an aggregate module combines the two mixins, and a class that refuses every group inherits
the aggregate: the refusals reach it through two levels of bases in three modules.
"""

from __future__ import annotations

import re

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext

_SUFFIXES = ("Defaults", "Extras")


def groups(roles: dict[str, list[str]], methods: list[str], split: bool) -> list[list[str]]:
    """The folded-in methods in groups, one mixin each: one role per group when there are
    several (the second group takes the rest), else the one role split in halves (`split`) or
    kept whole."""
    parts = list(roles.values())
    if len(parts) >= 2:
        return [parts[0], [name for part in parts[1:] for name in part]]
    if not split:
        return [list(methods)]
    if len(methods) < 2:
        raise InjectionRefused("one method cannot be split over two mixins")
    return [methods[:len(methods) // 2], methods[len(methods) // 2:]]


class Layout:
    """The new modules of one injection: their paths, module names, classes and text."""

    def __init__(self, context: InjectionContext, interface: str, grouped: list[list[str]],
                 *, modules: int, aggregate: bool):
        index = context.index
        self.short = interface.rpartition(".")[2]
        module = index.module_of[interface]
        self.package = module if index.modules[module].is_package else module.rpartition(".")[0]
        folder = (context.path_of(interface) or "").rpartition("/")[0]
        self.groups = grouped
        self.mixins = [f"{self.short}{suffix}" for suffix in _SUFFIXES[:len(grouped)]]
        self.aggregate = f"{self.short}Parts" if aggregate and len(grouped) > 1 else None
        self.paths: dict[str, str] = {}
        """Class name -> the path of its new module."""
        taken: set[str] = set()
        for number, name in enumerate([*self.mixins, *([self.aggregate] if self.aggregate
                                                        else [])]):
            if 0 < number < len(self.mixins) and modules == 1:
                self.paths[name] = self.paths[self.mixins[0]]  # mixins share one module
                continue
            stem = f"_{_snake(name)}"
            path = context.free_path(folder, stem)
            number = 2
            while path in taken:
                path = context.free_path(folder, f"{stem}_{number}")
                number += 1
            taken.add(path)
            self.paths[name] = path
        self.used: set[str] = set()

    def module_of(self, name: str) -> str:
        stem = self.paths[name].rpartition("/")[2][:-3]
        return f"{self.package}.{stem}" if self.package else stem

    def bases_for(self, refused: list[str], own: set[str]) -> list[tuple[str, list[str]]]:
        """The new bases of a class that refuses these methods, with the methods each brings:
        the aggregate when each folded-in method is one it refuses or defines itself (its own
        definition comes first in its MRO), else each group's mixin it refuses whole."""
        covered = [number for number, group in enumerate(self.groups)
                   if set(group) <= set(refused)]
        if self.aggregate and all(set(group) <= set(refused) | own for group in self.groups):
            self.used.add(self.aggregate)
            return [(self.aggregate, [name for group in self.groups for name in group])]
        self.used.update(self.mixins[number] for number in covered)
        return [(self.mixins[number], self.groups[number]) for number in covered]

    def import_of(self, name: str, importer: str, source: str) -> str:
        """The import of a new class into a module, relative when that module imports its
        siblings relatively."""
        package = importer.rpartition(".")[0]
        if self.package and package == self.package and re.search(r"^from \.", source, re.M):
            return f"from .{self.module_of(name).rpartition('.')[2]} import {name}"
        return f"from {self.module_of(name)} import {name}"

    @property
    def members(self) -> list[str]:
        """Qualnames of the new classes and of their refusals (the smell involves them)."""
        found = [f"{self.module_of(mixin)}.{mixin}.{method}"
                 for mixin, group in zip(self.mixins, self.groups) for method in group
                 if mixin in self.used or self.aggregate is not None]
        if self.aggregate:
            found.append(f"{self.module_of(self.aggregate)}.{self.aggregate}")
        return found

    def files(self) -> dict[str, str | None]:
        """The text of each new module that a class inherits from (an aggregate no class
        needs, when no class refuses every group, is left out: it would be dead code)."""
        if self.aggregate not in self.used:
            self.aggregate = None
        texts: dict[str, str | None] = {}
        for mixin, group in zip(self.mixins, self.groups):
            if mixin not in self.used and self.aggregate is None:
                continue  # no class refuses this group whole: its refusals stay in bodies
            text = (f"class {mixin}:\n    __slots__ = ()\n\n"
                    + "\n".join(refusal(name, "    ") for name in group))
            path = self.paths[mixin]
            texts[path] = (f"{texts[path]}\n\n{text}" if texts.get(path) else
                           f'"""Shared behaviour of {self.short} implementations."""\n\n\n{text}')
        if self.aggregate is not None:
            imports = "".join(f"from {self.module_of(mixin)} import {mixin}\n"
                              for mixin in self.mixins)
            texts[self.paths[self.aggregate]] = (
                f'"""The behaviour {self.short} implementations share, in one base."""\n\n'
                f"{imports}\n\nclass {self.aggregate}({', '.join(self.mixins)}):\n"
                "    __slots__ = ()\n")
        return texts


def refusal(name: str, indent: str = "") -> str:
    """A member that refuses `name` as Python refuses a missing attribute: a property raising
    the same AttributeError (so `hasattr` is false and `__getattr__` still gets its turn)."""
    message = f"{{type(self).__name__!r}} object has no attribute {name!r}"
    return (f"{indent}@property\n{indent}def {name}(self):\n"
            f'{indent}    raise AttributeError(f"{message}")\n')


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
