"""How much time the judge itself adds per verdict, the model's time excluded, and how fast
`smellkit crosscheck` holds verdicts of another judge to the scores.

On a built dataset (default: the click dataset the slow tests build under
~/.cache/smellkit-test-data), per case and baseline (oracle, noop): the smell analysis from the
case record, the guard over the patch, the prompt, and the cross-check of a verdict against a
Score row. Then the cross-check of 10,000 generic verdicts read from a CSV file. Prints the
median per prediction and the throughput. The target: the judge's own work is negligible next to
a model call (under 50 ms per verdict).

    python benchmarks/bench_judge.py [--data DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from smellkit.evaluate.inputs.dataset import read_dataset
from smellkit.evaluate.score import Score
from smellkit.judge.analysis import case_analysis, involved_files, smelly_code
from smellkit.judge.crosscheck import crosscheck
from smellkit.judge.evidence import Evidence
from smellkit.judge.external import crosscheck_verdicts
from smellkit.judge.guard import guard
from smellkit.judge.prompt import build_prompt
from smellkit.judge.run import smell_description

DEFAULT = next(iter(sorted((Path.home() / ".cache" / "smellkit-test-data" / "evaluate").glob(
    "click-build-*"), key=lambda path: path.stat().st_mtime, reverse=True)), None)
"""The click dataset the scoring tests built last (tests/evaluate/conftest.py)."""
VERDICTS = 10_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT,
                        help="a build's output folder (default: the tests' click dataset)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.data is None:
        parser.error("no click dataset under ~/.cache/smellkit-test-data/evaluate: run "
                     "`pytest tests/evaluate/test_click_scores.py` first, or pass --data")
    data = read_dataset(args.data)
    times = []
    judged = {"smell_elimination": 8.0, "cross_file_coordination": 8.0,
              "structural_soundness": 8.0, "code_quality": 8.0}
    for _ in range(args.repeat):
        for case in data.cases:
            for model, patch in (("oracle", case.ground_truth_patch), ("noop", "")):
                started = time.perf_counter()
                description = smell_description(case.smell)
                analysis = case_analysis(case, description)
                guarded = guard(patch)
                build_prompt(smell=case.smell, description=description,
                             difficulty=case.difficulty, analysis=analysis, diff=guarded.normal,
                             code=smelly_code(case))
                row = Score(instance_id=case.instance_id, model=model, smell=case.smell,
                            applied=True, apply_status="applied" if patch else "empty",
                            residue=0 if patch else 1, checks_passed=1, checks_total=1)
                crosscheck(judged, Evidence.from_score(row, involved=involved_files(case),
                                                       patch=patch))
                times.append(time.perf_counter() - started)
    print(f"{len(data.cases)} cases of {args.data}, oracle and noop, {args.repeat} repeats")
    print(f"judge's own work per verdict: median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        rows = [Score(instance_id=case.instance_id, model=f"m{index}", smell=case.smell,
                      applied=True, apply_status="applied", residue=index % 2,
                      checks_passed=1, checks_total=1)
                for case in data.cases for index in range(VERDICTS // len(data.cases))]
        (folder / "scores").mkdir()
        (folder / "scores" / "scores.jsonl").write_text(
            "".join(row.model_dump_json() + "\n" for row in rows))
        table = folder / "verdicts.csv"
        table.write_text("instance_id,model,judge_model,SE,CC,SS,CQ\n" + "".join(
            f"{row.instance_id},{row.model},j,9,8,8,7\n" for row in rows))
        started = time.perf_counter()
        report = crosscheck_verdicts(args.data, folder / "scores", table, folder / "out")
        seconds = time.perf_counter() - started
    print(f"smellkit crosscheck of {report.checked} CSV verdicts: {seconds:.2f} s "
          f"({report.checked / seconds:.0f} verdicts/s; trust {report.trust})")


if __name__ == "__main__":
    main()
