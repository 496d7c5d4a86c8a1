"""Each adapter end to end against a stand-in of its tool: the prompt arrives the way the real
tool reads it, the workspace edits come back as the patch (new, deleted, renamed and changed
files; scratch files and the agent's own commits left out), and the usage is read exactly."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from smellkit.agents import AGENT_NAMES, Usage
from smellkit.evaluate.patches.parse import parse_patch
from tests.agents.helpers import first_case, run_standin
from tests.agents.standins import EXPECTED_USAGE
from tests.bench import fakes


def smelly_copy(dataset: Path, tmp: Path) -> Path:
    """The case's smelly repository without its tests, as the agent got it."""
    import shutil

    from smellkit.evaluate.patches.parse import prefix_paths

    case = first_case(dataset)
    tree = tmp / "expected"
    shutil.copytree(fakes.FIXTURES / "calcrepo", tree)
    shutil.rmtree(tree / "tests")
    patch = prefix_paths(case["smelly_patch"], case["source_path"])
    subprocess.run(["git", "apply", "-"], input=patch.encode(), cwd=tree, check=True)
    return tree


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_adapter_records_patch_and_usage(agent: str, calc_dataset: Path,
                                         tmp_path: Path) -> None:
    report, row = run_standin(calc_dataset, tmp_path, agent)
    assert row["exit_reason"] == "finished", row
    assert row["exit_code"] == 0 and row["error"] is None and row["outside_writes"] == []
    assert Usage.model_validate(row["usage"]) == EXPECTED_USAGE[agent]
    assert row["agent"] == agent and row["setting"] == "guided"
    assert row["model_name_or_path"] == f"{agent}/test-model/guided"
    changes = {(change.old_path, change.new_path) for change in parse_patch(row["model_patch"])}
    assert changes == {("src/calc/ops.py", "src/calc/ops.py"),
                       (None, "src/calc/helpers.py"), ("pyproject.toml", None),
                       ("src/calc/__init__.py", "src/calc/package.py"),
                       (None, "src/calc/table.bin")}
    assert "GIT binary patch" in row["model_patch"]
    assert "rename from src/calc/__init__.py" in row["model_patch"]
    assert ".aider" not in row["model_patch"] and "__pycache__" not in row["model_patch"]
    # the patch turns the smelly repository into what the stand-in left
    tree = smelly_copy(calc_dataset, tmp_path)
    original_ops = (tree / "src/calc/ops.py").read_text()
    subprocess.run(["git", "apply", "-"], input=row["model_patch"].encode(), cwd=tree,
                   check=True)
    assert (tree / "src/calc/ops.py").read_text() == \
        original_ops + "\n\n# refactored by the stand-in\n"
    assert not (tree / "pyproject.toml").exists() and (tree / "src/calc/package.py").exists()
    assert (tree / "src/calc/table.bin").read_bytes() == bytes(range(256)) * 4
    helpers = (tree / "src/calc/helpers.py").read_text().splitlines()
    instruction = first_case(calc_dataset)["instructions"]["guided"]
    assert helpers[0] == f"# task: {instruction.splitlines()[0][:40]}"
    # HOME and TMPDIR are scratch folders, nothing unlisted leaks in, one commit of history
    assert json.loads(helpers[1].removeprefix("# env: ")) == {
        "git": "Initial commit", "home": True, "leak": False, "tmp": True}
    logs = tmp_path / row["logs"]
    assert (logs / "patch.diff").read_text() == row["model_patch"]
    assert (logs / "instruction.md").read_text() == instruction
    record = json.loads((logs / "run.json").read_text())
    assert record["exit_reason"] == "finished" and record["removed"] == ["tests"]
    assert record["command"].startswith("cd ") and len(record["base_commit"]) == 40
    assert report.exit_reasons == {"finished": 1} and report.ran == 1


@pytest.mark.parametrize(("agent", "trajectory"), [
    ("claude-code", "trajectory.jsonl"), ("codex", "trajectory.jsonl"),
    ("qwen-coder", "trajectory.jsonl"), ("openhands", "trajectory/5f0c2a9e8d7b4c6a"),
    ("aider", "trajectory/aider.chat.history.md"),
    ("mini-swe-agent", "trajectory/mini.traj.json")])
def test_trajectory_is_kept_beside_the_predictions(agent: str, trajectory: str,
                                                    calc_dataset: Path,
                                                    tmp_path: Path) -> None:
    _, row = run_standin(calc_dataset, tmp_path, agent)
    assert (tmp_path / row["logs"] / trajectory).exists()


def test_codex_cost_comes_from_the_price_table(calc_dataset: Path, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"test-model": {"input": 2.0, "cached_input": 0.5,
                                                 "output": 10.0}}))
    _, row = run_standin(calc_dataset, tmp_path, "codex", prices=prices)
    # 1200 fresh input, 300 cached, 70 output tokens
    assert row["usage"]["cost_usd"] == pytest.approx((1200 * 2.0 + 300 * 0.5 + 70 * 10.0) / 1e6)
    assert row["usage"]["cost_source"] == "price-table"
