"""The call-graph corpus: small programs with their expected call graph in PyCG's JSON form.

Each case under `callgraph_cases/<category>/<case>/` is loaded as a project and exported with
`to_pycg`; the test asserts exact equality. A case is *complete* when the analysis adds no edge the
expectation lacks, and *sound* when it misses none; the session summary prints both per category.
Conventions are in `callgraph_cases/README.md`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit.graphs.pycg import to_pycg
from smellkit.project import Project

CASES_DIR = Path(__file__).parent / "callgraph_cases"

XFAIL: dict[str, str] = {}
"""`category/case` -> why the analysis cannot reasonably produce the expected graph."""

CASES = sorted(path.parent for path in CASES_DIR.glob("*/*/callgraph.json"))
PyCG = dict[str, list[str]]


def case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


@functools.cache
def analyse(case: Path) -> tuple[PyCG, PyCG]:
    """(what smellkit finds, what the case expects)."""
    project = Project.load(case, use_cache=False, include_tests=True, jobs=1)
    expected = json.loads((case / "callgraph.json").read_text(encoding="utf-8"))
    return to_pycg(project.index), expected


def spurious(found: PyCG, expected: PyCG) -> set[tuple[str, str]]:
    return {(caller, callee) for caller, callees in found.items() for callee in callees
            if callee not in expected.get(caller, ())} | \
        {(caller, "<key>") for caller in found if caller not in expected}


def missing(found: PyCG, expected: PyCG) -> set[tuple[str, str]]:
    return spurious(expected, found)


def test_the_corpus_is_there() -> None:
    assert len(CASES) >= 100
    assert len({case.parent.name for case in CASES}) >= 10
    assert set(XFAIL) <= {case_id(case) for case in CASES}, "an xfail names no case"


@pytest.mark.parametrize(
    "case", [pytest.param(case, id=case_id(case), marks=pytest.mark.xfail(
        reason=XFAIL[case_id(case)], strict=True)) if case_id(case) in XFAIL
        else pytest.param(case, id=case_id(case)) for case in CASES])
def test_case(case: Path) -> None:
    found, expected = analyse(case)
    extra, lost = spurious(found, expected), missing(found, expected)
    assert not extra and not lost, f"spurious: {sorted(extra)}; missing: {sorted(lost)}"


def test_summary_per_category(terminal_report: Callable[[str, list[str]], None]) -> None:
    rows: dict[str, list[int]] = {}
    for case in CASES:
        found, expected = analyse(case)
        row = rows.setdefault(case.parent.name, [0, 0, 0])
        row[0] += 1
        row[1] += not spurious(found, expected)
        row[2] += not missing(found, expected)
    total = [sum(column) for column in zip(*rows.values())]
    lines = [f"{'category':<18} {'cases':>5} {'complete':>8} {'sound':>5}"]
    lines += [f"{name:<18} {cases:>5} {complete:>8} {sound:>5}"
              for name, (cases, complete, sound) in sorted(rows.items())]
    lines.append(f"{'total':<18} {total[0]:>5} {total[1]:>8} {total[2]:>5}")
    terminal_report("call-graph corpus: complete = no spurious edge, sound = no missing edge",
                    lines)
    assert total[1] >= total[0] - len(XFAIL) and total[2] >= total[0] - len(XFAIL)
