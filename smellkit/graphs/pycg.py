"""The call graph in PyCG's JSON form: `{"pkg.mod.func": ["pkg.mod.other", "<builtin>.len"]}`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

_CALLERS = frozenset({"function", "method", "nested_function", "lambda"})


def to_pycg(index: Index, graph: nx.DiGraph | None = None) -> dict[str, list[str]]:
    """Every module and function, method or lambda of the repository, with its sorted callees.

    Classes are not keys and not callees: calling a class is an edge to the `__init__` the MRO
    finds, or none when the repository defines none. Outside callees keep their dotted names.
    """
    if graph is None:
        graph = index.call_graph
    keys = [*index.modules, *(name for name, definition in index.definitions.items()
                              if definition.kind in _CALLERS)]
    result: dict[str, list[str]] = {}
    for key in sorted(keys):
        callees = graph.successors(key) if key in graph else ()
        result[key] = sorted(callee for callee in callees
                             if graph.nodes[callee].get("kind") != "class")
    return result


def dumps(index: Index, graph: nx.DiGraph | None = None) -> str:
    """`to_pycg` as indented JSON text."""
    return json.dumps(to_pycg(index, graph), indent=2, sort_keys=True)
