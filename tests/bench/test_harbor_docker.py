"""The Harbor verifier on one exported click task, in containers, phase by phase as Harbor runs
them (no Harbor, no registry: the base image is built from Debian packages like the Docker
runner's, and the task image from the exported environment/ on top of it).

For each agent a container of the task image is started with no network and kept alive the way
Harbor's docker environment does (`sh -c "sleep infinity"`, whose sleep test.sh must not end:
that ends the container); the agent phase is
played with `docker exec` (the oracle runs /solution/solve.sh, as Harbor uploads solution/ for
it; the noop does nothing; the tamperer applies the solution, adds a conftest.py forcing every
test to pass and writes a reward.json of 1.0 into /logs/verifier; three more apply the solution
and edit a file of the installed scorer, add a .pth file to the project's environment, or undo
their work and leave a process writing a reward of 1.0 in a loop); then tests/ is copied to
/tests and /tests/test.sh runs. The three prediction.patch files are finally re-scored with
`smellkit evaluate --harbor-jobs`, which must agree. tests/bench/test_harbor_real.py runs the
oracle and nop agents under Harbor itself.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.formats.harbor import ERROR_CODES
from tests.bench.click_one import click_one

pytestmark = [pytest.mark.slow, pytest.mark.docker]

FORCE_PASS = '''\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
'''
TIMES: dict[str, float] = {}


def _tar(folder: Path, name: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add(folder, arcname=name)
    return buffer.getvalue()


def _folder_key(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(path.relative_to(folder).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="module")
def client() -> Any:
    from smellkit.sandbox.docker import docker_available, docker_client

    reason = docker_available()
    if reason is not None:
        pytest.skip(f"Docker is not usable here: {reason}")
    return docker_client()


@pytest.fixture(scope="module")
def exported(client: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """(the build's output folder, the exported task, the task image's tag)."""
    from smellkit.bench.harbor import HarborExport, HarborOptions
    from tests.support.pypi import data_dir

    one = click_one(TIMES)
    started = time.perf_counter()
    exporter = HarborExport(HarborOptions(base_image=one.base_image,
                                          allow_hosts=("api.example.com",)),
                            data_dir() / "harbor")
    task = exporter.write_task(one.case, one.spec, one.checkout,
                               tmp_path_factory.mktemp("harbor"))
    TIMES["export (wheels cached after the first run)"] = time.perf_counter() - started
    config = (task / "task.toml").read_text()
    assert "system_pinned = true" in config and 'allowed_hosts = ["api.example.com"]' in config

    started = time.perf_counter()
    tag = f"smellkit-harbor-task:{_folder_key(task / 'environment')}"
    try:
        client.images.get(tag)
    except Exception:  # docker.errors.ImageNotFound: build it (pip reaches PyPI for click's own
        client.images.build(path=str(task / "environment"), tag=tag, rm=True, forcerm=True)
    TIMES["task image (built or found)"] = time.perf_counter() - started
    return one.out, task, tag


def _play(client: Any, task: Path, tag: str, agent: str) -> tuple[dict[str, Any], str, str]:
    """One trial: start, agent phase, /tests copied in, test.sh; reward, verdict, patch."""
    # kept alive as Harbor's docker environment does (`sh -c "sleep infinity"`: the sleep is a
    # child of the container's first process, and ending it ends the container)
    container = client.containers.run(tag, ["sh", "-c", "sleep infinity"], detach=True,
                                      network_mode="none")
    try:
        def run(command: str) -> str:
            code, output = container.exec_run(["bash", "-c", command])
            assert code == 0, output.decode()
            return str(output.decode())

        run("mkdir -p /logs/verifier /logs/agent")
        if agent != "noop":
            container.put_archive("/", _tar(task / "solution", "solution"))
            run("bash /solution/solve.sh")
        if agent == "tamper":
            container.put_archive("/app", _tar_text("conftest.py", FORCE_PASS))
            run("""echo '{"reward": 1.0, "resolved": 1}' > /logs/verifier/reward.json""")
        elif agent == "scorer-edit":
            run("echo 'RESOLVED = True' >> /opt/smellkit-verifier/lib/smellkit/evaluate/score.py")
        elif agent == "env-pth":
            run("echo 'import os' > /opt/project-env/lib/python3.11/site-packages/pass.pth")
        elif agent == "lingering":  # keeps writing a reward of 1.0, from before /tests arrives
            run("git -C /app stash -q")  # and changes nothing itself
            container.exec_run(["bash", "-c", "while :; do echo '{\"reward\": 1.0}' > "
                                "/logs/verifier/reward.json; sleep 0.05; done"], detach=True)
            time.sleep(1)
        container.put_archive("/", _tar(task / "tests", "tests"))
        started = time.perf_counter()
        run("bash /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1")
        TIMES[f"verify: {agent}"] = time.perf_counter() - started
        time.sleep(1 if agent == "lingering" else 0)
        reward = json.loads(run("cat /logs/verifier/reward.json"))
        verdict = run("cat /logs/verifier/verdict.txt")
        patch = run("cat /logs/verifier/prediction.patch 2>/dev/null || true")
        return reward, verdict, patch
    finally:
        container.remove(force=True)


def _tar_text(name: str, text: str) -> bytes:
    buffer = io.BytesIO()
    data = text.encode()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _job(root: Path, trials: dict[str, str], instance_id: str) -> Path:
    """A Harbor jobs folder holding the trials' prediction.patch files."""
    job = root / "jobs" / "2026-11-27__00-00-00"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"job_name": job.name}))
    (job / "result.json").write_text(json.dumps({"id": "x"}))
    for agent, patch in trials.items():
        trial = job / f"{instance_id}__{agent}"
        (trial / "verifier").mkdir(parents=True)
        (trial / "config.json").write_text(json.dumps({
            "task": {"path": f"/tasks/{instance_id}"}, "trial_name": trial.name,
            "agent": {"name": agent, "model_name": None}}))
        (trial / "result.json").write_text(json.dumps({
            "task_name": f"smellkit/{instance_id}", "trial_name": trial.name,
            "agent_info": {"name": agent, "version": "1", "model_info": None}}))
        (trial / "verifier" / "prediction.patch").write_text(patch)
    return root / "jobs"


