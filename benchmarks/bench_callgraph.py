"""smellkit's call graph on PyCG's own micro-benchmark, scored in PyCG's format, per category.

The benchmark is the `micro-benchmark/snippets/<category>/<case>/` folder of the `pycg==0.0.8`
source distribution on PyPI (downloaded once into `~/.cache/smellkit-test-data`, as the tests'
real packages are). Each case is loaded as a project and exported with `smellkit.graphs.pycg`; its
`callgraph.json` is the expectation. As in PyCG's paper, a case is *sound* when no expected edge is
missing and *complete* when no edge is extra; edge precision and recall are over all edges.

Cases whose expected graph names methods of builtin types PyCG's way (`<**PyDict**>.items`,
`<**PyStr**>.join`) are listed apart: smellkit does not name values of builtin types, so those are
not comparable. PyCG's own figures, from its paper, are quoted beside the totals.

    python benchmarks/bench_callgraph.py [--baseline REF] [--verbose]

`--baseline REF` scores the code of a git revision too (exported to a temporary folder, run in a
child process) and prints both, so a change to the analysis shows as before / after.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYCG = ("pycg", "0.0.8")
PYCG_REPORTED = "PyCG reports 103/112 sound and 111/112 complete on its version of the suite"
BUILTIN_TYPE_NAMING = "<**"
Edges = set[tuple[str, str]]


def snippets() -> Path:
    """The micro-benchmark's snippets folder (PyPI download, cached)."""
    sys.path.insert(0, str(ROOT))
    from tests.support.pypi import sdist

    return sdist(*PYCG) / "micro-benchmark" / "snippets"


def edges(graph: dict[str, list[str]]) -> Edges:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def unprefixed(name: str, package: str) -> str:
    """A name without the package smellkit sees in a case folder holding `__init__.py`."""
    return name[len(package) + 1:] if name.startswith(package + ".") else name


def score(folder: Path) -> dict[str, dict[str, list[list[str]]]]:
    """Per case `category/case`: the expected edges missing and the extra ones found."""
    from smellkit.graphs.pycg import to_pycg
    from smellkit.project import Project

    results: dict[str, dict[str, list[list[str]]]] = {}
    for expected_file in sorted(folder.glob("*/*/callgraph.json")):
        case = expected_file.parent
        expected = edges(json.loads(expected_file.read_text(encoding="utf-8")))
        project = Project.load(case, use_cache=False, include_tests=True, jobs=1)
        found = edges(to_pycg(project.index))
        if (case / "__init__.py").exists():  # PyCG is told the case folder is the import root
            found = {(unprefixed(caller, case.name), unprefixed(callee, case.name))
                     for caller, callee in found}
        results[f"{case.parent.name}/{case.name}"] = {
            "missing": sorted(map(list, expected - found)),
            "extra": sorted(map(list, found - expected)),
            "expected": [[str(len(expected))]],
            "found": [[str(len(found))]],
            "pycg_naming": [[str(int(any(BUILTIN_TYPE_NAMING in callee
                                             for _, callee in expected)))]]}
    return results


def score_revision(revision: str, folder: Path) -> dict[str, dict[str, list[list[str]]]]:
    """`score` with the code of a git revision of this repository."""
    with tempfile.TemporaryDirectory(prefix="smellkit-baseline-") as scratch:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        run = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--json", str(folder)],
                             capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": scratch, "PATH": "/usr/bin:/bin"})
    loaded: dict[str, dict[str, list[list[str]]]] = json.loads(run.stdout)
    return loaded


def tally(results: dict[str, dict[str, list[list[str]]]], cases: Iterable[str]) -> \
        tuple[int, int, int]:
    """(cases, sound, complete)."""
    chosen = [results[case] for case in cases]
    return (len(chosen), sum(not result["missing"] for result in chosen),
            sum(not result["extra"] for result in chosen))


def precision_recall(results: dict[str, dict[str, list[list[str]]]],
                     cases: Iterable[str]) -> tuple[float, float]:
    expected = found = extra = missing = 0
    for case in cases:
        result = results[case]
        expected += int(result["expected"][0][0])
        found += int(result["found"][0][0])
        extra += len(result["extra"])
        missing += len(result["missing"])
    return ((found - extra) / found if found else 1.0,
            (expected - missing) / expected if expected else 1.0)


def report(after: dict[str, dict[str, list[list[str]]]],
           before: dict[str, dict[str, list[list[str]]]] | None, verbose: bool) -> None:
    comparable = [case for case in after if after[case]["pycg_naming"][0][0] == "0"]
    apart = [case for case in after if case not in comparable]
    categories = sorted({case.split("/")[0] for case in comparable})
    header = f"{'category':<14} {'cases':>5} {'sound':>6} {'complete':>9}"
    if before is not None:
        header += f"   {'before: sound':>13} {'complete':>9}"
    print(header)
    rows = [(category, [case for case in comparable if case.startswith(category + "/")])
            for category in categories] + [("total", comparable)]
    for label, cases in rows:
        count, sound, complete = tally(after, cases)
        line = f"{label:<14} {count:>5} {sound:>6} {complete:>9}"
        if before is not None:
            _, sound_before, complete_before = tally(before, cases)
            line += f"   {sound_before:>13} {complete_before:>9}"
        print(line)
    precision, recall = precision_recall(after, comparable)
    print(f"edge precision {precision:.3f}, recall {recall:.3f}", end="")
    if before is not None:
        precision, recall = precision_recall(before, comparable)
        print(f" (before: {precision:.3f}, {recall:.3f})", end="")
    print(f"\n{PYCG_REPORTED}.")
    print(f"\nUsing PyCG's naming of builtin types ({BUILTIN_TYPE_NAMING}PyDict**>...), "
          "not comparable:")
    for case in apart:
        result = after[case]
        print(f"  {case}: sound {not result['missing']}, complete {not result['extra']}")
    if verbose:
        print("\nCases not both sound and complete:")
        for case in comparable:
            result = after[case]
            if result["missing"] or result["extra"]:
                print(f"  {case}: missing {result['missing']}; extra {result['extra']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REF",
                        help="also score the code of this git revision (before / after)")
    parser.add_argument("--verbose", action="store_true", help="list each imperfect case")
    parser.add_argument("--json", metavar="SNIPPETS", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.json is not None:  # the child process of --baseline
        print(json.dumps(score(options.json)))
        return
    folder = snippets()
    after = score(folder)
    before = score_revision(options.baseline, folder) if options.baseline else None
    print(f"PyCG {PYCG[1]} micro-benchmark: {len(after)} cases in {folder}")
    report(after, before, options.verbose)


if __name__ == "__main__":
    main()
