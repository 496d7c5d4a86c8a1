"""The attribute-access graph on a small fixture repository (`tests/fixtures/attributes/shapes`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from smellkit.facts import Attr, Name
from smellkit.graphs.calls import types_of
from smellkit.project import Project

FIXTURE = Path(__file__).parent.parent / "fixtures" / "attributes" / "shapes"
BASE = "shapes.base"
REPORT = "shapes.report"


@pytest.fixture(scope="module")
def project() -> Project:
    return Project.load(FIXTURE, use_cache=False, jobs=1)


@pytest.fixture(scope="module")
def graph(project: Project) -> nx.DiGraph:
    return project.index.attribute_graph


def edge(graph: nx.DiGraph, scope: str, attribute: str) -> dict[str, Any]:
    assert graph.has_edge(scope, attribute), f"no edge {scope} -> {attribute}"
    return dict(graph.edges[scope, attribute])


def test_own_reads_and_writes_are_counted(graph: nx.DiGraph) -> None:
    assert edge(graph, f"{BASE}.Square.area", f"{BASE}.Square.side") == {
        "reads": 2, "writes": 0, "own": True, "method": False, "lines": [23]}
    assert edge(graph, f"{BASE}.Square.__init__", f"{BASE}.Square.side") == {
        "reads": 0, "writes": 1, "own": True, "method": False, "lines": [20]}


def test_attribute_nodes_name_their_owner(graph: nx.DiGraph) -> None:
    assert graph.nodes[f"{BASE}.Square.side"] == {
        "kind": "attribute", "owner": f"{BASE}.Square", "name": "side"}
    assert graph.nodes[f"{REPORT}.Report.square"]["owner"] == f"{REPORT}.Report"


def test_owner_is_the_first_class_in_the_mro_that_assigns_or_defines_it(
        graph: nx.DiGraph) -> None:
    # Shape assigns `name` in __init__, so its own methods see Shape.name
    assert edge(graph, f"{BASE}.Shape.describe", f"{BASE}.Shape.name")["reads"] == 1
    # Square assigns `name` itself (in rename), so from Square the owner is Square
    assert edge(graph, f"{BASE}.Square.rename", f"{BASE}.Square.name")["writes"] == 1
    # a class attribute: Square overrides `sides`, Shape declares it
    assert graph.has_edge(f"{REPORT}.total", f"{BASE}.Square.sides")
    assert graph.has_edge(f"{REPORT}.total", f"{BASE}.Shape.sides")


def test_foreign_accesses_take_the_receivers_type(graph: nx.DiGraph) -> None:
    read = edge(graph, f"{REPORT}.Report.line", f"{BASE}.Square.side")
    assert read["own"] is False and read["reads"] == 1 and read["writes"] == 0
    assert edge(graph, f"{REPORT}.Report.grow", f"{BASE}.Square.side")["writes"] == 1
    assert edge(graph, f"{REPORT}.build", f"{BASE}.Square.name") == {
        "reads": 0, "writes": 1, "own": False, "method": False, "lines": [25]}
    assert edge(graph, f"{REPORT}.total", f"{BASE}.Square.side")["reads"] == 1


def test_receivers_of_unknown_type_are_left_out(graph: nx.DiGraph) -> None:
    assert all(data["writes"] == 0 for _, _, data in graph.out_edges(f"{REPORT}.total",
                                                                      data=True))


def test_methods_are_told_from_data(graph: nx.DiGraph) -> None:
    assert edge(graph, f"{BASE}.Shape.describe", f"{BASE}.Shape.area")["method"] is True
    assert edge(graph, f"{REPORT}.Report.show", f"{BASE}.Shape.describe")["method"] is True
    assert edge(graph, f"{REPORT}.Report.show", f"{BASE}.Square.perimeter")["method"] is False
    assert edge(graph, f"{REPORT}.Report.show", f"{REPORT}.Report.square")["reads"] == 2


def test_self_of_the_enclosing_method_counts_as_own(graph: nx.DiGraph) -> None:
    assert edge(graph, f"{BASE}.Counter.make.bump", f"{BASE}.Counter.count") == {
        "reads": 0, "writes": 1, "own": True, "method": False, "lines": [39]}
    assert edge(graph, f"{BASE}.Counter.later.<lambda1>", f"{BASE}.Counter.count")["own"]


def test_dunder_attributes_are_left_out(graph: nx.DiGraph) -> None:
    assert not any(node.endswith(".__class__") for node in graph)


def test_types_of(project: Project) -> None:
    index = project.index
    assert types_of(index, f"{REPORT}.total", Name("square")) == {f"{BASE}.Square"}
    assert types_of(index, f"{REPORT}.Report.line", Attr(Name("self"), "square")) == {
        f"{BASE}.Square"}
    assert types_of(index, f"{REPORT}.build", Name("made")) == {f"{BASE}.Square"}
    assert types_of(index, f"{REPORT}.total", Name("other")) == frozenset()
