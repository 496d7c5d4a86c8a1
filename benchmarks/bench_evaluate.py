"""How fast `smellkit evaluate` scores a prediction, tests excluded, on a click 8.1.7 dataset.

Builds a small click dataset once (from its PyPI sdist; reused afterwards), then scores the oracle
and noop baselines with `--no-tests` (every static step: applying the patch to a fresh copy of
the smelly tree, loading the result, the signals) and prints the median time per prediction,
the median time to prepare one case (smelly tree, its analysis, the signals' per-case work),
and the wall time with one and with two scoring threads. The floor: copying the checkout (what
applying a patch must at least do) and `Project.load` of a result tree whose facts are cached
(what measuring must at least read); the peer: the same load without the fact cache.
The target is under 1 s per prediction.

    python benchmarks/bench_evaluate.py [--data DIR] [--per-cell 1] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from smellkit.bench import build
from smellkit.evaluate.scorer import SCORES, evaluate
from smellkit.evaluate.workspace import SIGNALS_MODULE, load_signals
from smellkit.project import Project

SPEC = Path(__file__).resolve().parents[1] / "examples" / "specs" / "click.toml"


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.0f} ms" if samples else "       -"


def _timed(function: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return samples


def _score(dataset: Path, out: Path, jobs: int) -> tuple[dict[str, list[float]], dict[str, float],
                                                         float]:
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    report = evaluate(dataset, (), out, baselines=("oracle", "noop"), tests=False, jobs=jobs)
    wall = time.perf_counter() - started
    per_model: dict[str, list[float]] = {}
    for line in (out / SCORES).read_text().splitlines():
        row = json.loads(line)
        per_model.setdefault(row["model"], []).append(row["seconds"])
    return per_model, report.timings, wall


def _floor(dataset: Path, work: Path, repeat: int) -> dict[str, list[float]]:
    """Copying the checkout, and loading it with and without the fact cache."""
    record = json.loads(next((dataset / "specs").glob("*.json")).read_text())
    cache = Path(record["cache-dir"]) / "sources"
    checkout = next(path for path in cache.iterdir() if path.is_dir())
    facts = work / "facts"
    Project.load(checkout / "src", cache_dir=facts, jobs=1)  # warm
    copies = iter(range(repeat))

    def copy() -> None:
        shutil.copytree(checkout, work / f"copy-{next(copies)}", symlinks=True)

    return {
        "copy the checkout": _timed(copy, repeat),
        "Project.load, facts cached": _timed(
            lambda: Project.load(work / "copy-0" / "src", cache_dir=facts, jobs=1), repeat),
        "Project.load, no fact cache": _timed(
            lambda: Project.load(work / "copy-0" / "src", use_cache=False, jobs=1), repeat),
    }


def _thousand_rows_reports() -> None:
    """summary.json/.csv/.md and report.html of a full run: 3 models x 8 smells x 3
    difficulties x 2 settings x 7 cases of synthetic rows."""
    from smellkit.evaluate.reports import write_reports
    from tests.evaluate.synthetic_scores import synthetic_scores

    with tempfile.TemporaryDirectory(prefix="bench-reports-") as scratch:
        write_reports(Path(scratch), synthetic_scores(cases=7))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path.home() / ".cache" / "smellkit-bench" / "evaluate")
    parser.add_argument("--per-cell", type=int, default=1,
                        help="click cases per smell and difficulty in the dataset")
    parser.add_argument("--repeat", type=int, default=9, help="samples of each floor step")
    arguments = parser.parse_args()
    dataset = arguments.data / f"click-per-cell-{arguments.per_cell}"
    started = time.perf_counter()
    built = build(SPEC, dataset, cache_dir=arguments.data / "cache", per_cell=arguments.per_cell,
                  spare=0, jobs=2, seed=0, harbor=False)
    print(f"dataset: {built.cases} click cases in {dataset} "
          f"({time.perf_counter() - started:.0f}s to build or reuse)")
    if load_signals() is None:
        print(f"NOTE: {SIGNALS_MODULE} is missing: the figures below leave out the signals "
              "(apply, tests off, result not measured)")
    with tempfile.TemporaryDirectory(prefix="bench-evaluate-") as scratch:
        work = Path(scratch)
        per_model, timings, one = _score(dataset, work / "scores-1", jobs=1)
        _, _, two = _score(dataset, work / "scores-2", jobs=2)
        floor = _floor(dataset, work, arguments.repeat)
    everything = [seconds for samples in per_model.values() for seconds in samples]
    print(f"\n{'step':42} {'median':>11}")
    print("-" * 54)
    for model, samples in per_model.items():
        print(f"{'score one ' + model + ' prediction (no tests)':42} {_median_ms(samples)}")
    print(f"{'score one prediction, all':42} {_median_ms(everything)}")
    print(f"{'prepare one case':42} {_median_ms([timings.get('prepare_case_median', 0.0)])}")
    print(f"{'load the original code (once per repo)':42} "
          f"{_median_ms([timings.get('original_code', 0.0)])}")
    for name, samples in floor.items():
        print(f"{'floor: ' + name if 'no fact' not in name else 'peer: ' + name:42} "
              f"{_median_ms(samples)}")
    reports = _timed(_thousand_rows_reports, 3)
    print(f"{'reports of 1008 score rows (summaries, html)':42} {_median_ms(reports)}")
    count = len(everything)
    print(f"\nwall time for {count} predictions: {one:.1f}s with 1 thread, {two:.1f}s with 2 "
          f"({one / max(two, 1e-9):.2f}x)")
    verdict = "meets" if statistics.median(everything) < 1.0 else "MISSES"
    print(f"target under 1 s per prediction: {verdict} it")


if __name__ == "__main__":
    main()
