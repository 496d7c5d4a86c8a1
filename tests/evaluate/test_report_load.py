"""`smellkit.evaluate.load(DIR)`: scores.jsonl as the documented DataFrame."""

from __future__ import annotations

from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")

import smellkit.evaluate  # noqa: E402
from smellkit.evaluate.errors import EvaluateError  # noqa: E402
from smellkit.evaluate.reports.frame import columns, frame, read_scores  # noqa: E402
from smellkit.evaluate.score import MetricDelta, Score  # noqa: E402
from tests.evaluate.synthetic_scores import synthetic_scores  # noqa: E402


def _write(folder: Path, rows: list[Score], tail: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scores.jsonl").write_text(
        "".join(row.model_dump_json() + "\n" for row in rows) + tail, encoding="utf-8")
    return folder


def test_load_reads_every_complete_row(tmp_path: Path) -> None:
    rows = synthetic_scores(cases=1, models=("alpha", "beta"))
    table = smellkit.evaluate.load(_write(tmp_path, rows, tail='{"instance_id": "cut off'))
    assert isinstance(table, pd.DataFrame)
    assert len(table) == len(rows)
    assert list(table["instance_id"]) == [row.instance_id for row in rows]
    assert list(table.columns) == columns(["cc", "sloc"])


def test_columns_are_typed_and_metrics_flattened(tmp_path: Path) -> None:
    measured = Score(instance_id="a", model="m", smell="god_class", applied=True,
                     apply_status="applied", tpr=0.5, tests_passed=1, tests_total=2,
                     checks_passed=1, checks_total=4, equivalent=True, touched=("pkg.f",),
                     metrics={"cc": MetricDelta(original=2, smelly=6, result=3),
                              "lcom4": MetricDelta(smelly=2)})
    unmeasured = Score(instance_id="b", model="m", smell="god_class", apply_status="empty")
    table = smellkit.evaluate.load(_write(tmp_path, [measured, unmeasured]))
    assert [c for c in table.columns if c.startswith("metric.")] == [
        "metric.cc.original", "metric.cc.smelly", "metric.cc.result",
        "metric.lcom4.original", "metric.lcom4.smelly", "metric.lcom4.result"]
    assert "metrics" not in table.columns
    first, second = table.iloc[0], table.iloc[1]
    assert (first["metric.cc.result"], first["checks_pass"], first["tpr"]) == (3.0, 0.25, 0.5)
    assert pd.isna(first["metric.lcom4.original"]) and pd.isna(second["metric.cc.result"])
    assert pd.isna(second["tpr"]) and pd.isna(second["checks_pass"])
    assert str(table["tests_passed"].dtype) == "float64"
    assert str(table["equivalent"].dtype) == "boolean"
    assert bool(first["equivalent"]) and pd.isna(second["equivalent"])
    assert table["resolved"].dtype == bool and table["files_involved"].dtype == "int64"
    assert first["touched"] == ("pkg.f",)
    assert table["resolved"].mean() == 0.0  # research scripts aggregate it directly


def test_frame_of_nothing_has_the_columns() -> None:
    table = frame([])
    assert len(table) == 0 and list(table.columns) == columns()


def test_a_folder_without_scores_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EvaluateError, match=r"no scores\.jsonl here"):
        smellkit.evaluate.load(tmp_path)


def test_a_bad_complete_line_is_an_error_naming_it(tmp_path: Path) -> None:
    rows = synthetic_scores(cases=1, models=("alpha",))[:2]
    folder = _write(tmp_path, rows, tail='{"instance_id": "x", "model": "m"}\n')
    with pytest.raises(EvaluateError, match=r"line 3 is not a Score row: smell: Field required"):
        read_scores(folder)
