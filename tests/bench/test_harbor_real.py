"""One exported click task under Harbor itself (`harbor==0.26.0` from PyPI, in its own
virtualenv): `harbor run -p OUT/harbor -a oracle|nop -e docker`, then `smellkit evaluate
--harbor-jobs` on the jobs Harbor wrote.

No registry is reachable here, so the task's base image is built from Debian packages
(tests/bench/click_one.py) and the task is exported with `--network public`: Harbor's docker
environment enforces `no-network` and allowlists with a sidecar it builds from a Docker Hub
image, after probing the kernel with another one, and refuses the task when it cannot (see the
README). Harbor runs `docker compose`; where Docker has no Compose v2, `tests.support.harbor`
provides it from PyPI.

The oracle agent runs the task's solution/solve.sh: its reward must be 1.0, and its
prediction.patch must turn the smelly code back into the original exactly (the export's solution
is the ground truth). The nop agent changes nothing: reward 0.0, `no_patch`. The times of each
step are printed at the end of the session. A second test runs the task as exported by default
(no network): it runs where Docker Hub is reachable, and is refused here, a refusal `smellkit
evaluate --harbor-jobs` must report.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.formats.harbor import ERROR_CODES
from smellkit.injectors.patches import apply_patch
from tests.bench.click_one import ClickOne, click_one

pytestmark = [pytest.mark.slow, pytest.mark.docker]

ROOT = Path(__file__).parents[2]
TIMES: dict[str, float] = {}
AGENTS = ("oracle", "nop")


@pytest.fixture(scope="module")
def harbor() -> tuple[Path, dict[str, str]]:
    """Harbor's virtualenv and the environment to run it in (Docker usable, Compose v2)."""
    from smellkit.sandbox.docker import docker_available
    from tests.support.harbor import docker_env, harbor_venv

    reason = docker_available()
    if reason is not None:
        pytest.skip(f"Docker is not usable here: {reason}")
    started = time.perf_counter()
    venv = harbor_venv()
    env = docker_env(venv)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # Harbor's LiteLLM: no fetch of a price list
    env["HARBOR_TELEMETRY"] = "0"  # Harbor 0.26 reports usage to PostHog unless told not to
    TIMES["Harbor's virtualenv and Compose v2 (made or found)"] = time.perf_counter() - started
    return venv, env


def _run_harbor(venv: Path, env: dict[str, str], tasks: Path, jobs: Path, agent: str, *,
                check: bool = True) -> tuple[Path, int, str]:
    """`harbor run` of every task in `tasks` with `agent`: its job folder, exit code, output."""
    log = jobs.parent / f"harbor-{jobs.name}-{agent}.log"
    started = time.perf_counter()
    with open(log, "w") as output:
        done = subprocess.run(
            [str(venv / "bin" / "harbor"), "run", "-p", str(tasks), "-a", agent, "-e", "docker",
             "-n", "1", "-o", str(jobs), "--job-name", agent, "--yes"],
            stdout=output, stderr=subprocess.STDOUT, env=env, timeout=1800)
    TIMES[f"harbor run -a {agent} ({jobs.name})"] = time.perf_counter() - started
    text = log.read_text()
    assert done.returncode == 0 or not check, text[-3000:]
    return jobs / agent, done.returncode, text


def _trial(job: Path) -> tuple[Path, dict[str, Any]]:
    (trial,) = [path.parent for path in job.glob("*/result.json")]
    return trial, json.loads((trial / "result.json").read_text())


def _phases(result: dict[str, Any]) -> str:
    """The trial's phases and their seconds, as Harbor timed them."""
    from datetime import datetime

    times = []
    for phase in ("environment_setup", "agent_setup", "agent_execution", "verifier"):
        span = result.get(phase) or {}
        seconds = (datetime.fromisoformat(span["finished_at"])
                   - datetime.fromisoformat(span["started_at"])).total_seconds()
        times.append(f"{phase} {seconds:.1f}s")
    return ", ".join(times)


def _assert_restores_the_original(one: ClickOne, patch: str, scratch: Path) -> None:
    """The smelly tree plus the oracle's change is the original code, file for file."""
    smelly = scratch / "smelly"
    source = one.spec.source_path.strip("/")
    shutil.copytree(one.checkout / source, smelly / source)
    apply_patch(smelly / source, one.case.smelly_patch)
    assert patch.strip(), "the oracle changed nothing"
    apply_patch(smelly, patch)
    for path in one.case.files:
        original = (one.checkout / source / path).read_bytes()
        assert (smelly / source / path).read_bytes() == original, path


