"""The class hierarchy across modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

from smellkit._internal.collector import paused_gc

if TYPE_CHECKING:
    from smellkit.graphs.index import Index


def build_class_graph(index: Index) -> nx.DiGraph:
    """Subclass -> base edges. Classes outside the repository are nodes with `external=True`."""
    with paused_gc():
        return _class_graph(index)


def _class_graph(index: Index) -> nx.DiGraph:
    graph = nx.DiGraph()
    for name in index.classes:
        graph.add_node(name, external=False, module=index.module_of.get(name, ""))
    for name in index.classes:
        for position, base in enumerate(index.bases(name)):
            if base not in graph:
                graph.add_node(base, external=True, module="")
            graph.add_edge(name, base, position=position)
    return graph


def depth_of_inheritance(graph: nx.DiGraph, name: str) -> int:
    """DIT (Chidamber-Kemerer 1994): the longest path from the class to a root of the hierarchy.

    An external base counts as one level (its own ancestors are not visible); `object` counts zero.
    """
    best = 0
    stack = [(name, 0)]
    seen: set[tuple[str, int]] = set()
    while stack:
        node, depth = stack.pop()
        best = max(best, depth)
        for base in graph.successors(node) if node in graph else ():
            if base in ("object", "builtins.object") or (base, depth + 1) in seen:
                continue
            seen.add((base, depth + 1))
            stack.append((base, depth + 1))
    return best
