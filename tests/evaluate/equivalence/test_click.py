"""Differential testing on the click dataset (slow: a recording run and three worker runs per
prediction): the oracle is never `not_equivalent` and is `equivalent` on at least 80% of the
cases; and the kept mutants of the ground truth (`fixtures/equivalence/`, written by
`benchmarks/bench_equivalence.py --keep`), which every selected test misses, are caught. The
mutants answer the cases of one click build, kept beside them (`cases.jsonl`): a build by later
injectors names its cases differently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.evaluate.equivalence import EquivalenceOptions
from smellkit.evaluate.score import Score
from smellkit.evaluate.scorer import evaluate
from smellkit.models import BuildReport
from tests.evaluate.conftest import CLICK_SPEC
from tests.support.pypi import data_dir

KEPT = Path(__file__).parents[1] / "fixtures" / "equivalence"
CASES = KEPT / "cases.jsonl"


@pytest.mark.slow
def test_oracle_and_kept_mutants_on_click(click_dataset: tuple[Path, BuildReport],
                                          tmp_path: Path) -> None:
    dataset, _ = click_dataset
    kept = sorted(KEPT.glob("*.json"))
    assert len(kept) >= 3
    preds = tmp_path / "mutants.jsonl"
    records = [json.loads(path.read_text()) for path in kept]
    preds.write_text("".join(json.dumps({key: record[key] for key in (
        "instance_id", "model_name_or_path", "model_patch")}) + "\n" for record in records))
    report = evaluate(dataset, [], tmp_path / "oracle", baselines=("oracle",), jobs=2,
                      equivalence=EquivalenceOptions())
    assert report.exit_code == 0 and not report.problems
    oracle = [Score.model_validate(row) for row in read_jsonl(tmp_path / "oracle" /
                                                              "scores.jsonl")]
    verdicts = [row.equivalence for row in oracle]
    assert "not_equivalent" not in verdicts, [row.equivalence_detail for row in oracle]
    assert verdicts.count("equivalent") >= 0.8 * len(oracle), verdicts
    report = evaluate(CASES, [preds], tmp_path / "mutants", specs=[CLICK_SPEC],
                      cache_dir=data_dir() / "sandbox", jobs=2, equivalence=EquivalenceOptions())
    assert report.exit_code == 0 and not report.problems
    rows = [Score.model_validate(row) for row in read_jsonl(tmp_path / "mutants" /
                                                            "scores.jsonl")]
    by_key = {(row.instance_id, row.model): row for row in rows}
    for record in records:
        row = by_key[record["instance_id"], record["model_name_or_path"]]
        assert row.tests_total and row.tests_passed == row.tests_total  # the tests miss it
        assert row.equivalence == "not_equivalent", row.equivalence_detail
        assert row.error_category == "not_equivalent"
        assert row.equivalence_detail is not None
        example = row.equivalence_detail["counterexample"]
        assert example["entry_point"] and example["difference"]
