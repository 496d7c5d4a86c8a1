"""Options read from the `[tool.smellkit]` table of the analysed repository's pyproject.toml.

Keys are written in kebab-case in TOML (`include-tests`) and validated by pydantic, so a typo or a
wrong type is reported with the file and the field instead of being silently ignored.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from smellkit.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DEFAULT_EXCLUDE_DIRS = (
    ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", "build", "dist", "node_modules",
    "site-packages", ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache", "vendor", "vendored",
    "_vendor", "third_party",
)
"""Folder names never analysed: version control, build output, installed and vendored code.
Environments are not among them: they are known by what they hold (`smellkit.project.
is_environment`), since a folder named `venv` or `env` may as well be a package."""

TEST_DIRS = ("tests", "test", "testing")
"""Folder names holding tests, skipped unless tests are included."""

NOT_LIBRARY = (
    "examples", "example", "docs", "doc", "scripts", "script", "benchmarks", "benchmark",
    "bench", "tools", "tool", "demo", "demos", "tutorial", "tutorials", "ci", "setup.py",
    "noxfile.py", "tasks.py", "fabfile.py",
)
"""Top-level folders and files of a flat layout (no `src/`) that hold no library code: they are
analysed (examples show how the library is used) but never injected into by default."""


def matches_any(relative: str, patterns: Sequence[str]) -> bool:
    """A relative POSIX path matched by a glob, or inside a folder matched by one: the one rule
    of `exclude` patterns, for discovery and for where injections may go."""
    return any(fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern + "/*")
               for pattern in patterns)


@cache
def is_test_path(path: str) -> bool:
    """The one rule for test code: a relative POSIX path under a test folder, or a file named like
    a pytest module or `conftest.py`. Discovery, detectors, injectors and inference all ask it."""
    *folders, name = path.split("/")
    return (any(folder in TEST_DIRS for folder in folders) or name.startswith("test_")
            or name.endswith("_test.py") or name == "conftest.py")


def is_test_module(module: str) -> bool:
    """`is_test_path` for a dotted module name."""
    return is_test_path(module.replace(".", "/") + ".py")


def toml_value(text: str) -> Any:
    """A command-line value read as a TOML value (`3`, `0.5`, `true`, `"x"`, `[1, 2]`); text
    that is not TOML stays a string, so `mode=fast` needs no quotes."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


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


REPEATABLE_INFERENCE_BUDGET = 0
"""The inference budget of analyses whose results must not depend on the machine: the builds of
a benchmark and the scoring of its predictions. Astroid's time limits make what inference resolves
depend on the machine's speed and load, so a build resumed on a busy machine could inject at other
places, and a case verified with inference could be scored without it."""


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
    return with_vulture(parse_config(table, source=pyproject), data.get("tool", {}).get("vulture"),
                        pyproject)


def with_vulture(config: ProjectConfig, vulture: object, source: Path | str) -> ProjectConfig:
    """The configuration with `[tool.vulture]`'s `ignore_names` and `ignore_decorators` added to
    dead code's `ignore-names` and `ignore-decorators`: a project that already told vulture which
    names are used on purpose need not say it twice."""
    if not isinstance(vulture, dict):
        return config
    extra: dict[str, list[str]] = {}
    for key in ("ignore_names", "ignore_decorators"):
        values = vulture.get(key)
        if values is None:
            continue
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            raise ConfigError("must be a list of strings", path=source, field=f"tool.vulture.{key}")
        extra[key.replace("_", "-")] = [value.lstrip("@") for value in values]
    if not extra:
        return config
    detectors = dict(config.detectors)
    dead_code = dict(detectors.get("dead_code", {}))
    for key, values in extra.items():
        own = list(dead_code.pop(key, None) or dead_code.pop(key.replace("-", "_"), None) or [])
        dead_code[key] = [*own, *(value for value in values if value not in own)]
    detectors["dead_code"] = dead_code
    return config.model_copy(update={"detectors": detectors})


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


# --------------------------------------------------------------------------------------------
# The repo spec: one TOML file per target repository, the single source of truth for where its
# code comes from and how to install and test it (RepoMod-Bench's benchmark.yml, in TOML).


