"""Options read from the `[tool.smellkit]` table of the analysed repository's pyproject.toml.

Keys are written in kebab-case in TOML (`include-tests`) and validated by pydantic, so a typo or a
wrong type is reported with the file and the field instead of being silently ignored.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from smellkit.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DEFAULT_EXCLUDE_DIRS = (
    ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", "env", ".env",
    "virtualenv", "build", "dist", "node_modules", "site-packages", ".eggs", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "vendor", "vendored", "_vendor", "third_party",
)
"""Folder names never analysed: version control, virtualenvs, build output, vendored code."""

TEST_DIRS = ("tests", "test", "testing")
"""Folder names holding tests, skipped unless tests are included."""


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class ProjectConfig(BaseModel):
    """What to analyse and how; every default works on an unconfigured repository."""

    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid",
                              frozen=True)

    source_roots: tuple[str, ...] = Field(
        default=(), description="Folders, relative to the project, that module names start from; "
        "found automatically (`src/`, the project folder) when empty.")
    exclude: tuple[str, ...] = Field(
        default=(), description="Extra glob patterns (relative POSIX paths) to leave out.")
    include_tests: bool = Field(
        default=False, description="Analyse test folders and test_*.py files too.")
    max_file_bytes: int = Field(
        default=10_000_000, gt=0, description="Files larger than this are skipped with a "
        "diagnostic (generated data, minified code).")
    jobs: int | None = Field(
        default=None, ge=1, description="Worker processes for parsing; all cores when unset.")
    inference_budget: int = Field(
        default=5000, ge=0, description="At most this many call receivers are sent to astroid "
        "inference per run when the index cannot resolve them.")
    detectors: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Options per detector: `[tool.smellkit.detectors.NAME]`.")

    def merged(self, **overrides: Any) -> ProjectConfig:
        """A copy with the given non-None values replacing the file's."""
        values = {key: value for key, value in overrides.items() if value is not None}
        return self.model_copy(update=values)


def load_config(project_root: Path) -> ProjectConfig:
    """The `[tool.smellkit]` table of `project_root/pyproject.toml`, or the defaults."""
    pyproject = project_root / "pyproject.toml"
    if not pyproject.is_file():
        return ProjectConfig()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read TOML: {error}", path=pyproject,
                          hint="fix the file or remove its [tool.smellkit] table") from error
    table = data.get("tool", {}).get("smellkit", {})
    if not isinstance(table, dict):
        raise ConfigError("must be a table", path=pyproject, field="tool.smellkit")
    return parse_config(table, source=pyproject)


def parse_config(table: dict[str, Any], source: Path | str = "<config>") -> ProjectConfig:
    """Validate a `[tool.smellkit]` table, naming the first bad field in the error."""
    try:
        return ProjectConfig.model_validate(table)
    except ValidationError as error:
        first = error.errors()[0]
        field = "tool.smellkit." + ".".join(str(part) for part in first["loc"])
        known = ", ".join(sorted(_kebab(name) for name in ProjectConfig.model_fields))
        hint = f"known keys: {known}" if first["type"] == "extra_forbidden" else None
        raise ConfigError(first["msg"], path=source, field=field, hint=hint) from error
