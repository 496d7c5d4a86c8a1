"""Predictions from a Harbor jobs folder (the layout and JSON of harbor 0.26: a job's own
config.json/lock.json/result.json beside one folder per trial, each with its lock.json,
config.json and result.json), and scoring them end to end. tests/bench/test_harbor_real.py reads
a job real Harbor wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.evaluate.errors import InputFormatError
from smellkit.evaluate.inputs import predictions_from_harbor_jobs
from smellkit.evaluate.scorer import evaluate
from tests.evaluate.conftest import StandInSignals, edit, smelly_source

ADD = "calc__feature_envy-easy-add"
MUL = "calc__feature_envy-medium-mul"


def _trial(job: Path, name: str, task: str, patch: str | None, *, agent: str = "claude-code",
           model: str | None = "anthropic/claude-sonnet-4-5",
           result: dict[str, Any] | None = None) -> Path:
    trial = job / name
    (trial / "verifier").mkdir(parents=True)
    _lock(trial, task, agent)
    (trial / "config.json").write_text(json.dumps({
        "task": {"path": f"/data/harbor/{task}", "git_url": None, "name": None},
        "trial_name": name, "agent": {"name": agent, "model_name": model}}))
    provider, _, short = (model or "").partition("/")
    (trial / "result.json").write_text(json.dumps(result if result is not None else {
        "task_name": f"smellkit/{task}", "trial_name": name,
        "agent_info": {"name": agent, "version": "2.0.1",
                       "model_info": {"name": short, "provider": provider} if model else None},
        "agent_result": {"n_input_tokens": 1200, "n_cache_tokens": None,
                         "n_output_tokens": 300, "cost_usd": 0.02},
        "agent_execution": {"started_at": "2026-11-26T10:00:00+00:00",
                            "finished_at": "2026-11-26T10:01:30+00:00"},
        "exception_info": None}))
    if patch is not None:
        (trial / "verifier" / "prediction.patch").write_text(patch)
    return trial


def _lock(trial: Path, task: str, agent: str) -> None:
    """The lock.json Harbor writes when it plans a trial, before it runs it."""
    trial.mkdir(parents=True, exist_ok=True)
    (trial / "lock.json").write_text(json.dumps({
        "schema_version": 2, "task": {"name": task, "type": "local",
                                      "path": f"/data/harbor/{task}"},
        "agent": {"name": agent, "kwargs": {}}}))


def _job(root: Path) -> Path:
    job = root / "jobs" / "2026-11-26__10-00-00"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"job_name": job.name, "tasks": [],
                                                 "agents": [{"name": "claude-code"}]}))
    (job / "result.json").write_text(json.dumps({"id": "x", "stats": {}}))
    return job


def test_each_trial_is_a_prediction_named_by_task_agent_and_model(tmp_path: Path) -> None:
    job = _job(tmp_path)
    _trial(job, f"{ADD}__aaa", ADD, "")
    _trial(job, f"{ADD}__bbb", ADD, "")  # a second attempt (harbor run -k 2)
    _trial(job, f"{MUL}__ccc", MUL, "", agent="oracle", model=None)
    _trial(job, f"{MUL}__ddd", MUL, None, result={
        "task_name": f"smellkit/{MUL}", "trial_name": f"{MUL}__ddd",
        "exception_info": {"exception_type": "AgentTimeoutError"}})
    read = predictions_from_harbor_jobs(tmp_path / "jobs")
    found = {(item.instance_id, item.model): item for item in read.predictions}
    assert set(found) == {(ADD, "claude-code:anthropic/claude-sonnet-4-5"), (MUL, "oracle")}
    first = found[ADD, "claude-code:anthropic/claude-sonnet-4-5"]
    assert first.agent == "claude-code" and first.duration_s == 90.0
    assert first.usage == {"input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.02}
    assert first.source.path.endswith(f"{ADD}__aaa/verifier/prediction.patch")
    messages = sorted(str(error) for error in read.errors)
    assert len(messages) == 2
    assert "duplicate prediction" in messages[0] and f"{ADD}__aaa" in messages[0]
    assert "no verifier/prediction.patch" in messages[1] and "AgentTimeoutError" in messages[1]


def test_a_trial_harbor_never_started_is_an_error_not_a_silence(tmp_path: Path) -> None:
    """Harbor writes a trial's lock.json when it plans it; a job that stops first (Harbor's
    docker environment refusing a `no-network` task, say) leaves only that."""
    job = _job(tmp_path)
    _lock(job / f"{ADD}__eee", ADD, "oracle")
    _trial(job, f"{MUL}__ccc", MUL, "", agent="oracle", model=None)
    read = predictions_from_harbor_jobs(tmp_path / "jobs")
    assert [item.instance_id for item in read.predictions] == [MUL]
    (error,) = read.errors
    assert "never started" in str(error) and ADD in str(error) and "job.log" in str(error)


def test_a_folder_without_trials_is_refused(tmp_path: Path) -> None:
    _job(tmp_path)
    with pytest.raises(InputFormatError, match="no Harbor trial found"):
        predictions_from_harbor_jobs(tmp_path / "jobs")


def test_harbor_predictions_are_scored(calc_dataset: Path, tmp_path: Path) -> None:
    rows = {row["instance_id"]: row for row in read_jsonl(calc_dataset / "dataset.jsonl")}
    smelly = smelly_source(rows[ADD], tmp_path)
    job = _job(tmp_path)
    _trial(job, f"{ADD}__aaa", ADD, edit(smelly, "return a + b", "return a - b"))
    report = evaluate(calc_dataset, (), tmp_path / "out", harbor_jobs=tmp_path / "jobs",
                      signals=StandInSignals())
    (row,) = read_jsonl(tmp_path / "out" / "scores.jsonl")
    assert report.scored == 1 and row["model"] == "claude-code:anthropic/claude-sonnet-4-5"
    assert row["error_category"] == "broke_tests" and row["tests_passed"] == 0
    # the run's facts reach the report's rows
    assert row["agent"] == "claude-code" and row["duration_s"] == 90.0
    assert row["usage"] == {"input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.02}
    assert row["exit_reason"] is None
    assert report.missing == {"claude-code:anthropic/claude-sonnet-4-5": 3}