class RepoSource(BaseModel):
    """Where the pristine source tree comes from: exactly one of a local folder, git or PyPI."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(
        default=None, description="A local folder, relative to the spec file; used as is and "
        "never modified.")
    git: str | None = Field(default=None, description="A git URL (or local repository) to clone.")
    commit: str | None = Field(
        default=None, validate_default=True, description="The git commit to check out; "
        "required with `git`, so a case names the exact code it was built from.")
    pypi: str | None = Field(
        default=None, description="`name==version` of a source distribution on PyPI.")

    @field_validator("commit", mode="after")
    @classmethod
    def _commit_with_git(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("git") is None:
            raise ValueError("commit belongs with git")
        if info.data.get("git") is not None and not value:
            raise ValueError("git needs a commit (a pinned revision keeps cases reproducible)")
        return value

    @field_validator("pypi", mode="after")
    @classmethod
    def _pinned(cls, value: str | None) -> str | None:
        if value is not None:
            name, sep, version = value.partition("==")
            if not sep or not name.strip() or not version.strip() or "=" in version:
                raise ValueError(f"must be 'name==version' (a pinned sdist), got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> RepoSource:
        kinds = [name for name in ("path", "git", "pypi") if getattr(self, name) is not None]
        if len(kinds) != 1:
            found = ", ".join(kinds) or "none"
            raise ValueError(f"give exactly one of path, git, pypi (found: {found})")
        return self

    @property
    def kind(self) -> str:
        """`path`, `git` or `pypi`."""
        return "path" if self.path is not None else "git" if self.git is not None else "pypi"


class Timeouts(BaseModel):
    """Seconds before a step is killed; a killed step is reported as timed out, never as a pass."""

    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid",
                              frozen=True)

    install: float = Field(default=900, gt=0, description="All install commands together.")
    test: float = Field(default=600, gt=0, description="One run of the selected tests.")
    per_test: float = Field(default=60, gt=0, description="One test; a hang is cut off here.")
    map: float = Field(default=1800, gt=0, description="One full-suite run for the test map.")


class RepoSpec(BaseModel):
    """One target repository: its source, interpreter, install and test commands."""

    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid",
                              frozen=True)

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
                      description="Short name used in case ids and cache folders.")
    source: RepoSource
    source_path: str = Field(
        default="", description="The package folder or src root inside the checkout that "
        "smellkit analyses and that tests import from, e.g. `src`.")
    python: str = Field(
        default="3", pattern=r"^3(\.\d+)?$", description="major[.minor] of the interpreter "
        "(`python3.11` must exist on the machine).")
    install: tuple[str, ...] = Field(
        default=("pip install -e .",), description="Shell commands run in a copy of the "
        "checkout with the virtualenv activated.")
    test_command: str = Field(default="python -m pytest", min_length=1,
                              description="How to run tests; node ids are appended.")
    tests_path: str = Field(default="tests", description="The folder holding the tests.")
    env: dict[str, str] = Field(default_factory=dict,
                                description="Extra environment variables for installs and tests.")
    exclude_tests: tuple[str, ...] = Field(
        default=(), description="Node ids or fnmatch patterns never selected.")
    timeouts: Timeouts = Field(default_factory=Timeouts)
    runner: Literal["local", "docker"] | None = Field(
        default=None, description="Where tests run when the build is not told: `local` "
        "(default) or `docker` (no network, CPU and memory limits).")
    min_file_lines: int | None = Field(
        default=None, ge=0, description="Every injector's `min-file-lines` (SmellBench's "
        "500-line filter suits big repositories; a library of small modules needs less); a "
        "smell's `[injectors.<smell>]` table and the build's command line override it.")
    injectors: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Injector options by smell, `[injectors.god_class]` "
        "`min-file-lines = 200`; the build's command-line options override them.")
    exclude_from_injection: tuple[str, ...] | None = Field(
        default=None, description="Globs (relative to `source-path`) of code never injected "
        "into; unset: nothing more when `source-path` names the library's folder, else "
        "examples, docs, scripts, benchmarks, tools and the like of a flat layout (everything "
        "outside `src/` of a src layout); `[]` allows every analysed file (tests never).")
    spec_path: Path | None = Field(default=None, exclude=True,
                                   description="Where the spec was loaded from.")

    @property
    def revision(self) -> str:
        """The commit-like identity recorded in datasets: a commit, `pypi:name==ver`, `local`."""
        source = self.source
        if source.git is not None:
            return str(source.commit)
        if source.pypi is not None:
            return f"pypi:{source.pypi}"
        return "local"

    def local_path(self) -> Path | None:
        """The folder of a `path` source, resolved against the spec file's folder."""
        if self.source.path is None:
            return None
        base = self.spec_path.parent if self.spec_path is not None else Path.cwd()
        return (base / self.source.path).resolve()


