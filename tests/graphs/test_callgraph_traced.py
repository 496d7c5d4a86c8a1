"""The call-graph corpus checked against what its programs do: each case runs under a profiler
(`callgraph_trace.py`), and the calls between the case's own functions must be exactly the
expected graph's edges between them.

- every observed call must be an expected edge (the expectation misses nothing that happens);
- every expected edge must be observed, unless the case lists it in `unobserved.json`
  (`{"why": "...", "edges": {"caller": ["callee"]}}`): code the run does not reach, or a branch a
  flow-insensitive analysis must keep. A listed edge must be expected and must not happen, so the
  list cannot go stale.

Edges to builtins and the standard library are not checked here: the profiler cannot name them as
the corpus does, and the analysis tests check them.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.graphs.test_callgraph_cases import CASES, case_id

TRACER = Path(__file__).parent / "callgraph_trace.py"
Edges = set[tuple[str, str]]


def edges_of(graph: dict[str, list[str]]) -> Edges:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


@functools.cache
def observed(case: Path) -> Edges:
    run = subprocess.run([sys.executable, str(TRACER), str(case)], capture_output=True,
                         text=True, timeout=60, cwd=case)
    assert run.returncode == 0, f"{case_id(case)} does not run: {run.stderr[-2000:]}"
    return edges_of(json.loads(run.stdout.strip().splitlines()[-1]))


def expected(case: Path) -> tuple[Edges, Edges]:
    """(expected edges between the case's functions, those declared unobserved)."""
    graph = json.loads((case / "callgraph.json").read_text(encoding="utf-8"))
    own = {(caller, callee) for caller, callee in edges_of(graph) if callee in graph}
    declared = case / "unobserved.json"
    if not declared.exists():
        return own, set()
    listed = json.loads(declared.read_text(encoding="utf-8"))
    assert listed.get("why"), f"{declared}: say why the edges are not observed (key 'why')"
    return own, edges_of(listed["edges"])


@pytest.mark.parametrize("case", [pytest.param(case, id=case_id(case)) for case in CASES])
def test_expected_edges_are_what_the_program_does(case: Path) -> None:
    own, unobserved = expected(case)
    seen = observed(case)
    assert not seen - own, f"calls that happen but are not expected: {sorted(seen - own)}"
    stale = unobserved - own
    assert not stale, f"unobserved.json lists edges not expected: {sorted(stale)}"
    stale = unobserved & seen
    assert not stale, f"unobserved.json lists calls that happen: {sorted(stale)}"
    never = own - seen - unobserved
    assert not never, f"expected edges that never happen (list them in unobserved.json " \
                      f"if the run cannot reach them): {sorted(never)}"


def test_the_tracer_sees_implicit_calls(tmp_path: Path) -> None:
    """The profiler names lambdas on one line, class-body calls and calls made from C code."""
    (tmp_path / "main.py").write_text(
        "def f():\n    return 1\n\n\n"
        "class K:\n    x = f()\n\n    def __len__(self):\n        return 0\n\n\n"
        "pair = [lambda: f(), lambda: 2]\npair[0]()\nlen(K())\n"
        "list(map(lambda v: f(), [1]))\n", encoding="utf-8")
    assert observed(tmp_path) == {
        ("main", "main.f"), ("main", "main.<lambda1>"), ("main.<lambda1>", "main.f"),
        ("main", "main.K.__len__"), ("main", "main.<lambda3>"), ("main.<lambda3>", "main.f")}
