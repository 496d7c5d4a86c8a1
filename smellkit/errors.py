"""One exception root for everything smellkit raises on purpose.

Each subclass carries structured fields (the path, the field, the fix) so the CLI can print a
message a user can act on and map the domain to an exit code.
"""

from __future__ import annotations

from pathlib import Path


class SmellkitError(Exception):
    """Root of every error smellkit raises deliberately."""

    exit_code = 1

    def __init__(self, message: str, *, path: Path | str | None = None, hint: str | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"{self.path}: {self.message}" if self.path else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


class UsageError(SmellkitError):
    """The command line or API call itself is wrong."""

    exit_code = 2


class ProjectError(SmellkitError):
    """The path to analyse cannot be analysed at all (missing, not a folder, nothing to read)."""

    exit_code = 3


class ConfigError(SmellkitError):
    """A `[tool.smellkit]` table or another configuration value is invalid."""

    exit_code = 4

    def __init__(
        self, message: str, *, path: Path | str | None = None, field: str | None = None,
        hint: str | None = None,
    ):
        self.field = field
        if field:
            message = f"{field}: {message}"
        super().__init__(message, path=path, hint=hint)


class PatchError(SmellkitError):
    """A patch is malformed, escapes the repository, or does not apply."""

    exit_code = 5


class InjectionRefused(SmellkitError):
    """An injector, or a part of one, declines a candidate at a difficulty; the message is the
    reason. The only way to refuse: the engine turns it into an `InjectionSkip` and tries the
    next candidate, while any other exception is a bug it reports as a failure."""
