"""Coupling of functions and modules: fan-in and fan-out over the call graph, Martin's instability.

Counting conventions:

- The code of a function is its body plus the lambdas and functions nested in it (see `_code`);
  nested functions are also measured on their own.
- A caller is counted as the outermost function or method whose code makes the call, or as the
  module for module-level code (class bodies run at module level); several call sites from one
  caller count once, and so do several nested functions of one caller.
- Modules are the repository's; imports and calls of outside packages are not counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from smellkit._internal.collector import collector_paused
from smellkit.metrics._code import code_owners

if TYPE_CHECKING:
    import networkx as nx

    from smellkit.graphs.index import Index

_MEASURED_KINDS = frozenset({"function", "method", "nested_function"})


class FunctionMetrics(NamedTuple):
    """Call-graph coupling of one function, method or nested function (Henry-Kafura 1981 counts)."""

    fan_in: int
    """Distinct callers (functions, methods, modules) outside the function's own code."""
    fan_out: int
    """Distinct callees of its code, in the repository or outside it (`<builtin>.len` counts),
    minus the function itself and the functions nested in it."""


class ModuleMetrics(NamedTuple):
    """Coupling of one module (Martin 1994, "OO Design Quality Metrics", applied to modules)."""

    ca: int
    """Afferent coupling: the repository's modules that import this one (any import: at module
    level, inside a function, or under `if TYPE_CHECKING`)."""
    ce: int
    """Efferent coupling: the repository's modules this one imports."""
    instability: float | None
    """I = Ce / (Ca + Ce): 0 for a module others depend on and that depends on nothing, 1 for
    the reverse; None for a module with no import either way."""
    fan_in: int
    """Other modules whose code calls a function, method or class of this module."""
    fan_out: int
    """Other modules of the repository whose functions, methods or classes this module's code
    calls."""


@collector_paused
def function_metrics(index: Index, *,
                     call_graph: nx.DiGraph | None = None) -> dict[str, FunctionMetrics]:
    """`FunctionMetrics` of every function, method and nested function (not lambdas), by name."""
    calls = index.call_graph if call_graph is None else call_graph
    owners = code_owners(index)
    result: dict[str, FunctionMetrics] = {}
    for qualname, definition in index.definitions.items():
        if definition.kind not in _MEASURED_KINDS:
            continue
        scopes = owners.scopes(qualname)
        callees: set[str] = set()
        for scope in scopes:
            if scope in calls:
                callees.update(calls.successors(scope))
        callees.difference_update(scopes)
        callers: set[str] = set()
        if qualname in calls:
            callers = {owners.outermost(caller) for caller in calls.predecessors(qualname)
                       if not owners.within(caller, qualname)}
        result[qualname] = FunctionMetrics(fan_in=len(callers), fan_out=len(callees))
    return result


@collector_paused
def module_metrics(index: Index, *, call_graph: nx.DiGraph | None = None,
                   import_graph: nx.DiGraph | None = None) -> dict[str, ModuleMetrics]:
    """`ModuleMetrics` of every module of the repository, by dotted name."""
    calls = index.call_graph if call_graph is None else call_graph
    imports = index.import_graph if import_graph is None else import_graph
    called: dict[str, set[str]] = {}
    calling: dict[str, set[str]] = {}
    definitions = index.definitions
    modules = index.modules
    module_of: dict[str, str] = {}
    for caller, callee in calls.edges():
        if callee not in definitions and callee not in modules:
            continue  # outside the repository
        source = module_of.get(caller)
        if source is None:
            source = module_of[caller] = index.scope_module(caller)
        target = module_of.get(callee)
        if target is None:
            target = module_of[callee] = index.scope_module(callee)
        if source != target:
            called.setdefault(source, set()).add(target)
            calling.setdefault(target, set()).add(source)
    result: dict[str, ModuleMetrics] = {}
    for module in modules:
        ce = imports.out_degree(module) if module in imports else 0
        ca = imports.in_degree(module) if module in imports else 0
        result[module] = ModuleMetrics(
            ca=ca, ce=ce, instability=ce / (ca + ce) if ca + ce else None,
            fan_in=len(calling.get(module, ())), fan_out=len(called.get(module, ())))
    return result
