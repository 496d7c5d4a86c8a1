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

Which mutants change behaviour cannot be decided by running them, so the mutants neither check
caught are read one by one and classified in `data/equivalence_mutants.toml` (keyed by the
mutated function's qualified name, the kind and the line: stable across builds, unlike instance
ids): behaviour-preserving (why: unreachable from the public API, a label nobody reads, a
default equal to what every caller passes...) or behaviour-changing (a concrete call that shows
the difference, and why the check did not make it). The study prints two ratios for "the
equivalence check catches at least 90% of the mutants that are not behaviour-preserving":
equivalence over the mutants some check caught (a lower bound on the behaviour-changing ones),
and equivalence over those plus the ones classified behaviour-changing; a mutant neither caught
that is not classified is listed loudly and counted as behaviour-changing in a third, pessimistic
ratio. Time per case is the equivalence check's own time (`equivalence_detail.seconds`), median
and maximum.

    python benchmarks/bench_equivalence.py [--data DIR | --dataset DIR] [--seed 0] [--jobs 2]
        [--cases N] [--skip N] [--work DIR] [--keep tests/evaluate/fixtures/equivalence]
        [--only-missed EARLIER_WORK_DIR]

`--dataset DIR` scores a click dataset already built (by another commit's code, for instance:
with that study's `--work` folder, its rows are reused and only the table is recomputed).
`--only-missed EARLIER` scores again only the mutants neither check caught in the study whose
`--work` folder is EARLIER, with this code: the oracle's rows are copied from EARLIER (its run
is not repeated, so the mutants are made exactly as they were there) and the table counts those
mutants only; the new folder can be given as EARLIER to a later run. It is for iterating on the
misses in minutes; the full study is the measure.
`--keep DIR` writes the mutants that every selected test misses and equivalence catches as
`<instance>-<kind>.json` predictions (the regression tests read them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))

import libcst as cst
from equivalence_mutants import KINDS, Mutant, functions, mutate, mutate_at

from smellkit.bench import build
from smellkit.config import load_repo_spec, load_spec_record
from smellkit.evaluate.equivalence import EquivalenceOptions
from smellkit.evaluate.scorer import SCORES, evaluate
from smellkit.injectors.patches import apply_patch, make_patch
from smellkit.project import Project
from smellkit.sandbox.checkout import fetch

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "examples" / "specs" / "click.toml"
CLASSIFIED = Path(__file__).resolve().parent / "data" / "equivalence_mutants.toml"
BEHAVIOURS = ("preserving", "changing")
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


@dataclass(frozen=True)
class Made:
    """A mutant of one case, with the module of the function it changes."""

    module: str
    mutant: Mutant
    patch: str

    @property
    def key(self) -> tuple[str, str, int]:
        """Its key in the classification: the function's qualified name, the kind, the line."""
        return f"{self.module}.{self.mutant.qualname}", self.mutant.kind, self.mutant.line


@dataclass(frozen=True)
class Classified:
    """A mutant neither check caught, read and classified (`data/equivalence_mutants.toml`)."""

    function: str
    kind: str
    line: int
    site: str
    behaviour: str
    why: str
    example: str


def _mutants(case: dict[str, Any], compared: list[str], checkout: Path, work: Path,
             seed: int) -> dict[str, Made]:
    """Per kind, a mutant of the ground-truth result and its patch against the smelly code."""
    source = case["source_path"].strip("/")
    smelly = work / "smelly"
    shutil.rmtree(smelly, ignore_errors=True)
    shutil.copytree(checkout, smelly, symlinks=True)
    apply_patch(smelly / source, case["smelly_patch"])
    original = Project.load(checkout / source, jobs=1)
    index = original.index
    ground_truth_files = {path for path in _patched(case["ground_truth_patch"])}
    found: dict[str, Made] = {}
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
            found[kind] = Made(module, mutant, make_patch(before, after))
            break
    return found


