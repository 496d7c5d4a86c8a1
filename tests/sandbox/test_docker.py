"""The Docker runner on a locally built image: same results as locally, no network, time-outs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from smellkit.config import RepoSpec, load_repo_spec
from smellkit.sandbox.checkout import copy_tree, fetch
from smellkit.sandbox.docker import DockerRunner, docker_available
from smellkit.sandbox.environment import Environment, imported_from
from smellkit.sandbox.image import build_python_image
from smellkit.sandbox.runner import Runner
from smellkit.sandbox.testmap import build_test_map
from smellkit.sandbox.testrun import run_tests
from tests.sandbox.conftest import prepare_or_skip, sandbox_cache

pytestmark = pytest.mark.docker
TAG = "smellkit-python:sandbox-tests"


@pytest.fixture(scope="module")
def image() -> str:
    reason = docker_available()
    if reason is not None:
        pytest.skip(f"Docker is not usable here: {reason}")
    return build_python_image(TAG)


@pytest.fixture(scope="module")
def runner(image: str) -> DockerRunner:
    return DockerRunner(TAG, cpus=1.0, memory="1g")


def test_runner_protocol_output_and_files_in_the_mounted_copy(runner: DockerRunner,
                                                              tmp_path: Path) -> None:
    assert isinstance(runner, Runner)
    result = runner.run("echo out; echo err >&2; echo made > made.txt; exit 3", cwd=tmp_path,
                        env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert (result.returncode, result.stdout.strip(), result.stderr.strip()) == (3, "out", "err")
    made = tmp_path / "made.txt"
    assert made.read_text().strip() == "made" and made.stat().st_uid == os.getuid()


def test_no_network_inside(runner: DockerRunner, tmp_path: Path) -> None:
    script = ("import os, socket\nprint(sorted(os.listdir('/sys/class/net')))\n"
              "try:\n    socket.create_connection(('1.1.1.1', 443), timeout=5)\n"
              "    print('connected')\nexcept OSError as error:\n    print('refused', error)\n")
    result = runner.run(["python3", "-c", script], cwd=tmp_path, env={}, timeout=60)
    assert result.ok, result.describe()
    interfaces, outcome = result.stdout.splitlines()
    assert interfaces == "['lo']" and outcome.startswith("refused")


def test_timeout_kills_the_container(runner: DockerRunner, tmp_path: Path) -> None:
    started = time.monotonic()
    result = runner.run("sleep 300", cwd=tmp_path, env={}, timeout=3)
    assert result.timed_out and not result.ok
    assert time.monotonic() - started < 60


def test_tiny_repo_tests_run_in_the_container(runner: DockerRunner, tiny_spec: RepoSpec,
                                              tiny_env: Environment, tiny_checkout: Path,
                                              tmp_path: Path) -> None:
    copy = copy_tree(tiny_checkout, tmp_path / "case")
    assert imported_from(tiny_env, copy, "tinypkg", runner) == copy / "src/tinypkg/__init__.py"
    ids = ["tests/test_shapes.py::test_square_area", "tests/test_util.py::test_broken_sum_fails",
           "tests/test_util.py::test_hangs"]
    run = run_tests(tiny_env, copy, tiny_spec, ids, runner)
    assert run.passed == (ids[0],) and run.failed == (ids[1],) and run.hung == (ids[2],)
    assert not list(copy.glob(".smellkit-run-*"))


@pytest.mark.slow
def test_selected_click_tests_pass_in_the_container(runner: DockerRunner, tmp_path: Path) -> None:
    from tests.sandbox.test_click import EXAMPLE, SUBSET

    spec = load_repo_spec(EXAMPLE).model_copy(
        update={"test_command": f"python -m pytest {SUBSET}"})
    try:
        checkout = fetch(spec, sandbox_cache())
    except Exception as error:
        pytest.skip(f"cannot fetch click==8.1.7 from PyPI: {error}")
    env = prepare_or_skip(spec, checkout, sandbox_cache())
    selected = build_test_map(spec, env, checkout).select(["click.core.Command.main"])
    assert len(selected) == 10
    copy = copy_tree(checkout, tmp_path / "case")
    run = run_tests(env, copy, spec, selected, runner)
    assert run.ok and run.passed == selected, run.output


def test_test_map_built_in_the_container_matches_the_local_one(
        runner: DockerRunner, tiny_spec: RepoSpec, tiny_env: Environment, tiny_checkout: Path,
        tmp_path: Path) -> None:
    inside = build_test_map(tiny_spec, tiny_env, tiny_checkout, runner,
                            cache_dir=tmp_path / "docker", use_cache=False)
    local = build_test_map(tiny_spec, tiny_env, tiny_checkout, cache_dir=tmp_path / "local",
                           use_cache=False)
    assert inside.tests == local.tests and inside.by_qualname == local.by_qualname
    assert set(inside.dropped) == set(local.dropped)
