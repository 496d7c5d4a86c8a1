"""The smell analysis: from the case record (a SmellBench record's own analysis when it has
one), or written by a model, validated and cached per case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from smellkit.evaluate.inputs.dataset import read_dataset
from smellkit.judge.analysis import case_analysis, involved_files, smelly_code
from smellkit.judge.run import judge, read_verdicts
from tests.judge.conftest import (
    FIX,
    options,
    record,
    score,
    write_dataset,
    write_predictions,
    write_scores,
)
from tests.judge.server import Reply, prompt_text, scores, verdict_json

MODEL_ANALYSIS = {
    "analysis": "The label logic of Customer was moved into Order.label, which now reads "
                "three attributes of its customer.",
    "rubrics": [{"name": "Label Logic Home", "description": "The label logic lives in Customer.",
                 "excellent": "In Customer", "good": "Mostly", "acceptable": "Half",
                 "below_average": "Little", "poor": "None"}]}


def _case(tmp: Path, **extra: Any) -> Any:
    return read_dataset(write_dataset(tmp, [record(**extra)])).cases[0]


def test_case_record_analysis_names_targets_and_files(tmp_path: Path):
    case = _case(tmp_path)
    made = case_analysis(case, "A method that uses another class's data.")
    assert made.source == "case_record"
    assert "`shop/order.py::Order.label`" in made.text
    assert involved_files(case) == ("shop/order.py", "shop/customer.py")
    assert [item.key for item in made.criteria] == ["targets_restructured", "files_coordinated"]
    assert "    6          name = self.customer.first" in smelly_code(case)


def test_smellbench_record_brings_its_own_analysis(tmp_path: Path):
    rubric = {**MODEL_ANALYSIS["rubrics"][0], "name": "Own Rubric"}  # type: ignore[dict-item]
    case = _case(tmp_path, smell_analysis="Its own words.", custom_rubrics=[rubric])
    made = case_analysis(case, "")
    assert (made.source, made.text) == ("smellbench_record", "Its own words.")
    assert [item.name for item in made.criteria] == ["Own Rubric"]
    assert made.criteria[0].bands["9-10"] == "In Customer"


def test_model_written_analysis_is_validated_used_and_cached(serve: Any, tmp_path: Path):
    def script(body: dict[str, Any], n: int) -> Reply:
        text = prompt_text(body)
        if "<smell_diff>" in text:  # the analysis request
            return Reply("not json at all") if n == 0 else Reply(json.dumps(MODEL_ANALYSIS))
        assert "three attributes of its customer" in text
        return Reply(verdict_json(body, scores(8, 8, 8, 8)))

    server = serve(script)
    dataset = write_dataset(tmp_path)
    predictions = write_predictions(tmp_path, {"a": FIX, "b": FIX.replace("name", "text")})
    rows = write_scores(tmp_path / "scores", [score("a"), score("b")])

    def run(out: str) -> Any:
        return judge(dataset, [predictions], tmp_path / out, judge_models=["judge-a"],
                     scores=rows, samples=1, analysis="model",
                     client=options(server, tmp_path / "cache", concurrency=1))

    report = run("out")
    assert report.analysis == "model:judge-a"
    verdicts = read_verdicts(tmp_path / "out")
    assert {verdict.analysis_source for verdict in verdicts} == {"model:judge-a"}
    assert all("case.label_logic_home" in verdict.scores for verdict in verdicts)
    analysis_requests = [body for body in server.requests if "<smell_diff>" in prompt_text(body)]
    assert len(analysis_requests) == 2  # one invalid reply, one repair; once for both
    asked = server.count()
    run("again")
    assert server.count() == asked  # the analysis and the verdicts come from the cache