def classified(path: Path = CLASSIFIED) -> dict[tuple[str, str, int], Classified]:
    """The classified mutants by key; a malformed entry stops the study with its place named."""
    try:
        entries = tomllib.loads(path.read_text())["mutant"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        raise SystemExit(f"{path}: cannot read the classified mutants ([[mutant]] tables): "
                         f"{error}") from error
    found: dict[tuple[str, str, int], Classified] = {}
    for number, entry in enumerate(entries, 1):
        where = f"{path}: mutant #{number} ({entry.get('function', '?')})"
        missing = [name for name in ("function", "kind", "line", "site", "behaviour", "why")
                   if name not in entry]
        if missing:
            raise SystemExit(f"{where}: missing {', '.join(missing)}")
        if entry["behaviour"] not in BEHAVIOURS:
            raise SystemExit(f"{where}: behaviour must be one of {', '.join(BEHAVIOURS)}, not "
                             f"{entry['behaviour']!r}")
        if entry["kind"] not in KINDS:
            raise SystemExit(f"{where}: unknown kind {entry['kind']!r} (one of "
                             f"{', '.join(KINDS)})")
        if entry["behaviour"] == "changing" and not entry.get("example"):
            raise SystemExit(f"{where}: a behaviour-changing mutant needs an `example`: a call "
                             "whose outcome differs, and why the check did not make it")
        item = Classified(entry["function"], entry["kind"], int(entry["line"]), entry["site"],
                          entry["behaviour"], entry["why"], entry.get("example", ""))
        key = (item.function, item.kind, item.line)
        if key in found:
            raise SystemExit(f"{where}: classified twice ({item.kind} at line {item.line})")
        found[key] = item
    return found


def check_classified(labels: dict[tuple[str, str, int], Classified], source: Path,
                     scratch: Path) -> list[str]:
    """What is wrong with the classification against click's source folder `source`: a site
    that is gone or reads otherwise, or a behaviour-changing mutant whose example behaves the
    same on both versions (each example runs as a script, once per version, and must differ in
    its exit status, output or errors). Prints each example's two outcomes."""
    problems = []
    for (function, kind, line), label in labels.items():
        where = f"{function}:{line} {kind}"
        module, path = _module_path(function, source)
        if path is None:
            problems.append(f"{where}: no module of {source} defines it")
            continue
        tree = cst.parse_module(path.read_text())
        mutant = mutate_at(tree, functions(tree), function[len(module) + 1:], kind, line,
                           label.site.strip())
        if mutant is None or label.site.strip() not in mutant.description:
            problems.append(f"{where}: the code has no such site now (classified as "
                            f"{label.site!r}; classify the mutant again)")
            continue
        if label.behaviour != "changing":
            continue
        mutated = scratch / "mutated"
        shutil.rmtree(mutated, ignore_errors=True)
        shutil.copytree(source, mutated)
        (mutated / path.relative_to(source)).write_text(mutant.source)
        before, after = (_run_example(label.example, root, scratch) for root in (source, mutated))
        print(f"{where}: {mutant.description}\n  original: {before[:300]!r}\n  mutant:   "
              f"{after[:300]!r}")
        if before == after:
            problems.append(f"{where}: classified behaviour-changing, but its example behaves "
                            "the same on both versions")
    return problems


def _module_path(function: str, source: Path) -> tuple[str, Path | None]:
    parts = function.split(".")
    for end in range(len(parts) - 1, 0, -1):
        path = source.joinpath(*parts[:end]).with_suffix(".py")
        if path.is_file():
            return ".".join(parts[:end]), path
    return "", None


def _run_example(example: str, root: Path, scratch: Path) -> str:
    """The exit status, output and errors of `example` run against the code under `root`."""
    work = scratch / "run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        done = subprocess.run([sys.executable, "-c", example], cwd=work, capture_output=True,
                              text=True, timeout=60, env={"PYTHONPATH": str(root),
                                                          "PYTHONHASHSEED": "0",
                                                          "PATH": "/usr/bin:/bin"})
    except subprocess.TimeoutExpired:
        return "timed out"
    return f"exit {done.returncode}\n{done.stdout}\n{done.stderr}".replace(str(root), "<src>")


