"""The judge on a real dataset: click 8.1.7 cases (the `click_dataset` fixture), scored by the
judge run itself (static signals: no tests), the oracle and noop baselines judged by a scripted
judge that praises everything. The oracle's praise holds on every case; the noop's is
contradicted on every case, on smell elimination (the smell is left) and on coordination (no
involved file touched), with the evidence cited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smellkit.judge.run import judge, read_verdicts
from smellkit.models import BuildReport
from tests.judge.conftest import options
from tests.judge.server import Reply, prompt_text, scores, verdict_json

pytestmark = pytest.mark.slow


def test_oracle_and_noop_on_click(click_dataset: tuple[Path, BuildReport], serve: Any,
                                  tmp_path: Path):
    dataset, built = click_dataset
    prompts: list[str] = []

    def credulous(body: dict[str, Any], n: int) -> Reply:
        prompts.append(prompt_text(body))
        return Reply(verdict_json(body, scores(8, 8, 8, 8)))

    server = serve(credulous)
    report = judge(dataset, (), tmp_path / "judged", judge_models=["judge-a"],
                   baselines=("oracle", "noop"), samples=1,
                   client=options(server, tmp_path / "cache"),
                   evaluate_options={"tests": False, "jobs": 2})
    assert report.failed == 0 and report.judged == 2 * built.cases, report
    verdicts = read_verdicts(tmp_path / "judged")
    oracle = [verdict for verdict in verdicts if verdict.model == "oracle"]
    noop = [verdict for verdict in verdicts if verdict.model == "noop"]
    assert len(oracle) == len(noop) == built.cases
    for verdict in oracle:
        assert verdict.trust == "consistent", "\n".join(
            [verdict.instance_id, *(repr(item) for item in verdict.contradictions)])
        assert verdict.adjusted == scores(8, 8, 8, 8)
    for verdict in noop:
        assert verdict.trust == "contradicted", verdict.instance_id
        dimensions = {item.dimension for item in verdict.contradictions}
        assert {"smell_elimination", "cross_file_coordination"} <= dimensions, (
            verdict.instance_id, verdict.contradictions)
        assert verdict.adjusted["smell_elimination"] <= 3
        assert verdict.analysis_source == "case_record"
    assert all("<candidate_diff>" in text and "Targets (where a fix must act):" in text
               for text in prompts)
    assert any("A fix must restore this structure" in text for text in prompts)
