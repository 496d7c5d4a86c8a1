"""The equivalence check against seeded mutants of the ground truth, on the click dataset.

For every click case (the dataset the scoring tests build, `tests/evaluate/conftest.py`), the oracle
(the ground-truth patch) is scored with `--equivalence` first: it must never be `not_equivalent`,
and should be `equivalent` on at least 80% of the cases. Then, for each mutant kind of
`equivalence_mutants.KINDS`, one mutant of the ground-truth result: the kind applied to the first
function it fits among those the ground truth touched, then those the oracle's check compared
(nearest to the change first), the site drawn with `--seed`. Every mutant is scored as a prediction
(the selected tests and the equivalence check), and the table gives, per kind, how many mutants the
selected tests catch (some test fails), equivalence catches (`not_equivalent`), either catches, and
neither.

Which mutants change behaviour cannot be decided; the study's denominator for "equivalence
catches at least 90% of the mutants that are not behaviour-preserving" is the mutants some check
caught (a lower bound on the behaviour-changing ones), and the mutants neither caught are
printed with their site so they can be read. Time per case is the equivalence check's own time
(`equivalence_detail.seconds`), median and maximum.

    python benchmarks/bench_equivalence.py [--data DIR] [--seed 0] [--jobs 2] [--cases N]
        [--skip N] [--work DIR] [--keep tests/evaluate/fixtures/equivalence]

`--keep DIR` writes the mutants that every selected test misses and equivalence catches as
`<instance>-<kind>.json` predictions (the regression tests read them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import libcst as cst
from equivalence_mutants import KINDS, Mutant, functions, mutate

from smellkit.bench import build
from smellkit.config import load_spec_record
from smellkit.evaluate.equivalence import EquivalenceOptions
from smellkit.evaluate.scorer import SCORES, evaluate
from smellkit.injectors.patches import apply_patch, make_patch
from smellkit.project import Project
from smellkit.sandbox.checkout import fetch

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "examples" / "specs" / "click.toml"
OPTIONS = {"per_cell": 2, "spare": 1, "jobs": 2, "seed": 0}  # tests/evaluate/conftest.py


def _dataset(data: Path) -> Path:
    """The click dataset of the scoring tests (built once under the test-data cache, keyed by
    smellkit's code)."""
    from tests.support.builds import cached_build

    with cached_build("evaluate", "click-build", [SPEC], data) as dataset:
        build(SPEC, dataset, cache_dir=data / "sandbox", **OPTIONS)  # type: ignore[arg-type]
    return dataset


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _checkout(dataset: Path) -> Path:
    """The pristine click checkout the build used (its recorded spec and cache)."""
    spec, cache = load_spec_record(next((dataset / "specs").glob("*.json")))
    assert cache is not None
    return fetch(spec, cache)


def _mutants(case: dict[str, Any], compared: list[str], checkout: Path, work: Path,
             seed: int) -> dict[str, tuple[Mutant, str]]:
    """Per kind, a mutant of the ground-truth result and its patch against the smelly code."""
    source = case["source_path"].strip("/")
    smelly = work / "smelly"
    shutil.rmtree(smelly, ignore_errors=True)
    shutil.copytree(checkout, smelly, symlinks=True)
    apply_patch(smelly / source, case["smelly_patch"])
    original = Project.load(checkout / source, jobs=1)
    index = original.index
    ground_truth_files = {path for path in _patched(case["ground_truth_patch"])}
    found: dict[str, tuple[Mutant, str]] = {}
    parsed: dict[str, tuple[cst.Module, dict[str, cst.FunctionDef]]] = {}
    for kind in KINDS:
        for name in compared:
            module = index.module_of.get(name)
            if module is None or module not in index.modules:
                continue
            path = index.modules[module].path
            if path not in parsed:
                tree = cst.parse_module((checkout / source / path).read_text())
                parsed[path] = (tree, functions(tree))
            mutant = mutate(*parsed[path], name[len(module) + 1:], kind, seed)
            if mutant is None:
                continue
            files = ground_truth_files | {path}
            before = {f"{source}/{item}": _read(smelly / source / item) for item in files}
            after = {f"{source}/{item}": _read(checkout / source / item) for item in files}
            after[f"{source}/{path}"] = mutant.source
            found[kind] = (mutant, make_patch(before, after))
            break
    return found


def _patched(patch: str) -> list[str]:
    from smellkit.injectors.patches import patched_paths

    return list(patched_paths(patch))


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" /
                        "smellkit-test-data")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=float, default=EquivalenceOptions().case_budget)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--cases", type=int, default=None,
                        help="mutate only the first N cases (a rerun with the same --work "
                             "reuses every row already scored)")
    parser.add_argument("--skip", type=int, default=0,
                        help="leave the first N cases out (with --cases: a slice of the "
                             "dataset, to split the study between runs)")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    options = EquivalenceOptions(case_budget=args.budget)
    dataset = _dataset(args.data)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-equivalence-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    evaluate(dataset, (), work / "oracle", baselines=("oracle",), jobs=args.jobs,
             equivalence=options)
    oracle = {row["instance_id"]: row for row in _rows(work / "oracle" / SCORES)}
    verdicts = [row["equivalence"] for row in oracle.values()]
    print(f"oracle: {len(oracle)} cases, " + ", ".join(
        f"{verdicts.count(name)} {name}" for name in ("equivalent", "not_equivalent",
                                                     "inconclusive")))
    for row in oracle.values():
        if row["equivalence"] != "equivalent":
            print(f"  {row['instance_id']}: {row['equivalence']}: "
                  f"{row['equivalence_detail']['reason']}")
    cases = {row["instance_id"]: row for row in _rows(dataset / "dataset.jsonl")}
    checkout = _checkout(dataset)
    predictions = []
    made: dict[tuple[str, str], Mutant] = {}
    chosen = list(cases.items())[args.skip:]
    for instance_id, case in chosen[:args.cases]:
        row = oracle[instance_id]
        # the functions the ground truth wrote first (where an agent's slip would be), then
        # the entry points the oracle's check compared
        compared = [*row["touched"], *row["equivalence_detail"].get("compared", ())]
        for kind, (mutant, patch) in _mutants(case, compared, checkout, work, args.seed).items():
            made[(instance_id, kind)] = mutant
            predictions.append({"instance_id": instance_id, "model_name_or_path": f"mutant-{kind}",
                                "model_patch": patch})
    (work / "mutants.jsonl").write_text("".join(json.dumps(item) + "\n" for item in predictions))
    evaluate(dataset, [work / "mutants.jsonl"], work / "mutants", jobs=args.jobs,
             equivalence=options)
    asked = {(item["instance_id"], item["model_name_or_path"]) for item in predictions}
    rows = [row for row in _rows(work / "mutants" / SCORES)
            if (row["instance_id"], row["model"]) in asked]
    print(f"\n{len(rows)} mutants of {len(set(row['instance_id'] for row in rows))} cases "
          f"(seed {args.seed})")
    print(f"{'kind':20} {'mutants':>8} {'tests':>6} {'equiv':>6} {'either':>7} {'neither':>8} "
          f"{'eq/either':>10}")
    totals = [0, 0, 0, 0]
    missed = []
    for kind in KINDS:
        group = [row for row in rows if row["model"] == f"mutant-{kind}"]
        tests = [_tests_caught(row) for row in group]
        equiv = [row["equivalence"] == "not_equivalent" for row in group]
        either = [one or two for one, two in zip(tests, equiv)]
        counts = [len(group), sum(tests), sum(equiv), sum(either)]
        totals = [total + count for total, count in zip(totals, counts)]
        share = f"{counts[2] / counts[3]:.0%}" if counts[3] else "-"
        print(f"{kind:20} {counts[0]:8} {counts[1]:6} {counts[2]:6} {counts[3]:7} "
              f"{counts[0] - counts[3]:8} {share:>10}")
        missed += [row for row, caught in zip(group, either) if not caught]
    share = f"{totals[2] / totals[3]:.0%}" if totals[3] else "-"
    print(f"{'all':20} {totals[0]:8} {totals[1]:6} {totals[2]:6} {totals[3]:7} "
          f"{totals[0] - totals[3]:8} {share:>10}")
    for row in missed:
        mutant = made[(row["instance_id"], row["model"].removeprefix("mutant-"))]
        print(f"  neither: {row['instance_id']} {mutant.qualname}: {mutant.description} "
              f"({row['equivalence']}: {row['equivalence_detail']['reason'][:120]})")
    seconds = [row["equivalence_detail"]["seconds"] for row in [*oracle.values(), *rows]
               if row.get("equivalence_detail")]
    print(f"\nequivalence time per prediction: median {statistics.median(seconds):.1f} s, "
          f"max {max(seconds):.1f} s over {len(seconds)} (budget {options.case_budget:.0f} s); "
          f"wall {time.perf_counter() - started:.0f} s with {args.jobs} jobs")
    if args.keep is not None:
        _keep(args.keep, rows, predictions, made)


def _tests_caught(row: dict[str, Any]) -> bool:
    return bool(row["tests_total"]) and (row["tests_passed"] or 0) < row["tests_total"]


def _keep(folder: Path, rows: list[dict[str, Any]], predictions: list[dict[str, Any]],
          made: dict[tuple[str, str], Mutant]) -> None:
    """The mutants every selected test misses and equivalence catches, as prediction files."""
    folder.mkdir(parents=True, exist_ok=True)
    patches = {(item["instance_id"], item["model_name_or_path"]): item for item in predictions}
    for row in rows:
        if row["equivalence"] != "not_equivalent" or _tests_caught(row):
            continue
        kind = row["model"].removeprefix("mutant-")
        mutant = made[(row["instance_id"], kind)]
        record = {**patches[(row["instance_id"], row["model"])],
                  "mutant": {"kind": kind, "function": mutant.qualname,
                             "description": mutant.description},
                  "counterexample": row["equivalence_detail"]["counterexample"]}
        target = folder / f"{row['instance_id']}-{kind}.json"
        target.write_text(json.dumps(record, indent=2) + "\n")
        print(f"kept {target}")


if __name__ == "__main__":
    main()