def _patched(patch: str) -> list[str]:
    from smellkit.injectors.patches import patched_paths

    return list(patched_paths(patch))


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" /
                        "smellkit-test-data")
    parser.add_argument("--dataset", type=Path, default=None,
                        help="a click dataset already built (default: the scoring tests' "
                             "build for this code, made under --data)")
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
    parser.add_argument("--only-missed", type=Path, default=None, metavar="EARLIER",
                        help="score again only the mutants neither check caught in the study "
                             "whose --work folder is EARLIER (its oracle rows reused)")
    parser.add_argument("--check-classified", action="store_true",
                        help="only check the classified mutants against click's source: each "
                             "site still there, each behaviour-changing example differing")
    args = parser.parse_args()
    labels = classified()
    if args.check_classified:
        source = fetch(load_repo_spec(SPEC), args.data / "sandbox") / "src"
        with tempfile.TemporaryDirectory() as scratch:
            problems = check_classified(labels, source, Path(scratch))
        print("\n".join(["", *problems]) if problems else
              f"\n{len(labels)} classified mutants checked")
        sys.exit(1 if problems else 0)
    dataset = args.dataset or _dataset(args.data)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-equivalence-"))
    work.mkdir(parents=True, exist_ok=True)
    # one cache for the oracle's and the mutants' runs: what no prediction changes (recorded
    # and drawn inputs, the smelly version's outcomes) is computed once per case
    options = EquivalenceOptions(case_budget=args.budget, cache=work / "equivalence-cache")
    started = time.perf_counter()
    missed: set[tuple[str, str]] | None = None
    if args.only_missed is not None:
        missed = _missed(args.only_missed)
        # kept with this run too, so that its own misses can be rescored the same way
        (work / "oracle").mkdir(exist_ok=True)
        shutil.copyfile(args.only_missed / "oracle" / SCORES, work / "oracle" / SCORES)
        oracle = {row["instance_id"]: row for row in _rows(work / "oracle" / SCORES)}
        print(f"only the {len(missed)} mutants neither check caught in {args.only_missed}; "
              "the oracle's rows are read from there")
    else:
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
    made: dict[tuple[str, str], Made] = {}
    chosen = list(cases.items())[args.skip:]
    for instance_id, case in chosen[:args.cases]:
        if missed is not None and not any(case_id == instance_id for case_id, _ in missed):
            continue
        row = oracle[instance_id]
        # the functions the ground truth wrote first (where an agent's slip would be), then
        # the entry points the oracle's check compared
        compared = [*row["touched"], *row["equivalence_detail"].get("compared", ())]
        for kind, one in _mutants(case, compared, checkout, work, args.seed).items():
            if missed is not None and (instance_id, kind) not in missed:
                continue
            made[(instance_id, kind)] = one
            predictions.append({"instance_id": instance_id, "model_name_or_path": f"mutant-{kind}",
                                "model_patch": one.patch})
    (work / "mutants.jsonl").write_text("".join(json.dumps(item) + "\n" for item in predictions))
    evaluate(dataset, [work / "mutants.jsonl"], work / "mutants", jobs=args.jobs,
             equivalence=options)
    asked = {(item["instance_id"], item["model_name_or_path"]) for item in predictions}
    rows = [row for row in _rows(work / "mutants" / SCORES)
            if (row["instance_id"], row["model"]) in asked]
    print(f"\n{len(rows)} mutants of {len(set(row['instance_id'] for row in rows))} cases "
          f"(seed {args.seed})")
    table(rows, made, labels)
    print()
    for name, group in (("the oracle (first of its case: fills the case's cache)",
                         list(oracle.values()) if missed is None else []), ("a mutant", rows)):
        seconds = [row["equivalence_detail"]["seconds"] for row in group
                   if row.get("equivalence_detail")]
        if seconds:
            print(f"equivalence time per prediction, {name}: median "
                  f"{statistics.median(seconds):.1f} s, max {max(seconds):.1f} s over "
                  f"{len(seconds)} (budget {options.case_budget:.0f} s)")
    print(f"wall {time.perf_counter() - started:.0f} s with {args.jobs} jobs")
    if args.keep is not None:
        _keep(args.keep, rows, predictions, made)


COLUMNS = ("mutants", "tests", "equiv", "either", "neither", "same", "differ", "unread")


