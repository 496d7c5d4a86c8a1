"""Precision of the detectors on the labelled corpus, and recall on the functional fixtures.

Each library of `labelled_corpus.LIBRARIES` is downloaded once (PyPI sdist, cached in the test data
cache) and scanned with default options; its findings (of the smells it is judged for:
`labelled_corpus.JUDGED_SMELLS`) are joined to the labels of `benchmarks/labels/` by stable key.
Per smell and severity band (info / warning and above / all) the table shows the findings, how
many are labelled and unlabelled, the verdicts, and two precisions: true / (true + false) with
debatable left out, and the strict one that counts debatable as false.
Both are weighted by the sampling (a labelled finding stands for population / judged findings of
its library, smell and severity stratum), with a 90% stratified bootstrap interval beside the
first (a few labels per stratum: read the interval before the point); `raw` is the unweighted
share of the labelled findings.
The issue's targets: precision >= 0.8 per smell at warning and above, >= 0.6 over all findings.

Drift shows in three numbers: labels whose finding is gone (stale; also when another finding now
has its key at another line), findings in a stratum that was
labelled whole but that have no label (new), and strata whose size changed since sampling.

The fixture recall comes from the same run: per smell, the functional fixtures that expect
findings (positives: how many of their expected findings are reported) and those that expect none
(red herrings: how many stay quiet), against the fixtures' committed `expected.json`.

    python benchmarks/bench_precision.py [--library NAME ...] [--no-fixtures] [--json FILE]
    python benchmarks/bench_precision.py --draft NAME==VERSION   # sample a new library to label
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.labelled_corpus import (
    JUDGED_SMELLS,
    LIBRARIES,
    SAMPLING_FILE,
    SAMPLING_RULE,
    SEED,
    Label,
    Sampling,
    draft_rows,
    draw_sample,
    judged,
    keys_of,
    label_file,
    read_labels,
    read_sampling,
    scan_library,
    stratum_name,
    write_jsonl,
)
from smellkit.models import Finding

TARGET_WARNING = 0.8
TARGET_ALL = 0.6
BANDS = ("info", "warning+", "all")


def band_of(severity: str) -> str:
    return "info" if severity == "info" else "warning+"


@dataclass
class Tally:
    """Counts of one smell and band: raw, and weighted by the sampling."""

    findings: int = 0
    labelled: int = 0
    raw: Counter[str] = field(default_factory=Counter)
    weighted: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    covered: int = 0  # findings in strata that have at least one matching label
    strata: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    """Per stratum: its findings now, and the verdicts of its labelled ones."""

    def precision(self, strict: bool = False, weighted: bool = True) -> float | None:
        counts: Mapping[str, float] = self.weighted if weighted else self.raw
        true, false = counts.get("true", 0), counts.get("false", 0)
        judged = true + false + (counts.get("debatable", 0) if strict else 0)
        return true / judged if judged else None

    def interval(self, reps: int = 1000, level: float = 0.9) -> tuple[float, float] | None:
        """A stratified bootstrap interval of the weighted precision (debatable left out): each
        stratum's verdicts drawn again with replacement, `reps` times, with a fixed seed."""
        rng = random.Random(SEED)
        estimates: list[float] = []
        for _ in range(reps):
            true = false = 0.0
            for population, verdicts in self.strata.values():
                weight = population / len(verdicts)
                drawn = rng.choices(verdicts, k=len(verdicts))
                true += weight * drawn.count("true")
                false += weight * drawn.count("false")
            if true + false:
                estimates.append(true / (true + false))
        if not estimates:
            return None
        estimates.sort()
        tail = (1 - level) / 2 * (len(estimates) - 1)
        return estimates[round(tail)], estimates[round(len(estimates) - 1 - tail)]


@dataclass
class LibraryJoin:
    """One library's findings joined to its labels."""

    library: str
    findings: int
    matched: list[tuple[Label, Finding]]
    stale: list[Label]
    new: list[str]
    resized: dict[str, tuple[int, int]]
    population: dict[str, int]


def join_library(library: str, version: str, sampling: Sampling) -> LibraryJoin:
    """Scan the library and match its findings to its labels by stable key."""
    findings = [finding for finding in scan_library(library, version)
                if judged(library, finding.smell)]
    by_key = dict(zip(keys_of(findings), findings))
    labels = read_labels(label_file(library, version))
    # the corpus is fixed, so a label's finding keeps its line; another line under its key is
    # another finding that took over its `#n` number: the label is stale, not moved
    matched = [(label, by_key[label.key]) for label in labels if label.key in by_key
               and by_key[label.key].location.start_line == label.start_line]
    matched_keys = {label.key for label, _ in matched}
    stale = [label for label in labels if label.key not in matched_keys]
    population: Counter[str] = Counter(
        stratum_name(library, finding.smell, finding.severity) for finding in findings)
    labelled_keys = matched_keys
    whole = {name for name, stratum in sampling.strata.items()
             if name.startswith(f"{library}|") and stratum.whole}
    new = [key for key, finding in by_key.items() if key not in labelled_keys
           and stratum_name(library, finding.smell, finding.severity) in whole]
    resized = {name: (stratum.size, population.get(name, 0))
               for name, stratum in sampling.strata.items()
               if name.startswith(f"{library}|") and stratum.size != population.get(name, 0)}
    return LibraryJoin(library, len(findings), matched, stale, new, resized, dict(population))


