"""Harbor task directories: the layout, hidden tests, and the scripts run outside a container
(verifier and solution on a copy of the calc fixture, as the image would hold it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smellkit.bench.harbor import dockerfile, write_task
from smellkit.config import RepoSpec, load_repo_spec, tomllib
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.models import Case
from tests.bench import fakes

FIXTURES = fakes.FIXTURES


def _case(injection_name: str = "mul") -> Case:
    return Case(**dict(fakes.harmless("feature_envy", "easy", injection_name)), repo="calc",
                revision="local", source_path="src",
                tests=("tests/test_ops.py::test_add", "tests/test_ops.py::test_mul"))


def _spec() -> RepoSpec:
    return load_repo_spec(FIXTURES / "calc.toml")


def test_layout_and_task_toml(tmp_path: Path) -> None:
    spec = _spec()
    task = write_task(_case(), spec, FIXTURES / "calcrepo", tmp_path)
    assert task.name == "calc__feature_envy-easy-mul"
    config = tomllib.loads((task / "task.toml").read_text())
    assert config["task"]["name"] == "smellkit/calc__feature_envy-easy-mul"
    assert config["metadata"]["smellbench_type"] == "feature_envy"
    assert config["metadata"]["targets"] == ["calc.ops.mul"]
    assert config["verifier"]["timeout_sec"] > spec.timeouts.test
    assert "calc.ops.mul" not in (task / "instruction.md").read_text()  # guided, not targeted
    assert "calc/ops.py" in (task / "instruction.md").read_text()
    names = {path.relative_to(task).as_posix() for path in task.rglob("*") if path.is_file()}
    assert {"task.toml", "instruction.md", "environment/Dockerfile", "environment/smelly.patch",
            "tests/test.sh", "tests/selected.txt", "tests/reward.py",
            "tests/tests/test_ops.py", "solution/solve.sh",
            "solution/ground_truth.patch"} <= names
    assert not [name for name in names if name.startswith("environment/") and "test" in name]
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]


def test_an_existing_task_is_kept(tmp_path: Path) -> None:
    task = write_task(_case(), _spec(), FIXTURES / "calcrepo", tmp_path)
    (task / "marker").write_text("kept")
    assert (write_task(_case(), _spec(), FIXTURES / "calcrepo", tmp_path) / "marker").exists()


def test_pypi_dockerfile_fetches_patches_and_drops_tests_in_one_layer() -> None:
    spec = RepoSpec.model_validate({"name": "click", "source": {"pypi": "click==8.1.7"},
                                    "source-path": "src", "python": "3.12",
                                    "install": ["pip install -e ."]})
    text = dockerfile(_case(), spec)
    assert text.startswith("FROM python:3.12-slim\n")
    (fetch,) = [line for line in text.splitlines() if "pip download" in line]
    assert "click==8.1.7" in fetch and "git apply --directory=src" in fetch
    assert fetch.endswith("rm -rf /app/tests")
    assert "RUN cd /app && pip install -e ." in text
    assert text.index("rm -rf /app/tests") < text.index("pip install -e .")


def _venv_bin() -> Path:
    """An interpreter with pytest for running the scripts (the one running these tests)."""
    return Path(sys.executable).parent


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to apply patches")
def test_scripts_score_the_smelly_and_solved_code(tmp_path: Path) -> None:
    case = _case()
    task = write_task(case, _spec(), FIXTURES / "calcrepo", tmp_path / "harbor")
    app = tmp_path / "app"  # what the image holds: the smelly code, no tests
    shutil.copytree(task / "environment" / "repo", app)
    apply_patch(app / "src", case.smelly_patch)
    assert not (app / "tests").exists()
    env = {**os.environ, "APP_DIR": str(app), "TESTS_DIR": str(task / "tests"),
           "LOGS_DIR": str(tmp_path / "logs"), "SOLUTION_DIR": str(task / "solution"),
           "PYTHONPATH": str(app / "src"),
           "PATH": f"{_venv_bin()}{os.pathsep}{os.environ['PATH']}"}
    reward = tmp_path / "logs" / "verifier" / "reward.json"

    subprocess.run(["bash", str(task / "tests" / "test.sh")], env=env, check=True)
    assert json.loads(reward.read_text()) == {"reward": 1.0, "tests_passed": 2, "tests_total": 2}

    subprocess.run(["bash", str(task / "solution" / "solve.sh")], env=env, check=True)
    assert (app / "src" / "calc" / "ops.py").read_text() == fakes.ORIGINAL
    subprocess.run(["bash", str(task / "tests" / "test.sh")], env=env, check=True)
    assert json.loads(reward.read_text())["reward"] == 1.0

    ops = app / "src" / "calc" / "ops.py"  # a refactoring that breaks behaviour scores 0
    ops.write_text(ops.read_text().replace("a * b", "a ** b"))
    subprocess.run(["bash", str(task / "tests" / "test.sh")], env=env, check=True)
    assert json.loads(reward.read_text()) == {"reward": 0.0, "tests_passed": 1, "tests_total": 2}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to apply patches")
def test_the_verifier_saves_the_agents_change_as_a_patch(tmp_path: Path) -> None:
    case = _case()
    task = write_task(case, _spec(), FIXTURES / "calcrepo", tmp_path / "harbor")
    app = tmp_path / "app"
    shutil.copytree(task / "environment" / "repo", app)
    apply_patch(app / "src", case.smelly_patch)
    (commit,) = [line.removeprefix("RUN ") for line in
                 (task / "environment" / "Dockerfile").read_text().splitlines()
                 if line.startswith("RUN git init")]
    git = {**os.environ, "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["bash", "-c", commit], cwd=app, check=True, env=git)
    smelly = (app / "src" / "calc" / "ops.py").read_text()
    ops = app / "src" / "calc" / "ops.py"  # the agent commits one change, leaves another
    ops.write_text(ops.read_text().replace("a * b", "b * a"))
    subprocess.run(["git", "commit", "-qam", "mine"], cwd=app, check=True, env=git)
    (app / "src" / "calc" / "extra.py").write_text("X = 1\n")
    (app / "src" / "calc" / "__pycache__").mkdir()
    (app / "src" / "calc" / "__pycache__" / "ops.cpython-311.pyc").write_bytes(b"\0\1")
    env = {**os.environ, "APP_DIR": str(app), "TESTS_DIR": str(task / "tests"),
           "LOGS_DIR": str(tmp_path / "logs"), "PYTHONPATH": str(app / "src"),
           "PATH": f"{_venv_bin()}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", str(task / "tests" / "test.sh")], env=env, check=True)
    patch = (tmp_path / "logs" / "verifier" / "prediction.patch").read_text()
    assert sorted(patched_paths(patch)) == [
        "src/calc/extra.py", "src/calc/ops.py"]
    fresh = tmp_path / "fresh"
    shutil.copytree(task / "environment" / "repo", fresh)
    apply_patch(fresh / "src", case.smelly_patch)
    assert (fresh / "src" / "calc" / "ops.py").read_text() == smelly
    apply_patch(fresh, patch)
    assert (fresh / "src" / "calc" / "ops.py").read_text() == ops.read_text()
