"""The module import graph and its cycles."""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

from smellkit._internal.collector import paused_gc

if TYPE_CHECKING:
    from smellkit.graphs.index import Index


def imported_module(index: Index, target: str) -> str | None:
    """The repository module an import target lands in: the module itself or the one defining it."""
    parts = target.split(".")
    for length in range(len(parts), 0, -1):
        candidate = ".".join(parts[:length])
        if candidate in index.modules:
            if length < len(parts):
                resolved = index.resolve_dotted(target)
                if resolved is not None:
                    return index.scope_module(resolved)
            return candidate
    return None


def build_import_graph(index: Index) -> nx.DiGraph:
    """Module -> module it imports, for modules of the repository.

    Edge attributes: `lines` (where), `eager` (some import runs at module import time: not inside a
    function and not under `if TYPE_CHECKING`). Only eager edges can form a failing import cycle.
    """
    with paused_gc():
        return _import_graph(index)


def _import_graph(index: Index) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(index.modules)
    for module, facts in index.modules.items():
        for item in facts.imports:
            landed = imported_module(index, item.target)
            if landed is None or landed == module:
                continue
            eager = item.scope == module and not item.type_only
            if graph.has_edge(module, landed):
                data = graph.edges[module, landed]
                data["lines"].append(item.line)
                data["eager"] = data["eager"] or eager
            else:
                graph.add_edge(module, landed, lines=[item.line], eager=eager)
    return graph


def import_cycles(graph: nx.DiGraph) -> list[tuple[str, ...]]:
    """One cycle per group of modules that import each other eagerly, sorted for stable output."""
    eager = nx.DiGraph([(a, b) for a, b, data in graph.edges(data=True) if data["eager"]])
    cycles: list[tuple[str, ...]] = []
    for component in nx.strongly_connected_components(eager):
        if len(component) < 2:
            continue
        start = min(component)
        cycle = nx.find_cycle(eager.subgraph(component), source=start)
        cycles.append(tuple(edge[0] for edge in cycle))
    return sorted(cycles)
