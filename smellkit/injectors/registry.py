"""Which injectors exist: the built-ins listed by name, plus plugins from an entry-point group.

A plugin is an `Injector` subclass exposed under the `smellkit.injectors` entry-point group. Two
injectors with one name is an error, never a silent override.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache, partial
from importlib.metadata import entry_points
from typing import Any

from smellkit.errors import ConfigError, UsageError
from smellkit.injectors.base import Injector

ENTRY_POINT_GROUP = "smellkit.injectors"

BUILTIN_INJECTORS = (
    "smellkit.injectors.feature_envy:FeatureEnvyInjector",
    "smellkit.injectors.god_class:GodClassInjector",
    "smellkit.injectors.data_clumps:DataClumpsInjector",
    "smellkit.injectors.shotgun_surgery:ShotgunSurgeryInjector",
    "smellkit.injectors.dead_code:DeadCodeInjector",
    "smellkit.injectors.interface_segregation:InterfaceSegregationInjector",
    "smellkit.injectors.deep_inlining:DeepInliningInjector",
    "smellkit.injectors.duplicated_code:DuplicatedCodeInjector",
)
"""One injector per smell, under the detector's stable name, in DESIGN.md's order."""

InjectorClass = type[Injector[Any]]


def _import(reference: str) -> object:
    module_name, _, class_name = reference.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


@cache
def injectors() -> dict[str, InjectorClass]:
    """Every injector class by smell name: built-ins first, then plugins."""
    sources: list[tuple[str, Callable[[], object]]] = [
        (reference, partial(_import, reference)) for reference in BUILTIN_INJECTORS]
    sources += [(f"entry point {point.value}", point.load)
                for point in entry_points(group=ENTRY_POINT_GROUP)]
    found: dict[str, InjectorClass] = {}
    origins: dict[str, str] = {}
    for reference, load in sources:
        cls = load()
        if not (isinstance(cls, type) and issubclass(cls, Injector)):
            raise ConfigError(f"{reference} is not a smellkit Injector subclass",
                              hint="check the entry point of the plugin")
        if cls.name in found:
            raise ConfigError(f"two injectors are named {cls.name!r}: {origins[cls.name]} and "
                              f"{reference}", hint="rename the plugin's injector")
        found[cls.name] = cls
        origins[cls.name] = reference
    return found


def injector_class(name: str) -> InjectorClass:
    available = injectors()
    if name not in available:
        raise UsageError(f"no injector for smell {name!r}",
                         hint=f"known smells: {', '.join(available)}")
    return available[name]
