"""Which injectors exist: the built-ins listed by name, plus plugins from an entry-point group.

A plugin is an `Injector` subclass exposed under the `smellkit.injectors` entry-point group. Two
injectors with one name is an error, never a silent override; so is an injector that does not
refer to its detector's `Smell` declaration.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from smellkit._internal.plugins import load_registry
from smellkit.analysis.smells import declared_smell
from smellkit.errors import UsageError
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


@cache
def injectors() -> dict[str, InjectorClass]:
    """Every injector class by smell name: built-ins first, then plugins."""
    found: dict[str, InjectorClass] = load_registry(BUILTIN_INJECTORS, ENTRY_POINT_GROUP, Injector,
                                                    declared_smell)
    return found


def injector_class(name: str) -> InjectorClass:
    available = injectors()
    if name not in available:
        raise UsageError(f"no injector for smell {name!r}",
                         hint=f"known smells: {', '.join(available)}")
    return available[name]
