"""The baselines on a real dataset: click 8.1.7 cases built as tests/bench/test_click_build.py
builds them (the `click_dataset` fixture of conftest.py), scored with the real signals and the
click tests. The oracle must come out perfect on every case, the noop baseline resolved on
none."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.evaluate.score import Score
from smellkit.evaluate.scorer import evaluate
from smellkit.models import BuildReport

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scored(click_dataset: tuple[Path, BuildReport], tmp_path_factory: pytest.TempPathFactory,
           terminal_report: Callable[[str, list[str]], None]) -> dict[tuple[str, str], Score]:
    dataset, built = click_dataset
    out = tmp_path_factory.mktemp("click-scores")
    report = evaluate(dataset, (), out, baselines=("oracle", "noop"), jobs=2)
    assert report.exit_code == 0 and report.scored == 2 * built.cases, report
    rows = {(row["instance_id"], row["model"]): Score.model_validate(row)
            for row in read_jsonl(out / "scores.jsonl")}
    terminal_report("smellkit evaluate on click 8.1.7", [
        f"{len(rows)} predictions of {built.cases} cases in {report.seconds:.0f}s "
        f"(signals: {report.signals}); timings {report.timings}"])
    return rows


def test_the_oracle_is_perfect_on_every_case(scored: dict[tuple[str, str], Score]) -> None:
    oracle = {key[0]: row for key, row in scored.items() if key[1] == "oracle"}
    assert len(oracle) >= 10
    for instance_id, row in oracle.items():
        assert row.applied and row.apply_status == "applied", (instance_id, row.apply_reason)
        assert row.tpr == 1.0, (instance_id, row.errors)
        assert row.la == 1.0, (instance_id, row.touched, row.errors)
        assert row.residue == 0, (instance_id, row.errors)
        assert row.checks_total is not None and row.checks_passed == row.checks_total, (
            instance_id, row.failed_checks)
        assert row.gap_closed == pytest.approx(1.0), (instance_id, row.metrics)
        assert row.resolved and row.error_category == "resolved", (instance_id, row.errors)


def test_noop_is_resolved_on_no_case(scored: dict[tuple[str, str], Score]) -> None:
    noop = [row for (_, model), row in scored.items() if model == "noop"]
    assert len(noop) >= 10
    for row in noop:
        assert row.apply_status == "empty" and row.tpr == 1.0
        assert row.la == 0.0, (row.instance_id, row.touched)
        assert not row.resolved and row.error_category == "no_patch"
