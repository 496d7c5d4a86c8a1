"""Callers in other modules of the helpers pasted into the function, given the same chain: how
a deep inlining spans files without moving anything. A helper of module A called from functions
of modules B, C and D, its body (and its own helpers') pasted over each of those calls, is the
smell over four files, each a real place: a function whose call now carries the chain, or the
helper's own module."""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from smellkit.config import is_test_path
from smellkit.errors import InjectionRefused
from smellkit.injectors.deep_inlining.imports import imports_for
from smellkit.injectors.deep_inlining.inline import Inliner, Rewritten
from smellkit.injectors.deep_inlining.judge import alone, judge, within_limit
from smellkit.injectors.deep_inlining.plans import Plan, depth_of, flattened

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext
    from smellkit.injectors.deep_inlining.sites import SiteFinder


@dataclass
class Partner:
    """Another caller of a pasted helper, with the helper's chain pasted over its call."""

    qualname: str
    path: str
    helper: str
    rewritten: Rewritten
    imports: list[str]
    flagged: bool
    """The detector's rule reports it too (a long function after the paste)."""


def partners(context: InjectionContext, finder: SiteFinder, inliner: Inliner, qualname: str,
             chosen: Sequence[Plan], taken: set[str], count: int, reported: set[str],
             rng: random.Random) -> list[Partner]:
    """Up to `count` functions, each of a file not in `taken` (and of different files), that
    call one of the helpers pasted into `qualname` at statements of their own, with that
    helper's body and the chain pasted below it in `qualname` pasted over every such call. The
    deepest chains first (the same chain in every file), then the callers the tests run most
    of; a caller the detector already reports, in a test file, or calling the helper under a
    branch (`SiteFinder.always_run`), is none."""
    graph = context.index.call_graph
    plans: dict[str, Plan] = {}
    for plan in flattened(chosen):
        plans.setdefault(plan.site.callee, plan)
    run = context.line_coverage or {}
    options: list[tuple[Plan, str, list[Plan]]] = []
    for callee, plan in plans.items():
        if callee not in graph:
            continue
        for caller in sorted(graph.predecessors(callee)):
            definition = context.index.definitions.get(caller)
            path = context.path_of(caller)
            if caller == qualname or caller in reported or definition is None or \
                    definition.kind not in ("function", "method") or path is None or \
                    path in taken or is_test_path(path) or caller in plans:
                continue
            sites = [site for site in finder.sites(caller) if site.callee == callee]
            if run.get(caller, 0.0) < 1.0 and not all(  # every line run, or these lines
                    site.line in finder.always_run(caller) for site in sites):
                continue
            # every call of the helper pasted, or none: pasted over one call and called at
            # the next reads as an edit left half done
            if sites and len(sites) == _calls(finder, caller, callee):
                options.append((plan, caller, [Plan(site, plan.inner) for site in sites]))
    rng.shuffle(options)
    # the deepest chain first, then a caller that calls the helper once (one paste)
    options.sort(key=lambda item: (-depth_of(item[2][0]), len(item[2]),
                                   -run.get(item[1], 1.0)))
    found: list[Partner] = []
    files = set(taken)
    for plan, caller, pastes in options:
        path = context.path_of(caller)
        if path is None or path in files or len(found) == count:
            continue
        try:
            rewritten = inliner.rewrite(caller, pastes)
            imports = imports_for(context, caller, rewritten.needs)
            within_limit(context, caller, inliner.function(context.module(path), caller),
                         rewritten.function)
        except InjectionRefused:
            continue
        verdict = judge(context, path, caller, alone(context, caller, rewritten.function))
        found.append(Partner(caller, path, plan.site.callee, rewritten, imports,
                             verdict.flagged))
        files.add(path)
    return found


def _calls(finder: SiteFinder, caller: str, callee: str) -> int:
    """How many calls of `callee`'s name the caller makes (as `f(...)` or `x.f(...)`)."""
    node = finder.node(caller)
    short = callee.rpartition(".")[2]
    return sum(1 for inner in ast.walk(node) if isinstance(inner, ast.Call) and (
        (isinstance(inner.func, ast.Name) and inner.func.id == short) or
        (isinstance(inner.func, ast.Attribute) and inner.func.attr == short))) \
        if node is not None else 0
