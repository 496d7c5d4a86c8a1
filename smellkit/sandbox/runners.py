"""A runner by name, shared by the build and by scoring, so cases are validated and predictions
scored in the same kind of sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from smellkit.errors import UsageError
from smellkit.sandbox.runner import LocalRunner, Runner

RunnerName = Literal["local", "docker"]
RUNNERS: tuple[str, ...] = get_args(RunnerName)


def make_runner(name: str, work_dir: Path) -> Runner:
    """`local`, or `docker`: tests run in containers without network, of an image assembled
    locally once under `work_dir` (no registry needed) and reused."""
    if name == "local":
        return LocalRunner()
    if name not in RUNNERS:
        raise UsageError(f"unknown runner {name!r}", hint=f"use one of {', '.join(RUNNERS)}")
    from smellkit.sandbox.docker import DockerRunner, docker_available
    from smellkit.sandbox.errors import SandboxError
    from smellkit.sandbox.image import DEFAULT_TAG, build_python_image

    problem = docker_available()
    if problem is not None:
        raise SandboxError(f"the docker runner cannot be used: {problem}",
                           hint="start the docker daemon (.ci/docker-setup), or use the local "
                                "runner")
    build_python_image(DEFAULT_TAG, work_dir=work_dir)
    return DockerRunner(DEFAULT_TAG)