def load_repo_spec(path: Path | str) -> RepoSpec:
    """Read and validate a repo spec; errors name the file and the dotted field."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read the repo spec: {error.strerror or error}", path=path,
                          hint="check the path") from error
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"not valid TOML: {error}", path=path) from error
    return parse_repo_spec(data, source=path)


def parse_repo_spec(table: dict[str, Any], source: Path | str = "<spec>") -> RepoSpec:
    """Validate a repo spec table, naming the first bad field (`source.pypi`) in the error."""
    if "spec-path" in table or "spec_path" in table:
        raise ConfigError("is set from the file's location, not in the file", path=source,
                          field="spec-path")
    try:
        spec = RepoSpec.model_validate(table)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "source"
        message = first["msg"].removeprefix("Value error, ")
        hint = None
        if first["type"] == "extra_forbidden":
            model: type[BaseModel] = RepoSpec
            if first["loc"][:1] == ("source",):
                model = RepoSource
            elif first["loc"][:1] == ("timeouts",):
                model = Timeouts
            known = sorted(_kebab(name) if model is not RepoSource else name
                           for name in model.model_fields if name != "spec_path")
            hint = "known keys: " + ", ".join(known)
        raise ConfigError(message, path=source, field=field, hint=hint) from error
    if isinstance(source, Path):
        spec = spec.model_copy(update={"spec_path": source.resolve()})
    return spec


BUILT_SPECS = "specs"
"""The folder of a build's output holding `<name>.json` per repository (`spec_record`): how
scoring finds the repository, its environment and its caches again."""


def spec_record(spec: RepoSpec, cache_dir: Path) -> dict[str, Any]:
    """What a build records about a repository: the spec exactly as it used it, the file it came
    from (a local source's path is relative to it) and the cache it fetched and installed into.
    The spec is kept as written because the environment's cache key is made from it."""
    return {"spec": spec.model_dump(mode="json", by_alias=True),
            "spec-file": str(spec.spec_path) if spec.spec_path is not None else None,
            "cache-dir": str(Path(cache_dir).resolve())}


def load_spec_record(path: Path | str) -> tuple[RepoSpec, Path | None]:
    """A spec recorded by a build and the cache it used; errors name the file and the field."""
    import json

    path = Path(path)
    hint = "build again to rewrite it, or pass the spec with --spec"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read the recorded spec: {error.strerror or error}",
                          path=path) from error
    except (UnicodeDecodeError, ValueError) as error:
        raise ConfigError(f"not valid JSON: {error}", path=path, hint=hint) from error
    if not isinstance(data, dict) or not isinstance(data.get("spec"), dict):
        raise ConfigError("must be an object with a `spec` table", path=path, field="spec",
                          hint=hint)
    spec = parse_repo_spec(data["spec"], source=path)
    if isinstance(data.get("spec-file"), str):
        spec = spec.model_copy(update={"spec_path": Path(data["spec-file"])})
    cache = data.get("cache-dir")
    return spec, Path(cache) if isinstance(cache, str) else None


def find_python(version: str, *, field: str = "python", path: Path | str | None = None) -> str:
    """The executable for `python = "3.11"` (`python3.11` on PATH that really runs).

    pyenv installs shims for versions that are not active and fail when run, so the candidate is
    started once to prove it works.
    """
    import shutil
    import subprocess

    name = f"python{version}"
    found = shutil.which(name)
    if found is not None:
        try:
            probe = subprocess.run([found, "-c", "import sys; print(sys.executable)"],
                                   capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            probe = None
        if probe is not None and probe.returncode == 0 and probe.stdout.strip():
            return probe.stdout.strip()
    raise ConfigError(f"interpreter {name} not found on this machine", path=path, field=field,
                      hint=f"install Python {version} or set `python` to an installed version")
