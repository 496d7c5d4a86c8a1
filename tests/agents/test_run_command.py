"""`smellkit run` from the command line, then `smellkit evaluate` on what it wrote: the
predictions are read as they are (SWE-bench fields plus smellkit's), and scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from smellkit.cli import main
from smellkit.evaluate.inputs.predictions import read_predictions
from smellkit.evaluate.scorer import evaluate
from tests.agents.helpers import FAKE_KEY
from tests.agents.standins import install
from tests.evaluate.conftest import StandInSignals


def _run(dataset: Path, preds: Path, monkeypatch: pytest.MonkeyPatch, tmp: Path,
         *extra: str) -> tuple[int, str]:
    bin_dir = tmp / "bin"
    install(bin_dir, "claude-code")
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    result = CliRunner().invoke(main, [
        "run", str(dataset), "--agent", "claude-code", "--model", "sonnet", "--setting",
        "guided", "-o", str(preds), "--env", "STANDIN_MODE=gentle", "--no-progress", *extra])
    return result.exit_code, result.output


def test_run_then_evaluate(calc_dataset: Path, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    preds = tmp_path / "preds.jsonl"
    code, output = _run(calc_dataset, preds, monkeypatch, tmp_path, "--jobs", "2")
    assert code == 0, output
    assert "finished" in output and "0.0492" in output  # four runs at $0.0123
    read = read_predictions(preds)
    assert not read.errors and len(read.predictions) == 4
    assert {item.exit_reason for item in read.predictions} == {"finished"}
    assert {item.setting for item in read.predictions} == {"guided"}
    assert all(item.usage["output_tokens"] == 50 for item in read.predictions)
    report = evaluate(calc_dataset, [preds], tmp_path / "scores", signals=StandInSignals())
    assert report.predictions == 4 and report.scored == 4 and report.input_errors == 0
    scores = [json.loads(line) for line in
              (tmp_path / "scores" / "scores.jsonl").read_text().splitlines()]
    assert {row["model"] for row in scores} == {"claude-code/sonnet/guided"}
    assert all(row["applied"] and row["tests_passed"] == row["tests_total"] for row in scores)
    # a rerun has nothing left to do
    code, output = _run(calc_dataset, preds, monkeypatch, tmp_path)
    assert code == 0 and "4 already done" in output.replace("\n", " ")


def test_run_reports_bad_options(calc_dataset: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(main, [
        "run", str(calc_dataset), "--agent", "command", "--setting", "open", "-o",
        str(tmp_path / "p.jsonl"), "--command", "x {nope}"])
    assert result.exit_code == 2 and "unknown placeholder(s) nope" in result.output
    result = CliRunner().invoke(main, [
        "run", str(calc_dataset), "--agent", "aider", "--setting", "open", "-o",
        str(tmp_path / "p.jsonl"), "--image", "x"])
    assert result.exit_code == 2 and "--image is for the docker runner" in result.output
    result = CliRunner().invoke(main, [
        "run", str(calc_dataset), "--agent", "aider", "--setting", "open", "-o",
        str(tmp_path / "p.jsonl")])
    assert result.exit_code == 2 and "OPENAI_API_KEY is not set" in result.output
    assert not (tmp_path / "p.jsonl").exists()


def test_a_killed_run_loses_no_finished_row(calc_dataset: Path, tmp_path: Path) -> None:
    """SIGKILL after the first row; the rerun runs only the other cases."""
    import os
    import subprocess
    import sys
    import time

    preds = tmp_path / "preds.jsonl"
    argv = [sys.executable, "-m", "smellkit", "run", str(calc_dataset), "--agent", "command",
            "--command", "sleep 1 && echo '# x' >> src/calc/ops.py", "--setting", "open",
            "-o", str(preds), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not (preds.exists() and preds.read_text().count("\n") >= 1):
        assert process.poll() is None and time.monotonic() < deadline, "no row was written"
        time.sleep(0.05)
    process.kill()
    process.wait()
    first = preds.read_text().splitlines()
    assert 1 <= len(first) < 4
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = preds.read_text().splitlines()
    assert len(rows) == 4 and rows[:len(first)] == first
    assert len({json.loads(row)["instance_id"] for row in rows}) == 4


def test_sigterm_stops_the_agent_and_keeps_the_finished_rows(calc_dataset: Path,
                                                             tmp_path: Path) -> None:
    """A stop from a batch system: the running agent's process group dies with smellkit."""
    import os
    import signal
    import subprocess
    import sys
    import time

    preds, pids = tmp_path / "preds.jsonl", tmp_path / "pids"
    agent = (f"if [ -s {pids} ]; then sleep 300 & echo $! >> {pids}; wait; fi; "
             f"echo started >> {pids}; echo '# x' >> src/calc/ops.py")
    argv = [sys.executable, "-m", "smellkit", "run", str(calc_dataset), "--agent", "command",
            "--command", agent, "--setting", "open", "-o", str(preds), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not (pids.exists() and len(pids.read_text().split()) >= 2):
        assert process.poll() is None and time.monotonic() < deadline, "the agent never slept"
        time.sleep(0.05)
    sleeper = int(pids.read_text().split()[1])
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) != 0
    deadline = time.monotonic() + 60  # generous: a loaded machine reaps slowly
    while _alive(sleeper):
        assert time.monotonic() < deadline, "the agent's process outlived smellkit"
        time.sleep(0.05)
    rows = preds.read_text().splitlines()
    assert len(rows) == 1 and json.loads(rows[0])["exit_reason"] == "finished"


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")


@pytest.mark.slow
def test_click_run_evaluate_and_html_report(click_dataset: tuple[Path, object],
                                            tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Two click cases: the stand-in agent's runs, scored with the real tests and signals,
    and the HTML report."""
    dataset, _ = click_dataset
    preds = tmp_path / "preds.jsonl"
    code, output = _run(dataset, preds, monkeypatch, tmp_path, "--limit", "2", "--env",
                        "STANDIN_FILE=src/click/core.py")
    assert code == 0, output
    result = CliRunner().invoke(main, ["evaluate", str(dataset), str(preds), "-o",
                                       str(tmp_path / "scores"), "--no-progress"])
    assert result.exit_code == 0, result.output
    scores = [json.loads(line) for line in
              (tmp_path / "scores" / "scores.jsonl").read_text().splitlines()]
    assert len(scores) == 2
    assert all(row["applied"] and row["tests_passed"] == row["tests_total"] for row in scores)
    assert all(not row["resolved"] for row in scores)  # a comment does not remove a smell
    assert (tmp_path / "scores" / "report.html").stat().st_size > 0
