"""Runs that go wrong are recorded, never raised: a time-out (the whole process group killed),
a crash, output that is not JSON, an agent stopped by its own budget, one that changes the
hidden tests, one that writes outside its workspace, one that prints its key."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smellkit.agents import AgentConfig, AgentError, run_agents
from smellkit.errors import UsageError
from smellkit.evaluate.patches.parse import parse_patch
from tests.agents.helpers import FAKE_KEY, environment, first_case, run_standin
from tests.agents.standins import install


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_timeout_kills_the_process_group(calc_dataset: Path, tmp_path: Path) -> None:
    report, row = run_standin(calc_dataset, tmp_path, "claude-code", mode="timeout",
                              timeout=3)
    assert row["exit_reason"] == "timeout" and row["exit_code"] is None
    assert "3s time-out" in row["error"]
    agent_pid, child_pid = map(int, (tmp_path / "pids").read_text().split())
    assert not _alive(agent_pid) and not _alive(child_pid)
    assert row["model_patch"] == ""
    assert report.exit_reasons == {"timeout": 1}


def test_crash_is_recorded_with_its_exit_code(calc_dataset: Path, tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, "claude-code", mode="crash")
    assert row["exit_reason"] == "crash" and row["exit_code"] == 3
    assert row["error"] == "no `result` message in the output"
    assert "the stand-in crashed" in (tmp_path / row["logs"] / "stderr.log").read_text()
    assert row["model_patch"]  # what it changed before crashing is kept


@pytest.mark.parametrize("agent", ["claude-code", "codex", "qwen-coder"])
def test_malformed_output_is_a_crash_with_the_bad_lines_noted(
        agent: str, calc_dataset: Path, tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, agent, mode="malformed")
    assert row["exit_code"] == 0 and row["exit_reason"] == "crash"
    assert row["problems"][:2] == [
        "stdout line 1 is not a JSON object: this is not JSON {",
        'stdout line 2 is not a JSON object: {"type": "assistant", "message": {"content": [']


@pytest.mark.parametrize("agent", ["claude-code", "mini-swe-agent"])
def test_budget_stop(agent: str, calc_dataset: Path, tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, agent, mode="budget")
    assert row["exit_reason"] == "budget"
    assert row["usage"]["cost_usd"] > 0


def test_changed_tests_are_in_the_patch(calc_dataset: Path, tmp_path: Path) -> None:
    """The tests folder is not in the workspace; what the agent puts there is recorded as is
    (scoring then marks the prediction as tampering)."""
    _, row = run_standin(calc_dataset, tmp_path, "codex", mode="tamper")
    assert row["exit_reason"] == "finished"
    created = {change.new_path for change in parse_patch(row["model_patch"])
               if change.old_path is None}
    assert {"tests/test_ops.py", "conftest.py"} <= created


def test_the_hidden_tests_are_not_in_the_workspace(calc_dataset: Path, tmp_path: Path) -> None:
    run_standin(calc_dataset, tmp_path, "aider", keep_workspaces=True,
                work_dir=tmp_path / "work")
    case = first_case(calc_dataset)
    workspaces = list((tmp_path / "work").glob("*/sandbox/workspace"))
    assert len(workspaces) == 1
    assert not (workspaces[0] / "tests").exists()
    assert (workspaces[0] / "src" / "calc").is_dir()
    assert case["tests"] and all(test.startswith("tests/") for test in case["tests"])


def test_writes_outside_the_workspace_are_reported(calc_dataset: Path, tmp_path: Path) -> None:
    report, row = run_standin(calc_dataset, tmp_path, "claude-code", mode="escape")
    assert row["outside_writes"] == ["base.git/info/exclude", "escaped-too.txt",
                                     "sandbox/escaped.txt"]
    assert "escaped" not in row["model_patch"]
    assert "+++ b/src/calc/ops.py" in row["model_patch"]  # not hidden by the edited excludes
    assert report.outside_writes == 1
    assert not (tmp_path / "escaped.txt").exists()  # the run's folders are removed after


def test_secrets_never_reach_what_is_written(calc_dataset: Path, tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, "claude-code", mode="secret")
    assert "key=[REDACTED:ANTHROPIC_API_KEY]" in row["model_patch"], row["model_patch"][:400]
    written = [path for path in tmp_path.rglob("*") if path.is_file()
               and "bin" not in path.parts]
    assert written
    for path in written:
        assert FAKE_KEY not in path.read_text(errors="replace"), path
    assert "[REDACTED:ANTHROPIC_API_KEY]" in (tmp_path / row["logs"] / "stderr.log").read_text()


def test_a_missing_key_stops_before_any_run(calc_dataset: Path, tmp_path: Path) -> None:
    install(tmp_path / "bin", "codex")
    with pytest.raises(AgentError, match="OPENAI_API_KEY is not set"):
        run_agents(calc_dataset, tmp_path / "p.jsonl", agent="codex",
                   config=AgentConfig(model="m"), setting="open",
                   source_env=environment(tmp_path / "bin", None))
    assert not (tmp_path / "p.jsonl").exists()


def test_key_can_come_from_another_variable(calc_dataset: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    install(bin_dir, "openhands")
    case = first_case(calc_dataset)
    report = run_agents(calc_dataset, tmp_path / "p.jsonl", agent="openhands",
                        config=AgentConfig(model="m", key_var="LLM_API_KEY",
                                           key_from="MY_KEY"),
                        setting="targeted", instances=[case["instance_id"]],
                        source_env={**environment(bin_dir, None), "MY_KEY": FAKE_KEY})
    assert report.exit_reasons == {"finished": 1}


def test_rerun_skips_finished_cases_and_refuses_another_model(calc_dataset: Path,
                                                              tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, "aider")
    report, again = run_standin(calc_dataset, tmp_path, "aider")
    assert again == row and report.ran == 0 and report.reused == 1
    with pytest.raises(UsageError, match="holds predictions of"):
        run_standin(calc_dataset, tmp_path, "aider", model="other")


def test_partial_last_line_is_dropped_on_resume(calc_dataset: Path, tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, "aider")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(preds.read_text() + '{"instance_id": "half')
    report, again = run_standin(calc_dataset, tmp_path, "aider")
    assert again == row and report.reused == 1
    assert preds.read_text().count("\n") == 1


def test_a_case_without_the_setting_is_not_run(calc_dataset: Path, tmp_path: Path) -> None:
    dataset = tmp_path / "data"
    dataset.mkdir()
    rows = [json.loads(line) for line in
            (calc_dataset / "dataset.jsonl").read_text().splitlines()]
    for row in rows:
        row["instructions"].pop("targeted", None)
    (dataset / "dataset.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    import shutil

    shutil.copytree(calc_dataset / "specs", dataset / "specs")
    install(tmp_path / "bin", "aider")
    report = run_agents(dataset, tmp_path / "p.jsonl", agent="aider",
                        config=AgentConfig(model="m"), setting="targeted", limit=1,
                        source_env=environment(tmp_path / "bin", "OPENAI_API_KEY"))
    assert report.exit_code == 1 and report.ran == 0
    assert list(report.not_run.values()) == [
        "the case has no 'targeted' instruction (it has: guided, open)"]


def test_unknown_instance_and_agent(calc_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown instance id"):
        run_agents(calc_dataset, tmp_path / "p.jsonl", agent="command",
                   config=AgentConfig(command="true"), setting="open", instances=["nope"])
    with pytest.raises(AgentError, match="unknown agent 'devin'"):
        run_agents(calc_dataset, tmp_path / "p.jsonl", agent="devin", config=AgentConfig(),
                   setting="open")
    with pytest.raises(AgentError, match="unknown placeholder"):
        run_agents(calc_dataset, tmp_path / "p.jsonl", agent="command",
                   config=AgentConfig(command="run {task}"), setting="open")
