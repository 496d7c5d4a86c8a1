"""What to load and how: one model of the options `Survey.take`, `Project.load`, `scan` (through
`ScanRequest`, which extends it) and the CLI's project options share.

The library calls take these fields as keyword arguments and validate them here, so a misspelt or
ill-typed option is a `UsageError` naming the field, wherever it was given.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from smellkit.config import ProjectConfig, load_config
from smellkit.errors import UsageError
from smellkit.project.parsing import ProgressCallback

PathInput = str | os.PathLike[str]
OptionsT = TypeVar("OptionsT", bound="LoadOptions")


def default_cache_dir() -> Path:
    """`SMELLKIT_CACHE_DIR`, else `smellkit` under `XDG_CACHE_HOME`, else `~/.cache/smellkit`."""
    if env := os.environ.get("SMELLKIT_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "smellkit"


class LoadOptions(BaseModel):
    """Which repository, which of its files, and how to parse and cache them."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    path: Path = Path(".")
    """A folder (or one `.py` file) to analyse."""
    config: ProjectConfig | None = None
    """Used instead of the `[tool.smellkit]` table of `path`'s pyproject.toml."""
    include_tests: bool | None = None
    """Analyse test code too; None: as the configuration says (by default, no)."""
    exclude: tuple[str, ...] = ()
    """Globs (relative POSIX paths) to leave out, on top of the configuration's."""
    jobs: int | None = Field(default=None, ge=1)
    """Worker processes for parsing; None: as the configuration says, else every core."""
    cache_dir: Path | None = None
    """Where parsed facts are cached; None: `default_cache_dir()`."""
    use_cache: bool = True
    """Read and write the cache; off, every file is parsed and nothing is written."""
    progress: ProgressCallback | None = None
    """Told `(done, total)` while files are parsed."""

    @classmethod
    def of(cls: type[OptionsT], path: PathInput | LoadOptions = ".",
           **fields: Any) -> OptionsT:
        """The options of a library call: `path` (or options made before, `fields` replacing
        some) and keyword arguments naming fields; a bad one is a `UsageError`."""
        if isinstance(path, cls) and not fields:
            return path
        values = dict(path) if isinstance(path, LoadOptions) else {"path": path}
        values.update(fields)
        try:
            return cls(**values)
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "options"
            message = "unknown option" if first["type"] == "extra_forbidden" else first["msg"]
            raise UsageError(f"{field}: {message}",
                             hint=f"the options are {', '.join(cls.model_fields)}") from None

    @property
    def cache_directory(self) -> Path:
        """The cache folder these options use (when `use_cache`)."""
        return self.cache_dir if self.cache_dir else default_cache_dir()

    def configuration(self) -> ProjectConfig:
        """The project configuration: `config`, else the path's `[tool.smellkit]` table, with
        `include_tests`, `jobs` and `exclude` applied."""
        config = self.config
        if config is None:
            config = load_config(self.path) if self.path.is_dir() else ProjectConfig()
        config = config.merged(include_tests=self.include_tests, jobs=self.jobs)
        if self.exclude:
            config = config.model_copy(update={"exclude": (*config.exclude, *self.exclude)})
        return config