def tally(joins: list[LibraryJoin]) -> dict[tuple[str, str], Tally]:
    """Per (smell, band), with the weights of each stratum's labelled findings."""
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for join in joins:
        judged_in: Counter[str] = Counter(
            stratum_name(join.library, finding.smell, finding.severity)
            for _, finding in join.matched)
        for name, size in join.population.items():
            _, smell, severity = name.split("|")
            for band in (band_of(severity), "all"):
                tallies[smell, band].findings += size
                if judged_in[name]:
                    tallies[smell, band].covered += size
        for label, finding in join.matched:
            name = stratum_name(join.library, finding.smell, finding.severity)
            weight = join.population[name] / judged_in[name]
            for band in (band_of(finding.severity), "all"):
                entry = tallies[finding.smell, band]
                entry.labelled += 1
                entry.raw[label.label] += 1
                entry.weighted[label.label] += weight
                entry.strata.setdefault(name, (join.population[name], []))[1].append(label.label)
    return tallies


def _number(value: float | None) -> str:
    return "   -" if value is None else f"{value:4.2f}"


def _target(value: float | None, floor: float, findings: int) -> str:
    if findings == 0:
        return "no findings"
    if value is None:
        return "unknown"
    return "met" if value >= floor else "NOT MET"


def _row(smell: str, band: str, entry: Tally, cover: str, target: str) -> str:
    interval = entry.interval()
    spread = "-" if interval is None else f"{interval[0]:.2f}-{interval[1]:.2f}"
    precisions = (entry.precision(), entry.precision(strict=True),
                  entry.precision(weighted=False))
    return (f"{smell:22} {band:9} {entry.findings:5} {entry.labelled:4} "
            f"{entry.raw['true']:4} {entry.raw['false']:5} {entry.raw['debatable']:4} "
            f"{entry.findings - entry.labelled:5} {_number(precisions[0]):>5} {spread:>9} "
            + " ".join(f"{_number(value):>{width}}" for value, width in zip(precisions[1:], (6, 5)))
            + f" {cover:>6}  {target}")


def _figures(entry: Tally) -> dict[str, object]:
    return {"findings": entry.findings, "labelled": entry.labelled,
            "unlabelled": entry.findings - entry.labelled, "true": entry.raw["true"],
            "false": entry.raw["false"], "debatable": entry.raw["debatable"],
            "precision": entry.precision(), "precision_strict": entry.precision(strict=True),
            "precision_raw": entry.precision(weighted=False),
            "precision_interval_90": entry.interval()}


def print_precision(tallies: dict[tuple[str, str], Tally]) -> dict[str, object]:
    smells = sorted({smell for smell, _ in tallies})
    print("Precision on the labelled corpus (weighted by the sampling; raw = unweighted)")
    header = (f"{'smell':22} {'band':9} {'find':>5} {'lab':>4} {'true':>4} {'false':>5} "
              f"{'deb':>4} {'unlab':>5} {'prec':>5} {'90% int':>9} {'strict':>6} {'raw':>5} "
              f"{'cover':>6}  target")
    print(header)
    print("-" * len(header))
    report: dict[str, object] = {}
    totals = Tally()
    for smell in smells:
        rows = {}
        for band in BANDS:
            entry = tallies.get((smell, band), Tally())
            floor = TARGET_WARNING if band == "warning+" else TARGET_ALL
            target = "" if band == "info" else \
                f">= {floor}: {_target(entry.precision(), floor, entry.findings)}"
            cover = _number(entry.covered / entry.findings if entry.findings else None)
            print(_row(smell, band, entry, cover, target))
            rows[band] = {**_figures(entry), "target": target}
        report[smell] = rows
        whole = tallies.get((smell, "all"), Tally())
        totals.findings += whole.findings
        totals.labelled += whole.labelled
        totals.raw.update(whole.raw)
        for verdict, weight in whole.weighted.items():
            totals.weighted[verdict] += weight
        totals.strata.update(whole.strata)
    print("-" * len(header))
    target = f">= {TARGET_ALL}: {_target(totals.precision(), TARGET_ALL, totals.findings)}"
    print(_row("every smell", "all", totals, "", target))
    report["every smell"] = {**_figures(totals), "target": target}
    return report


def print_drift(joins: list[LibraryJoin]) -> dict[str, object]:
    print("\nDrift since labelling (stale: label without its finding; new: unlabelled finding "
          "in a stratum labelled whole; resized: strata whose size changed)")
    report: dict[str, object] = {}
    for join in joins:
        labels = len(join.matched) + len(join.stale)
        print(f"  {join.library:16} findings {join.findings:4}  labels {labels:3}  "
              f"matched {len(join.matched):3}  stale {len(join.stale):2}  "
              f"new {len(join.new):2}  resized strata {len(join.resized):2}")
        for label in join.stale:
            print(f"      stale: {label.key}")
        for key in join.new:
            print(f"      new:   {key}")
        for name, (before, now) in sorted(join.resized.items()):
            print(f"      resized: {name} {before} -> {now}")
        report[join.library] = {"findings": join.findings, "labels": labels,
                                "matched": len(join.matched), "stale": len(join.stale),
                                "new": len(join.new), "resized": len(join.resized)}
    return report


