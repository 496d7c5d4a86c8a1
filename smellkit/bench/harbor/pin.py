"""Pinning the base image at export: the interpreter, its standard library, the tools and the
shared libraries the verifier runs, hashed in a throwaway container of the base image (no
network, removed afterwards) by the same `_record.py` the image build runs.

Only possible when Docker is usable here and the base image is present locally (it is never
pulled). Then those hashes go into the manifest that arrives with /tests, and the image build
re-checks them (`record.py --expect`), failing if the base has changed since the export. Without
it, the interpreter and tools are covered only by the record made at image build, inside the
image; `task.toml` says which (`[metadata] system_pinned`).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RECORD_SCRIPT = Path(__file__).with_name("_record.py")


@dataclass(frozen=True)
class BasePin:
    """What the exporter learnt about a base image."""

    image: str
    python: str | None = None
    """The interpreter's version (`3.11`), when it could be run."""
    record: dict[str, Any] = field(default_factory=dict)
    """`_record.py --system --json` of the base image (empty when not pinned)."""
    reason: str = ""
    """Why the base is not pinned (Docker unusable, the image absent)."""

    @property
    def pinned(self) -> bool:
        return bool(self.record)


def inspect_base(image: str) -> BasePin:
    """Run the recorder in `image`; a BasePin without a record (and the reason) when Docker or
    the image is not there. Never pulls."""
    from smellkit.sandbox.docker import docker_client
    from smellkit.sandbox.errors import SandboxError

    try:
        client = docker_client()
    except SandboxError as error:
        return BasePin(image=image, reason=str(error))
    try:
        client.images.get(image)
    except Exception:  # docker.errors.ImageNotFound, or an unparsable name
        return BasePin(image=image, reason=f"the base image {image} is not present locally "
                                           "(the exporter never pulls)")
    source = RECORD_SCRIPT.read_text(encoding="utf-8")
    container = None
    try:
        container = client.containers.create(
            image, ["python3", "-I", "-S", "-B", "-c", source, "--system", "--json"],
            entrypoint=[], network_mode="none", user="0", detach=True)
        container.start()
        status = container.wait(timeout=600)
        output = container.logs(stdout=True, stderr=False).decode("utf-8", "replace")
        errors = container.logs(stdout=False, stderr=True).decode("utf-8", "replace")
        if int(status.get("StatusCode", -1)) != 0:
            return BasePin(image=image, reason=f"the recorder failed in {image}: "
                                               f"{errors.strip()[-400:]}")
        record = json.loads(output)
    except Exception as error:  # the SDK's errors, a bad reply
        return BasePin(image=image, reason=f"cannot inspect {image}: {error}")
    finally:
        if container is not None:
            with contextlib.suppress(Exception):
                container.remove(force=True)
    return BasePin(image=image, python=str(record.get("version") or "") or None, record=record)
