"""The repository model: which files, which module names, and their facts (parsed once, cached).

`Project.load` discovers the Python files under a path, gives each its dotted module name, and turns
each into `FileFacts` with one stdlib `ast` parse in worker processes (`project.parsing`). Results
are cached on disk by content hash, so a re-scan parses only what changed. Bad files become
diagnostics, never exceptions. What to load and how is one model, `LoadOptions`
(`project.options`), whose fields `Survey.take` and `Project.load` take as keyword arguments.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from smellkit._internal.collector import paused_gc
from smellkit._version import __version__
from smellkit.config import (
    DEFAULT_EXCLUDE_DIRS,
    TEST_DIRS,
    ProjectConfig,
    is_test_path,
    matches_any,
)
from smellkit.errors import ProjectError
from smellkit.facts import FACTS_SCHEMA, FileFacts
from smellkit.models import Diagnostic
from smellkit.project import _packs
from smellkit.project.options import LoadOptions as LoadOptions  # re-exported
from smellkit.project.options import PathInput
from smellkit.project.options import default_cache_dir as default_cache_dir  # re-exported
from smellkit.project.parsing import (
    FileProblem,
    FileResult,
    ProgressCallback,
    SourceFile,
    parse_all,
    pickle_result,
)

if TYPE_CHECKING:
    import networkx as nx

    from smellkit.graphs.index import Index

# ---------------------------------------------------------------------------------------------
# Discovery.


def is_environment(folder: Path) -> bool:
    """A Python environment, known by what it holds: `pyvenv.cfg` (venv, virtualenv, uv, tox and
    nox make one) or `conda-meta/` (conda). Not by its name: `venv/` may be a package."""
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


def _source_roots(root: Path, config: ProjectConfig) -> list[Path]:
    """Folders module names are counted from, most specific first."""
    if config.source_roots:
        roots = [(root / item).resolve() for item in config.source_roots]
    else:
        roots = []
        src = root / "src"
        if (src.is_dir() and any(src.glob("*.py"))) or any(src.glob("*/__init__.py")):
            roots.append(src.resolve())
        roots.append(naming_root(root))
    return sorted(set(roots), key=lambda item: len(item.parts), reverse=True)


def naming_root(folder: Path) -> Path:
    """The folder module names under `folder` are counted from: `folder` itself, or above it
    while it is a package (a flat layout's `pkg/` names its modules `pkg.mod`, not `mod`)."""
    base = folder.resolve()
    while (base / "__init__.py").is_file() and base.parent != base:
        base = base.parent
    return base


def discover(root: Path, config: ProjectConfig) -> tuple[list[SourceFile], list[Diagnostic]]:
    """Every Python file to analyse under `root` (a folder or one file), in a stable order."""
    if not root.exists():
        hint = "check the spelling" if not root.is_symlink() else "the symlink is broken"
        raise ProjectError("no such file or folder", path=root, hint=hint)
    diagnostics: list[Diagnostic] = []
    if root.is_file():
        if root.suffix != ".py":
            raise ProjectError("not a Python file or a folder", path=root,
                               hint="pass a folder or a .py file")
        return [SourceFile(str(root.resolve()), root.name, root.stem, False)], diagnostics
    if not root.is_dir():
        raise ProjectError("neither a file nor a folder", path=root)
    roots = _source_roots(root, config)
    top = root.resolve()
    excluded_dirs = set(DEFAULT_EXCLUDE_DIRS)
    if not config.include_tests:
        excluded_dirs.update(TEST_DIRS)
    found: list[SourceFile] = []
    seen_dirs: set[tuple[int, int]] = set()

    def walk(folder: Path, prefix: str) -> None:
        try:
            stat = folder.stat()
        except OSError as error:
            diagnostics.append(Diagnostic(path=_rel(folder, root), code="unreadable",
                                          message=f"cannot read folder: {error.strerror}"))
            return
        if (stat.st_dev, stat.st_ino) in seen_dirs:
            diagnostics.append(Diagnostic(
                path=_rel(folder, root), code="symlink-loop", severity="warning",
                message="symlink leads back to a folder already analysed; skipped"))
            return
        seen_dirs.add((stat.st_dev, stat.st_ino))
        if is_environment(folder):
            return
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            diagnostics.append(Diagnostic(path=_rel(folder, root), code="unreadable",
                                          message=f"cannot list folder: {error.strerror}"))
            return
        for entry in entries:
            relative = prefix + entry.name
            if config.exclude and matches_any(relative, config.exclude):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if (entry.name in excluded_dirs or entry.name.endswith(".egg-info")
                        or entry.name.startswith(".")):
                    continue
                if entry.is_symlink() and not _inside(Path(entry.path), top, diagnostics, root):
                    continue
                walk(Path(entry.path), relative + "/")
            elif entry.name.endswith(".py"):
                if not config.include_tests and is_test_path(entry.name):
                    continue
                if entry.is_symlink():
                    if not _inside(Path(entry.path), top, diagnostics, root):
                        continue
                    if not os.path.exists(entry.path):
                        diagnostics.append(Diagnostic(
                            path=relative, code="broken-symlink",
                            message="symlink points to nothing; skipped"))
                        continue
                found.append(_source_file(entry.path, relative, root_prefixes))

    root_prefixes = [str(item) + os.sep for item in roots]
    walk(root, "")
    return found, diagnostics


def _inside(link: Path, top: Path, diagnostics: list[Diagnostic], root: Path) -> bool:
    try:
        target = link.resolve()
    except (OSError, RuntimeError):
        diagnostics.append(Diagnostic(path=_rel(link, root), code="symlink-loop",
                                      message="symlink cannot be resolved (a loop?); skipped"))
        return False
    if target != top and top not in target.parents:
        diagnostics.append(Diagnostic(
            path=_rel(link, root), code="outside-project", severity="info",
            message=f"symlink points outside the project ({target}); skipped"))
        return False
    return True


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _source_file(path: str, relative: str, root_prefixes: Sequence[str]) -> SourceFile:
    """Name the file from the most specific source root holding it (string work: this runs for
    every file of every scan, cached or not)."""
    absolute = os.path.abspath(path)
    inner = relative
    for prefix in root_prefixes:
        if absolute.startswith(prefix):
            inner = absolute[len(prefix):]
            break
    parts = inner[:-3].replace(os.sep, "/").split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return SourceFile(absolute, relative, ".".join(parts), is_package)


def cache_key(source_file: SourceFile, data: bytes) -> str:
    """Content hash plus what else shapes the facts: module name, path, version, Python."""
    digest = hashlib.blake2b(data, digest_size=20)
    digest.update(f"\0{source_file.module}\0{source_file.path}\0{source_file.is_package}".encode())
    return digest.hexdigest()


_UNDETAILED = "-undetailed"


def _unpickled(data: bytes | None) -> FileResult | None:
    """A stored result, or None for bytes that are missing, damaged or not a result."""
    if data is None:
        return None
    try:
        value = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError,
            TypeError, ValueError, KeyError):
        return None
    return value if isinstance(value, (FileFacts, FileProblem)) else None


