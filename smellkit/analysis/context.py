"""The analyses detectors share, built on first use and kept for every detector of one run."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from smellkit._internal.collector import Derived
from smellkit.analysis.locations import definition_location, module_location
from smellkit.facts import FileFacts
from smellkit.models import Location

if TYPE_CHECKING:
    import networkx as nx

    from smellkit.graphs.index import Index
    from smellkit.metrics.coupling import ModuleMetrics
    from smellkit.metrics.oo import ClassMetrics, MethodMetrics
    from smellkit.project import Project


class Context(Derived):
    """A loaded project plus cached graphs, metrics, locations and source lines."""

    def __init__(self, project: Project):
        if not all(facts.detailed for facts in project.files):
            raise ValueError("the detectors need detailed facts: load the project with "
                             "Project.load(..., detailed=True), the default")
        self.project = project
        self.index: Index = project.index
        self._lines: dict[str, list[str]] = {}

    # -- graphs and metrics -----------------------------------------------------------------

    @property
    def call_graph(self) -> nx.DiGraph:
        return self.index.call_graph

    @property
    def attribute_graph(self) -> nx.DiGraph:
        return self.index.attribute_graph

    @property
    def import_graph(self) -> nx.DiGraph:
        return self.index.import_graph

    @cached_property
    def class_metrics(self) -> dict[str, ClassMetrics]:
        from smellkit.metrics.oo import class_metrics

        return class_metrics(self.index)

    @cached_property
    def method_metrics(self) -> dict[str, MethodMetrics]:
        from smellkit.metrics.oo import method_metrics

        return method_metrics(self.index)

    @cached_property
    def module_metrics(self) -> dict[str, ModuleMetrics]:
        from smellkit.metrics.coupling import module_metrics

        return module_metrics(self.index)

    # -- locations --------------------------------------------------------------------------

    def file_of(self, qualname: str) -> FileFacts | None:
        module = self.index.scope_module(qualname)
        return self.index.modules.get(module)

    def location(self, qualname: str) -> Location | None:
        """The location of a module or definition by qualified name, or None if unknown."""
        if qualname in self.index.modules:
            return module_location(self.index.modules[qualname])
        definition = self.index.definitions.get(qualname)
        facts = self.file_of(qualname)
        if definition is None or facts is None:
            return None
        return definition_location(facts, definition)

    def line_location(self, qualname: str, path: str, line: int,
                      kind: str = "statement", end_line: int | None = None) -> Location:
        """A location for a statement or attribute inside a definition."""
        return Location(path=path, qualname=qualname, kind=kind,  # type: ignore[arg-type]
                        start_line=line, end_line=end_line or line)

    # -- source -----------------------------------------------------------------------------

    def lines(self, path: str) -> list[str]:
        """Source lines of a file (relative path), read once; empty when unreadable."""
        if path not in self._lines:
            self._lines[path] = read_lines(self.project.root, path)
        return self._lines[path]


def read_lines(root: Path, path: str) -> list[str]:
    """Source lines of a file of the project at `root` (a folder, or the one file scanned)."""
    target = root if root.is_file() else root / path
    try:
        return Path(target).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
