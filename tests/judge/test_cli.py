"""`smellkit judge` and `smellkit crosscheck` on the command line: outputs, exit codes, the
judge's columns in the evaluate reports, and a SmellBench verdict file end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from smellkit.cli import main
from smellkit.judge.run import read_verdicts
from tests.judge.conftest import (
    FIX,
    INSTANCE,
    record,
    score,
    write_dataset,
    write_predictions,
    write_scores,
)
from tests.judge.server import Reply, scores, verdict_json

SMELLBENCH_VERDICT = {
    "instance_id": INSTANCE, "weighted_score": 8.6,
    "general": {
        "smell_elimination": {"score": 9, "justification": "The envy is gone."},
        "cross_file_coordination": {"score": 9, "justification": "Both files updated."},
        "structural_soundness": {"score": 8, "justification": "Calls kept."},
        "code_quality": {"score": 8, "justification": "Clean."}},
    "smell_specific": {"Method Placement": {"score": 9, "justification": "Moved."},
                       "Data Locality": {"score": 8, "justification": "Own data."},
                       "Delegation Appropriateness": {"score": 9, "justification": "Thin."}},
    "custom_rubrics": {"label_logic_moved": {"score": 9, "justification": "Yes."}},
    "summary": "A thorough fix.", "usage": {"input_tokens": 1000},
    "_meta": {"smell_type": "feature_envy", "difficulty": "easy", "backend": "llm",
              "model": "claude-sonnet-4-5-20250929"}}


def invoke(*args: Any, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(main, [str(arg) for arg in args], env=env)


def test_judge_command_writes_verdicts_summaries_and_report_columns(serve: Any,
                                                                    tmp_path: Path):
    pytest.importorskip("pandas")
    server = serve(lambda body, n: Reply(verdict_json(body, scores(9, 8, 8, 7))))
    dataset = write_dataset(tmp_path)
    predictions = write_predictions(tmp_path, {"fixer": FIX})
    scored = write_scores(tmp_path / "scores", [score("fixer", residue=1)])
    out = tmp_path / "out"
    result = invoke("judge", dataset, predictions, "--model", "judge-a", "--base-url",
                    server.url, "--samples", "2", "--scores", scored, "--judge-cache",
                    tmp_path / "cache", "--price", "judge-a=1,2", "-o", out, "--no-progress",
                    env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output
    (verdict,) = read_verdicts(out)
    assert verdict.trust == "contradicted" and verdict.adjusted["smell_elimination"] == 3
    assert verdict.usage.cost_usd == pytest.approx(2 * (100 * 1 + 20 * 2) / 1e6)
    for name in ("judge_summary.json", "judge_summary.md", "judge_run.json", "summary.md",
                 "summary.csv", "report.html"):
        assert (out / name).is_file(), name
    summary_md = (out / "summary.md").read_text()
    assert "## LLM judge" in summary_md
    assert "adjusted_smell_elimination" in (out / "summary.csv").read_text()
    assert "judge-a" in (out / "judge_summary.md").read_text()
    assert "smellkit judge (1 judged now" in result.output
    assert "2 requests (0 retries, 0 repairs)" in result.output


def test_judge_command_needs_a_model(tmp_path: Path):
    dataset = write_dataset(tmp_path)
    result = invoke("judge", dataset, "--baseline", "noop", "-o", tmp_path / "out",
                    env={"SMELLKIT_JUDGE_MODEL": ""})
    assert result.exit_code == 2 and "no judge model" in result.output


def test_judge_command_names_a_missing_key_variable(tmp_path: Path):
    dataset = write_dataset(tmp_path)
    result = invoke("judge", dataset, "--baseline", "noop", "--model", "m", "--api-key-env",
                    "NO_SUCH_KEY_VARIABLE", "-o", tmp_path / "out")
    assert result.exit_code == 2 and "$NO_SUCH_KEY_VARIABLE is not set" in result.output


def test_smellbench_verdict_file_is_cross_checked_end_to_end(tmp_path: Path):
    """judge_rubric.py's result for a patch that left one involved file untouched and a
    residue: its praise is contradicted on SE and CC, with the evidence cited."""
    dataset = write_dataset(tmp_path)
    partial = FIX.split("diff --git a/shop/customer.py")[0]  # order.py only
    predictions = write_predictions(tmp_path, {"agent": partial})
    scored = write_scores(tmp_path / "scores", [score("agent", residue=1, checks_passed=1)])
    verdicts = tmp_path / "judge_result.json"
    verdicts.write_text(json.dumps(SMELLBENCH_VERDICT, indent=2))
    out = tmp_path / "checked"
    result = invoke("crosscheck", dataset, scored, verdicts, "-o", out, "--predictions",
                    predictions)
    assert result.exit_code == 0, result.output
    (verdict,) = read_verdicts(out)
    assert (verdict.source, verdict.model, verdict.judge_model) == (
        "smellbench", "agent", "claude-sonnet-4-5-20250929")
    assert verdict.weighted_score == 8.6
    assert verdict.scores["smell_specific.method_placement"] == 9
    assert verdict.scores["case.label_logic_moved"] == 9
    assert verdict.trust == "contradicted"
    assert verdict.adjusted == scores(3, 3, 8, 8)
    reasons = {item.dimension: item for item in verdict.contradictions}
    assert reasons["cross_file_coordination"].evidence["untouched_files"] == ["shop/customer.py"]
    assert "1 of 2 structural checks fail" in " ".join(
        item.reason for item in verdict.contradictions)
    run = json.loads((out / "crosscheck_run.json").read_text())
    assert run["checked"] == 1 and run["sources"] == {"smellbench": 1}


def test_crosscheck_of_a_generic_csv_lists_what_it_cannot_match(tmp_path: Path):
    dataset = write_dataset(tmp_path)
    scored = write_scores(tmp_path / "scores", [score("a"), score("b", residue=2)])
    table = tmp_path / "verdicts.csv"
    table.write_text("instance_id,model,judge_model,SE,CC,SS,CQ\n"
                     f"{INSTANCE},a,gpt,8,8,8,8\n"
                     f"{INSTANCE},b,gpt,9,8,8,8\n"
                     "unknown-case,a,gpt,1,1,1,1\n"
                     f"{INSTANCE},a,gpt,eleven,8,8,8\n")
    out = tmp_path / "checked"
    result = invoke("crosscheck", dataset, scored, table, "-o", out)
    assert result.exit_code == 1
    verdicts = {verdict.model: verdict for verdict in read_verdicts(out)}
    assert verdicts["a"].trust == "consistent" and verdicts["b"].trust == "contradicted"
    errors = [json.loads(line) for line in
              (out / "crosscheck_errors.jsonl").read_text().splitlines()]
    assert [error["line"] for error in errors] == [5, 4]
    assert "unknown instance id" in errors[1]["message"]
    assert "se: not a score" in errors[0]["message"]


def test_crosscheck_asks_for_the_model_when_the_file_cannot_say(tmp_path: Path):
    dataset = write_dataset(tmp_path)
    scored = write_scores(tmp_path / "scores", [score("a"), score("b")])
    verdicts = tmp_path / "result.json"
    verdicts.write_text(json.dumps(SMELLBENCH_VERDICT))
    result = invoke("crosscheck", dataset, scored, verdicts, "-o", tmp_path / "out")
    assert result.exit_code == 1 and "--model" in result.output
    result = invoke("crosscheck", dataset, scored, verdicts, "-o", tmp_path / "out",
                    "--model", "b")
    assert result.exit_code == 0
    assert read_verdicts(tmp_path / "out")[0].model == "b"


def test_two_judge_models_print_their_agreement(serve: Any, tmp_path: Path):
    se = {"c0": 9, "c1": 5, "c2": 2, "c3": 7}

    def script(body: dict[str, Any], n: int) -> Reply:
        text = "\n".join(message["content"] for message in body["messages"])
        case = next(key for key in se if f"`shop/order.py::Order.label{key}`" in text)
        value = se[case] if body["model"] == "judge-a" else min(10, se[case] + 1)
        return Reply(verdict_json(body, scores(value, 8, 8, 8)))

    records = [record(f"c{i}", smell_function=["shop/order.py", "Order", f"labelc{i}"])
               for i in range(4)]
    dataset = write_dataset(tmp_path, records)
    server = serve(script)
    lines = [json.dumps({"instance_id": f"c{i}", "model_name_or_path": "fixer",
                         "model_patch": FIX}) + "\n" for i in range(4)]
    (tmp_path / "preds.jsonl").write_text("".join(lines))
    scored = write_scores(tmp_path / "scores", [score("fixer", instance_id=f"c{i}")
                                                 for i in range(4)])
    result = invoke("judge", dataset, tmp_path / "preds.jsonl", "--model", "judge-a",
                    "--model", "judge-b", "--base-url", server.url, "--samples", "1",
                    "--scores", scored, "--judge-cache", tmp_path / "cache", "-o",
                    tmp_path / "out", "--no-progress", env={"OPENAI_API_KEY": "k"})
    assert result.exit_code == 0, result.output
    assert "judge-a vs judge-b, SE: weighted kappa" in result.output
    summary = json.loads((tmp_path / "out" / "judge_summary.json").read_text())
    se_pair = next(item for item in summary["between_judges"]
                   if item["dimension"] == "smell_elimination")
    assert se_pair["n"] == 4 and se_pair["spearman"] == pytest.approx(1.0)
    assert 0 < se_pair["kappa"] < 1


def test_one_judge_run_per_folder(tmp_path: Path):
    import fcntl

    from smellkit.errors import UsageError
    from smellkit.judge.run import judge

    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".judge.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(UsageError, match="another smellkit judge"):
            judge(write_dataset(tmp_path), [], out, judge_models=["m"], baselines=["noop"])
