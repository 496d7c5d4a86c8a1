"""Parsing files into facts: one file (`parse_file`), or many in worker processes (`parse_all`).

Each file is parsed once with stdlib `ast` and turned into `FileFacts`, or into a `FileProblem`
saying why it has none: bad input never raises. Workers pickle each result once, so the same
bytes go over the pipe and into the cache.
"""

from __future__ import annotations

import multiprocessing
import pickle
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import lru_cache
from typing import Any, NamedTuple

from smellkit._internal import pyast
from smellkit._internal.collector import paused_gc
from smellkit.facts import FileFacts, extract
from smellkit.models import Diagnostic
from smellkit.project import _pickling

ProgressCallback = Callable[[int, int], None]
"""Called with (files done, files in all) while files are parsed."""


class SourceFile(NamedTuple):
    """A discovered file: where it is and what module it is."""

    absolute: str
    path: str  # relative to the project root, POSIX
    module: str
    is_package: bool


class FileProblem(NamedTuple):
    """Why a file produced no facts; picklable so workers and the cache can carry it."""

    path: str
    line: int | None
    code: str
    message: str

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(path=self.path, line=self.line, severity="error", code=self.code,
                          message=self.message)


FileResult = FileFacts | FileProblem


def parse_file(source_file: SourceFile, data: bytes, max_bytes: int, *,
               detailed: bool = True) -> FileResult:
    """Facts of one file (`detailed`: see `smellkit.facts.extract`), or why there are none.
    Never raises for bad input."""
    path = source_file.path
    if len(data) > max_bytes:
        return FileProblem(path, None, "too-large",
                           f"{len(data):,} bytes is over max-file-bytes ({max_bytes:,}); skipped "
                           "(raise [tool.smellkit] max-file-bytes to analyse it)")
    if b"\0" in data:
        return FileProblem(path, data[: data.index(b"\0")].count(b"\n") + 1, "null-bytes",
                           "file contains NUL bytes (binary or corrupt); skipped")
    try:
        tree = pyast.parse(data, filename=path)
        source = _decode(data)
    except SyntaxError as error:
        message = error.msg
        if _looks_like_python2(message, data):
            message += " (this looks like Python 2 code; smellkit analyses Python 3)"
        code = "decode-error" if "decode" in message or "utf-8" in message else "syntax-error"
        return FileProblem(path, error.lineno, code, message)
    except (UnicodeDecodeError, LookupError) as error:
        return FileProblem(path, None, "decode-error", f"cannot decode: {error}")
    except (RecursionError, MemoryError, ValueError) as error:
        return FileProblem(path, None, "parse-failed", f"cannot parse: {type(error).__name__}")
    try:
        return extract(tree, source, path, source_file.module, source_file.is_package,
                       detailed=detailed)
    except RecursionError:
        return FileProblem(path, None, "too-deep", "nesting too deep to analyse; skipped")


_PYTHON2 = re.compile(rb"^\s*(print\s+[\"'\w]|exec\s+[\"']|except\s+\w+\s*,\s*\w+\s*:)", re.M)


def _looks_like_python2(message: str, data: bytes) -> bool:
    return "Missing parentheses" in message or bool(_PYTHON2.search(data))


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)


def _parse_batch(batch: list[tuple[SourceFile, bytes]], max_bytes: int,
                 detailed: bool) -> list[FileResult]:
    # trees have no cycles; collecting them mid-parse costs more than parsing
    with paused_gc(freeze=False):
        return [parse_file(source_file, data, max_bytes, detailed=detailed)
                for source_file, data in batch]


def _parse_batch_pickled(batch: list[tuple[SourceFile, bytes]], max_bytes: int,
                         detailed: bool) -> list[bytes]:
    """In a worker: each file's result pickled once; the bytes go both to the cache and over
    the pipe, so the parent unpickles each result once and never pickles it again."""
    with paused_gc(freeze=False):
        return [pickle_result(parse_file(source_file, data, max_bytes, detailed=detailed))
                for source_file, data in batch]


def pickle_result(result: FileResult) -> bytes:
    """A result's pickle, made with the fast reducers of `smellkit.project._pickling`."""
    return _pickling.dumps(result, _fact_pickle_table())


@lru_cache(maxsize=1)
def _fact_pickle_table() -> dict[type, Any]:
    from smellkit import facts
    from smellkit.facts import blocks, fingerprints, reachability
    from smellkit.metrics import complexity

    return _pickling.dispatch_table((facts, blocks, fingerprints, reachability, complexity,
                                     sys.modules[__name__]))


ResultSink = Callable[[int, FileResult, "bytes | None"], None]
"""Receives (position in the to-do list, result, its pickle or None) as results arrive."""


def _batches(todo: list[tuple[SourceFile, bytes]], jobs: int) -> list[list[int]]:
    """Big files first, grouped into batches of about equal bytes, so both workers stay busy to
    the end and the parent gets results early and steadily."""
    order = sorted(range(len(todo)), key=lambda index: -len(todo[index][1]))
    total = sum(len(data) for _, data in todo)
    budget = max(1, total // (jobs * 24))
    batches: list[list[int]] = []
    current: list[int] = []
    weight = 0
    for index in order:
        current.append(index)
        weight += len(todo[index][1]) + 2048  # a per-file cost beyond its bytes
        if weight >= budget or len(current) >= 32:
            batches.append(current)
            current, weight = [], 0
    if current:
        batches.append(current)
    return batches


def parse_all(todo: list[tuple[SourceFile, bytes]], max_bytes: int, jobs: int,
               progress: ProgressCallback | None, done_before: int, total: int,
               sink: ResultSink, detailed: bool) -> None:
    """Results for every file of `todo`, handed to `sink` as they arrive; in `jobs` worker
    processes when there are enough files."""
    if jobs <= 1 or len(todo) < 16:
        done = 0
        for start in range(0, len(todo), 8):
            results = _parse_batch(todo[start:start + 8], max_bytes, detailed)
            for offset, result in enumerate(results):
                sink(start + offset, result, None)
                done += 1
            if progress:
                progress(done_before + done, total)
        return
    batches = _batches(todo, jobs)
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    done = done_before
    loads = pickle.loads
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_parse_batch_pickled, [todo[index] for index in batch],
                               max_bytes, detailed): batch for batch in batches}
        for future in as_completed(futures):  # unpickle while the workers go on parsing
            batch = futures.pop(future)
            for index, blob in zip(batch, future.result()):
                sink(index, loads(blob), blob)
            done += len(batch)
            if progress:
                progress(done, total)