def table(rows: list[dict[str, Any]], made: dict[tuple[str, str], Made],
          labels: dict[tuple[str, str, int], Classified]) -> dict[str, int]:
    """Per kind: the mutants, those the tests, equivalence and either caught, and of the others
    how many are classified behaviour-preserving (same), behaviour-changing (differ), or not at
    all (unread); then the shares of the behaviour-changing ones equivalence caught. Returns the
    totals by column."""
    print(f"{'kind':20} {'mutants':>7} {'tests':>5} {'equiv':>5} {'either':>6} {'neither':>7}"
          f" {'same':>5} {'differ':>6} {'unread':>6} {'eq/either':>9} {'eq/changing':>11}")
    totals = [0] * 8
    missed: list[tuple[dict[str, Any], Made, Classified | None]] = []
    for kind in (*KINDS, "all"):
        if kind == "all":
            counts = totals
        else:
            group = [row for row in rows if row["model"] == f"mutant-{kind}"]
            caught = [(_tests_caught(row), row["equivalence"] == "not_equivalent")
                      for row in group]
            neither = [(row, made[(row["instance_id"], kind)]) for row, (one, two)
                       in zip(group, caught) if not (one or two)]
            read = [(row, one, labels.get(one.key)) for row, one in neither]
            missed += read
            behaviours = [label.behaviour if label else None for _, _, label in read]
            counts = [len(group), sum(one for one, _ in caught), sum(two for _, two in caught),
                      sum(one or two for one, two in caught), len(neither),
                      behaviours.count("preserving"), behaviours.count("changing"),
                      behaviours.count(None)]
            totals = [total + count for total, count in zip(totals, counts)]
        changing = counts[3] + counts[6]
        print(f"{kind:20} {counts[0]:7} {counts[1]:5} {counts[2]:5} {counts[3]:6} {counts[4]:7}"
              f" {counts[5]:5} {counts[6]:6} {counts[7]:6} {_share(counts[2], counts[3]):>9}"
              f" {_share(counts[2], changing):>11}")
    equivalence, either, differ, unread = totals[2], totals[3], totals[6], totals[7]
    print(f"\nequivalence catches {equivalence} of the {either} mutants some check caught "
          f"({_share(equivalence, either)}), and {equivalence} of the {either + differ} "
          f"behaviour-changing ones (caught, or classified so: "
          f"{_share(equivalence, either + differ)}); the selected tests catch {totals[1]} "
          f"({_share(totals[1], either + differ)})")
    for row, one, label in missed:
        function, kind, line = one.key
        outcome = f"{row['equivalence']}: {row['equivalence_detail']['reason'][:100]}"
        if label is None:
            continue
        if label.site.strip() not in one.mutant.description:
            print(f"  CLASSIFIED SITE CHANGED: {function}:{line} {kind}: the classification "
                  f"reads {label.site!r}, the mutant {one.mutant.description!r}")
        print(f"  neither, behaviour-{label.behaviour}: {row['instance_id']} {function}:{line} "
              f"{one.mutant.description} ({outcome})")
    if unread:
        print(f"\n!! {unread} mutants neither check caught are NOT CLASSIFIED: read each and add "
              f"it to {CLASSIFIED} (counted as behaviour-changing, equivalence catches "
              f"{_share(equivalence, either + differ + unread)}):")
        for row, one, label in missed:
            if label is None:
                function, kind, line = one.key
                print(f"  UNCLASSIFIED: {row['instance_id']} function = {function!r}, kind = "
                      f"{kind!r}, line = {line}: {one.mutant.description} "
                      f"({row['equivalence']}: {row['equivalence_detail']['reason'][:100]})")
    return dict(zip(COLUMNS, totals))


def _missed(earlier: Path) -> set[tuple[str, str]]:
    """The (case, kind) of the mutants neither check caught in the study whose `--work` folder
    is `earlier`."""
    scores = earlier / "mutants" / SCORES
    if not scores.is_file() or not (earlier / "oracle" / SCORES).is_file():
        raise SystemExit(f"{earlier}: not the --work folder of a finished study (no "
                         f"mutants/{SCORES} or oracle/{SCORES}); give the folder an earlier "
                         "run of this script was given as --work")
    return {(row["instance_id"], row["model"].removeprefix("mutant-")) for row in _rows(scores)
            if row["model"].startswith("mutant-") and not _tests_caught(row)
            and row["equivalence"] != "not_equivalent"}


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def _tests_caught(row: dict[str, Any]) -> bool:
    return bool(row["tests_total"]) and (row["tests_passed"] or 0) < row["tests_total"]


def _keep(folder: Path, rows: list[dict[str, Any]], predictions: list[dict[str, Any]],
          made: dict[tuple[str, str], Made]) -> None:
    """The mutants every selected test misses and equivalence catches, as prediction files."""
    folder.mkdir(parents=True, exist_ok=True)
    patches = {(item["instance_id"], item["model_name_or_path"]): item for item in predictions}
    for row in rows:
        if row["equivalence"] != "not_equivalent" or _tests_caught(row):
            continue
        kind = row["model"].removeprefix("mutant-")
        mutant = made[(row["instance_id"], kind)].mutant
        record = {**patches[(row["instance_id"], row["model"])],
                  "mutant": {"kind": kind, "function": mutant.qualname,
                             "description": mutant.description},
                  "counterexample": row["equivalence_detail"]["counterexample"]}
        target = folder / f"{row['instance_id']}-{kind}.json"
        target.write_text(json.dumps(record, indent=2) + "\n")
        print(f"kept {target}")


if __name__ == "__main__":
    main()
