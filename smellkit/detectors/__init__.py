"""Detectors: one module per smell, a registry, and the engine that runs them."""

from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.detectors.registry import BUILTIN_DETECTORS, detectors, select
from smellkit.detectors.runner import residue, run_detectors

__all__ = [
    "BUILTIN_DETECTORS", "Detector", "DetectorOptions", "Example", "detectors",
    "residue", "run_detectors", "select",
]
