"""Which families of the repository an interface segregation injection can widen: interfaces
and plain bases used as ones, and the methods (roles) that may be folded into them.

A name that code may look up by a string is never folded in: the whole string, or a string that
reads as a name's prefix (`"visit_"`) or suffix (`"_handler"`) with which a name is built.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from smellkit.config import is_test_path
from smellkit.injectors.base import InjectionContext


def spelled(index: Any) -> tuple[set[str], tuple[str, ...], tuple[str, ...]]:
    """The repository's strings: whole ones, and those that read as a name's prefix (`visit_`)
    or suffix (`_handler`), with which code builds a name to look up."""
    strings = {value for facts in index.modules.values() for value, _ in facts.string_constants}
    prefixes = tuple(sorted(value for value in strings
                            if value.endswith("_") and value.rstrip("_").isidentifier()))
    suffixes = tuple(sorted(value for value in strings
                            if value.startswith("_") and value.lstrip("_").isidentifier()))
    return strings, prefixes, suffixes


def role_method(context: InjectionContext, qualname: str, name: str,
                 strings: tuple[set[str], tuple[str, ...], tuple[str, ...]]) -> bool:
    """A public method with a real body, plain, static or a class method (no other
    decorator), whose name is never spelled as a string (`getattr(obj, "name")`), nor built from
    one (`getattr(obj, "visit_" + kind)`)."""
    definition = context.index.definitions.get(qualname)
    whole, prefixes, suffixes = strings
    return (definition is not None and definition.kind == "method"
            and set(definition.decorators) <= {"staticmethod", "classmethod"}
            and len(definition.decorators) <= 1
            and not name.startswith("_") and not definition.is_stub and name not in whole
            and not name.startswith(prefixes) and not name.endswith(suffixes)
            and not definition.is_async)


def bases(context: InjectionContext, interfaces: set[str]) -> Iterable[tuple[str, list[str]]]:
    """Plain bases used as interfaces: classes (not already interfaces) whose public methods two
    or more of their subclasses override; with their concrete implementers (every subclass
    outside the tests with no abstract method)."""
    index = context.index
    for qualname in sorted(index.classes):
        if qualname in interfaces:
            continue
        descendants = [cls for cls in index.descendants(qualname)
                       if not is_test_path(context.path_of(cls) or "")]
        public = {name for name in index.children.get(qualname, {})
                  if not name.startswith("_")}
        overriding = [cls for cls in descendants
                      if public & set(index.children.get(cls, {}))]
        if len(overriding) < 2:
            continue
        yield qualname, [cls for cls in descendants if not _abstract(index, cls)]


def _abstract(index: Any, cls: str) -> bool:
    return any(decorator.rpartition(".")[2].startswith("abstract")
               for child in index.children.get(cls, {}).values()
               for decorator in index.definitions[child].decorators)


def family_of(context: InjectionContext, interface: str) -> list[str]:
    """Every class below the interface outside the tests: each one that lacks a folded-in
    method refuses it (abstract and partial bases too, in case they are instantiated)."""
    index = context.index
    return [cls for cls in index.descendants(interface)
            if not is_test_path(context.path_of(cls) or "") and not any(
                base.split("[")[0].rpartition(".")[2] == "Protocol" for base in index.bases(cls))]
