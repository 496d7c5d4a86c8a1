"""Which detectors exist: the built-ins listed by name, plus plugins from an entry-point group.

A plugin is a `Detector` subclass exposed under the `smellkit.detectors` entry-point group of its
distribution. Two detectors with one name is an error, never a silent override.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache, partial
from importlib.metadata import entry_points
from typing import Any

from smellkit.detectors.base import Detector
from smellkit.errors import ConfigError, UsageError

ENTRY_POINT_GROUP = "smellkit.detectors"

BUILTIN_DETECTORS = (
    "smellkit.detectors.feature_envy:FeatureEnvy",
    "smellkit.detectors.god_class:GodClass",
    "smellkit.detectors.data_clumps:DataClumps",
    "smellkit.detectors.shotgun_surgery:ShotgunSurgery",
    "smellkit.detectors.dead_code:DeadCode",
    "smellkit.detectors.interface_segregation:InterfaceSegregation",
    "smellkit.detectors.deep_inlining:DeepInlining",
    "smellkit.detectors.duplicated_code:DuplicatedCode",
)
"""The stable smell names, in the order DESIGN.md lists them."""


DetectorClass = type[Detector[Any]]


def _import(reference: str) -> object:
    module_name, _, class_name = reference.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


@cache
def detectors() -> dict[str, DetectorClass]:
    """Every detector class by smell name: built-ins first, then plugins."""
    sources: list[tuple[str, Callable[[], object]]] = [
        (reference, partial(_import, reference)) for reference in BUILTIN_DETECTORS]
    sources += [(f"entry point {point.value}", point.load)
                for point in entry_points(group=ENTRY_POINT_GROUP)]
    found: dict[str, DetectorClass] = {}
    origins: dict[str, str] = {}
    for reference, load in sources:
        cls = load()
        if not (isinstance(cls, type) and issubclass(cls, Detector)):
            raise ConfigError(f"{reference} is not a smellkit Detector subclass",
                              hint="check the entry point of the plugin")
        if cls.name in found:
            raise ConfigError(f"two detectors are named {cls.name!r}: {origins[cls.name]} and "
                              f"{reference}", hint="rename the plugin's detector")
        found[cls.name] = cls
        origins[cls.name] = reference
    return found


def select(names: list[str] | tuple[str, ...] | None) -> list[DetectorClass]:
    """The detector classes for these smell names (all when None), unknown names rejected."""
    available = detectors()
    if not names:
        return list(available.values())
    unknown = [name for name in names if name not in available]
    if unknown:
        raise UsageError(f"unknown smell {', '.join(unknown)}",
                         hint=f"known smells: {', '.join(available)}")
    return [available[name] for name in names]