def test_oracle_noop_and_tamper_in_containers(
        client: Any, exported: tuple[Path, Path, str], tmp_path: Path,
        terminal_report: Callable[[str, list[str]], None]) -> None:
    from smellkit.evaluate.scorer import evaluate

    out, task, tag = exported
    agents = ("oracle", "noop", "tamper", "scorer-edit", "env-pth", "lingering")
    results = {agent: _play(client, task, tag, agent) for agent in agents}
    lines = [f"{name}: {seconds:.1f}s" for name, seconds in TIMES.items()]
    for agent, (reward, verdict, _) in results.items():
        lines.append(f"{agent}: reward {reward['reward']}, error_category "
                     f"{reward['error_category']}; {verdict.splitlines()[0]}")
    terminal_report("Harbor verifier on one click task in containers", lines)

    oracle, noop, tamper = (results[agent][0] for agent in ("oracle", "noop", "tamper"))
    assert oracle["reward"] == 1.0 and oracle["error_category"] == ERROR_CODES["resolved"], \
        results["oracle"][1]
    assert oracle["tests_passed"] == oracle["tests_total"] > 0 and oracle["la"] == 1.0
    assert noop["reward"] == 0.0 and noop["error_category"] == ERROR_CODES["no_patch"]
    assert tamper["reward"] == 0.0 and tamper["error_category"] == ERROR_CODES["tampered"]
    assert results["tamper"][1].startswith(
        "reward 0.0: tampered: conftest.py: test machinery (conftest.py)")
    for agent in ("oracle", "noop", "tamper"):
        reward = results[agent][0]
        assert reward["tampered_scorer"] == 0 and reward["tampered_environment"] == 0
    for reward, _, _ in results.values():
        assert all(type(value) in (int, float) for value in reward.values())
    edited, verdict, _ = results["scorer-edit"]
    assert edited == {"reward": 0.0, "error_category": ERROR_CODES["tampered_scorer"],
                      "tampered_scorer": 1, "tampered_environment": 0}
    assert "/opt/smellkit-verifier/lib/smellkit/evaluate/score.py: FAILED" in verdict
    planted, verdict, _ = results["env-pth"]
    assert planted["tampered_environment"] == 1 and planted["reward"] == 0.0
    assert "site-packages/pass.pth: added" in verdict
    lingering, verdict, _ = results["lingering"]
    assert lingering["reward"] == 0.0 and lingering["error_category"] == ERROR_CODES["no_patch"]

    instance_id = json.loads((task / "tests" / "case.json").read_text())["case"]["id"]
    instance_id = f"click__{instance_id}"
    jobs = _job(tmp_path, {agent: results[agent][2] for agent in ("oracle", "noop", "tamper")},
                instance_id)
    report = evaluate(out, (), tmp_path / "scores", harbor_jobs=jobs, jobs=2)
    assert report.exit_code == 0 and report.scored == 3, report
    rows = {row["model"].split(":")[0]: row for row in read_jsonl(tmp_path / "scores" /
                                                                   "scores.jsonl")}
    assert rows["oracle"]["error_category"] == "resolved"
    assert rows["noop"]["error_category"] == "no_patch"
    assert rows["tamper"]["error_category"] == "tampered"