class FactCache:
    """Facts by content key, under a folder per smellkit and Python version, in pack files
    (`project._packs`): each batch of results, such as the files one scan parsed, is one file.
    Past `MAX_PACKS` packs, the next write merges them all into one."""

    MAX_PACKS = 16

    def __init__(self, directory: Path):
        python = f"{sys.version_info[0]}{sys.version_info[1]}"
        self.directory = directory / f"v{__version__}-s{FACTS_SCHEMA}-py{python}"
        self._packs = self.directory / "packs"
        self._where: dict[str, _packs.Span] | None = None

    def _index(self) -> dict[str, _packs.Span]:
        """Where each key's bytes are (the newest pack holding a key wins), read once."""
        if self._where is None:
            self._where = {}
            for path in _packs.packs_in(self._packs):
                self._learn(path, _packs.read_table(path) or {})
        return self._where

    def _learn(self, path: Path, table: _packs.Table) -> None:
        if self._where is not None:
            for key, (offset, length) in table.items():
                self._where[key] = (path, offset, length)

    def get(self, key: str, *, detailed: bool = True) -> FileResult | None:
        """The result stored for `key`; without `detailed`, facts without detail will do."""
        return self.get_many([key], detailed=detailed)[0]

    def get_many(self, keys: Sequence[str], *, detailed: bool = True) -> list[FileResult | None]:
        """`get` for many keys, each pack opened once."""
        where = self._index()
        spans = [where.get(key) or (None if detailed else where.get(key + _UNDETAILED))
                 for key in keys]
        return [_unpickled(data) for data in _packs.read_spans(spans)]

    def put_many(self, results: Iterable[tuple[str, FileResult, bytes | None]]) -> None:
        """Store (key, result, its pickle when a worker made one already) as one pack. Facts
        without detail have their own entry: a scan that needs the detail must not find them.
        A cache folder that cannot be written slows the next run down, nothing more."""
        written = _packs.write_pack(self._packs, (
            (key if not isinstance(result, FileFacts) or result.detailed else key + _UNDETAILED,
             pickle_result(result) if data is None else data)
            for key, result, data in results))
        if written is not None:
            self._learn(*written)
            self._merge_if_many()

    def _merge_if_many(self) -> None:
        packs = _packs.packs_in(self._packs)
        if len(packs) <= self.MAX_PACKS:
            return
        if _packs.write_pack(self._packs, _packs.merged_entries(packs)) is not None:
            for path in packs:
                with contextlib.suppress(OSError):
                    path.unlink()
        self._where = None

    def get_blob(self, name: str) -> bytes | None:
        """A stored whole-run artefact (a scan result), or None."""
        try:
            return (self.directory / "results" / name).read_bytes()
        except OSError:
            return None

    def put_blob(self, name: str, data: bytes) -> None:
        self._write(self.directory / "results" / name, data)

    def drop_blob(self, name: str) -> None:
        """Remove a stored artefact that a newer one replaced (gone already is fine)."""
        try:
            (self.directory / "results" / name).unlink()
        except OSError:
            return

    @staticmethod
    def _write(target: Path, data: bytes) -> None:
        """Atomic: a reader sees the old entry or the new one, never half of one."""
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, target)
        except OSError:
            return  # a read-only or full cache folder slows the next run down, nothing more