def fixture_recall() -> dict[str, dict[str, int]]:
    """Per smell: positives' expected findings reported, and red herrings left quiet."""
    from smellkit.detectors.registry import detectors
    from smellkit.detectors.runner import run_detectors
    from tests.detectors.functional import fixture_cases, fixture_folder, load, summary

    def identity(item: dict[str, Any]) -> str:
        """A finding of a fixture: where it is and, for smells with several kinds, which."""
        location, evidence = item["location"], item.get("evidence", {})
        return json.dumps([location["path"], location["qualname"], evidence.get("kind")])

    results: dict[str, dict[str, int]] = {}
    for smell in sorted(detectors()):
        counts = Counter[str]()
        for case in fixture_cases(smell):
            folder = fixture_folder(smell) / case
            expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
            reported = [summary(finding) for finding in run_detectors(load(folder), [smell])]
            if expected:
                counts["positives"] += 1
                wanted = {identity(item) for item in expected}
                found = wanted & {identity(item) for item in reported}
                counts["expected findings"] += len(wanted)
                counts["expected found"] += len(found)
                counts["positives found"] += found == wanted
            else:
                counts["red herrings"] += 1
                counts["red herrings quiet"] += not reported
        results[smell] = dict(counts)
    return results


def print_recall(results: dict[str, dict[str, int]]) -> None:
    print("\nRecall on the functional fixtures (tests/fixtures/detectors, against expected.json)")
    header = (f"{'smell':22} {'positives found':>16} {'expected findings':>18} "
              f"{'herrings quiet':>15}")
    print(header)
    print("-" * len(header))
    for smell, counts in results.items():
        positives = f"{counts.get('positives found', 0)}/{counts.get('positives', 0)}"
        expected = f"{counts.get('expected found', 0)}/{counts.get('expected findings', 0)}"
        herrings = f"{counts.get('red herrings quiet', 0)}/{counts.get('red herrings', 0)}"
        print(f"{smell:22} {positives:>16} {expected:>18} {herrings:>15}")


def draft(spec: str) -> None:
    """Sample a new library's findings into a label file to fill in, and record its strata."""
    library, _, version = spec.partition("==")
    if not version:
        sys.exit(f"--draft wants NAME==VERSION, got {spec!r}")
    target = label_file(library, version)
    if target.exists():
        sys.exit(f"{target} exists already: labels are never overwritten")
    chosen, strata = draw_sample(library, scan_library(library, version))
    write_jsonl(target, draft_rows(library, version, chosen))
    sampling = read_sampling() if SAMPLING_FILE.exists() else Sampling(
        seed=SEED, rule=SAMPLING_RULE, strata={})
    merged = Sampling(seed=sampling.seed, rule=sampling.rule, strata={**sampling.strata, **strata})
    SAMPLING_FILE.write_text(merged.model_dump_json(indent=2, exclude_defaults=True) + "\n",
                             encoding="utf-8")
    print(f"{len(chosen)} findings to judge written to {target}: set each row's label "
          f"(true / false / debatable) and reason, then add the library to LIBRARIES")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", action="append", default=[],
                        help="Only this labelled library (repeatable; default: all).")
    parser.add_argument("--no-fixtures", action="store_true", help="Skip the fixture recall.")
    parser.add_argument("--json", type=Path, default=None, help="Also write the figures here.")
    parser.add_argument("--draft", metavar="NAME==VERSION", default=None,
                        help="Sample a new library's findings into a label file to fill in.")
    options = parser.parse_args()
    if options.draft:
        draft(options.draft)
        return
    known = dict(LIBRARIES)
    unknown = [name for name in options.library if name not in known]
    if unknown:
        sys.exit(f"not a labelled library: {', '.join(unknown)} (known: {', '.join(known)})")
    chosen = [(name, version) for name, version in LIBRARIES
              if not options.library or name in options.library]
    sampling = read_sampling()
    print(f"Labelled corpus: {', '.join(f'{n}=={v}' for n, v in chosen)}")
    partial = sorted({name for name, _ in chosen} & set(JUDGED_SMELLS))
    for smells in sorted({JUDGED_SMELLS[name] for name in partial}, key=sorted):
        names = [name for name in partial if JUDGED_SMELLS[name] == smells]
        print(f"Judged for {', '.join(sorted(smells))} only: {', '.join(names)}")
    print(f"Sampling: {sampling.rule} (seed {sampling.seed})\n")
    joins = [join_library(name, version, sampling) for name, version in chosen]
    report: dict[str, object] = {"precision": print_precision(tally(joins)),
                                 "drift": print_drift(joins)}
    if not options.no_fixtures:
        recall = fixture_recall()
        print_recall(recall)
        report["fixture_recall"] = recall
    if options.json:
        options.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
