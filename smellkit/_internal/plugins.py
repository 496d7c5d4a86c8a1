"""Explicit registries: built-ins listed by "module:Class" name, plugins from an entry-point group.

Detectors and injectors share this: a plugin must subclass the base class, and two classes with one
name is an error, never a silent override.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from functools import partial
from importlib.metadata import entry_points
from typing import Any

from smellkit.errors import ConfigError


def _import(reference: str) -> object:
    module_name, _, class_name = reference.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_registry(builtins: Sequence[str], group: str, base: type,
                  check: Callable[[type, str], object] | None = None) -> dict[str, Any]:
    """Every class by its `name` attribute: built-ins first, then the group's entry points.
    `check(cls, where)` raises when a class breaks its contract (`where` names it)."""
    kind = base.__name__
    sources: list[tuple[str, Callable[[], object]]] = [
        (reference, partial(_import, reference)) for reference in builtins]
    sources += [(f"entry point {point.value}", point.load) for point in entry_points(group=group)]
    found: dict[str, type] = {}
    origins: dict[str, str] = {}
    for reference, load in sources:
        cls = load()
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise ConfigError(f"{reference} is not a smellkit {kind} subclass",
                              hint="check the entry point of the plugin")
        if check is not None:
            check(cls, f"{kind.lower()} {reference}")
        name: str = getattr(cls, "name")  # noqa: B009 - set by every subclass
        if name in found:
            raise ConfigError(f"two {kind.lower()}s are named {name!r}: {origins[name]} and "
                              f"{reference}", hint=f"rename the plugin's {kind.lower()}")
        found[name] = cls
        origins[name] = reference
    return found
