"""The call graph: every call site of the repository resolved by the points-to solver.

The solver (`smellkit.graphs.pointsto`) evaluates what each callee expression may point to; this
module turns its call targets into a networkx graph, counts how well sites resolved, sends what is
left to bounded astroid inference, and answers type queries through the solver it keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import networkx as nx

from smellkit._internal.collector import paused_gc
from smellkit._internal.forking import Background, Standby
from smellkit.facts import CallSite, Expr
from smellkit.graphs.pointsto import MAX_STEPS, OPAQUE, Solver

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

__all__ = ["OPAQUE", "CallGraph", "build_call_graph", "types_of"]

"""The solver's former name here."""


@dataclass(frozen=True)
class CallGraph:
    """The call graph and how well its call sites resolved.

    Counts are over explicit call sites (decorator applications are left out):

    - `resolved`: the callee is known: at least one edge (to a definition of the repository, to a
      class of it without `__init__`, or to an outside name such as `<builtin>.len` or
      `os.path.join`), or the call is `super()`.
    - `external`: no edge, but the callee is an attribute of an object from outside the repository
      (a method of a builtin type as in `"".join`, a method of what `numpy.zeros()` returned).
    - `unresolved`: nothing is known about the callee, even after astroid (typically `obj.m()` with
      `obj` a parameter of unknown type); `call_sites == resolved + external + unresolved`.
    - `inferred`: resolved sites that only astroid resolved.

    `truncated` says the propagation stopped at its step bound before the fixpoint (never seen on
    real code so far; the per-node value cap keeps runs short).
    """

    graph: nx.DiGraph
    call_sites: int
    resolved: int
    unresolved: int
    inferred: int
    external: int = 0
    truncated: bool = False
    solver: Solver | None = field(default=None, repr=False, compare=False)
    replay: Callable[[], Solver] | None = field(default=None, repr=False, compare=False)
    """For a graph reused from an earlier scan: builds the solver in the state it had then,
    on the first type query."""
    inference_modules: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """Modules of the repository whose source astroid read while resolving sites."""
    targets: dict[int, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    """The edges' source: call site number (in the solver's order) -> what it calls."""

    def types_of(self, scope: str, expr: Expr) -> frozenset[str]:
        """Classes of the repository the value of `expr`, evaluated in `scope`, may be an
        instance of; empty when unknown."""
        return self.types_of_many([(scope, expr)])[0]

    def types_of_many(self, queries: Sequence[tuple[str, Expr]]) -> list[frozenset[str]]:
        """`types_of` for many expressions at once (one propagation run for all)."""
        solver = self.solver
        if solver is None and self.replay is not None:
            solver = self.replay()
            object.__setattr__(self, "solver", solver)
            object.__setattr__(self, "replay", None)
        if solver is None:
            return [frozenset() for _ in queries]
        return [frozenset(value[2:] for value in values if value[0] == "i")
                for values in solver.values_of(queries)]


def types_of(index: Index, scope: str, expr: Expr) -> frozenset[str]:
    """Classes of the repository that `expr`, evaluated in `scope`, may be an instance of."""
    return index.calls.types_of(scope, expr)


def build_call_graph(index: Index, budget: int | None = None, *,
                     inference_seconds: float = 1.0,
                     alongside: Callable[[Solver], object] | None = None,
                     fork: bool = False, standby: Standby | None = None) -> CallGraph:
    """Resolve every call site of the repository; `CallGraph` says what the counts mean.

    `budget` caps the call sites sent to astroid (default: the index's `inference_budget`) and
    `inference_seconds` the time spent there (see `smellkit.graphs.inference`); `budget=0` turns
    inference off and makes the graph depend on nothing but the code.

    `alongside` is more work on the solved system (the attribute graph's type queries): with
    `fork`, it runs here while astroid infers in another process (`standby` when given, else a
    child forked now), else after the graph is built. Either way the graph is that of the
    solution before `alongside` ran, so it is the same.

    The graph's nodes are the repository's modules and definitions (node attribute `kind`) and the
    outside callees (`external=True`); an edge caller -> callee carries the sorted `lines` of its
    calls. Calling a class is an edge to the `__init__` its MRO finds, or to the class itself when
    the repository defines none.
    """
    from smellkit.graphs import inference

    if budget is None:
        budget = getattr(index, "inference_budget", 5000)
    with paused_gc():
        solver = Solver(index)
        solver.solve()
        solver.release_unknown_decorators()
        inferred, read = 0, frozenset[str]()
        targets, outside = solver.targets, solver.outside
        if budget > 0 and getattr(index, "root", None) is not None:
            job = inference.plan(index, solver, budget, inference_seconds)
            if alongside is not None and fork:
                targets = {call: set(found) for call, found in solver.targets.items()}
                outside = set(solver.outside)
                child = standby.submit(inference.answer, job) if standby is not None \
                    else Background.start(inference.answer, job)
                try:
                    alongside(solver)
                except BaseException:
                    child.cancel()
                    raise
                answers = child.result()
                child.join()
                alongside = None
            else:
                answers = inference.answer(job)
            found, read = answers
            inferred = inference.apply(index, found, targets, outside)
        kept: dict[int, tuple[str, ...]] = {}
        graph = graph_of(index, solver.sites, targets, kept)
    if alongside is not None:
        alongside(solver)
    explicit = [call for call, site in enumerate(solver.sites) if not site.implicit]
    resolved = sum(1 for call in explicit if call in targets)
    external = sum(1 for call in explicit if call in outside and call not in targets)
    return CallGraph(graph=graph, call_sites=len(explicit), resolved=resolved,
                     unresolved=len(explicit) - resolved - external, inferred=inferred,
                     external=external, truncated=solver.steps >= MAX_STEPS, solver=solver,
                     inference_modules=read, targets=kept)


def graph_of(index: Index, sites: Sequence[CallSite],
             resolved: Mapping[int, Iterable[str]],
             keep: dict[int, tuple[str, ...]] | None = None) -> nx.DiGraph:
    """The graph of call sites and their targets (by site number); `keep` receives the targets
    as they are now, to build the graph again later with other lines (graphs/stored.py)."""
    lines: dict[str, dict[str, set[int]]] = {}
    outside: dict[str, None] = {}
    definitions, modules = index.definitions, index.modules
    for call, targets in resolved.items():
        if keep is not None:
            targets = keep[call] = tuple(targets)
        site = sites[call]
        callees = lines.get(site.scope)
        if callees is None:
            callees = lines[site.scope] = {}
        for target in targets:
            found = callees.get(target)
            if found is None:
                callees[target] = {site.line}
                if target not in definitions and target not in modules:
                    outside[target] = None
            else:
                found.add(site.line)
    # filled in place as `add_nodes_from` / `add_edges_from` would, in the same order, without
    # their per-item checks (a third of the time on big repositories)
    graph = nx.DiGraph()
    node_attrs, succ, pred = graph._node, graph._succ, graph._pred
    for module in modules:
        node_attrs[module] = {"kind": "module", "external": False}
        succ[module] = {}
        pred[module] = {}
    for qualname, definition in definitions.items():
        attrs = node_attrs.get(qualname)
        if attrs is None:
            node_attrs[qualname] = {"kind": definition.kind, "external": False}
            succ[qualname] = {}
            pred[qualname] = {}
        else:
            attrs.update(kind=definition.kind, external=False)
    for callee in outside:
        if callee not in node_attrs:
            node_attrs[callee] = {"kind": "external", "external": True}
            succ[callee] = {}
            pred[callee] = {}
    for caller in sorted(lines):
        callees = lines[caller]
        if caller not in node_attrs:
            node_attrs[caller] = {}
            succ[caller] = {}
            pred[caller] = {}
        out = succ[caller]
        for callee in sorted(callees):
            data = {"lines": sorted(callees[callee])}
            out[callee] = data
            pred[callee][caller] = data
    return graph
