"""Fan-in, fan-out and instability on the `layers` fixture repository, worked out by hand.

layers/core.py     compute; helper -> compute x2; Engine.run -> helper
layers/service.py  imports core; serve -> compute; start -> Engine(), .run(); both -> serve,
                   start, len
layers/api.py      imports service, core; module level -> compute; endpoint -> serve, compute;
                   nested -> inner -> start
"""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import networkx as nx
import pytest

from smellkit.facts import extract
from smellkit.graphs.index import Index
from smellkit.metrics.coupling import (
    FunctionMetrics,
    ModuleMetrics,
    function_metrics,
    module_metrics,
)
from smellkit.project import Project

FIXTURES = Path(__file__).parent.parent / "fixtures" / "metrics"


@pytest.fixture(scope="module")
def layers() -> Index:
    return Project.load(FIXTURES / "layers", use_cache=False, jobs=1).index


def test_function_fan_in_and_fan_out(layers: Index) -> None:
    metrics = function_metrics(layers)
    assert metrics == {
        # callers: helper, service.serve, api.endpoint and api's module-level code = 4
        "layers.core.compute": FunctionMetrics(fan_in=4, fan_out=0),
        # two calls of compute are one callee
        "layers.core.helper": FunctionMetrics(fan_in=1, fan_out=1),
        "layers.core.Engine.run": FunctionMetrics(fan_in=1, fan_out=1),
        "layers.service.serve": FunctionMetrics(fan_in=2, fan_out=1),  # both, api.endpoint
        # callees: the class Engine (no __init__) and Engine.run; callers: both, and
        # api.nested (its nested function inner makes the call)
        "layers.service.start": FunctionMetrics(fan_in=2, fan_out=2),
        "layers.service.both": FunctionMetrics(fan_in=0, fan_out=3),  # serve, start, len
        "layers.api.endpoint": FunctionMetrics(fan_in=0, fan_out=2),
        # nested's code includes inner: calling inner is not fan-out, inner's start call is
        "layers.api.nested": FunctionMetrics(fan_in=0, fan_out=1),
        # measured on its own too: called by nested, calls start
        "layers.api.nested.inner": FunctionMetrics(fan_in=1, fan_out=1),
    }


def test_module_coupling_and_instability(layers: Index) -> None:
    metrics = module_metrics(layers)
    assert metrics == {
        # nothing imports or calls into the package module itself: I = 0 / 0, undefined
        "layers": ModuleMetrics(ca=0, ce=0, instability=None, fan_in=0, fan_out=0),
        # imported by service and api; imports nothing: I = 0 / (2 + 0) = 0.0
        "layers.core": ModuleMetrics(ca=2, ce=0, instability=0.0, fan_in=2, fan_out=0),
        # imported by api, imports core: I = 1 / (1 + 1) = 0.5
        "layers.service": ModuleMetrics(ca=1, ce=1, instability=0.5, fan_in=1, fan_out=1),
        # imports service and core, imported by none: I = 2 / (0 + 2) = 1.0
        "layers.api": ModuleMetrics(ca=0, ce=2, instability=1.0, fan_in=0, fan_out=2),
    }


def test_recursion_and_own_helpers_are_not_coupling() -> None:
    graph = nx.DiGraph([("m.f", "m.f"), ("m.f", "m.f.<lambda1>"), ("m.f.<lambda1>", "m.g"),
                        ("m.g", "m.f")])
    index = _index_of("def f():\n    f()\n    (lambda: g())()\n\ndef g():\n    f()\n")
    metrics = function_metrics(index, call_graph=graph)
    # f: itself and its lambda are its own code; the lambda's call of g is f's -> fan-out 1;
    # callers of f: f itself (recursion, not counted), g -> fan-in 1
    assert metrics["m.f"] == FunctionMetrics(fan_in=1, fan_out=1)
    assert metrics["m.g"] == FunctionMetrics(fan_in=1, fan_out=1)


def test_results_are_plain_values(layers: Index) -> None:
    values = (function_metrics(layers), module_metrics(layers))
    assert pickle.loads(pickle.dumps(values)) == values


def _index_of(source: str) -> Index:
    return Index([extract(ast.parse(source), source, "m.py", "m", False)])
