"""The sandbox's error: fetching, installing or running a target repository failed."""

from __future__ import annotations

from smellkit.errors import SmellkitError


class SandboxError(SmellkitError):
    """A target repository could not be fetched, installed, mapped or run; says which and why."""
