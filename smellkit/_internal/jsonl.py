"""Append-only JSONL logs that survive being killed at any moment, and atomic file writes: the
build's results and scoring's rows are written through these.

Every finished case is one line, written with a single `write` and fsync'd before the build moves
on, so a kill loses at most the line being written. On resume a partial last line (no newline, or
not valid JSON) is dropped and the file is truncated back to the last complete line.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

KeyOf = Callable[[dict[str, Any]], "str | None"]
"""A record's key from its fields (None: not a record of this log), for records whose identity
is more than one field, such as scoring's (instance_id, model)."""


def _field(name: str) -> KeyOf:
    def key_of(record: dict[str, Any]) -> str | None:
        value = record.get(name)
        return value if isinstance(value, str) else None

    return key_of


class JsonlLog:
    """One JSONL file, appended to by many threads; records are keyed for resuming."""

    def __init__(self, path: Path, *, key: str | KeyOf = "key"):
        self.path = path
        self.key_of: KeyOf = _field(key) if isinstance(key, str) else key
        self._lock = threading.Lock()
        self.records: dict[str, dict[str, Any]] = {}
        """Every complete record on disk, by key (the first record of a key wins)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self._recover()

    def _recover(self) -> None:
        """Read the complete lines back; cut off a partial last line left by a kill."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good = 0
        for line in data.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            try:
                record = json.loads(line)
            except ValueError:
                break
            key = self.key_of(record) if isinstance(record, dict) else None
            if key is None:
                break
            self.records.setdefault(key, record)
            good += len(line)
        if good != len(data):
            with open(self.path, "r+b") as handle:
                handle.truncate(good)
                handle.flush()
                os.fsync(handle.fileno())

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self.records

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self.records.get(key)

    def append(self, record: dict[str, Any]) -> bool:
        """Write one record durably; False (and nothing written) if its key is already there."""
        line = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
        key = self.key_of(record)
        if key is None:
            raise ValueError(f"{self.path}: a record without its key: {line[:200]}")
        with self._lock:
            if key in self.records:
                return False
            with open(self.path, "ab") as handle:
                handle.write(line.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            self.records[key] = record
            return True

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with self._lock:
            return iter(list(self.records.values()))

    def __len__(self) -> int:
        with self._lock:
            return len(self.records)


@cache
def _umask() -> int:
    """The process's umask, read once (reading it means setting it, which races with threads)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` all at once: readers see the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(scratch, 0o666 & ~_umask())  # as `open` would create it, not mkstemp's 0600
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(scratch, path)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    """A whole JSONL file, atomically, keys sorted so equal data gives equal bytes."""
    write_atomic(path, "".join(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
                               for record in records))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every complete JSON line of a file (a partial last line is ignored)."""
    records: list[dict[str, Any]] = []
    if not path.exists():
        return records
    for line in path.read_bytes().splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            records.append(json.loads(line))
        except ValueError:
            break
    return records