class Inventory(NamedTuple):
    """Every discovered file with its content key (or why it cannot be read)."""

    items: list[tuple[SourceFile, str, bytes | FileProblem]]

    def key(self, *extra: str) -> str:
        """One key for the whole file set: equal keys mean identical facts."""
        digest = hashlib.blake2b(digest_size=20)
        for source_file, key, _ in self.items:
            digest.update(f"{source_file.path}\0{key}\n".encode())
        for item in extra:
            digest.update(item.encode())
        return digest.hexdigest()


def take_inventory(sources: Sequence[SourceFile]) -> Inventory:
    """Read and hash every file: the only work a fully cached re-scan does per file."""
    items: list[tuple[SourceFile, str, bytes | FileProblem]] = []
    for source_file in sources:
        try:
            with open(source_file.absolute, "rb") as handle:
                data = handle.read()
        except OSError as error:
            code = "is-a-directory" if isinstance(error, IsADirectoryError) else "unreadable"
            items.append((source_file, "", FileProblem(source_file.path, None, code,
                                                      f"cannot read: {error.strerror}")))
            continue
        items.append((source_file, cache_key(source_file, data), data))
    return Inventory(items)


@dataclass
class LoadStats:
    discovered: int = 0
    parsed: int = 0
    from_cache: int = 0
    failed: int = 0
    seconds: float = 0.0


@dataclass
class Survey:
    """What is there to analyse: configuration, files, their content keys; nothing parsed yet."""

    root: Path
    config: ProjectConfig
    inventory: Inventory
    diagnostics: list[Diagnostic]
    cache: FactCache | None
    started: float

    @classmethod
    def take(cls, path: PathInput | LoadOptions = ".", **options: Any) -> Survey:
        """What there is to analyse at `path`; `options` are `LoadOptions` fields (or pass a
        `LoadOptions` as `path`)."""
        started = time.perf_counter()
        chosen = LoadOptions.of(path, **options)
        root = chosen.path
        config = chosen.configuration()
        sources, diagnostics = discover(root, config)
        if not sources:
            hint = ("all files were excluded as tests; pass --include-tests"
                    if not config.include_tests else "is this the right folder?")
            raise ProjectError("no Python files to analyse", path=root, hint=hint)
        cache = FactCache(chosen.cache_directory) if chosen.use_cache else None
        return cls(root, config, take_inventory(sources), diagnostics, cache, started)


