"""Which detectors exist: the built-ins listed by name, plus plugins from an entry-point group.

A plugin is a `Detector` subclass exposed under the `smellkit.detectors` entry-point group of its
distribution. Two detectors with one name is an error, never a silent override; so is a detector
without a complete `Smell` declaration.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from smellkit._internal.plugins import load_registry
from smellkit.analysis.smells import Smell, declared_smell
from smellkit.detectors.base import Detector
from smellkit.errors import UsageError

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


@cache
def detectors() -> dict[str, DetectorClass]:
    """Every detector class by smell name: built-ins first, then plugins."""
    found: dict[str, DetectorClass] = load_registry(BUILTIN_DETECTORS, ENTRY_POINT_GROUP, Detector,
                                                    declared_smell)
    return found


def smells() -> dict[str, Smell]:
    """Every smell's declaration by name, as its detector declares it."""
    return {name: cls.smell for name, cls in detectors().items()}


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
