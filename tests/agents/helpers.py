"""Running one stand-in agent on one calc case, and reading what it recorded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from smellkit.agents import AgentConfig, RunReport, run_agents
from tests.agents.standins import install

FAKE_KEY = "sk-test-0123456789abcdef"


def first_case(dataset: Path) -> dict[str, Any]:
    line = (dataset / "dataset.jsonl").read_text().splitlines()[0]
    return dict(json.loads(line))


def environment(bin_dir: Path, key_var: str | None, **extra: str) -> dict[str, str]:
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "STANDIN_LEAK": "1",
           "HOME": os.environ.get("HOME", "/root"), **extra}
    if key_var:
        env[key_var] = FAKE_KEY
    return env


def run_standin(dataset: Path, tmp: Path, agent: str, *, mode: str = "normal",
                model: str = "test-model", setting: str = "guided", timeout: float = 60,
                key_var: str | None = None, **options: Any) -> tuple[RunReport, dict[str, Any]]:
    """Run the stand-in of `agent` on the dataset's first case; the report and the row."""
    from smellkit.agents import get_adapter

    adapter = get_adapter(agent)
    bin_dir = tmp / "bin"
    script = install(bin_dir, agent)
    key = key_var or adapter.key_var
    env = {"STANDIN_MODE": mode, "STANDIN_PIDS": str(tmp / "pids"),
           "STANDIN_KEY_VAR": key or ""}
    command = f"{script} {{instruction_file}} {{workspace}} {{usage_file}}" \
        if agent == "command" else None
    config = AgentConfig(model=model, env=env, command=command,
                         key_var=key_var)
    case = first_case(dataset)
    report = run_agents(dataset, tmp / "preds.jsonl", agent=agent, config=config,
                        setting=setting, timeout=timeout, instances=[case["instance_id"]],
                        source_env=environment(bin_dir, key), **options)
    rows = [json.loads(line) for line in (tmp / "preds.jsonl").read_text().splitlines()]
    assert len(rows) == 1, rows
    return report, rows[0]
