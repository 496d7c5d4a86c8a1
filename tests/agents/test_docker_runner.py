"""The agent in a container: only its sandbox folder is mounted, so a write anywhere else on
the host never happens; what it leaves around its workspace is still reported."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from smellkit.agents import AgentConfig, run_agents
from smellkit.evaluate.patches.parse import parse_patch
from smellkit.sandbox.docker import docker_available
from tests.agents.helpers import first_case

pytestmark = [pytest.mark.slow, pytest.mark.docker]
TAG = "smellkit-python:sandbox-tests"  # the sandbox tests' image


@pytest.fixture(scope="module")
def image() -> str:
    reason = docker_available()
    if reason is not None:
        pytest.skip(f"Docker is not usable here: {reason}")
    from smellkit.sandbox.image import build_python_image

    return build_python_image(TAG)


def test_command_agent_in_docker(image: str, calc_dataset: Path, tmp_path: Path) -> None:
    host_file = tmp_path / "escape.txt"
    command = (
        "echo '# in a container' >> src/calc/ops.py && id -u > uid.txt && "
        "printf '{{\"input_tokens\": 5, \"turns\": 1}}' > {usage_file} && "
        "echo out > ../escaped.txt && "
        f"(echo host > {shlex.quote(str(host_file))} 2>/dev/null || true)")
    case = first_case(calc_dataset)
    report = run_agents(calc_dataset, tmp_path / "preds.jsonl", agent="command",
                        config=AgentConfig(command=command), setting="open",
                        instances=[case["instance_id"]], runner="docker", image=image,
                        timeout=120)
    assert report.exit_reasons == {"finished": 1}, report
    row = __import__("json").loads((tmp_path / "preds.jsonl").read_text())
    assert row["usage"] == {"input_tokens": 5, "turns": 1}
    assert {change.new_path for change in parse_patch(row["model_patch"])} == \
        {"src/calc/ops.py", "uid.txt"}
    assert f"+{os.getuid()}\n" in row["model_patch"]  # files belong to the caller, not root
    assert row["outside_writes"] == ["sandbox/escaped.txt"]
    assert not host_file.exists()