def test_oracle_and_nop_under_real_harbor(
        harbor: tuple[Path, dict[str, str]], tmp_path: Path,
        terminal_report: Callable[[str, list[str]], None]) -> None:
    from smellkit.bench.harbor import HarborExport, HarborOptions
    from tests.support.pypi import data_dir

    venv, env = harbor
    one = click_one(TIMES)
    started = time.perf_counter()
    exporter = HarborExport(HarborOptions(base_image=one.base_image, network="public"),
                            data_dir() / "harbor")
    tasks = tmp_path / "out" / "harbor"
    task = exporter.write_task(one.case, one.spec, one.checkout, tasks)
    TIMES["export"] = time.perf_counter() - started

    jobs = tmp_path / "jobs"
    results = {}
    phases: dict[str, str] = {}
    for agent in AGENTS:
        trial, result = _trial(_run_harbor(venv, env, tasks, jobs, agent)[0])
        assert result["exception_info"] is None, result["exception_info"]
        assert result["task_name"] == f"smellkit/{task.name}"
        assert result["agent_info"]["name"] == agent
        # oracle and nop use no model: Harbor records the usage fields, all null
        assert set(result["agent_result"]) >= {"n_input_tokens", "n_cache_tokens",
                                               "n_output_tokens", "cost_usd"}
        assert result["agent_result"]["n_input_tokens"] is None
        rewards = result["verifier_result"]["rewards"]
        written = json.loads((trial / "verifier" / "reward.json").read_text())
        assert rewards == written and next(iter(written)) == "reward"
        results[agent] = (trial, rewards)
        phases[agent] = _phases(result)

    oracle_trial, oracle = results["oracle"]
    nop_trial, nop = results["nop"]
    verdicts = {agent: (trial / "verifier" / "verdict.txt").read_text().splitlines()[0]
                for agent, (trial, _) in results.items()}
    assert oracle["reward"] == 1.0 and oracle["error_category"] == ERROR_CODES["resolved"], \
        verdicts["oracle"]
    assert oracle["tests_passed"] == oracle["tests_total"] > 0 and oracle["la"] == 1.0
    assert oracle["tampered_scorer"] == 0 and oracle["tampered_environment"] == 0
    assert nop["reward"] == 0.0 and nop["error_category"] == ERROR_CODES["no_patch"], \
        verdicts["nop"]
    assert (nop_trial / "verifier" / "prediction.patch").read_text() == ""
    _assert_restores_the_original(
        one, (oracle_trial / "verifier" / "prediction.patch").read_text(), tmp_path)

    started = time.perf_counter()
    scores = tmp_path / "scores"
    done = subprocess.run(
        [sys.executable, "-m", "smellkit", "evaluate", str(one.out), "--harbor-jobs", str(jobs),
         "-o", str(scores), "--no-progress"], capture_output=True, text=True, timeout=1800,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    TIMES["smellkit evaluate --harbor-jobs"] = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row["model"]: row for row in read_jsonl(scores / "scores.jsonl")}
    assert set(rows) == set(AGENTS)
    assert rows["oracle"]["resolved"] and rows["oracle"]["error_category"] == "resolved"
    assert rows["nop"]["error_category"] == "no_patch"
    for agent, row in rows.items():  # the run's facts, as far as Harbor recorded them
        assert row["agent"] == agent and row["exit_reason"] is None and row["usage"] == {}
        assert row["duration_s"] is not None and row["duration_s"] >= 0
    assert not (scores / "input_errors.jsonl").read_text().strip()

    terminal_report("One click task under Harbor 0.26 (docker environment)", [
        *(f"{name}: {seconds:.1f}s" for name, seconds in TIMES.items()),
        *(f"{agent}: reward {rewards['reward']}; {verdicts[agent]}; {phases[agent]}"
          for agent, (_, rewards) in results.items())])


def test_a_closed_task_runs_or_is_refused_and_the_refusal_is_reported(
        harbor: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """The task as exported by default (no network for the agent and the verifier). Harbor's
    docker environment enforces that with images from Docker Hub: where it can reach them the
    oracle scores 1.0; where it cannot, Harbor refuses the task before running it, and
    `smellkit evaluate --harbor-jobs` lists the trial it never started."""
    from smellkit.bench.harbor import HarborExport, HarborOptions
    from smellkit.evaluate.inputs import predictions_from_harbor_jobs
    from tests.support.pypi import data_dir

    venv, env = harbor
    one = click_one(TIMES)
    exporter = HarborExport(HarborOptions(base_image=one.base_image), data_dir() / "harbor")
    tasks = tmp_path / "out" / "harbor"
    exporter.write_task(one.case, one.spec, one.checkout, tasks)
    job, code, output = _run_harbor(venv, env, tasks, tmp_path / "closed", "oracle", check=False)
    read = predictions_from_harbor_jobs(tmp_path / "closed")
    if code == 0:  # Docker Hub reachable: the network sidecar was built
        (prediction,) = read.predictions
        assert prediction.patch.strip() and not read.errors
        _, result = _trial(job)
        assert result["verifier_result"]["rewards"]["reward"] == 1.0
        return
    flat = "".join(output.replace("│", " ").split())  # Harbor's boxed, wrapped traceback
    assert "network_mode='no-network'isnotsupported" in flat, output
    assert not read.predictions
    (error,) = read.errors
    assert "never started" in str(error) and one.case.instance_id in str(error)
