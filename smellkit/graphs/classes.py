"""The class hierarchy across modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

from smellkit._internal.collector import paused_gc
from smellkit.graphs.builtin_names import BUILTIN_PREFIX

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


_ROOTS = frozenset({"object", "builtins.object", BUILTIN_PREFIX + "object"})
"""`object` as a base, as spelled (`class A(object)` resolves to the builtin): depth 0."""
_CYCLE_STEPS = 10_000
"""Steps the searches through one cycle of classes may take, all its classes together (each at
least as many as the cycle has classes), before each settles for the deepest path found."""


def depth_of_inheritance(graph: nx.DiGraph, name: str) -> int:
    """DIT (Chidamber-Kemerer 1994): the longest path from the class to a root of the hierarchy.

    An external base counts as one level (its own ancestors are not visible); `object` counts zero.
    Where bases form a cycle (`inheritance_depths` says when), the longest path that visits no
    class twice counts.
    """
    if name not in graph:
        return 0
    return inheritance_depths(graph.subgraph(nx.descendants(graph, name) | {name}))[name]


def inheritance_depths(graph: nx.DiGraph) -> dict[str, int]:
    """`depth_of_inheritance` of every node of a class graph.

    Python rejects a class that is its own ancestor, but a repository's graph can still hold a
    cycle: the index resolves names without following the order of statements or which branch
    of a `try` or `if` runs, so a base may resolve to a class other than the one Python binds;
    and code that fails on import is analysed too. The depth of a class is then the longest path
    from it that visits no class twice: a cycle adds at most its length minus one. Outside
    cycles the graph is a DAG, done in linear time, bases first; within a cycle a depth-first
    search over its paths finds the longest, bounded by `_CYCLE_STEPS` (past it, the deepest
    found counts).
    """
    condensed = nx.condensation(graph)
    depths: dict[str, int] = {}
    for component in reversed(list(nx.topological_sort(condensed))):
        members: set[str] = condensed.nodes[component]["members"]
        # the depth a class reaches by leaving its cycle (or its own depth when it has none)
        leave = {node: max((1 + depths[base] for base in _bases(graph, node)
                            if base not in members), default=0)
                 for node in members}
        if len(members) == 1:
            depths.update(leave)
        else:
            budget = max(_CYCLE_STEPS // len(members), len(members))
            for node in members:
                depths[node] = _longest_through(graph, node, members, leave, budget)
    return depths


def _bases(graph: nx.DiGraph, node: str) -> list[str]:
    return [base for base in graph.successors(node) if base not in _ROOTS and base != node]


def _longest_through(graph: nx.DiGraph, start: str, members: set[str], leave: dict[str, int],
                     budget: int) -> int:
    """The deepest `start` reaches by a path through the cycle `members` that visits no class
    twice, then leaves it (depth-first over such paths; exact unless `budget` steps run out)."""
    ceiling = len(members) - 1 + max(leave.values())
    best = leave[start]
    on_path = {start}
    stack = [(start, 0, iter([base for base in _bases(graph, start) if base in members]))]
    steps = 0
    while stack and best < ceiling and steps < budget:
        node, length, bases = stack[-1]
        base = next((base for base in bases if base not in on_path), None)
        if base is None:
            stack.pop()
            on_path.discard(node)
            continue
        steps += 1
        on_path.add(base)
        best = max(best, length + 1 + leave[base])
        stack.append((base, length + 1,
                      iter([item for item in _bases(graph, base) if item in members])))
    return best
