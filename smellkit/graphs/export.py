"""Graphs out to files: JSON (node-link), adjacency, GraphML and DOT."""

from __future__ import annotations

import io
import json
from typing import Any

import networkx as nx


def _scalar(value: Any) -> Any:
    """GraphML holds scalars only: lists become comma-joined text."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(str(item) for item in value)
    return value


def to_node_link_json(graph: nx.DiGraph) -> str:
    """Nodes and edges with every attribute, sorted so equal graphs print equal text."""
    nodes = [{"id": node, **dict(sorted(graph.nodes[node].items()))} for node in sorted(graph)]
    edges = [{"source": a, "target": b, **dict(sorted(data.items()))}
             for a, b, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1]))]
    return json.dumps({"directed": True, "nodes": nodes, "edges": edges}, indent=2,
                      default=list)


def to_adjacency(graph: nx.DiGraph) -> dict[str, list[str]]:
    """`{"node": ["successor", ...]}` for every node, sorted."""
    return {node: sorted(graph.successors(node)) for node in sorted(graph)}


def to_graphml(graph: nx.DiGraph) -> str:
    clean = nx.DiGraph()
    for node, data in graph.nodes(data=True):
        clean.add_node(node, **{key: _scalar(value) for key, value in data.items()
                                if value is not None})
    for a, b, data in graph.edges(data=True):
        clean.add_edge(a, b, **{key: _scalar(value) for key, value in data.items()
                                if value is not None})
    buffer = io.BytesIO()
    nx.write_graphml(clean, buffer)
    return buffer.getvalue().decode("utf-8")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: nx.DiGraph, name: str = "smellkit") -> str:
    lines = [f"digraph {_quote(name)} {{", "  node [shape=box, fontsize=10];"]
    for node in sorted(graph):
        style = " [style=dashed]" if graph.nodes[node].get("external") else ""
        lines.append(f"  {_quote(node)}{style};")
    for a, b in sorted(graph.edges()):
        lines.append(f"  {_quote(a)} -> {_quote(b)};")
    lines.append("}")
    return "\n".join(lines) + "\n"
