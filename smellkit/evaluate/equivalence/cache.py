"""What the check learns about a case that no prediction changes, kept between the case's
predictions (and between scoring runs): the recorded inputs of each entry point, the inputs
drawn for it, and the smelly version's two outcomes of each call.

Scoring hundreds of predictions of one case would otherwise run the case's tests under the
recorder, draw the same inputs and run the same calls on the same smelly code for every one of
them. Each item is keyed by what it depends on besides the case: the entry point (recorded
inputs); the entry point and whether the prediction changed it (drawn inputs: a changed
function's sweep is wider); the entry point and the input (outcomes). The case's folder is named
by the case key (`case_key`: the case, its smelly code and selected tests, the interpreter and
the options the items depend on), so a rebuilt case or other options never read stale items.

One SQLite file per case, written in transactions: scorers in several threads or processes may
share it. `filling` holds the case's lock while a prediction computes what is missing, so a
second prediction of the case waits for the first and reuses its work instead of repeating it.
"""

from __future__ import annotations

import base64
import fcntl
import functools
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

FORMAT = 1
"""Bumped when what is stored changes meaning."""


_PRODUCERS = ("_generator.py", "_recorder.py", "_worker.py", "recording.py", "conditions.py")
"""The modules that record, draw and run the cached items."""


@functools.cache
def _producers_digest() -> str:
    """What the cached items were made by: an upgrade that changes how inputs are drawn or
    outcomes are written makes a new folder instead of reusing the old version's items."""
    folder = Path(__file__).parent
    digest = hashlib.blake2b(digest_size=12)
    for name in _PRODUCERS:
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


def case_key(*parts: object) -> str:
    """A folder name for a case from what its items depend on (JSON-serialisable parts)."""
    digest = hashlib.blake2b(json.dumps([FORMAT, _producers_digest(), *parts], sort_keys=True,
                                        default=str).encode(), digest_size=12)
    return digest.hexdigest()


def payload_key(*parts: str | bytes) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def encode(payload: bytes) -> str:
    return base64.b64encode(payload).decode()


def decode(text: str) -> bytes:
    return base64.b64decode(text)


class CaseCache:
    """The items of one case, under `folder` (made on first use)."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "items.sqlite"
        with closing(self._connect()) as connection, connection:
            connection.execute("CREATE TABLE IF NOT EXISTS items (kind TEXT NOT NULL, "
                               "key TEXT NOT NULL, value TEXT NOT NULL, "
                               "PRIMARY KEY (kind, key))")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=300)

    def get(self, kind: str, keys: Iterable[str]) -> dict[str, Any]:
        """The stored values of `keys` of `kind` (those not stored are absent)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        with closing(self._connect()) as connection:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                rows = connection.execute(
                    f"SELECT key, value FROM items WHERE kind = ? AND key IN "
                    f"({', '.join('?' * len(chunk))})", (kind, *chunk)).fetchall()
                for key, value in rows:
                    try:
                        found[key] = json.loads(value)
                    except json.JSONDecodeError:  # never written half (transactions); be safe
                        continue
        return found

    def put(self, kind: str, items: Mapping[str, Any]) -> None:
        if not items:
            return
        with closing(self._connect()) as connection, connection:
            connection.executemany(
                "INSERT OR REPLACE INTO items (kind, key, value) VALUES (?, ?, ?)",
                [(kind, key, json.dumps(value, default=str)) for key, value in items.items()])

    @contextmanager
    def filling(self) -> Iterator[float]:
        """The case's lock, held while missing items are computed; yields the seconds spent
        waiting for it (another prediction of the case was filling)."""
        started = time.monotonic()
        with open(self.folder / ".lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield time.monotonic() - started
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def missing(keys: Sequence[str], found: Mapping[str, Any]) -> list[int]:
    """The positions of `keys` not in `found`."""
    return [index for index, key in enumerate(keys) if key not in found]
