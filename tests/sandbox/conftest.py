"""Shared pieces of the sandbox tests: the `docker` marker, the tiny fixture repository and its
environment (built once per session, cached across sessions under the test-data folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smellkit.config import RepoSpec, load_repo_spec
from smellkit.sandbox.checkout import fetch
from smellkit.sandbox.environment import Environment, prepare
from smellkit.sandbox.errors import SandboxError

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"

collect_ignore_glob = ["fixtures/*"]  # the fixture repositories' own tests are data here


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "docker: needs a working Docker daemon (`.ci/docker-setup`); skipped with "
        "the reason when there is none")


def sandbox_cache() -> Path:
    """Environments and fetched sources shared by test sessions and xdist workers (locked)."""
    from tests.support.pypi import data_dir

    folder = data_dir() / "sandbox"
    folder.mkdir(exist_ok=True)
    return folder


def prepare_or_skip(spec: RepoSpec, checkout: Path, cache: Path) -> Environment:
    """The environment; a test is skipped (with the reason) only when PyPI is unreachable."""
    try:
        return prepare(spec, checkout, cache)
    except SandboxError as error:
        text = str(error).lower()
        offline = ("connection" in text or "network" in text or "temporary failure" in text
                   or "no matching distribution" in text)
        if offline:
            pytest.skip(f"cannot install from PyPI: {error}")
        raise


@pytest.fixture(scope="session")
def tiny_spec() -> RepoSpec:
    return load_repo_spec(FIXTURES / "tiny.toml")


@pytest.fixture(scope="session")
def tiny_checkout(tiny_spec: RepoSpec) -> Path:
    return fetch(tiny_spec, sandbox_cache())


@pytest.fixture(scope="session")
def tiny_env(tiny_spec: RepoSpec, tiny_checkout: Path) -> Environment:
    return prepare_or_skip(tiny_spec, tiny_checkout, sandbox_cache())