@dataclass
class Project:
    """A Python repository: its files' facts, and the graphs and metrics built on them."""

    root: Path
    config: ProjectConfig
    files: list[FileFacts]
    diagnostics: list[Diagnostic]
    stats: LoadStats = field(default_factory=LoadStats)
    started: float = field(default_factory=time.perf_counter)

    @classmethod
    def load(cls, path: PathInput | LoadOptions = ".", *, detailed: bool = True,
             **options: Any) -> Project:
        """Discover, parse and cache; bad files become `diagnostics`, not exceptions.
        `options` are `LoadOptions` fields: `config`, `include_tests`, `exclude`, `jobs`,
        `cache_dir`, `use_cache`, `progress` (or pass a `LoadOptions` as `path`).
        Without `detailed`, the facts serve the graphs and metrics but not the detectors."""
        chosen = LoadOptions.of(path, **options)
        return cls.from_survey(Survey.take(chosen), progress=chosen.progress, detailed=detailed)

    @classmethod
    def from_survey(cls, survey: Survey, *, progress: ProgressCallback | None = None,
                    detailed: bool = True,
                    known: Mapping[str, FileFacts] | None = None) -> Project:
        """Facts for every surveyed file: from the cache where the content is known, else parsed
        (`detailed` as in `load`). `known`: facts already in memory, by content key (another
        load of the same files), taken before the cache."""
        sources = survey.inventory.items
        cache = survey.cache
        stats = LoadStats(discovered=len(sources))
        results: list[FileResult | None] = [None] * len(sources)
        todo: list[tuple[SourceFile, bytes]] = []
        todo_slots: list[tuple[int, str]] = []
        with paused_gc():
            at_hand = [item if item is not None and (item.detailed or not detailed) else None
                       for item in (known.get(key) if known else None for _, key, _ in sources)]
            missing = [key for (_, key, _), item in zip(sources, at_hand) if item is None]
            stored = iter(cache.get_many(missing, detailed=detailed) if cache and missing
                          else [None] * len(missing))
            cached: list[FileResult | None] = [item if item is not None else next(stored)
                                               for item in at_hand]
            for slot, ((source_file, key, data), found) in enumerate(zip(sources, cached)):
                if isinstance(data, FileProblem):
                    results[slot] = data
                elif found is not None:
                    results[slot] = found
                    stats.from_cache += 1
                else:
                    todo.append((source_file, data))
                    todo_slots.append((slot, key))
            if progress:
                progress(stats.from_cache, len(sources))
            workers = survey.config.jobs or os.cpu_count() or 1
            fresh: list[tuple[str, FileResult, bytes | None]] = []

            def sink(position: int, result: FileResult, blob: bytes | None) -> None:
                slot, key = todo_slots[position]
                results[slot] = result
                fresh.append((key, result, blob))

            try:
                parse_all(todo, survey.config.max_file_bytes, workers, progress,
                          stats.from_cache, len(sources), sink, detailed)
            finally:  # what was parsed is kept, even when the rest was interrupted
                if cache and fresh:
                    cache.put_many(fresh)
            stats.parsed = len(todo)
        diagnostics = list(survey.diagnostics)
        files: list[FileFacts] = []
        for outcome in results:
            if isinstance(outcome, FileFacts):
                files.append(outcome)
            elif isinstance(outcome, FileProblem):
                stats.failed += 1
                diagnostics.append(outcome.diagnostic())
        stats.seconds = time.perf_counter() - survey.started
        return cls(root=survey.root, config=survey.config, files=files, diagnostics=diagnostics,
                   stats=stats, started=survey.started)

    # -- derived structures, built on first use ---------------------------------------------

    @cached_property
    def index(self) -> Index:
        from smellkit.graphs.index import Index

        return Index(self.files, root=self.root, inference_budget=self.config.inference_budget)

    @property
    def call_graph(self) -> nx.DiGraph:
        return self.index.call_graph

    @property
    def import_graph(self) -> nx.DiGraph:
        return self.index.import_graph

    @property
    def class_graph(self) -> nx.DiGraph:
        return self.index.class_graph

    @property
    def attribute_graph(self) -> nx.DiGraph:
        return self.index.attribute_graph
