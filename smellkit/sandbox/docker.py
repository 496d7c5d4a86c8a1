"""The Docker runner: the same `Runner` protocol, each command in a fresh container.

The case copy (the command's cwd) is bind-mounted read-write at the same path, and the folders the
command reads (the virtualenv and the interpreter it links to; see `Environment.mounts`) read-only
at their own paths, so absolute paths in commands and environments mean the same inside. There is
no network (`network_mode="none"`) unless asked for, and CPU and memory are capped. The docker
SDK is the optional `docker` extra and is imported only when a container is run.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from smellkit.sandbox.errors import SandboxError
from smellkit.sandbox.runner import OUTPUT_LIMIT, RunResult

INSTALL_HINT = "install the extra: pip install 'smellkit[docker]'"


def docker_client() -> Any:
    """A connected docker SDK client, or SandboxError saying why there is none."""
    try:
        import docker
    except ImportError as error:
        raise SandboxError("the docker SDK is not installed", hint=INSTALL_HINT) from error
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as error:  # the SDK raises DockerException, requests and OS errors
        raise SandboxError(f"no usable Docker daemon: {error}",
                           hint="start dockerd (.ci/docker-setup does) or set DOCKER_HOST") \
            from error
    return client


def docker_available() -> str | None:
    """None when containers can be run here, else the reason they cannot."""
    try:
        docker_client()
    except SandboxError as error:
        return str(error)
    return None


class DockerRunner:
    """Runs commands in containers of `image` (see `image.build_python_image`)."""

    def __init__(self, image: str, cpus: float = 1.0, memory: str = "2g",
                 network: bool = False, user: str | None = None):
        self.image = image
        self.cpus = cpus
        self.memory = memory
        self.network = network
        self.user = user if user is not None else f"{os.getuid()}:{os.getgid()}"
        """Files the command writes into the mounted copy belong to the caller, not root."""
        self._client: Any = None

    def client(self) -> Any:
        if self._client is None:
            self._client = docker_client()
        return self._client

    def volumes(self, cwd: Path, mounts: Sequence[Path]) -> dict[str, dict[str, str]]:
        volumes = {str(cwd): {"bind": str(cwd), "mode": "rw"}}
        for mount in mounts:
            volumes.setdefault(str(mount), {"bind": str(mount), "mode": "ro"})
        return volumes

    def run(self, command: list[str] | str, *, cwd: Path, env: Mapping[str, str],
            timeout: float, mounts: Sequence[Path] = ()) -> RunResult:
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        cwd = Path(cwd).resolve()
        client = self.client()
        started = time.perf_counter()
        try:
            container = client.containers.create(
                self.image, argv, working_dir=str(cwd), environment=dict(env),
                volumes=self.volumes(cwd, [Path(m).resolve() for m in mounts]),
                network_mode="bridge" if self.network else "none",
                nano_cpus=int(self.cpus * 1e9), mem_limit=self.memory, user=self.user,
                detach=True)
        except Exception as error:
            raise SandboxError(f"cannot create a container of {self.image}: {error}",
                               hint="build the image first: smellkit.sandbox.image."
                               "build_python_image") from error
        timed_out = False
        returncode = -1
        try:
            container.start()
            try:
                status = container.wait(timeout=timeout)
                returncode = int(status.get("StatusCode", -1))
            except Exception:  # requests' ReadTimeout/ConnectionError: the limit was reached
                timed_out = True
                with contextlib.suppress(Exception):  # gone already; removed below
                    container.kill()
                    container.wait(timeout=30)
            stdout = container.logs(stdout=True, stderr=False).decode("utf-8", "replace")
            stderr = container.logs(stdout=False, stderr=True).decode("utf-8", "replace")
        finally:
            with contextlib.suppress(Exception):  # best effort: it no longer runs
                container.remove(force=True)
        return RunResult(command=command, returncode=returncode, stdout=stdout[-OUTPUT_LIMIT:],
                         stderr=stderr[-OUTPUT_LIMIT:], seconds=time.perf_counter() - started,
                         timed_out=timed_out)
