"""smellkit: code-smell analysis and deterministic refactoring benchmarks for coding agents.

Public names are imported on first use, so `import smellkit` (and the CLI) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from smellkit._version import __version__

_EXPORTS = {
    "Project": "smellkit.project",
    "Survey": "smellkit.project",
    "LoadOptions": "smellkit.project.options",
    "ProjectConfig": "smellkit.config",
    "RepoSpec": "smellkit.config",
    "load_repo_spec": "smellkit.config",
    "scan": "smellkit.scanning.scanner",
    "Index": "smellkit.graphs.index",
    "FileFacts": "smellkit.facts",
    "Location": "smellkit.models",
    "Finding": "smellkit.models",
    "Diagnostic": "smellkit.models",
    "ScanResult": "smellkit.models",
    "SmellkitError": "smellkit.errors",
    "ProjectError": "smellkit.errors",
    "ConfigError": "smellkit.errors",
}

__all__ = [
    "ConfigError", "Diagnostic", "FileFacts", "Finding", "Index", "LoadOptions", "Location",
    "Project", "ProjectConfig", "ProjectError", "RepoSpec", "ScanResult", "SmellkitError",
    "Survey", "__version__", "load_repo_spec", "scan",
]

if TYPE_CHECKING:
    from smellkit.config import ProjectConfig, RepoSpec, load_repo_spec
    from smellkit.errors import ConfigError, ProjectError, SmellkitError
    from smellkit.facts import FileFacts
    from smellkit.graphs.index import Index
    from smellkit.models import Diagnostic, Finding, Location, ScanResult
    from smellkit.project import Project, Survey
    from smellkit.project.options import LoadOptions
    from smellkit.scanning.scanner import scan


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'smellkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
